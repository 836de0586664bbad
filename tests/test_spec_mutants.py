"""Deliberately broken variants of spec/wizard_extreme/de.rules: each must be caught by a ruling
or by a property in simulation (a spec whose checks would miss them proves little)."""

from __future__ import annotations

import pytest

from verifier.scenarios import run_scenarios
from verifier.simulate import simulate

from conftest import ROOT, compile_text

WIZARD = ROOT / "spec" / "wizard_extreme" / "de.rules"

# (what is broken, text replaced, replacement)
MUTANTS = [
    ("no floor under the figure's points",
     "greatest(0, figure_base_now() - sum(q in Player where q != p: seals[q][black]))",
     "figure_base_now() - sum(q in Player where q != p: seals[q][black])"),
    ("a seventh black seal handed out",
     "  if black in middle {\n    move black from middle to seals[w]",
     "  if true {\n    move black from middle to seals[w]"),
    ("more than four exchanges", "when q != p and c in seals[q] and exchanges < 4", "when q != p and c in seals[q]"),
    ("red is no trump", "if c.colour == red then 100 + c.value else if", "if"),
    ("the figure's holder takes black seals", "  if figure == w {\n    next_trick(w)\n  } elif", "  if"),
    ("no need to follow the colour led",
     "  when lead == none or c.colour == lead or not any(d in hand[p]: d.colour == lead)\n", ""),
    ("four rounds with three players", "const rounds = if players == 3 then 6 else", "const rounds = if players == 3 then 3 else"),
    ("seals kept after a round", "  for p in Player { move all from seals[p] to middle }\n", ""),
    ("the trumped winner may not return red", "(trumped and s == red)", "false"),
]


@pytest.mark.slow
@pytest.mark.parametrize("name, old, new", MUTANTS, ids=[m[0] for m in MUTANTS])
def test_broken_rule_is_caught(name, old, new):
    text = WIZARD.read_text()
    assert text.count(old) == 1, f"the mutant '{name}' no longer applies to the spec"
    spec = compile_text(text.replace(old, new), str(WIZARD))
    failed = [r.scenario.name for r in run_scenarios(spec) if not r.ok]
    if failed:
        return
    problems = [f.title for players in (3, 4, 5)
                for f in simulate(spec, players, 20, "mutant", avoid_gaps=True).problems]
    assert problems, f"'{name}' is caught by no ruling and no property"

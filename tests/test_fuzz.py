"""rulespec fuzz: the Hypothesis back-end, its reports, shrinking, the example database and the command."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verifier.backends.hypothesis import choose_move, draw_value, failure_class
from verifier.backends.interpreter import Program
from verifier.fuzz import default_database, fuzz
from verifier.pipeline import load_spec
from verifier.replay import replay
from verifier.trace import dump_itf

from conftest import MINI, ROOT, compile_text, run_cli

TRICKS = ROOT / "examples" / "little_tricks" / "little_tricks.rules"
WANDS = ROOT / "examples" / "tug_of_wands" / "tug_of_wands.rules"
FEATURES = ROOT / "tests" / "specs" / "good" / "features.rules"

# Little Tricks with a bug: a trick won with the 8 when hearts are trump counts twice. The
# shortest game that shows it names hearts trump, bids (4 moves) and plays one trick (4 moves).
# Shrinking cannot change the deal except by trying other seeds (a shuffle comes from a seed, so
# that `rulespec replay` replays it), so a deal may need a later round: whole rounds of 37 moves
# then come first, but within the failing round nothing is left except its first trick.
DOUBLE = ("  tricks[w] += 1\n", "  tricks[w] += 1\n  if trump == hearts and the(table[w]).rank == 8 { tricks[w] += 1 }\n")

# Two counters, each with its own invariant: two distinct failures, each shrunk on its own.
COUNTERS = """
game counters "Counters"
players 2..2 cite "Players" "two"
var n: 0..9
var m: 0..9
init cite "Setup" "both at zero" { n := 0 }
/// Count n up.
action up_n() cite "Play" "n" when n < 9 { n += 1 }
/// Count m up.
action up_m() cite "Play" "m" when m < 9 { m += 1 }
/// Stop.
action stop() cite "End" "stop" when n + m >= 12 { n := 0  m := 0 }
/// n stays small.
invariant n_small cite "Play" "n": n < 3
/// m stays small.
invariant m_small cite "Play" "m": m < 2
"""

# The guard reads the top of a pile that runs out: after two moves no guard can be evaluated.
GUARD_FAULT = """
game guardfault "Guard fault"
players 2..2 cite "Players" "two"
enum Colour { red, blue }
card Chip { colour: Colour }
var done: bool
zone stock: pile of Chip visible hidden
zone hand[Player]: bag of Chip visible owner
init cite "Setup" "two chips" { stock := [Chip(red), Chip(blue)] }
/// Take the top chip while it is red or blue.
action take(p: Player) by p cite "Play" "take" when top(stock) == Chip(red) or top(stock) == Chip(blue) {
  draw 1 from stock to hand[p]
}
end over cite "End" "never": done
"""


def tricks_with(old_new=DOUBLE):
    text = TRICKS.read_text()
    assert text.count(old_new[0]) == 1
    return compile_text(text.replace(*old_new), str(TRICKS))


# ---- strategies ----------------------------------------------------------------------------

def test_parameters_are_drawn_as_values_of_their_types():
    spec, _ = load_spec(str(FEATURES))
    program = Program(spec, spec.min_players)
    assert spec.params, "features.rules should declare parameters"
    seen = {p.name: set() for p in spec.params}

    @settings(max_examples=60, deadline=None, database=None)
    @given(st.data())
    def check(data):
        for p in spec.params:
            v = draw_value(data.conjecture_data, p.type, program.domains)
            assert program.fits(p.type, v), (p.name, v)
            seen[p.name].add(repr(v))

    check()
    assert all(len(v) > 1 for v in seen.values()), seen  # not a constant


def test_a_move_is_chosen_by_action_then_arguments():
    class Fixed:  # a stand-in for ConjectureData that answers from a list
        def __init__(self, answers):
            self.answers, self.asked = list(answers), []

        def draw_integer(self, lo, hi):
            self.asked.append((lo, hi))
            return self.answers.pop(0)

    moves = [(0, (1,)), (0, (2,)), (0, (3,)), (2, ()), (5, (7,)), (5, (8,))]
    cd = Fixed([2, 1])
    assert choose_move(cd, moves) == (5, (8,))
    assert cd.asked == [(0, 2), (0, 1)]           # three actions, then two moves of the third
    cd = Fixed([1])
    assert choose_move(cd, moves) == (2, ())       # an action with one move needs no second choice
    cd = Fixed([4])
    assert choose_move(cd, moves, by_action=False) == (5, (7,)) and cd.asked == [(0, 5)]
    assert choose_move(Fixed([]), [(3, ())]) == (3, ())  # a forced move costs no choice


def test_failure_classes_are_distinct_per_finding():
    a, b = failure_class("violation:x"), failure_class("violation:y")
    assert a is not b and a is failure_class("violation:x") and a.key == "violation:x"


# ---- runs ------------------------------------------------------------------------------------

def test_a_sound_spec_fuzzes_clean_with_expected_violations_counted():
    spec, _ = load_spec(str(TRICKS))
    rep = fuzz(spec, 3, 25, "t")
    assert rep.ok and not rep.failures
    assert rep.examples == 25 and rep.ends == {"game_over": 25}
    assert rep.steps == sum(rep.lengths) and min(rep.lengths) == 102  # 3 rounds of 1 + 3 + 30 moves
    # a missed bid makes a score negative, which the spec expects: counted, not a failure
    assert 0 < rep.expected["scores_never_negative"] <= 25


def test_gaps_are_counted_not_failures():
    spec, _ = load_spec(str(WANDS))
    rep = fuzz(spec, 4, 40, "gaps")
    assert rep.ok
    (gap,) = rep.gaps.values()
    assert "tie-break" in gap.title and gap.count > 0 and gap.span.line == 152
    assert sum(rep.ends.values()) + gap.count == rep.examples == 40


def test_the_same_seed_gives_the_same_run():
    spec, _ = load_spec(str(WANDS))
    a, b, c = (fuzz(spec, 5, 15, s) for s in ("same", "same", "other"))
    assert a.lengths == b.lengths and a.ends == b.ends and a.expected == b.expected
    assert {k: g.count for k, g in a.gaps.items()} == {k: g.count for k, g in b.gaps.items()}
    assert a.lengths != c.lengths


def test_a_failure_shrinks_to_the_shortest_game_and_replays(tmp_path):
    spec = tricks_with()
    rep = fuzz(spec, 4, 200, "shrink")
    assert not rep.ok
    (f,) = rep.failures
    assert f.kind == "violation" and f.key == "violation:tricks_counted"
    assert f.length_after <= f.length_before and f.length_after % 37 == 9
    labels = [s.label for s in f.trace.steps]
    assert labels[-9].startswith("name_trump(") and labels[-9].endswith(", hearts)")
    assert [x.split("(")[0] for x in labels[-8:]] == ["make_bid"] * 4 + ["play_card"] * 4
    assert all(s.cite for s in f.trace.steps)
    assert f.trace.outcome["kind"] == "violation" and f.trace.outcome["property"] == "tricks_counted"
    # the shrunk game, saved as ITF, replays with the same violation
    path = tmp_path / "t.itf.json"
    path.write_text(dump_itf(f.trace.to_itf("fuzz")))
    again = replay(spec, str(path))
    assert [v["property"] for v in again.outcome["violations"]] == ["tricks_counted"]
    assert len(again.trace) == f.length_after


def test_distinct_failures_are_shrunk_each_on_its_own():
    spec = compile_text(COUNTERS)
    rep = fuzz(spec, 2, 100, "two")
    got = {f.key: [s.action for s in f.trace.steps] for f in rep.failures}
    assert got == {"violation:n_small": ["up_n"] * 3, "violation:m_small": ["up_m"] * 2}


def test_deadlock_and_step_limit_are_failures():
    dead = compile_text(MINI.replace("/// Stop when the stock is empty.\naction stop() cite \"End\" \"when the stock is "
                                     "empty\" when size(stock) == 0 and not done { done := true }\n", ""))
    rep = fuzz(dead, 2, 20, "d")
    (f,) = rep.failures
    assert f.kind == "deadlock" and f.length_after <= f.length_before and f.trace.outcome == {"kind": "deadlock"}
    endless = compile_text(COUNTERS.replace("invariant n_small cite \"Play\" \"n\": n < 3",
                                            "invariant n_small cite \"Play\" \"n\": n < 10")
                           .replace("invariant m_small cite \"Play\" \"m\": m < 2", "invariant m_small cite \"Play\" \"m\": m < 10"))
    rep = fuzz(endless, 2, 5, "e", max_steps=40)
    assert [(f.kind, f.length_after) for f in rep.failures] == [("step_limit", 40)]


def test_the_example_database_replays_a_failure_first(tmp_path):
    spec = tricks_with()
    db = tmp_path / "db"
    first = fuzz(spec, 4, 200, "db", database=str(db))
    assert first.failures and any(db.rglob("*"))
    second = fuzz(spec, 4, 200, "another seed", database=str(db))
    (f,) = second.failures
    assert f.length_after == first.failures[0].length_after
    assert second.examples == 0  # a saved example fails before any new one is generated


def test_no_database_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert default_database() == str(tmp_path / "cache" / "rulespec" / "hypothesis")
    r = run_cli("fuzz", str(TRICKS), "--players", "3", "--examples", "3", "--no-db")
    assert r.code == 0 and "database       none" in r.out
    assert not (tmp_path / "cache").exists()
    r = run_cli("fuzz", str(TRICKS), "--players", "3", "--examples", "3")
    assert r.code == 0 and (tmp_path / "cache" / "rulespec" / "hypothesis").is_dir()


def test_a_guard_that_faults_after_the_last_move_is_a_failure_with_its_trace(tmp_path):
    """A run-time error in a guard, not in a move: the trace ends with the last move made."""
    path = tmp_path / "guard.rules"
    path.write_text(GUARD_FAULT)
    r = run_cli("fuzz", str(path), "--examples", "5", "--no-db")
    assert r.code == 1 and "[fault] run-time error: top() of an empty pile: shrunk from 2 to 2 moves" in r.out, r
    r = run_cli("simulate", str(path), "--games", "2")
    assert r.code == 1 and "top() of an empty pile: in 2 of 2 games" in r.out, r


# ---- the command -----------------------------------------------------------------------------

def test_cli_reports_a_shrunk_failure_and_saves_it(tmp_path):
    bad = tmp_path / "bad.rules"
    bad.write_text(COUNTERS)
    out = tmp_path / "traces"
    r = run_cli("fuzz", str(bad), "--examples", "50", "--no-db", "--save-traces", str(out))
    assert r.code == 1, r
    assert "[violation] invariant m_small violated: shrunk from" in r.out and "to 2 moves" in r.out
    assert "[violation] invariant n_small violated: shrunk from" in r.out and "to 3 moves" in r.out
    assert r.out.count('up_m()   "Play" "m"') == 2  # each step cites its paragraph
    for name, n in (("m_small", 2), ("n_small", 3)):
        (saved,) = out.glob(f"*{name}.itf.json")
        r2 = run_cli("replay", str(bad), str(saved))
        assert r2.code == 1 and f"{name} violated from move {n}" in r2.out


def test_cli_json():
    r = run_cli("fuzz", str(WANDS), "--players", "4", "--examples", "10", "--seed", "j", "--no-db", "--json")
    assert r.code == 0, r
    doc = json.loads(r.out)
    run = doc["runs"][0]
    assert doc["ok"] is True and run["players"] == 4 and run["examples"] == 10 and run["failures"] == []
    assert {"examples_per_second", "steps_per_second", "gaps", "expected_violations", "database"} <= set(run)


@pytest.mark.parametrize("args, code, text", [
    (["missing.rules", "--no-db"], "E001", "missing.rules"),
    (["{tricks}", "--players", "9", "--no-db"], "E006", "3 to 4 players"),
    (["{tricks}", "--examples", "0", "--no-db"], "E006", "not a positive number"),
    (["{tricks}", "--max-steps", "5000", "--no-db"], "E006", "more than 3000"),
    (["{tricks}", "--db", "{file}"], "E008", "is not a folder"),
    (["{tricks}", "--db", "{file}/sub"], "E008", "cannot write"),
    (["{tricks}", "--no-db", "--save-traces", "{file}"], "E008", "is not a folder"),
    (["{tricks}", "--db", "x", "--no-db"], "E006", "not allowed with argument"),
])
def test_cli_user_errors_exit_2_with_a_diagnostic(tmp_path, monkeypatch, args, code, text):
    f = tmp_path / "a-file"
    f.write_text("")
    monkeypatch.chdir(tmp_path)
    r = run_cli("fuzz", *[a.format(tricks=TRICKS, file=f) for a in args])
    assert r.code == 2, r
    assert f"error[{code}]" in r.err and text in r.err and "Traceback" not in r.err
    assert not (tmp_path / "x").exists()


def test_fuzzing_leaves_nothing_in_the_folder_it_is_run_from(tmp_path):
    # Hypothesis keeps caches (the constants of the source) in ./.hypothesis unless told otherwise:
    # `rulespec fuzz` left that folder wherever it was run, with --no-db too (docs/cli.md)
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    env.pop("HYPOTHESIS_STORAGE_DIRECTORY", None)
    here = tmp_path / "here"
    here.mkdir()
    for db in (["--no-db"], []):
        r = subprocess.run([sys.executable, "-m", "verifier", "fuzz", str(TRICKS), "--players", "3", "--examples", "3", *db],
                           cwd=here, env={**env, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True)
        assert r.returncode == 0 and list(here.iterdir()) == [], (db, r.stderr, list(here.iterdir()))
    assert (tmp_path / "cache" / "rulespec" / "hypothesis-storage").is_dir()

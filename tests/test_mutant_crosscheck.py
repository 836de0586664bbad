"""Deliberately broken copies of the shipped specs (tests/mutants.py): Z3 and fuzzing each catch
every one, or this file names which misses it and why.

Fuzzing runs here (without shrinking: a failure found is enough). Z3's verdicts come from
tests/data/verify/mutants.json (tests/verify_cache.py; `rulespec verify` takes minutes per
mutant): a mutant whose text or prover has changed since is skipped with the reason. A miss listed below
that stops being a miss fails the test too, so that the lists stay true.

"Z3" here means `rulespec verify` as a whole: since it looks for witnesses in simulated games too,
many of its catches are such games (the message says "violated in a simulated game"), not the
solver's bounded search or induction; the cached results say which.
"""

from __future__ import annotations

import json

import pytest

from verifier.fuzz import fuzz

from conftest import ROOT, compile_text
from mutants import MUTANTS
from verify_cache import stale

CACHE = ROOT / "tests" / "data" / "verify" / "mutants.json"
# Fuzzing stops at the first failure, so a generous budget costs time only for a miss. 300 was too
# few: wizard_extreme/fifth_exchange is caught after 47 to 359 examples (12 seeds), and which plays a
# seed gives also depends on the modules imported before (Hypothesis mixes the literal constants of
# local source files into its integer draws), so the test's order could turn a catch into a miss.
EXAMPLES = 1000

# mutant -> why Z3 (verify, at the cached depth and time-out) reports no violation
Z3_MISSES: dict[str, str] = {}
# (little_tricks/endless_rounds was one until verify asked its simulated games before the bounded
# search: the ranking's first failure is at move 34, far beyond the search depth)


# mutant -> why fuzzing misses it
FUZZ_MISSES: dict[str, str] = {}


def z3_verdict(m) -> tuple[bool, str]:
    """(caught, what Z3 reported) from the cache."""
    if not CACHE.exists():
        pytest.skip("no cached verify results for the mutants: run `make verify-cache`")
    entry = json.loads(CACHE.read_text(encoding="utf-8")).get(m.id)
    if entry is None:
        pytest.skip(f"no cached verify result for {m.id}: run `make verify-cache`")
    why = stale(entry, m.text())
    if why:
        pytest.skip(f"{m.id}: {why}: run `make verify-cache`")
    caught = [r for r in entry["results"]
              if r["status"] == "violated" and not r["expected_violation"] and r["kind"] != "reachable"]
    shown = "; ".join(f"{r['kind']} {r['property']}: {r['message'][:120]}" for r in caught) or "no violation"
    return bool(caught), shown


@pytest.mark.parametrize("m", MUTANTS, ids=[m.id for m in MUTANTS])
def test_fuzzing_catches_the_mutant(m):
    spec = compile_text(m.text(), m.spec)
    rep = fuzz(spec, m.players, EXAMPLES, "mutant", database=None, shrink=False)
    caught = [f.key for f in rep.failures]
    if m.id in FUZZ_MISSES:
        assert not caught, f"fuzzing now catches {m.id} ({caught}): remove it from FUZZ_MISSES"
    else:
        assert caught, f"{m.id} ({m.what}): no failure in {rep.examples} examples"


@pytest.mark.parametrize("m", MUTANTS, ids=[m.id for m in MUTANTS])
def test_z3_catches_the_mutant(m):
    caught, shown = z3_verdict(m)
    if m.id in Z3_MISSES:
        assert not caught, f"Z3 now catches {m.id} ({shown}): remove it from Z3_MISSES"
    else:
        assert caught, f"{m.id} ({m.what}): Z3 reports {shown}; if that is expected, say why in Z3_MISSES"

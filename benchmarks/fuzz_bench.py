"""Fuzzing speed and shrinking: rulespec fuzz (Hypothesis) next to random simulation, in one run.

usage: python benchmarks/fuzz_bench.py [speed] [--examples K] [--runs R] [--only TEXT]
       python benchmarks/fuzz_bench.py shrink [--examples K] [--flat]

speed: for each spec and player count, examples/s and steps/s of `rulespec fuzz` (no example
database, every property checked after every step) and, in the same run, of plain random games
through the interpreter with the same checks (what `rulespec simulate` does), so that the cost of
Hypothesis shows as a ratio. Median of R runs, one core; compare ratios, absolute figures drift.

shrink: each mutant of tests/mutants.py fuzzed with shrinking: the failure found, its length
before and after shrinking, and the time taken. --flat chooses moves by one index into all legal
moves instead of an action and then its arguments (backends/hypothesis.py, choose_move).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from verifier.backends.interpreter import Program  # noqa: E402
from verifier.backends.runtime import Fault, Gap  # noqa: E402
from verifier.fuzz import fuzz  # noqa: E402
from verifier.pipeline import load_spec  # noqa: E402

SPECS = [("examples/little_tricks/little_tricks.rules", [4]), ("examples/tug_of_wands/tug_of_wands.rules", [4]),
         ("spec/wizard_extreme/de.rules", [4]), ("spec/sieben_weisen/de.rules", [3, 4, 5])]


def random_games(program: Program, games: int, seed: str) -> tuple[float, int]:
    """Seconds and moves for `games` random games with every check, each stopping at a gap like fuzzing."""
    moves = 0
    t0 = time.perf_counter()
    for g in range(games):
        game = program.start(f"{seed}/{g}")
        policy = random.Random(g)
        try:
            while game.ended() is None:
                legal = game.legal_moves()
                if not legal:
                    break
                game.step(legal[policy.randrange(len(legal))])
        except (Gap, Fault):
            pass
        moves += len(game.moves)
    return time.perf_counter() - t0, moves


def speed(args):
    print("| spec, players | fuzz examples/s | fuzz steps/s | random games/s | random moves/s | fuzz / random (steps) |")
    print("| --- | --- | --- | --- | --- | --- |")
    for path, counts in SPECS:
        if args.only and args.only not in path:
            continue
        spec, _ = load_spec(str(ROOT / path))
        for n in counts:
            program = Program(spec, n)
            fz, rg = [], []
            for r in range(args.runs):
                rep = fuzz(spec, n, args.examples, f"bench/{r}", database=None, program=program)
                assert rep.ok, [f.title for f in rep.failures]
                fz.append(rep.rates())
                secs, moves = random_games(program, args.examples, f"bench/{r}")
                rg.append((args.examples / secs, moves / secs))
            fe, fs = statistics.median(x for x, _ in fz), statistics.median(y for _, y in fz)
            ge, gs = statistics.median(x for x, _ in rg), statistics.median(y for _, y in rg)
            print(f"| {spec.label}, {n} | {fe:,.1f} | {fs:,.0f} | {ge:,.1f} | {gs:,.0f} | {fs / gs:.2f} |", flush=True)


def shrink(args):
    from conftest import compile_text
    from mutants import MUTANTS

    print("| mutant | players | caught as | moves before shrinking | after | seconds |")
    print("| --- | --- | --- | --- | --- | --- |")
    for m in MUTANTS:
        if args.only and args.only not in m.id:
            continue
        spec = compile_text(m.text(), m.spec)
        t0 = time.perf_counter()
        rep = fuzz(spec, m.players, args.examples, "shrink", database=None, by_action=not args.flat)
        dt = time.perf_counter() - t0
        if not rep.failures:
            print(f"| {m.id} | {m.players} | not caught in {rep.examples} examples | | | {dt:.0f} |", flush=True)
        for f in rep.failures:
            print(f"| {m.id} | {m.players} | {f.key} | {f.length_before} | {f.length_after} | {dt:.0f} |", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", nargs="?", choices=["speed", "shrink"], default="speed")
    ap.add_argument("--examples", type=int, default=None)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--only", default=None, help="only specs or mutants whose name contains this")
    ap.add_argument("--flat", action="store_true", help="shrink: one index into all legal moves")
    args = ap.parse_args()
    sys.setrecursionlimit(10_000)
    if args.what == "speed":
        args.examples = args.examples or 200
        speed(args)
    else:
        args.examples = args.examples or 300
        shrink(args)


if __name__ == "__main__":
    main()

"""Simulation speed: rulespec's interpreter against the peers DESIGN.md lists, side by side.

usage: python benchmarks/simulate_bench.py [--games N] [--runs R] [--peers DIR]

Measures games/s and player moves/s (median of R runs, one core) for
  - benchmarks/specs/pysim_round.rules: the round ../shared/peers/pysim.py plays, as a spec;
  - examples/little_tricks/little_tricks.rules (4 players), the trick-taking example;
each with every property checked after every step, and with property checks off;
and ../shared/peers/pysim.py (the hand-written pure-Python floor) in the same run.
The absolute figures drift between machines by up to 1.5x; compare the ratios.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from verifier.backends.interpreter import Program  # noqa: E402
from verifier.pipeline import load_spec  # noqa: E402


def run_spec(path: Path, players: int, games: int, runs: int, check: bool) -> tuple[float, float]:
    spec, _ = load_spec(str(path))
    program = Program(spec, players)
    rates = []
    moves_per_game = 0.0
    for r in range(runs):
        moves = 0
        t0 = time.perf_counter()
        for g in range(games):
            game = program.start(f"bench/{r}/{g}")
            policy = random.Random(g)
            while game.ended() is None:
                legal = game.legal_moves()
                game.step(legal[policy.randrange(len(legal))], check=check)
            moves += len(game.moves)
        dt = time.perf_counter() - t0
        rates.append(games / dt)
        moves_per_game = moves / games
    med = statistics.median(rates)
    return med, med * moves_per_game


def run_pysim(peers: Path, games: int, runs: int) -> tuple[float, float] | None:
    script = peers / "pysim.py"
    if not script.exists():
        return None
    out = subprocess.run([sys.executable, str(script), str(games), str(runs)], capture_output=True, text=True).stdout
    line = next((x for x in out.splitlines() if x.startswith("MEDIAN")), None)
    if line is None:
        return None
    nums = [float(x.replace(",", "")) for x in line.split(":")[1].split()[0:3:2]]
    return nums[0], nums[1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=300)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--peers", default=os.environ.get("RULESPEC_PEERS", str(ROOT.parent / "shared" / "peers")))
    args = ap.parse_args()
    rows = []
    pysim = run_pysim(Path(args.peers), args.games * 10, args.runs)
    if pysim:
        rows.append(("pysim.py (hand-written Python, no checks)", *pysim))
    specs = [(ROOT / "benchmarks/specs/pysim_round.rules", 4, "pysim round as a spec"),
             (ROOT / "examples/little_tricks/little_tricks.rules", 4, "little_tricks example, 4 players")]
    for path, players, label in specs:
        for check in (False, True):
            g, m = run_spec(path, players, args.games, args.runs, check)
            rows.append((f"rulespec: {label}, {'every property checked' if check else 'no property checks'}", g, m))
    width = max(len(r[0]) for r in rows)
    print(f"{'what'.ljust(width)}  {'games/s':>10}  {'moves/s':>10}")
    for label, g, m in rows:
        print(f"{label.ljust(width)}  {g:>10,.0f}  {m:>10,.0f}")
    print(f"\n(median of {args.runs} runs; {args.games} games per run, pysim {args.games * 10}; "
          f"Python {sys.version.split()[0]}, one core)")


if __name__ == "__main__":
    main()

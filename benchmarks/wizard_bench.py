"""Simulation speed of spec/wizard_extreme/de.rules, side by side with the peers, in one run.

usage: python benchmarks/wizard_bench.py [--games N] [--runs R] [--peers DIR]

Measures games/s and player moves/s (median of R runs; one process at a time, so one core; the
rows take turns within each run) for
  - rulespec's interpreter playing random whole games of spec/wizard_extreme/de.rules with 4
    players (the standard game: 4 rounds of 15 tricks), with no property checks and with every
    property checked after every move;
  - ../shared/peers/pysim.py, a hand-written pure-Python round of a Wizard-like game (4 players,
    60 cards, 15 tricks), run as a subprocess;
  - OpenSpiel's `oh_hell` (4 players, 12 tricks, one round) through ../shared/peers/ospiel_bench.py,
    whole games in C++ (`bots`) and driven from Python move by move (`py`), when `pyspiel` can be
    imported (pip install open-spiel); otherwise DESIGN.md's figures, marked as not measured here.

Player moves are the moves a player chooses (automatic steps and chance events are not counted).
The random players choose uniformly among the legal moves; in Wizard Extreme they never ask for a
seal that can be neither taken nor exchanged (want_unavailable_seal, a rulebook gap), and a game
whose last step finds a tie for the fewest points (the other gap) counts as played: every move of
it was. The peers play one round per game, Wizard Extreme four: compare the moves/s column.
Absolute figures drift between runs on shared machines by up to 1.5x; compare within one run.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import random
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from verifier.backends.interpreter import Program  # noqa: E402
from verifier.backends.runtime import Gap  # noqa: E402
from verifier.pipeline import load_spec  # noqa: E402

SPEC = ROOT / "spec" / "wizard_extreme" / "de.rules"
STANDARD = {"figure_base": 4, "long_game": False, "raise_figure": False}
OH_HELL = "oh_hell:players=4,num_tricks_fixed=12"


class Wizard:
    """Random whole games of the spec, compiled once."""

    def __init__(self):
        self.spec, _ = load_spec(str(SPEC))
        self.program = Program(self.spec, 4)
        self.avoid = {i for i, a in enumerate(self.spec.actions) if a.name == "want_unavailable_seal"}
        self.chosen = [a.by is not None for a in self.spec.actions]

    def run(self, games: int, r: int, check: bool) -> tuple[float, float]:
        """One run: (games/s, player moves per game)."""
        moves = 0
        t0 = time.perf_counter()
        for g in range(games):
            game = self.program.start(f"bench/{r}/{g}", fixed_params=STANDARD)
            policy = random.Random(g)
            try:
                while game.ended() is None:
                    legal = [m for m in game.legal_moves() if m[0] not in self.avoid]
                    game.step(legal[policy.randrange(len(legal))] if len(legal) > 1 else legal[0], check=check)
            except Gap:
                pass  # a tie for the fewest points after the last round: the game was played out
            moves += sum(self.chosen[m[0]] for m in game.moves)
        return games / (time.perf_counter() - t0), moves / games


def run_pysim(peers: Path, games: int) -> tuple[float, float] | None:
    """One run of pysim.py: (games/s, player moves per game)."""
    out = subprocess.run([sys.executable, str(peers / "pysim.py"), str(games), "1"], capture_output=True, text=True).stdout
    m = re.search(r"MEDIAN pysim: ([\d,.]+) games/s, ([\d,.]+) player actions/s", out)
    if not m:
        return None
    g, mv = (float(x.replace(",", "")) for x in m.groups())
    return g, mv / g


def have_pyspiel() -> bool:
    return importlib.util.find_spec("pyspiel") is not None


def run_ospiel(peers: Path, mode: str, games: int, player_moves: float) -> tuple[float, float] | None:
    """One run of ospiel_bench.py MODE: (games/s, player moves per game)."""
    out = subprocess.run([sys.executable, str(peers / "ospiel_bench.py"), mode, OH_HELL, str(games), "1"],
                         capture_output=True, text=True).stdout
    m = re.search(r"MEDIAN \w+ \S+: ([\d,.]+) games/s", out)
    return (float(m.group(1).replace(",", "")), player_moves) if m else None


def ospiel_player_moves(peers: Path) -> float | None:
    out = subprocess.run([sys.executable, str(peers / "ospiel_bench.py"), "lengths", OH_HELL, "200", "1"],
                         capture_output=True, text=True).stdout
    m = re.search(r"mean_player=([\d.]+)", out)
    return float(m.group(1)) if m else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=100, help="Wizard Extreme games per run (default 100)")
    ap.add_argument("--runs", type=int, default=5, help="runs per row; the median is shown (default 5)")
    ap.add_argument("--peers", default=os.environ.get("RULESPEC_PEERS", str(ROOT.parent / "shared" / "peers")),
                    help="the peers folder (default $RULESPEC_PEERS, else ../shared/peers)")
    args = ap.parse_args()
    peers = Path(args.peers)
    wizard = Wizard()
    ospiel = have_pyspiel() and (peers / "ospiel_bench.py").exists()
    pm = (ospiel_player_moves(peers) or 52.0) if ospiel else 52.0
    measures = []  # (label, one run -> (games/s, moves per game) or None)
    if ospiel:
        measures.append(("OpenSpiel oh_hell (4 players, 12 tricks), whole games in C++ (evaluate_bots)",
                         lambda r: run_ospiel(peers, "bots", args.games * 20, pm)))
        measures.append(("OpenSpiel oh_hell, driven from Python (legal_actions + apply_action)",
                         lambda r: run_ospiel(peers, "py", args.games * 2, pm)))
    if (peers / "pysim.py").exists():
        measures.append(("pysim.py, hand-written pure-Python round (4 players, 15 tricks), no checks",
                         lambda r: run_pysim(peers, args.games * 10)))
    for check in (False, True):
        label = "every property checked after every move" if check else "no property checks"
        measures.append((f"rulespec: Wizard Extreme de.rules, 4 players, whole game (4 rounds), {label}",
                         lambda r, check=check: wizard.run(args.games, r, check)))
    # The rows take turns within each run, so that a change in the machine's load falls on all.
    results: dict[str, list] = {label: [] for label, _ in measures}
    for r in range(args.runs):
        for label, measure in measures:
            got = measure(r)
            if got is not None:
                results[label].append(got)
    rows = []
    if not ospiel:
        rows.append(("OpenSpiel oh_hell, whole games in C++ [DESIGN.md, not measured here]", 22_000, 1_100_000, 50.0))
        rows.append(("OpenSpiel oh_hell, driven from Python [DESIGN.md, not measured here]", 2_000, 110_000, 52.0))
    for label, runs in results.items():
        if runs:
            g = statistics.median(x[0] for x in runs)
            per = statistics.median(x[1] for x in runs)
            rows.append((label, g, g * per, per))
    width = max(len(r[0]) for r in rows)
    print(f"{'what'.ljust(width)}  {'games/s':>9}  {'moves/s':>10}  {'moves/game':>10}")
    for label, g, m, per in rows:
        print(f"{label.ljust(width)}  {g:>9,.0f}  {m:>10,.0f}  {per:>10,.1f}")
    print(f"\n(median of {args.runs} runs, the rows taking turns; per run {args.games} Wizard Extreme games, "
          f"{args.games * 10} pysim rounds, {args.games * 20} OpenSpiel games in C++, {args.games * 2} from Python; "
          f"player moves only; Python {sys.version.split()[0]}; load average {os.getloadavg()[0]:.1f} "
          f"on {os.cpu_count()} cores at the end)")
    if not ospiel:
        print("open_spiel is not installed (pip install open-spiel): its rows are DESIGN.md's figures, not measured here")


if __name__ == "__main__":
    main()

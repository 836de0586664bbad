"""Where one player count's `rulespec verify` time goes: Z3 per part of the run, and the searches.

usage: python benchmarks/verify_profile.py [SPEC] --players N [--explore M] [--games G]
                                           [--timeout S] [--depth K] [--json]

Runs `verify` of one spec for one player count in this process, as `rulespec verify SPEC
--players N` does, and times every Z3 check. Each check is put down to the part of the run that
asked it (the outermost of: the induction, the run-time error check, rankings, bounds,
reachability, undecided points, deadlocks, sanity; the directed search's own questions count where
the search was first asked for) and to the two functions just above it. Prints per part and
caller the questions, their seconds, and how many of them timed out or gave up (with their
seconds: a brief try that times out is time spent before a question is split). Then the seconds of
the whole run, of the random games and of the directed search (Z3 inside it included), and the
statuses. --json prints the same as one document.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import z3  # noqa: E402

from verifier import verify as V  # noqa: E402
from verifier.commands import _check_players  # noqa: E402
from verifier.diagnostics import UserError  # noqa: E402
from verifier.pipeline import load_spec  # noqa: E402

PARTS = ("prove_invariants", "check_faults", "prove_ranking", "prove_bound", "check_reachable", "check_gaps",
         "check_deadlock", "check_sanity")
PLUMBING = {"check", "check_alone", "ask", "ask_step"}  # the callers every question passes through


def profile(spec, players: int, **options) -> dict:
    """Run verify with every z3 check timed; the figures as a dict (see the module docstring)."""
    rows: dict = collections.defaultdict(lambda: [0, 0.0, 0, 0.0])  # questions, s, timed out, their s
    phases: dict = collections.defaultdict(float)
    check = z3.Solver.check

    def timed(self, *args):
        names = []
        f = sys._getframe(1)
        while f is not None:
            names.append(f.f_code.co_name)
            f = f.f_back
        part = next((n for n in reversed(names) if n in PARTS), "other")
        callers = "/".join([n for n in names if n not in PLUMBING][:2])
        t0 = time.perf_counter()
        r = check(self, *args)
        row = rows[(part, callers)]
        row[0] += 1
        row[1] += time.perf_counter() - t0
        if r == z3.unknown:
            row[2] += 1
            row[3] += time.perf_counter() - t0
        return r

    def timing(name):
        inner = getattr(V.Verifier, name)

        def wrapper(self, *args, **kwargs):
            t0 = time.perf_counter()
            try:
                return inner(self, *args, **kwargs)
            finally:
                phases[name] += time.perf_counter() - t0
        return inner, wrapper

    saved = {name: timing(name) for name in ("simulation", "exploration")}
    z3.Solver.check = timed
    for name, (_inner, wrapper) in saved.items():
        setattr(V.Verifier, name, wrapper)
    try:
        t0 = time.perf_counter()
        results = V.verify_spec(spec, players, **options)
        seconds = time.perf_counter() - t0
    finally:
        z3.Solver.check = check
        for name, (inner, _wrapper) in saved.items():
            setattr(V.Verifier, name, inner)
    z3_seconds = sum(r[1] for r in rows.values())
    return {
        "players": players, "seconds": round(seconds, 2), "z3_seconds": round(z3_seconds, 2),
        "z3_timed_out_seconds": round(sum(r[3] for r in rows.values()), 2),
        "random_games_seconds": round(phases["simulation"], 2),
        "directed_search_seconds": round(phases["exploration"], 2),
        "statuses": dict(collections.Counter(r.status for r in results)),
        "questions": [{"part": part, "callers": callers, "questions": n, "seconds": round(s, 2),
                       "timed_out": u, "timed_out_seconds": round(us, 2)}
                      for (part, callers), (n, s, u, us) in sorted(rows.items(), key=lambda kv: -kv[1][1])],
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("spec", nargs="?", default="spec/sieben_weisen/de.rules")
    ap.add_argument("--players", type=int, required=True)
    ap.add_argument("--explore", type=int, default=V.EXPLORE, help="moves of the directed search (default: verify's)")
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--timeout", type=float, default=30)
    ap.add_argument("--depth", type=int, default=8)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    path = args.spec if os.path.isabs(args.spec) or os.path.exists(args.spec) else os.path.join(ROOT, args.spec)
    try:
        spec, _warnings = load_spec(path)
        _check_players(spec, args.players)
    except UserError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    doc = profile(spec, args.players, depth=args.depth, timeout=args.timeout, games=args.games,
                  explore=args.explore)
    if args.json:
        print(json.dumps(doc, indent=1))
        return 0
    print(f"rulespec verify {args.spec} --players {args.players}: {doc['seconds']:.1f} s; Z3 {doc['z3_seconds']:.1f} s "
          f"({doc['z3_timed_out_seconds']:.1f} s of it in questions that timed out), random games "
          f"{doc['random_games_seconds']:.1f} s, directed search {doc['directed_search_seconds']:.1f} s")
    print(f"{'seconds':>8} {'questions':>9} {'timed out':>9} {'their s':>8}  part  callers")
    for q in doc["questions"]:
        print(f"{q['seconds']:8.1f} {q['questions']:9d} {q['timed_out']:9d} {q['timed_out_seconds']:8.1f}  "
              f"{q['part']}  {q['callers']}")
    print("statuses:", ", ".join(f"{k} {v}" for k, v in sorted(doc["statuses"].items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())

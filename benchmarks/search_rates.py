"""How often a search of a goal's own reaches it: one search per seed, as `rulespec verify` runs it.

usage: python benchmarks/search_rates.py [SPEC] --players N --goal NAME [--violation]
                                         [--seeds verify,r1,r2,...] [--budget M] [--riders KEYS]
                                         [--one-run] [--greedy F] [--jobs J] [--json]
                                         [--proved VERIFY_JSON | --no-prune]

The directed search is seeded: whether it reaches a deep goal within a budget depends on the seed,
so one `verify` run says little about a change to the search. This runs the search `verify` gives
a goal the shared search left (`search_own` in verifier/explore.py: a costly goal's one heavy run,
any other goal's restarts) once per seed and prints, per seed, whether it reached the goal, after
how many moves of search, the witness's length and the seconds; then how many seeds reached it.

--goal names a `reachable` property, or with --violation an invariant whose violation is looked
for. The seed `verify` stands for verify's own (`verify/<goal>`). --riders: undecided points
carried along as in verify, by the keys verify prints (gap:LINE:COL, comma-separated; `verify
--json` lists which were still open). --one-run: a single run of the whole budget instead (the
search before restarts), heavy by --greedy (default: as verify). Every witness is replayed in a
fresh interpreter before it is counted. --json prints one record per seed.

As in verify, the search leaves the start games Z3 proves cannot reach the goal (what the setup
fixed, with the proved invariants: `Verifier.viable`). So the invariants are proved first, by Z3's
induction as in verify (minutes with the shipped games), or taken from `rulespec verify --json`'s
output with --proved (the invariants it reports proved for that player count). --no-prune keeps
every start game (the search before that).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)


def _goal(spec, program, name: str, violation: bool):
    from verifier.explore import state_goal

    kinds = ("invariant",) if violation else ("reachable",)
    p = next((p for p in spec.properties if p.name == name and p.kind in kinds), None)
    if p is None:
        names = sorted(p.name for p in spec.properties if p.kind in kinds)
        raise LookupError(f"no {kinds[0]} property '{name}' in the spec; there are: {', '.join(names)}")
    key = f"violation:{name}" if violation else name
    return p, state_goal(program, key, p.expr, negated=violation)


def proved_by_induction(spec, n: int) -> set[str]:
    """The invariants Z3's induction proves, as in verify."""
    from verifier.verify import Verifier

    v = Verifier(spec, n, explore=0, games=0)
    v.build()
    return v.prove_invariants()


def proved_from(path: str, n: int) -> set[str]:
    """The invariants a `rulespec verify --json` output reports proved for n players (ValueError
    when the file holds no record for n players)."""
    with open(path, encoding="utf-8") as fh:
        doc = json.load(fh)
    records = [r for spec in doc.get("specs", []) for r in spec.get("results", []) if r.get("players") == n]
    if not records:
        raise ValueError(f"{path} holds no result for {n} players (is it `rulespec verify --json` output?)")
    return {r["property"] for r in records if r.get("kind") == "invariant" and r.get("status") == "proved"}


def one_seed(spec_path: str, n: int, name: str, violation: bool, seed: str, budget: int, riders: list[str],
             one_run: bool, greedy: float | None, proved: set[str] | None = None) -> dict:
    """Run the search for one seed; the record printed for it. `proved`: the proved invariants, by
    which start games out of the goal's reach are left (None: none is)."""
    from verifier.backends.interpreter import Program
    from verifier.explore import explore, gap_goal, own_greedy, own_search, replays, search_own
    from verifier.pipeline import load_spec
    from verifier.simulate import gap_finding

    spec, _warnings = load_spec(spec_path)
    program = Program(spec, n)
    p, goal = _goal(spec, program, name, violation)
    ways: dict[str, list] = {}
    for u in spec.undecided:
        ways.setdefault(gap_finding(spec, u.id).key, []).append(u.id)
    carried = [gap_goal(program, key, ways[key]) for key in riders]
    base = f"verify/{goal.key}" if seed == "verify" else seed
    viable = None
    if proved is not None:
        from verifier.verify import Verifier

        v = Verifier(spec, n, explore=0, games=0)
        v.build()
        v.assumed, v._unproved = set(proved), ({name} if violation else set())
        viable = v.viable()
    t0 = time.perf_counter()
    if one_run:
        out = explore(program, own_search(goal), f"{base}/0", budget, riders=carried,
                      greedy=own_greedy(goal) if greedy is None else greedy, viable=viable)
    else:
        out = search_own(program, goal, base, budget, riders=carried, viable=viable)
    seconds = time.perf_counter() - t0
    f = out.found.get(goal.key)
    # a witness counts only when a fresh interpreter agrees, as in verify
    replayed = replays(Program(spec, n), f, p) if f is not None else None
    return {"seed": seed, "reached": bool(replayed), "moves": out.moves, "witness": len(f.moves) if f else None,
            "replayed": replayed, "riders_reached": sorted(k for k in out.found if k != goal.key),
            "seconds": round(seconds, 1)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("spec", nargs="?", default="spec/sieben_weisen/de.rules")
    ap.add_argument("--players", type=int, required=True)
    ap.add_argument("--goal", required=True, help="a reachable property (or, with --violation, an invariant)")
    ap.add_argument("--violation", action="store_true", help="look for a violation of the invariant --goal")
    ap.add_argument("--seeds", default="verify,r1,r2,r3,r4,r5,r6,r7", help="comma-separated; verify: verify's own")
    ap.add_argument("--budget", type=int, default=100_000, help="moves per seed (default 100,000, verify's)")
    ap.add_argument("--riders", default="", help="undecided points carried along: gap:LINE:COL,...")
    ap.add_argument("--one-run", action="store_true", help="one run of the whole budget, without restarts")
    ap.add_argument("--greedy", type=float, default=None, help="with --one-run: the share of heavy rollouts")
    ap.add_argument("--jobs", type=int, default=1, help="seeds searched at once, one process each")
    ap.add_argument("--json", action="store_true", help="one JSON record per seed")
    prune = ap.add_mutually_exclusive_group()
    prune.add_argument("--proved", metavar="VERIFY_JSON",
                       help="the proved invariants from `rulespec verify --json` output (default: prove them here)")
    prune.add_argument("--no-prune", action="store_true", help="keep the start games a proof puts out of reach")
    args = ap.parse_args(argv)
    if args.greedy is not None and not args.one_run:
        ap.error("--greedy goes with --one-run (a search of a goal's own chooses its own share)")
    from verifier.diagnostics import UserError
    from verifier.pipeline import load_spec
    from verifier.simulate import gap_finding

    spec_path = args.spec if os.path.isabs(args.spec) or os.path.exists(args.spec) else os.path.join(ROOT, args.spec)
    try:
        spec, _warnings = load_spec(spec_path)
    except UserError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    riders = [k for k in args.riders.split(",") if k]
    known = {gap_finding(spec, u.id).key for u in spec.undecided}
    bad = [k for k in riders if k not in known]
    if bad:
        there = f"there are: {', '.join(sorted(known))}" if known else "it has none"
        print(f"error: no undecided point {', '.join(bad)} in {args.spec}; {there}", file=sys.stderr)
        return 2
    from verifier.backends.interpreter import Program
    try:
        _goal(spec, Program(spec, args.players), args.goal, args.violation)
    except LookupError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    proved = None
    if args.proved:
        try:
            proved = proved_from(args.proved, args.players)
        except (OSError, ValueError, AttributeError) as exc:
            print(f"error: --proved {args.proved}: {exc}", file=sys.stderr)
            return 2
    elif not args.no_prune:
        print(f"proving the invariants for {args.players} players (Z3's induction, as verify's) ...", file=sys.stderr)
        t0 = time.perf_counter()
        proved = proved_by_induction(spec, args.players)
        print(f"  {len(proved)} proved in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    seeds = [s for s in args.seeds.split(",") if s]
    todo = [(spec_path, args.players, args.goal, args.violation, s, args.budget, riders, args.one_run, args.greedy,
             proved) for s in seeds]
    if args.jobs <= 1:
        records = [one_seed(*job) for job in todo]
    else:
        with concurrent.futures.ProcessPoolExecutor(max_workers=args.jobs) as pool:
            records = list(pool.map(one_seed, *zip(*todo)))
    if args.json:
        print(json.dumps(records, indent=1))
        return 0
    what = ("a violation of " if args.violation else "") + args.goal
    mode = "one run" if args.one_run else "a search of its own as verify runs it"
    mode += ", every start game kept" if proved is None else f", start games out of reach left ({len(proved)} invariants proved)"
    print(f"{what}, {args.players} players, {args.budget:,} moves per seed, {mode}"
          + (f", riders {', '.join(riders)}" if riders else "") + f" (load average {os.getloadavg()[0]:.1f})")
    for r in records:
        found = f"reached after {r['moves']:,} moves (a play of {r['witness']})" if r["reached"] else "not reached"
        if r["replayed"] is False:
            found = f"SPURIOUS: a witness of {r['witness']} moves that does not replay"
        extra = f"; riders reached: {', '.join(r['riders_reached'])}" if r["riders_reached"] else ""
        print(f"  {r['seed']:>12}: {found}{extra}  ({r['seconds']:.0f} s)")
    hits = [r["moves"] for r in records if r["reached"]]
    median = f", median {statistics.median(hits):,.0f} moves" if hits else ""
    print(f"reached with {len(hits)} of {len(records)} seeds{median}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

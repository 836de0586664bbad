"""Time `rulespec verify` of a spec for each player count: seconds and status counts.

usage: python benchmarks/verify_bench.py [SPEC] [--players 3,4,5] [--jobs J] [--whole [--repeat R] [--rerun]]
                                         [--depth K] [--timeout S] [--games G] [--explore M] [--out DIR]

Each player count runs as its own `rulespec verify SPEC --players N --json` process (at most J at
once; J = 1 measures one core per count), timed from start to exit. With --whole, the run is the
one a user starts: one `rulespec verify SPEC --jobs J --json` process for every player count of
the spec (--players N: that count alone), its worker processes' CPU counted, where a count started
after others takes what they found hard; the seconds per count are those the command reports.
Prints per player count the wall seconds and the CPU seconds of its process (the whole run's CPU
seconds over J are the least wall time J cores could give it), the count of each status, and the
properties that are not proved (with their status and the first words of why); the whole JSON
answers go to DIR (default build/verify_bench).
Shared machines drift by up to 1.5x between runs: measure twice and give both. With --whole
--repeat R the whole run is made R times in a row: each run's lines, then the least, median and
largest wall and CPU seconds, and whether every run gave every property the same status (the run is
seeded, so a difference is a finding: the line names each property that differed). With --whole
--rerun, a first run fills a fresh store of answers (`--answers`, in a temporary folder) and the R
runs timed after it are re-runs that take from it what it keeps (the unsat answers and the
directed search's plays), as a user's run after a first one with the same store; the statuses of
every run, the first included, are compared.
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOOD = {"proved", "reachable", "unreachable"}


def _verify(options: list, args, saved: str) -> tuple[float, float, dict, str]:
    """Run `rulespec verify` with these options and the run's own: (wall seconds, the CPU seconds
    of its process and of the worker processes it waited for, its JSON document or {}, the end of
    its stderr). The document is saved as DIR/saved."""
    cmd = [sys.executable, "-m", "verifier", "verify", *options, "--json", "--depth", str(args.depth),
           "--timeout", f"{args.timeout:g}", "--games", str(args.games)]
    if args.explore is not None:
        cmd += ["--explore", str(args.explore)]
    t0 = time.perf_counter()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=out, stderr=err)
        _pid, _status, usage = os.wait4(proc.pid, 0)  # this child's CPU time (with its own children's)
        seconds = time.perf_counter() - t0
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(), err.read().decode()
    cpu = usage.ru_utime + usage.ru_stime
    try:
        doc = json.loads(stdout)
    except json.JSONDecodeError:
        return seconds, cpu, {}, stderr[-2000:]
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, saved), "w") as f:
        json.dump(doc, f, indent=1)
    return seconds, cpu, doc, ""


def run_one(spec: str, n: int, args) -> tuple[int, float, float, dict, str]:
    """One player count in its own process: (n, and what _verify gives)."""
    return (n, *_verify([spec, "--players", str(n)], args, f"verify_{n}.json"))


def run_whole(spec: str, counts: list[int], args, saved: str = "verify_whole.json",
              store: str | None = None) -> tuple[float, float, dict, str]:
    """One `rulespec verify` process for every count of the spec (or the one count given), as a
    user runs it (with `--answers store` where given): what _verify gives (its document saved as
    DIR/saved)."""
    one = ["--players", str(counts[0])] if len(counts) == 1 else []
    answers = ["--answers", store] if store else []
    return _verify([spec, *one, "--jobs", str(max(1, args.jobs)), *answers], args, saved)


def statuses(doc: dict) -> dict:
    """(property, player count) -> status, of a verify JSON document."""
    return {(r["property"], r["players"]): r["status"] for s in doc.get("specs", []) for r in s["results"]}


def spread(values: list[float]) -> str:
    """The least, median and largest of values, in seconds."""
    return f"{min(values):.1f} / {statistics.median(values):.1f} / {max(values):.1f} s"


def main_whole(args, counts: list[int]) -> int:
    """--whole: the run as a user starts it, --repeat times (--rerun: after a first run that fills
    a fresh store of answers, each with that store)."""
    with tempfile.TemporaryDirectory() as folder:
        return _main_whole(args, counts, os.path.join(folder, "answers.db") if args.rerun else None)


def _main_whole(args, counts: list[int], store: str | None) -> int:
    walls, cpus, seen = [], [], []
    runs = [None, *range(args.repeat)] if store else list(range(args.repeat))
    for i in runs:
        if i is None:
            saved, run = "verify_whole_first.json", " (the first run, filling a fresh store of answers)"
        else:
            saved = "verify_whole.json" if args.repeat == 1 else f"verify_whole_{i + 1}.json"
            run = "" if args.repeat == 1 else f" (run {i + 1} of {args.repeat})"
            run = f" (re-run {i + 1} of {args.repeat} with that store)" if store else run
        seconds, cpu, doc, err = run_whole(args.spec, counts, args, saved, store)
        print(f"rulespec verify {args.spec} --jobs {args.jobs}{run} (depth {args.depth}, timeout "
              f"{args.timeout:g} s, {args.games} games; load average {os.getloadavg()[0]:.1f})", flush=True)
        if not doc:
            print(f"FAILED after {seconds:.1f} s: {err}")
            return 1
        per = doc["specs"][0].get("players", {}) if doc.get("specs") else {}
        for n in sorted(per, key=int):
            report(int(n), doc, per[n], None)
        print(f"the whole run: {seconds:.1f} s wall, {cpu:.1f} s CPU (at best {cpu / max(1, args.jobs):.1f} s wall "
              f"on {args.jobs} cores)", flush=True)
        if doc.get("answers"):
            a = doc["answers"]
            print(f"from the store: {a['reused']} of {a['reused'] + a['asked']} solver questions, "
                  f"{a['plays_reused']} plays of the directed search", flush=True)
        seen.append(statuses(doc))
        if i is not None:
            walls.append(seconds)
            cpus.append(cpu)
    if len(seen) > 1:
        if args.repeat > 1:
            print(f"{args.repeat} {'re-runs' if store else 'runs'}, least / median / largest: {spread(walls)} wall, "
                  f"{spread(cpus)} CPU")
        keys = sorted(set().union(*seen))
        differ = [k for k in keys if len({run.get(k) for run in seen}) > 1]
        if differ:
            print("statuses differ between the runs: " + "; ".join(
                f"{name} ({n} players): {' / '.join(str(run.get((name, n))) for run in seen)}" for name, n in differ))
            return 1
        print(f"every run gave each of the {len(keys)} results the same status")
    return 0


def report(n: int, doc: dict, seconds: float, cpu: float | None) -> None:
    """One player count's line (seconds, the status counts) and its results that are not good."""
    rs = [r for s in doc.get("specs", []) for r in s["results"] if r["players"] == n]
    by = collections.Counter(r["status"] for r in rs)
    shown = ", ".join(f"{k} {v}" for k, v in sorted(by.items()))
    print(f"{n} players: {seconds:7.1f} s" + (f" ({cpu:.1f} s CPU)" if cpu is not None else "")
          + f"  {len(rs)} results: {shown}")
    for r in rs:
        expected = r["status"] == "violated" and r.get("expected_violation")
        if r["status"] not in GOOD and not expected:
            print(f"    {r['status']:9} {r['property']}: {r['message'][:160]}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("spec", nargs="?", default="spec/sieben_weisen/de.rules")
    ap.add_argument("--players", default="3,4,5")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--whole", action="store_true",
                    help="one `rulespec verify` process for all the counts, as a user runs it")
    ap.add_argument("--repeat", type=int, default=1, metavar="R",
                    help="with --whole: the run R times in a row, with the spread of the seconds and a check "
                         "that every run gave the same statuses (default 1)")
    ap.add_argument("--rerun", action="store_true",
                    help="with --whole: a first run fills a fresh store of answers, and the runs timed are "
                         "re-runs with it")
    ap.add_argument("--depth", type=int, default=8)
    ap.add_argument("--timeout", type=float, default=30)
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--explore", type=int, default=None, help="moves of the directed search (default: verify's)")
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "verify_bench"))
    args = ap.parse_args(argv)
    counts = [int(x) for x in args.players.split(",")]
    if args.repeat < 1:
        ap.error("--repeat must be at least 1")
    if args.repeat > 1 and not args.whole:
        ap.error("--repeat goes with --whole")
    if args.rerun and not args.whole:
        ap.error("--rerun goes with --whole")
    if args.whole:
        if len(counts) > 1 and args.players != ap.get_default("players"):
            ap.error("--whole verifies every player count of the spec, or one with --players N")
        return main_whole(args, counts)
    t0 = time.perf_counter()
    # the largest player counts first, as `rulespec verify` runs them (they take longest)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = sorted(pool.map(lambda n: run_one(args.spec, n, args), sorted(counts, reverse=True)))
    total = time.perf_counter() - t0
    print(f"rulespec verify {args.spec} (depth {args.depth}, timeout {args.timeout:g} s, {args.games} games, "
          f"{args.jobs} at once; load average {os.getloadavg()[0]:.1f})")
    for n, seconds, cpu, doc, err in results:
        if not doc:
            print(f"{n} players: {seconds:7.1f} s  FAILED: {err}")
            continue
        report(n, doc, seconds, cpu)
    cpu = sum(r[2] for r in results)
    print(f"all player counts: {total:.1f} s wall, {cpu:.1f} s CPU (at best {cpu / max(1, args.jobs):.1f} s wall "
          f"on {args.jobs} cores, and no less than the longest count)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

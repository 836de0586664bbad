"""Run the prover (rulespec verify) over the shipped specs and the mutants, and cache the results.

    .venv/bin/python tests/verify_cache.py [specs|mutants|all] [--timeout S] [--only ...] [--jobs J]
                                                                                  (make verify-cache)

The prover takes minutes per spec and player count (measured 2026-11-22 with --jobs 2 on 2 cores:
2.5 to 4.5 min per count of spec/sieben_weisen/de.rules, 9 to 10.5 min per count of nl.rules and
it.rules, which lack de's helper invariants), too long for every test run, so the cross-check tests read its
results from tests/data/verify/: one file per shipped spec (every player count) and
mutants.json. Each entry records the sha256 of the spec text it was computed for and a digest of
the prover's code; a test whose spec has changed since skips with the reason, until this script is run again
(a changed prover alone does not: its cached verdicts are still claims that fuzzing checks). The results are
what `rulespec verify --json` reports, without the traces; statuses that depend on a time-out
can differ between machines, which is why the settings are recorded too.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

DATA = ROOT / "tests" / "data" / "verify"
SPEC_DEPTH = 1        # the shipped specs: proofs by induction need no depth; the bounded search is not used
TIMEOUT = 30


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def prover_digest() -> str:
    texts = [(ROOT / "verifier" / p).read_text(encoding="utf-8") for p in ("backends/z3.py", "verify.py", "answers.py")]
    return sha("\n".join(texts))[:16]


def stale(entry: dict, text: str) -> str | None:
    """Why a cached entry no longer holds for this spec text and this prover, or None."""
    if entry["sha256"] != sha(text):
        return f"the spec changed since its verify results were cached ({entry['date']})"
    # A change of the prover alone does not make the entry unusable: its verdicts are still what a
    # version of the prover claimed about this very spec text, and fuzzing must not contradict them.
    # `make verify-cache` brings them up to date (the entry records the prover's digest).
    return None


def _explore() -> int:
    from verifier.verify import EXPLORE
    return EXPLORE


def results(spec, players: int, depth: int, timeout: float, answers=None) -> list[dict]:
    from verifier.verify import Verifier

    out = []
    for r in Verifier(spec, players, depth, timeout, answers=answers).run():
        j = r.to_json()
        j.pop("trace", None)
        out.append(j)
    return out


def _one(rel: str, n: int, timeout: float, answers_file: str | None = None):
    from verifier.answers import Answers
    from verifier.pipeline import load_spec

    sys.setrecursionlimit(10_000)
    t0 = time.perf_counter()
    spec, _ = load_spec(rel)
    answers = Answers(answers_file) if answers_file else None
    rs = results(spec, n, SPEC_DEPTH, timeout, answers)
    use = dict(zip(("reused", "asked", "added"), answers.counts())) if answers else None
    return rs, time.perf_counter() - t0, use


def run_specs(timeout: float, only: list[str] | None = None, jobs: int = 1,
              players: list[int] | None = None, answers_file: str | None = None) -> None:
    """Every (spec, player count) in its own process, at most `jobs` at once.

    Each count is written as soon as it finishes, into the spec's entry: the counts already cached for
    the same spec text are kept, an entry for another text is started afresh. So one count at a time
    can be run (`--players 5`, also from two shells at once), and a run cut short keeps what finished."""
    import concurrent.futures

    from verifier.pipeline import load_spec

    DATA.mkdir(parents=True, exist_ok=True)
    paths = sorted((ROOT / "examples").rglob("*.rules")) + sorted((ROOT / "spec").rglob("*.rules"))
    entries, tasks = {}, []
    for path in paths:
        rel = str(path.relative_to(ROOT))
        if only and rel not in only:
            continue
        spec, _ = load_spec(rel)
        name = f"{spec.game}-{spec.edition}.json" if spec.edition else f"{spec.game}.json"
        digest = sha(path.read_text(encoding="utf-8"))
        old = json.loads((DATA / name).read_text(encoding="utf-8")) if (DATA / name).exists() else {}
        kept = old.get("players", {}) if old.get("sha256") == digest else {}
        entries[rel] = (name, {"spec": rel, "sha256": digest, "depth": SPEC_DEPTH, "timeout": timeout,
                               "explore": _explore(),
                               "prover": prover_digest(), "date": time.strftime("%Y-%m-%d"), "players": kept,
                               "seconds": old.get("seconds", {}) if kept else {},
                               # the prover each count was verified with (the entry's "prover" is the latest)
                               "provers": old.get("provers", {}) if kept else {}})
        counts = range(spec.min_players, spec.max_players + 1)
        tasks += [(rel, n) for n in counts if not players or n in players]
    if not tasks:
        sys.exit("verify_cache: nothing to run (check --only and --players)")
    if answers_file:
        from verifier.answers import open_answers
        open_answers(answers_file)  # created here, before the workers open it at once
    with concurrent.futures.ProcessPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = {pool.submit(_one, rel, n, timeout, answers_file): (rel, n) for rel, n in tasks}
        for fut in concurrent.futures.as_completed(futures):
            rel, n = futures[fut]
            rs, seconds, use = fut.result()
            name, entry = entries[rel]
            print(f"{rel} {n} players: {seconds:.0f} s", flush=True)
            # read again: another run of this script (another player count) may have written since
            now = json.loads((DATA / name).read_text(encoding="utf-8")) if (DATA / name).exists() else {}
            if now.get("sha256") == entry["sha256"]:
                # what is on disk is the latest for the other counts: this run adds only its own
                for part in ("players", "seconds", "provers", "answers"):
                    entry[part] = dict(now.get(part, {}))
            entry["players"][str(n)] = rs
            entry["seconds"][str(n)] = round(seconds, 1)
            entry["provers"][str(n)] = entry["prover"]
            # the seconds of a run that took solver answers from a store (--answers) are not a
            # measurement of the prover's speed: say how many it took
            entry.setdefault("answers", {}).pop(str(n), None)
            if use:
                entry["answers"][str(n)] = use
            if not entry["answers"]:
                del entry["answers"]
            entry["players"] = dict(sorted(entry["players"].items(), key=lambda kv: int(kv[0])))
            entry["seconds"] = dict(sorted(entry["seconds"].items(), key=lambda kv: int(kv[0])))
            entry["provers"] = dict(sorted(entry["provers"].items(), key=lambda kv: int(kv[0])))
            (DATA / name).write_text(json.dumps(entry, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def _mutant_one(mid: str, timeout: float):
    from conftest import compile_text
    from mutants import MUTANTS

    sys.setrecursionlimit(10_000)
    m = next(x for x in MUTANTS if x.id == mid)
    t0 = time.perf_counter()
    rs = results(compile_text(m.text(), m.spec), m.players, m.depth, timeout)
    return rs, time.perf_counter() - t0


def run_mutants(timeout: float, only: list[str] | None = None, jobs: int = 1) -> None:
    """Every mutant in its own process, at most `jobs` at once; the file is rewritten after each."""
    import concurrent.futures

    from mutants import MUTANTS

    DATA.mkdir(parents=True, exist_ok=True)
    target = DATA / "mutants.json"
    cache = json.loads(target.read_text(encoding="utf-8")) if target.exists() else {}
    todo = [m for m in MUTANTS if not only or m.id in only]
    with concurrent.futures.ProcessPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = {pool.submit(_mutant_one, m.id, timeout): m for m in todo}
        for fut in concurrent.futures.as_completed(futures):
            m = futures[fut]
            rs, seconds = fut.result()
            cache[m.id] = {"spec": m.spec, "sha256": sha(m.text()), "players": m.players, "depth": m.depth,
                           "timeout": timeout, "explore": _explore(), "prover": prover_digest(), "date": time.strftime("%Y-%m-%d"),
                           "seconds": round(seconds, 1), "results": rs}
            print(f"{m.id}: {seconds:.0f} s, {sum(r['status'] == 'violated' for r in rs)} violated", flush=True)
            ordered = {x.id: cache[x.id] for x in MUTANTS if x.id in cache}
            target.write_text(json.dumps(ordered, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", nargs="?", choices=["specs", "mutants", "all"], default="all")
    ap.add_argument("--timeout", type=float, default=TIMEOUT)
    ap.add_argument("--only", nargs="*", help="spec paths or mutant ids")
    ap.add_argument("--players", type=int, nargs="*", help="only these player counts (specs)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="spec runs at once (default: processors)")
    ap.add_argument("--answers", metavar="FILE",
                    help="keep and reuse the solver's unsat answers in FILE (specs; see rulespec verify --answers): "
                         "a run cut short resumes where it stopped")
    args = ap.parse_args(argv)
    sys.setrecursionlimit(10_000)
    if args.what in ("specs", "all"):
        run_specs(args.timeout, args.only, args.jobs, args.players, args.answers)
    if args.what in ("mutants", "all"):
        run_mutants(args.timeout, args.only, args.jobs)
    return 0


if __name__ == "__main__":
    sys.exit(main())

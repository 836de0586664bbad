"""What each `rulespec` command does, once its arguments are parsed (see cli.py)."""

from __future__ import annotations

import concurrent.futures
import contextlib
import os
import sys
from dataclasses import replace

from .cli import EXIT_FOUND, EXIT_INPUT, EXIT_OK, emit_json, print_diagnostics
from .diagnostics import UserError, error
from .markdown import DIFF_PAGE_MARK
from .pipeline import expand_paths, load, load_spec, load_specs, new_file_folder, usable_folder
from .trace import moves_text, write_new


def _limiting(a, b, below: bool):
    """Of two editions, the one whose `players` declaration sets the least (below) or the most
    players both are played by."""
    if below:
        return a if a.min_players >= b.min_players else b
    return a if a.max_players <= b.max_players else b


def _check_players(spec, n: int | None) -> list[int]:
    if n is None:
        return list(range(spec.min_players, spec.max_players + 1))
    if not spec.min_players <= n <= spec.max_players:
        raise UserError(error("E006", f"{spec.game} is for {spec.min_players} to {spec.max_players} players, not {n}",
                              span=spec.players_span, hint=f"use --players {spec.min_players}" +
                                   (f" to {spec.max_players}" if spec.max_players > spec.min_players else "")))
    return [n]


# ---- check and test ----------------------------------------------------------------------

def cmd_check(args) -> int:
    from .citations import check_citations, rulebook_folder, shown_path
    from .scenarios import run_scenarios

    folder = rulebook_folder(args.rulebooks)
    if args.rulebooks and not os.path.isdir(args.rulebooks):
        raise UserError(error("E001", f"no such folder: '{args.rulebooks}'", hint="--rulebooks takes a folder"))
    report = []
    errors = failures = 0
    for path, refused in _each_spec(args.specs):
        if refused is not None:  # (a folder with no spec in it: told, and the other SPECs checked)
            errors += len(refused.diagnostics)
            report.append((path, None, refused.diagnostics, [], None))
            continue
        loaded = load(path)
        diags = list(loaded.diagnostics)
        scen = []
        book = None
        if loaded.spec is not None:
            cite_diags, book = check_citations(loaded.spec, folder)
            diags += cite_diags
            if not any(d.is_error for d in diags) and not args.no_scenarios:
                scen = run_scenarios(loaded.spec)
        errors += sum(d.is_error for d in diags)
        failures += sum(not r.ok for r in scen)
        report.append((path, loaded, diags, scen, book))
    if args.json:
        emit_json({"ok": errors == 0 and failures == 0, "files": [
            {"path": path, "ok": not any(d.is_error for d in diags) and all(r.ok for r in scen),
             "rulebook": book, "diagnostics": [d.to_json() for d in diags],
             "scenarios": [r.to_json() for r in scen]} for path, _l, diags, scen, book in report]})
    else:
        for path, loaded, diags, scen, book in report:
            print_diagnostics(diags)
            bad = sum(d.is_error for d in diags)
            warn = len(diags) - bad
            if bad:
                print(f"{path}: {bad} error{'s' * (bad != 1)}" + (f", {warn} warning{'s' * (warn != 1)}" if warn else ""))
                continue
            parts = [f"{path}: ok"]
            spec = loaded.spec
            na, np_ = len(spec.actions), len(spec.properties)
            parts.append(f"{na} action{'s' * (na != 1)}, {np_} propert{'ies' if np_ != 1 else 'y'}")
            if scen:
                passed = sum(r.ok for r in scen)
                parts.append(f"{passed}/{len(scen)} scenarios pass")
            parts.append("citations checked in " + shown_path(book) if book else "citations not checked "
                         "(rulebook not found; pass --rulebooks DIR)" if spec.source else "no rulebook declared")
            if warn:
                parts.append(f"{warn} warning{'s' * (warn != 1)}")
            print(", ".join(parts))
            for r in scen:
                if not r.ok:
                    where = f"{r.span}: " if r.span else ""
                    print(f"  {where}scenario {r.scenario.name} FAILED: {r.message}")
    if errors:
        return EXIT_INPUT
    return EXIT_FOUND if failures else EXIT_OK


def _each_spec(specs: list[str]):
    """(path, None) for each spec file the SPECs name (a folder's, found in it), and (SPEC, the
    UserError) for a SPEC that names none: check reports it among the others, which it still checks."""
    for given in specs:
        try:
            found = expand_paths([given])
        except UserError as exc:
            yield given, exc
            continue
        for path in found:
            yield path, None


def cmd_test(args) -> int:
    from .scenarios import run_scenarios

    loaded = load_specs(expand_paths(args.specs))  # every spec's errors told, as check and docs do
    out = []
    failed = 0
    for path, spec in loaded:
        results = [r for r in run_scenarios(spec) if not args.k or args.k in r.scenario.name]
        failed += sum(not r.ok for r in results)
        out.append((path, spec, results))
    if args.k and not any(rs for _p, _s, rs in out):  # a misspelt filter runs nothing: not a pass
        import difflib
        names = sorted({sc.name for _p, s, _rs in out for sc in s.scenarios})
        near = difflib.get_close_matches(args.k, names, n=1, cutoff=0.6)
        raise UserError(error("E006", f"-k {args.k}: no scenario's name contains it",
                              hint=f"did you mean '{near[0]}'?" if near else
                              ("the scenarios: " + ", ".join(names[:8]) + (" ..." if len(names) > 8 else ""))
                              if names else "these specs have no scenarios"))
    if args.json:
        emit_json({"ok": failed == 0, "files": [{"path": p, "scenarios": [r.to_json() for r in rs]} for p, _s, rs in out]})
    else:
        for path, spec, results in out:
            print(f"{path}: {len(results)} scenario{'s' * (len(results) != 1)}")
            for r in results:
                cite = f"  {r.scenario.cite.label()}" if r.scenario.cite else ""
                print(f"  {'PASS' if r.ok else 'FAIL'}  {r.scenario.name} ({r.scenario.players} players){cite}")
                if not r.ok:
                    print(f"        {r.span}: {r.message}" if r.span else f"        {r.message}")
                    if r.log:
                        print("        moves: " + "; ".join(r.log[-6:]))
    return EXIT_FOUND if failed else EXIT_OK


# ---- simulate ----------------------------------------------------------------------------

def cmd_simulate(args) -> int:
    from .backends.interpreter import ParamError, Program
    from .progress import progress_bar
    from .simulate import record_trace, simulate

    spec, _warnings = load_spec(args.spec)
    counts = _check_players(spec, args.players)
    if args.save_traces:
        usable_folder(args.save_traces, "--save-traces")  # (made now, and a file written and removed)
    reports = []
    for n in counts:
        with progress_bar(args.games, f"{spec.label} {n} players") as bar:
            try:
                rep = simulate(spec, n, args.games, args.seed, args.max_steps, bar, check=not args.no_check,
                               avoid_gaps=args.avoid_gaps)
            except ParamError as exc:
                raise UserError(error("E305", str(exc), exc.span)) from None
        reports.append(rep)
    traces = {}
    for rep in reports:
        program = Program(spec, rep.players)
        for f in rep.findings.values():
            traces[(rep.players, f.key)] = record_trace(program, f.seed, f.params, f.moves)
    refused: list = []  # a trace the folder refused after all, kept elsewhere: told after the report
    saved = _save_traces(args.save_traces, spec, traces, refused) if args.save_traces else {}
    problems = sum(len(r.problems) for r in reports)
    if args.json:
        docs = []
        for rep in reports:
            d = rep.to_json()
            for fj, f in zip(d["findings"], rep.findings.values()):
                t = traces[(rep.players, f.key)]
                fj["trace"] = t.to_json()
                fj["trace_file"] = saved.get((rep.players, f.key))
            docs.append(d)
        emit_json(_told({"ok": problems == 0, "runs": docs}, refused))
    else:
        for rep in reports:
            _print_sim(rep, traces, saved)
    if refused:
        raise UserError(refused)
    return EXIT_FOUND if problems else EXIT_OK


def _print_sim(rep, traces, saved) -> None:
    spec = rep.spec
    ms = rep.move_summary()
    print(f"{spec.label}, {rep.players} players: {rep.games} games from seed \"{rep.seed}\" in {rep.seconds:.2f} s "
          f"({rep.games / max(rep.seconds, 1e-9):,.0f} games/s, {sum(rep.moves) / max(rep.seconds, 1e-9):,.0f} moves/s)")
    print(f"  finished       {rep.finished} of {rep.games}")
    if rep.stopped:
        print("  stopped by     " + ", ".join(f"{k} {v}" for k, v in sorted(rep.stopped.items())))
    print(f"  moves per game min {ms['min']}, median {ms['median']:g}, max {ms['max']}")
    if rep.ends:
        print("  ended by       " + ", ".join(f"{k} {v}" for k, v in sorted(rep.ends.items())))
    reach = [p for p in spec.properties if p.kind == "reachable"]
    if reach:
        print("  reached        " + ", ".join(f"{p.name} in {rep.reached.get(p.name, 0)} games" for p in reach))
    for name, values in rep.stats.items():
        from .simulate import _stat_summary
        s = _stat_summary(values)
        if s.get("count"):
            print(f"  stat {name:<9} min {s['min']:g}, mean {s['mean']:g}, max {s['max']:g}")
    if not rep.findings:
        print("  findings       none")
        return
    order = {"fault": 0, "deadlock": 1, "step_limit": 2, "violation": 3, "gap": 4}
    for f in sorted(rep.findings.values(), key=lambda f: (f.expected is not None, order[f.kind], f.key)):
        label = "expected" if f.expected else f.kind
        print(f"\n  [{label}] {f.title}: in {f.count} of {rep.games} games"
              + (f" (stepped around in {rep.avoided.get(f.key, 0)}, stopped in {rep.halted.get(f.key, 0)})"
                 if rep.avoid_gaps and f.kind == "gap" else ""))
        if f.span:
            print(f"    at {f.span}" + (f"  {f.cite.label()}" if f.cite else ""))
        if f.expected:
            print(f"    expected: {f.expected}")
        t = traces[(rep.players, f.key)]
        print(f"    shortest: {moves_text(len(f.moves))}, game seed \"{f.seed}\"" +
              (f", saved as {saved[(rep.players, f.key)]}" if (rep.players, f.key) in saved else ""))
        body = t.render(max_changes=6)
        lines = body.splitlines()
        if len(lines) > 60:
            lines = lines[:8] + [f"      … {len(lines) - 48} lines …"] + lines[-40:]
        print("\n".join("    " + line for line in lines))
        print(f"    => {f.message}")


def _save_traces(folder: str, spec, traces, refused: list) -> dict:
    from .trace import dump_itf

    saved = {}
    stem = f"{spec.game}-{spec.edition}" if spec.edition else spec.game
    for (players, key), t in traces.items():
        base = f"{stem}-{players}p-{key.replace(':', '-')}"
        path, problem = write_new(_numbered(folder, base), dump_itf(t.to_itf(f"{t.outcome.get('kind')}: {key}")),
                                  "--save-traces")
        refused += [problem] if problem else []
        saved[(players, key)] = path
    return saved


def _numbered(folder: str, base: str, suffix: str = ".itf.json"):
    """folder/base.itf.json, then folder/base-2.itf.json, base-3, ...: the names a new file may take."""
    yield os.path.join(folder, base + suffix)
    k = 2
    while True:
        yield os.path.join(folder, f"{base}-{k}{suffix}")
        k += 1


# ---- docs --------------------------------------------------------------------------------

def cmd_docs(args) -> int:
    import time

    from .docs import default_specs, read_diffs, write_reference
    from .progress import progress_bar
    from .results import read_results

    t0 = time.perf_counter()
    files = expand_paths(args.specs) if args.specs else default_specs()
    specs, diags = [], []
    for path in files:  # every spec is checked before anything is written
        loaded = load(path)
        if loaded.spec is None:
            diags += loaded.diagnostics
        else:
            specs.append(loaded.spec)
    if diags:
        raise UserError(diags)
    results = read_results(args.results)
    diffs = read_diffs(args.diff)

    def progress(spec, n):
        return progress_bar(args.games, f"{spec.label} {n} players")

    written = write_reference(args.out, specs, results, diffs, args.games, args.seed, args.max_steps, progress)
    pages = [f for f in written if f.endswith(".md")]
    seconds = time.perf_counter() - t0
    if args.json:
        emit_json({"ok": True, "out": args.out, "specs": [s.path for s in specs], "pages": pages,
                   "files": written, "seconds": round(seconds, 3)})
    else:
        print(f"{args.out}: {len(pages)} pages and {len(written) - len(pages)} other files for "
              f"{len(specs)} spec{'s' * (len(specs) != 1)} in {seconds:.1f} s")
        for s in specs:
            given = results.for_spec(s.path, s.game, s.edition)
            print(f"  {s.path}: property statuses from " +
                  (given.file if given else f"{args.games} simulated games per player count"))
    return EXIT_OK


# ---- verify --------------------------------------------------------------------------------

def _verify_one(path: str, n: int, depth: int, timeout: float, games: int, explore: int, answers_file=None,
                hard_before=None, property_timeout=None, seed="verify"):
    """One spec at one player count (run in a worker process): its results, seconds, the use of
    the store of answers (Answers.counts) and what its induction found hard alone
    (Verifier.hard_alone_at, for the next player counts: hard_before)."""
    import time

    from .answers import Answers
    from .verify import Verifier

    t0 = time.perf_counter()
    spec, _warnings = load_spec(path)
    answers = Answers(answers_file) if answers_file else None
    v = Verifier(spec, n, depth, timeout, games, explore, answers, hard_before, property_timeout, seed=seed)
    results = v.run()
    return results, time.perf_counter() - t0, answers.counts() if answers else (0,) * 5, v.hard_alone_at


def _learn(hard: dict, found: dict) -> None:
    """Add what one player count's induction found hard alone (action -> invariants) to a spec's."""
    for action, names in found.items():
        hard.setdefault(action, set()).update(names)


def cmd_verify(args) -> int:
    import time

    from .progress import progress_bar
    from .verify import Verifier

    started = time.perf_counter()
    files = expand_paths(args.specs, default_dir="spec")
    loaded = []
    for path, spec in load_specs(files):  # bad input is reported here (every spec's), before any work starts
        counts = _check_players(spec, args.players) if args.players else \
            list(range(spec.min_players, spec.max_players + 1))
        loaded.append((path, spec, counts))
    # the largest player counts first: they take longest, and one started last would finish alone
    # (de.rules on 2 cores: 3 and 4 players, then 5, 425 s; 5 beside 4, then 3, about 330 s)
    tasks = sorted(((path, n) for path, _spec, counts in loaded for n in counts), key=lambda t: -t[1])
    jobs = min(args.jobs or os.cpu_count() or 1, len(tasks))
    games, explore = max(args.games, 0), max(args.explore, 0)
    answers = None
    if args.answers:
        from .answers import open_answers
        answers = open_answers(args.answers)
    done: dict = {}
    # what one player count's induction found hard alone, per spec: a count started after it splits
    # those invariants into cases at once for the same actions (Verifier.hard_before)
    hard: dict = {path: {} for path, _spec, _counts in loaded}
    if jobs <= 1:
        for path, spec, counts in loaded:
            for n in counts:
                t0 = time.perf_counter()
                total = sum(1 for p in spec.properties if p.kind != "invariant")
                with progress_bar(total, f"verify {spec.label} {n} players") as bar:
                    ticks = [0]

                    def tick():
                        ticks[0] += 1
                        bar(ticks[0])
                    before = answers.counts() if answers else (0,) * 5
                    v = Verifier(spec, n, args.depth, args.timeout, games, explore, answers, hard[path],
                                 args.property_timeout, seed=args.seed)
                    results = v.run(tick)
                    _learn(hard[path], v.hard_alone_at)
                    after = answers.counts() if answers else (0,) * 5
                    done[(path, n)] = (results, time.perf_counter() - t0,
                                       tuple(b - a for a, b in zip(before, after)))
    else:
        # each (spec, player count) in its own process; Z3 uses one processor per query. A run is
        # started when a process is free, with what the runs done by then found hard (above).
        with progress_bar(len(tasks), f"verify ({jobs} at once)") as bar, _workers(jobs) as pool:
            waiting = list(tasks)
            running: dict = {}

            def start():
                path, n = waiting.pop(0)
                running[pool.submit(_verify_one, path, n, args.depth, args.timeout, games, explore,
                                    args.answers, {a: sorted(ns) for a, ns in hard[path].items()},
                                    args.property_timeout, args.seed)] = (path, n)
            while waiting and len(running) < jobs:
                start()
            while running:
                finished, _pending = concurrent.futures.wait(running, return_when=concurrent.futures.FIRST_COMPLETED)
                for fut in finished:
                    task = running.pop(fut)
                    results, seconds, used, found = fut.result()
                    done[task] = (results, seconds, used)
                    _learn(hard[task[0]], found)
                    bar(len(done))
                    if waiting:
                        start()
    wall = time.perf_counter() - started
    runs = []
    for path, spec, counts in loaded:
        results = [r for n in counts for r in done[(path, n)][0]]
        seconds = sum(done[(path, n)][1] for n in counts)
        runs.append((path, spec, results, seconds))
    problems = sum(r.problem for _p, _s, rs, _t in runs for r in rs)
    reused, asked, added, plays_reused, plays_added = (sum(u[i] for _r, _t, u in done.values()) for i in range(5))
    used = {"file": args.answers, "reused": reused, "asked": asked, "added": added, "plays_reused": plays_reused,
            "plays_added": plays_added} if args.answers else None
    if args.json:
        emit_json({"ok": problems == 0, "jobs": jobs, "seed": args.seed, "seconds": round(wall, 2), "answers": used,
                   "specs": [
            {"spec": path, "game": spec.game, "edition": spec.edition, "seconds": round(t, 2),
             "players": {str(n): round(done[(path, n)][1], 2) for n in sorted({r.players for r in rs})},
             "results": [r.to_json() for r in rs]}
            for path, spec, rs, t in runs]})
    else:
        for path, spec, rs, t in runs:
            _print_verify(path, spec, rs, t, {n: done[(path, n)][1] for n in sorted({r.players for r in rs})})
        if len(tasks) > 1:
            print(f"{len(tasks)} runs in {wall:.1f} s wall, {jobs} at once")
        if used:
            print(f"{reused} of {reused + asked} solver questions answered from {args.answers} "
                  f"({added} unsat answers added); {plays_reused} plays of the directed search replayed "
                  f"from it instead of searched for ({plays_added} added)")
    return EXIT_FOUND if problems else EXIT_OK


def _print_verify(path, spec, results, seconds, per_count=None) -> None:
    counts = {}
    for r in results:
        counts[r.status] = counts.get(r.status, 0) + 1
    summary = ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
    print(f"{spec.label} ({path}): {summary}; {seconds:.1f} s")
    for n in sorted({r.players for r in results}):
        print(f"  {n} players" + (f" ({per_count[n]:.1f} s)" if per_count and n in per_count else ""))
        for r in (x for x in results if x.players == n):
            status = r.status + (f" (k = {r.depth})" if r.status == "bounded" and r.depth is not None else "")
            tag = " [expected]" if r.expected_violation and r.status == "violated" else ""
            print(f"    {status:<16} {r.kind:<10} {r.property:<34} {r.seconds:6.2f} s  {r.message}{tag}")
    for r in results:
        if r.trace is not None and r.status in ("violated", "reachable") and r.kind != "reachable":
            print(f"\n  {r.property} ({r.players} players): {r.message}")
            body = r.trace.render(max_changes=6).splitlines()
            if len(body) > 60:
                body = body[:8] + [f"      … {len(body) - 48} lines …"] + body[-40:]
            print("\n".join("    " + line for line in body))


def _worker_start() -> None:
    import signal

    signal.signal(signal.SIGTERM, signal.SIG_DFL)


@contextlib.contextmanager
def _workers(jobs: int):
    """A pool of worker processes that ends with the command: Ctrl-C, SIGTERM to this process alone
    (`kill PID`, a process manager) or an error stops them at once. SIGTERM is taken as Ctrl-C; the
    pool's own exit waited for the workers to finish their player count (hours), and a SIGTERM
    left them running with no parent, then blocked for ever."""
    import signal

    def terminated(_signum, _frame):
        raise KeyboardInterrupt
    before = signal.signal(signal.SIGTERM, terminated)
    # a worker ends quietly when stopped: SIGTERM as the system's default there, not this handler
    pool = concurrent.futures.ProcessPoolExecutor(max_workers=jobs, initializer=_worker_start)
    try:
        yield pool
    except BaseException:
        for proc in list((getattr(pool, "_processes", None) or {}).values()):
            proc.terminate()
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    else:
        pool.shutdown()
    finally:
        signal.signal(signal.SIGTERM, before)


# ---- diff ----------------------------------------------------------------------------------

def cmd_diff(args) -> int:
    from .diff import align, compare, render_markdown, render_text
    from .progress import progress_bar

    a, _wa = load_spec(args.spec_a)
    b, _wb = load_spec(args.spec_b)
    if a.game != b.game:
        raise UserError(error("E006", f"this is the game {b.game}, but '{args.spec_a}' is {a.game}: only editions "
                                      "of one game can be compared", span=b.game_span,
                              hint="give two specs whose `game` declarations name the same game"))
    lo, hi = max(a.min_players, b.min_players), min(a.max_players, b.max_players)
    if lo > hi:
        raise UserError(error("E006", f"the editions have no player count in common: this one is for "
                                      f"{b.min_players}..{b.max_players}, '{args.spec_a}' for "
                                      f"{a.min_players}..{a.max_players}", span=b.players_span,
                              hint="nothing to compare"))
    if args.players is not None and not lo <= args.players <= hi:
        raise UserError(error("E006", f"both editions are played by {lo} to {hi} players, not {args.players}",
                              span=_limiting(a, b, args.players < lo).players_span, hint=f"use --players {lo}" + (f" to {hi}" if hi > lo else "")))
    if args.markdown:
        _check_markdown_target(args.markdown)
    counts = [args.players] if args.players else list(range(lo, hi + 1))
    changed = sum(1 for c in align(a, b) if c.category == "action" and c.kind == "changed")
    with progress_bar(changed * len(counts), f"diff {a.label} {b.label}") as bar:
        done = [0]

        def tick():
            done[0] += 1
            bar(done[0])
        report = compare(a, b, counts, float(args.timeout), max(args.games, 0), tick)
    # the page first, so that it is written where the report's reader went away (| head); one that
    # cannot be written after all (checked before the work) is kept elsewhere, told with the report
    problem = _write_markdown(args.markdown, DIFF_PAGE_MARK + "\n" + render_markdown(report)) if args.markdown else None
    if args.json:
        emit_json(_told({"ok": not report.found, **report.to_json()}, [problem] if problem else []))
    else:
        print(render_text(report))
        if args.markdown and not problem:
            print(f"\nMarkdown report written to {args.markdown}")
    if problem:
        raise UserError(problem)
    return EXIT_FOUND if report.found else EXIT_OK


def _told(doc: dict, refused: list) -> dict:
    """A command's JSON document, with what it could not write after its work (exit 2): `ok` false
    and the diagnostics, as for any bad input."""
    if refused:
        doc["ok"] = False
        doc["diagnostics"] = [d.to_json() for d in refused]
    return doc


def _check_markdown_target(path: str) -> None:
    """A new file, or one this command wrote before; never a file of the user's. Its folder must
    be there and writable: checked before the comparison, which can take minutes."""
    if os.path.isdir(path) or path.endswith(("/", os.sep)):
        raise UserError(error("E008", f"'{path}' is a folder", hint="--markdown takes a file name"))
    foreign = _not_ours(path)
    if foreign:
        raise UserError(foreign)
    new_file_folder(path)


def _not_ours(path: str):
    """An E008 diagnostic where path holds something rulespec diff did not write (a file without
    its mark, a link to nothing, a pipe or a device: read for the mark, a pipe would wait for
    ever); None where it is free or holds a page diff wrote (a link to one: the page is its target)."""
    if os.path.islink(path) and not os.path.exists(path):
        return error("E008", f"'{path}' is a link to nothing: not following it",
                     hint="choose a new file name, or remove the link yourself")
    if not os.path.exists(path):
        return None
    if not os.path.isfile(path):
        return error("E008", f"'{path}' is not a regular file", hint="--markdown takes a file name")
    try:
        with open(path, encoding="utf-8") as f:
            first = f.readline().strip()
    except (OSError, UnicodeDecodeError):
        first = ""
    if first != DIFF_PAGE_MARK:
        return error("E008", f"'{path}' exists and was not written by rulespec diff: not replacing it",
                     hint="choose a new file name, or remove the file yourself")
    return None


def _write_markdown(path: str, text: str):
    """Written whole or not at all (a temporary file renamed over it); a link is followed (its
    target is the page); the page gets the permissions a new file gets, or the old page's. The
    target is judged again (_not_ours): a file of the user's made there while the comparison ran
    is not replaced, and a new page takes its name only where it is still free. Where it
    cannot be written, the page is kept in the system's temporary folder: returns None, or the
    E008 diagnostic saying where it went and why."""
    import tempfile

    target = os.path.realpath(path)
    tmp = None
    try:
        problem = _not_ours(path)
        if problem is None:
            new = not os.path.exists(target)
            if new:
                umask = os.umask(0)
                os.umask(umask)
                mode = 0o666 & ~umask
            else:
                mode = os.stat(target).st_mode & 0o7777
            fd, tmp = tempfile.mkstemp(prefix=".rulespec-diff-", suffix=".md", dir=os.path.dirname(target))
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
            os.chmod(tmp, mode)
            if new:  # the name taken first (fails where a file was made there since: not replaced)
                os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode))
            os.replace(tmp, target)
            return None
    except FileExistsError:
        problem = error("E008", f"'{path}' was made while the comparison ran: not replacing it",
                        hint="move the page where you want it")
    except OSError as exc:
        problem = error("E008", f"cannot write '{path}': {exc.strerror or exc}", hint="check the folder's permissions")
    if tmp is not None:
        with contextlib.suppress(OSError):
            os.remove(tmp)
    fd, kept = tempfile.mkstemp(prefix="rulespec-diff-", suffix=".md")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    return replace(problem, message=f"--markdown: {problem.message}; the page is kept in '{kept}' instead")

# ---- fuzz --------------------------------------------------------------------------------

def cmd_fuzz(args) -> int:
    from .fuzz import MAX_STEPS, default_database, fuzz, print_report
    from .progress import progress_bar

    spec, _warnings = load_spec(args.spec)
    counts = _check_players(spec, args.players)
    if args.max_steps > MAX_STEPS:
        raise UserError(error("E006", f"--max-steps {args.max_steps} is more than {MAX_STEPS}",
                              hint="Hypothesis keeps 8 KB of choices per example: about two per move"))
    database = None if args.no_db else usable_folder(args.db or default_database(),
                                                     "--db" if args.db else "the example database (--db)",
                                                     "choose a folder you can write in, or --no-db")
    if args.save_traces:
        usable_folder(args.save_traces, "--save-traces")
    reports = []
    for n in counts:
        with progress_bar(args.examples, f"fuzz {spec.label} {n} players") as bar:
            reports.append(fuzz(spec, n, args.examples, args.seed, database, args.max_steps, bar))
    refused: list = []  # a trace the folder refused after all, kept elsewhere: told after the report
    if args.save_traces:
        from .trace import dump_itf

        stem = f"{spec.game}-{spec.edition}" if spec.edition else spec.game
        for rep in reports:
            for f in rep.failures:
                f.trace_file, problem = write_new(
                    _numbered(args.save_traces, f"{stem}-{rep.players}p-fuzz-{f.key.replace(':', '-')}"),
                    dump_itf(f.trace.to_itf(f"{f.kind}: {f.key} (fuzz, shrunk)")), "--save-traces")
                refused += [problem] if problem else []
    if args.json:
        emit_json(_told({"ok": all(r.ok for r in reports), "runs": [r.to_json() for r in reports]}, refused))
    else:
        for rep in reports:
            print_report(rep)
    if refused:
        raise UserError(refused)
    return EXIT_OK if all(r.ok for r in reports) else EXIT_FOUND


# ---- replay and play ---------------------------------------------------------------------

def cmd_replay(args) -> int:
    from .replay import replay

    spec, _warnings = load_spec(args.spec)
    result = replay(spec, args.trace)
    if args.json:
        emit_json(result.to_json())
    else:
        print(result.trace.render(max_changes=6))
        print(result.summary())
    return EXIT_FOUND if result.problem else EXIT_OK


def cmd_play(args) -> int:
    from .play import play

    spec, _warnings = load_spec(args.spec)
    n = _check_players(spec, args.players)[0] if args.players else spec.min_players
    if args.save_trace and os.path.lexists(args.save_trace):  # (a link, even one to nothing)
        raise UserError(error("E008", f"'{args.save_trace}' already exists; rulespec does not overwrite files",
                              hint="choose a new file name"))
    if args.save_trace:  # checked before the game: a game played to its end is not lost to a bad path
        if args.save_trace.endswith(("/", os.sep)):
            raise UserError(error("E008", f"'{args.save_trace}' names a folder; --save-trace takes a file name",
                                  hint="e.g. game.itf.json"))
        new_file_folder(args.save_trace)
    return play(spec, n, args.seed, sys.stdin, sys.stdout, args.save_trace)


__all__ = ["cmd_check", "cmd_test", "cmd_simulate", "cmd_docs", "cmd_fuzz", "cmd_replay", "cmd_play", "EXIT_INPUT"]

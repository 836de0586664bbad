"""Fuzz a spec with Hypothesis: ir.Spec + players + examples + seed -> FuzzReport.

Runs the play of backends/hypothesis.py as a Hypothesis test: `examples` generated games from
the run's seed (Hypothesis's own seed is derived from it, so a run is reproducible), every
failure shrunk to a short play and replayed into a Trace. Gaps and expected violations are
counted, not failures. The example database (a folder, or none) keeps failing examples so that
the next run tries them first.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import statistics
import tempfile
import time
from dataclasses import dataclass, field

from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import strategies as st
from hypothesis.database import DirectoryBasedExampleDatabase
from hypothesis.errors import Unsatisfiable

from . import ir
from .backends.hypothesis import Failure, Play, play
from .backends.interpreter import Program
from .simulate import gap_finding, record_trace, violation_finding
from .source import Span
from .trace import Trace, moves_text

DEFAULT_MAX_STEPS = 2000
MAX_STEPS = 3000  # Hypothesis keeps 8 KB of choices per example: about 4000 one-byte choices, up to two a move


def default_database() -> str:
    """Where `rulespec fuzz` keeps Hypothesis's example database unless told otherwise:
    $XDG_CACHE_HOME/rulespec/hypothesis (~/.cache/rulespec/hypothesis), outside any project."""
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(cache, "rulespec", "hypothesis")


@dataclass
class FuzzFailure:
    """One distinct failure, shrunk: its shortest play and how long the first one found was."""

    key: str
    kind: str                 # fault | deadlock | violation | step_limit
    title: str
    message: str
    span: Span | None = None
    cite: ir.Cite | None = None
    length_before: int = 0    # moves in the first failing example found
    length_after: int = 0     # moves in the shrunk example
    seen: int = 0             # failing test cases (generation and shrinking)
    seed: str = ""
    params: list = field(default_factory=list)
    moves: list = field(default_factory=list)
    trace: Trace | None = None
    trace_file: str | None = None

    def to_json(self) -> dict:
        return {"kind": self.kind, "key": self.key, "title": self.title, "message": self.message,
                "where": self.span.to_json() if self.span else None,
                "cite": self.cite.to_json() if self.cite else None,
                "moves_before_shrinking": self.length_before, "moves_after_shrinking": self.length_after,
                "seed": self.seed, "trace": self.trace.to_json() if self.trace is not None else None,
                "trace_file": self.trace_file}


@dataclass
class GapCount:
    key: str
    title: str
    span: Span | None
    cite: ir.Cite | None
    count: int = 0
    shortest: int | None = None


@dataclass
class FuzzReport:
    spec: ir.Spec
    players: int
    seed: str
    requested: int
    database: str | None
    max_steps: int
    examples: int = 0          # examples played to their stop before the first failure
    steps: int = 0             # moves in those examples
    lengths: list = field(default_factory=list)
    calls: int = 0             # every run of the test, shrinking included
    cut: int = 0               # examples Hypothesis cut short (its data budget), not counted above
    seconds: float = 0.0
    ends: dict = field(default_factory=dict)
    gaps: dict = field(default_factory=dict)        # key -> GapCount
    expected: dict = field(default_factory=dict)    # property name -> examples violating it
    failures: list = field(default_factory=list)
    unsatisfiable: bool = False
    played: dict = field(default_factory=dict)      # action name -> moves of it in the examples
    reached: dict = field(default_factory=dict)     # reachable property -> examples reaching it

    @property
    def ok(self) -> bool:
        return not self.failures and not self.unsatisfiable

    def rates(self) -> tuple[float, float]:
        s = max(self.seconds, 1e-9)
        return self.examples / s, self.steps / s

    def move_summary(self) -> dict:
        if not self.lengths:
            return {"min": 0, "median": 0, "max": 0}
        return {"min": min(self.lengths), "median": statistics.median(self.lengths), "max": max(self.lengths)}

    def to_json(self) -> dict:
        spec = self.spec
        per_s, steps_s = self.rates()
        expected = {p.name: p for p in spec.properties}
        return {
            "spec": spec.path, "game": spec.game, "edition": spec.edition, "players": self.players,
            "seed": self.seed, "examples_requested": self.requested, "examples": self.examples,
            "steps": self.steps, "moves": self.move_summary(), "test_cases": self.calls, "cut_short": self.cut,
            "seconds": round(self.seconds, 3), "examples_per_second": round(per_s, 2),
            "steps_per_second": round(steps_s, 1), "database": self.database, "max_steps": self.max_steps,
            "ends": self.ends,
            "gaps": [{"key": g.key, "title": g.title, "where": g.span.to_json() if g.span else None,
                      "cite": g.cite.to_json() if g.cite else None, "examples": g.count,
                      "shortest": g.shortest} for g in self.gaps.values()],
            "expected_violations": [{"property": name, "examples": n, "reason": expected[name].expect_violated}
                                    for name, n in self.expected.items()],
            "reachable": {p.name: self.reached.get(p.name, 0) for p in spec.properties if p.kind == "reachable"},
            "actions": {a.name: self.played.get(a.name, 0) for a in spec.actions},
            "failures": [f.to_json() for f in self.failures],
            "unsatisfiable": self.unsatisfiable,
        }


def run_seed_int(seed: str) -> int:
    """Hypothesis's seed (an integer) from the run's seed (any text)."""
    return int.from_bytes(hashlib.sha256(f"rulespec-fuzz/{seed}".encode()).digest()[:8], "big")


@contextlib.contextmanager
def _own_storage(keep: bool):
    """Hypothesis's storage folder (its caches, such as the constants it reads from the source;
    ./.hypothesis unless set), so that fuzzing a spec leaves nothing in the folder it is run from:
    beside the default example database (keep), else (--no-db) a temporary folder removed after
    the run. The folder set before (pytest's, in a test session) is set again after."""
    from hypothesis import configuration

    before = getattr(configuration, "__hypothesis_home_directory", None)  # (Hypothesis has no getter)
    with contextlib.ExitStack() as stack:
        home = os.path.join(os.path.dirname(default_database()), "hypothesis-storage") if keep else None
        try:
            if home is not None:
                os.makedirs(home, exist_ok=True)
        except OSError:
            home = None
        if home is None:
            home = stack.enter_context(tempfile.TemporaryDirectory(prefix="rulespec-hypothesis-"))
        configuration.set_hypothesis_home_dir(home)
        try:
            yield
        finally:
            configuration.set_hypothesis_home_dir(before)


def fuzz(spec: ir.Spec, players: int, examples: int, seed, database=None,
         max_steps: int = DEFAULT_MAX_STEPS, progress=None, by_action: bool = True,
         program: Program | None = None, shrink: bool = True) -> FuzzReport:
    """Generate `examples` plays with Hypothesis and shrink every failure; database: a folder
    for Hypothesis's example database, an ExampleDatabase, or None for none. shrink=False stops
    at the first failure of each kind, unshrunk (to find out quickly whether a bug is caught)."""
    program = program or Program(spec, players)
    seed = str(seed)
    if isinstance(database, str):
        db, shown = DirectoryBasedExampleDatabase(database), database
    else:
        db, shown = database, (None if database is None else getattr(database, "path", repr(database)))
    report = FuzzReport(spec, players, seed, examples, None if shown is None else str(shown), max_steps)
    found: dict[str, FuzzFailure] = {}
    failing = [False]  # a failure has been seen: later test cases are shrinking or the search for more

    def observe(p: Play):
        if failing[0] or p.stop == "failure":
            return
        report.examples += 1
        report.steps += len(p.moves)
        report.lengths.append(len(p.moves))
        if p.stop == "end":
            report.ends[p.end] = report.ends.get(p.end, 0) + 1
        elif p.stop == "gap":
            f = gap_finding(spec, p.gap)
            g = report.gaps.get(f.key)
            if g is None:
                g = report.gaps[f.key] = GapCount(f.key, f.title, f.span, f.cite)
            g.count += 1
            g.shortest = len(p.moves) if g.shortest is None else min(g.shortest, len(p.moves))
        for name in p.expected:
            report.expected[name] = report.expected.get(name, 0) + 1
        for name in p.reached:
            report.reached[name] = report.reached.get(name, 0) + 1
        for m in p.moves:
            a = spec.actions[m[0]].name
            report.played[a] = report.played.get(a, 0) + 1
        if progress:
            progress(min(report.examples, examples))

    def test(data):
        report.calls += 1
        done = False
        try:
            play(data, program, seed, max_steps, observe, by_action)
            done = True
        except Failure as exc:
            done = True
            _note_failure(found, program, exc)
            failing[0] = True
            raise
        finally:
            if not done and not failing[0]:
                report.cut += 1

    wrapped = settings(
        max_examples=examples, deadline=None, database=db,
        suppress_health_check=list(HealthCheck), verbosity=Verbosity.quiet, print_blob=False,
        report_multiple_bugs=shrink,
        phases=[Phase.explicit, Phase.reuse, Phase.generate] + ([Phase.shrink] if shrink else []))(
        given(st.data())(test))
    # what @hypothesis.seed sets, without the database=None that comes with it: a run is the same
    # for the same seed and the same database contents
    wrapped._hypothesis_internal_use_seed = run_seed_int(seed)
    key = f"rulespec-fuzz:{spec.game}/{spec.edition}:{players}p:{'by-action' if by_action else 'flat'}"
    wrapped.hypothesis.inner_test._hypothesis_internal_add_digest = key.encode()
    t0 = time.perf_counter()
    try:
        with _own_storage(keep=db is not None):
            wrapped()
    except Failure:
        pass
    except BaseExceptionGroup as group:
        _failures, others = group.split(Failure)
        if others is not None:
            raise
    except Unsatisfiable:
        report.unsatisfiable = True
    report.seconds = time.perf_counter() - t0
    for f in sorted(found.values(), key=lambda f: (f.kind, f.key)):
        f.trace = record_trace(program, f.seed, f.params, f.moves)
        report.failures.append(f)
    return report


def _note_failure(found: dict, program: Program, exc: Failure):
    p = exc.play
    f = found.get(exc.key)
    if f is None:
        if exc.kind == "violation":
            v = violation_finding(exc.detail.prop, exc.message)
            title, span, cite = v.title, v.span, v.cite
        elif exc.kind == "fault":
            title, span, cite = exc.message, program.span(exc.detail.span_id), None
        elif exc.kind == "deadlock":
            title, span, cite = "deadlock: no legal move and the game has not ended", None, None
        else:
            title, span, cite = exc.message, None, None
        f = found[exc.key] = FuzzFailure(exc.key, exc.kind, title, exc.message, span, cite,
                                         length_before=len(p.moves))
    f.seen += 1
    # the last failing run of a key is Hypothesis's final replay of its shrunk example
    f.length_after = len(p.moves)
    f.seed, f.params, f.moves = p.seed, list(p.params), list(p.moves)


# ---- the text report -------------------------------------------------------------------------

def print_report(rep: FuzzReport, out=None) -> None:
    """The text form of a fuzz run, as `rulespec fuzz` prints it."""
    import sys

    out = out or sys.stdout
    spec = rep.spec
    per_s, steps_s = rep.rates()
    w = lambda line="": print(line, file=out)  # noqa: E731
    if rep.failures:
        w(f"{spec.label}, {rep.players} players: seed \"{rep.seed}\", a failure after {rep.examples} examples; "
          f"{rep.calls} test cases in all (shrinking included) in {rep.seconds:.2f} s")
    else:
        w(f"{spec.label}, {rep.players} players: {rep.examples} examples from seed \"{rep.seed}\" in "
          f"{rep.seconds:.2f} s ({per_s:,.1f} examples/s, {steps_s:,.0f} steps/s)")
    w(f"  database       {rep.database or 'none'}")
    ms = rep.move_summary()
    stopped = [f"ended {sum(rep.ends.values())}", f"stopped at a gap {sum(g.count for g in rep.gaps.values())}"]
    w(f"  examples       {rep.examples} of {rep.requested}: " + ", ".join(stopped) +
      (f"; {rep.cut} more cut short by Hypothesis" if rep.cut else ""))
    w(f"  moves          {rep.steps:,} (per example min {ms['min']}, median {ms['median']:g}, max {ms['max']})")
    if rep.ends:
        w("  ended by       " + ", ".join(f"{k} {v}" for k, v in sorted(rep.ends.items())))
    reach = [p for p in spec.properties if p.kind == "reachable"]
    if reach:
        w("  reached        " + ", ".join(f"{p.name} in {rep.reached.get(p.name, 0)}" for p in reach))
    never = [a.name for a in spec.actions if not rep.played.get(a.name)]
    if never and rep.examples:
        w("  never played   " + ", ".join(never))
    if rep.unsatisfiable:
        w("  Hypothesis could not generate a single complete example (every one was cut short)")
    for g in sorted(rep.gaps.values(), key=lambda g: -g.count):
        w(f"  [gap] {g.title}: in {g.count} of {rep.examples} examples (the shortest after {moves_text(g.shortest)})")
        if g.span:
            w(f"    at {g.span}" + (f"  {g.cite.label()}" if g.cite else ""))
    props = {p.name: p for p in spec.properties}
    for name, n in sorted(rep.expected.items()):
        p = props[name]
        w(f"  [expected] {p.kind} {name} violated: in {n} of {rep.examples} examples")
        w(f"    expected: {p.expect_violated}")
    if not rep.failures:
        w("  failures       none")
        return
    for f in rep.failures:
        w(f"\n  [{f.kind}] {f.title}: shrunk from {f.length_before} to {moves_text(f.length_after)}")
        if f.span:
            w(f"    at {f.span}" + (f"  {f.cite.label()}" if f.cite else ""))
        w(f"    game seed \"{f.seed}\"" + (f", saved as {f.trace_file}" if f.trace_file else ""))
        lines = f.trace.render(max_changes=6).splitlines()
        if len(lines) > 60:
            lines = lines[:8] + [f"      … {len(lines) - 48} lines …"] + lines[-40:]
        w("\n".join("    " + line for line in lines))
        w(f"    => {f.message}")


__all__ = ["print_report", "MAX_STEPS", "FuzzFailure", "FuzzReport", "GapCount", "default_database", "fuzz", "run_seed_int", "DEFAULT_MAX_STEPS"]

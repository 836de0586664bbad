"""Property statuses for the rules reference: a verify run's JSON, or what simulation shows.

`rulespec verify SPEC --json` writes {"ok", "specs": [{"spec", "game", "edition", "results": [...]}]};
read_results() checks that shape and indexes the results by spec. Without such a file the
reference shows only what the interpreter really establishes: a property is `tested (N games,
no violation)` or `violated` (with the shortest trace), a reachable goal `reachable` when some
game reached it; nothing is ever shown as proved unless a verify run proved it.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field

from .diagnostics import UserError, error
from .parse import read_text
from .source import SourceFile, Span, json_steps

HINT = "--results takes the output of `rulespec verify SPEC --json`"
STATUSES = ("proved", "bounded", "tested", "violated", "unknown", "reachable", "unreachable")
KINDS = ("invariant", "reachable", "terminates", "bound", "undecided", "deadlock", "fault", "action")


@dataclass
class Result:
    """One result: a property (or another check) for one player count."""

    name: str
    kind: str
    players: int
    status: str
    depth: int | None = None
    seconds: float | None = None
    expected: str | None = None
    message: str = ""
    trace: dict | None = None
    source: str = "verify"        # verify (a --results file) | simulate (computed here)
    games: int | None = None      # simulate: how many games were played
    reached: int | None = None    # simulate, reachable: in how many of them

    def label(self) -> str:
        """The status as shown: proved / bounded (k = 12) / tested (200 games, no violation) / ..."""
        s = self.status
        if s == "bounded" and self.depth is not None:
            return f"bounded (k = {self.depth})"
        if s == "tested" and self.games is not None:
            return f"tested ({self.games} games, no violation)"
        if s == "reachable" and self.games is not None:
            return f"reachable (in {self.reached} of {self.games} games)"
        if s == "unknown" and self.source == "simulate" and self.games is not None:
            return f"unknown (not reached in {self.games} games)"
        return s


@dataclass
class SpecResults:
    spec: str
    game: str
    edition: str | None
    results: list[Result] = field(default_factory=list)
    file: str = ""


class ResultsIndex:
    """The verify results of every --results file, found by spec path or by game and edition."""

    def __init__(self, entries: list[SpecResults] | None = None):
        self.entries = entries or []

    def for_spec(self, path: str, game: str, edition: str | None) -> SpecResults | None:
        real = os.path.realpath(path)
        for e in self.entries:
            if e.spec and os.path.realpath(e.spec) == real:
                return e
        for e in self.entries:
            if e.game == game and e.edition == edition:
                return e
        return None


def _bad(path: str, where: str, message: str, text: str = "", at: str = "") -> UserError:
    """E009 for the value at `where` (a JSON path: specs[0].results[3]), its line shown with a caret
    under the value at `at` (a path inside it, where the file has one) or at `where` itself."""
    span = None
    for place in (at, where):
        found = _value_at(text, place) if text and place else None
        if found is not None:
            span = _span(path, text, *found)
            break
    return UserError(error("E009", f"{path}: {where}: {message}" if where else f"{path}: {message}", span,
                           hint=HINT))


def error_at(path: str, text: str, at: str, message: str, hint: str) -> UserError:
    """E009 with its message as given, the line of the value at `at` (a JSON path) in the results
    file and a caret under it (docs' check that the results fit the specs documented)."""
    found = _value_at(text, at) if text else None
    return UserError(error("E009", message, _span(path, text, *found) if found is not None else None, hint=hint))


_STEP = re.compile(r"\.?([A-Za-z_]+)|\[(\d+)\]")


def _value_at(text: str, where: str) -> tuple[int, int] | None:
    """The offsets (start, end) in text, a JSON document json.loads read, of the value at the path
    `where` (keys and [indices], as in specs[0].results[3].status); None where it has none. A key
    given twice is its last value, as json.loads takes it."""
    steps = [m.group(1) if m.group(1) is not None else int(m.group(2)) for m in _STEP.finditer(where)]
    found = json_steps(text, steps)
    return found[-1][1] if steps and len(found) == len(steps) else None


def _span(path: str, text: str, start: int, end: int) -> Span:
    """The span of text[start:end], cut at the end of its first line."""
    return SourceFile(path, text).span_within_line(start, end)


def _trace(path: str, where: str, t, text: str) -> dict | None:
    if t is None:
        return None
    if not isinstance(t, dict) or not isinstance(t.get("steps"), list):
        raise _bad(path, where, 'expected a trace {"players", "seed", "params", "steps": [...], "outcome"} or null',
                   text, f"{where}.steps")
    for i, s in enumerate(t["steps"]):
        if not isinstance(s, dict) or "move" not in s:
            raise _bad(path, f"{where}.steps[{i}]", 'expected a step {"index", "move", "action", "cite", "changes"}',
                       text)
        if not isinstance(s.get("changes", []), list):
            raise _bad(path, f"{where}.steps[{i}].changes", "expected a list of lines", text)
    return t


def read_results(paths: list[str]) -> ResultsIndex:
    """Read verify JSON files; a file that is missing or not of that shape is E001 / E009 (exit 2)."""
    entries: list[SpecResults] = []
    for path in paths:
        text = read_text(path, "a results file", 50_000_000, HINT).text
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as exc:
            span = Span(path, exc.lineno, exc.colno, exc.lineno, exc.colno + 1)
            raise UserError(error("E009", f"{path}: not JSON ({exc.msg})", span, hint=HINT)) from None
        except ValueError:  # (a number of more than 4,300 digits)
            raise _bad(path, "", "not a results file (a number of more than 4,300 digits)") from None
        except RecursionError:
            raise _bad(path, "", "nested too deep to read (not a results file)") from None
        if not isinstance(doc, dict) or not isinstance(doc.get("specs"), list):
            raise _bad(path, "", 'expected {"ok": ..., "specs": [...]} as written by `rulespec verify --json`', text,
                       "specs")
        for i, s in enumerate(doc["specs"]):
            where = f"specs[{i}]"
            if not isinstance(s, dict) or not isinstance(s.get("results"), list):
                raise _bad(path, where, 'expected {"spec", "game", "edition", "results": [...]}', text,
                           f"{where}.results")
            if not isinstance(s.get("game"), str) or not isinstance(s.get("spec", ""), str):
                raise _bad(path, where, '"game" and "spec" must be strings', text,
                           f"{where}.game" if not isinstance(s.get("game"), str) else f"{where}.spec")
            if s.get("edition") is not None and not isinstance(s.get("edition"), str):
                raise _bad(path, where, '"edition" must be a string or null', text, f"{where}.edition")
            entry = SpecResults(s.get("spec", ""), s["game"], s.get("edition"), file=path)
            for j, r in enumerate(s["results"]):
                w = f"{where}.results[{j}]"
                if not isinstance(r, dict):
                    raise _bad(path, w, "expected an object", text)
                name, kind, players, status = r.get("property"), r.get("kind"), r.get("players"), r.get("status")
                if not isinstance(name, str) or not name:
                    raise _bad(path, w, '"property" must be a name', text, f"{w}.property")
                if kind not in KINDS:
                    raise _bad(path, w, f'"kind" must be one of {", ".join(KINDS)}, not {json.dumps(kind)}', text,
                               f"{w}.kind")
                if not isinstance(players, int) or isinstance(players, bool) or players < 1:
                    raise _bad(path, w, '"players" must be a positive number', text, f"{w}.players")
                if status not in STATUSES:
                    raise _bad(path, w, f'"status" must be one of {", ".join(STATUSES)}, not {json.dumps(status)}',
                               text, f"{w}.status")
                depth = r.get("depth")
                if depth is not None and (not isinstance(depth, int) or isinstance(depth, bool) or depth < 0):
                    raise _bad(path, w, '"depth" must be a number or null', text, f"{w}.depth")
                seconds = r.get("seconds")
                if seconds is not None and (not isinstance(seconds, (int, float)) or isinstance(seconds, bool)):
                    raise _bad(path, w, '"seconds" must be a number', text, f"{w}.seconds")
                expected = r.get("expected_violation")
                message = r.get("message") or ""
                if expected is not None and not isinstance(expected, str) or not isinstance(message, str):
                    raise _bad(path, w, '"expected_violation" and "message" must be strings', text,
                               f"{w}.message" if not isinstance(message, str) else f"{w}.expected_violation")
                entry.results.append(Result(name, kind, players, status, depth, seconds, expected, message,
                                            _trace(path, f"{w}.trace", r.get("trace"), text)))
            entries.append(entry)
    return ResultsIndex(entries)


def simulated_results(spec, reports, traces) -> list[Result]:
    """What random games establish about each property, per player count (see the module doc)."""
    out: list[Result] = []
    for rep in reports:
        for p in spec.properties:
            f = rep.findings.get(f"violation:{p.name}")
            if f is not None:
                t = traces.get((rep.players, f.key))
                out.append(Result(p.name, p.kind, rep.players, "violated", expected=p.expect_violated,
                                  message=f.message, trace=t.to_json() if t is not None else None,
                                  source="simulate", games=rep.games))
            elif p.kind == "reachable":
                n = rep.reached.get(p.name, 0)
                out.append(Result(p.name, p.kind, rep.players, "reachable" if n else "unknown",
                                  source="simulate", games=rep.games, reached=n,
                                  message="" if n else "no simulated game reached it; that does not mean it is unreachable"))
            else:
                out.append(Result(p.name, p.kind, rep.players, "tested", source="simulate", games=rep.games))
    return out

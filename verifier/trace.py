"""The one trace type: moves from a seeded start, with states, rendered as text, JSON and ITF.

ITF is the trace format of Apalache and Quint (https://apalache-mc.org/docs/adr/015adr-trace.html):
each state maps variable names to values; the move that led to a state is in its
`mbt::actionTaken` (the action's name) and `mbt::nondetPicks` (its arguments by name), and the
state's `#meta` carries the paragraph the action cites.
"""

from __future__ import annotations

import collections
import contextlib
import json
import os
from dataclasses import dataclass, field

from . import __version__, ir
from .diagnostics import error
from .types import (BagT, BoolT, Domains, EnumT, IntT, ListT, MapT, OptT, OrderT, PileT, PlayerT, RecordT, SetT,
                    TupleT, Type, format_value, record_fields, record_kind)

ITF_DESCRIPTION = "https://apalache-mc.org/docs/adr/015adr-trace.html"


def moves_text(n: int) -> str:
    """A number of moves in a message: "1 move", "3 moves"."""
    return "1 move" if n == 1 else f"{n} moves"


@dataclass
class TraceStep:
    index: int
    action: str
    args: tuple
    label: str
    cite: ir.Cite | None
    changes: list[str] = field(default_factory=list)


@dataclass
class Trace:
    """A play: where it starts (spec, players, seed, parameters) and each move with what it changed."""

    spec: ir.Spec
    players: int
    seed: str
    params: list
    steps: list[TraceStep]
    states: list[list]              # state 0 is the initial state; state i follows step i
    outcome: dict = field(default_factory=dict)  # kind: end | gap | fault | violation | deadlock | open

    def __len__(self) -> int:
        return len(self.steps)

    # ---- text --------------------------------------------------------------------------
    def render(self, max_changes: int = 8) -> str:
        spec = self.spec
        dom = Domains(self.players)
        head = f"trace of {spec.label}: {self.players} players, seed \"{self.seed}\""
        if spec.params:
            head += ", " + ", ".join(f"{p.name} = {format_value(p.type, v, dom)}" for p, v in zip(spec.params, self.params))
        lines = [head, "   0. (setup)" + (f"   {spec.init_cite.label()}" if spec.init_cite else "")]
        width = max((len(s.label) for s in self.steps), default=0)
        width = min(width, 56)
        for s in self.steps:
            cite = f"   {s.cite.label()}" if s.cite else ""
            lines.append(f"{s.index:4d}. {s.label.ljust(width)}{cite}")
            shown = s.changes[:max_changes]
            for c in shown:
                lines.append(f"        {c}")
            if len(s.changes) > max_changes:
                lines.append(f"        … and {len(s.changes) - max_changes} more changes")
        return "\n".join(lines)

    # ---- ITF ---------------------------------------------------------------------------
    def to_itf(self, description: str | None = None) -> dict:
        spec = self.spec
        dom = Domains(self.players)
        enc = ItfCodec(dom)
        meta = {"format": "ITF", "format-description": ITF_DESCRIPTION, "source": spec.path,
                "game": spec.game, "edition": spec.edition, "players": self.players, "seed": self.seed,
                "params": {p.name: enc.encode(p.type, v) for p, v in zip(spec.params, self.params)},
                "generator": f"rulespec {__version__}"}
        if description:
            meta["description"] = description
        if self.outcome:
            meta["outcome"] = dict(self.outcome)
            if len(self.steps) >= len(self.states) and self.steps:
                # the last move has no state after it (a run-time error or an undecided point stopped
                # it): kept with the outcome, so that a replay plays it too
                step = self.steps[-1]
                a = spec.action(step.action)
                meta["outcome"]["move"] = {"mbt::actionTaken": step.action, "mbt::nondetPicks": {
                    n: enc.encode(t, v) for (n, t), v in zip(a.params, step.args)}}
        names = [v.name for v in spec.state]
        states = []
        for i, st in enumerate(self.states):
            smeta: dict = {"index": i}
            if i == 0:
                action, picks = "init", {}
                if spec.init_cite:
                    smeta["cite"] = spec.init_cite.to_json()
            else:
                step = self.steps[i - 1]
                a = spec.action(step.action)
                action = step.action
                picks = {n: enc.encode(t, v) for (n, t), v in zip(a.params, step.args)}
                if step.cite:
                    smeta["cite"] = step.cite.to_json()
            state = {"#meta": smeta}
            for var, value in zip(spec.state, st):
                state[var.name] = enc.encode(var.type, value)
            state["mbt::actionTaken"] = action
            state["mbt::nondetPicks"] = picks
            states.append(state)
        return {"#meta": meta, "params": [p.name for p in spec.params],
                "vars": names + ["mbt::actionTaken", "mbt::nondetPicks"], "states": states}

    def to_json(self) -> dict:
        dom = Domains(self.players)
        return {"players": self.players, "seed": self.seed,
                "params": {p.name: format_value(p.type, v, dom) for p, v in zip(self.spec.params, self.params)},
                "steps": [{"index": s.index, "move": s.label, "action": s.action,
                           "cite": s.cite.to_json() if s.cite else None, "changes": s.changes} for s in self.steps],
                "outcome": self.outcome}


def dump_itf(itf: dict) -> str:
    """ITF as text with one state per line block, so that positions in the file are easy to find."""
    states = itf["states"]
    head = {k: v for k, v in itf.items() if k != "states"}
    text = json.dumps(head, ensure_ascii=False, indent=1)[:-2]
    parts = [json.dumps(s, ensure_ascii=False, separators=(",", ":")) for s in states]
    return text + ',\n "states": [\n  ' + ",\n  ".join(parts) + "\n ]\n}\n"


# ---- values <-> ITF ------------------------------------------------------------------------

class ItfError(Exception):
    def __init__(self, message: str, where: str = ""):
        super().__init__(message)
        self.message = message
        self.where = where


class ItfCodec:
    """Encodes run-time values of a type as ITF JSON and back."""

    def __init__(self, domains: Domains):
        self.dom = domains

    def encode(self, t: Type, v):
        if isinstance(t, OptT):
            return {"tag": "None", "value": {"#tup": []}} if v is None else {"tag": "Some", "value": self.encode(t.inner, v)}
        if isinstance(t, BoolT):
            return bool(v)
        if isinstance(t, (IntT, PlayerT)):
            return {"#bigint": str(v)}
        if isinstance(t, EnumT):
            return t.values[v]
        if isinstance(t, RecordT):
            return {n: self.encode(ft, fv) for (n, ft), fv in zip(t.fields, record_fields(t, v, self.dom))}
        if isinstance(t, SetT):
            return {"#set": [self.encode(t.elem, x) for x in sorted(v, key=lambda x: self.dom.index(t.elem, x))]}
        if isinstance(t, (OrderT, ListT, PileT)):
            return [self.encode(t.elem, x) for x in v]
        if isinstance(t, BagT):
            values = self.dom.values(t.elem)
            return {"#map": [[self.encode(t.elem, values[k]), {"#bigint": str(n)}] for k, n in enumerate(v) if n]}
        if isinstance(t, MapT):
            keys = self.dom.values(t.key)
            return {"#map": [[self.encode(t.key, k), self.encode(t.value, x)] for k, x in zip(keys, v)]}
        if isinstance(t, TupleT):
            return {"#tup": [self.encode(et, x) for et, x in zip(t.elems, v)]}
        raise ItfError(f"cannot encode a value of type {t}")

    def decode(self, t: Type, j, where: str = "value"):
        def fail(expected):
            shown = json.dumps(j, ensure_ascii=False)
            shown = shown if len(shown) < 60 else shown[:57] + "..."
            raise ItfError(f"{where}: expected {expected}, found {shown}", where)

        if isinstance(t, OptT):
            if not isinstance(j, dict) or j.get("tag") not in ("Some", "None"):
                fail(f'{{"tag": "Some"|"None", "value": ...}} for {t}')
            return None if j["tag"] == "None" else self.decode(t.inner, j.get("value"), where)
        if isinstance(t, BoolT):
            if not isinstance(j, bool):
                fail("true or false")
            return j
        if isinstance(t, (IntT, PlayerT)):
            if isinstance(j, dict) and set(j) == {"#bigint"}:
                try:
                    v = int(j["#bigint"])
                except (TypeError, ValueError):
                    fail('{"#bigint": "<digits>"}')
            elif isinstance(j, int) and not isinstance(j, bool):
                v = j
            else:
                fail(f'a number {{"#bigint": "..."}} of {t}')
            limit = (0, self.dom.players - 1) if isinstance(t, PlayerT) else (t.lo, t.hi)
            if (limit[0] is not None and v < limit[0]) or (limit[1] is not None and v > limit[1]):
                fail(f"a value in {t if isinstance(t, IntT) else f'0..{self.dom.players - 1}'}")
            return v
        if isinstance(t, EnumT):
            if j not in t.values:
                fail(f"one of {', '.join(t.values)}")
            return t.values.index(j)
        if isinstance(t, RecordT):
            if not isinstance(j, dict) or set(j) != {n for n, _ in t.fields}:
                fail(f"a {t.name} record with fields {', '.join(n for n, _ in t.fields)}")
            return record_kind(t, [self.decode(ft, j[n], f"{where}.{n}") for n, ft in t.fields], self.dom)
        if isinstance(t, SetT):
            if not isinstance(j, dict) or not isinstance(j.get("#set"), list):
                fail('{"#set": [...]}')
            return frozenset(self.decode(t.elem, x, f"{where}[{i}]") for i, x in enumerate(j["#set"]))
        if isinstance(t, (OrderT, ListT, PileT)):
            if not isinstance(j, list):
                fail("a list")
            items = [self.decode(t.elem, x, f"{where}[{i}]") for i, x in enumerate(j)]
            if isinstance(t, OrderT) and sorted(items, key=lambda x: self.dom.index(t.elem, x)) != self.dom.values(t.elem):
                fail(f"an order of every value of {t.elem}, each once")
            return items if isinstance(t, PileT) else tuple(items)
        if isinstance(t, BagT):
            if not isinstance(j, dict) or not isinstance(j.get("#map"), list):
                fail('{"#map": [[card, count], ...]}')
            bag = [0] * self.dom.size(t.elem)
            for i, pair in enumerate(j["#map"]):
                if not isinstance(pair, list) or len(pair) != 2:
                    fail("[card, count] pairs")
                card = self.decode(t.elem, pair[0], f"{where}[{i}]")
                n = self.decode(IntT(0, None), pair[1], f"{where}[{i}] count")
                bag[self.dom.index(t.elem, card)] += n
            return bag
        if isinstance(t, MapT):
            if not isinstance(j, dict) or not isinstance(j.get("#map"), list):
                fail('{"#map": [[key, value], ...]}')
            keys = self.dom.values(t.key)
            out = [None] * len(keys)
            for i, pair in enumerate(j["#map"]):
                if not isinstance(pair, list) or len(pair) != 2:
                    fail("[key, value] pairs")
                k = self.decode(t.key, pair[0], f"{where} key {i}")
                out[self.dom.index(t.key, k)] = self.decode(t.value, pair[1], f"{where}[{json.dumps(pair[0])}]")
            if any(x is None for x in out) and not isinstance(t.value, OptT):
                fail(f"a value for every key of {t.key}")
            return out
        if isinstance(t, TupleT):
            if not isinstance(j, dict) or not isinstance(j.get("#tup"), list) or len(j["#tup"]) != len(t.elems):
                fail('{"#tup": [...]}')
            return tuple(self.decode(et, x, where) for et, x in zip(t.elems, j["#tup"]))
        raise ItfError(f"cannot decode a value of type {t}")


# ---- changes between two states --------------------------------------------------------------

def describe_changes(spec: ir.Spec, dom: Domains, before: list, after: list) -> list[str]:
    """What a step changed, one line per variable or zone, e.g. `hand[P1]: -Card(hearts, 3)`."""
    out: list[str] = []
    for var, a, b in zip(spec.state, before, after):
        if a == b:
            continue
        diff_value(var.name, var.type, a, b, dom, out)
    return out


def diff_value(name: str, t: Type, a, b, dom: Domains, out: list[str]):
    """What differs from a to b in a variable (name) of type t, appended to out as lines: a map per key, a
    bag per card (+ more, - fewer), a pile by its size and top, another value as a -> b."""
    if isinstance(t, MapT):
        for k, x, y in zip(dom.values(t.key), a, b):
            if x != y:
                diff_value(f"{name}[{format_value(t.key, k, dom)}]", t.value, x, y, dom, out)
        return
    if isinstance(t, BagT):
        values = dom.values(t.elem)
        parts = []
        for k, (x, y) in enumerate(zip(a, b)):
            if x != y:
                card = format_value(t.elem, values[k], dom)
                d = y - x
                parts.append(("+" if d > 0 else "-") + (f"{abs(d)} of " if abs(d) > 1 else "") + card)
        if len(parts) > 6:
            added = sum(max(y - x, 0) for x, y in zip(a, b))
            removed = sum(max(x - y, 0) for x, y in zip(a, b))
            out.append(f"{name}: +{added} -{removed} cards (now {sum(b)})")
        else:
            out.append(f"{name}: " + ", ".join(parts))
        return
    if isinstance(t, PileT):
        top = format_value(t.elem, b[-1], dom) if b else "empty"
        had, has = collections.Counter(map(repr, a)), collections.Counter(map(repr, b))
        if len(a) == len(b) and had != has:  # other cards, as many
            gone, came = had - has, has - had
            show = {repr(c): format_value(t.elem, c, dom) for c in list(a) + list(b)}
            out.append(f"{name}: " + ", ".join([f"-{show[k]}" for k in gone.elements()]
                                               + [f"+{show[k]}" for k in came.elements()]) + f" ({len(b)} cards)")
        elif len(a) == len(b):
            out.append(f"{name}: reordered ({len(b)} cards, top {top})")
        else:
            out.append(f"{name}: {len(a)} -> {len(b)} cards" + (f" (top {top})" if b else ""))
        return
    out.append(f"{name}: {format_value(t, a, dom)} -> {format_value(t, b, dom)}")


# ---- positions inside a JSON file --------------------------------------------------------------

def state_offsets(text: str) -> list[int]:
    """Character offsets of the elements of the top-level "states" array (for diagnostics)."""
    depth, i, n = 0, 0, len(text)
    last_string = None
    level = None  # the depth of the elements of "states" while inside it; -1 once closed
    offsets: list[int] = []
    while i < n:
        ch = text[i]
        if ch == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            last_string = text[i + 1:j]
            i = j + 1
            continue
        if ch in "[{":
            if level is not None and depth == level:
                offsets.append(i)
            if ch == "[" and depth == 1 and last_string == "states" and level is None:
                level = depth + 1
            depth += 1
        elif ch in "]}":
            depth -= 1
            if level is not None and level > 0 and depth == level - 1:
                level = -1
        i += 1
    return offsets


def write_new(paths, text: str, flag: str) -> tuple[str, object]:
    """Write text into a new file: the first of paths that nothing has (not even a link to
    nothing), never replacing a file. Where the system refuses it (a full disk, a folder that
    takes no files: checked before the work, so rare) or every name is taken, the text is kept in a
    new file of the system's temporary folder instead, so that the work is not lost: returns (the
    path written, None) or (that path, an E008 diagnostic saying where it went and why)."""
    import tempfile

    wanted, why = None, "the file exists"
    for path in paths:
        wanted = wanted or path
        if os.path.lexists(path):
            continue
        try:
            f = open(path, "x", encoding="utf-8")
        except FileExistsError:  # (made since: taken)
            continue
        except OSError as exc:
            wanted, why = path, exc.strerror or str(exc)
            break
        try:
            with f:
                f.write(text)
            return path, None
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.remove(path)  # (ours, cut short)
            wanted, why = path, exc.strerror or str(exc)
            break
    fd, kept = tempfile.mkstemp(prefix="rulespec-", suffix=".itf.json")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    return kept, error("E008", f"{flag}: cannot write '{wanted}': {why}; the trace is kept in '{kept}' instead",
                       hint="move the trace where you want it" if why == "the file exists" else
                       "choose a folder you can write in, and move the trace there")

"""Replay a saved ITF trace against a spec: where it stops being legal, and why.

A trace that does not fit the rules (an illegal move, a state that differs from what the rules
give, an unknown action) is the user's input being wrong: a diagnostic pointing into the trace
file, exit 2. A trace that fits and shows a violation or a run-time error is a finding: exit 1.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from . import ir
from .backends.interpreter import ParamError, Program
from .backends.runtime import Fault, Gap
from .diagnostics import UserError, did_you_mean, error
from .parse import MAX_BYTES, read_text
from .source import SourceFile, Span, json_steps, snippet
from .trace import ItfCodec, ItfError, Trace, TraceStep, describe_changes, diff_value, moves_text
from .types import Domains, format_value


@dataclass
class ReplayResult:
    trace: Trace
    outcome: dict
    problem: bool

    def summary(self) -> str:
        o = self.outcome
        kind = o["kind"]
        n = len(self.trace)
        text = {
            "end": f"replayed {moves_text(n)}: every move legal; the game ended ({o.get('end')})",
            "open": f"replayed {moves_text(n)}: every move legal; the game goes on",
            "gap": f"replayed {moves_text(n)}: the last reaches an undecided point: {o.get('reason')}",
            "fault": f"replayed {moves_text(n)}: run-time error of the spec {_at(o)}: {o.get('message')}",
            "deadlock": f"replayed {moves_text(n)}: every move legal, but no move is left and the game has not ended (deadlock)",
        }[kind]
        for v in o.get("violations", []):
            tag = "expected: " if v["expected"] else ""
            text += f"\n  {tag}{v['property']} violated from move {v['step']}: {v['message']}"
        return text

    def to_json(self) -> dict:
        return {"ok": not self.problem, "outcome": self.outcome, "trace": self.trace.to_json()}


def _at(o: dict) -> str:
    """Where a replay's run-time error came: `at move 3`, `after move 3` (evaluating the end
    conditions or listing the moves after it), `after the setup`."""
    if not o.get("after"):
        return f"at move {o.get('step')}"
    return f"after move {o['step']}" if o.get("step") else "after the setup"


def _read(path: str) -> tuple[SourceFile, dict]:
    source = read_text(path, "a trace", 50 * MAX_BYTES, "pass an ITF JSON trace written by rulespec")
    try:
        doc = json.loads(source.text)
    except json.JSONDecodeError as exc:
        span = Span(path, exc.lineno, exc.colno, exc.lineno, exc.colno + 1)
        raise UserError(error("E007", f"not valid JSON: {exc.msg}", span, hint="an ITF trace is a JSON object")) from None
    except ValueError:  # (a number of more than 4,300 digits)
        raise UserError(error("E007", "not an ITF trace: a number of more than 4,300 digits", Span(path, 1, 1, 1, 2),
                              hint="an ITF trace writes a big integer as {\"#bigint\": \"<digits>\"}")) from None
    except RecursionError:
        raise UserError(error("E007", "not an ITF trace: nested too deep to read", Span(path, 1, 1, 1, 2),
                              hint="pass a trace written by `rulespec simulate --save-traces` or `play --save-trace`")) from None
    # (an empty list: a game whose setup stopped, at a run-time error or an undecided point)
    if not isinstance(doc, dict) or not isinstance(doc.get("states"), list):
        raise UserError(error("E007", "not an ITF trace: no \"states\" list", Span(path, 1, 1, 1, 2),
                              hint="pass a trace written by `rulespec simulate --save-traces` or `play --save-trace`"))
    return source, doc


# the outcomes a trace rulespec writes can have (Trace.outcome of simulate, fuzz and play); only a
# run-time error or an undecided point stops a game at a move, kept as "move" (no state after it)
OUTCOME_KINDS = ("end", "open", "violation", "deadlock", "gap", "fault")
STOPPING_KINDS = ("gap", "fault")


def replay(spec: ir.Spec, path: str) -> ReplayResult:
    source, doc = _read(path)
    states = doc["states"]

    def bad(message: str, i: int | None, hint: str | None = None, key: tuple = ()):
        """E007 at the key `key` (a path of keys) of state i (None: of the whole trace), or where the
        trace has no such key, at the deepest part of that path it has."""
        if i is None:
            base: tuple = ()
        elif i < len(states):
            base = ("states", i)
        else:  # the move that stopped the game, kept in "#meta"
            base = ("#meta", "outcome", "move")
        found = json_steps(source.text, base + tuple(key))  # (the deepest step the trace has: its key)
        span = source.span_within_line(*found[-1][0]) if found else Span(path, 1, 1, 1, 2)
        context = None if i is None else f"trace state {i}" if i < len(states) else 'the trace\'s "#meta".outcome.move'
        raise UserError(error("E007", message, span, hint=hint, context=context))

    if "#meta" in doc and not isinstance(doc["#meta"], dict):
        bad(f'the trace\'s "#meta" is {_a(doc["#meta"])}, not an object', None,
            hint='"#meta" is an object: {"game": ..., "players": N, "seed": ..., "params": {...}}', key=("#meta",))
    meta = doc.get("#meta", {})
    players = meta.get("players")
    if not isinstance(players, int) or isinstance(players, bool):
        bad('the trace\'s "#meta" gives no "players" count', None, hint='add "players": N to "#meta"',
            key=("#meta", "players"))
    if not spec.min_players <= players <= spec.max_players:
        bad(f"the trace is for {players} players; {spec.game} is for {spec.min_players} to {spec.max_players}", None,
            hint="pass the spec the trace was written for", key=("#meta", "players"))
    for name, types in (("game", (str,)), ("edition", (str, type(None)))):
        if name in meta and not isinstance(meta[name], types):
            bad(f'the trace\'s "#meta" has "{name}": {_a(meta[name])}, not a name', None,
                hint=f'"{name}" names the {name} the trace was written for', key=("#meta", name))
    if isinstance(meta.get("game"), str) and meta["game"] != spec.game:
        bad(f"the trace is of the game {meta['game']}, not of {spec.game}", None,
            hint="pass the spec the trace was written for", key=("#meta", "game"))
    if isinstance(meta.get("edition"), str) and spec.edition and meta["edition"] != spec.edition:
        bad(f"the trace is of the edition {meta['edition']}, not {spec.edition}", None,
            hint="pass the spec the trace was written for", key=("#meta", "edition"))
    if "seed" in meta and not isinstance(meta["seed"], str):  # (it was converted: 5 and "5" start one game)
        bad(f'the trace\'s "#meta" has "seed": {_a(meta["seed"])}, not a string', None,
            hint='"seed" is the text the game was started from, as rulespec writes it: "5", not 5',
            key=("#meta", "seed"))
    seed = meta.get("seed", "0")
    program = Program(spec, players)
    dom = Domains(players)
    codec = ItfCodec(dom)
    params = None
    if "params" in meta:
        given = meta["params"]
        if not isinstance(given, dict):
            bad(f'the trace\'s "#meta" has "params": {_a(given)}; "params" must be an object', None,
                hint='"params": {"<parameter>": <value>, ...}, or leave "params" out to draw them from the seed',
                key=("#meta", "params"))
        names = [p.name for p in spec.params]
        for key in given:  # a misspelt parameter was ignored: the game played drew it from the seed
            if key not in names:
                if not names:
                    bad(f"the trace gives the parameter '{key}', but {spec.game} has no parameters", None,
                        hint='leave "params" empty', key=("#meta", "params", key))
                bad(f"the trace gives the parameter '{key}', which is no parameter of {spec.game}", None,
                    hint=did_you_mean(key, names) or f"its parameters: {', '.join(names)}",
                    key=("#meta", "params", key))
        if spec.params:
            params = []
            for p in spec.params:
                if p.name not in given:
                    bad(f'"#meta" has no value for parameter {p.name}', None, key=("#meta", "params"),
                        hint=f'give every parameter of {spec.game} a value, or leave "params" out to draw them from the seed')
                try:
                    params.append(codec.decode(p.type, given[p.name], f"parameter {p.name}"))
                except ItfError as exc:
                    bad(exc.message, None, key=("#meta", "params", p.name),
                        hint="a value of the parameter's type, as rulespec writes it in a trace")
    # the outcome the trace says the game had (checked against the replay where a move stopped it)
    told = meta.get("outcome")
    if "outcome" in meta:
        if not isinstance(told, dict):
            bad(f'the trace\'s "#meta" has "outcome": {_a(told)}, not an object', None,
                hint='"outcome": {"kind": ..., ...}, as rulespec writes it, or leave it out', key=("#meta", "outcome"))
        kind = told.get("kind")
        if kind not in OUTCOME_KINDS or not isinstance(kind, str):
            shown = f"the kind '{kind}'" if isinstance(kind, str) else f'"kind": {_a(kind)}' if "kind" in told \
                else 'no "kind"'
            bad(f'the trace\'s "#meta" "outcome" has {shown}; rulespec writes {", ".join(OUTCOME_KINDS)}', None,
                hint=(did_you_mean(kind, OUTCOME_KINDS) if isinstance(kind, str) else None)
                or "the trace was written by another program, or edited",
                key=("#meta", "outcome", "kind"))
        if kind == "violation" and not isinstance(told.get("property", ""), str):
            bad(f'the trace\'s "#meta" "outcome" has "property": {_a(told["property"])}, not a name', None,
                hint='"property" names the property the game broke, as rulespec writes it',
                key=("#meta", "outcome", "property"))
        if "move" in told and kind not in STOPPING_KINDS:
            bad(f'the trace\'s "#meta" "outcome" has a "move", but is of the kind {kind}: only a run-time error '
                "(fault) or an undecided point (gap) stops a game at a move", None,
                hint="the trace was edited", key=("#meta", "outcome", "move"))
    try:
        game = program.start(seed, params)
    except ParamError as exc:
        bad(str(exc), None, key=("#meta", "params"), hint="values that meet the parameters' `where` in the spec")
    except (Gap, Fault) as exc:
        if doc["states"]:  # (a trace of such a game has no state)
            what = "an undecided point" if isinstance(exc, Gap) else f"a run-time error ({exc.message})"
            bad(f"the trace has states, but the setup stops at {what} here", None,
                hint="the trace was written for other rules or another seed", key=("states",))
        if isinstance(exc, Gap):
            u = spec.undecided[exc.id]
            outcome = {"kind": "gap", "step": 0, "reason": u.reason, "violations": []}
            _as_told(told, outcome, bad)
            empty = Trace(spec, players, seed, params or [], [], [], {"kind": "gap", "reason": u.reason})
            return ReplayResult(empty, outcome, False)
        outcome = {"kind": "fault", "step": 0, "message": exc.message, "violations": []}
        _as_told(told, outcome, bad)
        empty = Trace(spec, players, seed, params or [], [], [], {"kind": "fault"})
        return ReplayResult(empty, outcome, True)
    if not states:
        bad("the trace has no states (a game whose setup stopped), but the setup plays through here", None,
            hint="pass a trace written by `rulespec simulate --save-traces` or `play --save-trace` for this spec",
            key=("states",))
    if not isinstance(states[0], dict):
        bad("state 0 is not an object", 0)
    _compare(spec, codec, states[0], game.S, 0, bad)
    steps: list[TraceStep] = []
    snapshots = [game.snapshot()]
    violations = []
    outcome: dict = {"kind": "open"}
    # the move that stopped the game, after the last state (a run-time error or an undecided point)
    stop = told.get("move") if told is not None else None
    if stop is not None and not isinstance(stop, dict):
        bad('"#meta"\'s "outcome" has a "move" that is not an object', None, key=("#meta", "outcome", "move"))

    def stops_as(st, label: str, kind: str, what: str) -> None:
        """The trace's stopping move (st) stops the game the way the trace says."""
        if st is stop and told.get("kind") != kind:
            bad(f"the trace's last move, {label}, stops the game ({told.get('kind')}), but {what} "
                "stops it here", None, hint="the trace was written for other rules", key=("#meta", "outcome", "kind"))

    for i in range(1, len(states) + (stop is not None)):
        st = states[i] if i < len(states) else stop
        if not isinstance(st, dict):
            bad(f"state {i} is not an object", i)
        name = st.get("mbt::actionTaken")
        taken = ("mbt::actionTaken",)
        if not isinstance(name, str):
            bad(f'state {i} has no "mbt::actionTaken": which move led to it?', i, key=taken)
        if name not in program.action_index:
            bad(f"state {i}: unknown action '{name}'", i, hint=did_you_mean(name, program.action_index), key=taken)
        index = program.action_index[name]
        action = spec.actions[index]
        picks = st.get("mbt::nondetPicks", {})
        if not isinstance(picks, dict):
            bad(f'state {i}: "mbt::nondetPicks" must map argument names to values', i, key=("mbt::nondetPicks",))
        args = []
        pnames = [pname for pname, _t in action.params]
        for key in picks:  # a misspelt argument was ignored, and the move checked without it
            if key not in pnames:
                bad(f"state {i}: {name} has no argument '{key}'", i, hint=did_you_mean(key, pnames),
                    key=("mbt::nondetPicks", key))
        for pname, ptype in action.params:
            if pname not in picks:
                bad(f"state {i}: {name} needs the argument '{pname}'", i, key=("mbt::nondetPicks",))
            try:
                args.append(codec.decode(ptype, picks[pname], f"state {i}: argument {pname}"))
            except ItfError as exc:
                bad(exc.message, i, key=("mbt::nondetPicks", pname))
        move = (index, tuple(args))
        label = program.move_label(move)
        try:  # (the end conditions and the move's guard, evaluated: the game the trace shows did)
            end = game.ended()
            failing = game.failing_conjunct(move) if end is None else -1
        except Fault as exc:
            outcome = _after(program, exc, i - 1)
            break
        if end is not None:
            bad(f"state {i}: {label} comes after the end of the game ({end.name})", i,
                hint="the trace stops being legal here", key=taken)
        if failing >= 0:
            cond = action.guard[failing]
            bad(f"state {i}: {label} is not legal: `{snippet(cond.span)}` is false", i,
                hint="the trace stops being legal here; earlier moves replay", key=taken)
        before = snapshots[-1]
        try:
            found = game.step(move)
        except Gap as exc:
            stops_as(st, label, "gap", "an undecided point")
            u = spec.undecided[exc.id]
            steps.append(TraceStep(i, name, move[1], label, action.cite, [f"reaches an undecided point: {u.reason}"]))
            outcome = {"kind": "gap", "step": i, "reason": u.reason, "cite": u.cite.to_json() if u.cite else None}
            break
        except Fault as exc:
            stops_as(st, label, "fault", "a run-time error")
            steps.append(TraceStep(i, name, move[1], label, action.cite, [f"run-time error: {exc.message}"]))
            outcome = {"kind": "fault", "step": i, "message": exc.message, "where": str(program.span(exc.span_id))}
            break
        if st is stop:
            bad(f"the trace's last move, {label}, stops the game ({told.get('kind')}: "
                f"{told.get('message') or told.get('reason')}), but it plays through here", None,
                hint="the trace was written for other rules", key=("#meta", "outcome", "kind"))
        after = game.snapshot()
        snapshots.append(after)
        steps.append(TraceStep(i, name, move[1], label, action.cite, describe_changes(spec, dom, before, after)))
        _compare(spec, codec, st, game.S, i, bad)
        for v in found:
            if all(x["property"] != v.prop.name for x in violations):
                violations.append({"step": i, "property": v.prop.name, "message": v.message,
                                   "expected": v.prop.expect_violated})
    if outcome["kind"] == "open":
        try:
            outcome = game.stopped() or outcome
        except Fault as exc:
            outcome = _after(program, exc, len(steps))
    outcome["violations"] = violations
    _as_told(told, outcome, bad)
    trace = Trace(spec, players, seed, game.params, steps, snapshots, outcome)
    problem = outcome["kind"] in ("fault", "deadlock") or any(not v["expected"] for v in violations)
    return ReplayResult(trace, outcome, problem)


def _after(program: Program, exc: Fault, i: int) -> dict:
    """The outcome of a run-time error after move i (0: after the setup), in the end conditions or
    in listing the legal moves: the game the trace shows stopped there too (simulate, play)."""
    return {"kind": "fault", "step": i, "after": True, "message": exc.message, "where": str(program.span(exc.span_id))}


def _told(o: dict) -> str:
    """What an outcome says of the game, for a message: `ended (game_over)`, `goes on`."""
    kind = o.get("kind")
    return {"end": f"ended ({o.get('end')})" if isinstance(o.get("end"), str) else "ended", "open": "goes on",
            "deadlock": "has no move left (a deadlock)",
            "violation": f"breaks {o.get('property')}" if isinstance(o.get("property"), str) else "breaks a property",
            "gap": "stops at an undecided point", "fault": "stops at a run-time error"}[kind]


def _as_told(told: dict | None, outcome: dict, bad) -> None:
    """E007 where the trace's "#meta" outcome is not what the replay gives: the game it ended (and
    at which end), went on, had no move left, stopped, or broke the property it names. (A trace's
    outcome is a violation where the game broke a property, whatever came after, unless it stopped:
    simulate's record_trace.)"""
    if told is None:
        return
    kind, real = told.get("kind"), outcome["kind"]
    broken = {v["property"] for v in outcome.get("violations", [])}
    if kind == "violation":
        # (a game stopped at a move is not one that broke a property; a trace of a violation does
        # not look at the end conditions and the moves after its last move: a run-time error there fits)
        went_on = real not in ("gap", "fault") or outcome.get("after", False)
        fits = went_on and told.get("property", next(iter(broken), None)) in broken
        shown = ("breaks no property" if not broken else f"breaks only {', '.join(sorted(broken))}") \
            if went_on else _told(outcome)
    else:
        fits = kind == real and not (kind == "end" and isinstance(told.get("end"), str) and told["end"] != outcome.get("end"))
        shown = _told(outcome)
    if not fits:
        bad(f'the trace\'s "#meta" says the game {_told(told)}, but replayed here it {shown}', None,
            hint="the trace was written for other rules or another seed, or was edited", key=("#meta", "outcome"))


def _compare(spec: ir.Spec, codec: ItfCodec, recorded: dict, state: list, i: int, bad) -> None:
    """Check the variables a trace records in state i against the interpreter's state. A variable it
    leaves out is not checked; a name that is no variable is an error (a misspelt one was ignored,
    so the state it meant went unchecked)."""
    names = [var.name for var in spec.state]
    for key in recorded:
        if not key.startswith(("#", "mbt::")) and key not in names:
            bad(f"state {i}: '{key}' is not a variable of {spec.game}", i, hint=did_you_mean(key, names), key=(key,))
    for var, value in zip(spec.state, state):
        if var.name not in recorded:
            continue
        try:
            given = codec.decode(var.type, recorded[var.name], f"state {i}: {var.name}")
        except ItfError as exc:
            bad(exc.message, i, key=(var.name,))
        if given != value:
            shown = format_value(var.type, given, codec.dom)
            real = format_value(var.type, value, codec.dom)
            hint = "the trace was written for other rules or another seed, or was edited"
            if len(shown) + len(real) > 120:  # where they differ, not two cut-off values
                lines: list[str] = []
                diff_value(var.name, var.type, value, given, codec.dom, lines)
                bad(f"state {i}: {var.name} is not what the rules give; from the rules' value to the trace's: "
                    + "; ".join(lines[:4]) + (f"; and {len(lines) - 4} more" if len(lines) > 4 else ""), i, hint=hint,
                    key=(var.name,))
            bad(f"state {i}: {var.name} is {shown} in the trace, but {real} by the rules", i, hint=hint, key=(var.name,))


def _a(value) -> str:
    """What a JSON value is, for a message: `a number (5)`, `a list`, `null`."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"a boolean ({json.dumps(value)})"
    if isinstance(value, (int, float)):
        return f"a number ({value})" if len(str(value)) <= 20 else "a number"
    if isinstance(value, str):
        return f"a string ({json.dumps(value, ensure_ascii=False)})" if len(value) <= 30 else "a string"
    return "a list" if isinstance(value, list) else "an object"

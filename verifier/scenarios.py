"""Run a spec's scenarios (rulings): ir.Scenario -> ScenarioResult, through the interpreter.

A scenario fixes the player count, a seed and some parameters, arranges the state in `setup`,
plays moves that must be legal, and checks what the rulebook prescribes afterwards. Every
invariant is checked after every move; a violated one fails the scenario unless the spec marks
the property as expected to fail.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from . import ir
from .backends.interpreter import Game, ParamError, Program
from .backends.runtime import Fault, Gap
from .source import Span, snippet
from .types import OrderT


@dataclass
class ScenarioResult:
    scenario: ir.Scenario
    ok: bool
    message: str = ""
    span: Span | None = None
    moves: int = 0
    log: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return {"name": self.scenario.name, "ok": self.ok, "message": self.message,
                "where": self.span.to_json() if self.span else None,
                "cite": self.scenario.cite.to_json() if self.scenario.cite else None, "moves": self.moves}


class _Fail(Exception):
    def __init__(self, message: str, span: Span | None):
        super().__init__(message)
        self.message = message
        self.span = span


def run_scenarios(spec: ir.Spec, programs: dict[int, Program] | None = None) -> list[ScenarioResult]:
    programs = programs if programs is not None else {}
    results = []
    for sc in spec.scenarios:
        if sc.players not in programs:
            programs[sc.players] = Program(spec, sc.players)
        results.append(run_scenario(programs[sc.players], sc))
    return results


def run_scenario(program: Program, sc: ir.Scenario) -> ScenarioResult:
    log: list[str] = []
    moves = 0
    try:
        try:
            game = _start(program, sc)
        except Gap as exc:
            raise _Fail(f"the setup reaches an undecided point: {program.spec.undecided[exc.id].reason}", sc.span)
        gap = None
        setup_checked = False
        for step in sc.steps:
            if isinstance(step, ir.SetParam):
                continue
            if isinstance(step, ir.Setup):
                try:
                    program.gen.compile_block(step.body)(game.S, game.P, game.chance)
                except Gap as exc:
                    raise _Fail(f"the setup reaches an undecided point: {program.spec.undecided[exc.id].reason}",
                                step.span)
                game._update_bounds_trigger()  # a bound whose condition the arranged state meets counts from here, as after init
                log.append("setup")
                continue
            if not setup_checked:  # the arranged state must be one the invariants allow
                setup_checked = True
                _check_setup(program, game, step.span)
            if isinstance(step, ir.Do):
                if gap is not None:
                    raise _Fail(f"a move follows the undecided point '{gap}'", step.span)
                move = _move(program, game, step)
                label = program.move_label(move)
                failing = game.failing_conjunct(move)
                if step.illegal:
                    if game.ended() is not None:
                        log.append(f"illegal {label} (as expected: the game has ended)")
                        continue
                    if failing < 0:
                        raise _Fail(f"{label} should be illegal here, but the rules allow it", step.span)
                    log.append(f"illegal {label} (as expected: {_conjunct(program, move, failing)} is false)")
                    continue
                if game.ended() is not None:
                    raise _Fail(f"{label}: the game has already ended ({game.ended().name})", step.span)
                if failing >= 0:
                    raise _Fail(f"{label} is not legal: {_conjunct(program, move, failing)} is false", step.span)
                try:
                    violations = game.step(move)
                except Gap as exc:
                    gap = program.spec.undecided[exc.id].reason
                    log.append(f"{label} -> undecided: {gap}")
                    moves += 1
                    continue
                moves += 1
                log.append(label)
                bad = [v for v in violations if not v.prop.expect_violated]
                if bad:
                    raise _Fail(f"after {label}: {bad[0].prop.kind} {bad[0].prop.name} is violated ({bad[0].message})",
                                step.span)
            elif isinstance(step, ir.ExpectStep):
                if gap is not None:
                    raise _Fail(f"the last move reached an undecided point ('{gap}'); there is no state to check",
                                step.span)
                if not program.gen.compile_expr(step.expr)(game.S, game.P):
                    raise _Fail(f"expected {snippet(step.expr.span)}, but it is false", step.span)
            elif isinstance(step, ir.ExpectGap):
                if gap is None:
                    raise _Fail("expected the last move to reach an undecided point, but the rules decided it",
                                step.span)
            elif isinstance(step, ir.ExpectEnd):
                end = game.ended()
                if end is None:
                    raise _Fail("expected the game to have ended, but it goes on", step.span)
                if step.name is not None and end.name != step.name:
                    raise _Fail(f"expected the end '{step.name}', but the game ended by '{end.name}'", step.span)
        if gap is not None and not any(isinstance(s, ir.ExpectGap) for s in sc.steps):
            raise _Fail(f"the scenario reaches an undecided point: {gap}", sc.span)
        return ScenarioResult(sc, True, "", None, moves, log)
    except _Fail as f:
        return ScenarioResult(sc, False, f.message, f.span, moves, log)
    except Fault as exc:
        span = program.span(exc.span_id)
        return ScenarioResult(sc, False, f"run-time error: {exc.message} (at {span})", span, moves, log)
    except ParamError as exc:
        return ScenarioResult(sc, False, str(exc), sc.span, moves, log)


def _check_setup(program: Program, game: Game, span) -> None:
    bad = [p for p, fn in program.invariants if not p.expect_violated and not fn(game.S, game.P)]
    if bad:
        raise _Fail(f"the state after setup breaks invariant {bad[0].name}: arrange a state the rules can reach",
                    span)


def _start(program: Program, sc: ir.Scenario) -> Game:
    spec = program.spec
    seed = f"scenario/{sc.name}/{sc.seed}"
    sets = [s for s in sc.steps if isinstance(s, ir.SetParam)]
    index = {p.name: i for i, p in enumerate(spec.params)}
    # A first draw gives the values the scenario's expressions are evaluated with; the parameters
    # the scenario fixes whole are then fixed before the others are drawn again, so that those
    # are drawn to satisfy their `where` conditions given the fixed ones.
    params = program.params_of(seed) if spec.params else []
    P = list(params) + [None] * len(spec.consts)
    whole: dict = {}
    entries = []
    for s in sets:
        value = program.gen.compile_expr(s.value)([], P)
        if isinstance(s.target.type, OrderT):
            if sorted(value) != program.domains.values(s.target.type.elem):
                raise _Fail(f"the value for {s.target.var} is not an order of every {s.target.type.elem}, "
                            "each exactly once", s.span)
            value = tuple(value)
        if not program.fits(s.target.type, value):
            raise _Fail(f"{program.format(s.target.type, value) if _shown(program, s.target.type, value) else value!r} "
                        f"is not a value of {s.target.type} with {program.players} players", s.span)
        if s.target.path:
            entries.append((s, value))
        else:
            whole[s.target.var] = value
    if whole:
        try:
            params = program.params_of(seed, whole)
        except ParamError:
            params = [whole.get(p.name, v) for p, v in zip(spec.params, params)]
        P = list(params) + [None] * len(spec.consts)
    for s, value in entries:
        i = index[s.target.var]
        container = P[i]
        t = spec.params[i].type
        for k, idx in enumerate(s.target.path):
            key = program.domains.index(t.key, program.gen.compile_expr(idx)([], P))
            if k == len(s.target.path) - 1:
                container[key] = value
            else:
                container, t = container[key], t.value
    for i, p in enumerate(spec.params):
        if p.where is not None and not program.ns[f"pwhere_{i}"](P):
            raise _Fail(f"parameter {p.name} does not satisfy its `where` condition", sc.span)
    return program.start(seed, P[:len(spec.params)])


def _shown(program, t, value) -> bool:
    try:
        program.format(t, value)
        return True
    except Exception:  # an ill-typed value cannot be formatted: show its repr
        return False


def _move(program: Program, game: Game, step: ir.Do):
    index = program.action_index[step.action]
    args = tuple(program.gen.compile_expr(a)(game.S, game.P) for a in step.args)
    action = program.spec.actions[index]
    for (name, t), v, a in zip(action.params, args, step.args):
        if not program.fits(t, v):
            raise _Fail(f"argument {name} = {v} is not a {t} with {program.players} players", a.span)
    return (index, args)


def _conjunct(program: Program, move, index: int) -> str:
    action = program.spec.actions[move[0]]
    c = action.guard[index]
    return f"`{snippet(c.span)}`" if c.span else f"condition {index + 1}"

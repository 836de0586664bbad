"""The Hypothesis back-end: Program -> a property-based test that plays one game per example.

Each example is one play, built from the choices Hypothesis makes, so that Hypothesis can
shrink a failing play to a short one:

    initialize   a seed for chance (shuffles) and the parameters, drawn by Hypothesis
    rule         one move per step: an action among those with a legal move, then one of that
                 action's legal moves (its arguments); the guard is the precondition
    invariant    every invariant, ranking and bound checked after every step (Game.step)

A play stops at an end state, at an `undecided` point (a gap: a finding of the spec, counted,
not a failure), or at the step limit. A fault, a deadlock, an unexpected violation or the step
limit raises a Failure whose class is unique to the finding's kind and place, so that Hypothesis
keeps one shrunk example per distinct finding. Violations the spec expects are counted.

Why not hypothesis.stateful.RuleBasedStateMachine itself: a game ends by its own rules, but a
state machine always runs `stateful_step_count` steps (no rule may stop it early), and it picks
rules through swarm-testing feature flags that switch off some rules for a whole example (a game
with `play_card` switched off stalls). A loop over `st.data()` draws the same choices with none
of that, and costs one or two choices per move.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from ..trace import moves_text
from ..types import BoolT, Domains, EnumT, IntT, MapT, OptT, OrderT, PlayerT, RecordT, SetT, TupleT, Type
from .interpreter import Game, Program
from .runtime import Fault, Gap


class Unsupported(Exception):
    """A parameter type that cannot be drawn choice by choice (the parameters then come from a seed)."""


# ---- values from choices -----------------------------------------------------------------
# Values are drawn choice by choice with the ConjectureData of st.data() rather than through
# strategies: a strategy marks its draws as a span, and Hypothesis's generator copies spans with
# the same label over each other (a map parameter holding twelve orders is twelve such spans). A
# copy changes the parameters, the game that follows needs other choices than those recorded, and
# the attempt runs out of choices: most of the test cases generated that way were wasted (on a
# shipped spec with such a parameter, 3 players, 1000 examples: 1566 test cases cut short).

def draw_value(cd, t: Type, dom: Domains):
    """A value of type t in the interpreter's representation, shrinking toward the first value of
    the type (false, none, the lowest number or 0 when in range, the first enum value, P0, the
    order of the values as declared, the empty set)."""
    if isinstance(t, BoolT):
        return cd.draw_boolean()
    if isinstance(t, IntT):
        if not t.finite:
            raise Unsupported(f"no choices for the unbounded type {t}")
        return cd.draw_integer(t.lo, t.hi)
    if isinstance(t, (EnumT, PlayerT, RecordT)):
        return cd.draw_integer(0, dom.size(t) - 1)
    if isinstance(t, OptT):
        return draw_value(cd, t.inner, dom) if cd.draw_boolean() else None
    if isinstance(t, SetT):
        return frozenset(v for v in dom.values(t.elem) if cd.draw_boolean())
    if isinstance(t, OrderT):
        rest = dom.values(t.elem)
        return tuple(rest.pop(cd.draw_integer(0, len(rest) - 1)) if len(rest) > 1 else rest.pop()
                     for _ in range(len(rest)))
    if isinstance(t, MapT):
        return [draw_value(cd, t.value, dom) for _ in range(dom.size(t.key))]
    if isinstance(t, TupleT):
        return tuple(draw_value(cd, x, dom) for x in t.elems)
    raise Unsupported(f"no choices for values of type {t}")


def drawable(program: Program) -> bool:
    """Whether every parameter can be drawn choice by choice."""
    def ok(t):
        if isinstance(t, IntT):
            return t.finite
        if isinstance(t, (BoolT, EnumT, PlayerT, RecordT, SetT, OrderT)):
            return True
        if isinstance(t, OptT):
            return ok(t.inner)
        if isinstance(t, MapT):
            return ok(t.value)
        if isinstance(t, TupleT):
            return all(ok(x) for x in t.elems)
        return False
    return all(ok(p.type) for p in program.spec.params)


def draw_params(cd, program: Program) -> list:
    """Parameters drawn by Hypothesis; when their `where` conditions fail, or a type cannot be
    drawn, a seed drawn by Hypothesis draws them the interpreter's way (rejection sampling)."""
    spec = program.spec
    if not spec.params:
        return []
    if drawable(program):
        values = [draw_value(cd, p.type, program.domains) for p in spec.params]
        P = values + [None] * len(spec.consts)
        try:
            program.ns["consts"](P)
        except (Fault, Gap) as exc:  # the setup's run-time error (play reports it), with these
            exc.params = values
            raise
        if all(program.ns[f"pwhere_{i}"](P) for i, p in enumerate(spec.params) if p.where is not None):
            return values
    k = cd.draw_integer(0, 2**32 - 1)
    return program.draw_params(random.Random(f"params/{k}"))


# ---- one play --------------------------------------------------------------------------------

class Failure(Exception):
    """A finding that fails the fuzz run; a subclass per kind and place (see failure_class)."""

    key = ""

    def __init__(self, play: "Play", kind: str, message: str, detail=None):
        super().__init__(f"{self.key}: {message}")
        self.play = play
        self.kind = kind
        self.message = message
        self.detail = detail  # the Violation, or the Fault


_CLASSES: dict[str, type] = {}


def failure_class(key: str) -> type:
    """Hypothesis tells failures apart by exception type and raising line: one class per key."""
    cls = _CLASSES.get(key)
    if cls is None:
        name = "Failure_" + "".join(ch if ch.isalnum() else "_" for ch in key)
        cls = type(name, (Failure,), {"key": key})
        _CLASSES[key] = cls
    return cls


@dataclass
class Play:
    """What one example did: where it started, its moves, and how it stopped."""

    seed: str
    params: list
    moves: list = field(default_factory=list)
    stop: str = "open"            # end | gap | failure | step_limit | open (cut short by Hypothesis)
    end: str | None = None
    gap: int | None = None        # the undecided point's id
    expected: list = field(default_factory=list)  # names of expected violations seen
    reached: set = field(default_factory=set)     # reachable properties that held at some point


def choose_move(cd, moves: list, by_action: bool = True):
    """One legal move from Hypothesis's choices (cd: the ConjectureData of st.data()).

    by_action: first the action (among those with a legal move, in the spec's order), then one of
    its moves. An action keeps its meaning when shrinking deletes an earlier step, where a flat
    index into all legal moves would point at another action; and actions get equal weight,
    whatever the number of argument combinations each has. A single candidate costs no choice.
    The choices are drawn with draw_integer (st.data().draw adds bookkeeping per draw that costs
    as much as an interpreter step); they shrink toward the first action and the first move. A
    move's choices are not marked as a span: Hypothesis's generator copies spans with the same
    label over each other, which in a game mostly yields choice sequences that run out before
    the game ends (Little Tricks, 50 examples: 42 such test cases wasted with spans, 16 without),
    and shrinking got no shorter with them.
    """
    if len(moves) == 1:
        return moves[0]
    if not by_action:
        return moves[cd.draw_integer(0, len(moves) - 1)]
    groups: list[list] = []
    last = None
    for m in moves:  # legal_moves() lists the moves of one action together, actions in order
        if m[0] != last:
            groups.append([])
            last = m[0]
        groups[-1].append(m)
    group = groups[cd.draw_integer(0, len(groups) - 1)] if len(groups) > 1 else groups[0]
    return group[cd.draw_integer(0, len(group) - 1)] if len(group) > 1 else group[0]


def play(data, program: Program, run_seed: str, max_steps: int, observe, by_action: bool = True):
    """One example: a game from Hypothesis's choices, checked after every step.

    `observe(play)` is called when the play stops by itself (end, gap, step limit) or fails; a
    Failure subclass is raised for a fault, deadlock, unexpected violation or the step limit.
    """
    cd = data.conjecture_data
    seed = f"{run_seed}/{cd.draw_integer(0, 2**32 - 1)}"
    p = Play(seed, [])
    try:
        p.params = draw_params(cd, program)
        game = program.start(seed, p.params)
    except Gap as exc:
        p.params = getattr(exc, "params", p.params)  # (a constant's: the parameters drawn)
        p.stop, p.gap = "gap", exc.id
        observe(p)
        return
    except Fault as exc:
        p.params = getattr(exc, "params", p.params)
        _fail(p, observe, "fault", _fault_key(program, exc), f"run-time error in the setup: {exc.message}", exc)
    _violations(p, observe, game.initial_violations())
    reachables = game.program.reachables
    _reached(p, game, reachables)
    pending = None
    try:
        for _ in range(max_steps):
            end = game.ended()
            if end is not None:
                p.stop, p.end = "end", end.name
                observe(p)
                return
            moves = game.legal_moves()
            if not moves:
                _fail(p, observe, "deadlock", "deadlock", "no legal move and the game has not ended")
            move = choose_move(cd, moves, by_action)
            pending = move
            found = game.step(move)
            pending = None
            p.moves.append(move)
            _violations(p, observe, found)
            if reachables:
                _reached(p, game, reachables)
    except Gap as exc:
        if pending is not None:  # the move that reached it (a guard or an end condition may too)
            p.moves.append(pending)
        p.stop, p.gap = "gap", exc.id
        observe(p)
        return
    except Fault as exc:
        if pending is not None:
            p.moves.append(pending)
        _fail(p, observe, "fault", _fault_key(program, exc), f"run-time error: {exc.message}", exc)
    if game.ended() is not None:
        p.stop, p.end = "end", game.ended().name
        observe(p)
        return
    _fail(p, observe, "step_limit", "step_limit", f"no end after {moves_text(max_steps)}")


def _fault_key(program: Program, exc: Fault) -> str:
    span = program.span(exc.span_id)
    return f"fault:{span.line}:{span.col}" if span else f"fault:{exc.span_id}"


def _reached(p: Play, game: Game, reachables):
    for prop, fn in reachables:
        if prop.name not in p.reached and fn(game.S, game.P):
            p.reached.add(prop.name)


def _violations(p: Play, observe, found):
    for v in found:
        if v.prop.expect_violated:
            if v.prop.name not in p.expected:
                p.expected.append(v.prop.name)
            continue
        _fail(p, observe, "violation", f"violation:{v.prop.name}", v.message, v)


def _fail(p: Play, observe, kind: str, key: str, message: str, detail=None):
    p.stop = "failure"
    observe(p)
    raise failure_class(key)(p, kind, message, detail)


__all__ = ["Failure", "Play", "choose_move", "draw_params", "draw_value", "drawable", "failure_class", "play",
           "Game"]

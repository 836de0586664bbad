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

from hypothesis import strategies as st

from ..types import BoolT, Domains, EnumT, IntT, MapT, OptT, OrderT, PlayerT, RecordT, SetT, TupleT, Type
from .interpreter import Game, Program
from .runtime import Fault, Gap


class Unsupported(Exception):
    """A parameter type with no strategy (the parameters are then drawn from the seed)."""


# ---- strategies for values ---------------------------------------------------------------

def value_strategy(t: Type, dom: Domains) -> st.SearchStrategy:
    """A strategy for values of type t in the interpreter's representation, shrinking toward the
    first value in the type's order (false, the lowest number, the first enum value, P0)."""
    if isinstance(t, BoolT):
        return st.booleans()
    if isinstance(t, IntT):
        if not t.finite:
            raise Unsupported(f"no strategy for the unbounded type {t}")
        return st.integers(t.lo, t.hi)
    if isinstance(t, (EnumT, PlayerT, RecordT)):
        return st.integers(0, dom.size(t) - 1)
    if isinstance(t, OptT):
        return st.none() | value_strategy(t.inner, dom)
    if isinstance(t, SetT):
        return st.frozensets(st.sampled_from(dom.values(t.elem)))
    if isinstance(t, OrderT):
        return st.permutations(dom.values(t.elem)).map(tuple)
    if isinstance(t, MapT):
        k = dom.size(t.key)
        return st.lists(value_strategy(t.value, dom), min_size=k, max_size=k)
    if isinstance(t, TupleT):
        return st.tuples(*(value_strategy(x, dom) for x in t.elems))
    raise Unsupported(f"no strategy for values of type {t}")


def params_strategy(program: Program) -> st.SearchStrategy | None:
    """Every parameter's value, as a list in declaration order (None when some type has none)."""
    try:
        parts = [value_strategy(p.type, program.domains) for p in program.spec.params]
    except Unsupported:
        return None
    return st.tuples(*parts).map(list)


def draw_params(data, program: Program, strategy) -> list:
    """Parameters drawn by Hypothesis; when their `where` conditions fail, or a type has no
    strategy, a seed drawn by Hypothesis draws them the interpreter's way (rejection sampling)."""
    spec = program.spec
    if not spec.params:
        return []
    if strategy is not None:
        values = data.draw(strategy, label="parameters")
        P = values + [None] * len(spec.consts)
        program.ns["consts"](P)
        if all(program.ns[f"pwhere_{i}"](P) for i, p in enumerate(spec.params) if p.where is not None):
            return values
    k = data.draw(st.integers(0, 2**32 - 1), label="parameter seed")
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


def play(data, program: Program, run_seed: str, params_strat, max_steps: int, observe, by_action: bool = True):
    """One example: a game from Hypothesis's choices, checked after every step.

    `observe(play)` is called when the play stops by itself (end, gap, step limit) or fails; a
    Failure subclass is raised for a fault, deadlock, unexpected violation or the step limit.
    """
    k = data.draw(st.integers(0, 2**32 - 1), label="seed")
    seed = f"{run_seed}/{k}"
    params = draw_params(data, program, params_strat)
    p = Play(seed, params)
    try:
        game = program.start(seed, params)
    except Gap as exc:
        p.stop, p.gap = "gap", exc.id
        observe(p)
        return
    except Fault as exc:
        _fail(p, observe, "fault", _fault_key(program, exc), f"run-time error in the setup: {exc.message}", exc)
    _violations(p, observe, game.initial_violations())
    reachables = game.program.reachables
    _reached(p, game, reachables)
    pending = None
    cd = data.conjecture_data
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
    _fail(p, observe, "step_limit", "step_limit", f"no end after {max_steps} moves")


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


__all__ = ["Failure", "Play", "choose_move", "draw_params", "failure_class", "params_strategy", "play",
           "value_strategy", "Game"]

"""The reference semantics: ir.Spec + player count -> Program; Program + seed -> Game.

A Game holds one play's state. legal_moves() lists every enabled action instance; step(move)
applies one and checks every invariant, ranking and bound after it. Randomness is seeded and
split in streams: `params` draws the unknown parameters, `chance` shuffles; a random player
uses a stream of its own, so replaying the same moves with the same seed gives the same game.
"""

from __future__ import annotations

import random
from copy import deepcopy
from dataclasses import dataclass, field

from .. import ir
from ..types import (BagT, BoolT, Domains, EnumT, IntT, MapT, OptT, OrderT, PileT, PlayerT, RecordT, SetT, Type,
                     format_value)
from .pycode import PyGen
from .runtime import Fault, Gap, copy

Move = tuple  # (action index, args tuple)


class Chance(random.Random):
    """A game's chance: random.Random, the same draws from the same seed, whose state save() takes
    lazily. getstate() copies 625 words (9 us, about what listing a state's legal moves takes),
    and most moves of an action that may shuffle do not (a pile refilled only once it runs out):
    keep(box) arms it, and the first draw after that puts the state from before the draw into box.
    Every draw goes through random() or getrandbits() (shuffle, choice and sample included)."""

    _box = None  # armed: the list the state goes into at the next draw

    def keep(self, box: list) -> None:
        self._box = box

    def release(self, box: list) -> None:
        """Disarm, if box is still the one armed."""
        if self._box is box:
            self._box = None

    def _take(self):
        box, self._box = self._box, None
        box.append(self.getstate())

    def random(self):
        if self._box is not None:
            self._take()
        return _RANDOM(self)

    def getrandbits(self, k):
        if self._box is not None:
            self._take()
        return _BITS(self, k)


_RANDOM, _BITS = random.Random.random, random.Random.getrandbits


class ParamError(Exception):
    """A parameter could not be drawn or set (its condition is unsatisfiable or the value does not fit):
    the user's spec, not a bug (the command line reports it as E305, at `span`)."""

    def __init__(self, message: str, span=None):
        super().__init__(message)
        self.span = span

    def __reduce__(self):  # (from a worker process of verify --jobs, with its span)
        return ParamError, (str(self), self.span)


@dataclass
class Violation:
    prop: ir.Property
    message: str


@dataclass
class Program:
    """A spec compiled for one player count."""

    spec: ir.Spec
    players: int
    forced: bool = False  # chance from a ForcedChance (to replay a prover's counterexample)
    ns: dict = field(init=False, repr=False)
    spans: list = field(init=False, repr=False)

    def __post_init__(self):
        if not self.spec.min_players <= self.players <= self.spec.max_players:
            raise ValueError(f"{self.spec.game} is for {self.spec.min_players} to {self.spec.max_players} players")
        gen = PyGen(self.spec, self.players, self.forced)
        self.ns = gen.build()
        self.gen = gen
        self.spans = gen.spans
        self.domains = gen.dom
        ns = self.ns
        acts = self.spec.actions
        self.action_index = {a.name: i for i, a in enumerate(acts)}
        self.guards = [ns[f"guard_{i}"] for i in range(len(acts))]
        self.applies = [ns[f"apply_{i}"] for i in range(len(acts))]
        self.enumerators = [ns[f"moves_{i}"] for i in range(len(acts))]
        self.legal = ns["legal"]  # every enumerator in the actions' order, by phase (PyGen.dispatch)
        self.choosers = [ns.get(f"by_{i}") for i in range(len(acts))]
        props = list(enumerate(self.spec.properties))
        self.invariants = [(p, ns[f"prop_{i}"]) for i, p in props if p.kind == "invariant"]
        # invariants of the parameters alone (a parameter's orders are complete): their value
        # cannot change within a game, so step() evaluates them once per game
        self.of_params = frozenset(i for i, (p, _fn) in enumerate(self.invariants) if not ir.reads(self.spec, p.expr))
        self.reachables = [(p, ns[f"prop_{i}"]) for i, p in props if p.kind == "reachable"]
        self.rankings = [(p, ns[f"while_{i}"], ns[f"rank_{i}"]) for i, p in props if p.kind == "terminates"]
        self.bounds = [(p, ns[f"trigger_{i}"], self.action_index[p.action]) for i, p in props if p.kind == "bound"]
        self.ends = [(e, ns[f"end_{i}"]) for i, e in enumerate(self.spec.ends)]
        self.stats = [(s, ns[f"stat_{i}"]) for i, s in enumerate(self.spec.stats)]
        self._defaults = [self.gen.default(v.type) for v in self.spec.state]
        # per action: the state slots a move of it may change, and whether it may use the chance
        # (Game.save: a move tried and taken back saves only these)
        self.written = [tuple(sorted(gen.slots[name] for name in ir.writes(self.spec, a.body))) for a in acts]
        self.chancy = [_reads_argument(fn, "R") for fn in self.applies]
        # per action: the invariants (by index) that read a state variable it may change; the
        # others keep their value across its moves (step(only=...))
        reads = [{gen.slots[name] for name in ir.reads(self.spec, p.expr)} for p, _fn in self.invariants]
        self.touched = [frozenset(i for i, r in enumerate(reads) if r.intersection(w)) for w in self.written]

    def new_state(self) -> list:
        return [copy(v) for v in self._defaults]

    # ---- parameters --------------------------------------------------------------------
    def params_of(self, seed: str, fixed=None) -> list:
        """The parameters a game from `seed` draws (unless given)."""
        return self.draw_params(random.Random(f"{seed}/params"), fixed)

    def draw_params(self, rng: random.Random, fixed=None) -> list:
        """Draw every parameter at random (those in `fixed` by name are given), then test `where`."""
        fixed = fixed or {}
        params = self.spec.params
        P = [None] * (len(params) + len(self.spec.consts))
        given = False
        for attempt in range(10000):
            for i, p in enumerate(params):
                P[i] = fixed[p.name] if p.name in fixed else self.random_value(p.type, rng)
            try:
                self.ns["consts"](P)  # a parameter's condition may use constants
            except (Fault, Gap) as exc:  # a setup's run-time error: the caller reports it, with these
                exc.params = P[:len(params)]
                raise
            if all(self.ns[f"pwhere_{i}"](P) for i, p in enumerate(params) if p.where is not None):
                return P
            if all(p.name in fixed for p in params if p.where is not None):
                given = True
                break
        failing = [p for i, p in enumerate(params) if p.where is not None and not self.ns[f"pwhere_{i}"](P)]
        bad, span = ", ".join(p.name for p in failing), failing[0].span if failing else None
        with_n = f" with {self.players} players"
        if given:  # every parameter with a condition was given: drawing again changes nothing
            raise ParamError(f"the values given do not satisfy the `where` condition of parameter {bad}{with_n}", span)
        # (a condition that holds for too few values to be met at random, or for none: not told apart)
        raise ParamError(f"none of 10,000 random draws of the parameters met the `where` condition of parameter {bad}"
                         f"{with_n} (it holds for few of their values, or for none)", span)

    def given_params(self, values) -> list | None:
        """values as the parameters of a game (a kept play's, read back from a file), or None where
        they are not one value per parameter of its type, or fail a `where` condition."""
        params = self.spec.params
        if not isinstance(values, list) or len(values) != len(params) \
                or not all(self.fits(p.type, v) for p, v in zip(params, values)):
            return None
        try:
            self.draw_params(random.Random(0), {p.name: v for p, v in zip(params, values)})
        except (ParamError, Fault, Gap):
            return None
        return list(values)

    def fits(self, t: Type, value) -> bool:
        """Whether `value` is a value of type t with this player count (for values given by users)."""
        if isinstance(t, MapT):
            return isinstance(value, list) and len(value) == self.domains.size(t.key) and all(
                self.fits(t.value, v) for v in value)
        if isinstance(t, OptT):
            return value is None or self.fits(t.inner, value)
        # (strictly: True and 1.0 are equal to 1 in Python, but are no value of a number or a player)
        if isinstance(t, OrderT):
            return isinstance(value, tuple) and sorted(map(repr, value)) == sorted(map(repr, self.domains.values(t.elem)))
        if isinstance(t, SetT):
            return isinstance(value, frozenset) and all(self.fits(t.elem, v) for v in value)
        if isinstance(t, IntT):
            return type(value) is int and (t.lo is None or t.lo <= value) and (t.hi is None or value <= t.hi)
        try:
            return any(type(v) is type(value) and v == value for v in self.domains.values(t))
        except TypeError:
            return True

    def random_value(self, t: Type, rng: random.Random):
        if isinstance(t, MapT):
            return [self.random_value(t.value, rng) for _ in range(self.domains.size(t.key))]
        if isinstance(t, OrderT):
            values = self.domains.values(t.elem)
            rng.shuffle(values)
            return tuple(values)
        if isinstance(t, SetT):
            return frozenset(v for v in self.domains.values(t.elem) if rng.random() < 0.5)
        if isinstance(t, IntT):
            return rng.randint(t.lo, t.hi)
        return rng.choice(self.domains.values(t))

    def start(self, seed, params: list | None = None, fixed_params: dict | None = None, chance=None,
              judged=None) -> "Game":
        """A new game from `seed` (any string or number); params are drawn unless given.

        `chance` replaces the seeded shuffles (a ForcedChance, with a Program built with forced=True).
        `judged`: the names of the rankings and bounds the game evaluates (None: all of them); a
        replay of one property's trace judges that one alone, so that another's run-time error in
        its evaluation does not stop the play.
        """
        return Game(self, str(seed), params, fixed_params, chance, judged)

    def at(self, S: list, P: list, seed: str, judged=None) -> "Game":
        """A game put into state S with parameters P (and the constants they give), its chance from
        `seed`: the setup is not run (a state given, as rulespec diff's witnesses are: a setup that
        faults, or meets an undecided point, for those parameters does not stand in the way)."""
        game = Game(self, str(seed), list(P[:len(self.spec.params)]), None, judged=judged, setup=False)
        game.S[:] = [copy(v) for v in S]  # as snapshot() copies a state
        return game

    def judging(self, kind: str, name: str = "") -> tuple[dict, set]:
        """(Game.step's keywords, start's judged) for a replay that judges property `name` of this
        kind alone: an invariant, or a ranking or bound (`terminates`, `bound`); nothing for any
        other kind (a reachability goal, an undecided point, a run-time error, a deadlock)."""
        if kind == "invariant":
            return {"only": {i for i, (q, _fn) in enumerate(self.invariants) if q.name == name},
                    "rankings": False}, set()
        if kind in ("terminates", "bound"):
            return {"only": set()}, {name}
        return {"check": False}, set()

    # ---- presentation ------------------------------------------------------------------
    def format(self, t: Type, value) -> str:
        return format_value(t, value, self.domains)

    def move_label(self, move: Move) -> str:
        a = self.spec.actions[move[0]]
        return f"{a.name}(" + ", ".join(self.format(t, v) for (_n, t), v in zip(a.params, move[1])) + ")"

    def span(self, span_id: int):
        return self.spans[span_id] if 0 <= span_id < len(self.spans) else None


class Game:
    """One play of a Program from a seed."""

    def __init__(self, program: Program, seed: str, params: list | None, fixed_params: dict | None, chance=None,
                 judged=None, setup: bool = True):
        self.program = program
        self.judged = None if judged is None else frozenset(judged)  # see Program.start
        self.seed = seed
        ns = program.ns
        if params is None:
            params = program.params_of(seed, fixed_params)
        self.P = list(params) + [None] * (len(program.spec.params) + len(program.spec.consts) - len(params))
        ns["consts"](self.P)
        self.chance = chance if chance is not None else Chance(f"{seed}/chance")
        self.S = program.new_state()
        self.moves: list[Move] = []
        self.bound_active = [False] * len(program.bounds)
        self.bound_counts = [0] * len(program.bounds)
        self._of_params = None
        if setup:  # (not: a caller puts the game into a state of its own, Program.at)
            ns["init"](self.S, self.P, self.chance)
            self._update_bounds_trigger()

    @property
    def params(self) -> list:
        return self.P[:len(self.program.spec.params)]

    def legal_moves(self) -> list[Move]:
        out: list[Move] = []
        self.program.legal(self.S, self.P, out)
        return out

    def failing_conjunct(self, move: Move) -> int:
        """-1 when the move is legal, else the index of the first guard conjunct that is false."""
        return self.program.guards[move[0]](self.S, self.P, *move[1])

    def chooser(self, move: Move) -> int | None:
        """The player who chooses this move (its action's `by`), or None for an automatic step."""
        fn = self.program.choosers[move[0]]
        return fn(self.S, self.P, *move[1]) if fn else None

    def is_legal(self, move: Move) -> bool:
        return self.failing_conjunct(move) < 0

    def ended(self) -> ir.End | None:
        for end, fn in self.program.ends:
            if fn(self.S, self.P):
                return end
        return None

    def stopped(self) -> dict | None:
        """How a game that can go no further stands: {"kind": "end", "end": name} where an end holds,
        {"kind": "deadlock"} where no move is legal; None while it goes on (a Fault in the end
        conditions or the guards propagates)."""
        end = self.ended()
        if end is not None:
            return {"kind": "end", "end": end.name}
        return None if self.legal_moves() else {"kind": "deadlock"}

    def step(self, move: Move, check: bool = True, only=None, rankings: bool = True) -> list[Violation]:
        """Apply a legal move; returns the properties violated by this step (Fault/Gap propagate).
        `only`: the invariants (by index) to evaluate, the others taken to hold (None: all); a
        caller that knows every invariant false before the move gives those the move's action may
        change (Program.touched) less the false ones it has already noted. `rankings`: False, the
        rankings and bounds are not evaluated (a replay that looks at one invariant)."""
        prog = self.program
        S, P = self.S, self.P
        rankings = check and rankings
        judged = self.judged
        pre = [(p, rank_fn(S, P)) for p, while_fn, rank_fn in prog.rankings
               if (judged is None or p.name in judged) and while_fn(S, P)] if rankings else ()
        prog.applies[move[0]](S, P, self.chance, *move[1])
        self.moves.append(move)
        if not check:
            return []
        fixed = self._false_of_params() if prog.of_params else ()
        violations = [Violation(p, "the invariant is false after this step") for i, (p, fn) in enumerate(prog.invariants)
                      if (only is None or i in only) and (i in fixed if i in prog.of_params else not fn(S, P))]
        if not rankings:
            return violations
        for p, before in pre:
            if any(r < 0 for r in before):
                violations.append(Violation(p, f"the ranking {before} is negative"))
                continue
            while_fn, rank_fn = next((w, r) for q, w, r in prog.rankings if q is p)
            if while_fn(S, P):
                after = rank_fn(S, P)
                if not after < before:
                    violations.append(Violation(p, f"the ranking did not decrease: {before} -> {after}"))
        for i, (p, _trigger, action) in enumerate(prog.bounds):
            if self.bound_active[i] and move[0] == action:
                self.bound_counts[i] += 1
                if self.bound_counts[i] == p.limit + 1:
                    violations.append(Violation(p, f"{p.action} happened {p.limit + 1} times after the trigger"))
        self._update_bounds_trigger()
        return violations

    def _false_of_params(self) -> frozenset:
        """The invariants of the parameters alone that are false for this game's parameters,
        evaluated again only when the parameters change (a caller may set them)."""
        if self._of_params is None or self._of_params[0] != self.P:
            inv = self.program.invariants
            self._of_params = (deepcopy(self.P), frozenset(i for i in self.program.of_params if not inv[i][1](self.S, self.P)))
        return self._of_params[1]

    def _update_bounds_trigger(self):
        judged = self.judged
        for i, (p, trigger, _a) in enumerate(self.program.bounds):
            if not self.bound_active[i] and (judged is None or p.name in judged) and trigger(self.S, self.P):
                self.bound_active[i] = True

    def initial_violations(self) -> list[Violation]:
        return [Violation(p, "the invariant is false in the initial state")
                for p, fn in self.program.invariants if not fn(self.S, self.P)]

    def reached(self) -> list[ir.Property]:
        return [p for p, fn in self.program.reachables if fn(self.S, self.P)]

    def stats(self) -> dict:
        """Every stat's value now: a number, or a list per value of its parameter."""
        out = {}
        dom = self.program.domains
        for st, fn in self.program.stats:
            if st.params:
                (_n, t), = st.params[:1]
                out[st.name] = [fn(self.S, self.P, v) for v in dom.values(t)]
            else:
                out[st.name] = fn(self.S, self.P)
        return out

    def snapshot(self) -> list:
        return [copy(v) for v in self.S]

    def save(self, move: Move, chance=None) -> tuple:
        """What playing the move may change, for restore(): copies of the state variables its
        action writes (ir.writes), the chance's state where the action uses it (`chance` when the
        caller took it already: many moves tried from one state; else a box a Chance fills at
        its first draw, left empty by a move that draws nothing), the moves played."""
        prog, S = self.program, self.S
        if not prog.chancy[move[0]]:
            chance = None
        elif chance is None:
            if type(self.chance) is Chance:
                chance = []
                self.chance.keep(chance)
            else:
                chance = self.chance.getstate()
        return [(i, copy(S[i])) for i in prog.written[move[0]]], chance, len(self.moves)

    def restore(self, saved: tuple) -> None:
        """The game as it was when save() was called (the move played or not, or broken halfway)."""
        slots, chance, count = saved
        S = self.S
        for i, v in slots:
            S[i] = v
        if type(chance) is list:  # a Chance's box: filled when the move drew
            self.chance.release(chance)
            if chance:
                self.chance.setstate(chance[0])
        elif chance is not None:
            self.chance.setstate(chance)
        del self.moves[count:]


def _reads_argument(fn, name: str) -> bool:
    """Whether a generated function may read its argument `name`: its code loads it, or a function
    nested in it does (a cell)."""
    import dis

    code = fn.__code__
    if name in code.co_cellvars:
        return True
    for ins in dis.get_instructions(code):
        if ins.argval == name or (isinstance(ins.argval, tuple) and name in ins.argval):
            return True
    return False


def describe_fault(program: Program, exc: Fault) -> tuple[str, object]:
    return exc.message, program.span(exc.span_id)


__all__ = ["Program", "Game", "Move", "Violation", "ParamError", "Fault", "Gap", "describe_fault",
           "BagT", "PileT", "MapT", "BoolT", "EnumT", "PlayerT", "RecordT", "OptT"]

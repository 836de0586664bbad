"""Symbolic encoding of the IR for Z3: ir.Spec + player count -> states, init and steps as formulas.

A state maps each variable to a symbolic value: Z3 Ints and Bools for scalars (enums, players and
records are indices, a record's fields are read by division and remainder), Python lists for
maps, count vectors for bags, and for piles a count vector plus the top card, tracked exactly.
Known values stay Python ints and bools, so loops over players unroll without case splits.

The abstraction of piles over-approximates the interpreter soundly: wherever the interpreter's
top card follows from an order the prover does not track (after a draw, a shuffle, a refill or a
removal), the new top is a fresh choice among the cards present: a chance event. A proof
therefore covers every shuffle. Run-time errors (faults) and `undecided` points end a path: they
are collected with their conditions, and a step is a transition only when neither happens.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import z3

from .. import ir
from ..types import (BagT, BoolT, Domains, EnumT, IntT, ListT, MapT, OptT, OrderT, PileT, PlayerT, RecordT, SetT,
                     TupleT, Type, fits, record_layout)


class Unsupported(Exception):
    """A construct the encoding cannot express exactly enough (reported as `unknown`, with the reason)."""

    def __init__(self, message: str, span=None):
        super().__init__(message)
        self.message = message
        self.span = span


# ---- symbolic values ---------------------------------------------------------------------

class OptV:
    __slots__ = ("some", "val")

    def __init__(self, some, val):
        self.some, self.val = some, val


class BagV:
    __slots__ = ("counts", "size")

    def __init__(self, counts, size=None):
        self.counts, self.size = list(counts), size


class PileV:
    __slots__ = ("counts", "top", "size")

    def __init__(self, counts, top: OptV, size=None):
        self.counts, self.top, self.size = list(counts), top, size


def zone_size(v):
    """How many cards a bag or pile holds: the sum of its counts; for a merge of two zones (a
    branch, a player's index: merge()), the if-then-else of their sizes, so that the size of a
    hand at a player held in a variable is one of the terms that are the players' hand sizes."""
    if isinstance(v, SeqPileV):
        return v.size
    size = v.size
    if size is None:
        size = SUM(v.counts)
    elif type(size) is tuple:  # (c, a, b): merge(c, a, b) made it
        c, a, b = size
        size = ITE(c, zone_size(a), zone_size(b))
    v.size = size
    return size


class SeqPileV:
    """A small pile followed exactly: the card at each position (0 = bottom) and how many there are.

    It reads like a PileV (counts per value and the top card, derived), so that everything that only
    looks at a pile works unchanged; what changes a pile has a case of its own."""

    __slots__ = ("items", "size", "_counts", "kinds")

    def __init__(self, items, size, kinds: int):
        self.items, self.size, self.kinds, self._counts = list(items), size, kinds, None

    @property
    def counts(self):
        if self._counts is None:
            self._counts = [SUM([ITE(AND(_lt(i, self.size), EQ(x, k)), 1, 0) for i, x in enumerate(self.items)])
                            for k in range(self.kinds)]
        return self._counts

    @property
    def top(self):
        n = concrete(self.size)
        if n is not None:  # (a known size beyond the capacity follows a run-time error: no card of the pile)
            return OptV(n > 0, self.items[n - 1] if 0 < n <= len(self.items) else 0)
        return OptV(self.size > 0, select(self.items, self.size - 1, 0))


def _lt(i: int, n):
    c = concrete(n)
    return i < c if c is not None else n > i


ZONES = (None,)  # set below: the symbolic values that hold cards


class SetV:
    __slots__ = ("bits",)

    def __init__(self, bits):
        self.bits = list(bits)


ZONES = (BagV, PileV, SeqPileV)


class SeqV:
    """An order, a list literal or a tuple: fixed length, positions known."""

    __slots__ = ("items",)

    def __init__(self, items):
        self.items = list(items)


class MapV:
    __slots__ = ("items",)

    def __init__(self, items):
        self.items = list(items)


# ---- helpers that fold known values --------------------------------------------------------

# Z3 keeps one node per term in a context (hash-consing), so two terms are the same term exactly
# when they are the same node: comparing the nodes' addresses answers is_true, is_false and _same
# without the several calls into Z3 each of z3.is_true and ExprRef.eq makes (measured: a third of
# the Python time of encoding a step went there).
_CONSTANTS: dict = {}


def _true_false(ctx) -> tuple:
    """(address of true, address of false) in a context; the terms are kept, so the nodes stay."""
    tf = _CONSTANTS.get(id(ctx))
    if tf is None:
        t, f = z3.BoolVal(True, ctx), z3.BoolVal(False, ctx)
        tf = _CONSTANTS[id(ctx)] = (t.ast.value, f.ast.value, t, f, ctx)
    return tf


def is_true(x) -> bool:
    return x is True or (isinstance(x, z3.BoolRef) and x.ast.value == _true_false(x.ctx)[0])


def is_false(x) -> bool:
    return x is False or (isinstance(x, z3.BoolRef) and x.ast.value == _true_false(x.ctx)[1])


def AND(*xs):
    out = []
    for x in xs:
        if is_false(x):
            return False
        if not is_true(x):
            out.append(x)
    if not out:
        return True
    if len(out) == 1:
        return out[0]
    r = _mk_nary(z3.Z3_mk_and, out)
    return z3.And(*out) if r is None else r


def OR(*xs):
    out = []
    for x in xs:
        if is_true(x):
            return True
        if not is_false(x):
            out.append(x)
    if not out:
        return False
    if len(out) == 1:
        return out[0]
    r = _mk_nary(z3.Z3_mk_or, out)
    return z3.Or(*out) if r is None else r


# z3.And, z3.Or, z3.Not and z3.If check and convert their arguments (context, sorts, casts) with
# several calls into Z3 each; the terms built here are already Boolean (and Int) terms of one
# context, so they are built with the C API directly, falling back to z3py for anything else.
def _mk_nary(mk, xs: list):
    ctx = xs[0].ctx
    if not all(isinstance(x, z3.BoolRef) and x.ctx is ctx for x in xs):
        return None
    args = (z3.Ast * len(xs))(*[x.ast for x in xs])
    return z3.BoolRef(mk(ctx.ref(), len(xs), args), ctx)


def assert_all(solver: z3.Solver, facts) -> None:
    """solver.add(*facts), Boolean terms through the C API (z3py's add converts and checks each
    fact in Python: measured 22 ms per question of a few thousand facts)."""
    rest = []
    ref, ptr = solver.ctx.ref(), solver.solver
    for f in facts:
        if isinstance(f, z3.BoolRef) and f.ctx is solver.ctx:
            z3.Z3_solver_assert(ref, ptr, f.ast)
        elif f is not True:
            rest.append(f)
    if rest:
        solver.add(*rest)


def NOT(x):
    if type(x) is bool:
        return not x
    if isinstance(x, z3.BoolRef):
        return z3.BoolRef(z3.Z3_mk_not(x.ctx.ref(), x.ast), x.ctx)
    return z3.Not(x)


def IMPLIES(a, b):
    return OR(NOT(a), b)


def ITE(c, a, b):
    if is_true(c):
        return a
    if is_false(c):
        return b
    if _same(a, b):
        return a
    if isinstance(c, z3.BoolRef) and isinstance(a, z3.ExprRef) and isinstance(b, z3.ExprRef) \
            and a.ctx is c.ctx and b.ctx is c.ctx:
        for ref in (z3.BoolRef, z3.ArithRef):  # Int: the only number sort the encoding uses
            if isinstance(a, ref) and isinstance(b, ref):
                return ref(z3.Z3_mk_ite(c.ctx.ref(), c.ast, a.ast, b.ast), c.ctx)
    return z3.If(c, a, b)


def _same(a, b) -> bool:
    if type(a) in (int, bool) and type(b) in (int, bool):
        return a == b and type(a) is type(b)
    if isinstance(a, z3.ExprRef) and isinstance(b, z3.ExprRef):
        return a.ast.value == b.ast.value and a.ctx is b.ctx  # the same node (see is_true)
    return False


def EQ(a, b):
    if type(a) in (int, bool) and type(b) in (int, bool):
        return a == b
    if _same(a, b):
        return True
    return a == b


def SUM(xs):
    xs = [x for x in xs if not (type(x) is int and x == 0)]
    if not xs:
        return 0
    if all(type(x) is int for x in xs):
        return sum(xs)
    return z3.Sum(*xs) if len(xs) > 1 else xs[0]


def _consts(*es) -> list:
    """The uninterpreted constants of terms, in order of first appearance, each shared subterm
    walked once. (z3util.get_vars walks a shared subterm once per path to it and compares by str():
    far too slow for these terms.)"""
    out, seen, stack = [], set(), list(reversed(es))
    while stack:
        x = stack.pop()
        if not isinstance(x, z3.ExprRef) or x.get_id() in seen:
            continue
        seen.add(x.get_id())
        if z3.is_const(x) and x.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            out.append(x)
        stack.extend(reversed(x.children()))
    return out


def concrete(x):
    """x as a Python int/bool when it is a known value, else None."""
    if type(x) in (int, bool):
        return x
    if isinstance(x, z3.IntNumRef):
        return x.as_long()
    if is_true(x):
        return True
    if is_false(x):
        return False
    return None


def MUL(a, b):
    ca, cb = concrete(a), concrete(b)
    if ca is not None and cb is not None:
        return ca * cb
    if ca == 0 or cb == 0:
        return 0
    if ca == 1:
        return b
    if cb == 1:
        return a
    # count * (if c then x else y): push the product into the branches to stay linear
    if isinstance(b, z3.ExprRef) and z3.is_app_of(b, z3.Z3_OP_ITE) and ca is None:
        c, x, y = b.children()
        return z3.If(c, MUL(a, x), MUL(a, y))
    if isinstance(a, z3.ExprRef) and z3.is_app_of(a, z3.Z3_OP_ITE) and cb is None:
        c, x, y = a.children()
        return z3.If(c, MUL(x, b), MUL(y, b))
    return a * b


def merge(c, a, b):
    """The value that is a when c holds and b otherwise (same type)."""
    if a is b:
        return a
    if isinstance(a, OptV):
        return OptV(ITE(c, a.some, b.some), merge(c, a.val, b.val))
    if isinstance(a, SeqPileV):
        return SeqPileV([ITE(c, x, y) for x, y in zip(a.items, b.items)], ITE(c, a.size, b.size), a.kinds)
    if isinstance(a, PileV):
        return PileV([ITE(c, x, y) for x, y in zip(a.counts, b.counts)], merge(c, a.top, b.top), (c, a, b))
    if isinstance(a, BagV):
        return BagV([ITE(c, x, y) for x, y in zip(a.counts, b.counts)], (c, a, b))
    if isinstance(a, SetV):
        return SetV([ITE(c, x, y) for x, y in zip(a.bits, b.bits)])
    if isinstance(a, SeqV):
        return SeqV([merge(c, x, y) for x, y in zip(a.items, b.items)])
    if isinstance(a, MapV):
        return MapV([merge(c, x, y) for x, y in zip(a.items, b.items)])
    return ITE(c, a, b)


def copy_value(v):
    if isinstance(v, OptV):
        return OptV(v.some, v.val)
    if isinstance(v, SeqPileV):
        return SeqPileV(v.items, v.size, v.kinds)
    if isinstance(v, PileV):
        return PileV(v.counts, OptV(v.top.some, v.top.val), v.size)
    if isinstance(v, BagV):
        return BagV(v.counts, v.size)
    if isinstance(v, SetV):
        return SetV(v.bits)
    if isinstance(v, SeqV):
        return SeqV([copy_value(x) for x in v.items])
    if isinstance(v, MapV):
        return MapV([copy_value(x) for x in v.items])
    return v


def select(items: list, index, default=None):
    """items[index] for a symbolic index (an if-chain over the positions)."""
    k = concrete(index)
    if k is not None:
        return items[k] if 0 <= k < len(items) else default
    out = items[-1] if default is None else default
    for i in range(len(items) - 1, -1, -1):
        if default is None and i == len(items) - 1:
            continue
        out = merge(EQ(index, i), items[i], out)
    return out


# ---- chance events -------------------------------------------------------------------------

@dataclass
class Event:
    """A chance outcome the encoding leaves free: the new top card of a pile (or its bottom card)."""

    kind: str          # "top" (after a draw, shuffle, refill or removal) | "bottom" (the card taken from the bottom)
    zone: str          # the pile, e.g. "stock" or "deck[2]"
    var: z3.ArithRef   # the chosen card's index
    when: object       # the path condition under which the event happens
    present: object    # whether the pile holds a card at that point (no event for an empty pile)
    elem: Type = None  # the pile's element type (to turn the index into a card)


@dataclass
class DrawEvent:
    """A draw of n cards: which multiset left the pile (any order), and the pile's new top card."""

    zone: str
    drawn: list          # count per card index
    top: z3.ArithRef     # the new top's index (when the pile is not empty afterwards)
    when: object
    present: object      # the pile holds cards afterwards
    elem: Type = None
    from_top: bool = True
    last: object = None  # when the cards go onto a pile: the card drawn last (it ends on top there)
    kind: str = "draw"


@dataclass
class StepResult:
    """One symbolic step (or the setup): what it needs, what it leaves, what can go wrong."""

    state: dict
    alive: object                       # the step completes (no fault, no gap)
    faults: list = field(default_factory=list)   # (condition, message, span)
    gaps: list = field(default_factory=list)     # (condition, undecided id)
    events: list = field(default_factory=list)
    constraints: list = field(default_factory=list)  # on fresh choice variables
    guard: object = True
    guard_faults: list = field(default_factory=list)
    args: tuple = ()
    ledger: dict = field(default_factory=dict)   # cards created per element type and value (moves: none)
    branches: list = field(default_factory=list)  # the tree of its symbolic branches (Ctx.branch)
    index_keys: list = field(default_factory=list)  # symbolic indices into maps
    named: list = field(default_factory=list)    # (type, variable) of the let-bound values named


# the run-time error of the encoding (not of the rules) where a pile followed card by card would
# hold more cards than its capacity, measured on sample setups (Encoder._exact_capacities)
BEYOND_EXACT = "more cards in a pile than the prover follows card by card"


class Encoder:
    """The symbolic semantics of one spec for one player count."""

    def __init__(self, spec: ir.Spec, players: int):
        self.spec = spec
        self.n = players
        self.dom = Domains(players)
        self.vars = {v.name: v for v in spec.state}
        self.names = itertools.count()
        self.choices = 0       # free choices made so far by over-approximated expressions (see Ctx.choice)
        self.cache: dict = {}  # derived terms (record fields of a symbolic card), by term id
        self.exact = self._exact_capacities()

    EXACT_CAP = 12  # piles of a card type with at most this many cards in the game are followed exactly

    def _exact_capacities(self) -> dict:
        """Card types whose piles are followed card by card: few cards in the whole game (measured
        on the setup). More cards in such a pile than that is a fault of the encoding, reported."""
        pile_types = set()
        for v in self.spec.state:
            zt = v.type.value if isinstance(v.type, MapT) else v.type
            if v.zone and isinstance(zt, PileT):
                pile_types.add(zt.elem)
        if not pile_types:
            return {}
        try:
            from .interpreter import Program
            program = Program(self.spec, self.n)
            caps: dict = {}
            for seed in range(3):
                game = program.start(f"capacity/{seed}")
                totals: dict = {}
                for v, value in zip(self.spec.state, game.S):
                    zt = v.type.value if isinstance(v.type, MapT) else v.type
                    if not v.zone or not isinstance(zt, (BagT, PileT)):
                        continue
                    zones = value if isinstance(v.type, MapT) else [value]
                    n = sum(len(z) if isinstance(zt, PileT) else sum(z) for z in zones)
                    totals[zt.elem] = totals.get(zt.elem, 0) + n
                for t, n in totals.items():
                    caps[t] = max(caps.get(t, 0), n)
        except Exception:  # a setup that faults or reaches a gap: follow no pile exactly
            return {}
        return {t: caps[t] for t in pile_types if t in caps and 0 < caps[t] <= self.EXACT_CAP}

    def is_exact(self, t: Type) -> bool:
        return isinstance(t, PileT) and t.elem in self.exact

    # ---- fresh symbolic values ----------------------------------------------------------
    def fresh(self, t: Type, name: str, constraints: list):
        """A new symbolic value of type t, with the constraints its type imposes appended."""
        if isinstance(t, BoolT):
            return z3.Bool(name)
        if isinstance(t, IntT):
            v = z3.Int(name)
            if t.lo is not None:
                constraints.append(v >= t.lo)
            if t.hi is not None:
                constraints.append(v <= t.hi)
            return v
        if isinstance(t, (EnumT, PlayerT, RecordT)):
            v = z3.Int(name)
            constraints.append(z3.And(v >= 0, v < self.dom.size(t)))
            return v
        if isinstance(t, OptT):
            return OptV(z3.Bool(name + "?"), self.fresh(t.inner, name, constraints))
        if isinstance(t, SetT):
            return SetV([z3.Bool(f"{name}[{i}]") for i in range(self.dom.size(t.elem))])
        if isinstance(t, OrderT):
            size = self.dom.size(t.elem)
            items = [z3.Int(f"{name}@{i}") for i in range(size)]
            lo = _order_lo(t)
            for x in items:
                constraints.append(z3.And(x >= lo, x < lo + size))
            if size > 1:
                constraints.append(z3.Distinct(*items))
                constraints.extend(_every_value_once(items, lo))
            return SeqV(items)
        if isinstance(t, MapT):
            return MapV([self.fresh(t.value, f"{name}[{k}]", constraints) for k in range(self.dom.size(t.key))])
        if isinstance(t, BagT):
            counts = [z3.Int(f"{name}#{k}") for k in range(self.dom.size(t.elem))]
            constraints.extend(c >= 0 for c in counts)
            return BagV(counts)
        if isinstance(t, PileT) and self.is_exact(t):
            cap, kinds = self.exact[t.elem], self.dom.size(t.elem)
            items = [z3.Int(f"{name}@{i}") for i in range(cap)]
            n = z3.Int(f"{name}.size")
            constraints.extend(z3.And(x >= 0, x < kinds) for x in items)
            constraints.append(z3.And(n >= 0, n <= cap))
            return SeqPileV(items, n, kinds)
        if isinstance(t, PileT):
            size = self.dom.size(t.elem)
            counts = [z3.Int(f"{name}#{k}") for k in range(size)]
            constraints.extend(c >= 0 for c in counts)
            top = OptV(z3.Bool(name + ".top?"), z3.Int(name + ".top"))
            constraints.append(top.some == (z3.Sum(*counts) > 0) if counts else z3.Not(top.some))
            constraints.append(z3.Implies(top.some, self._count_at(counts, top.val) >= 1))
            constraints.append(z3.And(top.val >= 0, top.val < max(size, 1)))
            return PileV(counts, top)
        if isinstance(t, TupleT):
            return SeqV([self.fresh(x, f"{name}.{i}", constraints) for i, x in enumerate(t.elems)])
        raise Unsupported(f"no symbolic value for type {t}")

    def _count_at(self, counts, k):
        return select(counts, k, 0)

    def fresh_state(self, prefix: str):
        """(state, constraints): every variable free, within its type."""
        constraints: list = []
        state = {v.name: self.fresh(v.type, f"{prefix}{v.name}", constraints) for v in self.spec.state}
        return state, constraints

    def fresh_params(self, prefix: str = "param.", faults: list | None = None):
        """(params, consts, constraints) with parameters free (their `where` holds) and constants from them.
        The constants' run-time errors (and their `where`s'): appended to `faults` when given (a
        game's setup meets them), else taken as constraints (the parameters that meet none)."""
        constraints: list = []
        params = {p.name: self.fresh(p.type, prefix + p.name, constraints) for p in self.spec.params}
        consts: dict = {}
        ctx = Ctx(self, {}, params, consts)
        for c in self.spec.consts:
            consts[c.name] = ctx.ev(c.value)
        for p in self.spec.params:
            if p.where is not None:
                constraints.append(ctx.ev(p.where))
        if faults is not None:
            faults.extend(ctx.faults)
        else:
            constraints.extend(ctx.faults_as_constraints())
        return params, consts, constraints

    # ---- steps --------------------------------------------------------------------------
    def initial(self, params: dict, consts: dict, tag: str = "init") -> StepResult:
        """The setup: default values, then `init`."""
        state = {v.name: self.default(v.type) for v in self.spec.state}
        ctx = Ctx(self, state, params, consts, tag=tag)
        ctx.run(self.spec.init)
        return StepResult(ctx.state, ctx.alive, ctx.faults, ctx.gaps, ctx.events, ctx.constraints, ledger=ctx.ledger,
                          branches=ctx.branches, index_keys=ctx.index_keys, named=ctx.named)

    def step(self, state: dict, params: dict, consts: dict, action: ir.Action, tag: str,
             args: tuple | None = None, guard_only: bool = False) -> StepResult:
        """One move of `action` from `state`: guard, effect, faults and gaps (args free unless given)."""
        constraints: list = []
        if args is None:
            args = tuple(self.fresh(t, f"{tag}.{action.name}.{n}", constraints) for n, t in action.params)
        ctx = Ctx(self, {k: copy_value(v) for k, v in state.items()}, params, consts, tag=tag)
        ctx.locals = {n: a for (n, _t), a in zip(action.params, args)}
        guard = True
        for conj in action.guard:
            before = len(ctx.faults)
            value = ctx.ev(conj)
            for i in range(before, len(ctx.faults)):  # a conjunct is evaluated only when those before hold
                c, m, s = ctx.faults[i]
                ctx.faults[i] = (AND(guard, c), m, s)
            guard = AND(guard, value)
        guard_faults = list(ctx.faults)
        ctx.faults = []
        ctx.alive = AND(ctx.alive, *[NOT(c) for c, _m, _s in guard_faults])
        ctx.pc = guard
        if not guard_only:
            ctx.run(action.body)
        return StepResult(ctx.state, ctx.alive, ctx.faults, ctx.gaps, ctx.events, constraints + ctx.constraints,
                          guard, guard_faults, args, ctx.ledger, ctx.branches, ctx.index_keys, ctx.named)

    def evaluate(self, expr: ir.Expr, state: dict, params: dict, consts: dict, tag: str = "eval",
                 totals: dict | None = None, memo: dict | None = None):
        """(value, fault condition, constraints): an expression's value in a state, and when it faults.

        `totals` gives the zones' totals per element type when they are known more simply than by
        summing the zones (a step's result: the totals before it plus its ledger). `memo` keeps
        the definitions' values by their arguments (Ctx.ev_Apply) across the evaluations of one
        caller over the same state, parameters, constants and totals."""
        ctx = Ctx(self, state, params, consts, tag=tag)
        ctx.totals_override = totals
        ctx.memo = {} if memo is None else memo
        value = ctx.ev(expr)
        return value, OR(*[c for c, _m, _s in ctx.faults]), ctx.constraints

    def default(self, t: Type):
        if isinstance(t, BoolT):
            return False
        if isinstance(t, IntT):
            return t.default
        if isinstance(t, (EnumT, PlayerT, RecordT)):
            return 0
        if isinstance(t, OptT):
            return OptV(False, 0)
        if isinstance(t, SetT):
            return SetV([False] * self.dom.size(t.elem))
        if isinstance(t, OrderT):
            return SeqV(list(self.dom.values(t.elem)))
        if isinstance(t, MapT):
            return MapV([self.default(t.value) for _ in range(self.dom.size(t.key))])
        if isinstance(t, BagT):
            return BagV([0] * self.dom.size(t.elem))
        if isinstance(t, PileT) and self.is_exact(t):
            return SeqPileV([0] * self.exact[t.elem], 0, self.dom.size(t.elem))
        if isinstance(t, PileT):
            return PileV([0] * self.dom.size(t.elem), OptV(False, 0))
        if isinstance(t, TupleT):
            return SeqV([self.default(x) for x in t.elems])
        raise Unsupported(f"no default value for type {t}")

    # ---- type invariants ----------------------------------------------------------------
    def type_ok(self, t: Type, v) -> list:
        """Constraints that hold of every value of type t (bags non-negative, pile tops consistent, ...)."""
        out: list = []
        self._type_ok(t, v, out)
        return [c for c in out if not is_true(c)]

    def _type_ok(self, t, v, out):
        if isinstance(t, IntT):
            if t.lo is not None:
                out.append(v >= t.lo)
            if t.hi is not None:
                out.append(v <= t.hi)
        elif isinstance(t, (EnumT, PlayerT, RecordT)):
            out.append(AND(v >= 0, v < self.dom.size(t)))
        elif isinstance(t, OptT):
            inner: list = []
            self._type_ok(t.inner, v.val, inner)
            if inner:
                out.append(IMPLIES(v.some, AND(*inner)))
        elif isinstance(t, MapT):
            for x in v.items:
                self._type_ok(t.value, x, out)
        elif isinstance(t, BagT):
            out.extend(c >= 0 for c in v.counts)
        elif isinstance(t, PileT) and isinstance(v, SeqPileV):
            out.append(AND(v.size >= 0, v.size <= len(v.items)))
            out.extend(AND(x >= 0, x < v.kinds) for x in v.items if concrete(x) is None)
        elif isinstance(t, PileT):
            out.extend(c >= 0 for c in v.counts)
            out.append(EQ(v.top.some, SUM(v.counts) > 0) if v.counts else NOT(v.top.some))
            out.append(IMPLIES(v.top.some, self._count_at(v.counts, v.top.val) >= 1))
        elif isinstance(t, OrderT):
            size, lo = self.dom.size(t.elem), _order_lo(t)
            for x in v.items:
                out.append(AND(x >= lo, x < lo + size))
            if size > 1 and any(isinstance(x, z3.ExprRef) for x in v.items):
                out.append(z3.Distinct(*v.items))
                if len(v.items) == size:
                    out.extend(_every_value_once(v.items, lo))
            elif size > 1:
                out.append(len(set(v.items)) == len(v.items))

    def totals_after(self, before: dict, result: "StepResult", cache: dict | None = None) -> dict:
        """The totals per element type after a step: before + what the step created (nothing for moves)."""
        base = zone_totals(self, before) if cache is None else cache
        out = {}
        for t, vec in base.items():
            delta = result.ledger.get(t)
            out[t] = vec if delta is None else [a + d for a, d in zip(vec, delta)]
        return out

    def state_ok(self, state: dict) -> list:
        out = []
        for v in self.spec.state:
            out.extend(self.type_ok(v.type, state[v.name]))
        return out

    # ---- reading models -----------------------------------------------------------------
    def value(self, model: z3.ModelRef, t: Type, v):
        """The interpreter's representation of a symbolic value in a model (piles as (counts, top))."""
        ev = lambda x: _model_int(model, x)  # noqa: E731
        if isinstance(t, BoolT):
            return bool(_model_bool(model, v))
        if isinstance(t, (IntT, EnumT, PlayerT, RecordT)):
            return ev(v)
        if isinstance(t, OptT):
            return self.value(model, t.inner, v.val) if _model_bool(model, v.some) else None
        if isinstance(t, SetT):
            values = self.dom.values(t.elem)
            return frozenset(values[i] for i, b in enumerate(v.bits) if _model_bool(model, b))
        if isinstance(t, (OrderT, ListT)):
            return tuple(self.value(model, t.elem, x) for x in v.items)
        if isinstance(t, TupleT):
            return tuple(self.value(model, et, x) for et, x in zip(t.elems, v.items))
        if isinstance(t, MapT):
            return [self.value(model, t.value, x) for x in v.items]
        if isinstance(t, BagT):
            return [ev(c) for c in v.counts]
        if isinstance(t, PileT) and isinstance(v, SeqPileV):
            return ("seq", [ev(x) for x in v.items[:ev(v.size)]])
        if isinstance(t, PileT):
            counts = [ev(c) for c in v.counts]
            top = ev(v.top.val) if _model_bool(model, v.top.some) else None
            return ("pile", counts, top)
        raise Unsupported(f"cannot read a value of type {t}")


def _order_lo(t: OrderT) -> int:
    """The least value an order of t's element type holds (its values are lo, lo + 1, ...)."""
    return t.elem.lo if isinstance(t.elem, IntT) else 0


def _every_value_once(items: list, lo: int) -> list:
    """That each of the values lo, lo + 1, ... (as many as items) is one of the items: what
    distinct items in that range already imply, said outright. The solver cannot see it by
    itself without the pigeonhole argument, exponential for its search (an order of 7 values on
    each of 9 places took 4.8 s to show that every value is in every order; 0.01 s with this)."""
    return [OR(*[x == lo + k for x in items]) for k in range(len(items))]


def zone_totals(enc: "Encoder", state: dict) -> dict:
    """For each element type, the count of each value summed over every zone holding that type."""
    out: dict = {}
    for v in enc.spec.state:
        zt = v.type.value if isinstance(v.type, MapT) else v.type
        if not v.zone or not isinstance(zt, (BagT, PileT)):
            continue
        zones = state[v.name].items if isinstance(v.type, MapT) else [state[v.name]]
        acc = out.get(zt.elem)
        for z in zones:
            acc = list(z.counts) if acc is None else [a + c for a, c in zip(acc, z.counts)]
        if acc is not None:
            out[zt.elem] = acc
    return {t: [x if type(x) is int else z3.simplify(x) if False else x for x in vec] for t, vec in out.items()}


def _model_int(model, x) -> int:
    if type(x) in (int, bool):
        return int(x)
    r = model.eval(x, model_completion=True)
    return r.as_long()


def _model_bool(model, x) -> bool:
    if type(x) is bool:
        return x
    return z3.is_true(model.eval(x, model_completion=True))


# ---- symbolic execution ---------------------------------------------------------------------

class Ctx:
    """Symbolic execution of expressions and statements over one state."""

    def __init__(self, enc: Encoder, state: dict, params: dict, consts: dict, tag: str = "x"):
        self.enc = enc
        self.dom = enc.dom
        self.n = enc.n
        self.state = state
        self.params = params
        self.consts = consts
        self.locals: dict = {}
        self.pc = True          # the current path condition
        self.alive = True       # no fault or gap so far on this path
        self.faults: list = []
        self.gaps: list = []
        self.events: list = []
        self.constraints: list = []
        self.tag = tag
        self.enc_cache = enc.cache
        self.onehots: dict = {}
        # what a prover may split a hard question on: the tree of symbolic branches (each node
        # {"cond", "then", "else"}), the symbolic map indices, and the let-bound values named
        self.branches: list = []
        self._branch_at = self.branches
        self.index_keys: list = []
        self.named: list = []
        self.ledger: dict = {}            # element type -> cards created per value by this step (moves: none)
        self.totals_override = None       # element type -> totals, when evaluating in a step's result
        self.memo = None                  # evaluate(): definitions' values by their arguments (ev_Apply)

    def onehot(self, k, size: int, t: Type | None = None):
        """0/1 indicators o_j of the value k (o_j = 1 exactly when k = j), so that adding or taking a
        card is linear: counts_j + o_j. Only for values that are in range by their type.

        Each o_j is defined by k (if k = j then 1 else 0), not a fresh 0/1 variable tied to k by
        sum(j * o_j) = k: that knapsack-like equation has fractional solutions the arithmetic solver
        must branch away, and was measured to make queries with a few such values time out."""
        c = concrete(k)
        if c is not None:
            return [1 if j == c else 0 for j in range(size)]
        key = (k.get_id(), size)
        cached = self.onehots.get(key)
        if cached is not None:
            return cached
        if not z3.is_const(k):
            k = self.name_term(k, "oh")
        os = [z3.If(k == j, z3.IntVal(1), z3.IntVal(0)) for j in range(size)]
        # (no constraint that k is in range: a card built from a value out of range on a path not
        # taken, or after its run-time error, must not rule out the state; the indicators are
        # exact either way)
        self.onehots[key] = os
        return os

    def indicators(self, elem_t: Type, key, size: int):
        """Linear 0/1 indicators of a zone's key when its type keeps it in range, else if-then-elses."""
        if isinstance(elem_t, (EnumT, PlayerT, RecordT)) or elem_t is None:
            return self.onehot(key, size)
        return [ITE(EQ(key, j), 1, 0) for j in range(size)]

    def faults_as_constraints(self) -> list:
        return [NOT(c) for c, _m, _s in self.faults]

    # ---- bookkeeping --------------------------------------------------------------------
    def live(self):
        """This path taken, and no fault or gap before: where a step's constraints on its fresh
        choices must hold. After a fault a count may be negative (a card taken that was not
        there), and a constraint that then holds for no choice would rule out the state the step
        starts from, run-time error and all."""
        return AND(self.pc, self.alive)

    def fault(self, cond, message: str, span):
        """A run-time error when `cond` holds on this path and no earlier fault or gap has stopped
        the step (the interpreter never gets there: a fault behind a gap is not one)."""
        c = AND(self.pc, self.alive, cond)
        if is_false(c):
            return
        self.faults.append((c, message, span))
        self.alive = AND(self.alive, NOT(AND(self.pc, cond)))

    def choice(self, t: Type, what: str):
        self.enc.choices += 1
        name = f"{self.tag}.{what}.{next(self.enc.names)}"
        return self.enc.fresh(t, name, self.constraints)

    # ---- expressions --------------------------------------------------------------------
    def ev(self, e: ir.Expr):
        return getattr(self, "ev_" + type(e).__name__)(e)

    def ev_Lit(self, e):
        v = e.value
        t = e.type
        if isinstance(t, OptT):
            return OptV(False, 0) if v is None else OptV(True, v)
        if v is None:
            return OptV(False, 0)
        if isinstance(v, tuple):
            return SeqV(list(v))
        if isinstance(v, frozenset):
            return SetV([x in v for x in self.dom.values(t.elem)])
        if isinstance(v, list):
            return BagV(v) if isinstance(t, BagT) else MapV(v)
        return v

    def ev_Var(self, e):
        return self.state[e.name]

    def ev_ParamRef(self, e):
        return self.params[e.name]

    def ev_ConstRef(self, e):
        return self.consts[e.name]

    def ev_Local(self, e):
        return self.locals[e.name]

    def ev_NumPlayers(self, e):
        return self.n

    def key(self, t: Type, value):
        """The index of a value of type t in a map or bag."""
        if isinstance(t, IntT) and t.lo:
            return value - t.lo
        if isinstance(t, BoolT):
            return ITE(value, 1, 0)
        if isinstance(t, OptT):
            return ITE(value.some, 1 + self.key(t.inner, value.val), 0)
        return value

    def checked_key(self, key_t: Type, index: ir.Expr, value, span):
        k = self.key(key_t, value)
        size = self.dom.size(key_t)
        c = concrete(k)
        if c is not None:
            if not 0 <= c < size:
                self.fault(True, f"index {c} is outside the keys", span)
                return 0
            return c
        if size <= 8:
            self.index_keys.append(k)
        it = index.type
        safe = it == key_t or isinstance(key_t, (EnumT, BoolT, RecordT, OptT)) and not isinstance(it, (IntT,))
        if not safe:
            self.fault(OR(k < 0, k >= size), "an index is outside the keys", span)
        return k

    def ev_Index(self, e):
        bt = e.base.type
        base = self.ev(e.base)
        idx = self.ev(e.index)
        if isinstance(bt, MapT):
            return select(base.items, self.checked_key(bt.key, e.index, idx, e.span))
        if isinstance(bt, (BagT, PileT)):
            k = self.checked_key(bt.elem, e.index, idx, e.span)
            return select(base.counts, k, 0)
        # order or list: the element at a position
        c = concrete(idx)
        if c is not None:
            if not 0 <= c < len(base.items):
                self.fault(True, f"position {c} is outside 0..{len(base.items) - 1}", e.span)
                return base.items[0] if base.items else 0
            return base.items[c]
        self.fault(OR(idx < 0, idx >= len(base.items)), "a position is outside the order", e.span)
        return select(base.items, idx)

    def field_index(self, rt: RecordT, kind, i: int):
        """The index of field i of a record kind, by comparisons and a linear remainder (no div/mod)."""
        sizes, strides = record_layout(rt, self.dom)
        c = concrete(kind)
        if c is not None:
            return c // strides[i] % sizes[i]
        key = ("field", kind.get_id(), rt.name, i)
        cached = self.enc_cache.get(key)
        if cached is not None:
            return cached
        rest = kind  # what is left of the kind once the fields before i are taken out
        for j in range(i):
            rest = rest - MUL(self.field_index(rt, kind, j), strides[j])
        idx = 0
        if i == len(sizes) - 1:
            idx = rest  # the last field's stride is 1
        else:
            for v in range(1, sizes[i]):
                idx = ITE(rest >= v * strides[i], v, idx)
        self.enc_cache[key] = idx
        return idx

    def field_of(self, rt: RecordT, kind, name: str):
        i = [n for n, _t in rt.fields].index(name)
        ft = rt.fields[i][1]
        idx = self.field_index(rt, kind, i)
        if isinstance(ft, IntT):
            return idx + ft.lo
        if isinstance(ft, BoolT):
            return idx == 1 if concrete(idx) is None else bool(concrete(idx))
        return idx

    def ev_Field(self, e):
        return self.field_of(e.base.type, self.ev(e.base), e.name)

    def ev_Unary(self, e):
        v = self.ev(e.operand)
        if e.op == "not":
            return NOT(v)
        c = concrete(v)
        return -c if c is not None else -v

    def ev_Binary(self, e):
        op = e.op
        if op in ("and", "or", "implies"):
            a = self.ev(e.left)
            if (is_false(a) if op != "or" else is_true(a)):
                # the left side decides (false and, true or, false implies): the right side is not
                # evaluated, as in the interpreter (its faults and choices would be on no path)
                return a if op != "implies" else True
            saved = self.pc
            self.pc = AND(self.pc, a if op != "or" else NOT(a))  # faults on the right only when it is evaluated
            b = self.ev(e.right)
            self.pc = saved
            return AND(a, b) if op == "and" else OR(a, b) if op == "or" else IMPLIES(a, b)
        a, b = self.ev(e.left), self.ev(e.right)
        lt, rt = e.left.type, e.right.type
        if op in ("==", "!="):
            r = self.equal(lt, a, rt, b)
            return r if op == "==" else NOT(r)
        if isinstance(e.type, BagT) and op in "+-":
            bb = self.as_counts(rt, b)
            if op == "+":
                return BagV([x + y if not (concrete(y) == 0) else x for x, y in zip(a.counts, bb)])
            return BagV([ITE(x > y, x - y, 0) for x, y in zip(a.counts, bb)])
        if isinstance(e.type, SetT) and op in "+-":
            if op == "+":
                return SetV([OR(x, y) for x, y in zip(a.bits, b.bits)])
            return SetV([AND(x, NOT(y)) for x, y in zip(a.bits, b.bits)])
        ca, cb = concrete(a), concrete(b)
        if op in ("<", "<=", ">", ">="):
            if ca is not None and cb is not None:
                return {"<": ca < cb, "<=": ca <= cb, ">": ca > cb, ">=": ca >= cb}[op]
            return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]
        if op == "+":
            return ca + cb if ca is not None and cb is not None else a + b
        if op == "-":
            return ca - cb if ca is not None and cb is not None else a - b
        if op == "*":
            return MUL(a, b)
        if op in ("/", "%"):
            if cb == 0:
                self.fault(True, "division by zero", e.span)
                return 0
            if cb is None:
                self.fault(b == 0, "division by zero", e.span)
            if ca is not None and cb is not None:
                return ca // cb if op == "/" else ca % cb
            # a small known range: division and remainder by comparisons (linear), else Z3's (which,
            # like Python's //, rounds toward minus infinity for positive divisors)
            if cb is not None and cb > 0:
                lo, hi = self.bounds(e.left)
                if lo is not None and hi is not None and lo >= 0 and hi // cb - lo // cb <= 6:
                    q = lo // cb
                    for m in range(lo // cb + 1, hi // cb + 1):
                        q = ITE(a >= m * cb, m, q)
                    return q if op == "/" else a - MUL(q, cb)
                return a / cb if op == "/" else a % cb
            raise Unsupported("division by a value that may be negative or unknown", e.span)
        raise Unsupported(f"operator {op}", e.span)

    def as_counts(self, t, v):
        if isinstance(v, ZONES):
            return v.counts
        raise Unsupported(f"cannot use {t} as a bag")

    def equal(self, lt, a, rt, b):
        if isinstance(a, OptV) or isinstance(b, OptV):
            if not isinstance(a, OptV):
                a = OptV(True, a)
            if not isinstance(b, OptV):
                b = OptV(True, b)
            inner = lt.inner if isinstance(lt, OptT) else lt
            return AND(EQ(a.some, b.some), IMPLIES(a.some, self.equal(inner, a.val, inner, b.val)))
        if isinstance(a, PileV) and isinstance(b, PileV):
            # the order of a pile is not tracked: equal piles have equal counts and tops; beyond that, unknown
            same = AND(*[EQ(x, y) for x, y in zip(a.counts, b.counts)], self.equal(None, a.top, None, b.top))
            free = self.choice(BoolT(), "pile_eq")
            self.constraints.append(IMPLIES(free, same))
            return free
        if isinstance(a, SeqPileV) or isinstance(b, SeqPileV):
            pa, pb = (a, b) if isinstance(a, SeqPileV) else (b, a)
            if isinstance(pb, SeqV):
                items, n = pb.items, len(pb.items)
            elif isinstance(pb, SeqPileV):
                items, n = pb.items, pb.size
            else:
                return AND(*[EQ(x, y) for x, y in zip(pa.counts, pb.counts)])
            same = [EQ(pa.size, n)]
            for i in range(max(len(pa.items), len(items))):
                if i < len(pa.items) and i < len(items):
                    same.append(IMPLIES(_lt(i, n), EQ(pa.items[i], items[i])))
                elif i < len(items):
                    same.append(NOT(_lt(i, n)) if concrete(n) is None else (i >= concrete(n)))
            return AND(*same)
        if isinstance(a, ZONES) or isinstance(b, ZONES):
            if isinstance(a, SeqV) or isinstance(b, SeqV):  # a pile against a list literal: counts and top
                pile, seq = (a, b) if isinstance(a, PileV) else (b, a)
                counts = [sum(1 for x in seq.items if concrete(x) == k) for k in range(len(pile.counts))]
                if any(concrete(x) is None for x in seq.items):
                    raise Unsupported("a pile compared with a list of unknown values")
                same = AND(*[EQ(x, y) for x, y in zip(pile.counts, counts)],
                           EQ(pile.top.some, bool(seq.items)),
                           IMPLIES(pile.top.some, EQ(pile.top.val, seq.items[-1] if seq.items else 0)))
                if len(seq.items) <= 1:
                    return same
                free = self.choice(BoolT(), "pile_eq")
                self.constraints.append(IMPLIES(free, same))
                return free
            return AND(*[EQ(x, y) for x, y in zip(a.counts, b.counts)])
        if isinstance(a, SetV):
            return AND(*[EQ(x, y) for x, y in zip(a.bits, b.bits)])
        if isinstance(a, SeqV):
            if len(a.items) != len(b.items):
                return False
            ets = [lt.elems[i] if isinstance(lt, TupleT) else getattr(lt, "elem", None) for i in range(len(a.items))]
            return AND(*[self.equal(et, x, et, y) for et, x, y in zip(ets, a.items, b.items)])
        if isinstance(a, MapV):
            vt = lt.value if isinstance(lt, MapT) else None
            return AND(*[self.equal(vt, x, vt, y) for x, y in zip(a.items, b.items)])
        return EQ(a, b)

    def ev_Member(self, e):
        x = self.ev(e.elem)
        d = e.coll
        if isinstance(d, ir.TypeDomain):
            t = d.type
            if isinstance(t, IntT):
                r = AND(x >= t.lo, x <= t.hi)
            elif isinstance(t, (PlayerT, EnumT)) and e.elem.type != t:  # its values are 0 .. size - 1
                c = concrete(x)
                size = self.dom.size(t)
                r = (0 <= c < size) if c is not None else AND(x >= 0, x < size)
            else:
                r = True
        elif isinstance(d, ir.RangeDomain):
            lo, hi = self.ev(d.lo), self.ev(d.hi)
            r = AND(x >= lo, x <= hi) if concrete(x) is None or concrete(lo) is None or concrete(hi) is None \
                else concrete(lo) <= concrete(x) <= concrete(hi)
        else:
            ct = d.expr.type
            coll = self.ev(d.expr)
            if isinstance(coll, SeqPileV):
                k = self.key(ct.elem, x)
                r = OR(*[AND(_lt(i, coll.size), EQ(y, k)) for i, y in enumerate(coll.items)])
            elif isinstance(coll, ZONES):
                k = self.key(ct.elem, x)
                size = len(coll.counts)
                c = concrete(k)
                if c is not None:
                    r = (coll.counts[c] > 0 if isinstance(coll.counts[c], z3.ExprRef) else coll.counts[c] > 0) \
                        if 0 <= c < size else False
                else:
                    r = OR(*[AND(EQ(k, i), coll.counts[i] > 0) for i in range(size)])
            elif isinstance(coll, SetV):
                k = self.key(ct.elem, x)
                c = concrete(k)
                if c is not None:
                    r = coll.bits[c] if 0 <= c < len(coll.bits) else False
                else:
                    r = OR(*[AND(EQ(k, i), b) for i, b in enumerate(coll.bits)])
            else:
                r = OR(*[self.equal(ct.elem, x, ct.elem, y) for y in coll.items])
        return NOT(r) if e.negated else r

    def ev_Cond(self, e):
        c = self.ev(e.cond)
        if is_true(c) or is_false(c):
            return self.ev(e.then if is_true(c) else e.other)  # the other branch is on no path
        saved = self.pc
        self.pc = AND(saved, c)
        a = self.ev(e.then)
        self.pc = AND(saved, NOT(c))
        b = self.ev(e.other)
        self.pc = saved
        return merge(c, a, b)

    # ---- aggregates ---------------------------------------------------------------------
    def elements(self, d: ir.Domain):
        """[(value, weight, present)]: every candidate value, how many times it counts, whether it is there."""
        if isinstance(d, ir.TypeDomain):
            return [(v, 1, True) for v in self.dom.values(d.type)]
        if isinstance(d, ir.RangeDomain):
            lo, hi = concrete(self.ev(d.lo)), concrete(self.ev(d.hi))
            if lo is None or hi is None:
                raise Unsupported("a range whose bounds depend on the state", d.span)
            return [(v, 1, True) for v in range(lo, hi + 1)]
        t = d.expr.type
        coll = self.ev(d.expr)
        if isinstance(coll, ZONES):
            values = self.dom.values(t.elem)
            return [(values[k], c, c > 0 if concrete(c) is None else concrete(c) > 0) for k, c in enumerate(coll.counts)]
        if isinstance(coll, SetV):
            values = self.dom.values(t.elem)
            return [(values[k], ITE(b, 1, 0), b) for k, b in enumerate(coll.bits)]
        return [(x, 1, True) for x in coll.items]

    def bind(self, name, value, body):
        old = self.locals.get(name, _MISSING)
        self.locals[name] = value
        try:
            return body()
        finally:
            if old is _MISSING:
                del self.locals[name]
            else:
                self.locals[name] = old

    def ev_Aggregate(self, e):
        kind = e.kind
        parts = []
        skipped = False
        for value, weight, present in self.elements(e.domain):
            if present is False:
                skipped = True
                # a card kind the zone is known not to hold counts 0, adds 0, passes every `all`,
                # fails every `any` and is never the best; its where and body would be evaluated
                # under a false path condition, where no fault counts: nothing to evaluate
                continue
            def one(value=value, present=present):
                saved = self.pc
                self.pc = AND(saved, present)
                w = self.ev(e.where) if e.where is not None else True
                self.pc = AND(self.pc, w)
                if is_false(self.pc) and not is_false(saved):
                    self.pc = saved
                    return w, _MISSING  # known to fail the where, or absent: it adds nothing
                b = self.ev(e.body) if e.body is not None else None
                self.pc = saved
                return w, b
            w, b = self.bind(e.var, value, one)
            if b is _MISSING:
                skipped = True
                continue
            parts.append((value, weight, AND(present, w), b, w))
        # over a zone each card kind weighs its count, which is 0 when the kind is absent: a sum or
        # count needs no test of presence, and stays linear in the counts (weight * value)
        weighted = isinstance(e.domain, ir.ExprDomain) and isinstance(e.domain.expr.type, (BagT, PileT))
        if kind == "count":
            if weighted:
                return SUM([ITE(w, weight, 0) for _v, weight, _c, _b, w in parts])
            return SUM([ITE(c, weight, 0) if not isinstance(weight, int) or weight != 1 else ITE(c, 1, 0)
                        for _v, weight, c, _b, _w in parts])
        if kind == "sum":
            if weighted:
                return SUM([ITE(w, MUL(weight, b), 0) for _v, weight, _c, b, w in parts])
            return SUM([ITE(c, MUL(weight, b), 0) for _v, weight, c, b, _w in parts])
        parts = [x[:4] for x in parts]
        if kind == "all":
            return AND(*[IMPLIES(c, b) for _v, _w, c, b in parts])
        if kind == "any":
            return OR(*[AND(c, b) for _v, _w, c, b in parts])
        if not parts:
            self.fault(True, f"{kind} over nothing" + (": the domain is empty" if skipped else ""), e.span)
            return 0
        any_present = OR(*[c for _v, _w, c, _b in parts])
        self.fault(NOT(any_present), f"{kind} over nothing: the domain is empty", e.span)
        best = None
        best_set = False
        for value, _w, c, b in parts:
            if kind in ("min", "max"):
                cand = b
            else:
                cand = value
            if best is None:
                best, key, best_set = cand, b, c
                continue
            better = (b < key) if kind in ("min", "argmin") else (b > key)
            take = AND(c, OR(NOT(best_set), better))
            best = ITE(take, cand, best)
            key = ITE(take, b, key)
            best_set = OR(best_set, c)
        return best

    def ev_Builtin(self, e):
        name = e.name
        args = [self.ev(a) for a in e.args]
        t0 = e.args[0].type if e.args else None
        if name == "size":
            v = args[0]
            if isinstance(v, ZONES):
                return zone_size(v)
            if isinstance(v, SetV):
                return SUM([ITE(b, 1, 0) for b in v.bits])
            return len(v.items)
        if name == "top":
            top = args[0].top
            self.fault(NOT(top.some), "top() of an empty pile", e.span)
            return top.val
        if name == "the":
            v = args[0]
            if isinstance(v, ZONES):
                total = SUM(v.counts)
                self.fault(total != 1 if not isinstance(total, int) else total != 1,
                           "the() expects exactly one card", e.span)
                lo = t0.elem.lo if isinstance(t0.elem, IntT) else 0
                # the index of the first kind present (exact when there is one card): a chain of
                # if-then-elses, not sum(k * count_k), whose fractional solutions the arithmetic
                # solver must branch away
                cs = list(v.counts)
                if not cs:
                    return lo
                x = 0 if len(cs) == 1 else len(cs) - 1
                for k in range(len(cs) - 2, -1, -1):
                    x = ITE(cs[k] >= 1, k, x)
                x = self.name_term(x, "the") if isinstance(x, z3.ExprRef) else x
                return x + lo if lo else x
            if isinstance(v, SetV):
                total = SUM([ITE(b, 1, 0) for b in v.bits])
                self.fault(total != 1 if not isinstance(total, int) else total != 1,
                           "the() expects exactly one value", e.span)
                values = self.dom.values(t0.elem)
                return SUM([ITE(b, values[k], 0) for k, b in enumerate(v.bits)])
            raise Unsupported("the() of a list", e.span)
        if name == "get":
            self.fault(NOT(args[0].some), "get() of none", e.span)
            return args[0].val
        if name == "total":
            return self.total(t0, args[0])
        if name in ("left", "right", "seat", "distance"):
            a = args[0]
            b = {"left": 1, "right": -1}.get(name)
            if name == "seat":
                b = args[1]
                if concrete(b) is None:  # an unknown number of seats: plain modular arithmetic
                    return (a + b) % self.n
                b = concrete(b) % self.n
            lo, hi = self.bounds(e.args[0])
            if name == "distance":
                lo2, hi2 = self.bounds(e.args[1])
                lo, hi = (None if lo2 is None or hi is None else lo2 - hi), (None if hi2 is None or lo is None else hi2 - lo)
                return self.mod_n(args[1] - a if not (concrete(args[1]) is not None and concrete(a) is not None)
                                  else concrete(args[1]) - concrete(a), lo, hi)
            s = a + b if not (concrete(a) is not None and concrete(b) is not None) else concrete(a) + concrete(b)
            return self.mod_n(s, *(() if lo is None or hi is None else (lo + concrete(b), hi + concrete(b))))
        if name == "clockwise":
            lo, hi = self.bounds(e.args[0])
            return SeqV([self.mod_n(args[0] + i if concrete(args[0]) is None else concrete(args[0]) + i,
                                    *(() if lo is None or hi is None else (lo + i, hi + i)))
                         for i in range(self.n)])
        if name == "rank":
            seq, x = args
            if isinstance(seq, SeqPileV):  # the position of its lowest copy, from the bottom
                k = self.key(t0.elem, x)
                hits = [AND(_lt(i, seq.size), EQ(y, k)) for i, y in enumerate(seq.items)]
                self.fault(NOT(OR(*hits)), "the value is not in the pile", e.span)
                pos, seen = 0, False
                for i, h in enumerate(hits):
                    pos = ITE(AND(h, NOT(seen)), i, pos)
                    seen = OR(seen, h)
                return pos
            if isinstance(seq, PileV):  # a position in a pile: its order is not followed, any position is possible
                k = self.key(t0.elem, x)
                self.fault(select(seq.counts, k, 0) < 1, "the value is not in the pile", e.span)
                r = self.choice(IntT(0, None), "rank")
                # only where the value is in the pile: an empty pile (the fault above) must not
                # make the state impossible
                self.constraints.append(IMPLIES(select(seq.counts, k, 0) >= 1, r < SUM(seq.counts)))
                return r
            if isinstance(t0, OrderT) and isinstance(t0.elem, (IntT, EnumT, PlayerT, RecordT)) \
                    and len(seq.items) == self.dom.size(t0.elem):
                # an order holds each value of its type once (its type invariant): the value is in
                # it exactly when it is a value of the type. Said so, the question needs no case
                # split over an order chosen by a symbolic index (the hierarchy of the place a
                # figure stands on: 2 s time-outs before, with 3 players)
                lo = _order_lo(t0)
                self.fault(OR(x < lo, x > lo + len(seq.items) - 1), "the value is not in the order", e.span)
                # what it implies, kept for the questions about what follows (the rank is the
                # position of an item equal to the value): the induction needs it
                found = OR(*[self.equal(None, y, None, x) for y in seq.items])
                self.alive = AND(self.alive, NOT(AND(self.pc, NOT(found))))
            else:
                self.fault(AND(*[NOT(self.equal(None, y, None, x)) for y in seq.items]),
                           "the value is not in the order", e.span)
            return SUM([ITE(self.equal(None, y, None, x), i, 0) for i, y in enumerate(seq.items)])
        if name in ("first", "last"):
            seq = args[0]
            if isinstance(seq, SeqPileV):
                self.fault(EQ(seq.size, 0) if concrete(seq.size) is None else concrete(seq.size) == 0,
                           f"{name}() of an empty pile", e.span)
                return seq.items[0] if name == "first" else seq.top.val
            if isinstance(seq, PileV):
                if name == "last":
                    self.fault(NOT(seq.top.some), "last() of an empty pile", e.span)
                    return seq.top.val
                raise Unsupported("first() of a pile: the order of a pile is not tracked", e.span)
            if not seq.items:
                self.fault(True, f"{name}() of an empty sequence", e.span)
                return 0
            return seq.items[0] if name == "first" else seq.items[-1]
        if name == "abs":
            a = args[0]
            c = concrete(a)
            return abs(c) if c is not None else ITE(a >= 0, a, -a)
        if name in ("least", "greatest"):
            out = args[0]
            for x in args[1:]:
                out = ITE(x < out, x, out) if name == "least" else ITE(x > out, x, out)
            return out
        if name == "ord":
            return ITE(args[0], 1, 0) if isinstance(t0, BoolT) else args[0]
        raise Unsupported(f"builtin {name}", e.span)

    def mod_n(self, x, lo: int | None = None, hi: int | None = None):
        """x modulo the player count. Where x is known to lie within one lap either side (lo, hi:
        its static range; seats and their neighbours), by comparisons; else Z3's modulo."""
        c = concrete(x)
        if c is not None:
            return c % self.n
        if lo is None or hi is None or lo < -self.n or hi >= 2 * self.n:
            return x % self.n
        return ITE(x >= self.n, x - self.n, ITE(x < 0, x + self.n, x))

    def total(self, t: Type, value):
        """How many cards of this value are in all zones together."""
        terms = []
        for elem, vector in self.totals_by_type().items():
            # zones of the value's enum, of one it extends and of one extending it (as the
            # interpreter counts them); a value outside a zone's type counts 0 there
            if not (elem == t or isinstance(elem, EnumT) and isinstance(t, EnumT)
                    and (elem.includes(t) or t.includes(elem))):
                continue
            terms.append(select(vector, self.key(elem, value), 0))
        return SUM(terms)

    def totals_by_type(self) -> dict:
        """For each element type of the zones, the number of cards of each value in all of them.

        When the state is a step's result, these are the totals before the step plus the ledger of
        what the step created or destroyed (moves create nothing), not a sum over every zone."""
        if self.totals_override is not None:
            return self.totals_override
        return zone_totals(self.enc, self.state)

    def _zone_total(self, var_name: str) -> list:
        """The count of each value over all zones of one (possibly indexed) zone variable."""
        v = self.enc.vars[var_name]
        value = self.state[var_name]
        zones = value.items if isinstance(v.type, MapT) else [value]
        return [SUM([z.counts[k] for z in zones]) for k in range(len(zones[0].counts))] if zones else []

    def _ledger_change(self, var_name: str, before: list, after: list):
        """Record cards created (or destroyed) in a zone variable: after - before, per value."""
        v = self.enc.vars[var_name]
        zt = v.type.value if isinstance(v.type, MapT) else v.type
        key = zt.elem
        old = self.ledger.get(key) or [0] * len(after)
        self.ledger[key] = [o + (a - b if not (concrete(a) is not None and concrete(b) is not None)
                                 else concrete(a) - concrete(b)) for o, a, b in zip(old, after, before)]

    def ev_Make(self, e):
        rt = e.record
        sizes, strides = record_layout(rt, self.dom)
        total = 0
        for (fname, ft), a, stride in zip(rt.fields, e.args, strides):
            v = self.ev(a)
            if isinstance(ft, (IntT, PlayerT)):
                lo, hi = (ft.lo, ft.hi) if isinstance(ft, IntT) else (0, self.n - 1)
                c = concrete(v)
                if c is None:
                    self.fault(OR(v < lo, v > hi), f"a field of {rt.name} is outside its range", e.span)
                elif not lo <= c <= hi:
                    self.fault(True, f"a field of {rt.name} is outside its range", e.span)
                idx = v - lo if lo else v
            else:
                idx = self.key(ft, v)
            total = total + MUL(idx, stride) if not (concrete(idx) is not None and concrete(total) is not None) \
                else concrete(total) + concrete(idx) * stride
        return total

    def ev_BagOf(self, e):
        t = e.type
        size = self.dom.size(t.elem)
        acc = [0] * size
        bits = [False] * size

        def outside(k, symbolic: bool, what: str) -> bool:
            """The run-time error of a key outside 0 .. size - 1 on this item's path (a key not
            known only where `symbolic`); True where the key is known to be outside."""
            c = concrete(k)
            if c is not None:
                if not 0 <= c < size:
                    self.fault(self.pc_here, what, e.span)
                    return True
            elif symbolic:
                self.fault(AND(self.pc_here, OR(k < 0, k >= size)), what, e.span)
            return False

        def add(item, mult):
            k = self.key(t.elem, self.ev(item.elem))
            cnt = self.ev(item.count) if item.count is not None else 1
            it = getattr(item.elem, "type", None)
            if isinstance(t, SetT):
                c = concrete(k)
                if isinstance(t.elem, (IntT, PlayerT)) and it != t.elem and \
                        outside(k, True, "a value outside the set's element type"):  # as the interpreter (make_set)
                    return
                if c is not None:
                    bits[c] = OR(bits[c], self.pc_here)
                else:
                    for i in range(size):
                        bits[i] = OR(bits[i], AND(self.pc_here, EQ(k, i)))
                return
            if concrete(cnt) is None:
                self.fault(AND(self.pc_here, cnt < 0), "a negative number of cards", e.span)
            elif concrete(cnt) < 0:
                self.fault(self.pc_here, "a negative number of cards", e.span)
            # a card outside the bag's element type (a wider integer range) is a run-time error,
            # as in the interpreter (runtime.make_bag), not a card silently left out
            if outside(k, not (it == t.elem or isinstance(t.elem, (EnumT, BoolT, RecordT, OptT))
                               and not isinstance(it, IntT)), "a value outside the bag's element type"):
                return
            c = concrete(k)
            amount = MUL(cnt, mult)
            if c is not None:
                acc[c] = acc[c] + (amount if is_true(self.pc_here) else ITE(self.pc_here, amount, 0))
            else:
                for i in range(size):
                    acc[i] = acc[i] + ITE(AND(self.pc_here, EQ(k, i)), amount, 0)

        for item in e.items:
            self.pc_here = True
            self.comprehend(item, list(item.binders), lambda mult, item=item: add(item, mult), 1)
        if isinstance(t, SetT):
            return SetV(bits)
        return BagV(acc)

    def comprehend(self, item, binders, body, mult):
        """Run body once per combination of binder values; over a bag a value comes with its count."""
        if not binders:
            if item.where is not None:
                w = self.ev(item.where)
                saved = self.pc_here
                self.pc_here = AND(saved, w)
                body(mult)
                self.pc_here = saved
            else:
                body(mult)
            return
        (name, dom), rest = binders[0], binders[1:]
        for value, weight, present in self.elements(dom):
            saved = self.pc_here
            self.pc_here = AND(saved, present)
            self.bind(name, value, lambda weight=weight: self.comprehend(item, rest, body, MUL(mult, weight)))
            self.pc_here = saved

    def ev_ListOf(self, e):
        return SeqV([self.ev(x) for x in e.elems])

    def ev_TupleOf(self, e):
        return SeqV([self.ev(x) for x in e.elems])

    def ev_Apply(self, e):
        d = self.enc.spec.defs[e.name]
        args = [self.ev(a) for a in e.args]
        for (n, t), a in zip(d.params, args):
            self.range_fault(t, a, f"{d.name}'s argument {n}", d.span)
        key = self._apply_key(e.name, args)
        if key is not None and key in self.memo:
            return self.memo[key][0]
        saved = self.locals
        faults, constraints = len(self.faults), len(self.constraints)
        self.locals = dict(zip((n for n, _t in d.params), args))
        try:
            value = self.ev(d.body)
        finally:
            self.locals = saved
        if not fits(d.body.type, d.type):  # a result outside the declared type: a run-time error
            self.range_fault(d.type, value, f"{d.name}'s result", d.span)
        # kept only when it met no run-time error and made no choice: then evaluating it again
        # (under any path condition) adds nothing either, and gives the same term
        if key is not None and len(self.faults) == faults and len(self.constraints) == constraints:
            self.memo[key] = (value, args)  # the arguments are kept: their terms' ids stay theirs
        return value

    def _apply_key(self, name: str, args: list):
        """The key of a definition's application in memo (an expression evaluated over a state that
        does not change: evaluate()), or None: no memo, a path or fault condition false so far (the
        errors a fresh evaluation would find are hidden there), or an argument that is not a number,
        a truth value or a term."""
        if self.memo is None or is_false(self.pc) or is_false(self.alive):
            return None
        key = [name]
        for a in args:
            if type(a) in (int, bool):
                key.append(a)
            elif isinstance(a, z3.ExprRef):
                key.append(("term", a.get_id()))
            else:
                return None
        return tuple(key)

    # ---- statements ---------------------------------------------------------------------
    def run(self, stmts):
        for s in stmts:
            if is_false(self.alive) or is_false(self.pc):
                return
            getattr(self, "st_" + type(s).__name__)(s)

    def range_fault(self, t: Type, v, what: str, span):
        if isinstance(t, OptT):
            if isinstance(v, OptV):
                inner = self._range_cond(t.inner, v.val)
                if inner is not None:
                    self.fault(AND(v.some, NOT(inner)), f"{what} is outside {t}", span)
            return
        cond = self._range_cond(t, v)
        if cond is not None:
            self.fault(NOT(cond), f"{what} is outside {t}", span)

    def _range_cond(self, t, v):
        if isinstance(t, IntT) and (t.lo is not None or t.hi is not None):
            c = concrete(v)
            if c is not None:
                return (t.lo is None or c >= t.lo) and (t.hi is None or c <= t.hi)
            return AND(v >= t.lo if t.lo is not None else True, v <= t.hi if t.hi is not None else True)
        if isinstance(t, PlayerT):
            c = concrete(v)
            if c is not None:
                return 0 <= c < self.n
            return AND(v >= 0, v < self.n)
        return None

    def place_get(self, p: ir.Place):
        """The current value at a place, and a setter for a new value (with symbolic indices handled)."""
        t = self.enc.vars[p.var].type
        keys = []
        for idx in p.path:
            keys.append((t.key, self.checked_key(t.key, idx, self.ev(idx), p.span)))
            t = t.value

        def get(value, ks):
            for kt, k in ks:
                value = select(value.items, k)
            return value

        def put(value, ks, new):
            if not ks:
                return new
            (kt, k), rest = ks[0], ks[1:]
            items = list(value.items)
            c = concrete(k)
            if c is not None:
                items[c] = put(items[c], rest, new)
            else:
                items = [merge(EQ(k, i), put(x, rest, new), x) for i, x in enumerate(items)]
            return MapV(items)

        root = self.state[p.var]
        current = get(root, keys)

        def setter(new):  # branches run on their own copy of the state and are merged at their end
            self.state[p.var] = put(root, keys, new)

        return current, setter

    def convert(self, value, src: Type, dst: Type, span):
        """A value of type src stored where dst is expected."""
        if isinstance(dst, PileT) and self.enc.is_exact(dst):
            cap, kinds = self.enc.exact[dst.elem], self.dom.size(dst.elem)
            if isinstance(value, SeqPileV):
                return copy_value(value)
            if isinstance(value, BagV):
                total = SUM(value.counts)
                self.fault(total > cap if concrete(total) is None else concrete(total) > cap,
                           f"{BEYOND_EXACT} ({cap})", span)
                return self.seq_from_counts(value.counts, kinds, cap)
            if isinstance(value, SeqV):
                if len(value.items) > cap:
                    raise Unsupported(f"a list of {len(value.items)} cards for a pile followed card by card ({cap})", span)
                items = [self.key(dst.elem, x) for x in value.items] + [0] * (cap - len(value.items))
                return SeqPileV(items, len(value.items), kinds)
            raise Unsupported("a large pile assigned to a pile followed card by card", span)
        if isinstance(dst, PileT):
            if isinstance(value, PileV):
                return copy_value(value)
            if isinstance(value, BagV):  # a bag becomes a pile in index order: the top is the highest present
                top_val, top_some = 0, False
                for k, c in enumerate(value.counts):
                    top_val = ITE(c > 0 if isinstance(c, z3.ExprRef) else c > 0, k, top_val)
                    top_some = OR(top_some, c > 0 if isinstance(c, z3.ExprRef) else c > 0)
                return PileV(value.counts, OptV(top_some, top_val))
            if isinstance(value, SeqV):
                size = self.dom.size(dst.elem)
                counts = [0] * size
                for x in value.items:
                    k = self.key(dst.elem, x)
                    c = concrete(k)
                    if c is None:
                        for i in range(size):
                            counts[i] = counts[i] + ITE(EQ(k, i), 1, 0)
                    elif 0 <= c < size:
                        counts[c] += 1
                top = OptV(True, self.key(dst.elem, value.items[-1])) if value.items else OptV(False, 0)
                return PileV(counts, top)
        if isinstance(dst, BagT):
            if isinstance(value, PileV):
                return BagV(value.counts)
            return copy_value(value)
        if isinstance(dst, OrderT) and isinstance(value, SeqV):
            size, lo = self.dom.size(dst.elem), _order_lo(dst)
            items = value.items
            # each item one of the type's values lo .. lo + size - 1 (known ones too), each once
            ok = AND(len(items) == size, *[AND(x >= lo, x < lo + size) if concrete(x) is None
                                           else lo <= concrete(x) < lo + size for x in items])
            if len(items) == size and size > 1:
                ok = AND(ok, z3.Distinct(*items) if any(concrete(x) is None for x in items)
                         else len(set(items)) == len(items))
            self.fault(NOT(ok), "not an order of all values", span)
            return SeqV(items)
        if isinstance(dst, OptT) and not isinstance(value, OptV):
            return OptV(True, value)
        if isinstance(dst, SetT) and isinstance(value, SetV) and isinstance(src, SetT) and src.elem != dst.elem \
                and isinstance(dst.elem, (IntT, PlayerT)) and isinstance(src.elem, (IntT, PlayerT)):
            # a set of another range: each value to its own bit (as the interpreter, make_set)
            slo, dlo = (t.lo if isinstance(t, IntT) else 0 for t in (src.elem, dst.elem))
            bits = [False] * self.dom.size(dst.elem)
            for i, b in enumerate(value.bits):
                j = slo + i - dlo
                if 0 <= j < len(bits):
                    bits[j] = b
                elif not is_false(b):
                    self.fault(b, "a value outside the set's element type", span)
            return SetV(bits)
        if isinstance(dst, MapT) and isinstance(value, MapV) and isinstance(src, MapT) and src.value != dst.value \
                and isinstance(dst.value, IntT) and isinstance(src.value, IntT):
            lo, hi = dst.value.lo, dst.value.hi  # a wider map's values (as the interpreter, check_values)
            for x in value.items:
                c = concrete(x)
                if c is None:
                    self.fault(OR(x < lo, x > hi), f"a value outside {lo}..{hi}", span)
                elif not lo <= c <= hi:
                    self.fault(True, f"a value outside {lo}..{hi}", span)
        return copy_value(value)

    def st_Assign(self, s):
        var = self.enc.vars[s.target.var]
        if var.zone:  # assigning a zone creates or destroys cards: keep the ledger of totals
            before = self._zone_total(s.target.var)
            self._assign(s)
            self._ledger_change(s.target.var, before, self._zone_total(s.target.var))
            return
        self._assign(s)

    def _assign(self, s):
        t = s.target.type
        current, setter = self.place_get(s.target)
        value = self.ev(s.value)
        what = s.target.var + "".join("[…]" for _ in s.target.path)
        if s.op == ":=":
            new = self.convert(value, s.value.type, t, s.span)
            self.range_fault(t, new if not isinstance(new, OptV) or isinstance(t, OptT) else new, what, s.span)
            setter(new)
            return
        if isinstance(t, BagT):
            add = self.as_counts(s.value.type, value)
            if s.op == "+=":
                setter(BagV([x + y for x, y in zip(current.counts, add)]))
            else:
                self.fault(OR(*[x < y for x, y in zip(current.counts, add) if not (concrete(y) == 0)]),
                           f"{what}: taking cards that are not there", s.span)
                setter(BagV([x - y for x, y in zip(current.counts, add)]))
            return
        if isinstance(t, SetT):
            bits = value.bits
            if s.op == "+=":
                setter(SetV([OR(x, y) for x, y in zip(current.bits, bits)]))
            else:
                setter(SetV([AND(x, NOT(y)) for x, y in zip(current.bits, bits)]))
            return
        c1, c2 = concrete(current), concrete(value)
        if c1 is not None and c2 is not None:
            new = c1 + c2 if s.op == "+=" else c1 - c2
        else:
            new = current + value if s.op == "+=" else current - value
        self.range_fault(t, new, what, s.span)
        setter(new)

    # cards in and out of zones
    def _add(self, zone, elem_t, card_key, end, count=1):
        """zone with `count` copies of the card (index card_key) added on top or at the bottom."""
        if isinstance(zone, SeqPileV):
            if concrete(count) != 1:
                raise Unsupported("several copies of a card onto a pile followed card by card")
            return self.seq_push(zone, card_key, end)
        c = concrete(card_key)
        counts = list(zone.counts)
        if c is not None:
            if 0 <= c < len(counts):  # (beyond: no card of the type, a record's field out of range, faulted)
                counts[c] = counts[c] + count
        elif concrete(count) == 1:
            counts = [x + o for x, o in zip(counts, self.indicators(elem_t, card_key, len(counts)))]
        else:
            counts = [x + ITE(EQ(card_key, i), count, 0) for i, x in enumerate(counts)]
        if isinstance(zone, BagV):
            return BagV(counts)
        positive = count > 0 if isinstance(count, z3.ExprRef) else count > 0
        if end == "top":
            top = OptV(OR(zone.top.some, positive), ITE(positive, card_key, zone.top.val))
        else:
            top = OptV(OR(zone.top.some, positive), ITE(zone.top.some, zone.top.val, card_key))
        return PileV(counts, top)

    def _event(self, kind: str, zone_name: str, pile: PileV, t: Type):
        """A fresh choice of the card on top (or at the bottom) of a pile among those it holds."""
        var = z3.Int(f"{self.tag}.{kind}.{zone_name}.{next(self.enc.names)}")
        present = SUM(pile.counts) > 0 if pile.counts else False
        size = len(pile.counts)
        self.constraints.append(AND(var >= 0, var < max(size, 1)))
        if size:
            os = self.onehot(var, size)
            when = AND(self.live(), present)
            self.constraints.extend(IMPLIES(when, o <= c) for o, c in zip(os, pile.counts))
        self.events.append(Event(kind, zone_name, var, AND(self.pc, self.alive), present, t))
        return var, present

    def zone_name(self, p: ir.Place) -> str:
        if not p.path:
            return p.var
        parts = []
        for idx in p.path:
            c = concrete(self.ev(idx))
            parts.append(str(c) if c is not None else "?")
        return f"{p.var}[{']['.join(parts)}]"

    def st_Move(self, s):
        src_t, dst_t = s.src.type, s.dst.type
        what = s.src.var + "".join("[…]" for _ in s.src.path)
        if s.what == "one":
            card = self.ev(s.value)
            k = self.key(src_t.elem, card)
            src, set_src = self.place_get(s.src)
            have = select(src.counts, k, 0)
            self.fault(have < 1 if isinstance(have, z3.ExprRef) else have < 1, f"the card is not in {what}", s.span)
            if isinstance(src, SeqPileV):
                set_src(self.seq_remove(src, k, s.src_end == "top"))
                dst, set_dst = self.place_get(s.dst)
                set_dst(self._add(dst, dst_t.elem, self.key(dst_t.elem, card), s.dst_end))
                return
            counts = list(src.counts)
            c = concrete(k)
            if c is not None:
                if 0 <= c < len(counts):  # (beyond: no card of the type; "not in" faulted above)
                    counts[c] = counts[c] - 1
            else:
                counts = [x - o for x, o in zip(counts, self.indicators(src_t.elem, k, len(counts)))]
            if isinstance(src, PileV):
                new = PileV(counts, src.top)
                var, present = self._event("top", self.zone_name(s.src), new, src_t.elem)
                was_top = AND(src.top.some, EQ(src.top.val, k))
                if s.src_end == "top":  # the topmost copy goes: the top changes only when it was this card
                    self.constraints.append(IMPLIES(AND(self.pc, NOT(was_top), present), EQ(var, src.top.val)))
                new.top = OptV(present, var)
                set_src(new)
            else:
                set_src(BagV(counts))
            dst, set_dst = self.place_get(s.dst)
            set_dst(self._add(dst, dst_t.elem, self.key(dst_t.elem, card), s.dst_end))
            return
        if s.what == "count":
            src, _set = self.place_get(s.src)
            if isinstance(src, SeqPileV):
                self._draw_exact(s, what, dst_t)
            else:
                dst, _set = self.place_get(s.dst)
                if isinstance(dst, SeqPileV):
                    raise Unsupported("cards drawn from a large pile onto a pile followed card by card", s.span)
                self._draw(s, what, dst_t)
            return
        if s.what == "bag":
            bag = self.as_counts(s.value.type, self.ev(s.value))
            src, set_src = self.place_get(s.src)
            self.fault(OR(*[x < y for x, y in zip(src.counts, bag) if not (concrete(y) == 0)]),
                       f"moving cards out of {what}: not there", s.span)
            counts = [x - y for x, y in zip(src.counts, bag)]
            if isinstance(src, SeqPileV):  # the interpreter takes them in index order, each its topmost copy
                if any(concrete(c) is None for c in bag):
                    raise Unsupported("a bag of unknown cards out of a pile followed card by card", s.span)
                new = src
                for k, c in enumerate(bag):
                    for _ in range(concrete(c)):
                        new = self.seq_remove(new, k, s.src_end == "top")
                set_src(new)
                dst, set_dst = self.place_get(s.dst)
                self._put_bag(dst, set_dst, bag, s.dst_end)
                return
            if isinstance(src, PileV):
                new = PileV(counts, src.top)
                tvar, present = self._event("top", self.zone_name(s.src), new, src_t.elem)
                new.top = OptV(present, tvar)
                set_src(new)
            else:
                set_src(BagV(counts))
            dst, set_dst = self.place_get(s.dst)
            self._put_bag(dst, set_dst, bag, s.dst_end)
            return
        # all
        src, set_src = self.place_get(s.src)
        moving = list(src.counts)
        src_top = src.top if isinstance(src, (PileV, SeqPileV)) else None
        set_src(self.enc.default(src_t))
        dst, set_dst = self.place_get(s.dst)
        if isinstance(dst, SeqPileV):
            if isinstance(src, SeqPileV):
                set_dst(self.seq_concat(dst, src) if s.dst_end == "top" else self.seq_concat(src, dst))
            elif isinstance(src, BagV):
                self._put_bag(dst, set_dst, moving, s.dst_end)
            else:
                raise Unsupported("a large pile moved onto a pile followed card by card", s.span)
        elif isinstance(dst, BagV):
            set_dst(BagV([x + y for x, y in zip(dst.counts, moving)]))
        elif src_top is not None:
            counts = [x + y for x, y in zip(dst.counts, moving)]
            if s.dst_end == "top":
                top = OptV(OR(dst.top.some, src_top.some), ITE(src_top.some, src_top.val, dst.top.val))
            else:
                top = OptV(OR(dst.top.some, src_top.some), ITE(dst.top.some, dst.top.val, src_top.val))
            set_dst(PileV(counts, top))
        else:
            self._put_bag(dst, set_dst, moving, s.dst_end)

    def _draw_exact(self, s, what, dst_t):
        """`draw n` from a pile followed card by card: n pops (a refill turns the other zone over, or
        shuffles it: a chance event), with the pile's exhaustion rule when it is still empty."""
        var = self.enc.vars[s.src.var]
        n = self.ev(s.value)
        bound = concrete(n)
        if bound is None:
            bound = self.static_bound(s.value)
            if bound is None:
                raise Unsupported("a number of cards to draw that is not bounded", s.span)
        stopped = {"v": False}

        def one():
            src, set_src = self.place_get(s.src)
            if var.refill:
                def refill():
                    src, set_src = self.place_get(s.src)
                    other_place = ir.Place(var.refill, (), self.enc.vars[var.refill].type)
                    other, set_other = self.place_get(other_place)
                    if isinstance(other, SeqPileV):  # turned over: its top card becomes the bottom
                        cap, m = len(other.items), other.size
                        rev = [select(other.items, m - 1 - i, 0) if concrete(m) is None else
                               (other.items[concrete(m) - 1 - i] if i < concrete(m) else 0) for i in range(cap)]
                        fresh = SeqPileV(rev, m, other.kinds)
                    else:
                        fresh = self.seq_from_counts(other.counts, src.kinds, len(src.items))
                    if var.refill_shuffled:
                        fresh = self.seq_shuffle(fresh, self.zone_name(s.src), s.src.type.elem)
                    set_other(self.enc.default(self.enc.vars[var.refill].type))
                    set_src(self.seq_concat(src, fresh))
                self.branch(EQ(src.size, 0) if concrete(src.size) is None else concrete(src.size) == 0, refill)
                src, set_src = self.place_get(s.src)
            empty = EQ(src.size, 0) if concrete(src.size) is None else concrete(src.size) == 0
            if var.exhausted == "skip":
                stopped["v"] = OR(stopped["v"], AND(self.pc, empty))
                self.branch(NOT(empty), take)
                return
            if var.exhausted == "undecided":
                self.gap(empty, var.exhausted_gap.id)
            else:
                self.fault(empty, f"drew from an empty pile: {what}", s.span)
            take()

        def take():
            src, set_src = self.place_get(s.src)
            card, new = self.seq_pop(src, s.src_end)
            set_src(new)
            dst, set_dst = self.place_get(s.dst)
            set_dst(self._add(dst, dst_t.elem, card, s.dst_end))

        for i in range(bound):
            if is_false(self.alive):
                break
            live = AND(NOT(stopped["v"]), i < n) if concrete(n) is None else NOT(stopped["v"])
            if is_false(live):
                break
            self.branch(live, one)

    def _segment(self, counts, top: OptV, want, from_top: bool, name: str):
        """Take min(want, size) cards out of a pile as one multiset D (0 <= D_j <= counts_j): the
        prover does not follow a pile's order, so any such D is possible, provided it holds the top
        card when taken from the top (and leaves the top when taken from the bottom of a bigger pile),
        when the pile has a known top: after a refill it has none (`top.some` false, its value 0)."""
        size = SUM(counts)
        k = ITE(want <= size, want, size)
        ds = [z3.Int(f"{name}.{j}") for j in range(len(counts))]
        live = self.live()  # (after a fault earlier in the move a count may be negative)
        self.constraints.extend(AND(d >= 0, IMPLIES(live, d <= c)) for d, c in zip(ds, counts))
        self.constraints.append(IMPLIES(live, SUM(ds) == k) if len(ds) else True)
        self.constraints.append(IMPLIES(NOT(live), AND(*[d == 0 for d in ds])))
        for j, d in enumerate(ds):
            if from_top:
                self.constraints.append(IMPLIES(AND(live, top.some, k >= 1, EQ(top.val, j)), d >= 1))
            else:
                self.constraints.append(IMPLIES(AND(live, top.some, k < size, EQ(top.val, j)), d <= counts[j] - 1))
        return ds, [c - d for c, d in zip(counts, ds)], k

    def _draw(self, s, what, dst_t):
        """`draw n` / `move n from top|bottom of P`: one multiset of cards, with a refill when the pile
        runs out, then the pile's exhaustion rule; one chance event gives the cards and the new top."""
        var = self.enc.vars[s.src.var]
        when = AND(self.pc, self.alive)  # the draw starts here, whatever happens during it
        n = self.ev(s.value)
        want = ITE(n < 0, 0, n) if concrete(n) is None else max(concrete(n), 0)
        src, set_src = self.place_get(s.src)
        name = f"{self.tag}.draw{next(self.enc.names)}"
        from_top = s.src_end == "top"
        drawn, counts, k1 = self._segment(src.counts, src.top, want, from_top, name + ".a")
        left = want - k1
        total = list(drawn)
        if var.refill:
            other_place = ir.Place(var.refill, (), self.enc.vars[var.refill].type)
            other, set_other = self.place_get(other_place)
            more = left > 0 if not isinstance(left, int) else left > 0
            refilled = [c + ITE(more, o, 0) for c, o in zip(counts, other.counts)]
            set_other(merge(more, self.enc.default(self.enc.vars[var.refill].type), other))
            # after a refill the pile's order is new: no constraint on which cards come first
            ds2, counts, k2 = self._segment(refilled, OptV(False, 0), ITE(more, left, 0), True, name + ".b")
            total = [x + y for x, y in zip(total, ds2)]
            left = left - k2
        short = left > 0 if not isinstance(left, int) else left > 0
        if var.exhausted == "undecided":
            self.gap(short, var.exhausted_gap.id)
        elif var.exhausted != "skip":
            self.fault(short, f"drew from an empty pile: {what}", s.span)
        present = SUM(counts) > 0
        taken = SUM(total) >= 1
        top_var = z3.Int(f"{name}.top")
        self.constraints.append(AND(top_var >= 0, top_var < max(len(counts), 1)))
        if counts:
            os = self.onehot(top_var, len(counts))
            self.constraints.extend(IMPLIES(AND(self.live(), present), o <= c) for o, c in zip(os, counts))
        if from_top:
            new_top = OptV(present, ITE(taken, top_var, src.top.val))
        else:  # taking from the bottom leaves the top, unless everything went
            new_top = OptV(present, ITE(AND(taken, NOT(AND(src.top.some, EQ(k1, SUM(src.counts))))),
                                        src.top.val, top_var))
        set_src(PileV(counts, new_top))
        dst, set_dst = self.place_get(s.dst)
        last = self._put_counts(dst, set_dst, total, s.dst_end)
        self.events.append(DrawEvent(self.zone_name(s.src), total, top_var, when, present,
                                     s.src.type.elem, from_top, last))

    def _put_counts(self, dst, set_dst, bag, end):
        """Drawn cards onto a zone. Onto a pile they come one by one: the last drawn ends on top,
        one of the drawn cards (which one is part of the draw's chance outcome). Returns it, or None."""
        counts = [x + y for x, y in zip(dst.counts, bag)]
        if isinstance(dst, BagV):
            set_dst(BagV(counts))
            return None
        added = SUM(bag) >= 1
        var = z3.Int(f"{self.tag}.last{next(self.enc.names)}")
        self.constraints.append(AND(var >= 0, var < max(len(counts), 1)))
        os = self.onehot(var, len(counts))
        self.constraints.extend(IMPLIES(AND(self.pc, added), o <= b) for o, b in zip(os, bag))
        if end == "top":
            top = OptV(OR(dst.top.some, added), ITE(added, var, dst.top.val))
        else:  # put under: the top stays, unless the pile was empty (then the first drawn is on top)
            first = z3.Int(f"{self.tag}.first{next(self.enc.names)}")
            self.constraints.append(AND(first >= 0, first < max(len(counts), 1)))
            fos = self.onehot(first, len(counts))
            self.constraints.extend(IMPLIES(AND(self.pc, added), o <= b) for o, b in zip(fos, bag))
            top = OptV(OR(dst.top.some, added), ITE(dst.top.some, dst.top.val, first))
            set_dst(PileV(counts, top))
            return ("bottom", first)
        set_dst(PileV(counts, top))
        return ("top", var)

    # exact piles: positions 0 (bottom) .. size-1 (top)
    def seq_push(self, pile: SeqPileV, card, end: str, span=None) -> SeqPileV:
        cap, n = len(pile.items), pile.size
        self.fault(n >= cap if concrete(n) is None else concrete(n) >= cap,
                   f"{BEYOND_EXACT} ({cap})", span)
        if end == "top":
            c = concrete(n)
            items = list(pile.items)
            if c is not None:
                if c < cap:
                    items[c] = card
            else:
                items = [ITE(EQ(n, i), card, x) for i, x in enumerate(items)]
        else:
            items = [card] + pile.items[:-1]
        return SeqPileV(items, n + 1 if concrete(n) is None else concrete(n) + 1, pile.kinds)

    def seq_pop(self, pile: SeqPileV, end: str):
        n = pile.size
        c = concrete(n)
        if end == "top":
            # (a known size beyond the capacity follows a run-time error: no card of the pile)
            card = pile.items[c - 1] if c is not None and 0 < c <= len(pile.items) else select(pile.items, n - 1, 0)
            return card, SeqPileV(pile.items, n - 1 if c is None else max(c - 1, 0), pile.kinds)
        return pile.items[0], SeqPileV(pile.items[1:] + [0], n - 1 if c is None else max(c - 1, 0), pile.kinds)

    def seq_remove(self, pile: SeqPileV, card, from_top: bool) -> SeqPileV:
        """Without the topmost (or bottommost) copy of a card, the cards above it moving down."""
        cap, n = len(pile.items), pile.size
        j = cap
        order = range(cap) if from_top else range(cap - 1, -1, -1)
        for i in order:  # the last match in this order wins
            j = ITE(AND(_lt(i, n), EQ(pile.items[i], card)), i, j)
        items = [ITE(_lt(i, j) if concrete(j) is None else i < concrete(j), x,
                     pile.items[i + 1] if i + 1 < cap else 0) for i, x in enumerate(pile.items)]
        return SeqPileV(items, n - 1 if concrete(n) is None else concrete(n) - 1, pile.kinds)

    def seq_from_counts(self, counts, kinds: int, cap: int) -> SeqPileV:
        """Cards of a bag as a pile in index order (the highest on top), as the interpreter lays them."""
        bounds, acc = [], 0
        for c in counts:
            acc = acc + c if not (concrete(acc) is not None and concrete(c) is not None) else concrete(acc) + concrete(c)
            bounds.append(acc)
        items = []
        for i in range(cap):
            value = kinds - 1
            for k in range(kinds - 2, -1, -1):
                value = ITE(_lt(i, bounds[k]), k, value)
            items.append(value)
        return SeqPileV(items, acc, kinds)

    def seq_concat(self, low: SeqPileV, high: SeqPileV) -> SeqPileV:
        """low's cards with high's on top of them."""
        cap, nl = len(low.items), low.size
        cl = concrete(nl)
        items = []
        for i in range(cap):
            if cl is not None:
                items.append(low.items[i] if i < cl else (high.items[i - cl] if i - cl < len(high.items) else 0))
            else:
                items.append(ITE(_lt(i, nl), low.items[i], select(high.items, i - nl, 0)))
        size = nl + high.size if not (cl is not None and concrete(high.size) is not None) else cl + concrete(high.size)
        self.fault(size > cap if concrete(size) is None else concrete(size) > cap,
                   f"{BEYOND_EXACT} ({cap})", None)
        return SeqPileV(items, size, low.kinds)

    def seq_shuffle(self, pile: SeqPileV, zone: str, elem) -> SeqPileV:
        """Any arrangement of the same cards (a chance event: the order)."""
        cap, n = len(pile.items), pile.size
        name = f"{self.tag}.order{next(self.enc.names)}"
        items = [z3.Int(f"{name}.{i}") for i in range(cap)]
        self.constraints.extend(AND(x >= 0, x < pile.kinds) for x in items)
        new = SeqPileV(items, n, pile.kinds)
        known = [concrete(c) for c in pile.counts]
        cn = concrete(n)
        if cn is not None and all(c is not None and c <= 1 for c in known):
            # distinct cards (tiles): the new order is an arrangement of exactly those
            # (only on a live path: after a run-time error earlier in the move the size may be
            # one less than the cards, or -1, and the path's state is no state of the game)
            present = [k for k, c in enumerate(known) if c == 1]
            live = self.live()
            self.constraints.extend(IMPLIES(live, z3.Or(*[x == k for k in present]) if present else False) for x in items[:max(cn, 0)])
            if cn > 1:
                self.constraints.append(IMPLIES(live, z3.Distinct(*items[:cn])))
        else:
            self.constraints.extend(IMPLIES(self.live(), EQ(a, b)) for a, b in zip(new.counts, pile.counts))
        self.events.append(Event("order", zone, SeqV(items), AND(self.pc, self.alive), n, elem))
        return new

    def _put_bag(self, dst, set_dst, bag, end):
        """Cards of a bag onto a zone; onto a pile they go in index order (the highest ends on top)."""
        if isinstance(dst, SeqPileV):
            block = self.seq_from_counts(bag, dst.kinds, len(dst.items))
            set_dst(self.seq_concat(dst, block) if end == "top" else self.seq_concat(block, dst))
            return
        counts = [x + y for x, y in zip(dst.counts, bag)]
        if isinstance(dst, BagV):
            set_dst(BagV(counts))
            return
        top_some, top_val = False, 0
        for k, c in enumerate(bag):
            pos = c > 0 if isinstance(c, z3.ExprRef) else c > 0
            top_val = ITE(pos, k, top_val)
            top_some = OR(top_some, pos)
        if end == "top":
            top = OptV(OR(dst.top.some, top_some), ITE(top_some, top_val, dst.top.val))
        else:  # cards put under keep the top, unless the pile was empty: then the highest is on top
            top = OptV(OR(dst.top.some, top_some), ITE(dst.top.some, dst.top.val, top_val))
        set_dst(PileV(counts, top))

    def bounds(self, e: ir.Expr) -> tuple[int | None, int | None]:
        """(lowest, highest) value an integer expression can have, from types and arithmetic."""
        if isinstance(e, ir.Lit) and type(e.value) is int:
            return e.value, e.value
        if isinstance(e, ir.NumPlayers):
            return self.n, self.n
        if isinstance(e, ir.ConstRef):
            c = concrete(self.consts.get(e.name))
            return c, c
        if isinstance(e.type, PlayerT):
            return 0, self.n - 1
        if isinstance(e.type, EnumT):
            return 0, self.dom.size(e.type) - 1
        if isinstance(e, ir.Builtin):
            if e.name in ("distance", "left", "right", "seat"):
                return 0, self.n - 1
            if e.name in ("size", "total", "abs"):
                return 0, None
        if isinstance(e, ir.Aggregate) and e.kind == "count":
            return 0, None
        if isinstance(e, ir.Binary) and e.op in "+-":
            (a, b), (c, d) = self.bounds(e.left), self.bounds(e.right)
            if e.op == "+":
                return (None if a is None or c is None else a + c), (None if b is None or d is None else b + d)
            return (None if a is None or d is None else a - d), (None if b is None or c is None else b - c)
        if isinstance(e, ir.Cond):
            (a, b), (c, d) = self.bounds(e.then), self.bounds(e.other)
            return (None if a is None or c is None else min(a, c)), (None if b is None or d is None else max(b, d))
        if isinstance(e.type, IntT) and e.type.finite:
            return e.type.lo, e.type.hi
        return None, None

    def static_bound(self, e: ir.Expr) -> int | None:
        """An upper bound of an integer expression from its variables' types, or None."""
        if isinstance(e, ir.Lit) and type(e.value) is int:
            return e.value
        if isinstance(e, ir.NumPlayers):
            return self.n
        if isinstance(e, (ir.Var, ir.ParamRef, ir.Local, ir.Index, ir.Field)) and isinstance(e.type, IntT):
            return e.type.hi
        if isinstance(e, ir.ConstRef):
            c = concrete(self.consts.get(e.name))
            return c
        if isinstance(e, ir.Binary):
            if e.op == "+":
                a, b = self.static_bound(e.left), self.static_bound(e.right)
                return None if a is None or b is None else a + b
            if e.op == "-":
                a = self.static_bound(e.left)
                lo = self.static_lower(e.right)
                return None if a is None or lo is None else a - lo
        if isinstance(e, ir.Cond):
            a, b = self.static_bound(e.then), self.static_bound(e.other)
            return None if a is None or b is None else max(a, b)
        return None

    def static_lower(self, e: ir.Expr) -> int | None:
        if isinstance(e, ir.Lit) and type(e.value) is int:
            return e.value
        if isinstance(e, ir.Builtin) and e.name in ("size", "total"):
            return 0
        if isinstance(e, ir.Aggregate) and e.kind == "count":
            return 0
        if isinstance(e.type, IntT) and e.type.lo is not None and isinstance(e, (ir.Var, ir.Local, ir.Index)):
            return e.type.lo
        if isinstance(e, ir.Binary) and e.op == "+":
            a, b = self.static_lower(e.left), self.static_lower(e.right)
            return None if a is None or b is None else a + b
        return None

    def gap(self, cond, gap_id: int):
        c = AND(self.pc, self.alive, cond)  # reached only when nothing stopped the step before
        if is_false(c):
            return
        self.gaps.append((c, gap_id))
        self.alive = AND(self.alive, NOT(AND(self.pc, cond)))

    def st_Shuffle(self, s):
        pile, set_pile = self.place_get(s.zone)
        if isinstance(pile, SeqPileV):
            set_pile(self.seq_shuffle(pile, self.zone_name(s.zone), s.zone.type.elem))
            return
        new = PileV(pile.counts, pile.top)
        var, present = self._event("top", self.zone_name(s.zone), new, s.zone.type.elem)
        new.top = OptV(present, var)
        set_pile(new)

    def branch(self, cond, then_fn, else_fn=None):
        """Run then_fn where cond holds and else_fn where it does not, each on its own copy of the
        state, and merge the two states once (one if-then-else per changed value, not per update)."""
        if is_true(cond):
            then_fn()
            return
        if is_false(cond):
            if else_fn:
                else_fn()
            return
        saved_pc, before, saved_locals = self.pc, dict(self.state), dict(self.locals)
        ledger_before = dict(self.ledger)
        node = {"cond": cond, "then": [], "else": []}
        parent = self._branch_at
        parent.append(node)
        self.pc = AND(saved_pc, cond)
        self._branch_at = node["then"]
        then_fn()
        after_then, ledger_then = self.state, self.ledger
        self.state, self.locals, self.ledger = dict(before), dict(saved_locals), dict(ledger_before)
        self.pc = AND(saved_pc, NOT(cond))
        self._branch_at = node["else"]
        if else_fn:
            else_fn()
        after_else, ledger_else = self.state, self.ledger
        self.pc, self.locals, self._branch_at = saved_pc, saved_locals, parent
        merged = {}
        for name, old in before.items():
            a, b = after_then[name], after_else[name]
            merged[name] = a if a is b else merge(cond, a, b)
        self.state = merged
        ledger = {}
        for key in set(ledger_then) | set(ledger_else):
            a, b = ledger_then.get(key), ledger_else.get(key)
            if a is None:
                a = [0] * len(b)
            if b is None:
                b = [0] * len(a)
            ledger[key] = a if a is b else [ITE(cond, x, y) for x, y in zip(a, b)]
        self.ledger = ledger

    def st_If(self, s):
        c = self.ev(s.cond)
        self.branch(c, lambda: self.run(s.then), (lambda: self.run(s.other)) if s.other else None)

    def st_For(self, s):
        d = s.domain
        if isinstance(d, ir.ExprDomain) and isinstance(d.expr.type, (BagT, PileT)):
            elems = self.elements(d)
            if any(concrete(w) is None or concrete(w) > 1 for _v, w, _p in elems):
                raise Unsupported("a `for` over a zone (each card in turn); use `move all` or a quantifier", s.span)
        else:
            elems = self.elements(d)
        if s.order is not None:
            elems = self.sorted_elements(s, elems)
        for value, _w, present in elems:
            def body(value=value):
                def inner():
                    if s.where is not None:
                        self.branch(self.ev(s.where), lambda: self.run(s.body))
                    else:
                        self.run(s.body)
                self.branch(present, inner)

            self.bind(s.var, value, body)

    def sorted_elements(self, s, elems):
        """Elements in the order of a key (stable): position i holds the element with i smaller keys."""
        keys = []
        for value, _w, _p in elems:
            keys.append(self.bind(s.var, value, lambda: self.ev(s.order)))
        if all(concrete(k) is not None for k in keys if not isinstance(k, SeqV)) and not any(isinstance(k, SeqV) for k in keys):
            order = sorted(range(len(elems)), key=lambda i: concrete(keys[i]))
            return [elems[i] for i in order]
        if any(isinstance(k, SeqV) for k in keys):
            raise Unsupported("`ordered by` a tuple of values that depend on the state", s.span)
        if any(not is_true(p) for _v, _w, p in elems):
            raise Unsupported("`ordered by` over elements that may be absent", s.span)
        m = len(elems)
        out = []
        for pos in range(m):
            value = 0
            for i in range(m):
                smaller = SUM([ITE(OR(keys[j] < keys[i], AND(EQ(keys[j], keys[i]), j < i)) if j != i else False, 1, 0)
                               for j in range(m)])
                value = ITE(EQ(smaller, pos), elems[i][0], value)
            out.append((value, 1, True))
        return out

    def st_Let(self, s):
        v = self.ev(s.value)
        if s.declared is not None:
            self.range_fault(s.declared, v, f"argument {s.name.split('__')[-1]}", s.span)
        fresh = isinstance(v, z3.ExprRef) and not z3.is_const(v)
        named = self.name_term(copy_value(v), s.name)
        if fresh and z3.is_const(named):
            self.named.append((s.value.type, named))
        self.locals[s.name] = named

    def name_term(self, v, hint: str):
        """A deep scalar term as a fresh variable with a defining equation, so that the many places
        using it share one atom (a let-bound trick winner indexes every zone it touches)."""
        if isinstance(v, z3.ArithRef) and not z3.is_const(v):
            x = z3.Int(f"{self.tag}.let.{hint}.{next(self.enc.names)}")
        elif isinstance(v, z3.BoolRef) and not z3.is_const(v):
            x = z3.Bool(f"{self.tag}.let.{hint}.{next(self.enc.names)}")
        else:
            return v
        self.constraints.append(x == v)
        return x

    def st_Undecided(self, s):
        self.gap(True, s.id)


_MISSING = object()

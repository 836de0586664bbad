"""The transition system a spec denotes: typed state, init, guarded actions, properties, scenarios.

Back-ends (interpreter, hypothesis, z3) read only this module and trace.py. Expressions are
typed and resolved: every name is a state variable, parameter, constant, local or builtin.
Procedures are already expanded in place and `draw` is a `Move` of a count.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .source import Span
from .types import EnumT, RecordT, Type


@dataclass(frozen=True)
class Cite:
    locator: str
    quote: str | None = None
    span: Span | None = field(default=None, compare=False)

    def label(self) -> str:
        return f'"{self.locator}"' + (f' "{self.quote}"' if self.quote else "")

    def to_json(self) -> dict:
        return {"locator": self.locator, "quote": self.quote}


# ---- expressions -------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class Expr:
    type: Type
    span: Span | None


@dataclass(frozen=True, eq=False)
class Lit(Expr):
    value: object = None


@dataclass(frozen=True, eq=False)
class Var(Expr):
    """A state variable or zone, by name."""

    name: str = ""


@dataclass(frozen=True, eq=False)
class ParamRef(Expr):
    name: str = ""


@dataclass(frozen=True, eq=False)
class ConstRef(Expr):
    name: str = ""


@dataclass(frozen=True, eq=False)
class Local(Expr):
    name: str = ""


@dataclass(frozen=True, eq=False)
class NumPlayers(Expr):
    pass


@dataclass(frozen=True, eq=False)
class Index(Expr):
    """base[index]: a map's value, a zone's count of a card, or an order's element at a position."""

    base: Expr = None
    index: Expr = None


@dataclass(frozen=True, eq=False)
class Field(Expr):
    base: Expr = None
    name: str = ""


@dataclass(frozen=True, eq=False)
class Unary(Expr):
    op: str = ""  # "-" | "not"
    operand: Expr = None


@dataclass(frozen=True, eq=False)
class Binary(Expr):
    op: str = ""  # + - * / % == != < <= > >= and or implies (and bag/set + -)
    left: Expr = None
    right: Expr = None


@dataclass(frozen=True, eq=False)
class Member(Expr):
    elem: Expr = None
    coll: "Domain" = None
    negated: bool = False


@dataclass(frozen=True, eq=False)
class Cond(Expr):
    cond: Expr = None
    then: Expr = None
    other: Expr = None


@dataclass(frozen=True, eq=False)
class Aggregate(Expr):
    """kind over one bound variable: sum count all any min max argmin argmax.

    Over a bag or pile the variable takes each card, duplicates included (sum and count see them).
    """

    kind: str = ""
    var: str = ""
    domain: "Domain" = None
    where: Expr | None = None
    body: Expr | None = None


@dataclass(frozen=True, eq=False)
class Builtin(Expr):
    name: str = ""
    args: tuple[Expr, ...] = ()


@dataclass(frozen=True, eq=False)
class Make(Expr):
    """A record or card value from its fields, in declaration order."""

    record: RecordT = None
    args: tuple[Expr, ...] = ()


@dataclass(frozen=True, eq=False)
class BagItem:
    count: Expr | None
    elem: Expr
    binders: tuple[tuple[str, "Domain"], ...] = ()
    where: Expr | None = None


@dataclass(frozen=True, eq=False)
class BagOf(Expr):
    """A bag (or set, by its type) literal, with comprehensions."""

    items: tuple[BagItem, ...] = ()


@dataclass(frozen=True, eq=False)
class ListOf(Expr):
    elems: tuple[Expr, ...] = ()


@dataclass(frozen=True, eq=False)
class TupleOf(Expr):
    elems: tuple[Expr, ...] = ()


@dataclass(frozen=True, eq=False)
class Apply(Expr):
    """A call of a user definition (a pure, non-recursive expression)."""

    name: str = ""
    args: tuple[Expr, ...] = ()


# ---- domains (what a bound variable ranges over) ------------------------------------------

@dataclass(frozen=True, eq=False)
class Domain:
    span: Span | None


@dataclass(frozen=True, eq=False)
class TypeDomain(Domain):
    type: Type = None


@dataclass(frozen=True, eq=False)
class RangeDomain(Domain):
    lo: Expr = None
    hi: Expr = None


@dataclass(frozen=True, eq=False)
class ExprDomain(Domain):
    """The elements of a zone (with duplicates), a set, an order or a list."""

    expr: Expr = None


# ---- statements --------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class Place:
    """An assignable location: a state variable and a path of indices (hand[p], bid[p])."""

    var: str
    path: tuple[Expr, ...]
    type: Type
    span: Span | None = None


@dataclass(frozen=True, eq=False)
class Stmt:
    span: Span | None


@dataclass(frozen=True, eq=False)
class Assign(Stmt):
    target: Place = None
    op: str = ":="
    value: Expr = None


@dataclass(frozen=True, eq=False)
class Move(Stmt):
    """Move cards between zones. what: "one" (a card), "count" (n from a pile's end), "bag", "all"."""

    what: str = "one"
    value: Expr | None = None
    src: Place = None
    src_end: str = "top"
    dst: Place = None
    dst_end: str = "top"


@dataclass(frozen=True, eq=False)
class Shuffle(Stmt):
    zone: Place = None


@dataclass(frozen=True, eq=False)
class If(Stmt):
    cond: Expr = None
    then: tuple[Stmt, ...] = ()
    other: tuple[Stmt, ...] = ()


@dataclass(frozen=True, eq=False)
class For(Stmt):
    var: str = ""
    domain: Domain = None
    where: Expr | None = None
    order: Expr | None = None
    body: tuple[Stmt, ...] = ()


@dataclass(frozen=True, eq=False)
class Let(Stmt):
    name: str = ""
    value: Expr = None
    declared: Type | None = None  # a procedure's parameter type: the argument is range-checked


@dataclass(frozen=True, eq=False)
class Undecided(Stmt):
    """A reachable situation the rulebook leaves open; reaching it is a finding (a gap)."""

    id: int = 0
    reason: str = ""
    cite: Cite | None = None


# ---- declarations ------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class StateVar:
    name: str
    type: Type
    span: Span | None
    doc: str | None = None
    zone: bool = False
    visibility: str = "public"  # public | owner | count | hidden
    refill: str | None = None
    refill_shuffled: bool = False
    exhausted: str | None = None  # None: a fault; "skip"; "undecided"
    exhausted_gap: Undecided | None = None


@dataclass(frozen=True, eq=False)
class Param:
    name: str
    type: Type
    where: Expr | None
    span: Span | None
    cite: Cite | None = None
    doc: str | None = None


@dataclass(frozen=True, eq=False)
class Const:
    name: str
    type: Type
    value: Expr
    span: Span | None
    doc: str | None = None


@dataclass(frozen=True, eq=False)
class Def:
    name: str
    params: tuple[tuple[str, Type], ...]
    type: Type
    body: Expr
    span: Span | None
    doc: str | None = None


@dataclass(frozen=True, eq=False)
class Action:
    name: str
    params: tuple[tuple[str, Type], ...]
    by: Expr | None
    guard: tuple[Expr, ...]  # conjuncts, in the order written
    body: tuple[Stmt, ...]
    cite: Cite | None
    span: Span | None
    doc: str | None = None


@dataclass(frozen=True, eq=False)
class Property:
    """kind: invariant | reachable | terminates | bound."""

    kind: str
    name: str
    cite: Cite | None
    span: Span | None
    doc: str | None = None
    expr: Expr | None = None              # invariant, reachable
    cond: Expr | None = None              # terminates: while cond
    ranks: tuple[Expr, ...] = ()          # terminates: decreases (lexicographic)
    trigger: Expr | None = None           # bound: after trigger
    limit: int = 0                        # bound: at most limit
    action: str = ""                      # bound: ... occurrences of this action
    expect_violated: str | None = None    # known to fail, with the reason
    lemma: bool = False


@dataclass(frozen=True, eq=False)
class End:
    name: str
    cond: Expr
    cite: Cite | None
    span: Span | None
    doc: str | None = None


@dataclass(frozen=True, eq=False)
class Stat:
    name: str
    params: tuple[tuple[str, Type], ...]
    expr: Expr
    span: Span | None
    doc: str | None = None


# ---- scenarios ---------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class Step:
    span: Span | None


@dataclass(frozen=True, eq=False)
class SetParam(Step):
    target: Place = None
    value: Expr = None


@dataclass(frozen=True, eq=False)
class Setup(Step):
    body: tuple[Stmt, ...] = ()


@dataclass(frozen=True, eq=False)
class Do(Step):
    action: str = ""
    args: tuple[Expr, ...] = ()
    illegal: bool = False  # `expect illegal ...`: the move must not be legal


@dataclass(frozen=True, eq=False)
class ExpectStep(Step):
    expr: Expr = None


@dataclass(frozen=True, eq=False)
class ExpectGap(Step):
    pass


@dataclass(frozen=True, eq=False)
class ExpectEnd(Step):
    name: str | None = None


@dataclass(frozen=True, eq=False)
class Scenario:
    name: str
    cite: Cite | None
    players: int
    seed: int
    steps: tuple[Step, ...]
    span: Span | None
    doc: str | None = None


@dataclass(eq=False)
class Spec:
    """The whole transition system of one edition."""

    path: str
    game: str
    title: str | None
    edition: str | None
    edition_title: str | None
    source: str | None
    min_players: int
    max_players: int
    players_cite: Cite | None
    enums: dict[str, EnumT]
    records: dict[str, RecordT]
    consts: list[Const]
    params: list[Param]
    state: list[StateVar]
    defs: dict[str, Def]
    init: tuple[Stmt, ...]
    init_cite: Cite | None
    actions: list[Action]
    properties: list[Property]
    ends: list[End]
    stats: list[Stat]
    scenarios: list[Scenario]
    undecided: list[Undecided] = field(default_factory=list)
    other_cites: list[tuple[str, Cite]] = field(default_factory=list)  # on vars, zones, procs, stats
    init_span: Span | None = None  # the whole `init` declaration, for showing its text
    game_span: Span | None = None  # the `game` declaration
    players_span: Span | None = None  # the `players` declaration
    source_span: Span | None = None   # the `source` declaration

    def var(self, name: str) -> StateVar:
        return next(v for v in self.state if v.name == name)

    def action(self, name: str) -> Action | None:
        return next((a for a in self.actions if a.name == name), None)

    @property
    def label(self) -> str:
        return f"{self.game}/{self.edition}" if self.edition else self.game


def writes(spec: "Spec", stmts) -> set[str]:
    """The state variables statements may change: what they assign, the zones they move cards
    out of and into (with a pile's refill pile, emptied into it when it runs out) and shuffle."""
    out: set = set()
    stack = list(stmts)
    while stack:
        s = stack.pop()
        if isinstance(s, Assign):
            out.add(s.target.var)
        elif isinstance(s, Move):
            out.update((s.src.var, s.dst.var))
            refill = spec.var(s.src.var).refill
            if refill:
                out.add(refill)
        elif isinstance(s, Shuffle):
            out.add(s.zone.var)
        elif isinstance(s, If):
            stack.extend(s.then)
            stack.extend(s.other)
        elif isinstance(s, For):
            stack.extend(s.body)
        elif not isinstance(s, (Let, Undecided)):
            raise TypeError(f"writes: unknown statement {type(s).__name__}")
    return out


def reads(spec: "Spec", e) -> set[str]:
    """The state variables an expression may read, through the definitions it calls; `total`
    reads every zone."""
    names: set = set()
    seen: set = set()
    stack = [e]
    while stack:
        x = stack.pop()
        if isinstance(x, tuple):
            stack.extend(x)
            continue
        if not hasattr(x, "__dataclass_fields__") or id(x) in seen:
            continue
        seen.add(id(x))
        if isinstance(x, Var):
            names.add(x.name)
        elif isinstance(x, Apply):
            stack.append(spec.defs[x.name].body)
        elif isinstance(x, Builtin) and x.name == "total":
            names.update(v.name for v in spec.state if v.zone)
        for name in x.__dataclass_fields__:
            if name in ("type", "span"):
                continue
            stack.append(getattr(x, name))
    return names

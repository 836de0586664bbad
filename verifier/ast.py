"""The surface syntax of a .rules file as frozen dataclasses; every node carries its .span."""

from __future__ import annotations

from dataclasses import dataclass, field

from .source import Span


@dataclass(frozen=True)
class Node:
    span: Span = field(compare=False, repr=False)


# ---- citations and clauses ---------------------------------------------------------------

@dataclass(frozen=True)
class Cite(Node):
    locator: str = ""
    quote: str | None = None

    def label(self) -> str:
        return f'"{self.locator}"' + (f' "{self.quote}"' if self.quote else "")


@dataclass(frozen=True)
class When(Node):
    expr: "Expr" = None


@dataclass(frozen=True)
class By(Node):
    expr: "Expr" = None


@dataclass(frozen=True)
class Where(Node):
    expr: "Expr" = None


@dataclass(frozen=True)
class Visible(Node):
    mode: str = "public"  # public | owner | count | hidden


@dataclass(frozen=True)
class Refill(Node):
    source: str = ""
    shuffled: bool = False


@dataclass(frozen=True)
class Exhausted(Node):
    reason: str | None = None  # None: skip the draw; a reason: an undecided point
    cite: Cite | None = None


@dataclass(frozen=True)
class ExpectViolated(Node):
    reason: str = ""


@dataclass(frozen=True)
class Lemma(Node):
    pass


Clause = Cite | When | By | Where | Visible | Refill | Exhausted | ExpectViolated | Lemma


# ---- types -------------------------------------------------------------------------------

@dataclass(frozen=True)
class NamedType(Node):
    name: str = ""


@dataclass(frozen=True)
class RangeType(Node):
    lo: "Expr" = None
    hi: "Expr" = None


@dataclass(frozen=True)
class MapType(Node):
    key: "TypeExpr" = None
    value: "TypeExpr" = None


@dataclass(frozen=True)
class SetType(Node):
    elem: "TypeExpr" = None


@dataclass(frozen=True)
class OrderType(Node):
    elem: "TypeExpr" = None


@dataclass(frozen=True)
class BagType(Node):
    elem: "TypeExpr" = None


@dataclass(frozen=True)
class PileType(Node):
    elem: "TypeExpr" = None


@dataclass(frozen=True)
class OptType(Node):
    name: str = ""


TypeExpr = NamedType | RangeType | MapType | SetType | OrderType | BagType | PileType | OptType


# ---- expressions -------------------------------------------------------------------------

@dataclass(frozen=True)
class IntLit(Node):
    value: int = 0


@dataclass(frozen=True)
class StrLit(Node):
    value: str = ""


@dataclass(frozen=True)
class BoolLit(Node):
    value: bool = False


@dataclass(frozen=True)
class NoneLit(Node):
    pass


@dataclass(frozen=True)
class PlayersLit(Node):
    pass


@dataclass(frozen=True)
class Name(Node):
    id: str = ""


@dataclass(frozen=True)
class Arg(Node):
    name: str | None = None
    expr: "Expr" = None


@dataclass(frozen=True)
class Call(Node):
    func: str = ""
    args: tuple[Arg, ...] = ()
    func_span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Field(Node):
    base: "Expr" = None
    name: str = ""


@dataclass(frozen=True)
class Index(Node):
    base: "Expr" = None
    index: "Expr" = None


@dataclass(frozen=True)
class Unary(Node):
    op: str = ""  # "-" | "not"
    expr: "Expr" = None


@dataclass(frozen=True)
class Binary(Node):
    op: str = ""  # + - * / % == != < <= > >= and or implies in notin
    left: "Expr" = None
    right: "Expr" = None


@dataclass(frozen=True)
class IfExpr(Node):
    cond: "Expr" = None
    then: "Expr" = None
    other: "Expr" = None


@dataclass(frozen=True)
class Binder(Node):
    name: str = ""
    domain: "Expr" = None


@dataclass(frozen=True)
class Quant(Node):
    kind: str = ""  # sum all any min max argmin argmax count
    binders: tuple[Binder, ...] = ()
    where: "Expr | None" = None
    body: "Expr | None" = None  # None for count(...)


@dataclass(frozen=True)
class BagItem(Node):
    count: "Expr | None" = None
    expr: "Expr" = None
    binders: tuple[Binder, ...] = ()
    where: "Expr | None" = None


@dataclass(frozen=True)
class BagLit(Node):
    items: tuple[BagItem, ...] = ()


@dataclass(frozen=True)
class ListLit(Node):
    elems: tuple["Expr", ...] = ()


@dataclass(frozen=True)
class TupleLit(Node):
    elems: tuple["Expr", ...] = ()


@dataclass(frozen=True)
class RangeLit(Node):
    lo: "Expr" = None
    hi: "Expr" = None


@dataclass(frozen=True)
class TopCall(Node):
    pile: "Expr" = None


Expr = (IntLit | StrLit | BoolLit | NoneLit | PlayersLit | Name | Call | Field | Index | Unary
        | Binary | IfExpr | Quant | BagLit | ListLit | TupleLit | RangeLit | TopCall)


# ---- statements --------------------------------------------------------------------------

@dataclass(frozen=True)
class LIndex(Node):
    index: Expr = None


@dataclass(frozen=True)
class LField(Node):
    name: str = ""


@dataclass(frozen=True)
class LValue(Node):
    name: str = ""
    path: tuple[LIndex | LField, ...] = ()


@dataclass(frozen=True)
class Block(Node):
    stmts: tuple["Stmt", ...] = ()


@dataclass(frozen=True)
class Assign(Node):
    target: LValue = None
    op: str = ":="  # := += -=
    expr: Expr = None


@dataclass(frozen=True)
class Move(Node):
    what: Expr | None = None  # None: all
    src: Expr = None
    src_end: str = "top"
    dst: Expr = None
    dst_end: str = "top"


@dataclass(frozen=True)
class Draw(Node):
    count: Expr = None
    src: Expr = None
    dst: Expr = None


@dataclass(frozen=True)
class Shuffle(Node):
    zone: Expr = None


@dataclass(frozen=True)
class If(Node):
    branches: tuple[tuple[Expr, Block], ...] = ()
    other: Block | None = None


@dataclass(frozen=True)
class For(Node):
    var: str = ""
    domain: Expr = None
    where: Expr | None = None
    order: Expr | None = None
    body: Block = None


@dataclass(frozen=True)
class Let(Node):
    name: str = ""
    expr: Expr = None


@dataclass(frozen=True)
class Undecided(Node):
    reason: str = ""
    cite: Cite | None = None


@dataclass(frozen=True)
class Skip(Node):
    pass


@dataclass(frozen=True)
class CallStmt(Node):
    call: Call = None


Stmt = Assign | Move | Draw | Shuffle | If | For | Let | Undecided | Skip | CallStmt


# ---- declarations ------------------------------------------------------------------------

@dataclass(frozen=True)
class Decl(Node):
    doc: str | None = field(default=None, compare=False)


@dataclass(frozen=True)
class GameDecl(Decl):
    name: str = ""
    title: str | None = None


@dataclass(frozen=True)
class EditionDecl(Decl):
    name: str = ""
    title: str | None = None


@dataclass(frozen=True)
class SourceDecl(Decl):
    path: str = ""


@dataclass(frozen=True)
class PlayersDecl(Decl):
    lo: int = 0
    hi: int = 0
    cite: Cite | None = None


@dataclass(frozen=True)
class Ident(Node):
    name: str = ""


@dataclass(frozen=True)
class EnumDecl(Decl):
    name: str = ""
    parent: Ident | None = None
    values: tuple[Ident, ...] = ()


@dataclass(frozen=True)
class FieldDecl(Node):
    name: str = ""
    type: TypeExpr = None


@dataclass(frozen=True)
class RecordDecl(Decl):
    name: str = ""
    fields: tuple[FieldDecl, ...] = ()
    is_card: bool = False


@dataclass(frozen=True)
class ConstDecl(Decl):
    name: str = ""
    type: TypeExpr | None = None
    expr: Expr = None


@dataclass(frozen=True)
class ParamDecl(Decl):
    name: str = ""
    type: TypeExpr = None
    clauses: tuple[Clause, ...] = ()


@dataclass(frozen=True)
class VarDecl(Decl):
    name: str = ""
    type: TypeExpr = None
    clauses: tuple[Clause, ...] = ()


@dataclass(frozen=True)
class ZoneDecl(Decl):
    name: str = ""
    index: TypeExpr | None = None
    kind: str = "bag"  # bag | pile
    elem: TypeExpr = None
    clauses: tuple[Clause, ...] = ()


@dataclass(frozen=True)
class ParamSpec(Node):
    name: str = ""
    type: TypeExpr = None


@dataclass(frozen=True)
class DefDecl(Decl):
    name: str = ""
    params: tuple[ParamSpec, ...] = ()
    ret: TypeExpr = None
    expr: Expr = None


@dataclass(frozen=True)
class ProcDecl(Decl):
    name: str = ""
    params: tuple[ParamSpec, ...] = ()
    clauses: tuple[Clause, ...] = ()
    body: Block = None


@dataclass(frozen=True)
class InitDecl(Decl):
    clauses: tuple[Clause, ...] = ()
    body: Block = None


@dataclass(frozen=True)
class ActionDecl(Decl):
    name: str = ""
    params: tuple[ParamSpec, ...] = ()
    clauses: tuple[Clause, ...] = ()
    body: Block = None


@dataclass(frozen=True)
class PropExpr(Node):
    expr: Expr = None


@dataclass(frozen=True)
class PropRanking(Node):
    cond: Expr = None
    ranks: tuple[Expr, ...] = ()


@dataclass(frozen=True)
class PropBound(Node):
    trigger: Expr = None
    limit: Expr = None
    action: str = ""
    action_span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class PropertyDecl(Decl):
    kind: str = ""  # invariant | reachable | terminates | bound
    name: str = ""
    clauses: tuple[Clause, ...] = ()
    body: PropExpr | PropRanking | PropBound = None


@dataclass(frozen=True)
class EndDecl(Decl):
    name: str = ""
    clauses: tuple[Clause, ...] = ()
    expr: Expr = None


@dataclass(frozen=True)
class StatDecl(Decl):
    name: str = ""
    params: tuple[ParamSpec, ...] = ()
    clauses: tuple[Clause, ...] = ()
    expr: Expr = None


# ---- scenarios ---------------------------------------------------------------------------

@dataclass(frozen=True)
class ScPlayers(Node):
    count: int = 0


@dataclass(frozen=True)
class ScSeed(Node):
    seed: int = 0


@dataclass(frozen=True)
class ScParam(Node):
    target: LValue = None
    expr: Expr = None


@dataclass(frozen=True)
class ScSetup(Node):
    body: Block = None


@dataclass(frozen=True)
class ScDo(Node):
    call: Call = None


@dataclass(frozen=True)
class ScExpect(Node):
    expr: Expr = None


@dataclass(frozen=True)
class ScIllegal(Node):
    call: Call = None


@dataclass(frozen=True)
class ScGap(Node):
    pass


@dataclass(frozen=True)
class ScEnd(Node):
    name: str | None = None


ScStep = ScPlayers | ScSeed | ScParam | ScSetup | ScDo | ScExpect | ScIllegal | ScGap | ScEnd


@dataclass(frozen=True)
class ScenarioDecl(Decl):
    name: str = ""
    clauses: tuple[Clause, ...] = ()
    steps: tuple[ScStep, ...] = ()


@dataclass(frozen=True)
class Spec(Node):
    """One parsed .rules file."""

    path: str = ""
    decls: tuple[Decl, ...] = ()


def children(node):
    """The direct child nodes of `node`, for generic walks."""
    out = []
    for name in node.__dataclass_fields__:
        if name == "span":
            continue
        value = getattr(node, name)
        if isinstance(value, Node):
            out.append(value)
        elif isinstance(value, tuple):
            for item in value:
                if isinstance(item, Node):
                    out.append(item)
                elif isinstance(item, tuple):
                    out.extend(x for x in item if isinstance(x, Node))
    return out


def walk(node):
    """Every node under `node` (itself included), depth first."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(children(current)))

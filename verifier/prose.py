"""Plain English from the IR: ir.Expr, ir.Domain, ir.Stmt, ir.Step -> Markdown text.

Every node kind of verifier/ir.py has a sentence form here ("move `c` from `p`'s `hand` to
`p`'s `table`", "if `lead` is none: ..."); tests walk every kind. Names from the spec are code
spans and strings are escaped (markdown.py), so the output is safe in a paragraph, a list item
or a table cell. Statements become nested list items: Item(text, children).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from . import ir
from .markdown import code, md, quoted
from .types import (BagT, BoolT, EnumT, IntT, ListT, MapT, NoneT, OptT, OrderT, PileT, PlayerT, RecordT, SetT,
                    TupleT, Type)


@dataclass
class Item:
    """One line of a rule in words, with the lines nested under it."""

    text: str
    children: list["Item"] = field(default_factory=list)


def render_items(items: list[Item], indent: int = 0) -> str:
    """Items as a nested Markdown bullet list (four spaces per level, as Python-Markdown wants)."""
    lines = []
    for it in items:
        lines.append(" " * indent + "- " + it.text)
        if it.children:
            lines.append(render_items(it.children, indent + 4))
    return "\n".join(lines)


def local_name(name: str) -> str:
    """A local as written: lowering prefixes the locals of an inlined procedure (`deal3__w`)."""
    return name.rsplit("__", 1)[-1]


_CMP = {"==": "is", "!=": "is not", "<": "is less than", "<=": "is at most", ">": "is more than",
        ">=": "is at least"}
_CMP_NEG = {"==": "is not", "!=": "is", "<": "is at least", "<=": "is more than", ">": "is at most",
            ">=": "is less than"}
_ARITH = {"+": "+", "-": "−", "*": "×", "/": "÷", "%": "mod"}
# precedence of the formal operators, loosest first, for parenthesising arithmetic
_PREC = {"implies": 1, "or": 2, "and": 3, "==": 5, "!=": 5, "<": 5, "<=": 5, ">": 5, ">=": 5,
         "+": 6, "-": 6, "*": 7, "/": 7, "%": 7}
_NUMBERS = {2: "two", 3: "three", 4: "four", 5: "five"}


def _is_zone_type(t: Type | None) -> bool:
    return isinstance(t, (BagT, PileT))


def _join(parts: list[str], word: str = "and") -> str:
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + f" {word} " + parts[-1]


class Prose:
    """Renders one spec's IR in words; `defs` are linked to `def_link(name)` when given."""

    def __init__(self, spec: ir.Spec | None = None, def_link=None):
        self.spec = spec
        self.def_link = def_link

    # ---- values and names ------------------------------------------------------------
    def literal(self, e: ir.Lit) -> str:
        v, t = e.value, e.type
        if v is None:
            return "none"
        if isinstance(t, OptT):
            t = t.inner
        if isinstance(v, bool) or isinstance(t, BoolT):
            return "true" if v else "false"
        if isinstance(t, EnumT) and isinstance(v, int) and 0 <= v < len(t.values):
            return code(t.values[v])
        if isinstance(t, PlayerT):
            return f"seat {v}"
        return md(str(v))

    def simple(self, e: ir.Expr) -> bool:
        """Whether e renders as one word (a name or a literal), so it needs no parentheses."""
        return isinstance(e, (ir.Var, ir.ParamRef, ir.ConstRef, ir.Local, ir.Lit)) or (
            isinstance(e, ir.Make) and all(self.simple(a) for a in e.args))

    # ---- expressions -----------------------------------------------------------------
    def expr(self, e: ir.Expr) -> str:
        method = getattr(self, "ex_" + type(e).__name__, None)
        if method is None:
            raise TypeError(f"no plain-English form for {type(e).__name__}")
        return method(e)

    def paren(self, e: ir.Expr, min_prec: int = 0) -> str:
        """e in words, in parentheses unless it is one word or binds tighter than min_prec."""
        text = self.expr(e)
        if self.simple(e) or isinstance(e, (ir.Field, ir.Index, ir.Builtin, ir.Apply, ir.NumPlayers)):
            return text
        if isinstance(e, ir.Binary) and _PREC.get(e.op, 9) >= min_prec and min_prec:
            return text
        if isinstance(e, ir.Unary) and e.op == "-":
            return text
        return f"({text})"

    def ex_Lit(self, e: ir.Lit) -> str:
        return self.literal(e)

    def ex_Var(self, e: ir.Var) -> str:
        return code(e.name)

    def ex_ParamRef(self, e: ir.ParamRef) -> str:
        return code(e.name)

    def ex_ConstRef(self, e: ir.ConstRef) -> str:
        return code(e.name)

    def ex_Local(self, e: ir.Local) -> str:
        return code(local_name(e.name))

    def ex_NumPlayers(self, e: ir.NumPlayers) -> str:
        return "the number of players"

    def _of(self, base_text: str, base_simple: bool, key: ir.Expr, key_type: Type | None) -> str:
        """`p`'s `hand`, the `hand` of the player to the left of `p`, `colours` for `Storm`(6)."""
        k = self.expr(key)
        if isinstance(key_type, PlayerT):
            if base_simple and self.simple(key):
                return f"{k}'s {base_text}"
            return f"the {base_text} of {k}" if base_simple else f"{base_text} of {k}"
        return f"{base_text} for {k}"

    def ex_Index(self, e: ir.Index) -> str:
        bt = e.base.type
        if isinstance(bt, MapT):
            return self._of(self.expr(e.base), isinstance(e.base, (ir.Var, ir.ParamRef, ir.ConstRef, ir.Local)),
                            e.index, bt.key)
        if _is_zone_type(bt):
            return f"the number of copies of {self.expr(e.index)} in {self.expr(e.base)}"
        return f"the element at position {self.expr(e.index)} (counting from 0) of {self.expr(e.base)}"

    def ex_Field(self, e: ir.Field) -> str:
        if self.simple(e.base):
            return f"{self.expr(e.base)}'s {code(e.name)}"
        return f"the {code(e.name)} of {self.expr(e.base)}"

    def ex_Unary(self, e: ir.Unary) -> str:
        if e.op == "not":
            return self.negate(e.operand)
        return f"−{self.paren(e.operand, 8)}"

    def negate(self, e: ir.Expr) -> str:
        """`not e` in words, turning the negation into the sentence where it reads better."""
        if isinstance(e, ir.Binary) and e.op in _CMP_NEG:
            return f"{self.paren(e.left, 6)} {_CMP_NEG[e.op]} {self.paren(e.right, 6)}"
        if isinstance(e, ir.Member):
            return self.ex_Member(e, flip=True)
        if isinstance(e, ir.Aggregate) and e.kind == "any":
            return self.aggregate(e, "none")
        if isinstance(e, ir.Unary) and e.op == "not":
            return self.expr(e.operand)
        if isinstance(e, ir.Apply) and isinstance(e.type, BoolT) and len(e.args) == 1:
            return f"{self.paren(e.args[0], 6)} is not {self.def_name(e.name)}"
        if self.simple(e) or isinstance(e, (ir.Field, ir.Index)):
            return f"not {self.expr(e)}"
        return f"not ({self.expr(e)})"

    def _chain(self, e: ir.Expr, op: str) -> list[ir.Expr]:
        if isinstance(e, ir.Binary) and e.op == op:
            return self._chain(e.left, op) + self._chain(e.right, op)
        return [e]

    def ex_Binary(self, e: ir.Binary) -> str:
        op = e.op
        if op in ("and", "or"):
            parts = []
            for x in self._chain(e, op):
                text = self.expr(x)
                if isinstance(x, (ir.Binary,)) and x.op in ("and", "or", "implies") or isinstance(x, ir.Cond):
                    text = f"({text})"
                parts.append(text)
            return f" {op} ".join(parts)
        if op == "implies":
            left = self.expr(e.left)
            right = self.expr(e.right)
            if isinstance(e.right, ir.Binary) and e.right.op == "implies":
                right = f"({right})"
            return f"if {left}, then {right}"
        if op in _CMP:
            if op in ("==", "!=") and isinstance(e.right, ir.Lit) and e.right.value is None:
                return f"{self.paren(e.left, 6)} {'is' if op == '==' else 'is not'} none"
            return f"{self.paren(e.left, 6)} {_CMP[op]} {self.paren(e.right, 6)}"
        if isinstance(e.type, (SetT, BagT, PileT)) or _is_zone_type(e.left.type) or isinstance(e.left.type, SetT):
            if op == "+":
                return f"{self.paren(e.left)} together with {self.paren(e.right)}"
            if op == "-":
                return f"{self.paren(e.left)} without {self.paren(e.right)}"
        prec = _PREC.get(op, 9)
        left = self.paren(e.left, prec)
        # a right operand of the same precedence needs parentheses: a - (b - c)
        right = self.paren(e.right, prec + 1)
        if op == "/":
            return f"{left} ÷ {right} (rounded down)"
        return f"{left} {_ARITH.get(op, md(op))} {right}"

    def ex_Member(self, e: ir.Member, flip: bool = False) -> str:
        negated = e.negated != flip
        elem = self.paren(e.elem, 6)
        d = e.coll
        if isinstance(d, ir.TypeDomain):
            return f"{elem} {'is not' if negated else 'is'} a {self.type_name(d.type)}"
        if isinstance(d, ir.RangeDomain):
            return f"{elem} {'is not' if negated else 'is'} between {self.paren(d.lo, 6)} and {self.paren(d.hi, 6)}"
        coll = d.expr
        if isinstance(coll, ir.BagOf) and isinstance(coll.type, SetT) or (
                isinstance(coll, ir.BagOf) and all(it.count is None and not it.binders for it in coll.items)):
            options = [self.expr(it.elem) for it in coll.items]
            if not options:
                return f"{elem} {'is anything' if negated else 'is nothing'}"
            return f"{elem} {'is none of' if negated else 'is one of'} {_join(options, 'or')}"
        return f"{elem} {'is not in' if negated else 'is in'} {self.paren(coll)}"

    def ex_Cond(self, e: ir.Cond) -> str:
        parts = []
        node: ir.Expr = e
        while isinstance(node, ir.Cond):
            parts.append(f"{self.paren(node.then, 6)} if {self.expr(node.cond)}")
            node = node.other
        parts.append(f"otherwise {self.paren(node, 6)}")
        return ", ".join(parts)

    # ---- domains and binders ---------------------------------------------------------
    def type_name(self, t: Type, plural: bool = False) -> str:
        s = "s" if plural else ""
        if isinstance(t, PlayerT):
            return f"player{s}"
        if isinstance(t, BoolT):
            return f"truth value{s}"
        if isinstance(t, IntT):
            return f"number{s}" + (f" from {t.lo} to {t.hi}" if t.finite else "")
        if isinstance(t, EnumT):
            return code(t.name) + (" values" if plural else "")
        if isinstance(t, RecordT):
            return code(t.name) + ("s" if plural and t.card else (" values" if plural else ""))
        if isinstance(t, SetT):
            return f"set{s} of {self.type_name(t.elem, True)}"
        if isinstance(t, OrderT):
            return f"order{s} of {self.type_name(t.elem, True)}"
        if isinstance(t, OptT):
            return f"{self.type_name(t.inner, plural)} or none"
        if isinstance(t, MapT):
            return f"table{s} from {self.type_name(t.key, True)} to {self.type_name(t.value, True)}"
        if isinstance(t, BagT):
            return f"bag{s} of {self.type_name(t.elem, True)}"
        if isinstance(t, PileT):
            return f"pile{s} of {self.type_name(t.elem, True)}"
        if isinstance(t, ListT):
            return f"list{s} of {self.type_name(t.elem, True)}"
        if isinstance(t, TupleT):
            return f"tuple{s}"
        if isinstance(t, NoneT):
            return "none"
        return md(str(t))

    def binder(self, var: str, d: ir.Domain, plural: bool = False) -> str:
        """`player p`, `card c in p's hand`, `number n from 1 to 8` (the noun before the name)."""
        name = code(local_name(var))
        s = "s" if plural else ""
        if isinstance(d, ir.TypeDomain):
            t = d.type
            if isinstance(t, IntT) and t.finite:
                return f"number{s} {name} from {t.lo} to {t.hi}"
            return f"{self.type_name(t, plural)} {name}"
        if isinstance(d, ir.RangeDomain):
            return f"number{s} {name} from {self.paren(d.lo, 6)} to {self.paren(d.hi, 6)}"
        t = d.expr.type
        where = self.paren(d.expr)
        if _is_zone_type(t):
            return f"card{s} {name} in {where}"
        if isinstance(t, SetT):
            return f"member{s} {name} of {where}"
        return f"{name} in {where}"

    def domain(self, d: ir.Domain) -> str:
        """A domain on its own: `the players`, `the numbers from 1 to 8`, `p's hand`."""
        if isinstance(d, ir.TypeDomain):
            return f"every {self.type_name(d.type)}"
        if isinstance(d, ir.RangeDomain):
            return f"the numbers from {self.paren(d.lo, 6)} to {self.paren(d.hi, 6)}"
        return self.expr(d.expr)

    # ---- aggregates ------------------------------------------------------------------
    def ex_Aggregate(self, e: ir.Aggregate) -> str:
        return self.aggregate(e, e.kind)

    def aggregate(self, e: ir.Aggregate, kind: str) -> str:
        where = f" such that {self.expr(e.where)}" if e.where is not None else ""
        body = self.expr(e.body) if e.body is not None else ""
        one = self.binder(e.var, e.domain)
        if kind == "count":
            return f"the number of {self.binder(e.var, e.domain, plural=True)}{where}"
        if kind == "sum":
            return f"the sum of {self.paren(e.body)} over every {one}{where}"
        if kind == "all":
            return f"for every {one}{where}, {body}"
        if kind == "any":
            return f"there is a {one}{where} for which {body}"
        if kind == "none":
            return f"there is no {one}{where} for which {body}"
        if kind in ("min", "max"):
            word = "smallest" if kind == "min" else "largest"
            return f"the {word} {self.paren(e.body)} over every {one}{where}"
        if kind in ("argmin", "argmax"):
            word = "smallest" if kind == "argmin" else "largest"
            return f"the {one}{where} for which {self.paren(e.body)} is {word} (the first such on a tie)"
        raise TypeError(f"no plain-English form for the aggregate {kind}")

    # ---- calls and values ------------------------------------------------------------
    def ex_Builtin(self, e: ir.Builtin) -> str:
        a = e.args
        n = e.name
        x = self.paren(a[0], 9) if a else ""
        t0 = a[0].type if a else None
        if n == "size":
            if _is_zone_type(t0):
                return f"the number of cards in {x}"
            if isinstance(t0, SetT):
                return f"the number of members of {x}"
            return f"the length of {x}"
        if n == "top":
            return f"the top card of {x}"
        if n == "the":
            return f"the single member of {x}" if isinstance(t0, SetT) else f"the single card in {x}"
        if n == "get":
            return f"the value of {x}"
        if n == "total":
            return f"the number of copies of {x} in all zones together"
        if n == "left":
            return f"the player to the left of {x}"
        if n == "right":
            return f"the player to the right of {x}"
        if n == "seat":
            return f"the player {self.paren(a[1], 6)} seats clockwise from {x}"
        if n == "distance":
            return f"the number of seats clockwise from {x} to {self.expr(a[1])}"
        if n == "clockwise":
            return f"the players in clockwise order starting with {x}"
        if n == "rank":
            pos = "counting from the bottom, from 0" if isinstance(t0, PileT) else "counting from 0"
            return f"the position of {self.expr(a[1])} in {x} ({pos})"
        if n == "first":
            return f"the bottom card of {x}" if isinstance(t0, PileT) else f"the first element of {x}"
        if n == "last":
            return f"the top card of {x}" if isinstance(t0, PileT) else f"the last element of {x}"
        if n == "abs":
            return f"the absolute value of {x}"
        if n in ("least", "greatest"):
            if len(a) == 1:
                return x
            word = ("smaller" if n == "least" else "larger") if len(a) == 2 else (
                "smallest" if n == "least" else "largest")
            return f"the {word} of " + _join([self.paren(y, 6) for y in a])
        if n == "ord":
            return f"the position of {x} in its list of values (counting from 0)"
        raise TypeError(f"no plain-English form for the builtin {n}")

    def ex_Make(self, e: ir.Make) -> str:
        rec = e.record
        if all(self.simple(x) for x in e.args):
            return f"{code(rec.name)}(" + ", ".join(self.expr(x) for x in e.args) + ")"
        fields = [f"{code(f)} {self.paren(x, 6)}" for (f, _t), x in zip(rec.fields, e.args)]
        return f"the {code(rec.name)} with " + _join(fields)

    def ex_BagOf(self, e: ir.BagOf) -> str:
        is_set = isinstance(e.type, SetT)
        if not e.items:
            return "the empty set" if is_set else "no cards"
        parts = []
        for it in e.items:
            text = self.paren(it.elem, 6)
            if it.count is not None:
                if isinstance(it.count, ir.Lit) and it.count.value == 1:
                    text = f"one copy of {text}"
                elif isinstance(it.count, ir.Lit) and it.count.value in _NUMBERS:
                    text = f"{_NUMBERS[it.count.value]} copies of {text}"
                elif isinstance(it.count, ir.Lit):
                    text = f"{self.paren(it.count, 6)} copies of {text}"
                else:
                    text = f"{text}, as many copies as {self.expr(it.count)},"
            if it.binders:
                text += " for " + " and ".join(f"every {self.binder(v, d)}" for v, d in it.binders)
            if it.where is not None:
                text += f" such that {self.expr(it.where)}"
            parts.append(text)
        listed = "; ".join(parts) if any(it.binders for it in e.items) else _join(parts)
        return f"the set of {listed}" if is_set else f"the cards {listed}"

    def ex_ListOf(self, e: ir.ListOf) -> str:
        if not e.elems:
            return "the empty sequence"
        return "the sequence " + ", ".join(self.paren(x, 6) for x in e.elems)

    def ex_TupleOf(self, e: ir.TupleOf) -> str:
        return ", then ".join(self.paren(x, 6) for x in e.elems)

    def def_name(self, name: str) -> str:
        """A definition's name, linked to where it is explained when the page has a place for it."""
        return f"[{code(name)}]({self.def_link(name)})" if self.def_link else code(name)

    def ex_Apply(self, e: ir.Apply) -> str:
        name = self.def_name(e.name)
        args = [self.paren(a, 6) for a in e.args]
        if isinstance(e.type, BoolT):
            if len(args) == 1:
                return f"{args[0]} is {name}"
            return f"{name} holds" + (f" for {_join(args)}" if args else "")
        if not args:
            return f"the {name}"
        return f"the {name} of {_join(args)}"

    # ---- places and statements -------------------------------------------------------
    def place(self, p: ir.Place) -> str:
        text, simple = code(p.var), True
        t = self._declared_type(p.var)
        for key in p.path:
            key_type = t.key if isinstance(t, MapT) else key.type
            text = self._of(text, simple, key, key_type)
            simple = False
            t = t.value if isinstance(t, MapT) else None
        return text

    def _declared_type(self, name: str) -> Type | None:
        if self.spec is None:
            return None
        for d in list(self.spec.state) + list(self.spec.params):
            if d.name == name:
                return d.type
        return None

    def stmts(self, body) -> list[Item]:
        out: list[Item] = []
        for s in body:
            out.extend(self.stmt(s))
        return out

    def stmt(self, s: ir.Stmt) -> list[Item]:
        method = getattr(self, "st_" + type(s).__name__, None)
        if method is None:
            raise TypeError(f"no plain-English form for {type(s).__name__}")
        return method(s)

    def st_Assign(self, s: ir.Assign) -> list[Item]:
        target = self.place(s.target)
        value = self.expr(s.value)
        zone = _is_zone_type(s.target.type)
        if s.op == ":=":
            if zone:
                return [Item(f"put {value} in {target}, replacing the cards it held")]
            if isinstance(s.value.type, BoolT) and not self.simple(s.value):
                return [Item(f"set {target} to whether {value}")]
            return [Item(f"set {target} to {value}")]
        if s.op == "+=":
            return [Item(f"add {value} to {target}")]
        if s.op == "-=":
            if zone or isinstance(s.target.type, SetT):
                return [Item(f"remove {value} from {target}")]
            return [Item(f"subtract {value} from {target}")]
        raise TypeError(f"no plain-English form for the assignment {s.op}")

    def _end(self, place: ir.Place, end: str, direction: str) -> str:
        """`the top of the stock` for a pile, `p's hand` for a bag."""
        text = self.place(place)
        if isinstance(place.type, PileT) and end == "bottom":
            return f"the bottom of {text}"
        if isinstance(place.type, PileT) and direction == "to":
            return f"the top of {text}"
        return text

    def st_Move(self, s: ir.Move) -> list[Item]:
        src = self._end(s.src, s.src_end, "from")
        dst = self._end(s.dst, s.dst_end, "to")
        if s.what == "all":
            return [Item(f"move all cards from {src} to {dst}")]
        if s.what == "count":
            n = s.value
            top = "the bottom" if s.src_end == "bottom" else "the top"
            if isinstance(n, ir.Lit) and n.value == 1:
                return [Item(f"move {top} card of {self.place(s.src)} to {dst}")]
            return [Item(f"move {self.paren(n, 9)} cards, one at a time, from {top} of {self.place(s.src)} to {dst}")]
        if s.what == "bag":
            return [Item(f"move {self.expr(s.value)} from {src} to {dst}")]
        return [Item(f"move {self.expr(s.value)} from {src} to {dst}")]

    def st_Shuffle(self, s: ir.Shuffle) -> list[Item]:
        return [Item(f"shuffle {self.place(s.zone)}")]

    def st_If(self, s: ir.If) -> list[Item]:
        items = [Item(f"if {self.expr(s.cond)}:", self.stmts(s.then) or [Item("nothing happens")])]
        other = s.other
        while len(other) == 1 and isinstance(other[0], ir.If):
            node = other[0]
            items.append(Item(f"otherwise, if {self.expr(node.cond)}:", self.stmts(node.then) or [Item("nothing happens")]))
            other = node.other
        if other:
            items.append(Item("otherwise:", self.stmts(other)))
        return items

    def st_For(self, s: ir.For) -> list[Item]:
        head = f"for every {self.binder(s.var, s.domain)}"
        if s.where is not None:
            head += f" such that {self.expr(s.where)} (tested just before its turn)"
        if s.order is not None:
            head += f", in order of {self.paren(s.order, 6)}, smallest first"
        elif isinstance(s.domain, ir.ExprDomain) and isinstance(s.domain.expr.type, (OrderT, ListT)):
            head += ", in that order"
        return [Item(head + ":", self.stmts(s.body) or [Item("nothing happens")])]

    def st_Let(self, s: ir.Let) -> list[Item]:
        return [Item(f"let {code(local_name(s.name))} be {self.expr(s.value)}")]

    def st_Undecided(self, s: ir.Undecided) -> list[Item]:
        where = f" ({cite_text(s.cite)})" if s.cite else ""
        return [Item(f"**the rulebook does not say what happens here** (a gap): {quoted(s.reason)}{where}")]

    # ---- scenario steps --------------------------------------------------------------
    def step(self, s: ir.Step) -> list[Item]:
        method = getattr(self, "sc_" + type(s).__name__, None)
        if method is None:
            raise TypeError(f"no plain-English form for {type(s).__name__}")
        return method(s)

    def move_call(self, action: str, args) -> str:
        return f"{code(action)}(" + ", ".join(self.expr(a) for a in args) + ")"

    def sc_SetParam(self, s: ir.SetParam) -> list[Item]:
        return [Item(f"fix the parameter {self.place(s.target)} to {self.expr(s.value)}")]

    def sc_Setup(self, s: ir.Setup) -> list[Item]:
        return [Item("arrange the table:", self.stmts(s.body) or [Item("nothing happens")])]

    def sc_Do(self, s: ir.Do) -> list[Item]:
        if s.illegal:
            return [Item(f"check that the move {self.move_call(s.action, s.args)} is not allowed")]
        return [Item(f"play {self.move_call(s.action, s.args)}")]

    def sc_ExpectStep(self, s: ir.ExpectStep) -> list[Item]:
        return [Item(f"check that {self.expr(s.expr)}")]

    def sc_ExpectGap(self, s: ir.ExpectGap) -> list[Item]:
        return [Item("check that the last move reached a rulebook gap")]

    def sc_ExpectEnd(self, s: ir.ExpectEnd) -> list[Item]:
        return [Item("check that the game has ended" + (f" by {code(s.name)}" if s.name else ""))]

    # ---- declarations ----------------------------------------------------------------
    def guard(self, a: ir.Action) -> list[Item]:
        return [Item(self.expr(g)) for g in a.guard]

    def property(self, p: ir.Property) -> str:
        """The claim a property makes, as one sentence."""
        if p.kind == "invariant":
            return f"In every reachable state: {self.expr(p.expr)}."
        if p.kind == "reachable":
            return f"Some play reaches a state where {self.expr(p.expr)}."
        if p.kind == "terminates":
            ranks = [self.paren(r) for r in p.ranks]
            what = ranks[0] if len(ranks) == 1 else "(" + ", then ".join(ranks) + ", compared in that order)"
            return (f"While {self.expr(p.cond)}, every move makes {what} smaller, and it is never below 0: "
                    "so this cannot go on for ever.")
        if p.kind == "bound":
            times = "once" if p.limit == 1 else "twice" if p.limit == 2 else f"{p.limit} times"
            return (f"Once {self.expr(p.trigger)} has held, the move {code(p.action)} happens at most "
                    f"{times} more.")
        raise TypeError(f"no plain-English form for a {p.kind} property")

    def end(self, e: ir.End) -> str:
        return f"The game ends when {self.expr(e.cond)}."

    def stat(self, s: ir.Stat) -> str:
        text = self.expr(s.expr)
        if s.params:
            (n, t), = s.params[:1]
            text += f", for each {self.type_name(t)} {code(n)}"
        return text


def cite_text(c: ir.Cite | None) -> str:
    """A citation in words: § 6 Play: “must follow suit if able”."""
    if c is None:
        return "no citation"
    return f"§ {md(c.locator)}" + (f": {quoted(c.quote)}" if c.quote else "")

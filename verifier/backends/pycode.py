"""Compile the IR to Python source for one player count: ir.Spec + n -> functions over a state list.

The state is a list S with one slot per state variable (maps and bags are lists, piles are lists
with the top last); P holds the parameters and then the constants. Every action becomes a guard
function, an apply function and a move enumerator whose loops iterate only candidate values: a
conjunct `x == e` binds x directly, `x in zone` iterates the zone. Generated once, run many times.
"""

from __future__ import annotations

import itertools
import keyword
import operator
import re

_UNSET = object()
_SLOT_IS = re.compile(r"\(S\[(\d+)\] == (-?\d+)\)")  # a test of one state variable against a number

from .. import ir
from ..types import (BagT, BoolT, Domains, EnumT, IntT, ListT, MapT, OptT, OrderT, PileT, PlayerT, RecordT,
                     SetT, TupleT, Type, fits, record_fields, record_layout)
from . import runtime

CONTAINERS = (MapT, BagT, PileT)


def _total(e: ir.Expr) -> bool:
    """Whether evaluating e cannot run into a run-time error (a conservative test: reads of
    variables, parameters, constants and locals, literals, and the operators other than division
    and remainder over them)."""
    if isinstance(e, (ir.Lit, ir.Var, ir.ParamRef, ir.ConstRef, ir.Local, ir.NumPlayers)):
        return True
    if isinstance(e, ir.Unary):
        return _total(e.operand)
    if isinstance(e, ir.Binary):
        return e.op not in ("/", "%") and _total(e.left) and _total(e.right)
    if isinstance(e, ir.Index):  # a map's value at a key of its key type
        return isinstance(e.base.type, MapT) and e.index.type == e.base.type.key and _total(e.base) \
            and _total(e.index)
    if isinstance(e, ir.Member):  # (a value outside a bag's cards is not in it: ex_Member)
        d = e.coll
        parts = [d.expr] if isinstance(d, ir.ExprDomain) else [d.lo, d.hi] if isinstance(d, ir.RangeDomain) else []
        return _total(e.elem) and all(_total(x) for x in parts)
    return False


def _free_locals(node, out: set[str]) -> set[str]:
    """Local names an IR expression reads (bound ones included; callers filter)."""
    if isinstance(node, ir.Local):
        out.add(node.name)
    elif isinstance(node, (ir.Expr, ir.BagItem, ir.Domain)):
        for name in getattr(node, "__dataclass_fields__", {}):
            if name in ("type", "span"):
                continue
            value = getattr(node, name)
            if isinstance(value, (ir.Expr, ir.Domain, ir.BagItem)):
                _free_locals(value, out)
            elif isinstance(value, tuple):
                for v in value:
                    if isinstance(v, (ir.Expr, ir.Domain, ir.BagItem)):
                        _free_locals(v, out)
                    elif isinstance(v, tuple):
                        for w in v:
                            if isinstance(w, (ir.Expr, ir.Domain)):
                                _free_locals(w, out)
    return out


def free_vars(node) -> set[str]:
    """Local names an IR expression depends on, binders excluded."""
    if isinstance(node, ir.Local):
        return {node.name}
    if isinstance(node, ir.Aggregate):
        inner = set()
        for part in (node.where, node.body):
            if part is not None:
                inner |= free_vars(part)
        return free_vars(node.domain) | (inner - {node.var})
    if isinstance(node, ir.BagItem):
        inner = set()
        for part in (node.count, node.elem, node.where):
            if part is not None:
                inner |= free_vars(part)
        bound = set()
        out = set()
        for name, dom in node.binders:
            out |= free_vars(dom) - bound
            bound.add(name)
        return out | (inner - bound)
    out: set[str] = set()
    for name in getattr(node, "__dataclass_fields__", {}):
        if name in ("type", "span"):
            continue
        value = getattr(node, name)
        for v in (value if isinstance(value, tuple) else (value,)):
            if isinstance(v, (ir.Expr, ir.Domain, ir.BagItem)):
                out |= free_vars(v)
    return out


def _maximal_aggregates(node, out: list):
    """Aggregates in an expression that are not inside another aggregate, lambda or generator."""
    if isinstance(node, ir.Aggregate):
        out.append(node)
        return out
    for name in getattr(node, "__dataclass_fields__", {}):
        if name in ("type", "span"):
            continue
        value = getattr(node, name)
        for v in (value if isinstance(value, tuple) else (value,)):
            if isinstance(v, ir.Expr) and not isinstance(v, (ir.BagOf,)):
                _maximal_aggregates(v, out)
    return out


def _text(message: str) -> str:
    """Text safe inside a generated single-quoted f-string."""
    return message.replace("\\", "\\\\").replace("'", "\\'").replace("{", "{{").replace("}", "}}").replace("\n", " ")


def _py(name: str) -> str:
    return "v_" + name


class PyGen:
    def __init__(self, spec: ir.Spec, players: int, forced: bool = False):
        self.spec = spec
        self.forced = forced  # chance outcomes come from R, a ForcedChance (replaying a prover's trace)
        self.n = players
        self.dom = Domains(players)
        self.slots = {v.name: i for i, v in enumerate(spec.state)}
        self.first_tests: dict[int, str] = {}  # action -> its enumerator's first test (dispatch)
        self.hoisted: set[str] = set()  # the functions that compute totals before their first line
        self.vars = {v.name: v for v in spec.state}
        self.pslots = {p.name: i for i, p in enumerate(spec.params)}
        for j, c in enumerate(spec.consts):
            self.pslots[c.name] = len(spec.params) + j
        self.spans: list = []
        self._span_ids: dict = {}
        self.g: dict = {"N": players, "_Fault": runtime.Fault, "_Gap": runtime.Gap, "_copy": runtime.copy,
                        "_div": runtime.div, "_mod": runtime.mod, "_at": runtime.at, "_rank": runtime.rank,
                        "_first": runtime.first, "_last": runtime.last, "_top": runtime.top, "_get": runtime.get,
                        "_the_bag": runtime.the_bag, "_the_seq": runtime.the_seq, "_least": runtime.least,
                        "_greatest": runtime.greatest, "_argbest": runtime.argbest, "_present": runtime.present,
                        "_items": runtime.items, "_expand": runtime.expand, "_make_bag": runtime.make_bag,
                        "_make_set": runtime.make_set,
                        "_check_values": runtime.check_values,
                        "_bag_add": runtime.bag_add, "_bag_sub": runtime.bag_sub, "_as_bag": runtime.as_bag,
                        "_as_pile": runtime.as_pile, "_remove_from_pile": runtime.remove_from_pile,
                        "_take_bag": runtime.take_bag, "_check_order": runtime.check_order, "_ix": runtime.ix,
                        "_chain": itertools.chain, "_compress": itertools.compress, "_U": _UNSET,
                        "_add": operator.add, "_dot": runtime.dot, "_run": runtime.run}
        self._consts: dict = {}
        self._totals: dict[str, str] = {}
        self.hoist: dict[str, str] | None = None  # totals vectors of the pure function being generated
        self.subst: dict[str, str] = {}  # locals replaced by constants while unrolling a quantifier
        self.memo: dict[int, str] = {}   # loop-invariant subexpressions computed at most once per loop
        self.out: list[str] = []
        self.tmp = itertools.count()

    # ---- bookkeeping -------------------------------------------------------------------
    def span(self, span) -> int:
        key = id(span)
        if key not in self._span_ids:
            self._span_ids[key] = len(self.spans)
            self.spans.append(span)
        return self._span_ids[key]

    def const(self, value, hint="K") -> str:
        key = (hint, repr(value))
        if key not in self._consts:
            name = f"_{hint}{len(self._consts)}"
            self._consts[key] = name
            self.g[name] = value
        return self._consts[key]

    def fresh(self, stem="t") -> str:
        return f"_{stem}{next(self.tmp)}"

    # ---- types -------------------------------------------------------------------------
    @staticmethod
    def lo(t: Type) -> int:
        return t.lo if isinstance(t, IntT) and t.lo else 0

    def key(self, t: Type, code: str) -> str:
        """The index of a value of type t in a map or bag."""
        if isinstance(t, IntT) and t.lo:
            return f"({code} - {t.lo})"
        if isinstance(t, OptT):
            return f"(0 if ({code}) is None else 1 + {self.key(t.inner, code)})"
        return code

    def size(self, t: Type) -> int:
        return self.dom.size(t)

    def checked_key(self, key_t: Type, index: ir.Expr, span) -> str:
        """Source for the slot of `index` in a map or bag keyed by key_t, checked when needed."""
        code = self.ex(index)
        it = index.type
        safe = (it == key_t or isinstance(key_t, EnumT) and isinstance(it, EnumT) and key_t.includes(it)
                or isinstance(key_t, (BoolT, RecordT, OptT)))
        if isinstance(index, ir.Lit) and isinstance(index.value, int) and not isinstance(index.value, bool) \
                and isinstance(key_t, (IntT, PlayerT)):
            safe = self.in_range(key_t, index.value)
        if isinstance(key_t, IntT) and isinstance(it, IntT) and it.finite and key_t.lo <= it.lo and it.hi <= key_t.hi:
            safe = True
        if safe:
            return self.key(key_t, code)
        return f"_ix({self.key(key_t, code)}, {self.size(key_t)}, {self.span(span)})"

    def values_const(self, t: Type) -> str:
        return self.const(tuple(self.dom.values(t)), "D")

    def default(self, t: Type):
        if isinstance(t, BoolT):
            return False
        if isinstance(t, IntT):
            return t.default
        if isinstance(t, (EnumT, PlayerT, RecordT)):
            return 0
        if isinstance(t, OptT):
            return None
        if isinstance(t, SetT):
            return frozenset()
        if isinstance(t, (OrderT, ListT)):
            return tuple(self.dom.values(t.elem))
        if isinstance(t, BagT):
            return [0] * self.size(t.elem)
        if isinstance(t, PileT):
            return []
        if isinstance(t, MapT):
            return [self.default(t.value) for _ in range(self.size(t.key))]
        if isinstance(t, TupleT):
            return tuple(self.default(x) for x in t.elems)
        return None

    def range_check(self, t: Type, code: str, span_id: int, what: str) -> list[str]:
        """Lines that fault when `code` (a plain name) is outside type t."""
        if isinstance(t, OptT):
            inner = self.range_check(t.inner, code, span_id, what)
            return [f"if {code} is not None:"] + ["    " + x for x in inner] if inner else []
        if isinstance(t, IntT) and (t.lo is not None or t.hi is not None):
            conds = []
            if t.lo is not None:
                conds.append(f"{code} < {t.lo}")
            if t.hi is not None:
                conds.append(f"{code} > {t.hi}")
            return [f"if {' or '.join(conds)}: raise _Fault({span_id}, f'{_text(what)} would be {{{code}}}, outside {t}')"]
        if isinstance(t, PlayerT):
            return [f"if not 0 <= {code} < N: raise _Fault({span_id}, f'{_text(what)} would be {{{code}}}, not a player')"]
        return []

    def in_range(self, t: Type, v: int) -> bool:
        if isinstance(t, OptT):
            t = t.inner
        if isinstance(t, PlayerT):
            return 0 <= v < self.n
        if isinstance(t, IntT):
            return (t.lo is None or t.lo <= v) and (t.hi is None or v <= t.hi)
        return True

    def needs_check(self, value: ir.Expr, t: Type) -> bool:
        """False when the value's own type already keeps it inside t (a player from a player)."""
        vt = value.type
        return isinstance(value, ir.Lit) or not fits(vt, t)

    # ---- expressions -------------------------------------------------------------------
    def ex(self, e: ir.Expr) -> str:
        memo = self.memo.get(id(e))
        if memo is not None:
            del self.memo[id(e)]
            try:
                code = getattr(self, "ex_" + type(e).__name__)(e)
            finally:
                self.memo[id(e)] = memo
            return f"({memo} if {memo} is not _U else ({memo} := {code}))"
        return getattr(self, "ex_" + type(e).__name__)(e)

    def ex_Lit(self, e):
        v = e.value
        if isinstance(v, (bool, int)) or v is None:
            return repr(v)
        return self.const(v)

    def ex_Var(self, e):
        return f"S[{self.slots[e.name]}]"

    def ex_ParamRef(self, e):
        return f"P[{self.pslots[e.name]}]"

    ex_ConstRef = ex_ParamRef

    def ex_Local(self, e):
        return self.subst.get(e.name) or _py(e.name)

    def ex_NumPlayers(self, e):
        return str(self.n)

    def ex_Index(self, e):
        bt = e.base.type
        base, idx = self.ex(e.base), self.ex(e.index)
        sid = self.span(e.span)
        if isinstance(bt, MapT):
            return f"{base}[{self.checked_key(bt.key, e.index, e.span)}]"
        if isinstance(bt, BagT):
            return f"{base}[{self.checked_key(bt.elem, e.index, e.span)}]"
        if isinstance(bt, PileT):
            return f"{base}.count({idx})"
        return f"_at({base}, {idx}, {sid})"

    def ex_Field(self, e):
        return f"{self.field_table(e)}[{self.ex(e.base)}]"

    def field_table(self, e: ir.Field) -> str:
        """The name of the constant table of a record field's value, indexed by the record."""
        rt: RecordT = e.base.type
        names = [n for n, _t in rt.fields]
        i = names.index(e.name)
        return self.const(tuple(record_fields(rt, k, self.dom)[i] for k in range(self.size(rt))), "F")

    @staticmethod
    def field_of(e, var: str) -> bool:
        """Whether e is a field of the local `var` (a record): a value looked up per card."""
        return isinstance(e, ir.Field) and isinstance(e.base, ir.Local) and e.base.name == var

    def ex_Unary(self, e):
        return f"(not {self.ex(e.operand)})" if e.op == "not" else f"(-{self.ex(e.operand)})"

    def ex_Binary(self, e):
        a, b = self.ex(e.left), self.ex(e.right)
        op = e.op
        lt, rt = e.left.type, e.right.type
        if op == "and":
            return f"({a} and {b})"
        if op == "or":
            return f"({a} or {b})"
        if op == "implies":
            return f"((not {a}) or {b})"
        if isinstance(e.type, BagT) and op in "+-":
            b = self.convert(b, rt, e.type)
            return f"_bag_add({a}, {b})" if op == "+" else f"_bag_sub({a}, {b})"
        if isinstance(e.type, SetT) and op in "+-":
            return f"({a} | {b})" if op == "+" else f"({a} - {b})"
        if op == "/":
            return f"_div({a}, {b}, {self.span(e.span)})"
        if op == "%":
            return f"_mod({a}, {b}, {self.span(e.span)})"
        if op in ("==", "!=") and (isinstance(e.right, ir.Lit) and e.right.value is None
                                   or isinstance(e.left, ir.Lit) and e.left.value is None):
            return f"({a} {'is' if op == '==' else 'is not'} {b})"
        if op in ("==", "!=") and (isinstance(lt, PileT) and isinstance(rt, ListT)
                                   or isinstance(rt, PileT) and isinstance(lt, ListT)):
            return f"(list({a}) {op} list({b}))"
        if op in ("==", "!=") and isinstance(lt, BagT) != isinstance(rt, BagT) and isinstance(lt, (BagT, PileT)):
            a = self.convert(a, lt, BagT(lt.elem))
            b = self.convert(b, rt, BagT(rt.elem))
        return f"({a} {op} {b})"

    def ex_Member(self, e):
        x = self.ex(e.elem)
        d = e.coll
        if isinstance(d, ir.TypeDomain):
            t = d.type
            code = f"({t.lo} <= {x} <= {t.hi})" if isinstance(t, IntT) else f"({x} in {self.values_const(t)})"
        elif isinstance(d, ir.RangeDomain):
            code = f"({self.ex(d.lo)} <= {x} <= {self.ex(d.hi)})"
        else:
            ct = d.expr.type
            coll = self.ex(d.expr)
            if isinstance(ct, BagT):
                if e.elem.type == ct.elem and not isinstance(ct.elem, IntT):  # its key is in range
                    code = f"({coll}[{self.key(ct.elem, x)}] > 0)"
                else:  # a number (or one taken for a player): a negative key must not wrap round the list
                    tmp = self.fresh("m")
                    key = f"{x} - {ct.elem.lo}" if isinstance(ct.elem, IntT) else self.key(ct.elem, x)
                    code = f"(lambda {tmp}: 0 <= {tmp} < {self.size(ct.elem)} and {coll}[{tmp}] > 0)({key})"
            else:
                code = f"({x} in {coll})"
        return f"(not {code})" if e.negated else code

    def ex_Cond(self, e):
        return f"({self.ex(e.then)} if {self.ex(e.cond)} else {self.ex(e.other)})"

    def iter_src(self, d: ir.Domain, with_dups: bool = False) -> str:
        """Python source iterating a domain's values (a bag's distinct cards unless with_dups)."""
        if isinstance(d, ir.TypeDomain):
            return self.values_const(d.type)
        if isinstance(d, ir.RangeDomain):
            return f"range({self.ex(d.lo)}, {self.ex(d.hi)} + 1)"
        t = d.expr.type
        code = self.ex(d.expr)
        if isinstance(t, BagT):
            if with_dups:
                return f"_expand({code}, {self.lo(t.elem)})"
            lo = self.lo(t.elem)
            return f"_compress({self.const(range(lo, lo + self.size(t.elem)), 'R')}, {code})"
        if isinstance(t, SetT):
            return f"sorted({code}, key={self.sort_key(t.elem)})"
        if isinstance(t, PileT) and not with_dups:
            return f"sorted(set({code}))"
        return code

    def sort_key(self, t: Type) -> str:
        return "None" if not isinstance(t, OptT) else "lambda x: (x is not None, x)"

    UNROLL_MAX = 8          # unroll quantifiers over type domains this small
    UNROLL_CHARS = 2400     # ... while the unrolled source stays this short

    def unrolled(self, e) -> str | None:
        """all/any/sum/count over a small type domain as a chain of and/or/+ (no generator)."""
        d = e.domain
        if e.kind not in ("all", "any", "sum", "count") or not isinstance(d, ir.TypeDomain):
            return None
        values = self.dom.values(d.type)
        if len(values) > self.UNROLL_MAX or not all(isinstance(v, (int, bool)) for v in values):
            return None
        terms = []
        for v in values:
            self.subst[e.var] = repr(v)
            try:
                w = self.ex(e.where) if e.where is not None else None
                b = self.ex(e.body) if e.body is not None else None
            finally:
                del self.subst[e.var]
            if e.kind == "all":
                terms.append(b if w is None else f"((not {w}) or {b})")
            elif e.kind == "any":
                terms.append(b if w is None else f"({w} and {b})")
            elif e.kind == "sum":
                terms.append(b if w is None else f"({b} if {w} else 0)")
            else:
                terms.append("1" if w is None else f"(1 if {w} else 0)")
        joiner = {"all": " and ", "any": " or ", "sum": " + ", "count": " + "}[e.kind]
        src = "(" + joiner.join(terms) + ")" if terms else {"all": "True", "any": "False"}.get(e.kind, "0")
        return src if len(src) <= self.UNROLL_CHARS else None

    def conservation(self, e) -> str | None:
        """`all(c in T: total(c) == K)` or `== bag[c]` as one comparison of count vectors."""
        if e.kind != "all" or e.where is not None or not isinstance(e.domain, ir.TypeDomain):
            return None
        b = e.body
        if not (isinstance(b, ir.Binary) and b.op == "=="):
            return None
        for tot, other in ((b.left, b.right), (b.right, b.left)):
            if not (isinstance(tot, ir.Builtin) and tot.name == "total" and isinstance(tot.args[0], ir.Local)
                    and tot.args[0].name == e.var and tot.args[0].type == e.domain.type):
                continue
            t = e.domain.type
            if isinstance(t, IntT) or isinstance(t, OptT):
                return None
            vector = self.totals_vector(t)
            if isinstance(other, ir.Lit) and isinstance(other.value, int):
                return f"({vector} == {self.const([other.value] * self.size(t), 'V')})"
            if isinstance(other, ir.Index) and isinstance(other.index, ir.Local) and other.index.name == e.var \
                    and isinstance(other.base.type, BagT) and other.base.type.elem == t \
                    and e.var not in free_vars(other.base):
                return f"({vector} == {self.ex(other.base)})"
        return None

    def membership(self, e) -> str | None:
        """`any(x in C: x == v)` as `v in C`, and `all(x in C: x != v)` as `v not in C`, for a
        set, pile or list C and a v that cannot fault (a literal, a variable, a parameter or
        another local; it is evaluated once even when C is empty): a test of membership instead of
        a generator over the sorted set (de.rules' im_spiel, a suit not among the roles removed:
        0.69 -> 0.10 us a call). None for any other form."""
        if e.kind not in ("any", "all") or e.where is not None or not isinstance(e.domain, ir.ExprDomain) \
                or not isinstance(e.domain.expr.type, (SetT, PileT, ListT)):
            return None
        b = e.body
        if not (isinstance(b, ir.Binary) and b.op == ("==" if e.kind == "any" else "!=")):
            return None
        for x, v in ((b.left, b.right), (b.right, b.left)):
            if isinstance(x, ir.Local) and x.name == e.var \
                    and isinstance(v, (ir.Lit, ir.Var, ir.ParamRef, ir.ConstRef, ir.Local)) \
                    and not (isinstance(v, ir.Local) and v.name == e.var):
                code = f"({self.ex(v)} in {self.ex(e.domain.expr)})"
                return code if e.kind == "any" else f"(not {code})"
        return None

    def ex_Aggregate(self, e):
        fast = self.conservation(e) or self.unrolled(e) or self.membership(e)
        if fast is not None:
            return fast
        var = _py(e.var)
        where = f" if {self.ex(e.where)}" if e.where is not None else ""
        kind = e.kind
        d = e.domain
        sid = self.span(e.span)
        if kind in ("sum", "count") and isinstance(d, ir.ExprDomain) and isinstance(d.expr.type, BagT):
            sliced = self.bag_slice(e)
            if sliced is not None:
                return sliced
            if e.where is None and isinstance(d.expr.type.elem, RecordT) and (kind == "count" or self.field_of(e.body, e.var)):
                bag = self.ex(d.expr)
                return f"sum({bag})" if kind == "count" else f"_dot({self.field_table(e.body)}, {bag})"
            n = self.fresh("n")
            src = f"_items({self.ex(d.expr)}, {self.lo(d.expr.type.elem)})"
            if kind == "count":
                return f"sum({n} for {var}, {n} in {src}{where})"
            return f"sum(({self.ex(e.body)}) * {n} for {var}, {n} in {src}{where})"
        if kind in ("sum", "count") and isinstance(d, ir.ExprDomain) and isinstance(d.expr.type, PileT):
            it = self.ex(d.expr)
        else:
            it = self.iter_src(d)
        if kind == "count":
            return f"sum(1 for {var} in {it}{where})"
        body = self.ex(e.body)
        if kind == "sum":
            return f"sum({body} for {var} in {it}{where})"
        if kind in ("all", "any"):
            return f"{kind}({body} for {var} in {it}{where})"
        if kind in ("min", "max"):
            fn = "_least" if kind == "min" else "_greatest"
            return f"{fn}([{body} for {var} in {it}{where}], {sid}, '{kind}')"
        return (f"_argbest([{var} for {var} in {it}{where}], lambda {var}: {body}, {sid}, "
                f"{kind == 'argmax'})")

    RUN_UNROLL = 16  # a run's sum of a field is unrolled (run_dot) up to this many cards

    def run_dot(self, weights: tuple) -> str:
        """The name of a function (bag, start) -> sum of weights[i] * bag[start + i], unrolled:
        a sum of a field over the run of a bag's cards with one first field, where the field's
        values are the same in every run (a card's value, 1 to 7 in each suit). Twice as fast as
        runtime.dot's loop over the run (0.18 against 0.36 us for 7 cards): de.rules' costly goal
        sums a hand's run per player and suit, 24 to 40 times a state."""
        key = ("run_dot", weights)
        if key not in self._consts:
            name = f"_rd{len(self._consts)}"
            terms = [(f"b[s + {i}]" if i else "b[s]") + (f" * {w!r}" if w != 1 else "")
                     for i, w in enumerate(weights) if w]
            exec(f"def {name}(b, s):\n    return {' + '.join(terms) or '0'}\n", self.g)
            self._consts[key] = name
        return self._consts[key]

    def bag_slice(self, e) -> str | None:
        """A sum or count over a bag of records filtered first by the record's first field, e.g.
        `sum(c in hand where c.colour == f: c.value)`: the records with that first field are one
        run of the bag's indices (the first field varies slowest), so only that run is read. None
        where the filter has another shape, or its value may lie outside the field's type."""
        elem = e.domain.expr.type.elem
        conds = []
        w = e.where
        while isinstance(w, ir.Binary) and w.op == "and":
            conds.append(w.right)
            w = w.left
        if not (isinstance(elem, RecordT) and isinstance(w, ir.Binary) and w.op == "=="):
            return None
        field, value = w.left, w.right
        if not isinstance(field, ir.Field):
            field, value = value, field
        fname, ftype = elem.fields[0]
        if not (isinstance(field, ir.Field) and field.name == fname and isinstance(field.base, ir.Local)
                and field.base.name == e.var and isinstance(ftype, EnumT) and isinstance(value.type, EnumT)
                and ftype.includes(value.type) and e.var not in _free_locals(value, set())):
            return None
        _sizes, strides = record_layout(elem, self.dom)
        stride = strides[0]
        if not conds and (e.kind == "count" or self.field_of(e.body, e.var)):
            # the run of indices read at once: the field's values against the counts (map, sum)
            start = f"{self.key(ftype, self.ex(value))} * {stride}"
            if e.kind == "count":
                return f"_run({self.ex(e.domain.expr)}, {start}, {stride})"
            table = self.g[self.field_table(e.body)]
            weights = {tuple(table[at:at + stride]) for at in range(0, len(table), stride)}
            if len(weights) == 1 and stride <= self.RUN_UNROLL:  # the same values in every run
                return f"{self.run_dot(weights.pop())}({self.ex(e.domain.expr)}, {start})"
            return f"_dot({self.field_table(e.body)}, {self.ex(e.domain.expr)}, {start}, {stride})"
        var, bag, at = _py(e.var), self.fresh("b"), self.fresh("i")
        rest = "".join(f" and {self.ex(c)}" for c in reversed(conds))
        loops = (f"for {bag} in ({self.ex(e.domain.expr)},) for {at} in ({self.key(ftype, self.ex(value))} * {stride},) "
                 f"for {var} in range({at}, {at} + {stride}) if {bag}[{var}]{rest}")
        if e.kind == "count":
            return f"sum({bag}[{var}] {loops})"
        return f"sum(({self.ex(e.body)}) * {bag}[{var}] {loops})"

    def ex_Builtin(self, e):
        name = e.name
        args = [self.ex(a) for a in e.args]
        sid = self.span(e.span)
        t0 = e.args[0].type if e.args else None
        if name == "size":
            return f"sum({args[0]})" if isinstance(t0, BagT) else f"len({args[0]})"
        if name == "top":
            return f"_top({args[0]}, {sid})"
        if name == "the":
            if isinstance(t0, BagT):
                return f"_the_bag({args[0]}, {sid}, {self.lo(t0.elem)})"
            return f"_the_seq({args[0]}, {sid})"
        if name == "get":
            return f"_get({args[0]}, {sid})"
        if name == "total":
            return self.total(t0, args[0], sid)
        if name == "left":
            return f"(({args[0]} + 1) % N)"
        if name == "right":
            return f"(({args[0]} - 1) % N)"
        if name == "seat":
            return f"(({args[0]} + {args[1]}) % N)"
        if name == "distance":
            return f"(({args[1]} - {args[0]}) % N)"
        if name == "clockwise":
            return f"tuple(({args[0]} + _i) % N for _i in range(N))"
        if name == "rank":
            return f"_rank({args[0]}, {args[1]}, {sid})"
        if name == "first":
            return f"_first({args[0]}, {sid})"
        if name == "last":
            return f"_last({args[0]}, {sid})"
        if name == "abs":
            return f"abs({args[0]})"
        if name == "least":
            return f"min({', '.join(args)})" if len(args) > 1 else args[0]
        if name == "greatest":
            return f"max({', '.join(args)})" if len(args) > 1 else args[0]
        if name == "ord":
            return f"int({args[0]})"
        raise AssertionError(name)  # pragma: no cover

    def total_helper(self, t: Type) -> str:
        """A function giving, for every value of type t, how many are in all zones together."""
        name = self._totals.get(str(t))
        if name is not None:
            return name
        name = f"_totals_{len(self._totals)}"
        size, lo = self.size(t), self.lo(t)
        bags, piles, unpack = [], [], []
        for v in self.spec.state:
            zt = v.type.value if isinstance(v.type, MapT) else v.type
            if not v.zone or not isinstance(zt, (BagT, PileT)) or not self.same_kinds(zt.elem, t):
                continue
            slot = self.slots[v.name]
            if isinstance(zt, BagT) and self.size(zt.elem) == size:
                if isinstance(v.type, MapT):
                    names = [f"b{len(bags) + i}" for i in range(self.size(v.type.key))]
                    unpack.append(f"    {', '.join(names)}, = S[{slot}]")
                    bags.extend(names)
                else:
                    unpack.append(f"    b{len(bags)} = S[{slot}]")
                    bags.append(f"b{len(bags)}")
            elif isinstance(zt, BagT):
                piles.append(f"_expand(S[{slot}], {lo})" if not isinstance(v.type, MapT)
                             else f"(c for z in S[{slot}] for c in _expand(z, {lo}))")
            else:
                piles.append(f"S[{slot}]" if not isinstance(v.type, MapT) else f"(c for z in S[{slot}] for c in z)")
        lines = [f"def {name}(S):"] + unpack
        if len(bags) == 1:
            lines.append(f"    T = list({bags[0]})")
        elif bags:
            xs = [f"x{i}" for i in range(len(bags))]
            lines.append(f"    T = [{' + '.join(xs)} for {', '.join(xs)} in zip({', '.join(bags)})]")
        else:
            lines.append(f"    T = [0] * {size}")
        for src in piles:
            lines += [f"    for c in {src}:", f"        T[c - {lo}] += 1"]
        lines.append("    return T")
        exec(compile("\n".join(lines) + "\n", f"<rulespec totals {t}>", "exec"), self.g)
        self._totals[str(t)] = name
        return name

    @staticmethod
    def same_kinds(a: Type, b: Type) -> bool:
        return a == b or (isinstance(a, EnumT) and isinstance(b, EnumT) and (a.includes(b) or b.includes(a)))

    def totals_vector(self, t: Type) -> str:
        """The count of every value of t over all zones: computed once per pure evaluation, else now."""
        fn = self.total_helper(t)
        if self.hoist is not None:
            return self.hoist.setdefault(fn, f"_T{len(self.hoist)}")
        return f"{fn}(S)"

    def total(self, t: Type, card: str, sid: int) -> str:
        """total(c): one value's count over all zones."""
        return f"{self.totals_vector(t)}[{self.key(t, card)}]"

    def ex_Make(self, e):
        rt = e.record
        sizes, strides = record_layout(rt, self.dom)
        if all(isinstance(a, ir.Lit) for a in e.args):
            kind = 0
            for (_n, ft), a, stride in zip(rt.fields, e.args, strides):
                kind += self.dom.index(ft, a.value) * stride
            return str(kind)
        sid = self.span(e.span)
        parts = []
        checks = []
        for i, ((fname, ft), a, stride) in enumerate(zip(rt.fields, e.args, strides)):
            code = self.ex(a)
            if isinstance(ft, IntT) or isinstance(ft, PlayerT):
                lo, hi = (ft.lo, ft.hi) if isinstance(ft, IntT) else (0, self.n - 1)
                if isinstance(a, ir.Lit) and type(a.value) is int and lo <= a.value <= hi:
                    parts.append(str((a.value - lo) * stride))  # a number known to fit: no check
                    continue
                var = f"_a{i}"
                checks.append((var, code, lo, hi, fname))
                parts.append(f"({var} - {lo}) * {stride}" if lo else f"{var} * {stride}")
            else:
                parts.append(f"{self.key(ft, code)} * {stride}" if stride != 1 else self.key(ft, code))
        if not checks:
            return "(" + " + ".join(parts) + ")"
        binds = ", ".join(v for v, *_ in checks)
        conds = " and ".join(f"{lo} <= {v} <= {hi}" for v, _c, lo, hi, _f in checks)
        body = " + ".join(parts)
        args = ", ".join(c for _v, c, *_ in checks)
        return (f"(lambda {binds}: ({body}) if {conds} else _fault_make({sid}, '{rt.name}'))({args})")

    def ex_BagOf(self, e):
        t = e.type
        pieces = []
        for item in e.items:
            if isinstance(t, SetT):
                elem = self.ex(item.elem)
            else:
                cnt = self.ex(item.count) if item.count is not None else "1"
                elem = f"({cnt}, {self.key(t.elem, self.ex(item.elem))})"
            if item.binders:
                loops = " ".join(f"for {_py(n)} in {self.iter_src(d, with_dups=True)}" for n, d in item.binders)
                where = f" if {self.ex(item.where)}" if item.where is not None else ""
                pieces.append(f"({elem} {loops}{where})")
            else:
                pieces.append(f"({elem},)")
        src = "_chain(" + ", ".join(pieces) + ")" if pieces else "()"
        if isinstance(t, SetT):
            if _wider(t.elem, e.items):  # a value outside the element type is a run-time error
                lo, hi = (t.elem.lo, t.elem.hi) if isinstance(t.elem, IntT) else (0, "N - 1")
                return f"_make_set({lo}, {hi}, {src}, {self.span(e.span)})"
            return f"frozenset({src})"
        elem_t = t.elem
        size = self.size(elem_t) if elem_t is not None else 0
        return f"_make_bag({size}, {src}, {self.span(e.span)})"

    def ex_ListOf(self, e):
        return "(" + "".join(self.ex(x) + ", " for x in e.elems) + ")"

    def ex_TupleOf(self, e):
        return "(" + "".join(self.ex(x) + ", " for x in e.elems) + ")"

    def ex_Apply(self, e):
        args = "".join(", " + self.ex(a) for a in e.args)
        return f"d_{e.name}(S, P{args})"

    # ---- conversions -------------------------------------------------------------------
    def convert(self, code: str, src: Type, dst: Type, span_id: int | None = None) -> str:
        """Source for a value of type src stored where dst is expected (copies mutable values)."""
        if isinstance(dst, BagT) and isinstance(src, PileT):
            return f"_as_bag({code}, {self.size(dst.elem)}, {self.lo(dst.elem)})"
        if isinstance(dst, PileT) and isinstance(src, BagT):
            return f"_as_pile({code}, {self.lo(dst.elem)})"
        if isinstance(dst, PileT) and isinstance(src, (ListT, OrderT)):
            return f"list({code})"
        if isinstance(dst, OrderT) and isinstance(src, ListT):
            return f"_check_order({code}, {self.values_const(dst.elem)}, {span_id if span_id is not None else 0})"
        if isinstance(dst, BagT) and isinstance(src, BagT) and src.elem is None:
            return f"[0] * {self.size(dst.elem)}"
        sid = span_id if span_id is not None else 0
        if isinstance(dst, SetT) and isinstance(src, SetT) and src.elem != dst.elem and src.elem is not None \
                and isinstance(dst.elem, (IntT, PlayerT)):  # a wider set: each value must be one of dst's
            lo, hi = (dst.elem.lo, dst.elem.hi) if isinstance(dst.elem, IntT) else (0, "N - 1")
            return f"_make_set({lo}, {hi}, {code}, {sid})"
        if isinstance(dst, MapT) and isinstance(src, MapT) and src.value != dst.value and \
                isinstance(dst.value, IntT) and isinstance(src.value, IntT):  # a wider map's values
            return f"_check_values({code}, {dst.value.lo}, {dst.value.hi}, {sid})"
        if isinstance(dst, CONTAINERS):
            return f"_copy({code})"
        return code

    # ---- statements --------------------------------------------------------------------
    def emit(self, line: str, depth: int):
        self.out.append("    " * depth + line)

    def block(self, stmts, depth: int):
        if not stmts:
            self.emit("pass", depth)
        for s in stmts:
            getattr(self, "st_" + type(s).__name__)(s, depth)

    def place(self, p: ir.Place) -> str:
        code = f"S[{self.slots[p.var]}]"
        t = self.vars[p.var].type
        for idx in p.path:
            code += f"[{self.checked_key(t.key, idx, p.span)}]"
            t = t.value
        return code

    def describe(self, p: ir.Place) -> str:
        return p.var + "".join("[…]" for _ in p.path)

    def st_Assign(self, s, depth):
        tgt = self.place(s.target)
        t = s.target.type
        sid = self.span(s.span)
        value = self.ex(s.value)
        what = self.describe(s.target)
        if s.op == ":=":
            value = self.convert(value, s.value.type, t, sid)
            if isinstance(s.value, ir.Lit) and isinstance(s.value.value, int) and not isinstance(s.value.value, bool):
                if self.in_range(t, s.value.value):
                    self.emit(f"{tgt} = {value}", depth)
                    return
            checks = self.range_check(t, "_v", sid, what) if self.needs_check(s.value, t) else []
            if checks:
                self.emit(f"_v = {value}", depth)
                for line in checks:
                    self.emit(line, depth)
                self.emit(f"{tgt} = _v", depth)
            else:
                self.emit(f"{tgt} = {value}", depth)
            return
        if isinstance(t, BagT):
            value = self.convert(value, s.value.type, t)
            if s.op == "+=":
                self.emit(f"{tgt} = _bag_add({tgt}, {value})", depth)
            else:
                self.emit(f"_take_bag({tgt}, {value}, {sid}, '{what}')", depth)
            return
        if isinstance(t, SetT):
            self.emit(f"{tgt} = {tgt} {'|' if s.op == '+=' else '-'} {value}", depth)
            return
        self.emit(f"_v = {tgt} {s.op[0]} {value}", depth)
        for line in self.range_check(t, "_v", sid, what):
            self.emit(line, depth)
        self.emit(f"{tgt} = _v", depth)

    def add_card(self, dst_code: str, zt: Type, end: str, card: str) -> str:
        if isinstance(zt, BagT):
            return f"{dst_code}[{self.key(zt.elem, card)}] += 1"
        if end != "top" and self.forced:
            return f"R.insert_bottom({dst_code}, [{card}])"
        return f"{dst_code}.append({card})" if end == "top" else f"{dst_code}.insert(0, {card})"

    def st_Move(self, s, depth):
        sid = self.span(s.span)
        src_t, dst_t = s.src.type, s.dst.type
        src, dst = self.fresh("src"), self.fresh("dst")
        self.emit(f"{src} = {self.place(s.src)}", depth)
        self.emit(f"{dst} = {self.place(s.dst)}", depth)
        zone = self.describe(s.src)
        if s.what == "one":
            card = self.fresh("c")
            self.emit(f"{card} = {self.ex(s.value)}", depth)
            if isinstance(src_t, BagT):
                k = self.key(src_t.elem, card)
                # (a number taken for a card: out of range, it is not there)
                wide = f"not 0 <= {k} < {self.size(src_t.elem)} or " if s.value.type != src_t.elem else ""
                self.emit(f"if {wide}{src}[{k}] < 1: raise _Fault({sid}, 'the card is not in {zone}')", depth)
                self.emit(f"{src}[{k}] -= 1", depth)
            elif self.forced:
                self.emit(f"R.remove({src}, {card}, {s.src_end == 'top'}, {sid}, 'the card in {zone}')", depth)
                self.emit(f"R.top_event({src}, {self.zone_label(s.src)})", depth)
            else:
                self.emit(f"_remove_from_pile({src}, {card}, {s.src_end == 'top'}, {sid}, 'the card in {zone}')", depth)
            self.emit(self.add_card(dst, dst_t, s.dst_end, card), depth)
        elif s.what == "count":
            count, card = self.fresh("k"), self.fresh("c")
            if self.forced:
                self.emit(f"R.draw_begin({src}, {self.zone_label(s.src)})", depth)
            self.emit(f"for {count} in range({self.ex(s.value)}):", depth)
            self.emit(f"if not {src}:", depth + 1)
            self.refill(s.src, src, sid, depth + 2)
            if self.forced:
                pop = (f"R.pop_top({src}, {self.zone_label(s.src)})" if s.src_end == "top"
                       else f"R.pop_bottom({src}, {self.zone_label(s.src)})")
            else:
                pop = f"{src}.pop()" if s.src_end == "top" else f"{src}.pop(0)"
            self.emit(f"{card} = {pop}", depth + 1)
            self.emit(self.add_card(dst, dst_t, s.dst_end, card), depth + 1)
            if self.forced:
                self.emit(f"R.draw_end({src}, {self.zone_label(s.src)})", depth)
        elif s.what == "bag":
            bag = self.fresh("b")
            self.emit(f"{bag} = {self.convert(self.ex(s.value), s.value.type, BagT(src_t.elem))}", depth)
            if isinstance(src_t, BagT):
                self.emit(f"_take_bag({src}, {bag}, {sid}, 'moving cards out of {zone}')", depth)
            else:
                self.emit(f"for _c in _expand({bag}, {self.lo(src_t.elem)}):", depth)
                if self.forced:
                    self.emit(f"R.remove({src}, _c, {s.src_end == 'top'}, {sid}, 'a card in {zone}')", depth + 1)
                    self.emit(f"R.top_event({src}, {self.zone_label(s.src)})", depth)
                else:
                    self.emit(f"_remove_from_pile({src}, _c, {s.src_end == 'top'}, {sid}, 'a card in {zone}')", depth + 1)
            if isinstance(dst_t, PileT) and s.dst_end != "top":
                # under the bottom as one block in the order of the card type, as `all` puts its
                # cards (card by card, the lowest would end on top of an empty pile)
                cards = f"_expand({bag}, {self.lo(src_t.elem)})"
                self.emit(f"R.insert_bottom({dst}, {cards})" if self.forced else f"{dst}[0:0] = {cards}", depth)
            else:
                self.emit(f"for _c in _expand({bag}, {self.lo(src_t.elem)}):", depth)
                self.emit(self.add_card(dst, dst_t, s.dst_end, "_c"), depth + 1)
        else:  # all
            if isinstance(src_t, BagT) and isinstance(dst_t, BagT):
                zero = self.const(tuple([0] * self.size(src_t.elem)), "Z")
                self.emit(f"if {src} is not {dst}:", depth)
                self.emit(f"{dst}[:] = map(_add, {dst}, {src})", depth + 1)
                self.emit(f"{src}[:] = {zero}", depth + 1)
            else:
                cards = self.fresh("all")
                if isinstance(src_t, BagT):
                    self.emit(f"{cards} = _expand({src}, {self.lo(src_t.elem)})", depth)
                    self.emit(f"{src}[:] = [0] * len({src})", depth)
                else:
                    self.emit(f"{cards} = {src}[:]", depth)
                    self.emit(f"R.clear({src})" if self.forced else f"{src}.clear()", depth)
                if isinstance(dst_t, BagT):
                    self.emit(f"for _c in {cards}:", depth)
                    self.emit(f"{dst}[{self.key(dst_t.elem, '_c')}] += 1", depth + 1)
                elif s.dst_end == "top":
                    self.emit(f"{dst}.extend({cards})", depth)
                elif self.forced:
                    self.emit(f"R.insert_bottom({dst}, {cards})", depth)
                else:
                    self.emit(f"{dst}[0:0] = {cards}", depth)

    def refill(self, place: ir.Place, src: str, sid: int, depth: int):
        """Lines run when a pile is empty during a draw: refill it, or skip, gap or fault."""
        var = self.vars[place.var]
        brk = False
        if var.refill:
            other = f"S[{self.slots[var.refill]}]"
            ot = self.vars[var.refill].type
            if isinstance(ot, BagT):
                self.emit(f"{src}.extend(_expand({other}, {self.lo(ot.elem)}))", depth)
                self.emit(f"{other}[:] = [0] * len({other})", depth)
            else:
                self.emit(f"{src}.extend(reversed({other}))", depth)
                self.emit(f"R.clear({other})" if self.forced else f"{other}.clear()", depth)
            if self.forced:
                self.emit(f"R.refilled({src}, {var.refill_shuffled}, {self.zone_label(place)})", depth)
            elif var.refill_shuffled:
                self.emit(f"R.shuffle({src})", depth)
            self.emit(f"if not {src}:", depth)
            depth += 1
        if var.exhausted == "skip":
            self.emit("break", depth)
            brk = True
        elif var.exhausted == "undecided":
            self.emit(f"raise _Gap({var.exhausted_gap.id})", depth)
        else:
            what = self.describe(place) + (f" (and {var.refill})" if var.refill else "")
            self.emit(f"raise _Fault({sid}, 'drew from an empty pile: {what}')", depth)
        return brk

    def st_Shuffle(self, s, depth):
        if self.forced:
            self.emit(f"R.shuffle({self.place(s.zone)}, {self.zone_label(s.zone)})", depth)
        else:
            self.emit(f"R.shuffle({self.place(s.zone)})", depth)

    def zone_label(self, p: ir.Place) -> str:
        """Source for the printed name of a zone, e.g. 'deck[2]' (for forced replays)."""
        if not p.path:
            return repr(p.var)
        parts = " + '][' + ".join(f"str({self.ex(i)})" for i in p.path)
        return f"'{p.var}[' + {parts} + ']'"

    def st_If(self, s, depth):
        self.emit(f"if {self.ex(s.cond)}:", depth)
        self.block(s.then, depth + 1)
        if s.other:
            if len(s.other) == 1 and isinstance(s.other[0], ir.If):
                inner = s.other[0]
                mark = len(self.out)
                self.st_If(inner, depth)
                self.out[mark] = self.out[mark].replace("if ", "elif ", 1)
            else:
                self.emit("else:", depth)
                self.block(s.other, depth + 1)

    def st_For(self, s, depth):
        items = self.fresh("it")
        var = _py(s.var)
        src = self.iter_src(s.domain, with_dups=True)
        if isinstance(s.domain, ir.TypeDomain) and s.order is None:
            self.emit(f"{items} = {src}", depth)
        else:
            self.emit(f"{items} = list({src})", depth)
        if s.order is not None:
            self.emit(f"{items}.sort(key=lambda {var}: {self.ex(s.order)})", depth)
        self.emit(f"for {var} in {items}:", depth)
        if s.where is not None:
            self.emit(f"if not {self.ex(s.where)}: continue", depth + 1)
        self.block(s.body, depth + 1)

    def st_Let(self, s, depth):
        value = self.ex(s.value)
        if isinstance(s.value.type, CONTAINERS):
            value = f"_copy({value})"
        self.emit(f"{_py(s.name)} = {value}", depth)
        if s.declared is not None and self.needs_check(s.value, s.declared):
            for line in self.range_check(s.declared, _py(s.name), self.span(s.span), f"argument {s.name.split('__')[-1]}"):
                self.emit(line, depth)

    def st_Undecided(self, s, depth):
        self.emit(f"raise _Gap({s.id})", depth)

    # ---- functions ---------------------------------------------------------------------
    def function(self, name: str, params: str, body, pure: bool = True) -> None:
        """Emit `def name(params)`; in a pure function (no state change) totals are computed once."""
        self.emit(f"def {name}({params}):", 0)
        mark = len(self.out)
        self.hoist = {} if pure else None
        body()
        if self.hoist:
            self.out[mark:mark] = [f"    {local} = {fn}(S)" for fn, local in self.hoist.items()]
            self.hoisted.add(name)
        self.hoist = None
        if len(self.out) == mark:
            self.emit("pass", 1)
        self.emit("", 0)

    def build(self) -> dict:
        """Generate and execute the module; returns its namespace."""
        spec = self.spec
        self.g["_fault_make"] = _fault_make
        for d in spec.defs.values():
            params = "S, P" + "".join(", " + _py(n) for n, _t in d.params)

            def body(d=d):
                sid = self.span(d.span)
                for n, t in d.params:
                    for line in self.range_check(t, _py(n), sid, f"{d.name}'s argument {n}"):
                        self.emit(line, 1)
                # the result outside the declared type is a run-time error, as an argument is
                checks = self.range_check(d.type, "_v", sid, f"{d.name}'s result") if self.needs_check(d.body, d.type) else []
                if checks:
                    self.emit(f"_v = {self.ex(d.body)}", 1)
                    for line in checks:
                        self.emit(line, 1)
                    self.emit("return _v", 1)
                else:
                    self.emit(f"return {self.ex(d.body)}", 1)
            self.function(f"d_{d.name}", params, body)

        def consts():
            for c in spec.consts:
                self.emit(f"P[{self.pslots[c.name]}] = {self.ex(c.value)}", 1)
        self.function("consts", "P", consts)
        for i, p in enumerate(spec.params):
            if p.where is not None:
                self.function(f"pwhere_{i}", "P", lambda p=p: self.emit(f"return {self.ex(p.where)}", 1))
        self.function("init", "S, P, R", lambda: self.block(spec.init, 1), pure=False)
        for i, a in enumerate(spec.actions):
            self.action(i, a)
        self.function("legal", "S, P, out", self.dispatch)
        for i, p in enumerate(spec.properties):
            if p.kind in ("invariant", "reachable"):
                self.function(f"prop_{i}", "S, P", lambda p=p: self.emit(f"return {self.ex(p.expr)}", 1))
            elif p.kind == "terminates":
                self.function(f"while_{i}", "S, P", lambda p=p: self.emit(f"return {self.ex(p.cond)}", 1))
                self.function(f"rank_{i}", "S, P",
                              lambda p=p: self.emit("return (" + "".join(self.ex(r) + ", " for r in p.ranks) + ")", 1))
            elif p.kind == "bound":
                self.function(f"trigger_{i}", "S, P", lambda p=p: self.emit(f"return {self.ex(p.trigger)}", 1))
        for i, e in enumerate(spec.ends):
            self.function(f"end_{i}", "S, P", lambda e=e: self.emit(f"return {self.ex(e.cond)}", 1))
        for i, st in enumerate(spec.stats):
            params = "S, P" + "".join(", " + _py(n) for n, _t in st.params)
            self.function(f"stat_{i}", params, lambda st=st: self.emit(f"return {self.ex(st.expr)}", 1))
        source = "\n".join(self.out)
        self.g["__source__"] = source
        exec(compile(source, f"<rulespec {spec.path} players={self.n}>", "exec"), self.g)
        return self.g

    def compile_expr(self, e: ir.Expr):
        """A function (S, P) -> value for one expression, after build()."""
        return self._compile_one("S, P", lambda: self.emit(f"return {self.ex(e)}", 1), pure=True)

    def compile_block(self, stmts):
        """A function (S, P, R) running statements (a scenario's setup), after build()."""
        return self._compile_one("S, P, R", lambda: self.block(stmts, 1), pure=False)

    def _compile_one(self, params: str, body, pure: bool):
        saved, self.out = self.out, []
        name = self.fresh("adhoc")
        try:
            self.function(name, params, body, pure=pure)
            exec(compile("\n".join(self.out), f"<rulespec {self.spec.path} scenario>", "exec"), self.g)
        finally:
            self.out = saved
        return self.g[name]

    def action(self, i: int, a: ir.Action):
        params = [n for n, _t in a.params]
        sig = "S, P" + "".join(", " + _py(n) for n in params)

        def guard():
            for j, c in enumerate(a.guard):
                self.emit(f"if not {self.ex(c)}: return {j}", 1)
            self.emit("return -1", 1)
        self.function(f"guard_{i}", sig, guard)
        self.function(f"apply_{i}", "S, P, R" + "".join(", " + _py(n) for n in params),
                      lambda: self.block(a.body, 1), pure=False)
        self.function(f"moves_{i}", "S, P, out", lambda: self.enumerator(i, a))
        if a.by is not None:
            self.function(f"by_{i}", sig, lambda: self.emit(f"return {self.ex(a.by)}", 1))

    def enumerator(self, i: int, a: ir.Action):
        """Nested loops over the parameters, each conjunct tested at the first loop where it can be."""
        names = [n for n, _t in a.params]
        levels: dict[int, list[ir.Expr]] = {k: [] for k in range(-1, len(names))}
        ahead = -1    # the deepest loop of a conjunct written before this one
        barrier = -1  # the deepest loop of one written before it that may run into a run-time error
        for c in a.guard:
            used = _free_locals(c, set())
            level = max([names.index(n) for n in used if n in names], default=-1)
            if not _total(c):
                # one that may run into a run-time error is not tested before those written ahead
                # of it, as guard_i and the Z3 encoding take them (they may rule it out), nor are
                # those written after it tested before it (they would hide its error)
                level = max(level, ahead)
                barrier = max(barrier, level)
            level = max(level, barrier)
            levels[level].append(c)
            ahead = max(ahead, level)
        depth = 1
        for c in levels[-1]:
            test = self.ex(c)
            if c is levels[-1][0]:
                self.first_tests[i] = test
            self.emit(f"if not {test}: return", depth)
        for k, (name, t) in enumerate(a.params):
            var = _py(name)
            conds = list(levels[k])
            source, used, extra = self.narrow(name, t, conds, names[:k])
            if used is not None:
                conds.remove(used)
            # aggregates that do not depend on this parameter are computed once per loop, lazily
            outer = set(names[:k])
            for c in conds:
                for agg in _maximal_aggregates(c, []):
                    if free_vars(agg) <= outer and id(agg) not in self.memo:
                        memo = self.fresh("h")
                        self.memo[id(agg)] = memo
                        self.emit(f"{memo} = _U", depth)
            self.emit(f"for {var} in {source}:", depth)
            depth += 1
            for line in extra:
                self.emit(line, depth)
            for c in conds:
                self.emit(f"if not {self.ex(c)}: continue", depth)
        args = "(" + "".join(_py(n) + ", " for n in names) + ")"
        self.emit(f"out.append(({i}, {args}))", depth)
        self.memo.clear()

    def dispatch(self) -> None:
        """The body of `legal(S, P, out)`: every action's enumerator called in the actions' order
        (the moves' order is the same as calling them one by one), but those whose first test is
        one state variable equal to a number (the phase; the variable most of them test) only in
        the branch of that number (de.rules: 28 enumerators, most of which returned at once)."""
        n = len(self.spec.actions)
        keyed = {}
        for i, test in self.first_tests.items():
            m = _SLOT_IS.fullmatch(test)
            if m and f"moves_{i}" not in self.hoisted:
                keyed[i] = (int(m.group(1)), int(m.group(2)))
        slots = [slot for slot, _v in keyed.values()]
        slot = max(set(slots), key=slots.count) if slots else None
        keyed = {i: v for i, (s, v) in keyed.items() if s == slot}
        free = [i for i in range(n) if i not in keyed]
        if not keyed:
            for i in free:
                self.emit(f"moves_{i}(S, P, out)", 1)
            return
        self.emit(f"k = S[{slot}]", 1)
        for j, value in enumerate(sorted(set(keyed.values()))):
            self.emit(f"{'if' if j == 0 else 'elif'} k == {value}:", 1)
            for i in range(n):
                if i in free or keyed.get(i) == value:
                    self.emit(f"moves_{i}(S, P, out)", 2)
        if free:
            self.emit("else:", 1)
            for i in free:
                self.emit(f"moves_{i}(S, P, out)", 2)

    def narrow(self, name, t, conds, earlier):
        """(iteration source, the conjunct it replaces or None, extra lines) for one parameter."""
        var = _py(name)
        # a conjunct narrows the loop only where taking it first changes no run-time error: none
        # written ahead of it at this loop may meet one, nor its own value unless it is the first
        safe = []
        for j, c in enumerate(conds):
            safe.append(c)
            if not _total(c) and j > 0 or not all(_total(x) for x in conds[:j]):
                safe.pop()
        for c in safe:
            if isinstance(c, ir.Binary) and c.op == "==":
                for mine, other in ((c.left, c.right), (c.right, c.left)):
                    if isinstance(mine, ir.Local) and mine.name == name and \
                            not (_free_locals(other, set()) - set(earlier)) and \
                            (isinstance(t, OptT) or not isinstance(other.type, OptT)):
                        extra = []
                        if isinstance(t, PlayerT):
                            extra.append(f"if not 0 <= {var} < N: continue")
                        elif isinstance(t, IntT):
                            extra.append(f"if not {t.lo} <= {var} <= {t.hi}: continue")
                        elif isinstance(t, EnumT) and not (isinstance(other.type, EnumT) and t.includes(other.type)):
                            # a value of an enum that extends t may be none of t's
                            extra.append(f"if not 0 <= {var} < {self.size(t)}: continue")
                        return f"({self.ex(other)},)", c, extra
        for c in safe:
            if isinstance(c, ir.Member) and not c.negated and isinstance(c.elem, ir.Local) and c.elem.name == name:
                d = c.coll
                if isinstance(d, ir.ExprDomain) and not (_free_locals(d.expr, set()) - set(earlier)):
                    dt = d.expr.type
                    if isinstance(dt, (BagT, PileT, SetT, OrderT, ListT)) and dt.elem is not None and \
                            (dt.elem == t or isinstance(t, EnumT) and isinstance(dt.elem, EnumT) and t.includes(dt.elem)):
                        src = self.iter_src(d)
                        if isinstance(dt, (OrderT, ListT)):
                            src = f"dict.fromkeys({src})"
                        return src, c, []
                if isinstance(d, ir.RangeDomain) and isinstance(t, IntT) and \
                        not (_free_locals(d.lo, set()) | _free_locals(d.hi, set())) - set(earlier):
                    return (f"range(max({t.lo}, {self.ex(d.lo)}), min({t.hi}, {self.ex(d.hi)}) + 1)", c, [])
        return self.values_const(t), None, []


def _fault_make(span_id, name):
    raise runtime.Fault(span_id, f"a field of {name} is outside its range")


def safe_identifier(name: str) -> bool:
    return name.isidentifier() and not keyword.iskeyword(name)


def _wider(elem: Type, items) -> bool:
    """Whether a set of numbers (or players) is built from an item whose type may lie outside them."""
    return isinstance(elem, (IntT, PlayerT)) and any(getattr(i.elem, "type", None) != elem for i in items)

"""Compare two editions: ir.Spec x ir.Spec -> DiffReport (rule changes, witnessed differences).

Rules align by identifier. A rule whose formal content changed (citations, spans and the names
of inlined locals aside; the definitions and constants it uses included) is compared with Z3:
both editions' steps from one shared state (variables of the same name share their value,
translated by value name where the types differ), asking for a state and move that one edition
allows and the other forbids, or whose outcome differs, or that leaves one of them undecided.
Every witness is then built in both interpreters and played; only what the interpreters bear
out is reported. A change with no witness is played in both interpreters from states of the
first edition's simulated games, then of the second's (_Played: a pile's order, which Z3 leaves
free, shows there); with no witness from either it formalises the same behaviour: listed, not
reported.
"""

from __future__ import annotations

import itertools
import random
import re
import time
from dataclasses import dataclass, field

import z3

from . import ir
from .backends.interpreter import ParamError, Program
from .backends.runtime import Fault, Gap
from .backends.runtime import copy as copy_value
from .backends.z3 import (AND, EQ, IMPLIES, ITE, NOT, OR, BagV, Ctx, Encoder, MapV, OptV, PileV, SeqPileV, SeqV, SetV,
                          Unsupported, _consts, _lt, concrete)
from .trace import describe_changes, diff_value
from .verify import NO_RUNTIME_ERRORS, _walk
from .types import (BagT, BoolT, Domains, EnumT, IntT, MapT, OptT, OrderT, PileT, PlayerT, RecordT, SetT, TupleT, Type,
                    format_value, record_fields, record_kind)

KIND_TEXT = {"legality": "A move legal in one edition only", "outcome": "A move whose outcome differs",
             "undecided": "A move that one edition leaves undecided"}
CONSEQUENCES = ("changes scoring", "changes play", "leaves a situation undecided", "no effect on play")


# ---- structure -----------------------------------------------------------------------------

def _norm_local(name: str) -> str:
    return re.sub(r"(\w+?)\d+__", r"\1__", name)


def fingerprint(spec: ir.Spec, node, dom: Domains, _seen: tuple = ()) -> str:
    """A canonical text of a rule's formal content: no spans, citations or docs; values by name;
    definitions and constants it uses expanded, enums and records by their definitions (a change
    in them changes the rule)."""
    if isinstance(node, ir.Lit):
        try:
            return "lit(" + format_value(node.type, node.value, dom) + ")"
        except Exception:  # a value format_value does not know: its representation
            return f"lit({node.value!r})"
    if isinstance(node, ir.Local):
        return "local(" + _norm_local(node.name) + ")"
    if isinstance(node, ir.Apply):
        d = spec.defs[node.name]
        inner = fingerprint(spec, d.body, dom, _seen + (node.name,)) if node.name not in _seen else "…"
        args = ",".join(fingerprint(spec, a, dom, _seen) for a in node.args)
        return f"apply({node.name}[{inner}]({args}))"
    if isinstance(node, ir.ConstRef):
        c = next(c for c in spec.consts if c.name == node.name)
        inner = fingerprint(spec, c.value, dom, _seen + (node.name,)) if node.name not in _seen else "…"
        return f"const({node.name}={inner})"
    if isinstance(node, (list, tuple)):
        return "[" + ",".join(fingerprint(spec, x, dom, _seen) for x in node) + "]"
    if isinstance(node, str):
        return _norm_local(node)
    if isinstance(node, (EnumT, RecordT)):
        # by its definition, not its name: a value added, removed or reordered, or a field's range
        # changed, changes what a rule that names the type does (ord, a loop over it, a count)
        return repr(node)
    if isinstance(node, Type):
        return str(node)
    if hasattr(node, "__dataclass_fields__"):
        parts = []
        for name in node.__dataclass_fields__:
            if name in ("span", "cite", "doc", "id"):
                continue
            parts.append(f"{name}={fingerprint(spec, getattr(node, name), dom, _seen)}")
        return f"{type(node).__name__}(" + ";".join(parts) + ")"
    return repr(node)


@dataclass
class RuleChange:
    kind: str        # added | removed | changed | same
    category: str    # action | invariant | reachable | terminates | bound | end | stat | scenario | state | param | players | setup
    name: str
    cite_a: ir.Cite | None = None
    cite_b: ir.Cite | None = None

    def to_json(self) -> dict:
        return {"kind": self.kind, "category": self.category, "name": self.name,
                "cite_a": self.cite_a.to_json() if self.cite_a else None,
                "cite_b": self.cite_b.to_json() if self.cite_b else None}


def _rules(spec: ir.Spec) -> dict:
    out = {}
    for a in spec.actions:
        out[("action", a.name)] = a
    for p in spec.properties:
        if not p.lemma:  # helper invariants are proof aids, not rules of the edition
            out[(p.kind, p.name)] = p
    for e in spec.ends:
        out[("end", e.name)] = e
    for s in spec.stats:
        out[("stat", s.name)] = s
    for v in spec.state:
        out[("state", v.name)] = v
    for p in spec.params:  # (a game's option: its values, and its `where`)
        out[("param", p.name)] = p
    return out


def align(a: ir.Spec, b: ir.Spec) -> list[RuleChange]:
    dom = Domains(max(a.max_players, b.max_players))
    ra, rb = _rules(a), _rules(b)
    out = []
    if (a.min_players, a.max_players) != (b.min_players, b.max_players):  # compared where both allow
        out.append(RuleChange("changed", "players", f"{a.min_players}..{a.max_players} -> {b.min_players}..{b.max_players}",
                              a.players_cite, b.players_cite))
    if fingerprint(a, list(a.init), dom) != fingerprint(b, list(b.init), dom):  # (listed; its effect shows
        out.append(RuleChange("changed", "setup", "init", a.init_cite, b.init_cite))  # in the property rows)
    for key in list(ra) + [k for k in rb if k not in ra]:
        cat, name = key
        x, y = ra.get(key), rb.get(key)
        ca = getattr(x, "cite", None)
        cb = getattr(y, "cite", None)
        if x is None:
            out.append(RuleChange("added", cat, name, None, cb))
        elif y is None:
            out.append(RuleChange("removed", cat, name, ca, None))
        else:
            same = fingerprint(a, x, dom) == fingerprint(b, y, dom)
            out.append(RuleChange("same" if same else "changed", cat, name, ca, cb))
    return out


# ---- translating values between the editions' types -------------------------------------------

class Bridge:
    """Values of edition A's types as values of edition B's types, by the names of enum values and
    record fields; constraints say when an A value exists in B."""

    def __init__(self, dom: Domains):
        self.dom = dom
        self.exact_b = lambda t: None  # a pile type of B -> how many cards B follows card by card, or None
        # (type of B, name, constraints) -> a new value of it: what A's value does not give B
        self.fresh_b = None
        self._made = 0  # the values fresh_b made (their names)

    def compatible(self, ta: Type, tb: Type, deep: bool = False) -> bool:
        """Whether a value of ta can be shared as one of tb. deep: inside a record, a set, a bag, a
        pile or an order, whose values are shared by index (index_map): a player and a number
        only as a whole value or a map's value, which translate shares by value."""
        if {type(ta), type(tb)} == {PileT, BagT}:  # a zone's cards, whatever their order
            return self.compatible(ta.elem, tb.elem, True)
        if {type(ta), type(tb)} == {PlayerT, IntT}:  # a player as its number
            return not deep
        if type(ta) is not type(tb):
            return False
        if isinstance(ta, EnumT):
            return bool(set(ta.values) & set(tb.values))
        if isinstance(ta, IntT):
            return True
        if isinstance(ta, RecordT):
            return [n for n, _t in ta.fields] == [n for n, _t in tb.fields] and all(
                self.compatible(x, y, True) for (_n, x), (_m, y) in zip(ta.fields, tb.fields))
        if isinstance(ta, (OptT,)):
            return self.compatible(ta.inner, tb.inner, deep)
        if isinstance(ta, (SetT, BagT, PileT)):
            return self.compatible(ta.elem, tb.elem, True)
        if isinstance(ta, OrderT):
            return self.compatible(ta.elem, tb.elem, True) and self.dom.values(ta.elem) and \
                self._names(ta.elem) == self._names(tb.elem)
        if isinstance(ta, MapT):
            return type(ta.key) is type(tb.key) and self.compatible(ta.key, tb.key, True) and \
                self.compatible(ta.value, tb.value, deep)
        return ta == tb

    def _names(self, t: Type) -> list:
        return [format_value(t, v, self.dom) for v in self.dom.values(t)]

    def index_map(self, ta: Type, tb: Type) -> dict:
        """A value index of ta -> the index of the same value in tb (absent when tb lacks it)."""
        if isinstance(ta, EnumT):
            return {i: tb.values.index(v) for i, v in enumerate(ta.values) if v in tb.values}
        if isinstance(ta, RecordT):
            out = {}
            for k in range(self.dom.size(ta)):
                fields = record_fields(ta, k, self.dom)
                mapped = []
                for (_n, fa), (_m, fb), v in zip(ta.fields, tb.fields, fields):
                    m = self.scalar_map(fa, fb, v)
                    if m is None:
                        break
                    mapped.append(m)
                else:
                    out[k] = record_kind(tb, mapped, self.dom)
            return out
        if isinstance(ta, IntT):
            return {i: i + ta.lo - tb.lo for i in range(self.dom.size(ta))
                    if tb.lo <= i + ta.lo <= tb.hi}
        return {i: i for i in range(self.dom.size(ta))}

    def key_map(self, ta: MapT, tb: MapT) -> dict:
        """A key index of map type ta -> the index of the same key in tb (absent when tb lacks it)."""
        return self.index_map(ta.key, tb.key) if not isinstance(ta.key, (PlayerT, BoolT)) else \
            {i: i for i in range(self.dom.size(ta.key))}

    def scalar_map(self, ta, tb, v):
        if isinstance(ta, EnumT):
            name = ta.values[v]
            return tb.values.index(name) if name in tb.values else None
        if isinstance(ta, IntT):
            return v if tb.lo <= v <= tb.hi else None
        if isinstance(ta, RecordT):
            return self.index_map(ta, tb).get(v)
        return v

    def _fresh(self, tb: Type, cons: list):
        if self.fresh_b is None:
            raise Unsupported(f"no value of {tb} to give")
        self._made += 1
        return self.fresh_b(tb, f"bridge.{self._made}", cons)

    def translate(self, ta: Type, tb: Type, v, cons: list):
        """v (of ta) as a value of tb; cons gets the constraint that it exists in tb."""
        if isinstance(ta, PlayerT) and isinstance(tb, IntT):
            ta = IntT(0, self.dom.players - 1)
        if isinstance(ta, IntT) and isinstance(tb, PlayerT):
            cons.append(AND(v >= 0, v < self.dom.players) if concrete(v) is None else 0 <= concrete(v) < self.dom.players)
            return v
        if isinstance(ta, BagT) and isinstance(tb, PileT):  # the bag's cards, in an order left free
            pile = self._fresh(tb, cons)
            counts = self.translate(ta, BagT(tb.elem), v, cons).counts
            cons.extend(EQ(x, y) for x, y in zip(_pile_counts(pile).counts, counts))
            return pile
        if isinstance(ta, PileT) and isinstance(tb, BagT):
            v, ta = _pile_counts(v), BagT(ta.elem)
        if isinstance(ta, (EnumT, RecordT)) or (isinstance(ta, IntT) and ta != tb):
            if isinstance(ta, IntT):
                if tb.lo is not None:
                    cons.append(v >= tb.lo if concrete(v) is None else concrete(v) >= tb.lo)
                if tb.hi is not None:
                    cons.append(v <= tb.hi if concrete(v) is None else concrete(v) <= tb.hi)
                return v
            m = self.index_map(ta, tb)
            c = concrete(v)
            if c is not None:
                cons.append(c in m)
                return m.get(c, 0)
            cons.append(OR(*[EQ(v, i) for i in m]))
            if all(i == j for i, j in m.items()):
                return v
            out = 0
            for i, j in m.items():
                out = ITE(EQ(v, i), j, out)
            return out
        if isinstance(ta, OptT):
            inner = []
            val = self.translate(ta.inner, tb.inner, v.val, inner)
            cons.append(IMPLIES(v.some, AND(*inner)))
            return OptV(v.some, val)
        if isinstance(ta, SetT):
            m = self.index_map(ta.elem, tb.elem)
            bits = [False] * self.dom.size(tb.elem)
            for i, b in enumerate(v.bits):
                if i in m:
                    bits[m[i]] = b
                else:
                    cons.append(NOT(b))
            return SetV(bits)
        if isinstance(ta, OrderT):
            return SeqV([self.translate(ta.elem, tb.elem, x, cons) for x in v.items])
        if isinstance(ta, MapT):
            inv = {j: i for i, j in self.key_map(ta, tb).items()}
            items = []
            for j in range(self.dom.size(tb.key)):
                if j in inv:
                    items.append(self.translate(ta.value, tb.value, v.items[inv[j]], cons))
                else:  # a key A lacks: B's value there is free (as a variable only B has)
                    items.append(self._fresh(tb.value, cons))
            return MapV(items)
        if isinstance(ta, PileT) and isinstance(v, SeqPileV):
            cap = self.exact_b(tb)
            if cap is not None:  # both editions follow it card by card: A's cards in A's order
                items = []
                for i, x in enumerate(v.items):  # each card A holds one B knows
                    inner: list = []
                    items.append(self.translate(ta.elem, tb.elem, x, inner))
                    cons.append(IMPLIES(_lt(i, v.size), AND(*inner)))
                if len(items) > cap:
                    cons.append(v.size <= cap if concrete(v.size) is None else concrete(v.size) <= cap)
                return SeqPileV(items[:cap] + [0] * (cap - len(items)), v.size, self.dom.size(tb.elem))
            v = _pile_counts(v)
        if isinstance(ta, (BagT, PileT)):
            m = self.index_map(ta.elem, tb.elem)
            size = self.dom.size(tb.elem)
            counts = [0] * size
            for i, c in enumerate(v.counts):
                if i in m:
                    counts[m[i]] = c
                else:
                    cons.append(EQ(c, 0))
            if isinstance(ta, BagT):
                return BagV(counts)
            top = v.top
            tcons: list = []
            tval = self.translate(ta.elem, tb.elem, top.val, tcons)
            cons.append(IMPLIES(top.some, AND(*tcons)))
            return PileV(counts, OptV(top.some, tval))
        return v


def _same(ctx: Ctx, t: Type, x, y):
    """Equal values, piles compared by their counts: what the interpreters' outcomes compare (the
    prover's pile equality also leaves the order free, which is no difference to report)."""
    if isinstance(x, (PileV, SeqPileV)) and isinstance(y, (PileV, SeqPileV)):
        return AND(*[EQ(p, q) for p, q in zip(_pile_counts(x).counts, _pile_counts(y).counts)])
    if isinstance(t, MapT) and isinstance(x, MapV) and isinstance(y, MapV):
        return AND(*[_same(ctx, t.value, p, q) for p, q in zip(x.items, y.items)])
    return ctx.equal(t, x, t, y)


def _pile_counts(v):
    """A pile as counts and top (an exact pile read through its derived counts)."""
    if isinstance(v, SeqPileV):
        return PileV(v.counts, v.top)
    return v


# ---- semantic comparison ------------------------------------------------------------------------

@dataclass
class Side:
    legal: bool
    outcome: str                      # "moves" | "not legal" | "undecided: ..." | "run-time error: ..."
    changes: list[str] = field(default_factory=list)
    why: str = ""                     # the condition that makes it illegal


@dataclass
class Difference:
    rule: str
    kind: str                          # legality | outcome | undecided
    consequence: str
    players: int
    move: str
    setup: list[str]
    a: Side
    b: Side
    cite_a: ir.Cite | None
    cite_b: ir.Cite | None
    found_by: str = "z3"               # z3 (a witness Z3 gave) | play (a state of a simulated game, _Played)
    then: list[str] = field(default_factory=list)  # a later play that shows a pile's order (_Played.later)

    def to_json(self) -> dict:
        return {"rule": self.rule, "kind": self.kind, "consequence": self.consequence, "players": self.players,
                "move": self.move, "setup": self.setup,
                "a": {"legal": self.a.legal, "outcome": self.a.outcome, "changes": self.a.changes, "why": self.a.why},
                "b": {"legal": self.b.legal, "outcome": self.b.outcome, "changes": self.b.changes, "why": self.b.why},
                "cite_a": self.cite_a.to_json() if self.cite_a else None,
                "cite_b": self.cite_b.to_json() if self.cite_b else None, "found_by": self.found_by,
                "then": self.then}


# what compare_action's check returns where the interpreters bear out another kind of difference
# than the one asked for, or none: the question is asked again, without that model
AGAIN = ("again",)


class NotBorneOut(str):
    """_witness's answer where both interpreters do the same from Z3's witness (a draw or an order
    Z3 chose freely went otherwise there): why it is not reported."""


class Comparison:
    """Both editions for one player count: a shared pre-state, their steps, witnesses."""

    def __init__(self, a: ir.Spec, b: ir.Spec, players: int, timeout: float):
        self.a, self.b, self.n = a, b, players
        self.ea, self.eb = Encoder(a, players), Encoder(b, players)
        self.dom = self.ea.dom
        self.bridge = Bridge(self.dom)
        # the piles edition B follows card by card: how many cards (Bridge.translate keeps A's order there)
        self.bridge.exact_b = lambda t: self.eb.exact[t.elem] if self.eb.is_exact(t) else None
        self.bridge.fresh_b = self.eb.fresh
        self.timeout_ms = int(timeout * 1000)
        self._vacuous: str | None | bool = False  # not asked yet (vacuous)
        self.cons: list = []
        # parameters: shared where the name and a compatible type agree
        self.pa, _ca, pcons_a = self.ea.fresh_params("pa.")
        self.cons += pcons_a
        pb = {}
        for p in b.params:
            q = next((x for x in a.params if x.name == p.name), None)
            if q is not None and self.bridge.compatible(q.type, p.type):
                pb[p.name] = self.bridge.translate(q.type, p.type, self.pa[q.name], self.cons)
            else:
                pb[p.name] = self.eb.fresh(p.type, "pb." + p.name, self.cons)
        self.pb = pb
        self.ka = self._consts(self.ea, a, self.pa)
        self.kb = self._consts(self.eb, b, pb)
        for p in b.params:
            if p.where is not None:
                v, f, c = self.eb.evaluate(p.where, {}, pb, self.kb)
                self.cons += [v, NOT(f), *c]
        # the shared pre-state
        self.sa, cons_a = self.ea.fresh_state("sa.")
        self.cons += cons_a
        self.shared: dict[str, tuple[Type, Type]] = {}
        sb = {}
        for v in b.state:
            u = next((x for x in a.state if x.name == v.name), None)
            if u is not None and u.zone == v.zone and self.bridge.compatible(u.type, v.type):
                try:
                    sb[v.name] = self.bridge.translate(u.type, v.type, self.sa[u.name], self.cons)
                    self.shared[v.name] = (u.type, v.type)
                    continue
                except Unsupported:
                    pass
            sb[v.name] = self.eb.fresh(v.type, f"sb.{v.name}", self.cons)
        self.sb = sb
        self.cons += self.eb.state_ok(sb)

    def _consts(self, enc, spec, params):
        consts: dict = {}
        ctx = Ctx(enc, {}, params, consts)
        for c in spec.consts:
            consts[c.name] = ctx.ev(c.value)
        return consts

    def invariants(self) -> list:
        """The invariants of both editions in the shared state: the states both consider possible."""
        return self._own_invariants(self.a) + self._own_invariants(self.b)

    def vacuous(self) -> str | None:
        """Why no state can be asked about, where no state satisfies both editions' invariants (as
        the prover encodes them: a pile is followed only up to the setup's card count): every
        question would then be unsat, and a rule with no witness would pass for the same behaviour.
        None where such a state exists, or the question is not settled in time (the questions then
        say so themselves)."""
        if self._vacuous is not False:
            return self._vacuous
        self._vacuous = None
        if self._ask(self.cons, AND(*self.invariants()))[0] == z3.unsat:
            la, lb = sides(self.a, self.b, letters=True)
            label = {"A": la, "B": lb}
            own = [side for side, spec in (("A", self.a), ("B", self.b))
                   if self._ask(self.cons, AND(*self._own_invariants(spec)))[0] == z3.unsat]
            whose = (f"{label[own[0]]}'s invariants alone are unsatisfiable" if len(own) == 1 else
                     "each edition's invariants alone are unsatisfiable" if own else
                     "each edition's invariants are satisfiable alone, not together")
            if own == ["B"] and self._own_state_allows_b():
                whose = (f"{label['B']}'s invariants hold in states of its own, but in none that shares A's values "
                         "of the variables and zones of the same name")
            self._vacuous = (f"no state satisfies both editions' invariants with {self.n} players, as the prover "
                             f"encodes them ({whose}): there is no state to compare the editions in")
        return self._vacuous

    def _own_state_allows_b(self) -> bool:
        """Whether B's invariants hold in some state of B's own (no variable shared with A)."""
        state, cons = self.eb.fresh_state("sb_own.")
        return self._ask(self.cons + cons, AND(*self._own_invariants(self.b, state, "own")))[0] == z3.sat

    def _own_invariants(self, spec: ir.Spec, state: dict | None = None, tag: str = "inv") -> list:
        """One edition's invariants (spec: self.a or self.b) as Z3 facts, in the shared state or
        in `state`."""
        enc, shared, params, consts = ((self.ea, self.sa, self.pa, self.ka) if spec is self.a
                                       else (self.eb, self.sb, self.pb, self.kb))
        out = []
        for p in spec.properties:
            if p.kind == "invariant" and not p.expect_violated:
                v, f, c = enc.evaluate(p.expr, shared if state is None else state, params, consts,
                                       tag=f"{tag}.{spec.edition}.{p.name}")
                out += [v, NOT(f), *c]
        return out

    def conservation(self) -> list:
        """Every card of the setup is in exactly one zone (per card kind, both editions): a cheap
        plausibility condition for witness states when the invariants make a query too slow."""
        out = []
        for spec, enc, state in ((self.a, self.ea, self.sa), (self.b, self.eb, self.sb)):
            try:
                program = Program(spec, self.n)
                game = program.start("conservation")
            except (Fault, Gap):
                continue
            from .backends.z3 import zone_totals
            symbolic = zone_totals(enc, state)
            real: dict = {}
            for v, value in zip(spec.state, game.S):
                zt = v.type.value if isinstance(v.type, MapT) else v.type
                if not v.zone or not isinstance(zt, (BagT, PileT)):
                    continue
                vec = real.setdefault(zt.elem, [0] * self.dom.size(zt.elem))
                for z in (value if isinstance(v.type, MapT) else [value]):
                    cards = z if isinstance(zt, PileT) else [k for k, c in enumerate(z) for _ in range(c)]
                    for c in cards:
                        vec[self.dom.index(zt.elem, c) if isinstance(zt, PileT) else c] += 1
            for t, vec in symbolic.items():
                if t in real:
                    out.extend(EQ(x, y) for x, y in zip(vec, real[t]))
        return out

    def compare_action(self, name: str, check=None):
        """Witness queries for one action present in both editions: yields (kind, model, steps).

        check(kind, model, detail), if given, returns (side, invariant) when the model's state
        breaks that invariant in the interpreters, and AGAIN when they show another kind of
        difference there, or none; the query is then asked again with the invariant, or without the model
        (at most REFINE times)."""
        aa, ab = self.a.action(name), self.b.action(name)
        args_a_cons: list = []
        args_a = tuple(self.ea.fresh(t, f"arg.{name}.{n}", args_a_cons) for n, t in aa.params)
        args_b = []
        for (n, tb) in ab.params:
            match = next(((i, ta) for i, (m, ta) in enumerate(aa.params) if m == n), None)
            if match is None or not self.bridge.compatible(match[1], tb):
                raise Unsupported(f"{name}: the editions' moves take different arguments")
            args_b.append(self.bridge.translate(match[1], tb, args_a[match[0]], args_a_cons))
        if len(ab.params) != len(aa.params):
            raise Unsupported(f"{name}: the editions' moves take different arguments")
        sta = self.ea.step(self.sa, self.pa, self.ka, aa, tag=f"da.{name}", args=args_a)
        stb = self.eb.step(self.sb, self.pb, self.kb, ab, tag=f"db.{name}", args=tuple(args_b))
        base = self.cons + args_a_cons + sta.constraints + stb.constraints
        self._pair_events(sta.events, stb.events, base)
        plausible = self.invariants()
        gap_a = OR(*[c for c, _g in sta.gaps])
        gap_b = OR(*[c for c, _g in stb.gaps])
        queries = [
            ("legality", AND(sta.guard, NOT(stb.guard))),
            ("legality", AND(stb.guard, NOT(sta.guard))),
        ]
        # undecided in one edition, played through in the other (no gap there, and no run-time error),
        # or running into a run-time error there (alive: neither a run-time error nor a gap)
        fault_a, fault_b = AND(NOT(sta.alive), NOT(gap_a)), AND(NOT(stb.alive), NOT(gap_b))
        undecided = [
            ("undecided", AND(sta.guard, stb.guard, gap_a, stb.alive)),
            ("undecided", AND(sta.guard, stb.guard, gap_b, sta.alive)),
        ]
        # asked last: a run-time error in one edition where the other plays the move through (an
        # outcome), or is undecided (one report per kind and rule: these come after the others')
        faults = [("outcome", AND(sta.guard, stb.guard, fault_a, stb.alive)),
                  ("outcome", AND(sta.guard, stb.guard, fault_b, sta.alive)),
                  ("undecided", AND(sta.guard, stb.guard, gap_a, fault_b)),
                  ("undecided", AND(sta.guard, stb.guard, gap_b, fault_a))]
        differs = []
        for v, (ta, tb) in self.shared.items():
            cons: list = []
            try:
                same = self._same_shared(ta, tb, sta.state[v], stb.state[v], cons)
            except Unsupported:
                continue
            differs.append((v, AND(*cons, NOT(same))))
        if differs:
            queries.append(("outcome", AND(sta.guard, stb.guard, sta.alive, stb.alive, OR(*[d for _v, d in differs]))))
        queries += undecided + faults
        conserved = self.conservation()
        detail = (sta, stb, args_a, tuple(args_b))
        for kind, goal in queries:
            # first in a state both editions' invariants allow; if that takes too long, in a state
            # where every card of the setup is somewhere, once, refined by each invariant that the
            # interpreters find broken in a witness (at most REFINE times)
            r = self._ask(base + plausible, goal)
            if r[0] == z3.sat:
                self._vacuous = None  # a state both editions' invariants allow
                # an invariant that chooses freely (the rank in a pile whose order is not followed)
                # may hold in Z3's model and not in the interpreters' state made from it: ask again
                # without that model's values of what the broken invariant reads (at most REFINE times)
                blocked: list = []
                for _round in range(self.REFINE + 1):
                    broken = check(kind, r[1], (*detail, "invariants")) if check else None
                    if not broken or _round == self.REFINE:
                        break
                    # AGAIN: the interpreters saw another kind of difference there (a draw Z3 chose
                    # freely went otherwise): asked again without this model's values of the goal's terms
                    blocked.append(self.other_than(r[1], [goal] if broken == AGAIN else self.invariant(*broken)))
                    r2 = self._ask(base + plausible + blocked, goal)
                    if r2[0] != z3.sat:
                        break
                    r = r2
                yield kind, r[1], (*detail, "invariants")
                continue
            if r[0] == z3.unsat:
                continue
            facts, added = list(conserved), set()
            again = None  # the last model the interpreters showed as another kind, or as none
            for _round in range(self.REFINE + 1):
                r = self._ask(base + facts, goal)
                if r[0] != z3.sat:
                    if again is not None and r[0] == z3.unsat:  # no other: that one is the answer
                        yield kind, again, (*detail, "conservation")
                    break
                broken = check(kind, r[1], (*detail, "conservation")) if check else None
                if not broken or broken in added or _round == self.REFINE:
                    yield kind, r[1], (*detail, "conservation")
                    break
                if broken == AGAIN:
                    again = r[1]
                    facts.append(self.other_than(r[1], [goal]))
                    continue
                added.add(broken)
                facts += self.invariant(*broken)
            if r[0] == z3.unknown:
                yield "unknown", None, r[2] or "timeout"
            # unsat: no witness in any state the added invariants allow

    REFINE = 6

    def _same_shared(self, ta: Type, tb: Type, va, vb, cons: list):
        """A's value va and B's vb of a shared variable are the same, as the Bridge shares it: a map
        at the keys both editions have (a key only B has is B's own: what B does there is no
        difference of the shared state, as _same_after judges it in the interpreters)."""
        if isinstance(ta, MapT) and isinstance(tb, MapT) and isinstance(va, MapV) and isinstance(vb, MapV):
            return AND(*[self._same_shared(ta.value, tb.value, va.items[i], vb.items[j], cons)
                         for i, j in self.bridge.key_map(ta, tb).items()])
        moved = self.bridge.translate(ta, tb, va, cons)
        return _same(Ctx(self.eb, {}, self.pb, self.kb), tb, moved, vb)

    @staticmethod
    def other_than(model, facts: list):
        """A fact excluding the model's values of the variables in the facts."""
        xs: dict = {}
        for f in facts:
            if isinstance(f, z3.ExprRef):
                for x in _consts(f):
                    xs.setdefault(x.get_id(), x)
        return z3.Or(*[x != model.eval(x, model_completion=True) for x in xs.values()]) if xs else z3.BoolVal(True)

    def _ask(self, facts: list, goal):
        s = z3.Solver()
        s.set("timeout", self.timeout_ms)
        s.add(*[x for x in facts if x is not True], goal)
        r = s.check()
        return r, (s.model() if r == z3.sat else None), (s.reason_unknown() if r == z3.unknown else "")

    def invariant(self, side: int, name: str) -> list:
        """One invariant of edition A (side 0) or B (side 1) in the shared state, as Z3 facts."""
        spec, enc, state, params, consts = ((self.a, self.ea, self.sa, self.pa, self.ka),
                                            (self.b, self.eb, self.sb, self.pb, self.kb))[side]
        p = next(q for q in spec.properties if q.name == name and q.kind == "invariant")
        v, f, c = enc.evaluate(p.expr, state, params, consts, tag=f"inv.{side}.{name}")
        return [v, NOT(f), *c]

    @staticmethod
    def _pair_events(ea, eb, cons):
        """The same chance outcome for the same event in both editions (same kind, same zone, in order)."""
        for x, y in zip(ea, eb):
            if x.kind != y.kind or x.zone != y.zone:
                break
            if x.kind in ("top", "bottom"):
                cons.append(IMPLIES(AND(x.when, y.when), x.var == y.var))

    # ---- replaying a witness --------------------------------------------------------------------
    def concrete(self, model, enc: Encoder, spec: ir.Spec, state: dict, params: dict):
        """(S, P): the model's state and parameters in the interpreter's representation."""
        P = [enc.value(model, p.type, params[p.name]) for p in spec.params]
        S = []
        for v in spec.state:
            S.append(_to_interp(enc, v.type, enc.value(model, v.type, state[v.name])))
        return S, P


def _to_interp(enc: Encoder, t: Type, value):
    """A value read from a model as the interpreter holds it (a pile's unknown order: index order,
    with its top card on top)."""
    if isinstance(t, PileT):
        if isinstance(value, tuple) and value and value[0] == "seq":
            return [enc.dom.values(t.elem)[k] for k in value[1]]
        _tag, counts, top = value
        cards = []
        for k, c in enumerate(counts):
            cards.extend([enc.dom.values(t.elem)[k]] * max(c, 0))
        if top is not None:
            tv = enc.dom.values(t.elem)[top]
            if tv in cards:
                cards.remove(tv)
                cards.append(tv)
        return cards
    if isinstance(t, MapT):
        return [_to_interp(enc, t.value, x) for x in value]
    return value


def _broken_invariants(program: Program, S: list, P: list) -> list[str]:
    """The invariants (not marked expect violated) that are false in a given state, per the interpreter."""
    game = program.at(S, P, "diff")
    out = []
    for p, fn in program.invariants:
        if p.expect_violated:
            continue
        try:
            ok = fn(game.S, game.P)
        except (Fault, Gap):
            ok = False
        if not ok:
            out.append(p.name)
    return out


def _play(program: Program, S: list, P: list, move, seed: str, drew: list | None = None) -> tuple[Side, list | None]:
    """One move from a given state in an interpreter: what happens (and the state after). With
    `drew`, a list: the state of the game's chance goes into it if the move draws (shuffles)."""
    game = program.at(S, P, seed)
    spec = program.spec
    failing = game.failing_conjunct(move)
    if failing >= 0:
        from .source import snippet
        cond = spec.actions[move[0]].guard[failing]
        return Side(False, "not legal", why=snippet(cond.span) or f"condition {failing + 1}"), None
    before = game.snapshot()
    if drew is not None:
        game.chance.keep(drew)
    outcome = _outcome(game, move)
    if outcome != "moves":
        return Side(True, outcome), None
    after = game.snapshot()
    return Side(True, "moves", describe_changes(spec, program.domains, before, after)), after


@dataclass
class DiffReport:
    a: ir.Spec
    b: ir.Spec
    changes: list[RuleChange]
    differences: list[Difference]
    equivalent: list[str]                 # changed rules with no witnessed difference
    unknown: list[tuple[str, int, str]]   # (rule, players, why) not decided
    properties: list[dict]
    seconds: float = 0.0
    played: dict[str, int] = field(default_factory=dict)  # an equivalent rule's moves played from games' states

    @property
    def found(self) -> bool:
        return bool(self.differences) or any(c.kind in ("added", "removed") or c.category in ("players", "setup")
                                             for c in self.changes if c.category not in ("state", "param")) \
            or any(p["differs"] for p in self.properties)

    def summary(self) -> dict:
        out = {c: 0 for c in CONSEQUENCES}
        for d in self.differences:
            out[d.consequence] += 1
        out["no effect on play"] += len(self.equivalent)
        return out

    def to_json(self) -> dict:
        return {"a": {"spec": self.a.path, "edition": self.a.edition}, "b": {"spec": self.b.path, "edition": self.b.edition},
                "differences_found": self.found, "summary": self.summary(), "seconds": round(self.seconds, 2),
                "changes": [c.to_json() for c in self.changes if c.kind != "same"],
                "differences": [d.to_json() for d in self.differences],
                "equivalent": self.equivalent, "equivalent_played": self.played,
                "unknown": [{"rule": r, "players": n, "why": w} for r, n, w in self.unknown],
                "properties": self.properties}


def compare(a: ir.Spec, b: ir.Spec, players: list[int] | None = None, timeout: float = 30.0,
            games: int = 100, progress=None) -> DiffReport:
    """Every difference between two editions, each with a witness played in both interpreters."""
    t0 = time.perf_counter()
    changes = align(a, b)
    lo, hi = max(a.min_players, b.min_players), min(a.max_players, b.max_players)
    counts = [n for n in (players or range(lo, hi + 1)) if lo <= n <= hi]
    changed_actions = [c.name for c in changes if c.category == "action" and c.kind == "changed"]
    differences: list[Difference] = []
    unknown: list = []
    witnessed: set[str] = set()
    moves_played: dict[str, int] = {}  # rule -> moves the interpreters played from simulated games' states (_Played)
    for n in counts:
        try:
            cmp = Comparison(a, b, n, timeout)
        except Unsupported as exc:  # the shared state or a constant Z3 cannot encode: nothing compared
            for name in changed_actions:
                if name not in witnessed:
                    unknown.append((name, n, exc.message))
                    if progress:
                        progress()
            continue
        pa, pb = Program(a, n), Program(b, n)
        for name in changed_actions:
            if name in witnessed:
                continue
            try:
                kinds_found = set()

                played: dict = {}  # id(model) -> what _witness made of it, so that no model is played twice

                def found(d: Difference):
                    if d.kind not in kinds_found:
                        differences.append(d)
                        witnessed.add(name)
                        kinds_found.add(d.kind)

                def check(kind, model, detail, name=name):
                    d = played[id(model)] = _witness(cmp, pa, pb, name, kind, model, detail, n)
                    if isinstance(d, Difference) and d.kind != kind:
                        # the interpreters show a difference of another kind there: kept, and the
                        # question asked again for one of its own kind (one report per kind and rule:
                        # an outcome a witness stepping into an undecided point stood for was lost)
                        found(d)
                        return AGAIN
                    if isinstance(d, NotBorneOut):
                        return AGAIN  # asked again without it: the rule was "not decided" on one model
                    return d if isinstance(d, tuple) else None
                for kind, model, detail in cmp.compare_action(name, check):
                    if kind == "unknown":
                        unknown.append((name, n, detail))
                        continue
                    if kind in kinds_found:
                        continue
                    d = played.pop(id(model)) if id(model) in played else \
                        _witness(cmp, pa, pb, name, kind, model, detail, n)
                    played.clear()
                    if isinstance(d, tuple):
                        side, inv = d
                        label = sides(a, b, letters=True)[side]
                        d = (f"the {kind} witnesses found break {label}'s invariant {inv} (states unreachable "
                             f"there), even after {Comparison.REFINE} refinements: not reported")
                    if isinstance(d, str):
                        unknown.append((name, n, d))
                        continue
                    found(d)
            except Unsupported as exc:
                unknown.append((name, n, exc.message))
            if progress:
                progress()
        # a rule with no witness and nothing undecided with n players: the same behaviour there,
        # unless no state satisfies both editions' invariants (asked only where no question had a
        # model: every question would be unsat)
        rest = [name for name in changed_actions if name not in witnessed]
        if rest and games:
            # the rules with no witness from Z3 with n players (the same, or not decided) played in
            # the interpreters from states of simulated games
            # (then from states of B's games carried into A: a state only B's rules reach)
            for check in (_Played(cmp, pa, pb), _Played(_Mirror(cmp), pb, pa)):
                for name, d in check.run([name for name in rest if name not in witnessed], games).items():
                    differences.append(d)
                    witnessed.add(name)
                for name, k in check.checks.items():
                    moves_played[name] = moves_played.get(name, 0) + k
        same = [name for name in rest if name not in witnessed
                and not any(u[0] == name and u[1] == n for u in unknown)]
        if same and cmp.vacuous():
            unknown += [(name, n, cmp.vacuous()) for name in same]
    equivalent = [name for name in changed_actions if name not in witnessed and
                  not any(u[0] == name for u in unknown)]
    unknown = [u for u in unknown if u[0] not in witnessed]
    properties = _compare_properties(a, b, counts, games)
    return DiffReport(a, b, changes, differences, equivalent, unknown, properties, time.perf_counter() - t0,
                      {name: moves_played.get(name, 0) for name in equivalent})


def _witness(cmp: Comparison, pa: Program, pb: Program, name: str, kind: str, model, detail, n: int):
    """Play the model's state and move in both interpreters; a Difference only if they differ."""
    sta, stb, args_a, args_b, where = detail
    a, b = cmp.a, cmp.b
    Sa, Pa = cmp.concrete(model, cmp.ea, a, cmp.sa, cmp.pa)
    Sb, Pb = cmp.concrete(model, cmp.eb, b, cmp.sb, cmp.pb)
    act_a, act_b = a.action(name), b.action(name)
    move_a = (pa.action_index[name], tuple(cmp.ea.value(model, t, v) for (_n, t), v in zip(act_a.params, args_a)))
    move_b = (pb.action_index[name], tuple(cmp.eb.value(model, t, v) for (_n, t), v in zip(act_b.params, args_b)))
    try:
        for side, (program, S, P) in enumerate(((pa, Sa, Pa), (pb, Sb, Pb))):
            broken = _broken_invariants(program, S, P)
            if broken:
                return side, broken[0]
        side_a, post_a = _play(pa, Sa, Pa, move_a, "diff")
        side_b, post_b = _play(pb, Sb, Pb, move_b, "diff")
    except Exception as exc:  # the model's state does not fit one interpreter (an internal inconsistency)
        return f"a {kind} witness could not be played in the interpreters ({type(exc).__name__}): not reported"
    confirmed = False
    if side_a.legal != side_b.legal:
        kind, confirmed = "legality", True
    elif side_a.outcome != side_b.outcome:
        kind, confirmed = ("undecided" if "undecided" in side_a.outcome + side_b.outcome else "outcome"), True
    elif post_a is not None and post_b is not None:
        for v in cmp.shared:
            ia = a.state.index(a.var(v))
            ib = b.state.index(b.var(v))
            ta, tb = a.var(v).type, b.var(v).type
            if not _same_after(pa, pb, ta, tb, post_a[ia], post_b[ib]):
                kind, confirmed = "outcome", True
                break
    if not confirmed:
        return NotBorneOut(f"Z3's {kind} witness is not borne out by the interpreters (both editions do the same there)")
    consequence = _consequence(a, b, kind, side_a, side_b)
    setup = _setup_lines(cmp, (pa, Sa, act_a), (pb, Sb, act_b))
    if where == "conservation":
        setup.insert(0, "(the query with both editions' invariants timed out: a state found with every card "
                        "somewhere once, then checked against both editions' invariants in the interpreters)")
    return Difference(name, kind, consequence, n, pa.move_label(move_a), setup, side_a, side_b,
                      act_a.cite, act_b.cite)


def _same_after(pa, pb, ta: Type, tb: Type, x, y) -> bool:
    """Whether a shared variable holds the same value in both interpreters' states, as the Bridge
    shares it: a map at the keys both editions have (B's others are B's own), a player and a
    number by value, a pile and a bag by their cards, the rest by name (enum values, cards)."""
    if isinstance(ta, MapT) and isinstance(tb, MapT):
        keys_b = {format_value(tb.key, k, pb.domains): j for j, k in enumerate(pb.domains.values(tb.key))}
        for i, k in enumerate(pa.domains.values(ta.key)):
            j = keys_b.get(format_value(ta.key, k, pa.domains))
            if j is not None and not _same_after(pa, pb, ta.value, tb.value, x[i], y[j]):
                return False
        return True
    if isinstance(ta, OptT) and isinstance(tb, OptT):
        return (x is None) == (y is None) and (x is None or _same_after(pa, pb, ta.inner, tb.inner, x, y))
    if {type(ta), type(tb)} == {PlayerT, IntT}:
        return x == y
    # A's value in B's type (by name), both shown in B's order of values: a set, bag or pile of a
    # reordered enum lists its values otherwise in each edition
    from .trace import ItfCodec
    ok, xb = _carry(ItfCodec(pa.domains), ItfCodec(pb.domains), ta, tb, x, y)
    if ok:
        return _show(pb, tb, xb) == _show(pb, tb, y)
    return _show(pa, ta, x) == _show(pb, tb, y)


def _show(program, t, value, ordered: bool = False) -> str:
    """A value as the report shows it: a pile by its cards (in their order where `ordered`)."""
    if ordered:
        return format_value(t, value, program.domains)
    if isinstance(t, PileT):
        return format_value(BagT(t.elem), _counts(program, t.elem, value), program.domains)
    if isinstance(t, MapT) and isinstance(t.value, PileT):
        return "|".join(format_value(BagT(t.value.elem), _counts(program, t.value.elem, x), program.domains) for x in value)
    return format_value(t, value, program.domains)


def _counts(program, elem, pile):
    out = [0] * program.domains.size(elem)
    for c in pile:
        out[program.domains.index(elem, c)] += 1
    return out


def _carry(codec_from, codec_to, t_from: Type, t_to: Type, value, base=None) -> tuple:
    """(True, the value in the other interpreter) or (False, None) where it does not carry over,
    by name, as the Bridge shares values: a map at the keys both have (the others keep their
    value in `base`, the other interpreter's value, where given), a pile and a bag by their cards,
    the rest through the trace format."""
    from .trace import ItfError
    if t_from == t_to:  # one type, one representation in both interpreters
        return True, copy_value(value)
    dom_from, dom_to = codec_from.dom, codec_to.dom
    if isinstance(t_from, MapT) and isinstance(t_to, MapT) and base is not None:
        keys = {format_value(t_from.key, k, dom_from): i for i, k in enumerate(dom_from.values(t_from.key))}
        out = []
        for j, k in enumerate(dom_to.values(t_to.key)):
            i = keys.get(format_value(t_to.key, k, dom_to))
            ok, v = (True, copy_value(base[j])) if i is None else \
                _carry(codec_from, codec_to, t_from.value, t_to.value, value[i], base[j])
            if not ok:
                return False, None
            out.append(v)
        return True, out
    if {type(t_from), type(t_to)} == {PileT, BagT}:  # the cards (a pile from a bag: in the card type's order)
        cards = value if isinstance(t_from, PileT) else \
            [c for c, n in zip(dom_from.values(t_from.elem), value) for _ in range(n)]
        moved = []
        for c in cards:
            ok, c2 = _carry(codec_from, codec_to, t_from.elem, t_to.elem, c)
            if not ok:
                return False, None
            moved.append(c2)
        if isinstance(t_to, PileT):
            return True, moved
        counts = [0] * dom_to.size(t_to.elem)
        for c in moved:
            counts[dom_to.index(t_to.elem, c)] += 1
        return True, counts
    try:
        return True, codec_to.decode(t_to, codec_from.encode(t_from, value))
    except (ItfError, KeyError, ValueError, TypeError, IndexError):
        return False, None


class _Played:
    """The interpreters' check of the rules Z3 gave no witness for (the same, or not decided),
    for one player count: edition A's random games (B's, with a _Mirror of the comparison, whose
    A is B), and from states sampled in them (the states
    where the rule's action is legal in A, two a game, and one state a game besides, for moves
    only B allows) up to PER_STATE of that action's legal moves in either edition, played in both
    interpreters. A's state is carried over to B through the trace format (variables, parameters
    and the move's arguments by name, enum values by name); B's parameters A does not give are
    drawn beside the carried ones and B's `where` tested, B's variables A does not give take B's
    own setup's values; a state is left where a value Z3 shares does not carry over, where B's
    `where` fails, or where the state breaks either edition's invariants or faults in a guard or
    a constant (as Z3's shared states satisfy both). A difference is one of legality, of what the
    move does (moves, undecided, a run-time error), or of a shared variable's value after it
    (compared by name), a pile's order included where a later play shows it (later()), which
    Z3's comparison leaves free. A move that draws from chance in either edition is not compared
    unless it is legal in one only (a shuffle's cards are the seed's, not the rule's)."""

    PER_GAME = 2        # states a game where the action is legal in A
    PER_STATE = 4       # moves of the action played from a state at most (a random few of its legal moves)
    MAX_MOVES = 2_000   # a random game's moves at most

    def __init__(self, cmp: "Comparison | _Mirror", pa: Program, pb: Program, seed: str = "diff-play"):
        from .trace import ItfCodec
        self.cmp, self.pa, self.pb, self.seed = cmp, pa, pb, seed
        self.mirrored = isinstance(cmp, _Mirror)  # B's games played, their states carried into A
        self.ca, self.cb = ItfCodec(pa.domains), ItfCodec(pb.domains)
        a, b = cmp.a, cmp.b
        self.vars_a = {v.name: (i, v.type) for i, v in enumerate(a.state)}
        self.params_a = {p.name: (i, p.type) for i, p in enumerate(a.params)}
        # the parameters Z3 shares (Comparison.__init__: the same name and a compatible type)
        self.bridge_params = {p.name: cmp.bridge.compatible(self.params_a[p.name][1], p.type)
                              for p in b.params if p.name in self.params_a}
        self.checks: dict[str, int] = {}
        self.rng = random.Random(f"{seed}/pick")  # the moves tried, B's parameters of its own
        try:
            base = pb.start(seed)  # B's own setup: the values A cannot give
            self.base_S, self.base_P = base.S, base.params
        except (Fault, Gap, ParamError):  # B's setup stops for its seed: nothing to carry A's states into
            self.base_S = self.base_P = None

    def _carry_all(self, decls_b: list, known_a: dict, values_a: list, out: list, shared) -> "set | None":
        """Carry A's values (known_a: name -> (index, type)) into out, B's values of decls_b, by
        name: the names carried, or None where one that shared(name) says Z3 shares does not."""
        names = set()
        for j, d in enumerate(decls_b):
            if d.name in known_a:
                i, t = known_a[d.name]
                ok, value = _carry(self.ca, self.cb, t, d.type, values_a[i], out[j])
                if ok:
                    out[j] = value
                    names.add(d.name)
                elif shared(d.name):
                    return None
        return names

    def carried(self, S: list, P: list):
        """(B's state, B's parameters, the names of the variables carried over) for A's state, or
        None where a value Z3 shares does not carry over (an enum value B lacks: a state Z3's
        comparison leaves out too). What Z3 leaves free in B takes B's setup's value."""
        b = self.cmp.b
        Sb, Pb = [copy_value(v) for v in self.base_S], list(self.base_P)
        same = self._carry_all(b.state, self.vars_a, S, Sb, lambda name: name in self.cmp.shared)
        given = self._carry_all(b.params, self.params_a, P, Pb, self.bridge_params.get)
        if same is None or given is None:
            return None
        # B's other parameters drawn beside those, and B's `where` conditions tested (as Z3's
        # comparison asserts them): a combination B forbids is no state of B
        try:
            Pb = self.pb.draw_params(self.rng, {p.name: Pb[j] for j, p in enumerate(b.params) if p.name in given})
        except (ParamError, Fault, Gap):
            return None
        return Sb, Pb[:len(b.params)], same

    @staticmethod
    def _move(move, act_from, act_to, codec_from, codec_to, prog_to):
        """The move in the other interpreter, its arguments carried over by name (None if one does not)."""
        args = []
        for (_n1, t1), (_n2, t2), v in zip(act_from.params, act_to.params, move[1]):
            ok, value = _carry(codec_from, codec_to, t1, t2, v)
            if not ok:
                return None
            args.append(value)
        return prog_to.action_index[act_to.name], tuple(args)

    def run(self, names: list[str], games: int) -> dict[str, "Difference"]:
        """The first difference found for each rule (by name) in `games` games of A."""
        a, b, pa, pb = self.cmp.a, self.cmp.b, self.pa, self.pb
        rules = []
        for name in names:
            act_a, act_b = a.action(name), b.action(name)
            if [n for n, _t in act_a.params] == [n for n, _t in act_b.params]:
                rules.append(name)
                self.checks[name] = 0
        found: dict[str, Difference] = {}
        if self.base_S is None:
            return found
        rng = random.Random(f"{self.seed}/moves")
        for g in range(games):
            if not [r for r in rules if r not in found]:
                break
            try:
                game = pa.start(f"{self.seed}/{g}")
            except (Fault, Gap, ParamError):  # A's setup stops for this seed
                continue
            picks: dict[str, list] = {r: [] for r in rules}  # (state, params) sampled this game
            seen: dict[str, int] = {r: 0 for r in rules}
            anywhere: dict[str, tuple] = {}
            for step in range(self.MAX_MOVES):
                try:
                    if game.ended():
                        break
                    moves = game.legal_moves()
                except (Fault, Gap):  # a guard or an end condition's run-time error: the game stops
                    break
                if not moves:
                    break
                legal = {m[0] for m in moves}
                for r in rules:
                    if r in found:
                        continue
                    if pa.action_index[r] in legal:
                        seen[r] += 1
                        k = len(picks[r])
                        if k < self.PER_GAME:
                            picks[r].append(self._snap(game))
                        else:
                            j = rng.randrange(seen[r])
                            if j < self.PER_GAME:
                                picks[r][j] = self._snap(game)
                    elif rng.randrange(step + 1) == 0:
                        anywhere[r] = self._snap(game)
                try:
                    game.step(rng.choice(moves), check=False)
                except (Fault, Gap):
                    break
            for r in rules:
                if r in found:
                    continue
                for S, P in picks[r] + ([anywhere[r]] if r in anywhere else []):
                    d = self.check(r, S, P)
                    if d is not None:
                        found[r] = d
                        break
        return found

    @staticmethod
    def _snap(game):
        return game.snapshot(), list(game.params)

    def check(self, name: str, S: list, P: list) -> "Difference | None":
        """The first move of rule `name`, legal in A's state S or in B's carried over, that the
        interpreters play differently; None where every such move goes the same way."""
        a, b, pa, pb = self.cmp.a, self.cmp.b, self.pa, self.pb
        act_a, act_b = a.action(name), b.action(name)
        carried = self.carried(S, P)
        if carried is None:
            return None
        Sb, Pb, same = carried
        ia, ib = pa.action_index[name], pb.action_index[name]
        try:
            if _broken_invariants(pa, S, P):
                return None
            if _broken_invariants(pb, Sb, Pb):
                # B's zones of its own as B's setup fills them hold cards A's state holds too (a
                # conservation invariant then fails): tried again with them empty, as Z3 may take them
                Sb = [_empty(pb, v.type) if v.zone and v.name not in same else x for v, x in zip(b.state, Sb)]
                if _broken_invariants(pb, Sb, Pb):
                    return None
            moves = [m for m in pa.at(S, P, self.seed).legal_moves() if m[0] == ia]
            moves_b = [m for m in pb.at(Sb, Pb, self.seed).legal_moves() if m[0] == ib]
        except (Fault, Gap):  # a constant's or a guard's run-time error there: no state to compare from
            return None
        pairs = [(m, self._move(m, act_a, act_b, self.ca, self.cb, pb)) for m in moves]
        pairs += [(m_a, m) for m in moves_b
                  if (m_a := self._move(m, act_b, act_a, self.cb, self.ca, pa)) not in moves]  # B's only
        if len(pairs) > self.PER_STATE:
            pairs = self.rng.sample(pairs, self.PER_STATE)
        for move_a, move_b in pairs:
            if move_a is None or move_b is None:
                continue
            drew_a, drew_b = [], []
            try:
                side_a, post_a = _play(pa, S, P, move_a, self.seed, drew_a)
                side_b, post_b = _play(pb, Sb, Pb, move_b, self.seed, drew_b)
            except (Fault, Gap):  # a guard's run-time error (_play catches the step's)
                continue
            kind = None
            if side_a.legal != side_b.legal:  # (whatever the legal move draws)
                kind = "legality"
            elif drew_a or drew_b:
                continue  # not compared, not counted
            self.checks[name] += 1
            if kind is None and side_a.outcome.split(":")[0] != side_b.outcome.split(":")[0]:
                kind = "undecided" if "undecided" in side_a.outcome + side_b.outcome else "outcome"
            then: list[str] = []
            if kind is None and post_a is not None and post_b is not None:
                shared = [(v, *self.vars_a[v.name], b.state.index(v)) for v in b.state
                          if v.name in same and v.name in self.cmp.shared]
                # (one type holds one value alike in both interpreters: equal values are the same)
                shared = [(v, i, t, j) for v, i, t, j in shared if t != v.type or post_a[i] != post_b[j]]
                if any(not _same_after(pa, pb, t, v.type, post_a[i], post_b[j]) for v, i, t, j in shared):
                    kind = "outcome"  # by the cards and values alone (as Z3 compares them)
                else:
                    # A's value in B's type, by name: other than B's only in a pile's order now
                    order = []
                    for v, i, t, j in shared:
                        ok, in_b = _carry(self.ca, self.cb, t, v.type, post_a[i], post_b[j])
                        if ok and in_b != post_b[j]:
                            order.append((v, i, t, j))
                    if order:  # a pile's order alone: a difference where a later play shows it
                        then = self.later(post_a, post_b, [(i, t, v.type, j) for v, i, t, j in shared], P)
                        if then:
                            kind = "outcome"
                            v, i, t, j = order[0]
                            # (a pile from its bottom to its top: cut at the bottom, the top kept)
                            side_a.changes.insert(0, f"{v.name} after it = {_cut(_show(pa, t, post_a[i], True), top=True)}")
                            side_b.changes.insert(0, f"{v.name} after it = {_cut(_show(pb, v.type, post_b[j], True), top=True)}")
            if kind is None:
                continue
            sides = ((pa, S, act_a), (pb, Sb, act_b))
            # (a mirrored comparison's difference told as A against B: a variable B does not share is B's)
            setup = _setup_lines(self.cmp.original, *sides[::-1], ordered=True) if self.mirrored \
                else _setup_lines(self.cmp, *sides, ordered=True)
            setup.insert(0, f"(a state of a simulated game of the {'second' if self.mirrored else 'first'} edition, "
                            "where Z3 gave no witness that the interpreters bear out"
                            + ("; Z3 compares a pile by its cards, not their order)" if then else ")"))
            if self.mirrored:
                side_a, side_b, act_a, act_b = side_b, side_a, act_b, act_a
            return Difference(name, kind, _consequence(a, b, kind, side_a, side_b), self.cmp.n, pa.move_label(move_a),
                              setup, side_a, side_b, act_a.cite, act_b.cite, found_by="play", then=then)
        return None

    LATER_PLAYS, LATER_MOVES = 4, 200

    def later(self, post_a: list, post_b: list, shared: list, P: list) -> list[str]:
        """Where the two states after a move differ only in a pile's order: the first random play
        under A's rules, from both (B's carried back into A's), that shows it (a move legal from
        one only, another outcome, or other cards or values after a move), as lines; [] where none
        of LATER_PLAYS plays of LATER_MOVES moves does. A play stops at a draw from chance (a
        shuffle of piles in another order is no difference of the rules)."""
        pa, a = self.pa, self.cmp.a
        other = [copy_value(v) for v in post_a]
        for i, t, tb, j in shared:
            ok, value = _carry(self.cb, self.ca, tb, t, post_b[j], post_a[i])
            if not ok:  # a value that does not carry back: no later play
                return []
            other[i] = value
        ea, eb = sides(a, self.cmp.b)
        rng = random.Random(f"{self.seed}/later")
        for _play_no in range(self.LATER_PLAYS):
            g1, g2 = pa.at(post_a, P, self.seed), pa.at(other, P, self.seed)
            lines = [f"then, under {ea}'s rules from both states after it:"]
            for _k in range(self.LATER_MOVES):
                try:
                    e1, e2 = g1.ended(), g2.ended()
                    l1, l2 = g1.legal_moves(), g2.legal_moves()
                except (Fault, Gap):  # a guard's or an end's run-time error: this play shows nothing
                    break
                if (e1 is None) != (e2 is None):
                    return lines + [f"the game has ended after {ea}'s move only" if e1 else
                                    f"the game has ended after {eb}'s move only"]
                if e1 is not None:
                    break
                if sorted(map(repr, l1)) != sorted(map(repr, l2)):
                    only1 = [pa.move_label(m) for m in l1 if m not in l2][:3]
                    only2 = [pa.move_label(m) for m in l2 if m not in l1][:3]
                    return lines + [f"legal after {ea}'s move only: {', '.join(only1) or '-'}; "
                                    f"after {eb}'s move only: {', '.join(only2) or '-'}"]
                if not l1:
                    break
                m = rng.choice(l1)
                box1, box2 = [], []
                g1.chance.keep(box1)
                g2.chance.keep(box2)
                r1, r2 = _outcome(g1, m), _outcome(g2, m)
                if box1 or box2:
                    break
                lines.append(f"  {pa.move_label(m)}")
                if r1 != r2:
                    return lines + [f"  after {ea}'s move: {r1}; after {eb}'s: {r2}"]
                if r1 != "moves":
                    break
                for v, x, y in zip(a.state, g1.S, g2.S):
                    if x != y and _show(pa, v.type, x) != _show(pa, v.type, y):
                        what: list[str] = []
                        diff_value(v.name, *_unordered(pa, v.type, x, y), pa.domains, what)
                        return lines + [f"  from the state after {ea}'s move to the one after {eb}'s: {w}" for w in what]
        return []


class _Mirror:
    """A comparison seen from its second edition (a and b swapped), for _Played to play B's games
    and carry their states into A: what _Played reads of a comparison."""

    def __init__(self, cmp: Comparison):
        self.a, self.b, self.n, self.shared, self.bridge = cmp.b, cmp.a, cmp.n, cmp.shared, cmp.bridge
        self.original = cmp


def _empty(program, t: Type):
    """An empty zone of type t (a pile, a bag, or a map of them) in the interpreter's representation."""
    if isinstance(t, MapT):
        return [_empty(program, t.value) for _k in program.domains.values(t.key)]
    if isinstance(t, BagT):
        return [0] * program.domains.size(t.elem)
    return []


def _unordered(program, t: Type, x, y) -> tuple:
    """(type, x, y) with piles as bags (their cards), for diff_value."""
    if isinstance(t, PileT):
        return BagT(t.elem), _counts(program, t.elem, x), _counts(program, t.elem, y)
    if isinstance(t, MapT) and isinstance(t.value, PileT):
        return (MapT(t.key, BagT(t.value.elem)), [_counts(program, t.value.elem, z) for z in x],
                [_counts(program, t.value.elem, z) for z in y])
    return t, x, y


def _outcome(game, move) -> str:
    """A move played in a game (no property judged): moves, undecided or a run-time error."""
    try:
        game.step(move, check=False)
    except Gap as exc:
        return f"undecided: {game.program.spec.undecided[exc.id].reason}"
    except Fault as exc:
        return f"run-time error: {exc.message}"
    return "moves"


def _consequence(a: ir.Spec, b: ir.Spec, kind: str, side_a: Side, side_b: Side) -> str:
    if kind == "undecided" or any(side.outcome.startswith("undecided") for side in (side_a, side_b)):
        return "leaves a situation undecided"
    scoring = set()
    for spec in (a, b):
        for node in [s.expr for s in spec.stats] + [e.cond for e in spec.ends]:
            scoring |= {x.name for x in _walk(node) if isinstance(x, ir.Var)}
    changed = {line.split(":")[0].split("[")[0] for line in side_a.changes + side_b.changes}
    if kind == "outcome" and changed & scoring:
        return "changes scoring"
    return "changes play"


def _reads(spec: ir.Spec, action: ir.Action) -> set[str]:
    """The state variables an action's guard and body read (through definitions too)."""
    names = set()
    for node in list(action.guard) + list(_stmt_exprs(action.body)):
        for x in _walk(node):
            if isinstance(x, ir.Var):
                names.add(x.name)
            elif isinstance(x, ir.Apply):
                for y in _walk(spec.defs[x.name].body):
                    if isinstance(y, ir.Var):
                        names.add(y.name)
    return names


def _setup_lines(cmp: Comparison, side_a: tuple, side_b: tuple, ordered: bool = False) -> list[str]:
    """The state variables either edition's move reads, as they are in the witness ((program,
    state, action) per edition): a shared one once, one B does not share with A marked as B's
    (piles in their order where `ordered`)."""
    (pa, Sa, act_a), (pb, Sb, act_b) = side_a, side_b
    a, b = cmp.a, cmp.b
    read_a, read_b = _reads(a, act_a), _reads(b, act_b)

    def line(program, v, value, mark=""):
        return f"{v.name}{mark} = {_cut(_show(program, v.type, value, ordered))}"
    out = [line(pa, v, value) for v, value in zip(a.state, Sa)
           if v.name in read_a or (v.name in read_b and v.name in cmp.shared)]
    mark = f" ({sides(a, b, letters=True)[1]})"
    out += [line(pb, v, value, mark) for v, value in zip(b.state, Sb) if v.name in read_b and v.name not in cmp.shared]
    return out


def _cut(text: str, most: int = 160, top: bool = False) -> str:
    """text in at most `most` characters: its start, or with top its end (a pile's top)."""
    if len(text) <= most:
        return text
    return "…" + text[len(text) - most + 1:] if top else text[:most - 3] + "…"


def _stmt_exprs(stmts):
    for s in stmts:
        for name in getattr(s, "__dataclass_fields__", {}):
            v = getattr(s, name)
            for y in (v if isinstance(v, tuple) else (v,)):
                if isinstance(y, ir.Expr):
                    yield y
                elif isinstance(y, ir.Place):
                    yield from y.path
                elif isinstance(y, ir.Stmt):
                    yield from _stmt_exprs([y])
        if isinstance(s, ir.If):
            yield from _stmt_exprs(s.then)
            yield from _stmt_exprs(s.other)
        if isinstance(s, ir.For):
            yield from _stmt_exprs(s.body)


def _compare_properties(a: ir.Spec, b: ir.Spec, counts: list[int], games: int) -> list[dict]:
    """Properties of both editions compared on simulated games: violated in one, not the other."""
    from .simulate import simulate

    names_a = {p.name: p for p in a.properties if not p.lemma}
    names_b = {p.name: p for p in b.properties if not p.lemma}
    out = []
    if not games:
        return out
    for n in counts:
        ra = simulate(a, n, games, "diff")
        rb = simulate(b, n, games, "diff")

        def status(rep, p):
            if p is None:
                return "absent"
            if f"violation:{p.name}" in rep.findings:
                return "violated"
            if p.kind == "reachable":  # reached in some games of one edition only: sampling, not a difference
                return "sanity goal"
            return f"tested ({rep.games} games)"

        gaps_a = sum(v for k, v in ra.stopped.items() if k == "gap")
        gaps_b = sum(v for k, v in rb.stopped.items() if k == "gap")
        for name in sorted(set(names_a) | set(names_b)):
            sa, sb = status(ra, names_a.get(name)), status(rb, names_b.get(name))
            out.append({"property": name, "players": n, "a": sa, "b": sb, "differs": sa != sb})
        # the run-time errors of the rules (verify's no_runtime_errors): a game stopped by one in
        # one edition only is a difference (a constant or a setup that faults in B, say)
        faults_a, faults_b = ra.stopped.get("fault", 0), rb.stopped.get("fault", 0)
        sa, sb = (f"violated ({k} of {games} games)" if k else f"tested ({games} games)" for k in (faults_a, faults_b))
        out.append({"property": NO_RUNTIME_ERRORS.name, "players": n, "a": sa, "b": sb,
                    "differs": bool(faults_a) != bool(faults_b)})
        out.append({"property": "(games stopped at a gap)", "players": n, "a": f"{gaps_a} of {games}",
                    "b": f"{gaps_b} of {games}", "differs": False, "info": True})
    return out


# ---- reports ----------------------------------------------------------------------------------------

def sides(a: ir.Spec, b: ir.Spec, letters: bool = False) -> tuple[str, str]:
    """How the report names the two editions: by their `edition`, else by their files (letters:
    as A and B); where both names are the same (two specs of one edition, or one file given
    twice), by their files (letters: as A and B), and then as A and B besides."""
    la, lb = (a.edition or ("A" if letters else a.path)), (b.edition or ("B" if letters else b.path))
    if la == lb:
        la, lb = ("A", "B") if letters else (a.path, b.path)
    if la == lb:
        la, lb = f"{la} (A)", f"{lb} (B)"
    return la, lb


def render_text(r: DiffReport) -> str:
    a, b = sides(r.a, r.b)
    lines = [f"{r.a.game}: {a}{f' ({r.a.path})' * (r.a.path not in a)} against {b}{f' ({r.b.path})' * (r.b.path not in b)}, "
             f"{r.seconds:.1f} s"]
    changed = [c for c in r.changes if c.kind != "same"]
    counts = {k: sum(1 for c in changed if c.kind == k) for k in ("added", "removed", "changed")}
    lines.append(f"  rules: {counts['changed']} changed, {counts['added']} only in {b}, {counts['removed']} only in {a}")
    lines.append("  consequences: " + ", ".join(f"{v} {k}" for k, v in r.summary().items()))
    for c in changed:
        lines.append(f"    {c.kind:<8} {c.category:<10} {c.name}")
    for d in _ranked(r.differences):
        lines.append("")
        lines.append(f"  [{d.consequence}] {d.rule} ({d.players} players): {d.kind}")
        if d.cite_a:
            lines.append(f"    {a}: {d.cite_a.label()}")
        if d.cite_b:
            lines.append(f"    {b}: {d.cite_b.label()}")
        lines.append("    setup:")
        lines.extend(f"      {x}" for x in d.setup[:12])
        lines.append(f"    move: {d.move}")
        for label, side in ((a, d.a), (b, d.b)):
            what = side.outcome + (f" (`{side.why}` is false)" if side.why else "")
            lines.append(f"    under {label}: {what}")
            lines.extend(f"      {x}" for x in side.changes[:8])
        lines.extend(f"    {x}" for x in d.then)
    if r.equivalent:
        lines.append("")
        lines.append("  changed in the text, same behaviour (no witness): " + ", ".join(r.equivalent))
        lines.append("    (Z3 found no witness; " + _played_text(r) + ")")
    if r.unknown:
        lines.append("")
        for rule, n, why in r.unknown:
            lines.append(f"  not decided: {rule} ({n} players): {why}")
    diffs = [p for p in r.properties if p["differs"]]
    if diffs:
        lines.append("")
        lines.append(f"  properties on simulated games ({a} | {b}):")
        for p in diffs:
            lines.append(f"    {p['property']} ({p['players']} players): {p['a']} | {p['b']}")
    return "\n".join(lines)


def _played_text(r: DiffReport) -> str:
    """What the interpreters' check of the equivalent rules played (_Played)."""
    if not any(r.played.values()):
        return "no move of them was played from simulated games' states"
    return "moves played the same way from simulated games' states: " + ", ".join(
        f"{name} {r.played.get(name, 0)}" for name in r.equivalent)


def _ranked(diffs):
    order = {c: i for i, c in enumerate(CONSEQUENCES)}
    return sorted(diffs, key=lambda d: (order[d.consequence], d.rule))


def render_markdown(r: DiffReport) -> str:
    """The report as a Markdown page for the rules reference (everything from the specs escaped)."""
    from .markdown import code, fence, md

    a, b = sides(r.a, r.b)
    out = [f"# Differences: {md(a)} and {md(b)}", "",
           f"Editions of {code(r.a.game)} compared by `rulespec diff`. Every difference below was found by Z3 "
           "(or, where Z3 found none, by playing the rule from a state of a simulated game) and then played in "
           "both editions' interpreters, which bear it out.", "",
           "| consequence | count |", "| --- | --- |"]
    out += [f"| {k} | {v} |" for k, v in r.summary().items()]
    out += ["", "## Rules", "", f"| rule | kind | {md(a)} | {md(b)} |", "| --- | --- | --- | --- |"]
    for c in r.changes:
        if c.kind == "same":
            continue
        out.append(f"| {code(c.name)} ({md(c.category)}) | {c.kind} | {md(c.cite_a.label()) if c.cite_a else ''} | "
                   f"{md(c.cite_b.label()) if c.cite_b else ''} |")
    for d in _ranked(r.differences):
        out += ["", f"## {code(d.rule)}: {d.consequence}", "",
                f"{KIND_TEXT.get(d.kind, d.kind)}, with {d.players} players. {md(a)}: "
                f"{md(d.cite_a.label()) if d.cite_a else 'no citation'}; {md(b)}: "
                f"{md(d.cite_b.label()) if d.cite_b else 'no citation'}.", "", "Setup:", "",
                fence("\n".join(d.setup[:12]) or "(the initial state)", "text"), "", f"Move: {code(d.move)}", ""]
        for label, side in ((a, d.a), (b, d.b)):
            out.append(f"- under {md(label)}: {md(side.outcome)}" + (f" ({md(side.why)} is false)" if side.why else ""))
            out += [f"    - {md(x)}" for x in side.changes[:8]]
        if d.then:
            out += ["", fence("\n".join(d.then), "text")]
    if r.equivalent:
        out += ["", "## Changed in the text, same behaviour", "", ", ".join(code(x) for x in r.equivalent), "",
                f"Z3 found no witness; {md(_played_text(r))}."]
    if r.unknown:
        out += ["", "## Not decided", ""]
        out += [f"- {code(rule)} ({n} players): {md(why)}" for rule, n, why in r.unknown]
    diffs = [p for p in r.properties if p["differs"]]
    if diffs:
        out += ["", "## Properties on simulated games", "", f"| property | players | {md(a)} | {md(b)} |",
                "| --- | --- | --- | --- |"]
        out += [f"| {code(p['property'])} | {p['players']} | {md(p['a'])} | {md(p['b'])} |" for p in diffs]
    return "\n".join(out) + "\n"


__all__ = ["align", "compare", "fingerprint", "DiffReport", "Difference", "render_text", "render_markdown",
           "itertools", "SeqV", "TupleT"]

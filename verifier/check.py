"""Static checks: ast.Spec -> (list[Diagnostic], Model); collects every error, never raises.

Resolves names (with 'did you mean' hints), infers and checks types, constant ranges, arity,
duplicates, clauses and citations. The Model it returns records what each name and call refers
to and the type of every expression, for lower.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from . import ast
from .diagnostics import Diagnostic, did_you_mean, error, warning
from .source import Span
from .types import (BOOL, INT, NONE, PLAYER, STR, BagT, BoolT, EnumT, IntT, ListT, MapT, NoneT, OptT,
                    OrderT, PileT, PlayerT, RangeT, RecordT, SetT, TupleT, Type, assignable, comparable,
                    indexable, is_numeric, join, same_elements)

BUILTIN_TYPES = {"bool": BOOL, "int": INT, "Player": PLAYER}

# The most values a type may have where simulate and verify keep or try one entry per value (the
# elements of a zone, bag, pile, set or order, a map's keys, a zone's index, action and stat
# parameters, quantifier domains, drawn parameters), and the most entries one variable, zone,
# parameter or constant may keep (docs/language.md, section 2). Far above what card games need;
# at this size a simulation still takes about a second and a proof under a gigabyte.
DOMAIN_LIMIT = 10_000

# name -> (min args, max args or None, description for hints)
BUILTINS = {
    "size": (1, 1, "size(zone_or_set)"), "top": (1, 1, "top(pile)"), "the": (1, 1, "the(zone)"),
    "get": (1, 1, "get(optional)"), "total": (1, 1, "total(card)"), "left": (1, 1, "left(player)"),
    "right": (1, 1, "right(player)"), "seat": (2, 2, "seat(player, steps)"),
    "distance": (2, 2, "distance(from_player, to_player)"), "clockwise": (1, 1, "clockwise(player)"),
    "rank": (2, 2, "rank(order, value)"), "first": (1, 1, "first(order)"), "last": (1, 1, "last(order)"),
    "abs": (1, 1, "abs(number)"), "least": (1, None, "least(a, b, ...)"),
    "greatest": (1, None, "greatest(a, b, ...)"), "ord": (1, 1, "ord(enum_value)"),
}


@dataclass
class Symbol:
    kind: str  # enum_value const param var zone def proc local type action
    name: str
    type: Type | None
    decl: object = None
    span: Span | None = None
    used: bool = False


@dataclass
class Model:
    """What the checker learned; lower.py reads it."""

    spec: ast.Spec
    game: ast.GameDecl | None = None
    edition: ast.EditionDecl | None = None
    source: ast.SourceDecl | None = None
    players: ast.PlayersDecl | None = None
    types: dict[str, Type] = field(default_factory=dict)          # type namespace
    values: dict[str, Symbol] = field(default_factory=dict)       # value namespace
    enum_values: dict[str, list[EnumT]] = field(default_factory=dict)
    rules: dict[str, object] = field(default_factory=dict)        # actions, properties, ends, stats, scenarios
    expr_types: dict[int, Type] = field(default_factory=dict)     # id(expr) -> type
    refs: dict[int, Symbol] = field(default_factory=dict)         # id(Name/Call/Field/LValue) -> symbol
    decl_types: dict[int, Type] = field(default_factory=dict)     # id(decl or param) -> declared type
    zone_kinds: dict[str, str] = field(default_factory=dict)      # zone name -> "bag" | "pile"

    def type_of(self, node) -> Type:
        return self.expr_types[id(node)]


class Scope:
    """Local names (action parameters, binders, lets) over the global value namespace."""

    def __init__(self, parent: "Scope | None" = None, allow_state: bool = True, where: str = ""):
        self.parent = parent
        self.names: dict[str, Symbol] = {}
        self.allow_state = parent.allow_state if parent else allow_state
        self.where = parent.where if parent else where

    def lookup(self, name: str) -> Symbol | None:
        s = self
        while s is not None:
            if name in s.names:
                return s.names[name]
            s = s.parent
        return None

    def all_names(self):
        s = self
        while s is not None:
            yield from s.names
            s = s.parent


def back_edges(edges: dict, starts):
    """The cycles of a graph of names (edges: name -> [(name it uses, the node that uses it)]), as a
    depth-first walk from each of starts in turn meets them: for each edge back to a name still being
    walked, (the cycle's names from that one on, the node of the edge that closes it)."""
    state: dict[str, int] = {}  # 1 walking, 2 done

    def visit(name, path):
        state[name] = 1
        for used, node in edges.get(name, ()):
            if state.get(used) == 1:
                yield path[path.index(used):], node
            elif state.get(used) is None:
                yield from visit(used, path + [used])
        state[name] = 2

    for name in starts:
        if name not in state:
            yield from visit(name, [name])


class Checker:
    def __init__(self, spec: ast.Spec):
        self.spec = spec
        self.m = Model(spec)
        self.diags: list[Diagnostic] = []
        self.context: str | None = None
        self._membership_literal = False
        self._too_many: set[Type] = set()  # types reported for having more than DOMAIN_LIMIT values
        self._scenario_players: int | None = None  # within a scenario: the player count it runs with

    # ---- reporting ---------------------------------------------------------------------
    def err(self, code, msg, span, hint=None):
        self.diags.append(error(code, msg, span, hint, self.context))

    def warn(self, code, msg, span, hint=None):
        self.diags.append(warning(code, msg, span, hint, self.context))

    def _ctx(self, decl) -> str | None:
        name = getattr(decl, "name", None)
        cite = next((c for c in getattr(decl, "clauses", ()) if isinstance(c, ast.Cite)), None)
        edition = self.m.edition.name if self.m.edition else (self.m.game.name if self.m.game else "")
        if name and cite:
            return f'{name} ({edition}: "{cite.locator}")' if edition else f'{name} ("{cite.locator}")'
        return name

    # ---- driver ------------------------------------------------------------------------
    def run(self) -> tuple[list[Diagnostic], Model]:
        decls = self.spec.decls
        self.collect_header(decls)
        self.collect_types(decls)
        self.collect_values(decls)
        self.check_cycles(decls)
        self.check_const_cycles(decls)
        for d in decls:
            self.context = self._ctx(d)
            self.check_decl(d)
        self.context = None
        self.check_unused()
        return self.diags, self.m

    # ---- header ------------------------------------------------------------------------
    def collect_header(self, decls):
        once = {ast.GameDecl: "game", ast.EditionDecl: "edition", ast.SourceDecl: "source",
                ast.PlayersDecl: "players"}
        for d in decls:
            attr = once.get(type(d))
            if attr:
                if getattr(self.m, attr) is not None:
                    self.err("E303", f"'{attr}' is declared more than once", d.span,
                             hint=f"keep one `{attr}` declaration")
                else:
                    setattr(self.m, attr, d)
        first = decls[0].span if decls else Span(self.spec.path, 1, 1, 1, 1)
        start = Span(first.file, first.line, first.col, first.line, first.col + 1)
        if self.m.game is None:
            self.err("E302", "the spec has no `game` declaration", start,
                     hint='start the file with `game <name> "Title"`')
        if self.m.players is None:
            self.err("E302", "the spec has no `players` declaration", start,
                     hint='declare the player counts, e.g. `players 3..5 cite "Rules" "3-5 players"`')
        else:
            p = self.m.players
            if not self._players_valid():
                self.err("E208", f"invalid player count range {p.lo}..{p.hi}", p.span,
                         hint="use a range such as 3..5 (at most 64 players)")
        if not any(isinstance(d, ast.InitDecl) for d in decls):
            self.err("E302", "the spec has no `init` block", start,
                     hint="add `init { ... }` to set up the game")
        if sum(isinstance(d, ast.InitDecl) for d in decls) > 1:
            second = [d for d in decls if isinstance(d, ast.InitDecl)][1]
            self.err("E303", "`init` is declared more than once", second.span, hint="keep one `init` block")

    # ---- types -------------------------------------------------------------------------
    def collect_types(self, decls):
        tdecls = {}
        for d in decls:
            if isinstance(d, (ast.EnumDecl, ast.RecordDecl)):
                if d.name in tdecls or d.name in BUILTIN_TYPES:
                    self.err("E102", f"type '{d.name}' is declared more than once", d.span)
                    continue
                tdecls[d.name] = d
        resolving: set[str] = set()

        def resolve_enum(d: ast.EnumDecl) -> EnumT | None:
            if d.name in self.m.types:
                return self.m.types[d.name]
            if d.name in resolving:
                self.err("E209", f"enum '{d.name}' extends itself", d.span)
                return None
            resolving.add(d.name)
            base = None
            values: list[str] = []
            if d.parent is not None:
                pd = tdecls.get(d.parent.name)
                if not isinstance(pd, ast.EnumDecl):
                    self.err("E103", f"unknown enum '{d.parent.name}'", d.parent.span,
                             hint=did_you_mean(d.parent.name, [n for n, x in tdecls.items() if isinstance(x, ast.EnumDecl)]))
                else:
                    base = resolve_enum(pd)
                    if base:
                        values = list(base.values)
            seen = set(values)
            for v in d.values:
                if v.name in seen:
                    self.err("E102", f"value '{v.name}' appears twice in enum '{d.name}'", v.span)
                    continue
                seen.add(v.name)
                values.append(v.name)
            t = EnumT(d.name, tuple(values), base)
            self.m.types[d.name] = t
            resolving.discard(d.name)
            return t

        for d in tdecls.values():
            if isinstance(d, ast.EnumDecl):
                resolve_enum(d)
        for d in tdecls.values():
            if isinstance(d, ast.RecordDecl):
                self.m.types[d.name] = RecordT(d.name, (), d.is_card)  # placeholder for self-reference
        for d in tdecls.values():
            if isinstance(d, ast.RecordDecl):
                fields = []
                names = set()
                for f in d.fields:
                    if f.name in names:
                        self.err("E102", f"field '{f.name}' appears twice in '{d.name}'", f.span)
                        continue
                    names.add(f.name)
                    ft = self.resolve_type(f.type)
                    if ft is not None and not indexable(ft):
                        self.err("E205", f"field '{f.name}' must have a finite type, not '{ft}'", f.type.span,
                                 hint="use an enum, a range such as 1..8, bool or Player")
                        ft = None
                    if isinstance(ft, RecordT) and ft.name == d.name:
                        self.err("E209", f"record '{d.name}' contains itself", f.type.span)
                        ft = None
                    fields.append((f.name, ft or INT))
                self.m.types[d.name] = RecordT(d.name, tuple(fields), d.is_card)
        # enum values: bare names resolve to the enum that introduces them
        for name, t in self.m.types.items():
            if isinstance(t, EnumT):
                own = t.values[len(t.base.values):] if t.base else t.values
                for v in own:
                    self.m.enum_values.setdefault(v, []).append(t)

    def resolve_type(self, te) -> Type | None:
        if te is None:
            return None
        if isinstance(te, ast.NamedType):
            t = BUILTIN_TYPES.get(te.name) or self.m.types.get(te.name)
            if t is None:
                self.err("E103", f"unknown type '{te.name}'", te.span,
                         hint=did_you_mean(te.name, list(self.m.types) + list(BUILTIN_TYPES)))
            return t
        if isinstance(te, ast.OptType):
            inner = self.resolve_type(ast.NamedType(te.span, te.name))
            return OptT(inner) if inner else None
        if isinstance(te, ast.RangeType):
            lo, hi = self.const_int(te.lo), self.const_int(te.hi)
            if lo is None or hi is None:
                return None
            if lo > hi:
                self.err("E208", f"empty range {lo}..{hi}", te.span, hint="the lower bound comes first")
                return None
            return IntT(lo, hi)
        if isinstance(te, ast.MapType):
            k, v = self.resolve_type(te.key), self.resolve_type(te.value)
            if k is not None and not indexable(k):
                self.err("E205", f"a map's keys must be a finite type, not '{k}'", te.key.span,
                         hint="use an enum, a range, bool, Player or a card type")
                return None
            if k is not None and self.too_many(k, te.key.span, f"a map keeps one entry per value of its key {k}"):
                return None
            return MapT(k, v) if k and v else None
        for cls, tcls in ((ast.SetType, SetT), (ast.OrderType, OrderT), (ast.BagType, BagT), (ast.PileType, PileT)):
            if isinstance(te, cls):
                e = self.resolve_type(te.elem)
                if e is not None and not indexable(e):
                    self.err("E205", f"the elements of a {cls.__name__[:-4].lower()} must be a finite type, not '{e}'",
                             te.elem.span, hint="use an enum, a range, bool, Player or a card type")
                    return None
                if e is not None and self.too_many(e, te.elem.span,
                                                   f"{_article(tcls(e))} keeps one entry per value of {e}"):
                    return None
                return tcls(e) if e else None
        raise AssertionError(te)

    def const_int(self, e, _seen: frozenset = frozenset(), report: bool = True) -> int | None:
        """A number fixed before the game starts (literals, arithmetic, constants of those)."""
        value = self._fixed_int(e, _seen)
        for node in ast.walk(e):  # a constant named in a bound is used
            sym = self.m.values.get(node.id) if isinstance(node, ast.Name) else None
            if sym is not None and sym.kind == "const":
                sym.used = True
        if value is None and report:
            self.err("E208", "a type's bounds must be fixed numbers", e.span,
                     hint="write a number such as 0..24, or a constant that is one; bounds cannot depend on "
                          "`players`, parameters or the state")
        return value

    def too_many(self, t: Type, span, what: str) -> bool:
        """E205 when `t` has more values than DOMAIN_LIMIT where they are listed one by one; `what`
        says why they are (`a bag of K keeps one entry per value of K`)."""
        n = count_values(t, self._most_players())
        if n is None or n <= DOMAIN_LIMIT:
            return False
        self._too_many.add(t)
        self.err("E205", f"{what}: {_amount(n)} values, more than the limit of {DOMAIN_LIMIT:,}", span,
                 hint=_count_hint(t, self._most_players()))
        return True

    def too_many_entries(self, t: Type, name: str, span) -> bool:
        """E205 when the state `name` of type `t` needs more than DOMAIN_LIMIT entries in all (a map of
        maps multiplies its key counts), each of its own key and element types being within it."""
        n = entries(t, self._most_players())
        if n <= DOMAIN_LIMIT:
            return False
        self.err("E205", f"'{name}' has {_amount(n)} entries ({t}), more than the limit of {DOMAIN_LIMIT:,}",
                 span,
                 hint="simulate and verify keep every entry of every map and every place of every zone: "
                      "index by fewer values, or narrow the ranges")
        return True

    def _player_counts(self) -> range:
        """The player counts of the spec (64 at most), or the largest alone where its range is not
        valid; within a scenario, the count it runs with."""
        if self._scenario_players is not None:
            return range(self._scenario_players, self._scenario_players + 1)
        if self._players_valid():
            return range(self.m.players.lo, self.m.players.hi + 1)
        return range(64, 65)

    def _most_players(self) -> int:
        return self.m.players.hi if self._players_valid() else 64

    def _fixed_int(self, e, seen: frozenset) -> int | None:
        return fixed_int(self.spec.decls, e, seen)

    # ---- value namespace ---------------------------------------------------------------
    def collect_values(self, decls):
        for name, enums in self.m.enum_values.items():
            self.m.values.setdefault(name, Symbol("enum_value", name, enums[0] if len(enums) == 1 else None))
        kinds = {ast.ConstDecl: "const", ast.ParamDecl: "param", ast.VarDecl: "var", ast.ZoneDecl: "zone",
                 ast.DefDecl: "def", ast.ProcDecl: "proc"}
        for d in decls:
            kind = kinds.get(type(d))
            if kind:
                self.declare_value(d, kind)
            elif isinstance(d, (ast.ActionDecl, ast.PropertyDecl, ast.EndDecl, ast.StatDecl, ast.ScenarioDecl)):
                if d.name in self.m.rules:
                    self.err("E102", f"'{d.name}' is declared more than once", d.span,
                             hint="actions, properties, ends, stats and scenarios need distinct names")
                else:
                    self.m.rules[d.name] = d
        # types of state, parameters and definitions (bodies are checked later)
        for d in decls:
            if isinstance(d, (ast.VarDecl, ast.ParamDecl)):
                t = self.resolve_type(d.type)
                if t is not None:
                    inner = t
                    while isinstance(inner, MapT):
                        inner = inner.value
                    if isinstance(inner, (BagT, PileT)):
                        self.err("E210", f"'{d.name}' holds cards: declare it as a zone", d.type.span,
                                 hint=f"zone {d.name}: {'pile' if isinstance(inner, PileT) else 'bag'} of {inner.elem}")
                    elif isinstance(d, ast.ParamDecl) and not _drawable(t):
                        self.err("E205", f"parameter '{d.name}' needs a finite type, not '{t}'", d.type.span,
                                 hint="a simulation draws a parameter from its type: use a range, enum, Player, "
                                      "set, order, or a map to one of those")
                    elif isinstance(d, ast.ParamDecl) and any(
                            self.too_many(x, d.type.span, f"parameter '{d.name}' is drawn from the values of {x}")
                            for x in _listed_when_drawn(t)):
                        t = None
                    elif self.too_many_entries(t, d.name, d.type.span):
                        t = None
                self.set_value_type(d.name, t, d)
            elif isinstance(d, ast.ZoneDecl):
                elem = self.resolve_type(d.elem)
                if elem is not None and not indexable(elem):
                    self.err("E205", f"a zone holds values of a finite type, not '{elem}'", d.elem.span,
                             hint="declare a card type: `card Name { field: Type, ... }`")
                    elem = None
                if elem is not None and self.too_many(elem, d.elem.span,
                                                      f"a zone keeps one entry per value of {elem}"):
                    elem = None
                zt = None
                if elem is not None:
                    zt = PileT(elem) if d.kind == "pile" else BagT(elem)
                    if d.index is not None:
                        key = self.resolve_type(d.index)
                        if key is not None and not indexable(key):
                            self.err("E205", f"zones are indexed by a finite type, not '{key}'", d.index.span)
                            key = None
                        if key is not None and self.too_many(key, d.index.span,
                                                             f"'{d.name}' is one zone per value of {key}"):
                            key = None
                        zt = MapT(key, zt) if key else None
                    if zt is not None:
                        self.too_many_entries(zt, d.name, self.name_span(d))
                self.m.zone_kinds[d.name] = d.kind
                self.set_value_type(d.name, zt, d)
            elif isinstance(d, (ast.DefDecl, ast.ProcDecl)):
                for p in d.params:
                    self.m.decl_types[id(p)] = self.resolve_type(p.type)
                if isinstance(d, ast.DefDecl):
                    self.set_value_type(d.name, self.resolve_type(d.ret), d)

    def declare_value(self, d, kind):
        existing = self.m.values.get(d.name)
        if existing is not None:
            self.err("E102", f"'{d.name}' is already {_kind_phrase(existing.kind)}", self.name_span(d),
                     hint=f"declared at {existing.span}" if existing.span else "choose another name")
            return
        if d.name in self.m.types or d.name in BUILTIN_TYPES:
            self.err("E102", f"'{d.name}' is already a type", self.name_span(d), hint="choose another name")
            return
        self.m.values[d.name] = Symbol(kind, d.name, None, d, d.span)

    @staticmethod
    def name_span(d) -> Span:
        """The span of a declaration's name (for carets under just the name)."""
        from .source import lookup
        s = d.span
        src = lookup(s.file)
        name = getattr(d, "name", "")
        if src is not None and name:
            line = src.line(s.line)
            i = line.find(name, s.col - 1 + 1)
            while i >= 0 and ((i > 0 and (line[i - 1].isalnum() or line[i - 1] == "_")) or
                              (i + len(name) < len(line) and (line[i + len(name)].isalnum() or line[i + len(name)] == "_"))):
                i = line.find(name, i + 1)
            if i >= 0:
                return Span(s.file, s.line, i + 1, s.line, i + 1 + len(name))
        return Span(s.file, s.line, s.col, s.line, s.col + 1)

    def owns(self, d) -> bool:
        """Whether `d` is the declaration its name resolves to (not a rejected duplicate)."""
        sym = self.m.values.get(getattr(d, "name", None))
        return sym is not None and sym.decl is d

    def set_value_type(self, name, t, d):
        sym = self.m.values.get(name)
        if sym is not None and sym.decl is d:
            sym.type = t
            self.m.decl_types[id(d)] = t

    def check_cycles(self, decls):
        """Definitions and procedures are expanded in place: no cycle of calls among them."""
        bodies = {d.name: d for d in decls if isinstance(d, (ast.DefDecl, ast.ProcDecl)) and self.owns(d)}
        calls: dict[str, list[tuple[str, ast.Call]]] = {}
        for name, d in bodies.items():
            out = []
            for node in ast.walk(d.expr if isinstance(d, ast.DefDecl) else d.body):
                call = node.call if isinstance(node, ast.CallStmt) else node if isinstance(node, ast.Call) else None
                if call is not None and call.func in bodies:
                    out.append((call.func, call))
            calls[name] = out
        reported: set[str] = set()
        for cycle, call in back_edges(calls, bodies):
            callee = cycle[0]
            if callee not in reported:
                reported.update(cycle)
                cycle = cycle + [callee]
                what = "definition" if isinstance(bodies[callee], ast.DefDecl) else "procedure"
                msg = (f"{what} '{callee}' calls itself" if len(cycle) == 2 else
                       f"{what} '{callee}' calls itself through " + " -> ".join(cycle))
                self.err("E209", msg, call.func_span or call.span,
                         hint="definitions and procedures are expanded in place and cannot recurse; "
                              "use a quantifier or a `for` loop")
        self._cyclic = reported

    def check_const_cycles(self, decls):
        """A constant is evaluated once, from its expression: that expression cannot need the constant
        itself, directly, through other constants or through the definitions it calls."""
        consts = {d.name: d for d in decls if isinstance(d, ast.ConstDecl) and self.owns(d)}
        defs = {d.name: d for d in decls if isinstance(d, ast.DefDecl) and self.owns(d)}
        uses: dict[str, list[tuple[str, object]]] = {}
        for name, d in (*consts.items(), *defs.items()):
            # (a parameter or binder named like a constant is E102; its uses are not the constant's)
            own = {p.name for p in d.params} if isinstance(d, ast.DefDecl) else set()
            own |= {n.name for n in ast.walk(d.expr) if isinstance(n, ast.Binder)}
            out = []
            for node in ast.walk(d.expr):
                if isinstance(node, ast.Name) and node.id in consts and node.id not in own:
                    out.append((node.id, node))
                elif isinstance(node, ast.Call) and node.func in defs:
                    out.append((node.func, node))
            uses[name] = out
        reported: set[str] = set()
        for cycle, node in back_edges(uses, consts):
            first = next((i for i, n in enumerate(cycle) if n in consts), None)
            # (a cycle of definitions alone is check_cycles' E209)
            if first is not None and not reported.intersection(cycle):
                reported.update(cycle)
                shown = cycle[first:] + cycle[:first] + [cycle[first]]
                span = node.func_span or node.span if isinstance(node, ast.Call) else node.span
                self.err("E209", f"constant '{shown[0]}' is defined in terms of itself "
                                 f"({' -> '.join(shown)})", span,
                         hint="a constant is computed once, before the game starts, from values known "
                              "before it: it cannot use itself, not even through other constants or "
                              "definitions")

    # ---- declarations ------------------------------------------------------------------
    def check_decl(self, d):
        method = getattr(self, "decl_" + type(d).__name__, None)
        if method:
            method(d)

    def clauses(self, d, allowed: set[str], need_cite: bool):
        seen = set()
        for c in getattr(d, "clauses", ()):
            kind = type(c).__name__
            if kind not in allowed:
                label = {"When": "when", "By": "by", "Where": "where", "Visible": "visible", "Refill": "refill",
                         "Exhausted": "exhausted", "ExpectViolated": "expect violated", "Lemma": "lemma",
                         "Cite": "cite"}[kind]
                self.err("E304", f"`{label}` is not allowed on {self._what(d)}", c.span)
                continue
            if kind in seen and kind not in ("When",):
                self.err("E303", f"{self._what(d)} has more than one `{kind.lower()}` clause", c.span)
            seen.add(kind)
        if need_cite and "Cite" not in seen:
            self.err("E301", f"{self._noun(d)} '{d.name}' has no citation", self.name_span(d),
                     hint='add `cite "<section>" "<a few quoted words>"` naming the paragraph it formalises')

    @staticmethod
    def _what(d) -> str:
        return {ast.ActionDecl: "an action", ast.PropertyDecl: f"{'an' if getattr(d, 'kind', '') == 'invariant' else 'a'} {getattr(d, 'kind', '')}",
                ast.EndDecl: "an end", ast.StatDecl: "a stat", ast.ScenarioDecl: "a scenario",
                ast.ZoneDecl: "a zone", ast.VarDecl: "a var", ast.ParamDecl: "a param",
                ast.InitDecl: "init", ast.ProcDecl: "a proc"}.get(type(d), "this declaration")

    @staticmethod
    def _noun(d) -> str:
        kind = getattr(d, "kind", "")
        noun = {ast.ActionDecl: "action", ast.EndDecl: "end", ast.StatDecl: "stat", ast.ScenarioDecl: "scenario",
                ast.PropertyDecl: "property" if kind == "terminates" else kind}.get(type(d), "declaration")
        return f"the {'terminates ' if kind == 'terminates' else ''}{noun}" if isinstance(d, ast.PropertyDecl) else f"the {noun}"

    @staticmethod
    def _head_span(d) -> Span:
        s = d.span
        return Span(s.file, s.line, s.col, s.line, s.col + len(type(d).__name__.replace("Decl", "")) + 1 + len(getattr(d, "name", "")))

    def need_doc(self, d):
        if not d.doc:
            self.warn("W401", f"{self._noun(d)} '{d.name}' has no doc comment", self.name_span(d),
                      hint="add a one-line `///` comment above it saying what it is for")

    def decl_ConstDecl(self, d):
        if not self.owns(d):
            return
        t = self.expr(d.expr, Scope(allow_state=False, where="a constant"),
                      self.resolve_type(d.type) if d.type else None)
        declared = self.resolve_type(d.type) if d.type else None
        if declared is not None and t is not None and not assignable(t, declared):
            self.err("E201", f"constant '{d.name}' is declared {declared} but its value is {t}", d.expr.span)
        if (declared or t) is not None and self.too_many_entries(declared or t, d.name, self.name_span(d)):
            return
        self.set_value_type(d.name, declared or t, d)

    def decl_ParamDecl(self, d):
        self.clauses(d, {"Cite", "Where"}, need_cite=False)
        for c in d.clauses:
            if isinstance(c, ast.Where):
                self.cond(c.expr, Scope(allow_state=False, where="a parameter's condition"))

    def decl_VarDecl(self, d):
        self.clauses(d, {"Cite", "Visible"}, need_cite=False)

    def decl_ZoneDecl(self, d):
        self.clauses(d, {"Cite", "Visible", "Refill", "Exhausted"}, need_cite=False)
        # a zone whose name was taken (an enum value, an earlier var or zone: E102) has no type of its own
        zt = self.m.values[d.name].type if self.owns(d) else None
        for c in d.clauses:
            if isinstance(c, (ast.Refill, ast.Exhausted)) and d.kind != "pile":
                self.err("E210", "only a pile can be refilled or exhausted", c.span,
                         hint="declare the zone as `pile of ...`")
            if isinstance(c, ast.Refill):
                src = self.m.values.get(c.source)
                if c.source == d.name:  # (it is empty when it is refilled: nothing would come)
                    self.err("E210", f"'{d.name}' cannot be refilled from itself", c.span,
                             hint="refill a draw pile from another zone, e.g. its discard pile")
                elif src is None or src.kind != "zone":
                    msg = f"unknown zone '{c.source}'" if src is None else \
                        f"'{c.source}' is {_kind_phrase(src.kind)}, not a zone"
                    self.err("E204", msg, c.span,
                             hint=did_you_mean(c.source, [n for n, s in self.m.values.items() if s.kind == "zone"]))
                else:
                    src.used = True
                    st = src.type
                    if isinstance(st, MapT) or isinstance(zt, MapT):
                        self.err("E210", "refill works between single zones, not indexed ones", c.span)
                    elif isinstance(st, (BagT, PileT)) and isinstance(zt, (BagT, PileT)) and \
                            not same_elements(st.elem, zt.elem):
                        self.err("E201", f"'{c.source}' holds {st.elem}, not {zt.elem}", c.span)
            if isinstance(c, ast.Exhausted) and c.reason is not None and c.cite is None:
                self.err("E301", "an undecided point needs a citation", c.span)

    def decl_DefDecl(self, d):
        if not self.owns(d):
            return
        scope = Scope(where="a definition")
        for p in d.params:
            self.bind(scope, p.name, self.m.decl_types.get(id(p)), p.span, p)
        ret = self.m.values[d.name].type if d.name in self.m.values else None
        t = self.expr(d.expr, scope, ret)
        if t is not None and ret is not None and not assignable(t, ret):
            self.err("E201", f"'{d.name}' should give {ret} but its body is {t}", d.expr.span)

    def decl_ProcDecl(self, d):
        if not self.owns(d):
            return
        self.clauses(d, {"Cite"}, need_cite=False)
        scope = Scope(where="a procedure")
        for p in d.params:
            self.bind(scope, p.name, self.m.decl_types.get(id(p)), p.span, p)
        self.block(d.body, scope)

    def decl_InitDecl(self, d):
        self.clauses(d, {"Cite"}, need_cite=False)
        self.block(d.body, Scope(where="init"))

    def decl_ActionDecl(self, d):
        self.clauses(d, {"Cite", "When", "By"}, need_cite=True)
        self.need_doc(d)
        scope = Scope(where="an action")
        for p in d.params:
            t = self.resolve_type(p.type)
            if t is not None and not t.finite:
                self.err("E205", f"action parameter '{p.name}' needs a finite type, not '{t}'", p.type.span,
                         hint="a move chooses among finitely many values: use a range such as 0..10")
                t = None
            if t is not None and self.too_many(t, p.type.span,
                                               f"a move chooses '{p.name}' among the values of {t}"):
                t = None
            self.m.decl_types[id(p)] = t
            self.bind(scope, p.name, t, p.span, p)
        for c in d.clauses:
            if isinstance(c, ast.When):
                self.cond(c.expr, scope)
            elif isinstance(c, ast.By):
                t = self.expr(c.expr, scope, PLAYER)
                if t is not None and not isinstance(t, PlayerT):
                    self.err("E201", f"`by` names the player who chooses; this is {t}", c.expr.span)
        self.block(d.body, scope)

    def decl_PropertyDecl(self, d):
        allowed = {"Cite", "ExpectViolated"} | ({"Lemma"} if d.kind == "invariant" else set())
        self.clauses(d, allowed, need_cite=True)
        self.need_doc(d)
        scope = Scope(where="a property")
        b = d.body
        if d.kind in ("invariant", "reachable"):
            if not isinstance(b, ast.PropExpr):
                self.err("E201", f"{d.kind} '{d.name}' takes a condition", b.span)
            else:
                self.cond(b.expr, scope)
        elif d.kind == "terminates":
            if not isinstance(b, ast.PropRanking):
                self.err("E201", "`terminates` takes `while <condition> decreases <rank>, ...`", b.span)
            else:
                self.cond(b.cond, scope)
                for r in b.ranks:
                    t = self.expr(r, scope, INT)
                    if t is not None and not is_numeric(t):
                        self.err("E201", f"a ranking must be a number, not {t}", r.span)
        elif d.kind == "bound":
            if not isinstance(b, ast.PropBound):
                self.err("E201", "`bound` takes `after <condition>, at most <n> <action>`", b.span)
            else:
                self.cond(b.trigger, scope)
                self.const_int(b.limit)
                act = self.m.rules.get(b.action)
                if not isinstance(act, ast.ActionDecl):
                    self.err("E105", f"unknown action '{b.action}'", b.action_span,
                             hint=did_you_mean(b.action, [n for n, r in self.m.rules.items() if isinstance(r, ast.ActionDecl)]))

    def decl_EndDecl(self, d):
        self.clauses(d, {"Cite"}, need_cite=True)
        self.cond(d.expr, Scope(where="an end"))

    def decl_StatDecl(self, d):
        self.clauses(d, {"Cite"}, need_cite=False)
        scope = Scope(where="a stat")
        if len(d.params) > 1:
            self.err("E202", "a stat takes at most one parameter (its value is reported for each)", d.params[1].span)
        for p in d.params:
            t = self.resolve_type(p.type)
            if t is not None and not t.finite:
                self.err("E205", f"a stat's parameter needs a finite type, not '{t}'", p.type.span)
            elif t is not None and self.too_many(t, p.type.span, f"a stat is reported for each value of {t}"):
                t = None
            self.m.decl_types[id(p)] = t
            self.bind(scope, p.name, t, p.span, p)
        t = self.expr(d.expr, scope)
        if t is not None and not (is_numeric(t) or isinstance(t, (BoolT, EnumT))):
            self.err("E201", f"a stat is a number, a truth value or an enum value, not {t}", d.expr.span)

    def decl_ScenarioDecl(self, d):
        self.clauses(d, {"Cite"}, need_cite=True)
        scope = Scope(where="a scenario")
        lo, hi = (self.m.players.lo, self.m.players.hi) if self._players_valid() else (1, 64)
        # the count it runs with (lower.scenario's: its `players` step, else the fewest), by which
        # its ranges are measured
        counts = [step.count for step in d.steps if isinstance(step, ast.ScPlayers) and lo <= step.count <= hi]
        self._scenario_players = counts[-1] if counts else lo
        try:
            self._scenario_steps(d, scope, lo, hi)
        finally:
            self._scenario_players = None

    def _scenario_steps(self, d, scope: Scope, lo: int, hi: int) -> None:
        ended = gap = moved = False
        for step in d.steps:
            if isinstance(step, ast.ScPlayers):
                if not lo <= step.count <= hi:
                    self.err("E305", f"the game is for {lo} to {hi} players, not {step.count}", step.span)
            elif isinstance(step, ast.ScParam):
                sym = self.m.values.get(step.target.name)
                if sym is None or sym.kind != "param":
                    self.err("E101" if sym is None else "E203", f"'{step.target.name}' is not a parameter",
                             step.target.span, hint=did_you_mean(step.target.name,
                                                                 [n for n, s in self.m.values.items() if s.kind == "param"]))
                    continue
                if moved:
                    self.err("E305", "parameters are set before the first move", step.span)
                t = self.lvalue(step.target, Scope(allow_state=False, where="a parameter's value"), allow_params=True)
                if t is not None:
                    self.expect_type(step.expr, Scope(allow_state=False, where="a parameter's value"), t)
            elif isinstance(step, ast.ScSetup):
                if moved:
                    self.err("E305", "`setup` comes before the first move", step.span)
                self.block(step.body, Scope(scope))
            elif isinstance(step, (ast.ScDo, ast.ScIllegal)):
                if gap or (ended and isinstance(step, ast.ScDo)):
                    self.err("E305", "no move can follow the end of the game or a gap", step.span)
                self.action_call(step.call, scope)
                moved = True
            elif isinstance(step, ast.ScExpect):
                self.cond(step.expr, scope)
            elif isinstance(step, ast.ScGap):
                gap = True
            elif isinstance(step, ast.ScEnd):
                ended = True
                if step.name is not None and not isinstance(self.m.rules.get(step.name), ast.EndDecl):
                    self.err("E101", f"unknown end '{step.name}'", step.span,
                             hint=did_you_mean(step.name, [n for n, r in self.m.rules.items() if isinstance(r, ast.EndDecl)]))

    def action_call(self, call: ast.Call, scope: Scope):
        act = self.m.rules.get(call.func)
        if not isinstance(act, ast.ActionDecl):
            self.err("E105", f"unknown action '{call.func}'", call.func_span or call.span,
                     hint=did_you_mean(call.func, [n for n, r in self.m.rules.items() if isinstance(r, ast.ActionDecl)]))
            for a in call.args:
                self.expr(a.expr, scope)
            return
        self.m.refs[id(call)] = Symbol("action", act.name, None, act)
        self.call_args(call, [(p.name, self.m.decl_types.get(id(p))) for p in act.params], scope, f"action '{act.name}'")

    def call_args(self, call: ast.Call, params: list[tuple[str, Type | None]], scope: Scope, what: str):
        args = list(call.args)
        if len(args) != len(params):
            self.err("E202", f"{what} takes {len(params)} argument{'s' if len(params) != 1 else ''}, "
                             f"not {len(args)}", call.span,
                     hint=f"{call.func}(" + ", ".join(f"{n}: {t}" for n, t in params) + ")")
        names = [n for n, _t in params]
        ordered: list[ast.Arg | None] = [None] * len(params)
        pos = 0
        for a in args:
            if a.name is not None:
                if a.name not in names:
                    self.err("E101", f"{what} has no parameter '{a.name}'", a.span, hint=did_you_mean(a.name, names))
                    self.expr(a.expr, scope)
                    continue
                i = names.index(a.name)
            else:
                i = pos
                pos += 1
            if i < len(params):
                if ordered[i] is not None:
                    self.err("E202", f"argument '{names[i]}' is given twice", a.span)
                ordered[i] = a
                self.expect_type(a.expr, scope, params[i][1])
            else:
                self.expr(a.expr, scope)
        self.m.refs.setdefault(("args", id(call)), ordered)

    # ---- statements --------------------------------------------------------------------
    def block(self, b: ast.Block, scope: Scope):
        inner = Scope(scope)
        for s in b.stmts:
            self.stmt(s, inner)

    def stmt(self, s, scope: Scope):
        if isinstance(s, ast.Assign):
            t = self.lvalue(s.target, scope)
            if t is None:
                self.expr(s.expr, scope)
                return
            if s.op == ":=":
                self.expect_type(s.expr, scope, t)
            else:
                if is_numeric(t):
                    self.expect_type(s.expr, scope, INT)
                elif isinstance(t, (BagT, SetT)):
                    self.expect_type(s.expr, scope, t)
                else:
                    self.err("E201", f"'{s.op}' needs a number, a bag or a set; '{s.target.name}' is {t}", s.span)
        elif isinstance(s, ast.Move):
            src = self.zone_ref(s.src, scope, "move cards from")
            dst = self.zone_ref(s.dst, scope, "move cards to")
            for end, zt, node in ((s.src_end, src, s.src), (s.dst_end, dst, s.dst)):
                if end == "bottom" and zt is not None and not isinstance(zt, PileT):
                    self.err("E210", "only a pile has a top and a bottom", node.span)
            if src is not None and dst is not None and not same_elements(src.elem, dst.elem):
                self.err("E201", f"cannot move {src.elem} into a zone of {dst.elem}", s.dst.span)
            if s.what is not None:
                t = self.expr(s.what, scope, src.elem if src else None)
                if t is not None and src is not None:
                    if is_numeric(t) and not assignable(t, src.elem):
                        if not isinstance(src, PileT):
                            self.err("E210", "a number of cards can only be taken from a pile", s.what.span,
                                     hint="a bag has no order: name the cards, or make the zone a pile")
                    elif isinstance(t, (BagT, PileT)):
                        if not same_elements(t.elem, src.elem):
                            self.err("E201", f"cannot move {t} out of a zone of {src.elem}", s.what.span)
                    elif not assignable(t, src.elem):
                        self.err("E201", f"cannot move {t} out of a zone of {src.elem}", s.what.span)
        elif isinstance(s, ast.Draw):
            self.expect_type(s.count, scope, INT)
            src = self.zone_ref(s.src, scope, "draw from")
            dst = self.zone_ref(s.dst, scope, "draw to")
            if src is not None and not isinstance(src, PileT):
                self.err("E210", "`draw` takes cards from the top of a pile; this zone is a bag", s.src.span,
                         hint="make the zone a pile, or `move` named cards")
            if src is not None and dst is not None and not same_elements(src.elem, dst.elem):
                self.err("E201", f"cannot draw {src.elem} into a zone of {dst.elem}", s.dst.span)
        elif isinstance(s, ast.Shuffle):
            z = self.zone_ref(s.zone, scope, "shuffle")
            if z is not None and not isinstance(z, PileT):
                self.err("E210", "only a pile can be shuffled; a bag has no order", s.zone.span)
        elif isinstance(s, ast.If):
            for cond, blk in s.branches:
                self.cond(cond, scope)
                self.block(blk, scope)
            if s.other is not None:
                self.block(s.other, scope)
        elif isinstance(s, ast.For):
            inner = Scope(scope)
            et = self.domain(s.domain, scope)
            self.bind(inner, s.var, et, s.span, s)
            if s.where is not None:
                self.cond(s.where, inner)
            if s.order is not None:
                t = self.expr(s.order, inner)
                if t is not None and not self.orderable(t):
                    self.err("E201", f"`ordered by` needs a number, an enum value or a tuple of them, not {t}",
                             s.order.span)
            self.block(s.body, inner)
        elif isinstance(s, ast.Let):
            t = self.expr(s.expr, scope)
            if isinstance(t, (NoneT, RangeT)):
                self.err("E201", f"cannot bind '{s.name}' to {t}", s.expr.span)
            self.bind(scope, s.name, t, s.span, s)
        elif isinstance(s, ast.Undecided):
            if s.cite is None:
                self.err("E301", "an undecided point needs a citation", s.span,
                         hint='cite the paragraph that leaves this open: undecided "why" cite "<section>" "<words>"')
        elif isinstance(s, ast.CallStmt):
            self.proc_call(s.call, scope)
        elif isinstance(s, ast.Skip):
            pass
        else:  # pragma: no cover
            raise AssertionError(s)

    def orderable(self, t) -> bool:
        if isinstance(t, TupleT):
            return all(self.orderable(x) for x in t.elems)
        return is_numeric(t) or isinstance(t, (EnumT, BoolT))

    def proc_call(self, call: ast.Call, scope: Scope):
        sym = self.m.values.get(call.func)
        if sym is None or sym.kind != "proc":
            known = [n for n, s in self.m.values.items() if s.kind == "proc"]
            msg = f"unknown procedure '{call.func}'" if sym is None else f"'{call.func}' is {_kind_phrase(sym.kind)}, not a procedure"
            self.err("E101", msg, call.func_span or call.span, hint=did_you_mean(call.func, known))
            for a in call.args:
                self.expr(a.expr, scope)
            return
        sym.used = True
        self.m.refs[id(call)] = sym
        self.call_args(call, [(p.name, self.m.decl_types.get(id(p))) for p in sym.decl.params], scope,
                       f"procedure '{call.func}'")

    def lvalue(self, lv: ast.LValue, scope: Scope, allow_params: bool = False) -> Type | None:
        sym = scope.lookup(lv.name) or self.m.values.get(lv.name)
        if sym is None:
            self.err("E101", f"unknown name '{lv.name}'", self._name_span(lv),
                     hint=did_you_mean(lv.name, list(scope.all_names()) + list(self.m.values)))
            return None
        sym.used = True
        if sym.kind not in ("var", "zone") and not (allow_params and sym.kind == "param"):
            self.err("E203", f"cannot assign to {_kind_phrase(sym.kind)} '{lv.name}'", self._name_span(lv),
                     hint="only `var` and `zone` state changes during a game")
            return None
        if not scope.allow_state and sym.kind != "param":
            self.err("E203", f"{scope.where} cannot change the state", lv.span)
            return None
        self.m.refs[id(lv)] = sym
        t = sym.type
        for sel in lv.path:
            if t is None:
                return None
            if isinstance(sel, ast.LField):
                self.err("E203", f"cannot assign to field '{sel.name}': records are values",
                         sel.span, hint="assign a whole new value, e.g. Card(hearts, 3)")
                return None
            if isinstance(t, MapT):
                self.expect_type(sel.index, scope, t.key)
                t = t.value
            elif isinstance(t, BagT):
                self.expect_type(sel.index, scope, t.elem)
                t = IntT(0, None)
                self.err("E203", "cannot assign to a count in a zone", lv.span,
                         hint="use `move` so that cards stay conserved")
                return None
            else:
                self.err("E206", f"'{lv.name}' is {t} and cannot be indexed", sel.span)
                return None
        return t

    @staticmethod
    def _name_span(lv) -> Span:
        s = lv.span
        return Span(s.file, s.line, s.col, s.line, s.col + len(lv.name))

    def zone_ref(self, e, scope: Scope, what: str) -> BagT | PileT | None:
        """A zone in a move/draw/shuffle: a zone name, indexed if the zone is indexed."""
        root = e
        while isinstance(root, ast.Index):
            root = root.base
        t = self.expr(e, scope)
        if t is None:
            return None
        sym = self.m.refs.get(id(root)) if isinstance(root, ast.Name) else None
        if sym is None or sym.kind != "zone" or not isinstance(t, (BagT, PileT)):
            if isinstance(t, MapT) and sym is not None and sym.kind == "zone":
                self.err("E206", f"'{sym.name}' is indexed by {t.key}: say which one", e.span,
                         hint=f"e.g. {sym.name}[p]")
            else:
                self.err("E204", f"cannot {what} {self._describe(e)}: it is not a zone", e.span,
                         hint="cards live in zones declared with `zone name: pile of T` or `bag of T`")
            return None
        if not scope.allow_state:
            self.err("E203", f"{scope.where} cannot change the state", e.span)
        return t

    @staticmethod
    def _describe(e) -> str:
        return f"'{e.id}'" if isinstance(e, ast.Name) else "this"

    def bind(self, scope: Scope, name: str, t, span, decl):
        if scope.lookup(name) is not None:
            self.err("E102", f"'{name}' is already defined here", span, hint="choose another name")
            return
        if name in self.m.values and self.m.values[name].kind in ("var", "zone", "const", "param", "def"):
            self.err("E102", f"'{name}' would hide the {self.m.values[name].kind} '{name}'", span,
                     hint="choose another name")
            return
        scope.names[name] = Symbol("local", name, t, decl, span, used=True)

    # ---- expressions -------------------------------------------------------------------
    def cond(self, e, scope: Scope):
        t = self.expr(e, scope, BOOL)
        if t is not None and not isinstance(t, BoolT):
            self.err("E201", f"a condition must be true or false; this is {t}", e.span)

    def expect_type(self, e, scope: Scope, expected: Type | None):
        t = self.expr(e, scope, expected)
        if t is not None and expected is not None and not assignable(t, expected):
            self.err("E201", f"expected {expected}, found {t}", e.span)
        elif t is not None and expected is not None and isinstance(e, ast.IntLit):
            self.check_literal_range(e, expected)
        return t

    def _players_valid(self) -> bool:
        """A `players` range to check against; an invalid one (4..3) is its own E208 only, not one
        more error per scenario and player literal measured against it."""
        p = self.m.players
        return p is not None and 1 <= p.lo <= p.hi <= 64

    def check_literal_range(self, e: ast.IntLit, t: Type):
        if isinstance(t, IntT) and t.finite and not t.lo <= e.value <= t.hi:
            self.err("E207", f"{e.value} is outside {t}", e.span)
        elif isinstance(t, PlayerT) and self._players_valid() and not 0 <= e.value < self.m.players.hi:
            self.err("E207", f"player {e.value} does not exist: seats are numbered 0 to players - 1", e.span)

    def expr(self, e, scope: Scope, expected: Type | None = None, type_ok: bool = False) -> Type | None:
        """The type of `e`; a type name (`Player`) is accepted only where a domain is (type_ok)."""
        method = getattr(self, "ex_" + type(e).__name__)
        t = method(e, scope, expected)
        if isinstance(t, _TypeAsValue) and not type_ok:
            self.type_not_value(e, t.type)
            return None
        if t is not None:
            self.m.expr_types[id(e)] = t
        return t

    def type_not_value(self, e, t: Type):
        name = e.id if isinstance(e, ast.Name) else str(t)
        if isinstance(t, IntT):
            hint = "write a number; a range such as 0..10 can be iterated over"
        else:
            example = {BoolT: "true or false", PlayerT: "a seat such as 0"}.get(type(t))
            if isinstance(t, EnumT) and t.values:
                example = f"e.g. {t.values[0]}"
            elif isinstance(t, RecordT):
                example = f"e.g. {t.name}(...)"
            example = f" ({example})" if example else ""
            hint = (f"write a value{example}; a type stands for all its values only where they are "
                    f"iterated over, as in `all(x in {name}: ...)`")
        self.err("E201", f"'{name}' is a type, not a value", e.span, hint=hint)

    def ex_IntLit(self, e, scope, expected):
        if isinstance(expected, PlayerT):
            self.check_literal_range(e, expected)
            return PLAYER
        return INT

    def ex_StrLit(self, e, scope, expected):
        self.err("E201", "strings are only for citations and reasons", e.span)
        return None

    def ex_BoolLit(self, e, scope, expected):
        return BOOL

    def ex_NoneLit(self, e, scope, expected):
        return expected if isinstance(expected, OptT) else NONE

    def ex_PlayersLit(self, e, scope, expected):
        return INT

    def ex_Name(self, e, scope, expected):
        sym = scope.lookup(e.id)
        if sym is None:
            sym = self.m.values.get(e.id)
            if sym is not None and sym.kind == "enum_value":
                return self.enum_value(e, e.id, expected)
        if sym is None:
            if e.id in self.m.types or e.id in BUILTIN_TYPES:
                t = self.m.types.get(e.id) or BUILTIN_TYPES[e.id]
                self.m.refs[id(e)] = Symbol("type", e.id, t)
                return _TypeAsValue(t)
            self.err("E101", f"unknown name '{e.id}'", e.span,
                     hint=did_you_mean(e.id, list(scope.all_names()) + list(self.m.values) + list(self.m.types)))
            return None
        sym.used = True
        if sym.kind in ("var", "zone") and not scope.allow_state:
            self.err("E203", f"{scope.where} cannot depend on the state ('{e.id}' is a {sym.kind})", e.span,
                     hint="constants and parameters are fixed before the game starts")
            return None
        if sym.kind == "def":
            self.err("E202", f"'{e.id}' is a definition: call it with its arguments", e.span,
                     hint=f"{e.id}(...)")
            return None
        if sym.kind == "proc":
            self.err("E201", f"'{e.id}' is a procedure, not a value", e.span)
            return None
        self.m.refs[id(e)] = sym
        return sym.type

    def enum_value(self, e, name, expected) -> Type | None:
        enums = self.m.enum_values.get(name, [])
        if isinstance(expected, OptT):
            expected = expected.inner
        if len(enums) > 1:
            fit = [t for t in enums if isinstance(expected, EnumT) and expected.includes(t)]
            if len(fit) != 1:
                self.err("E106", f"'{name}' is a value of several enums: {', '.join(t.name for t in enums)}", e.span,
                         hint=f"write {enums[0].name}.{name}")
                return None
            enums = fit
        t = enums[0]
        self.m.refs[id(e)] = Symbol("enum_value", name, t)
        return t

    def ex_Field(self, e, scope, expected):
        if isinstance(e.base, ast.Name) and scope.lookup(e.base.id) is None and e.base.id in self.m.types \
                and e.base.id not in self.m.values:
            t = self.m.types[e.base.id]
            if isinstance(t, EnumT):
                if e.name not in t.values:
                    self.err("E101", f"'{e.name}' is not a value of {t.name}", e.span,
                             hint=did_you_mean(e.name, t.values))
                    return None
                self.m.refs[id(e)] = Symbol("enum_value", e.name, t)
                return t
        bt = self.expr(e.base, scope)
        if bt is None:
            return None
        if isinstance(bt, OptT) and isinstance(bt.inner, RecordT):
            self.err("E201", f"'{e.name}' of an optional value: it may be none", e.span,
                     hint="test `x != none` first, then use get(x).field")
            return None
        if not isinstance(bt, RecordT):
            self.err("E104", f"{bt} has no fields", e.span)
            return None
        ft = bt.field_type(e.name)
        if ft is None:
            names = [n for n, _ in bt.fields]
            self.err("E104", f"{bt.name} has no field '{e.name}'", e.span,
                     hint=did_you_mean(e.name, names) or f"its fields are {', '.join(names)}")
            return None
        return ft

    def ex_Index(self, e, scope, expected):
        bt = self.expr(e.base, scope)
        if bt is None:
            self.expr(e.index, scope)
            return None
        if isinstance(bt, MapT):
            self.expect_type(e.index, scope, bt.key)
            return bt.value
        if isinstance(bt, (BagT, PileT)):
            self.expect_type(e.index, scope, bt.elem)
            return IntT(0, None)
        if isinstance(bt, (OrderT, ListT)):
            self.expect_type(e.index, scope, INT)
            if bt.elem is None:  # `[]`: no element at any position, nor a type for one (lower and Z3 need one)
                self.err("E207", "an empty list has no element at any position", e.span,
                         hint="index a list that has elements")
            return bt.elem
        self.err("E206", f"{bt} cannot be indexed", e.span)
        self.expr(e.index, scope)
        return None

    def ex_Unary(self, e, scope, expected):
        if e.op == "not":
            self.cond(e.expr, scope)
            return BOOL
        t = self.expr(e.expr, scope, INT)
        if t is not None and not is_numeric(t):
            self.err("E201", f"'-' needs a number, not {t}", e.span)
        return INT

    def ex_Binary(self, e, scope, expected):
        op = e.op
        if op in ("and", "or", "implies"):
            self.cond(e.left, scope)
            self.cond(e.right, scope)
            return BOOL
        if op in ("in", "notin"):
            if isinstance(e.right, (ast.BagLit, ast.ListLit)):  # `x in {a, b}`: the literal holds x's type
                lt = self.expr(e.left, scope)
                want = (SetT(lt) if isinstance(e.right, ast.BagLit) else ListT(lt)) if lt is not None else None
                self._membership_literal = True  # only tested for membership: any type of value will do
                try:
                    ct = self.domain(e.right, scope, membership=True, expected=want)
                finally:
                    self._membership_literal = False
                if lt is not None and ct is not None and not assignable(lt, ct):
                    self.err("E201", f"{lt} cannot be a member of {ct}", e.span)
                return BOOL
            ct = self.domain(e.right, scope, membership=True)
            self.expect_type(e.left, scope, ct) if ct is not None else self.expr(e.left, scope)
            return BOOL
        if op in ("==", "!="):
            if isinstance(e.left, (ast.BagLit, ast.ListLit, ast.NoneLit)) and \
                    not isinstance(e.right, (ast.BagLit, ast.ListLit, ast.NoneLit)):
                rt = self.expr(e.right, scope)
                lt = self.expr(e.left, scope, rt)
                if lt is not None and rt is not None and not comparable(lt, rt):
                    self.err("E201", f"cannot compare {lt} with {rt}", e.span)
                return BOOL
            lt = self.expr(e.left, scope)
            rt = self.expr(e.right, scope, lt if lt is not None and not isinstance(lt, NoneT) else None)
            if isinstance(e.right, ast.Name) and rt is None and lt is not None:
                return BOOL
            if lt is not None and rt is not None and not comparable(lt, rt):
                self.err("E201", f"cannot compare {lt} with {rt}", e.span)
            return BOOL
        if op in ("<", "<=", ">", ">="):
            lt = self.expr(e.left, scope, INT)
            rt = self.expr(e.right, scope, INT)
            for t, side in ((lt, e.left), (rt, e.right)):
                if t is not None and not is_numeric(t):
                    self.err("E201", f"'{op}' compares numbers, not {t}", side.span)
            return BOOL
        # + - * / %
        lt = self.expr(e.left, scope, expected if isinstance(expected, (BagT, SetT)) else INT)
        rt = self.expr(e.right, scope, lt if isinstance(lt, (BagT, SetT)) else INT)
        if op in "+-" and isinstance(lt, (BagT, SetT)):
            if rt is not None and not assignable(rt, lt):
                self.err("E201", f"cannot {'add' if op == '+' else 'take'} {rt} {'to' if op == '+' else 'from'} {lt}", e.right.span)
            return lt
        for t, side in ((lt, e.left), (rt, e.right)):
            if t is not None and not is_numeric(t):
                self.err("E201", f"'{op}' needs numbers, not {t}", side.span)
        if op in "/%" and isinstance(e.right, ast.IntLit) and e.right.value == 0:
            self.err("E207", "division by zero", e.right.span)
        return INT

    def ex_IfExpr(self, e, scope, expected):
        self.cond(e.cond, scope)
        a = self.expr(e.then, scope, expected)
        b = self.expr(e.other, scope, expected if expected is not None else a)
        if a is None or b is None:
            return a or b
        j = join(a, b)
        if j is None:
            self.err("E201", f"the branches differ: {a} and {b}", e.span)
        return j

    def ex_TupleLit(self, e, scope, expected):
        ts = [self.expr(x, scope) for x in e.elems]
        return None if any(t is None for t in ts) else TupleT(tuple(ts))

    def ex_ListLit(self, e, scope, expected):
        want = expected.elem if isinstance(expected, (OrderT, PileT, ListT)) else None
        et = want
        for x in e.elems:
            t = self.expect_type(x, scope, want) if want is not None else self.expr(x, scope)
            if et is None:
                et = t
        return ListT(et)

    def ex_RangeLit(self, e, scope, expected):
        self.expect_type(e.lo, scope, INT)
        self.expect_type(e.hi, scope, INT)
        return RangeT()

    def ex_TopCall(self, e, scope, expected):
        t = self.expr(e.pile, scope)
        if t is not None and not isinstance(t, PileT):
            self.err("E210", f"top() takes a pile, not {t}", e.pile.span)
            return None
        return t.elem if t is not None else None

    def ex_BagLit(self, e, scope, expected):
        if isinstance(expected, SetT):
            want, make = expected.elem, SetT
        elif isinstance(expected, (BagT, PileT)):
            want, make = expected.elem, BagT
        else:
            want, make = None, BagT
        et = want
        for item in e.items:
            inner = Scope(scope)
            for b in item.binders:
                bt = self.domain(b.domain, inner)
                self.bind(inner, b.name, bt, b.span, b)
            if item.where is not None:
                self.cond(item.where, inner)
            if item.count is not None:
                if make is SetT:
                    self.err("E201", "a set holds each value once; `n of` is for bags", item.count.span)
                self.expect_type(item.count, inner, INT)
            t = self.expect_type(item.expr, inner, want) if want is not None else self.expr(item.expr, inner)
            # a number where a set or bag of numbers is expected ({0} for a set of 0..4) is judged
            # against the expected type at run time, as a stored number is
            if t is not None and not indexable(t) and not (make is SetT and self._membership_literal) and \
                    not (want is not None and indexable(want) and assignable(t, want)):
                self.err("E205", f"a {make.__name__[:-1].lower()} holds values of a finite type, not {t}", item.expr.span)
                return None
            if et is None:
                et = t
            elif t is not None and not same_elements(t, et):
                if assignable(t, et):
                    pass
                elif assignable(et, t):
                    et = t
                else:
                    self.err("E201", f"mixed elements: {et} and {t}", item.expr.span)
        if et is None:
            return make(None) if not e.items else None
        # (a literal meant for a zone already reported, whose type is therefore unknown, is not reported again)
        if want is None and indexable(et) and et not in self._too_many and \
                self.too_many(et, e.span, f"{_article(make(et))} keeps one entry per value of {et}"):
            return None
        return make(et)

    def ex_Quant(self, e, scope, expected):
        inner = Scope(scope)
        ets = []
        for b in e.binders:
            bt = self.domain(b.domain, inner)
            ets.append(bt)
            self.bind(inner, b.name, bt, b.span, b)
        if e.where is not None:
            self.cond(e.where, inner)
        if e.kind == "count":
            return INT
        if e.kind in ("all", "any"):
            self.cond(e.body, inner)
            return BOOL
        t = self.expr(e.body, inner, INT if e.kind in ("sum",) else None)
        if e.kind == "sum":
            if t is not None and not is_numeric(t):
                self.err("E201", f"sum adds numbers, not {t}", e.body.span)
            return INT
        if t is not None and not self.orderable(t):
            self.err("E201", f"{e.kind} compares numbers or enum values, not {t}", e.body.span)
        if e.kind in ("argmin", "argmax"):
            if len(e.binders) != 1:
                self.err("E202", f"{e.kind} takes one variable", e.span)
                return None
            return ets[0]
        return t if not isinstance(t, (PlayerT,)) else INT

    def domain(self, e, scope: Scope, membership: bool = False, expected: Type | None = None) -> Type | None:
        """The element type of something iterable: a finite type, a range, a zone, set, order or list."""
        t = self.expr(e, scope, expected, type_ok=True)
        if t is None:
            return None
        if isinstance(t, _TypeAsValue):
            if not t.type.finite:
                self.err("E205", f"cannot range over all of '{t.type}'", e.span, hint="give a range such as 0..10")
                return None
            if self.too_many(t.type, e.span, f"ranging over '{t.type}' goes through each of its values"):
                return None
            return t.type
        if isinstance(t, RangeT):
            if isinstance(e, ast.RangeLit):  # bounds fixed once the player count is: the prover goes
                # through every number (the first count with too many named)
                fixed = fixed_int(self.spec.decls, e.lo) is not None and fixed_int(self.spec.decls, e.hi) is not None
                for n in [None] if fixed else self._player_counts():
                    lo, hi = (fixed_int(self.spec.decls, b, frozenset(), n) for b in (e.lo, e.hi))
                    if lo is None or hi is None or lo > hi:
                        continue
                    with_n = "" if n is None else f" (with {n} players)"
                    if self.too_many(IntT(lo, hi), e.span,
                                     f"ranging over {lo}..{hi}{with_n} goes through each of its values"):
                        return None
            return INT
        if isinstance(t, (BagT, PileT, SetT, OrderT, ListT)):
            return t.elem
        if isinstance(t, MapT) and not membership:
            self.err("E205", f"cannot iterate over {t}; iterate over its keys instead", e.span,
                     hint=f"for k in {t.key}")
            return None
        self.err("E205", f"{t} is not something to {'look in' if membership else 'iterate over'}", e.span)
        return None

    def ex_Call(self, e, scope, expected):
        name = e.func
        if name in self.m.types:
            return self.construct(e, scope, self.m.types[name])
        sym = scope.lookup(name) or self.m.values.get(name)
        if sym is not None and sym.kind == "def":
            sym.used = True
            self.m.refs[id(e)] = sym
            self.call_args(e, [(p.name, self.m.decl_types.get(id(p))) for p in sym.decl.params], scope,
                           f"'{name}'")
            return sym.type
        if name in BUILTINS:
            return self.builtin(e, scope, expected)
        if sym is not None:
            self.err("E201", f"'{name}' is {_kind_phrase(sym.kind)}, not something to call", e.func_span or e.span)
            return None
        if isinstance(self.m.rules.get(name), ast.ActionDecl):
            self.err("E201", f"'{name}' is an action; actions are moves, not values", e.func_span or e.span,
                     hint="use it in a scenario: `do name(...)`")
            return None
        self.err("E101", f"unknown function '{name}'", e.func_span or e.span,
                 hint=did_you_mean(name, list(BUILTINS) + [n for n, s in self.m.values.items() if s.kind == "def"]
                                   + [n for n, t in self.m.types.items() if isinstance(t, RecordT)]))
        for a in e.args:
            self.expr(a.expr, scope)
        return None

    def construct(self, e, scope, t):
        if not isinstance(t, RecordT):
            self.err("E201", f"'{t}' is not a record or card type", e.func_span or e.span)
            return None
        self.m.refs[id(e)] = Symbol("type", t.name, t)
        self.call_args(e, list(t.fields), scope, f"'{t.name}'")
        for a in e.args:
            if isinstance(a.expr, ast.IntLit):
                ft = t.field_type(a.name) if a.name else None
                if ft is None:
                    i = list(e.args).index(a)
                    ft = t.fields[i][1] if i < len(t.fields) else None
                if ft is not None:
                    self.check_literal_range(a.expr, ft)
        return t

    def builtin(self, e, scope, expected) -> Type | None:
        name = e.func
        lo, hi, usage = BUILTINS[name]
        args = [a.expr for a in e.args]
        if any(a.name for a in e.args):
            self.err("E202", f"{name}() takes no named arguments", e.span, hint=usage)
        if len(args) < lo or (hi is not None and len(args) > hi):
            self.err("E202", f"{name}() takes {lo if lo == hi else f'{lo} or more'} argument{'s' if lo != 1 else ''}, "
                             f"not {len(args)}", e.span, hint=usage)
            for a in args:
                self.expr(a, scope)
            return None
        self.m.refs[id(e)] = Symbol("builtin", name, None)
        if name in ("left", "right", "clockwise"):
            self.expect_type(args[0], scope, PLAYER)
            return OrderT(PLAYER) if name == "clockwise" else PLAYER
        if name in ("seat", "distance"):
            self.expect_type(args[0], scope, PLAYER)
            self.expect_type(args[1], scope, PLAYER if name == "distance" else INT)
            return PLAYER if name == "seat" else INT
        if name in ("abs", "least", "greatest"):
            for a in args:
                self.expect_type(a, scope, INT)
            return INT
        t = self.expr(args[0], scope)
        if t is None:
            for a in args[1:]:
                self.expr(a, scope)
            return None
        if name == "size":
            if not isinstance(t, (BagT, PileT, SetT, OrderT, ListT)):
                self.err("E201", f"size() counts the cards of a zone or the members of a set, not {t}", args[0].span)
                return None
            return INT
        if name == "top":
            if not isinstance(t, PileT):
                self.err("E210", f"top() takes a pile, not {t}", args[0].span)
                return None
            return t.elem
        if name == "the":
            if not isinstance(t, (BagT, PileT, SetT)):
                self.err("E201", f"the() takes a zone or set holding one value, not {t}", args[0].span)
                return None
            return t.elem
        if name == "get":
            if not isinstance(t, OptT):
                self.err("E201", f"get() takes an optional value (T?), not {t}", args[0].span)
                return None
            return t.inner
        if name == "total":
            if not scope.allow_state:
                self.err("E203", f"{scope.where} cannot depend on the state (total() counts cards in zones)", e.span)
                return None
            if not any(isinstance(s.type, (BagT, PileT)) and assignable(t, s.type.elem)
                       or isinstance(s.type, MapT) and isinstance(s.type.value, (BagT, PileT))
                       and assignable(t, s.type.value.elem)
                       for s in self.m.values.values() if s.kind == "zone"):
                self.err("E201", f"total() counts a card across all zones; no zone holds {t}", args[0].span)
                return None
            return INT
        if name in ("rank", "first", "last"):
            if not isinstance(t, (OrderT, ListT, PileT)):
                self.err("E201", f"{name}() takes an order, not {t}", args[0].span, hint=usage)
                return None
            if name == "rank":
                self.expect_type(args[1], scope, t.elem)
                return INT
            return t.elem
        if name == "ord":
            if not isinstance(t, (EnumT, BoolT)):
                self.err("E201", f"ord() takes an enum value, not {t}", args[0].span)
                return None
            return INT
        raise AssertionError(name)  # pragma: no cover

    # ---- after everything --------------------------------------------------------------
    def check_unused(self):
        if any(d.is_error for d in self.diags):
            return  # with errors, some uses were never checked
        for name, sym in self.m.values.items():
            if sym.kind in ("var", "zone", "def", "proc", "const") and not sym.used and sym.decl is not None:
                self.context = None
                self.diags.append(warning("W402", f"{sym.kind} '{name}' is never used", sym.span))


def fixed_int(decls, e, seen: frozenset = frozenset(), players: int | None = None) -> int | None:
    """The value of a number fixed before the game (literals, arithmetic, constants of those), or None;
    with `players`, of one fixed once the player count is (`players` taken as that count)."""
    if isinstance(e, ast.IntLit):
        return e.value
    if isinstance(e, ast.PlayersLit) and players is not None:
        return players
    if isinstance(e, ast.Unary) and e.op == "-":
        v = fixed_int(decls, e.expr, seen, players)
        return None if v is None else -v
    if isinstance(e, ast.Binary) and e.op in "+-*/%":
        a, b = fixed_int(decls, e.left, seen, players), fixed_int(decls, e.right, seen, players)
        if a is None or b is None or (e.op in "/%" and b == 0):
            return None
        return {"+": a + b, "-": a - b, "*": a * b, "/": a // b if b else 0, "%": a % b if b else 0}[e.op]
    if isinstance(e, ast.Name) and e.id not in seen:
        d = next((d for d in decls if isinstance(d, ast.ConstDecl) and d.name == e.id), None)
        if d is not None:
            return fixed_int(decls, d.expr, seen | {e.id}, players)
    return None


_HUGE = 10 ** 18  # counts are exact below this


def count_values(t: Type, players: int) -> int | None:
    """How many values a finite type has (Player: `players` seats), at most _HUGE; None if not finite."""
    if isinstance(t, BoolT):
        return 2
    if isinstance(t, IntT):
        return min(t.hi - t.lo + 1, _HUGE) if t.finite else None
    if isinstance(t, EnumT):
        return len(t.values)
    if isinstance(t, PlayerT):
        return players
    if isinstance(t, RecordT):
        n = 1
        for _name, ft in t.fields:
            k = count_values(ft, players)
            if k is None:
                return None
            n = min(n * k, _HUGE)
        return n
    if isinstance(t, OptT):
        k = count_values(t.inner, players)
        return None if k is None else min(k + 1, _HUGE)
    if isinstance(t, SetT) and t.elem is not None:  # every subset
        k = count_values(t.elem, players)
        return None if k is None else min(2 ** min(k, 64), _HUGE)
    if isinstance(t, OrderT) and t.elem is not None:  # every permutation
        k = count_values(t.elem, players)
        if k is None:
            return None
        n = 1
        for i in range(2, min(k, 30) + 1):
            n *= i
        return min(n, _HUGE)
    return None


def entries(t: Type, players: int) -> int:
    """How many entries a value of type t keeps: one per key of a map, per element value of a zone,
    bag, pile, set or order (at most _HUGE)."""
    if isinstance(t, MapT):
        return min((count_values(t.key, players) or 1) * entries(t.value, players), _HUGE)
    if isinstance(t, (BagT, PileT, SetT, OrderT)) and t.elem is not None:
        return count_values(t.elem, players) or 1
    return 1


def _listed_when_drawn(t: Type) -> list[Type]:
    """The types whose values a simulation lists to draw a parameter of type t (a number is drawn
    from its range, a set or an order from its elements, a map entry by entry)."""
    if isinstance(t, MapT):
        return _listed_when_drawn(t.value)
    if isinstance(t, (IntT, SetT, OrderT)):
        return []
    return [t]


def _article(t: Type) -> str:
    return f"{'an' if str(t)[0] in 'aeiou' else 'a'} {t}"


def _amount(n: int) -> str:
    return f"{n:,}" if n < _HUGE else "more than 10^18"


def _count_hint(t: Type, players: int) -> str:
    if isinstance(t, RecordT):
        parts = ", ".join(f"{name}: {_amount(count_values(ft, players) or 0)}" for name, ft in t.fields)
        return f"{t.name} has one value per combination of its fields ({parts}): narrow their ranges"
    if isinstance(t, SetT):
        return f"a set of {t.elem} is any subset of its {_amount(count_values(t.elem, players) or 0)} values"
    if isinstance(t, OrderT):
        n = _amount(count_values(t.elem, players) or 0)
        return f"an order of {t.elem} is any arrangement of its {n} values"
    if isinstance(t, OptT):
        return _count_hint(t.inner, players)
    return "use a narrower range" if isinstance(t, IntT) else "use a type with fewer values"


def _drawable(t) -> bool:
    """Types a parameter can have: every value can be drawn (and, for proofs, enumerated)."""
    if isinstance(t, MapT):
        return indexable(t.key) and _drawable(t.value)
    if isinstance(t, OptT):
        return indexable(t.inner)
    return t.finite


def _kind_phrase(kind: str) -> str:
    return {"enum_value": "an enum value", "const": "a constant", "param": "a parameter", "var": "a var",
            "zone": "a zone", "def": "a definition", "proc": "a procedure", "local": "a local name",
            "action": "an action", "type": "a type"}.get(kind, f"a {kind}")


@dataclass(frozen=True)
class _TypeAsValue(Type):
    """A type name used where a domain is expected (`all(p in Player: ...)`)."""

    type: Type

    def __str__(self):
        return f"the type {self.type}"


def check(spec: ast.Spec) -> tuple[list[Diagnostic], Model]:
    """Run every static check; returns (diagnostics sorted by position, model)."""
    diags, model = Checker(spec).run()
    seen = set()
    diags = [d for d in diags if not ((d.code, d.span, d.message) in seen or seen.add((d.code, d.span, d.message)))]
    diags.sort(key=lambda d: (d.span.file, d.span.line, d.span.col) if d.span else ("", 0, 0))
    return diags, model

"""Lower a checked spec to the IR: ast.Spec + check.Model -> ir.Spec.

The only module that imports both `ast` and `ir`. It trusts the checker: call it only on a spec
with no errors. Procedures are expanded in place (their arguments bound once, at the call), guards
are split into conjuncts, `draw` becomes a Move of a count, and constants are ordered by use.
"""

from __future__ import annotations

import itertools

from . import ast, ir
from .check import Model, _TypeAsValue, fixed_int
from .types import (BOOL, INT, PLAYER, BagT, EnumT, IntT, ListT, MapT, OptT, OrderT, PileT, PlayerT, RecordT,
                    SetT, TupleT, Type, is_numeric)


def lower(model: Model) -> ir.Spec:
    return _Lowerer(model).run()


def _cite(c: ast.Cite | None) -> ir.Cite | None:
    return ir.Cite(c.locator, c.quote, c.span) if c is not None else None


def _clause(decl, cls):
    return next((c for c in getattr(decl, "clauses", ()) if isinstance(c, cls)), None)


class _Lowerer:
    def __init__(self, model: Model):
        self.m = model
        self.renames: list[dict[str, str]] = [{}]
        self.fresh = itertools.count(1)
        self.undecided: list[ir.Undecided] = []

    # ---- driver ------------------------------------------------------------------------
    def run(self) -> ir.Spec:
        m = self.m
        decls = m.spec.decls
        enums = {n: t for n, t in m.types.items() if isinstance(t, EnumT)}
        records = {n: t for n, t in m.types.items() if isinstance(t, RecordT)}
        consts = self.consts([d for d in decls if isinstance(d, ast.ConstDecl)])
        params = [ir.Param(d.name, m.decl_types[id(d)], self.expr(_clause(d, ast.Where).expr) if _clause(d, ast.Where) else None,
                           d.span, _cite(_clause(d, ast.Cite)), d.doc)
                  for d in decls if isinstance(d, ast.ParamDecl)]
        state = [self.state_var(d) for d in decls if isinstance(d, (ast.VarDecl, ast.ZoneDecl))]
        defs = {}
        for d in decls:
            if isinstance(d, ast.DefDecl):
                defs[d.name] = ir.Def(d.name, tuple((p.name, m.decl_types[id(p)]) for p in d.params),
                                      m.decl_types[id(d)], self.expr(d.expr), d.span, d.doc)
        init_decl = next(d for d in decls if isinstance(d, ast.InitDecl))
        init = self.block(init_decl.body)
        actions = [self.action(d) for d in decls if isinstance(d, ast.ActionDecl)]
        properties = [self.prop(d) for d in decls if isinstance(d, ast.PropertyDecl)]
        ends = [ir.End(d.name, self.expr(d.expr), _cite(_clause(d, ast.Cite)), d.span, d.doc)
                for d in decls if isinstance(d, ast.EndDecl)]
        stats = [ir.Stat(d.name, tuple((p.name, m.decl_types[id(p)]) for p in d.params), self.expr(d.expr), d.span, d.doc)
                 for d in decls if isinstance(d, ast.StatDecl)]
        scenarios = [self.scenario(d) for d in decls if isinstance(d, ast.ScenarioDecl)]
        g, e, p = m.game, m.edition, m.players
        other_cites = [(f"{type(d).__name__.replace('Decl', '').lower()} {d.name}", _cite(_clause(d, ast.Cite)))
                       for d in decls if isinstance(d, (ast.VarDecl, ast.ZoneDecl, ast.ProcDecl, ast.StatDecl))
                       and _clause(d, ast.Cite) is not None]
        return ir.Spec(
            path=m.spec.path, game=g.name, title=g.title, edition=e.name if e else None,
            edition_title=e.title if e else None, source=m.source.path if m.source else None,
            min_players=p.lo, max_players=p.hi, players_cite=_cite(p.cite), enums=enums, records=records,
            consts=consts, params=params, state=state, defs=defs, init=init,
            init_cite=_cite(_clause(init_decl, ast.Cite)), actions=actions, properties=properties, ends=ends,
            stats=stats, scenarios=scenarios, undecided=self.undecided, other_cites=other_cites,
            init_span=init_decl.span, game_span=g.span, players_span=p.span,
            source_span=m.source.span if m.source else None)

    def consts(self, decls) -> list[ir.Const]:
        """Constants in an order where each comes after those it uses."""
        by_name = {d.name: d for d in decls}
        done: list[ir.Const] = []
        seen: set[str] = set()

        def visit(d):
            if d.name in seen:
                return
            seen.add(d.name)
            for n in ast.walk(d.expr):
                if isinstance(n, ast.Name) and n.id in by_name:
                    visit(by_name[n.id])
            done.append(ir.Const(d.name, self.m.decl_types[id(d)], self.expr(d.expr), d.span, d.doc))

        for d in decls:
            visit(d)
        return done

    def state_var(self, d) -> ir.StateVar:
        t = self.m.decl_types[id(d)]
        vis = _clause(d, ast.Visible)
        if isinstance(d, ast.VarDecl):
            return ir.StateVar(d.name, t, d.span, d.doc, False, vis.mode if vis else "public")
        refill = _clause(d, ast.Refill)
        exhausted = _clause(d, ast.Exhausted)
        gap = None
        if exhausted is not None and exhausted.reason is not None:
            gap = self.new_undecided(exhausted.span, exhausted.reason, exhausted.cite)
        default_vis = "count" if d.kind == "pile" else "public"
        return ir.StateVar(d.name, t, d.span, d.doc, True, vis.mode if vis else default_vis,
                           refill.source if refill else None, bool(refill and refill.shuffled),
                           None if exhausted is None else ("skip" if exhausted.reason is None else "undecided"), gap)

    def new_undecided(self, span, reason, cite) -> ir.Undecided:
        u = ir.Undecided(span, len(self.undecided), reason, _cite(cite))
        self.undecided.append(u)
        return u

    def action(self, d: ast.ActionDecl) -> ir.Action:
        guard: list[ir.Expr] = []
        for c in d.clauses:
            if isinstance(c, ast.When):
                guard.extend(self.conjuncts(self.expr(c.expr)))
        by = _clause(d, ast.By)
        return ir.Action(d.name, tuple((p.name, self.m.decl_types[id(p)]) for p in d.params),
                         self.expr(by.expr) if by else None, tuple(guard), self.block(d.body),
                         _cite(_clause(d, ast.Cite)), d.span, d.doc)

    def conjuncts(self, e: ir.Expr) -> list[ir.Expr]:
        if isinstance(e, ir.Binary) and e.op == "and":
            return self.conjuncts(e.left) + self.conjuncts(e.right)
        return [e]

    def prop(self, d: ast.PropertyDecl) -> ir.Property:
        ev = _clause(d, ast.ExpectViolated)
        common = dict(kind=d.kind, name=d.name, cite=_cite(_clause(d, ast.Cite)), span=d.span, doc=d.doc,
                      expect_violated=ev.reason if ev else None, lemma=_clause(d, ast.Lemma) is not None)
        b = d.body
        if d.kind in ("invariant", "reachable"):
            return ir.Property(expr=self.expr(b.expr), **common)
        if d.kind == "terminates":
            return ir.Property(cond=self.expr(b.cond), ranks=tuple(self.expr(r) for r in b.ranks), **common)
        return ir.Property(trigger=self.expr(b.trigger), limit=fixed_int(self.m.spec.decls, b.limit),
                           action=b.action, **common)

    def scenario(self, d: ast.ScenarioDecl) -> ir.Scenario:
        players = self.m.players.lo
        seed = 0
        steps: list[ir.Step] = []
        for s in d.steps:
            if isinstance(s, ast.ScPlayers):
                players = s.count
            elif isinstance(s, ast.ScSeed):
                seed = s.seed
            elif isinstance(s, ast.ScParam):
                steps.append(ir.SetParam(s.span, self.place(s.target), self.expr(s.expr)))
            elif isinstance(s, ast.ScSetup):
                steps.append(ir.Setup(s.span, self.block(s.body)))
            elif isinstance(s, (ast.ScDo, ast.ScIllegal)):
                args = self.m.refs[("args", id(s.call))]
                steps.append(ir.Do(s.span, s.call.func, tuple(self.expr(a.expr) for a in args),
                                   isinstance(s, ast.ScIllegal)))
            elif isinstance(s, ast.ScExpect):
                steps.append(ir.ExpectStep(s.span, self.expr(s.expr)))
            elif isinstance(s, ast.ScGap):
                steps.append(ir.ExpectGap(s.span))
            elif isinstance(s, ast.ScEnd):
                steps.append(ir.ExpectEnd(s.span, s.name))
        return ir.Scenario(d.name, _cite(_clause(d, ast.Cite)), players, seed, tuple(steps), d.span, d.doc)

    # ---- statements --------------------------------------------------------------------
    def local(self, name: str) -> str:
        for frame in reversed(self.renames):
            if name in frame:
                return frame[name]
        return name

    def bind_local(self, name: str) -> str:
        prefix = self.renames[-1].get("")
        new = f"{prefix}{name}" if prefix else name
        self.renames[-1][name] = new
        return new

    def block(self, b: ast.Block) -> tuple[ir.Stmt, ...]:
        out: list[ir.Stmt] = []
        for s in b.stmts:
            out.extend(self.stmt(s))
        return tuple(out)

    def stmt(self, s) -> list[ir.Stmt]:
        if isinstance(s, ast.Assign):
            return [ir.Assign(s.span, self.place(s.target), s.op, self.expr(s.expr))]
        if isinstance(s, ast.Move):
            src, dst = self.zone_place(s.src), self.zone_place(s.dst)
            if s.what is None:
                return [ir.Move(s.span, "all", None, src, s.src_end, dst, s.dst_end)]
            value = self.expr(s.what)
            elem = src.type.elem
            vt = value.type
            if isinstance(vt, (BagT, PileT)):
                what = "bag"
            elif is_numeric(vt) and not (is_numeric(elem)):
                what = "count"
            else:
                what = "one"
            return [ir.Move(s.span, what, value, src, s.src_end, dst, s.dst_end)]
        if isinstance(s, ast.Draw):
            return [ir.Move(s.span, "count", self.expr(s.count), self.zone_place(s.src), "top",
                            self.zone_place(s.dst), "top")]
        if isinstance(s, ast.Shuffle):
            return [ir.Shuffle(s.span, self.zone_place(s.zone))]
        if isinstance(s, ast.If):
            other: tuple[ir.Stmt, ...] = self.scoped_block(s.other) if s.other else ()
            for cond, blk in reversed(s.branches):
                node = ir.If(s.span, self.expr(cond), self.scoped_block(blk), other)
                other = (node,)
            return list(other)
        if isinstance(s, ast.For):
            domain = self.domain(s.domain)
            self.renames.append({"": self.renames[-1].get("", "")})
            var = self.bind_local(s.var)
            where = self.expr(s.where) if s.where is not None else None
            order = self.expr(s.order) if s.order is not None else None
            body = self.block(s.body)
            self.renames.pop()
            return [ir.For(s.span, var, domain, where, order, body)]
        if isinstance(s, ast.Let):
            value = self.expr(s.expr)
            return [ir.Let(s.span, self.bind_local(s.name), value)]
        if isinstance(s, ast.Undecided):
            return [self.new_undecided(s.span, s.reason, s.cite)]
        if isinstance(s, ast.Skip):
            return []
        if isinstance(s, ast.CallStmt):
            return self.inline_proc(s.call)
        raise AssertionError(s)  # pragma: no cover

    def scoped_block(self, b: ast.Block) -> tuple[ir.Stmt, ...]:
        self.renames.append({"": self.renames[-1].get("", "")})
        out = self.block(b)
        self.renames.pop()
        return out

    def inline_proc(self, call: ast.Call) -> list[ir.Stmt]:
        proc = self.m.refs[id(call)].decl
        args = self.m.refs[("args", id(call))]
        prefix = f"{proc.name}{next(self.fresh)}__"
        lets = []
        frame = {"": prefix}
        for p, a in zip(proc.params, args):
            value = self.expr(a.expr)
            name = prefix + p.name
            lets.append(ir.Let(call.span, name, value, self.m.decl_types.get(id(p))))
            frame[p.name] = name
        self.renames.append(frame)
        body = self.block(proc.body)
        self.renames.pop()
        return lets + list(body)

    def place(self, lv: ast.LValue) -> ir.Place:
        sym = self.m.refs[id(lv)]
        t = self.m.decl_types[id(sym.decl)]
        path = []
        for sel in lv.path:
            path.append(self.expr(sel.index))
            t = t.value if isinstance(t, MapT) else t
        return ir.Place(lv.name, tuple(path), t, lv.span)

    def zone_place(self, e) -> ir.Place:
        path = []
        node = e
        while isinstance(node, ast.Index):
            path.append(self.expr(node.index))
            node = node.base
        return ir.Place(node.id, tuple(reversed(path)), self.m.type_of(e), e.span)

    # ---- expressions -------------------------------------------------------------------
    def domain(self, e) -> ir.Domain:
        t = self.m.expr_types.get(id(e))
        if isinstance(t, _TypeAsValue):
            return ir.TypeDomain(e.span, t.type)
        if isinstance(e, ast.RangeLit):
            return ir.RangeDomain(e.span, self.expr(e.lo), self.expr(e.hi))
        return ir.ExprDomain(e.span, self.expr(e))

    def expr(self, e) -> ir.Expr:
        t = self.m.expr_types.get(id(e))
        return getattr(self, "ex_" + type(e).__name__)(e, t)

    def ex_IntLit(self, e, t):
        return ir.Lit(t or INT, e.span, e.value)

    def ex_BoolLit(self, e, t):
        return ir.Lit(BOOL, e.span, e.value)

    def ex_NoneLit(self, e, t):
        return ir.Lit(t, e.span, None)

    def ex_PlayersLit(self, e, t):
        return ir.NumPlayers(INT, e.span)

    def ex_Name(self, e, t):
        sym = self.m.refs[id(e)]
        if sym.kind == "enum_value":
            return ir.Lit(sym.type, e.span, sym.type.values.index(e.id))
        if sym.kind == "local":
            return ir.Local(t, e.span, self.local(e.id))
        if sym.kind in ("var", "zone"):
            return ir.Var(t, e.span, e.id)
        if sym.kind == "param":
            return ir.ParamRef(t, e.span, e.id)
        if sym.kind == "const":
            return ir.ConstRef(t, e.span, e.id)
        raise AssertionError(sym)  # pragma: no cover

    def ex_Field(self, e, t):
        sym = self.m.refs.get(id(e))
        if sym is not None and sym.kind == "enum_value":
            return ir.Lit(sym.type, e.span, sym.type.values.index(e.name))
        return ir.Field(t, e.span, self.expr(e.base), e.name)

    def ex_Index(self, e, t):
        return ir.Index(t, e.span, self.expr(e.base), self.expr(e.index))

    def ex_Unary(self, e, t):
        return ir.Unary(t, e.span, e.op, self.expr(e.expr))

    def ex_Binary(self, e, t):
        if e.op in ("in", "notin"):
            return ir.Member(BOOL, e.span, self.expr(e.left), self.domain(e.right), e.op == "notin")
        return ir.Binary(t, e.span, e.op, self.expr(e.left), self.expr(e.right))

    def ex_IfExpr(self, e, t):
        return ir.Cond(t, e.span, self.expr(e.cond), self.expr(e.then), self.expr(e.other))

    def ex_TupleLit(self, e, t):
        return ir.TupleOf(t, e.span, tuple(self.expr(x) for x in e.elems))

    def ex_ListLit(self, e, t):
        return ir.ListOf(t, e.span, tuple(self.expr(x) for x in e.elems))

    def ex_TopCall(self, e, t):
        return ir.Builtin(t, e.span, "top", (self.expr(e.pile),))

    def ex_BagLit(self, e, t):
        items = []
        for item in e.items:
            self.renames.append({"": self.renames[-1].get("", "")})
            binders = tuple((self.bind_local(b.name), self.domain(b.domain)) for b in item.binders)
            items.append(ir.BagItem(self.expr(item.count) if item.count is not None else None, self.expr(item.expr),
                                    binders, self.expr(item.where) if item.where is not None else None))
            self.renames.pop()
        return ir.BagOf(t, e.span, tuple(items))

    def ex_Quant(self, e, t):
        self.renames.append({"": self.renames[-1].get("", "")})
        binders = [(self.bind_local(b.name), self.domain(b.domain), b) for b in e.binders]
        where = self.expr(e.where) if e.where is not None else None
        body = self.expr(e.body) if e.body is not None else None
        self.renames.pop()
        kind = e.kind
        # several binders nest: sum(a in A, b in B: x) = sum(a in A: sum(b in B: x))
        inner_kind = kind
        node = ir.Aggregate(t, e.span, inner_kind, binders[-1][0], binders[-1][1], where, body)
        outer = {"count": "sum", "sum": "sum", "all": "all", "any": "any", "min": "min", "max": "max"}.get(kind, kind)
        for name, dom, _b in reversed(binders[:-1]):
            node = ir.Aggregate(t, e.span, outer, name, dom, None, node)
        return node

    def ex_Call(self, e, t):
        sym = self.m.refs[id(e)]
        if sym.kind == "type":
            args = self.m.refs[("args", id(e))]
            return ir.Make(t, e.span, sym.type, tuple(self.expr(a.expr) for a in args))
        if sym.kind == "def":
            args = self.m.refs[("args", id(e))]
            return ir.Apply(t, e.span, e.func, tuple(self.expr(a.expr) for a in args))
        return ir.Builtin(t, e.span, e.func, tuple(self.expr(a.expr) for a in e.args))

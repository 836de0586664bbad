"""The round structure of a spec as a diagram: ir.Spec -> PhaseGraph -> SVG text.

No game knowledge: the phase variable is the enum-typed state variable that most action guards
compare with a value (`phase == bidding`); an action goes from the values its guard allows to
the values its body assigns (`phase := playing`), and stays when some path through its body
assigns nothing. The start is what `init` assigns (else the enum's first value), and a value is
final when an `end` requires it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from . import ir
from .markdown import html
from .types import EnumT


@dataclass
class PhaseGraph:
    var: str
    values: tuple[str, ...]
    start: str
    finals: dict[str, list[str]]                        # value -> the ends that require it
    edges: dict[tuple[str, str], list[str]] = field(default_factory=dict)  # (from, to) -> actions
    unconstrained: list[str] = field(default_factory=list)  # actions allowed in any phase

    def order(self) -> list[str]:
        """The values from the start, breadth first along the edges, then the rest in declared order."""
        seen = [self.start]
        i = 0
        while i < len(seen):
            for (a, b) in sorted(self.edges, key=lambda e: self.values.index(e[1])):
                if a == seen[i] and b not in seen:
                    seen.append(b)
            i += 1
        return seen + [v for v in self.values if v not in seen]


# ---- analysis ---------------------------------------------------------------------------------

def _compared(e: ir.Expr, var: str, t: EnumT) -> set[str] | None:
    """The values of `var` that the condition e allows, when e is a test of var against literals."""
    def lit(x):
        return isinstance(x, ir.Lit) and isinstance(x.value, int) and not isinstance(x.value, bool)

    if isinstance(e, ir.Binary) and e.op in ("==", "!="):
        if isinstance(e.left, ir.Var) and e.left.name == var and lit(e.right):
            v = e.right.value
        elif isinstance(e.right, ir.Var) and e.right.name == var and lit(e.left):
            v = e.left.value
        else:
            return None
        if not 0 <= v < len(t.values):
            return None
        return {t.values[v]} if e.op == "==" else set(t.values) - {t.values[v]}
    if isinstance(e, ir.Member) and isinstance(e.elem, ir.Var) and e.elem.name == var \
            and isinstance(e.coll, ir.ExprDomain) and isinstance(e.coll.expr, ir.BagOf):
        items = e.coll.expr.items
        if all(it.count is None and not it.binders and lit(it.elem) for it in items):
            vals = {t.values[it.elem.value] for it in items if 0 <= it.elem.value < len(t.values)}
            return set(t.values) - vals if e.negated else vals
    if isinstance(e, ir.Binary) and e.op == "or":
        a, b = _compared(e.left, var, t), _compared(e.right, var, t)
        return a | b if a is not None and b is not None else None
    return None


def _allowed(conds, var: str, t: EnumT) -> set[str] | None:
    allowed = None
    for c in conds:
        got = _compared(c, var, t)
        if got is not None:
            allowed = got if allowed is None else allowed & got
    return allowed


def _assigned(body, var: str, t: EnumT) -> tuple[set[str], bool]:
    """The values a block may assign to var, and whether every path through it assigns one."""
    values: set[str] = set()
    always = False
    for s in body:
        if isinstance(s, ir.Assign) and s.target.var == var and not s.target.path:
            if isinstance(s.value, ir.Lit) and isinstance(s.value.value, int):
                values = {t.values[s.value.value]} if always else values | {t.values[s.value.value]}
            else:
                values |= set(t.values)  # a computed value: any of them
            always = True
        elif isinstance(s, ir.If):
            a, a_all = _assigned(s.then, var, t)
            b, b_all = _assigned(s.other, var, t)
            values |= a | b
            always = always or (a_all and b_all)
        elif isinstance(s, ir.For):
            a, _ = _assigned(s.body, var, t)
            values |= a
    return values, always


def _last_assigned(body, var: str, t: EnumT) -> str | None:
    last = None
    for s in body:
        if isinstance(s, ir.Assign) and s.target.var == var and not s.target.path \
                and isinstance(s.value, ir.Lit) and isinstance(s.value.value, int):
            last = t.values[s.value.value]
    return last


def phase_variable(spec: ir.Spec) -> str | None:
    """The enum state variable that most action guards test against a value, or None."""
    best, best_score = None, 0
    for v in spec.state:
        if v.zone or not isinstance(v.type, EnumT):
            continue
        score = sum(_allowed(a.guard, v.name, v.type) is not None for a in spec.actions)
        if score > best_score:
            best, best_score = v.name, score
    return best


def phase_graph(spec: ir.Spec) -> PhaseGraph | None:
    var = phase_variable(spec)
    if var is None:
        return None
    t: EnumT = spec.var(var).type
    start = _last_assigned(spec.init, var, t) or t.values[0]
    finals: dict[str, list[str]] = {}
    terminal: set[str] = set()   # phases where an end holds whatever else is true: no move leaves them
    for e in spec.ends:
        conds = _conjuncts(e.cond)
        allowed = _allowed(conds, var, t)
        if allowed is not None and len(allowed) == 1:
            finals.setdefault(next(iter(allowed)), []).append(e.name)
            if all(_compared(c, var, t) is not None for c in conds):
                terminal |= allowed
    g = PhaseGraph(var, t.values, start, finals)
    for a in spec.actions:
        allowed = _allowed(a.guard, var, t)
        if allowed is None:
            g.unconstrained.append(a.name)
            allowed = set(t.values)
        allowed = allowed - terminal
        targets, always = _assigned(a.body, var, t)
        for src in sorted(allowed, key=t.values.index):
            dsts = set(targets) | (set() if always else {src})
            for dst in sorted(dsts, key=t.values.index):
                g.edges.setdefault((src, dst), []).append(a.name)
    return g


def _conjuncts(e: ir.Expr) -> list[ir.Expr]:
    if isinstance(e, ir.Binary) and e.op == "and":
        return _conjuncts(e.left) + _conjuncts(e.right)
    return [e]


# ---- drawing ----------------------------------------------------------------------------------

_CHAR = 7.6       # average width of a character at the label font size, in px
_LINE = 15        # line height of edge labels


def _text_width(s: str, size: float = 1.0) -> float:
    return len(s) * _CHAR * size


def render_svg(g: PhaseGraph, title: str = "") -> str:
    """An arc diagram: phases left to right, moves forward as arcs above, back as arcs below.

    A loop over a phase is a move that can keep the phase as it is; a double border marks a
    phase in which the game ends; the arrow from the dot marks the start.
    """
    order = g.order()
    widths = {v: max(70.0, _text_width(v, 1.1) + 28) for v in order}
    edges = sorted(g.edges.items(), key=lambda kv: (order.index(kv[0][0]), order.index(kv[0][1])))
    # room between neighbours for the labels of the arcs that join them
    gaps = []
    for i in range(len(order) - 1):
        need = 90.0
        for (a, b), names in edges:
            ia, ib = order.index(a), order.index(b)
            if {ia, ib} == {i, i + 1}:
                need = max(need, max(_text_width(n) for n in names) + 24 - (widths[order[i]] + widths[order[i + 1]]) / 4)
        gaps.append(need)
    left_margin = 60.0
    xs: dict[str, float] = {}
    x = left_margin
    for i, v in enumerate(order):
        xs[v] = x + widths[v] / 2
        x += widths[v] + (gaps[i] if i < len(gaps) else 0)
    right = x + 40
    # self-loops and forward arcs go above, backward arcs below; each arc's height grows with its span
    above, below, loops = [], [], []
    for (a, b), names in edges:
        ia, ib = order.index(a), order.index(b)
        if a == b:
            loops.append((a, names))
        elif ib > ia:
            above.append((a, b, names))
        else:
            below.append((a, b, names))
    loop_h = {a: 34 + _LINE * len(names) for a, names in loops}
    max_loop = max(loop_h.values(), default=0)
    # forward arcs pass above the loops' labels, so that their labels do not collide
    up_base = max(60, max_loop + 8 + _LINE)

    def arc_height(ia, ib, names, base):
        return base + 34 * (abs(ib - ia) - 1) + _LINE * (len(names) - 1)

    up = max([max_loop] + [arc_height(order.index(a), order.index(b), n, up_base) + _LINE * len(n) for a, b, n in above])
    down = max([0] + [arc_height(order.index(a), order.index(b), n, 60) + _LINE * len(n) for a, b, n in below])
    node_h = 40
    finals_extra = 22 if g.finals else 0
    y = up + 30                       # the nodes' middle line
    height = y + node_h / 2 + max(down, finals_extra) + 30
    parts: list[str] = []
    out = parts.append
    label = html(title or f"round structure: the values of {g.var}")
    out(f'<svg xmlns="http://www.w3.org/2000/svg" class="rulespec-diagram" role="img" aria-label="{label}" '
        f'viewBox="0 0 {right:.0f} {height:.0f}" width="{right:.0f}" height="{height:.0f}" '
        f'font-family="Roboto, Helvetica, Arial, sans-serif" font-size="13">')
    out(f'<title>{label}</title>')
    out('<defs><marker id="rs-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
        'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#455a64"/></marker></defs>')
    stroke = 'fill="none" stroke="#455a64" stroke-width="1.4" marker-end="url(#rs-arrow)"'
    # start marker
    sx = xs[order[0]] - widths[order[0]] / 2
    out(f'<circle cx="{sx - 36:.1f}" cy="{y:.1f}" r="6" fill="#455a64"/>')
    out(f'<path d="M{sx - 30:.1f},{y:.1f} L{sx - 2:.1f},{y:.1f}" {stroke}/>')
    out(f'<text x="{sx - 36:.1f}" y="{y - 12:.1f}" text-anchor="middle" font-size="11" fill="#455a64">start</text>')

    def labels(cx, top, names, anchor="middle"):
        for k, n in enumerate(names):
            out(f'<text class="rs-move" x="{cx:.1f}" y="{top + k * _LINE:.1f}" text-anchor="{anchor}" '
                f'fill="#263238">{html(n)}</text>')

    for a, b, names in above:
        ia, ib = order.index(a), order.index(b)
        x1 = xs[a] + widths[a] / 4
        x2 = xs[b] - widths[b] / 4
        h = arc_height(ia, ib, names, up_base)
        top = y - node_h / 2
        out(f'<path d="M{x1:.1f},{top:.1f} C{x1:.1f},{top - h:.1f} {x2:.1f},{top - h:.1f} {x2:.1f},{top:.1f}" {stroke}/>')
        labels((x1 + x2) / 2, top - h * 0.75 - _LINE * (len(names) - 1) - 4, names)
    for a, b, names in below:
        ia, ib = order.index(a), order.index(b)
        x1 = xs[a] - widths[a] / 4
        x2 = xs[b] + widths[b] / 4
        h = arc_height(ia, ib, names, 60)
        bottom = y + node_h / 2
        out(f'<path d="M{x1:.1f},{bottom:.1f} C{x1:.1f},{bottom + h:.1f} {x2:.1f},{bottom + h:.1f} {x2:.1f},{bottom:.1f}" '
            f'{stroke} stroke-dasharray="5,3"/>')
        labels((x1 + x2) / 2, bottom + h * 0.75 + 16, names)
    for a, names in loops:
        cx = xs[a]
        top = y - node_h / 2
        h = 30
        out(f'<path d="M{cx - 12:.1f},{top:.1f} C{cx - 34:.1f},{top - h:.1f} {cx + 34:.1f},{top - h:.1f} '
            f'{cx + 12:.1f},{top:.1f}" {stroke}/>')
        labels(cx, top - h - 6 - _LINE * (len(names) - 1), names)
    for v in order:
        cx, w = xs[v], widths[v]
        x0 = cx - w / 2
        final = v in g.finals
        used = any(v in e for e in g.edges) or v == g.start
        fill = "#e8eaf6" if used else "#f5f5f5"
        color = "#283593" if used else "#9e9e9e"
        out(f'<g class="rs-phase" data-phase="{html(v)}">')
        out(f'<rect x="{x0:.1f}" y="{y - node_h / 2:.1f}" width="{w:.1f}" height="{node_h}" rx="10" '
            f'fill="{fill}" stroke="{color}" stroke-width="1.6"/>')
        if final:
            out(f'<rect x="{x0 + 4:.1f}" y="{y - node_h / 2 + 4:.1f}" width="{w - 8:.1f}" height="{node_h - 8}" '
                f'rx="7" fill="none" stroke="{color}" stroke-width="1.2"/>')
        out(f'<text x="{cx:.1f}" y="{y + 5:.1f}" text-anchor="middle" font-size="14" font-weight="bold" '
            f'fill="{color}">{html(v)}</text>')
        if final:
            out(f'<text x="{cx:.1f}" y="{y + node_h / 2 + 16:.1f}" text-anchor="middle" font-size="11" '
                f'fill="#455a64">ends: {html(", ".join(g.finals[v]))}</text>')
        out('</g>')
    out('</svg>')
    return "".join(parts)

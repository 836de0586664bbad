"""Directed search in the interpreter for states random games do not reach.

Random games rarely reach a state that needs many unlikely moves in a row: the longest game, two
piles empty at once, a comparison where nobody holds a colour. `explore` looks for such goals the
way search-based testing does: every goal gets a distance, computed from its expression on a
concrete state (0 when it holds; a comparison `a <= b` is as far as a - b, scaled into [0, 1); a
conjunction keeps the approach level's order, a failing left part always further than any state
where it holds; a disjunction the nearer part; a count that must grow, the distances of its
nearest elements not counted, as many as are missing). A goal with a conjunction is searched twice,
the second time with its parts' distances summed, for parts that do not guard each other (where
that is costly, in its own rollouts only). The states seen are kept in a small pool per goal, the
nearest first, ties broken by the spec's own progress measures (its `terminates` rankings: a
state nearer the end of the game first) and then the cards
left where running out is undecided; and in an archive of cells (Go-Explore): how far the game has
come, the cards left. Play goes on from a pool state or a seldom chosen cell with random legal
moves, most rollouts shunning a set of actions inherited from the rollout that reached the state
(a goal may need an action left alone for long: cards kept in hand until two piles run out).
The state a rollout starts from also ranks by the nearest state the rollout reached, where from
that state on the rollout had no choice left until the game ended: a goal judged only at the end
of a game (the hands at the final count) is reached by playing the last rounds differently, not
by going on from the end. A state from which only forced moves lead to
the end is dropped once played out (its chance is kept, so every rollout from it is the same).
A state that reaches a goal is also tried one move further for the undecided points still looked
for (a point met within a loop, whose distance is judged on the state before the loop).
A search may also make some of its rollouts heavy (`greedy`, Monte Carlo tree search's heavy
playouts): each move of such a rollout is one of those whose next state is nearest the goal whose
turn it is (every legal move tried one step ahead, ties at random); the others stay random. Hands
that must tie in many colours at the final count are built card by card that way, where random
moves scatter them.

An undecided point is a goal too: reached when a move steps into it; its distance follows the way
into it (the loops, lets and branches around it) for each legal move of an action that holds it,
and where no such move is legal, the distance to enabling the action. Where an action without
choices holds it, a point still looked for after a search's pause is judged from then on by a
finer distance: the way in judged as well on the state as it is, as if the action were enabled
(the final count is enabled only at the end, but the hands it will count are built before). It
weighs every hand in every state, so it is kept for the points the first part of the search left.

A caller that can prove a start game out of a goal's reach (what its setup fixed rules the goal
out: `viable`) has the game's states left out of that goal's pool, and a start game out of
reach of every goal searched for replaced by the next seed.

Everything found is a real play: a seed, the parameters, and legal moves from an initial state,
replayed by the caller in a fresh game before it is reported. Finding nothing proves
nothing (the caller reports `bounded`, never `unreachable`).
"""

from __future__ import annotations

import bisect
import hashlib
import itertools
import marshal
import operator
import random
from dataclasses import dataclass, field, replace

from . import ir
from .backends.interpreter import Game, ParamError, Program
from .backends.runtime import Fault, Gap, copy
from .simulate import may_reach_gap

_CMP = {"==", "!=", "<", "<=", ">", ">="}
_NEGATE = {"==": "!=", "!=": "==", "<": ">=", "<=": ">", ">": "<=", ">=": "<"}


def _num(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _scale(d: float) -> float:
    return d / (d + 1.0)


def _cmp_distance(op: str, a, b) -> float:
    """How far `a op b` is from holding: 0 when it holds."""
    if not (_num(a) and _num(b)):
        same = a == b
        return 0.0 if same == (op == "==") else 1.0
    if op == "==":
        return _scale(abs(a - b))
    if op == "!=":
        return 0.0 if a != b else 1.0
    if op == "<":
        return _scale(max(0, a - b + 1))
    if op == "<=":
        return _scale(max(0, a - b))
    if op == ">":
        return _scale(max(0, b - a + 1))
    return _scale(max(0, b - a))  # >=


def _cmp_fn(op: str):
    """_cmp_distance for one operator: (a, b) -> the same float, the operator dispatched once and
    two ints (the common case) judged without a call (the directed search judges a comparison
    millions of times a run)."""
    slow = _cmp_distance
    if op == "==":
        def dist(a, b):
            if type(a) is int and type(b) is int:
                d = abs(a - b)
                return d / (d + 1.0)
            return slow(op, a, b)
    elif op in ("<", "<=", ">", ">="):
        flip, extra = op in (">", ">="), 1 if op in ("<", ">") else 0

        def dist(a, b):
            if type(a) is int and type(b) is int:
                d = (b - a if flip else a - b) + extra
                return d / (d + 1.0) if d > 0 else 0.0
            return slow(op, a, b)
    else:
        def dist(a, b):
            return slow(op, a, b)
    return dist


def free_locals(e: ir.Expr, names: set[str]) -> bool:
    """Whether the expression names any of these locals (a move's choices)."""
    from .verify import _walk

    return any(isinstance(x, ir.Local) and x.name in names for x in _walk(e))


def _compile(program: Program, e: ir.Expr, env=(), source=None, wrap: str = "{}"):
    """A function (S, P, *locals) -> the expression's value (or the Python source's, or a callable's
    that writes it: called while the function is generated); `wrap`, a format string, puts the
    value's source into a larger expression (a distance computed within the generated function,
    not by calls around it)."""
    from .backends.pycode import _py

    gen = program.gen
    params = "S, P" + "".join(", " + _py(n) for n in env)

    def body():
        code = source() if callable(source) else source or gen.ex(e)
        gen.emit(f"return {wrap.format(code)}", 1)
    return gen._compile_one(params, body, pure=True)


def _cmp_name(program: Program, op: str) -> str:
    """The name of _cmp_fn(op) in the generated code's namespace (put there at the first ask)."""
    name = "_xdist_" + {"==": "eq", "!=": "ne", "<": "lt", "<=": "le", ">": "gt", ">=": "ge"}[op]
    program.gen.g.setdefault(name, _cmp_fn(op))
    return name


_MADE: dict = {}


def _made(n: int, body: str, /, **free):
    """A function (S, P, v0, ..., v{n-1}) running `body` (Python statements, `{v}` standing for
    ", v0, ..., v{n-1}"), the names in `free` its closure's: the distances' combinators take a
    goal's locals one by one, not as *v (a call spreading *v costs 0.12 us more than one with the
    arguments written out, and judging a state makes dozens of such calls)."""
    key = (n, body, tuple(free))
    make = _MADE.get(key)
    if make is None:
        v = "".join(f", v{i}" for i in range(n))
        lines = body.format(v=v).split("\n")
        src = (f"def make({', '.join(free)}):\n    def fn(S, P{v}):\n"
               + "".join(f"        {line}\n" for line in lines) + "    return fn\n")
        ns: dict = {}
        exec(compile(src, "<explore combinator>", "exec"), ns)
        make = _MADE[key] = ns["make"]
    return make(**free)


def distance(program: Program, e: ir.Expr, negated: bool = False, env=(), summed: bool = False):
    """A function (S, P, *locals) -> float, 0 exactly when `e` (or `not e`) holds; env names the
    locals the expression may read, in the order given. `summed`: a conjunction is the sum of its
    parts' distances, not ordered by approach level."""
    return _distance(program, e, negated, env, summed)[0]


def _distance(program: Program, e: ir.Expr, negated: bool, env, summed: bool = False):
    """(function, levels): the distance lies in [0, levels], levels being the number of parts a
    conjunction chains (search-based testing's approach level): a conjunction whose left part
    fails is further than any state where the left part holds, so it counts the right part's levels
    plus the left part's distance (or, `summed`, both parts' distances added, for parts that do
    not guard each other); a disjunction is its nearer part; a comparison or any other part is in
    (0, 1] when it fails."""
    if isinstance(e, ir.Unary) and e.op == "not":
        return _distance(program, e.operand, not negated, env, summed)
    if isinstance(e, ir.Binary) and e.op in ("and", "or", "implies"):
        left_neg = negated if e.op != "implies" else not negated
        left, ll = _distance(program, e.left, left_neg, env, summed)
        right, rl = _distance(program, e.right, negated, env, summed)
        n = len(env)
        if (e.op == "and") != negated and summed:
            return _made(n, "return left(S, P{v}) + right(S, P{v})", left=left, right=right), ll + rl
        if (e.op == "and") != negated:  # not (a or b) = not a and not b; not (a -> b) = a and not b
            # the right part is evaluated only where the left one holds: a costly right part
            # costs nothing while the left part fails
            return _made(n, "d = left(S, P{v})\nreturn rl + d if d else right(S, P{v})",
                         left=left, right=right, rl=rl), ll + rl
        return _made(n, "return min(left(S, P{v}), right(S, P{v}))", left=left, right=right), max(ll, rl)
    # (a comparison, a condition: one generated function computes its distance)
    if isinstance(e, ir.Binary) and e.op in _CMP:
        op = _NEGATE[e.op] if negated else e.op
        counted = _count_distance(program, op, e.left, e.right, env)
        if counted is not None:
            return counted, 1
        if _converted(e):  # a pile against a bag or a list: compared as the interpreter compares them
            return _compile(program, e, env, wrap=f"(1.0 if ({{}}) == {negated!r} else 0.0)"), 1
        gen, cmp = program.gen, _cmp_name(program, op)
        return _compile(program, None, env, wrap=f"{cmp}({{}})",
                        source=lambda: f"({gen.ex(e.left)}), ({gen.ex(e.right)})"), 1
    if isinstance(e, ir.Lit) and isinstance(e.value, bool):
        return _made(len(env), "return d", d=0.0 if e.value != negated else 1.0), 1
    if negated:
        return _compile(program, e, env, wrap="(1.0 if ({}) else 0.0)"), 1
    return _compile(program, e, env, wrap="(0.0 if ({}) else 1.0)"), 1


def _converted(e: ir.Binary) -> bool:
    """Whether the interpreter compares this (in)equality's sides after converting one (a pile
    against a list, a bag against a pile: pycode's ex_Binary), not as the values they are."""
    from .types import BagT, ListT, PileT

    lt, rt = e.left.type, e.right.type
    return e.op in ("==", "!=") and (
        isinstance(lt, PileT) and isinstance(rt, ListT) or isinstance(rt, PileT) and isinstance(lt, ListT)
        or isinstance(lt, BagT) != isinstance(rt, BagT) and isinstance(lt, (BagT, PileT)))


def _count_parts(program: Program, e: ir.Expr, env):
    """For a count, or a sum of counts (through the definitions it calls): a function
    (S, P, *locals) -> (how many elements are counted, the distances of the others from being
    counted); None for any other expression. A count's comparison with a value that does not
    depend on the element (the largest sum of all players) is evaluated once, not per element;
    where that value is the best of the elements' own values (_best_of_each), it is taken from
    them, each computed once."""
    if isinstance(e, ir.Apply):
        d = program.spec.defs[e.name]
        inner = _count_parts(program, d.body, tuple(n for n, _t in d.params))
        if inner is None:
            return None
        args = {f"a{i}": _compile(program, a, env) for i, a in enumerate(e.args)}
        return _made(len(env), "return inner(S, P" + "".join(f", {a}(S, P{{v}})" for a in args) + ")",
                     inner=inner, **args)
    if isinstance(e, ir.Binary) and e.op == "+":
        left, right = _count_parts(program, e.left, env), _count_parts(program, e.right, env)
        if left is None or right is None:
            return None
        return _made(len(env), "(n, far), (m, far2) = left(S, P{v}), right(S, P{v})\nreturn n + m, far + far2",
                     left=left, right=right)
    if not isinstance(e, ir.Aggregate) or e.kind not in ("count", "sum") or (e.kind == "count" and e.where is None):
        return None
    inner_env = env + (e.var,)
    items = _compile(program, None, env, source=f"list({program.gen.iter_src(e.domain, with_dups=True)})")
    if e.kind == "count":
        w = e.where
        if isinstance(w, ir.Binary) and w.op in _CMP and not free_locals(w.right, {e.var}) \
                and _best_of_each(e, w.left, w.right):
            # the elements whose value is the best of all the elements' values (the players with
            # the highest sum): each value computed once, the best taken from them
            # every element's value in one generated list, not a call per element through a
            # compiled expression (de.rules' costly goal, 5 players: 41.2 -> 36.5 us)
            source = _each_source(program, e.var, e.domain, w.left)
            each = _compile(program, None, env, source=source)
            best = max if w.right.kind == "max" else min
            count = _made(len(env), "vs = each(S, P{v})\nif not vs:\n    return 0, []\nfar = []\nb = best(vs)\n"
                                    + _far_lines(w.op, "") + "return len(vs) - len(far), far",
                          each=each, best=best, away=_cmp_fn(w.op))
            # for a sum whose filter compares the same best (below): the values' source, the best of
            # them, the comparison the others' distances are from
            count.best = (w.right, source, best, w.op)
            return count
        if isinstance(w, ir.Binary) and w.op in _CMP and not free_locals(w.right, {e.var}):
            each, once, cmp = _compile(program, w.left, inner_env), _compile(program, w.right, env), _cmp_fn(w.op)
            # (element -> its distance), the element-free side evaluated once
            judged, free = "cmp(each(S, P{v}, x), b)", dict(each=each, once=once, cmp=cmp)
        else:
            judged, free = "where(S, P{v}, x)", dict(where=distance(program, w, False, inner_env))
        return _made(len(env), "xs = items(S, P{v})\n"
                               "if not xs:\n"  # nothing judged (the element-free side may fault on no element)
                               "    return 0, []\n"
                               + ("b = once(S, P{v})\n" if "once" in free else "")
                               + f"far = [d for x in xs if (d := {judged})]\n"
                               "return len(xs) - len(far), far", items=items, **free)
    body = _count_parts(program, e.body, inner_env)
    if body is None:
        return None
    fused = _best_filter(program, e.where, body, items, inner_env)
    if fused is not None:
        return fused
    free = dict(items=items, body=body)
    if e.where is not None:
        free["where"] = _compile(program, e.where, inner_env)
    return _made(len(env), "n, far = 0, []\n"
                           "for x in items(S, P{v}):\n"
                           + ("    if where(S, P{v}, x):\n" if e.where is not None else "    if True:\n")
                           + "        m, f = body(S, P{v}, x)\n"
                           "        n += m\n"
                           "        far += f\n"
                           "return n, far", **free)


def _each_source(program: Program, var: str, domain, value: ir.Expr) -> str:
    """Python source of the list of `value` for each element `var` of the domain (duplicates
    included, in the domain's order): a comprehension, or over a small type domain (the players)
    the values written out one by one, as the generated code unrolls a quantifier (PyGen.unrolled:
    no function made and called for the comprehension)."""
    from .backends.pycode import _py

    gen = program.gen
    if isinstance(domain, ir.TypeDomain):
        values = gen.dom.values(domain.type)
        if len(values) <= gen.UNROLL_MAX and all(isinstance(x, (int, bool)) for x in values):
            terms = []
            for x in values:
                gen.subst[var] = repr(x)
                try:
                    terms.append(f"({gen.ex(value)})")
                finally:
                    del gen.subst[var]
            source = "[" + ", ".join(terms) + "]"
            if len(source) <= gen.UNROLL_CHARS:
                return source
    return f"[{gen.ex(value)} for {_py(var)} in {gen.iter_src(domain, with_dups=True)}]"


def _far_lines(op: str, indent: str) -> str:
    """Python lines (for _made) appending to `far` the distances from `b` (the best of them) of the
    values `vs` that are not at it, in their order: _cmp_distance's (`away`, _cmp_fn(op)), where
    op is == and b a number without a call per value."""
    slow = ("for a in vs:\n"
            "    d = away(a, b)\n"
            "    if d:\n"
            "        far.append(d)\n")
    if op == "==":
        lines = ("if type(b) is int:\n"
                 "    for a in vs:\n"
                 "        if a != b:\n"
                 "            d = abs(a - b)\n"
                 "            far.append(d / (d + 1.0))\n"
                 "else:\n" + "".join("    " + line + "\n" for line in slow.splitlines()))
    else:
        lines = slow
    return "".join(indent + line + "\n" for line in lines.splitlines())


_PY_CMP = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt,
           ">=": operator.ge}


def _best_filter(program: Program, where, body, items, env):
    """For a sum (over `items`) of counts at the best value (_best_of_each) whose filter ends in a
    comparison of that same best (`sum(f where ... and max(p: E(p, f)) > 0: count(p where E(p, f)
    == max(q: E(q, f))))`): the sum's parts (as _count_parts gives them), the comparison taking the
    best the count computed instead of computing every value again; None for any other form. The filter's
    earlier parts are evaluated first, as before: the count runs only where they hold."""
    best = getattr(body, "best", None)
    if best is None or where is None:
        return None
    parts = []
    while isinstance(where, ir.Binary) and where.op == "and":
        parts.insert(0, where.right)
        where = where.left
    parts.insert(0, where)
    last = parts[-1]
    if not (isinstance(last, ir.Binary) and last.op in _CMP and _alike(last.left, best[0], {})):
        return None
    # one generated function per element: None where the filter's earlier parts fail, else the
    # count's values (the filter's parts evaluated in order, each only where those before hold)
    gen, (_right, source, best, op) = program.gen, best
    values = _compile(program, None, env, source=lambda: "({}) if ({}) else None".format(
        source, " and ".join(f"({gen.ex(x)})" for x in parts[:-1]) or "True"))
    whole = _compile(program, last, env)  # where the count has no element: the comparison as written
    n = len(env) - 1
    free = dict(items=items, values=values, whole=whole, best=best, away=_cmp_fn(op), cmp=_PY_CMP[last.op])
    if isinstance(last.right, ir.Lit) and type(last.right.value) is int:
        o = "o"  # (a number: not evaluated per element)
        free["o"] = last.right.value
    else:
        o = "other(S, P{v}, x)"
        free["other"] = _compile(program, last.right, env)
    return _made(n, "n, far = 0, []\n"
                    "for x in items(S, P{v}):\n"
                    "    vs = values(S, P{v}, x)\n"
                    "    if vs is None:\n"
                    "        continue\n"
                    "    if not vs:\n"
                    "        whole(S, P{v}, x)\n"  # (counts nothing either way; it may fault)
                    "        continue\n"
                    "    b = best(vs)\n"
                    f"    if not cmp(b, {o}):\n"
                    "        continue\n"
                    "    k = len(far)\n"
                    + _far_lines(op, "    ")
                    + "    n += len(vs) - (len(far) - k)\n"
                    "return n, far", **free)


def _best_of_each(count: ir.Aggregate, each: ir.Expr, other: ir.Expr) -> bool:
    """Whether a count's condition `each op other` compares each element's value with the largest
    (or smallest) of the same values: other is max (min) over the count's own domain, without a
    filter, of each's expression with its own variable for the count's (a renaming)."""
    return (isinstance(other, ir.Aggregate) and other.kind in ("max", "min") and other.where is None
            and _alike(count.domain, other.domain, {}) and _alike(each, other.body, {count.var: other.var}))


def _alike(a, b, names: dict) -> bool:
    """Whether two IR expressions are the same but for the names of their bound variables (names:
    a's bound variable -> b's). Conservative: an expression that binds a variable in another way
    than an aggregate (a bag's items) is never alike."""
    if type(a) is not type(b):
        return False
    if isinstance(a, ir.Local):
        if a.name in names:
            return names[a.name] == b.name
        # a free variable: the same one in b, which must not be one b binds there
        return a.name == b.name and b.name not in names.values()
    if isinstance(a, (ir.BagOf, ir.BagItem)):
        return False
    if isinstance(a, tuple):
        return len(a) == len(b) and all(_alike(x, y, names) for x, y in zip(a, b))
    if not hasattr(a, "__dataclass_fields__"):
        return a == b
    if isinstance(a, ir.Aggregate):
        names = {**names, a.var: b.var}
    for name in a.__dataclass_fields__:
        if name == "span" or (name == "var" and isinstance(a, ir.Aggregate)):
            continue
        if not _alike(getattr(a, name), getattr(b, name), names):
            return False
    return True


def _count_distance(program: Program, op: str, left: ir.Expr, right: ir.Expr, env):
    """A count (or a sum of counts) that must reach a number, as a distance that sees into the
    count (search-based testing's distance through a loop): the distances of the elements nearest
    to being counted, as many of them as are missing, added (each in (0, 1]; 1 for each missing
    element the count has no candidate for). Where the count must not grow, or the comparison has
    another form, None (the plain comparison's distance)."""
    if op in (">", ">="):
        parts, other, extra = _count_parts(program, left, env), right, 1 if op == ">" else 0
    elif op in ("<", "<="):
        parts, other, extra = _count_parts(program, right, env), left, 1 if op == "<" else 0
    else:
        return None
    if parts is None:
        return None
    target = _compile(program, other, env)
    return _made(len(env), "n, far = parts(S, P{v})\nneed = target(S, P{v}) + extra - n\nif need <= 0:\n"
                           "    return 0.0\nfar.sort()\nreturn _scale(sum(far[:need]) + max(0, need - len(far)))",
                 parts=parts, target=target, extra=extra, _scale=_scale)


def _paths_to(stmts, ids, frames=()):
    """The ways into an undecided point with one of these ids: the loops, lets and branches on the
    way, outermost first (the statements that change the state on the way are not followed)."""
    for st in stmts:
        if isinstance(st, ir.Undecided) and st.id in ids:
            yield frames
        elif isinstance(st, ir.If):
            yield from _paths_to(st.then, ids, frames + (("if", st.cond, False),))
            yield from _paths_to(st.other, ids, frames + (("if", st.cond, True),))
        elif isinstance(st, ir.For):
            yield from _paths_to(st.body, ids, frames + (("for", st),))
        elif isinstance(st, ir.Let):
            frames = frames + (("let", st),)


def _path_distance(program: Program, frames, env: tuple, i: int = 0):
    """((S, P, *values of env) -> how far a move is from taking this way, on the state before it;
    levels): a branch or loop filter that fails counts its distance plus the levels of the
    conditions after it (the approach level); a loop takes its nearest element, an empty loop
    counts 1 plus the levels after it; a let is evaluated on the way. A heuristic: a move's
    earlier statements may change what the later conditions read."""
    n = len(env)
    if i == len(frames):
        return _made(n, "return 0.0"), 0
    kind, x = frames[i][0], frames[i][1]
    if kind == "if":
        cond, cl = _distance(program, x, frames[i][2], env)
        rest, rl = _path_distance(program, frames, env, i + 1)
        return _made(n, "d = cond(S, P{v})\nreturn rl + d if d else rest(S, P{v})", cond=cond, rest=rest, rl=rl), cl + rl
    if kind == "let":
        value = _compile(program, x.value, env)
        rest, rl = _path_distance(program, frames, env + (x.name,), i + 1)
        return _made(n, "return rest(S, P{v}, value(S, P{v}))", rest=rest, value=value), rl
    inner = env + (x.var,)
    items = _compile(program, None, env, source=f"list({program.gen.iter_src(x.domain, with_dups=True)})")
    where, wl = _distance(program, x.where, False, inner) if x.where is not None else (None, 1)
    rest, rl = _path_distance(program, frames, inner, i + 1)
    if where is None:  # (every element takes the way on)
        judged, free = "d = rest(S, P{v}, item)", {}
    else:
        judged, free = "dw = where(S, P{v}, item)\n    d = rl + dw if dw else rest(S, P{v}, item)", {"where": where}
    loop = _made(n, "best = rl + wl\n"
                    "for item in items(S, P{v}):\n"
                    f"    {judged}\n"
                    "    if d < best:\n"
                    "        best = d\n"
                    "        if d == 0:\n"
                    "            break\n"
                    "return best", items=items, rest=rest, rl=rl, wl=wl, **free)
    return loop, wl + rl


@dataclass
class Goal:
    """A state to reach (dist is 0 there) or an undecided point to step into (gaps: its ids; dist
    is 0 where a legal move seems to take the way into it, that move kept in `hint`)."""

    key: str
    dist: object                       # (S, P) -> float
    gaps: frozenset = frozenset()      # for an undecided point: the ids of its inlined copies
    hint: list = field(default_factory=lambda: [None])
    summed: object = None              # a second distance, conjunctions summed: searched as a twin
    finer: object = None               # an undecided point's distance after a pause (gap_goal)
    alias: str | None = None           # a twin's: the goal it reaches
    costly: bool = False               # judged only in the rollouts started for it (see state_goal)


TWIN_NESTING = 2  # a summed twin of a goal whose loops nest deeper is costly (Goal.costly)


def nesting(spec: ir.Spec, e, _memo=None) -> int:
    """How deep an expression's aggregates nest, through the definitions it calls: a cost measure
    (a sum over colours of a count over players of a sum over a hand nests 3 deep)."""
    memo = {} if _memo is None else _memo
    if isinstance(e, ir.Apply):
        if e.name not in memo:
            memo[e.name] = 0
            memo[e.name] = nesting(spec, spec.defs[e.name].body, memo)
        inner = memo[e.name]
    else:
        inner = 0
    own = 1 if isinstance(e, (ir.Aggregate, ir.BagOf)) else 0
    for name in getattr(e, "__dataclass_fields__", {}):
        if name in ("type", "span"):
            continue
        v = getattr(e, name)
        for y in (v if isinstance(v, tuple) else (v,)):
            for z in (y if isinstance(y, tuple) else (y,)):
                if isinstance(z, (ir.Expr, ir.Domain, ir.BagItem)):
                    inner = max(inner, nesting(spec, z, memo))
    return own + inner


def state_goal(program: Program, key: str, expr: ir.Expr, negated: bool = False) -> Goal:
    """A state goal; where its expression has a conjunction, also its distance with the parts
    summed: the approach level's order misleads when the parts do not guard each other (two
    piles empty: one empty and the other full is further than both half full). For a costly
    expression (nesting deeper than TWIN_NESTING) the twin is judged only in its own rollouts: the
    summed distance evaluates every part in every state, where the ordered one evaluates a
    guarded part only where its guard holds (a count over players of a sum over a hand, per
    colour, judged in every state of every rollout made the search ten times slower); yet only
    it sees the hands while the game goes on, where the ordered one sees them at the end."""
    dist, levels = _distance(program, expr, negated, ())
    summed = None
    costly = nesting(program.spec, expr) > TWIN_NESTING
    if levels > 1:  # more than one level: a conjunction
        summed = distance(program, expr, negated, summed=True)
        if costly:
            names = ir.reads(program.spec, expr)
            summed = remembered(summed, [i for i, v in enumerate(program.spec.state) if v.name in names])
    return Goal(key, dist, summed=summed, costly=costly)


# the distances a costly goal's twin keeps (see remembered). de.rules' 3-player search asks its
# twin 203,152 times: 142,052 computed with 4,096 kept, 127,031 with 16,384 (a key of 0.9 to 1.5 kB
# with 3 to 5 players: about 27 MB), 115,870 with 65,536
REMEMBERED = 16384


def remembered(fn, slots: list):
    """fn, a distance (S, P) -> float that reads only the state variables at `slots` and the
    parameters, remembering its last answers (at most REMEMBERED, at least three quarters of
    that once it is full) by their exact values (marshal's bytes,
    format 2: no back-references, so equal bytes are equal values of the same types). A costly
    twin is asked again for the same hands: a heavy move weighs every legal move, and moves that
    leave the hands as they were, or a state a rollout starts from again, give the same values
    (de.rules, 5 players: 329,391 of the costly goal's distances in its own search, 164,964
    distinct; 130,062 found among the last 1,024). An answer that raised (Fault, Gap) is not kept;
    a state marshal cannot write is judged every time. The parameters are told apart by the list
    that holds them (a game's, set at its start and not changed while it is played), kept alive
    here so that its id stays its own: writing them in every key took a fifth of the time."""
    memo: dict = {}
    games: dict = {}  # id(P) -> P

    def dist(S, P):
        nonlocal memo
        try:
            key = (id(P), marshal.dumps([S[i] for i in slots], 2))
        except ValueError:
            return fn(S, P)
        games.setdefault(key[0], P)
        d = memo.get(key)
        if d is None:
            d = memo[key] = fn(S, P)
            if len(memo) > REMEMBERED:
                # the oldest quarter goes at once, into a new dict: deleting the oldest entry one
                # at a time made each deletion look past the entries deleted before it (a dict
                # keeps their places until it grows), a fifth of the remembering's own time
                memo = dict(itertools.islice(memo.items(), max(1, REMEMBERED // 4), None))
        return d
    return dist


def own_search(goal: Goal) -> list[Goal]:
    """The goals of a search for this goal alone: a costly twin searched alone, judged in every
    state with every rollout its own (it is 0 exactly where the goal holds, as the ordered
    distance is); otherwise the goal, with its twin if it has one."""
    if goal.costly and goal.summed is not None:
        return [Goal(goal.key, goal.summed)]
    return [goal]


OWN_GREEDY = 0.25  # the share of heavy rollouts in a search of a costly goal's own (see own_greedy)
MOVES_WEIGHED = 64  # at most this many legal moves looked at: of an action, for an undecided point's distance; in a heavy move


def own_greedy(goal: Goal) -> float:
    """The share of heavy rollouts (see `explore`) in a search of this goal's own: OWN_GREEDY
    for a costly goal, searched by its summed twin, which judges the hands in every state so that
    one step ahead tells the moves apart (ties in 7 of 8 scores: 10 of 10 seeds in 1,000 moves,
    none without); none for the others, whose distance mostly ties the moves one step ahead (a
    guard that fails) or is judged at the end (the sums of tests/test_explore.py: as many seeds
    reached it either way, at twice the time)."""
    return OWN_GREEDY if goal.costly and goal.summed is not None else 0.0


OWN_RESTARTS = 4  # a search of a goal's own of random rollouts: this many runs, each from its own start games


def search_own(program: Program, goal: Goal, seed: str, budget: int, riders: list[Goal] = (),
               viable=None) -> Exploration:
    """A search for this goal alone (own_search), of `budget` moves in all. A costly goal's (a
    share of its rollouts heavy, own_greedy) is one run from `seed`/0: it gains slowly, and its
    finds came late (34,000 to 99,000 moves of 100,000). Any other goal's is OWN_RESTARTS runs of
    an equal share, from `seed`/0, `seed`/1, ... and so from start games of their own, until the
    goal is found (the restarts of heavy-tailed search). A start game's hidden setup can put a goal
    out of reach of every state that follows it (a card shuffled deep caps how far the game can
    go: tests/test_explore.py's dealt tile), and a run whose nearest states are all of such games
    stays there: measured on a shipped spec, such runs' finds came early or not at all (5 of 16
    seeds, all within 25,000 moves of 100,000; the nearest state of a run that missed was as far
    as its start game allowed; README, restarts).

    Where the caller's proof (`viable`) rules the goal out in some start game of the first run, the
    search is one run too: such games are then left by the proof, which is what the restarts were
    for, and a goal that needs long play gains from the one long run (measured on a shipped spec:
    25 of 29 seeds of three such goals in one run, against 17 of 24 with restarts; README, start
    games out of reach)."""
    greedy = own_greedy(goal)
    runs = 1 if greedy or _sorted_by_proof(program, goal, f"{seed}/0", viable) else OWN_RESTARTS
    out = Exploration()
    for r in range(runs):
        more = explore(program, own_search(goal), f"{seed}/{r}", budget // runs, riders=riders, greedy=greedy,
                       viable=viable)
        out.add(more)
        for key, f in more.found.items():
            out.found.setdefault(key, f)
        if goal.key in out.found:
            break
        riders = [g for g in riders if g.key not in out.found]
    return out


def _sorted_by_proof(program: Program, goal: Goal, seed: str, viable, starts: int | None = None) -> bool:
    """Whether `viable` rules the goal out in one of the first `starts` start games of a run from
    `seed` (explore's first seeds)."""
    if viable is None:
        return False
    for i in range(STARTS if starts is None else starts):
        try:
            g = program.start(f"{seed}/{i}", judged=())
        except (Fault, Gap, ParamError):
            continue
        if not viable(goal.key, g.S, g.P):
            return True
    return False


def gap_goal(program: Program, key: str, ids) -> Goal:
    """Distance: where an action holding the point has legal moves, the nearest of them to taking
    the way into it (_path_distance); further than that, the distance to enabling such an action
    (its guard's conjuncts that do not name the move's choices), or for a pile that runs out, the
    cards left in it and its refill pile. Where an action without choices holds the point, `finer`
    adds to the distance to enabling it its way in judged on the state as it is: a final count
    that needs a colour in nobody's hand is nearer where the hands hold less of a colour while the
    game goes on, not only at the count (explore takes it up at a pause)."""
    ids = frozenset(ids)
    spec = program.spec
    ways = []   # (action index, choice-free guard distances, path distances)
    top = 1     # further than any way in
    for i, a in enumerate(spec.actions):
        choices = tuple(n for n, _t in a.params)
        paths = [_path_distance(program, f, choices) for f in _paths_to(a.body, ids)]
        if paths:
            guard = [distance(program, c) for c in a.guard if not free_locals(c, set(choices))]
            top = max([top] + [levels + 1 for _fn, levels in paths])
            ways.append((i, guard, [fn for fn, _levels in paths]))
    piles = [i for i, v in enumerate(spec.state) if v.exhausted_gap is not None and v.exhausted_gap.id in ids]
    supply = _supply(program, piles) if piles else None
    hint = [None]
    choices = {i: bool(spec.actions[i].params) for i, _g, _p in ways}

    def dist(S, P, finer: bool = False):
        best, hint[0] = top + 1.0, None
        if supply is not None:
            best = top + _scale(supply(S))
        for i, guard, paths in ways:
            moves: list = []
            program.enumerators[i](S, P, moves)
            if not moves:
                far = sum(d(S, P) for d in guard)
                if finer and not choices[i]:
                    # an action without choices: its way in judged on this state as well, as if it
                    # were enabled, so that the states where it will be nearer come first (the hands
                    # before the final count, not only at it)
                    near = [d for d in (_judged(path, S, P) for path in paths) if d is not None]
                    far += min(near, default=0.0)
                best = min(best, top + _scale(far))
                continue
            for move in moves[:MOVES_WEIGHED]:
                for path in paths:
                    try:
                        d = path(S, P, *move[1])
                    except (Fault, Gap):
                        continue
                    if d < best:
                        best, hint[0] = d, move
        return best
    finer = (lambda S, P: dist(S, P, finer=True)) if not all(choices.values()) else None
    return Goal(key, dist, ids, hint, finer=finer)


def _judged(path, S, P) -> float | None:
    """The distance of a way in for the move of an action without choices, on this state; None
    where judging it meets a fault or an undecided point."""
    try:
        return path(S, P)
    except (Fault, Gap):
        return None


@dataclass
class _Node:
    game: int                 # index of the Game it belongs to (its seed and parameters)
    state: list
    chance: tuple
    moves: list
    dist: float = 0.0
    key: tuple = ()
    chosen: int = 0
    dead: bool = False        # no move could be played from it
    shuns: frozenset = frozenset()  # the actions shunned by the rollout that reached it
    meta: tuple = ()          # how far the game has come, the cards left, its progress: (level, -left, prog)


_RANK = operator.attrgetter("key")  # a kept state's rank in a pool


@dataclass
class Found:
    seed: str
    params: list
    moves: list


def _same_move(x, y) -> bool:
    """x == y, and of the same types throughout (True and 1.0 are equal to 1 in Python, but no
    player or number of a game: a kept play read back from a file may hold them)."""
    if type(x) is not type(y):
        return False
    if isinstance(x, tuple):
        return len(x) == len(y) and all(map(_same_move, x, y))
    if isinstance(x, frozenset):
        return x == y and sorted(map(repr, x)) == sorted(map(repr, y))
    return x == y


def play_legal(game: Game, moves: list) -> bool:
    """Play the moves (no property evaluated) as a game plays them: False at the first that is
    not among the legal moves listed before it, or once the game has ended; Fault and Gap
    propagate (listing the legal moves, as a game does, may run into one too). (Listed, not only
    allowed by the guard: a kept play read back from a file may hold any value.)"""
    for move in moves:
        if game.ended() is not None:
            return False
        if not any(_same_move(move, m) for m in game.legal_moves()):
            return False
        game.step(move, check=False)
    return True


def replays(program: Program, f: Found, p: ir.Property, gap=None) -> bool:
    """Whether a find replays in `program` (a fresh game: not one searched) and does
    what it claims there: a reachability goal holds at the end, an invariant is false, or (gap:
    the undecided point) the last move steps into the point."""
    game = None
    try:
        game = program.start(f.seed, f.params, judged=())  # (no ranking or bound: their triggers are not goals)
        if not play_legal(game, f.moves):
            return False
    except Gap as exc:  # (a search plays no game whose setup meets one)
        return gap is not None and game is not None and program.spec.undecided[exc.id].span == gap.span \
            and game.moves == f.moves[:-1]
    except Fault:
        return False
    fn = dict(program.reachables + program.invariants).get(p) if gap is None else None
    try:
        return fn is not None and bool(fn(game.S, game.P)) == (p.kind == "reachable")
    except (Fault, Gap):  # neither true nor false there (as a game takes it)
        return False


@dataclass
class Exploration:
    found: dict[str, Found] = field(default_factory=dict)
    moves: int = 0            # moves played in all
    restores: int = 0         # times play went on from a pool state
    # per action (index): the first move of it the search played or tried, its Found's last move
    # (the moves before it lead to a state where it is legal: a witness of the action enabled)
    played: dict[int, Found] = field(default_factory=dict)
    kept: set = field(default_factory=set)  # goal keys found as plays an earlier run kept (Verifier.kept_plays)
    searched: bool = False  # whether a search ran (not only kept plays replayed)

    def add(self, more: "Exploration") -> None:
        """Count another search's moves and what it played in; its finds are the caller's to take."""
        self.moves += more.moves
        self.restores += more.restores
        for a, f in more.played.items():
            self.played.setdefault(a, f)


def _supply(program: Program, only=None):
    """(S) -> cards left in the zones whose exhaustion is undecided (or these, by index), with
    their refill zones."""
    from .types import BagT, PileT

    spec = program.spec
    idx = {v.name: i for i, v in enumerate(spec.state)}
    parts = []
    for i, v in enumerate(spec.state):
        if (v.exhausted == "undecided") if only is None else i in only:
            for name in [v.name] + ([v.refill] if v.refill else []):
                t = spec.var(name).type
                if isinstance(t, (PileT, BagT)):
                    parts.append((idx[name], isinstance(t, BagT)))
    return lambda S: sum(sum(S[i]) if bag else len(S[i]) for i, bag in parts)


def frontier(cells: dict) -> list:
    """The keys of the cells no other cell beats in both how far the game has come (a smaller
    ranking) and the cards left where running out is undecided (more). It depends on the keys
    alone: the search computes it again only when a cell is added."""
    out, best = [], None
    for level, left in sorted(cells, key=lambda k: (k[0], -k[1])):
        if best is None or left > best:
            out.append((level, left))
            best = left
    return out


def _digest(gi: int, S: list) -> bytes:
    """A digest of a game's index and a state, the same in every process (hash() of a str is
    not, and the search must not differ between runs): of marshal's bytes (format 2, no
    back-references: equal values of the same types give equal bytes), five times faster than of
    the state's repr; of the repr where marshal cannot write the state."""
    try:
        data = marshal.dumps((gi, S), 2)
    except ValueError:
        data = f"{gi}{S!r}".encode()
    return hashlib.blake2b(data, digest_size=8).digest()


def _over(g: Game) -> bool:
    """Whether no move follows in g's state: the game has ended, or its end conditions run into a
    run-time error or an undecided point (a game stops there)."""
    try:
        return g.ended() is not None
    except (Fault, Gap):
        return True


def _moves(g: Game) -> list:
    """g's legal moves; none where listing them runs into a run-time error or an undecided point
    (a guard's: a game stops there)."""
    try:
        return g.legal_moves()
    except (Fault, Gap):
        return []


def _holds(w, g: Game) -> bool:
    try:
        return bool(w(g.S, g.P))
    except (Fault, Gap):
        return False


STARTS = 8        # the start games of a search
STALLED = 100     # a search stops after this many rounds in a row in which no rollout played a move
STARTS_DRAWN = 8  # a search draws at most this many start games per one it keeps (see `viable`)


def explore(program: Program, goals: list[Goal], seed: str, budget: int, pool: int = 24,
            rollout: int = 40, starts: int = STARTS, riders: list[Goal] = (), greedy: float = 0.0,
            viable=None, pause=None) -> Exploration:
    """Look for each goal within `budget` moves in all; see the module's docstring. `riders`:
    goals judged in every state and found where reached, with no rollouts of their own (an
    undecided point next to a goal searched for). `greedy`: the share of rollouts that are heavy,
    each move among the nearest one step ahead (the moves tried ahead are not counted in the
    budget: a heavy move costs a step per legal move weighed). `viable(key, S, P)`: False when no
    state of a game that began in S (with parameters P) can reach that goal (what the game fixed at
    its setup rules it out: the caller's proof); such a game's states are not judged for the goal,
    and a start game viable for none of the goals searched for is left for the next seed (at most
    STARTS_DRAWN * starts drawn; the first `starts` seeds when every game is viable).

    `pause`: (moves, callback). Once the search has played that many moves, callback(keys) is
    called with the goals still looked for (riders included); it returns ({key: Found} of the ones
    it found by other means (the caller's searches of their own), the keys it proves out of reach).
    The pause comes sooner once every goal still looked for (riders aside) is one the part after it
    serves as well: a costly goal (its own search is heavy), an undecided point (a rider of those
    searches, and looked for by the shared search again after them), a goal no kept start game may
    reach; what is left after the pause has the rest of the budget.
    The search then goes on, up to the budget, for what is left; a goal proved out of reach, or
    one that no kept start game may reach, rides along from then on: judged in every state (a find
    would show the proof wrong), it has no turns of its own and does not keep the search going.
    An undecided point still looked for with a `finer` distance is judged by it from then on (its
    pool begun anew; the cells' totals changed by the difference on their states)."""
    rng = random.Random(f"{seed}/explore")
    out = Exploration()
    goals = list(goals) + [Goal(g.key + "/summed", g.summed, alias=g.key, costly=g.costly)
                           for g in goals if g.summed is not None]
    todo = {g.key: g for g in list(goals) + list(riders)}
    riding = {g.key for g in riders}

    def searching() -> bool:
        """Whether a goal with rollouts of its own is still looked for (riders alone are not)."""
        return not todo.keys() <= riding

    def paused_now() -> bool:
        """Whether the pause is due: its moves played, or only goals left that it serves as well."""
        if out.moves >= pause[0]:
            return True
        return all(g.costly or g.gaps or all(k in r for r in ruled_out) for k, g in todo.items() if k not in riding)
    rankings = [(w, r) for _p, w, r in program.rankings]
    supply = _supply(program)
    gappy = [may_reach_gap(program.spec, a) for a in program.spec.actions]
    games: list[Game] = []
    pools: dict[str, list[_Node]] = {k: [] for k in todo}
    cells: dict[tuple, _Node] = {}
    front: list = [0, []]  # the frontier's keys (frontier), and how many cells there were then
    seen: set = set()
    shunned: set[int] = set()
    reached: dict[str, tuple] = {}  # the rollout in progress: how near it came to each goal, after how many moves
    last_choice = [-1]              # the rollout in progress: the moves before its last move that had another beside it (-1: none)
    turn_of = [None]                # the goal whose turn it is (a costly goal is judged only then); None: every goal
    heavy = [False]                 # the rollout in progress chooses its moves one step ahead (greedy)
    ahead: list = [None, None]      # (goal, distance) nearest() judged the move just played at, for consider

    version = [0]                   # bumped whenever todo changes (record, finer)
    listed: list = [-1, []]         # todo's goals as consider reads them, and the version they are of

    def ranking(i: int, S, P) -> tuple:
        """Ranking i's value in this state; () where its condition is false or it cannot be evaluated."""
        w, r = rankings[i]
        try:
            return tuple(r(S, P)) if w(S, P) else ()
        except (Fault, Gap):
            return ()

    def progress_of(S, P, whole_prog: tuple) -> tuple:
        """Every ranking's value in this state (whole_prog: those of `whole`, in its order)."""
        known = dict(zip(whole, whole_prog))
        return tuple([known[i] if i in known else ranking(i, S, P) for i in range(len(rankings))])

    def found(key: str, g: Game, moves: list):
        record(todo[key].alias or key, Found(g.seed, list(g.params), list(moves)))

    def record(key: str, f: Found):
        """The goal (and its twin) is found: no longer looked for."""
        out.found.setdefault(key, f)
        for k in [k for k, goal in todo.items() if k == key or goal.alias == key]:
            del todo[k]
            pools.pop(k, None)
        version[0] += 1

    def consider(gi: int, g: Game):
        """Check the goals in this state; keep it in the pools it is among the nearest of, and in
        its cell (how far the game has come by the whole-game rankings' first two components, the
        cards left where running out is undecided) when the cell is new or this state is nearer
        the goals."""
        S, P = g.S, g.P
        dists = {}
        now = version[0]
        if listed[0] != now:
            listed[:] = now, [(k, goal.dist, goal.costly, bool(goal.gaps), goal.hint) for k, goal in todo.items()]
        turn, near = turn_of[0], ahead[0]
        changed = False  # whether a goal was found on the way (todo changed)
        for key, dist, costly, gaps, hint in listed[1]:
            if changed and key not in todo:  # reached with its twin
                continue
            if costly and turn is not None and turn != key:
                continue
            if key == near:
                d = ahead[1]  # judged one step ahead: the same state (a move replays with its chance)
            else:
                try:
                    d = dist(S, P)
                except (Fault, Gap):
                    continue
            if d != 0:
                dists[key] = d
            elif not gaps:
                found(key, g, g.moves)
                gaps_beside(g)
                changed = version[0] != now
            elif hint[0] is not None:
                # (a game that has ended has no move: the way is judged as if it had, see gap_goal)
                if _over(g) or not try_gap(g, hint[0], key):
                    dists[key] = 0.5  # the way looked open but the move did not step into it
                changed = version[0] != now
            else:
                dists[key] = d
        # a goal out of this game's reach is still judged (were it met, the proof would be wrong, and
        # the find shows it), but the game's states do not fill its pool
        out_of_reach = ruled_out[gi]
        if out_of_reach or changed:
            dists = {k: d for k, d in dists.items() if k in todo and k not in out_of_reach}
        if not dists:
            return
        played = len(g.moves)
        for key, d in dists.items():
            r = reached.get(key)
            if r is None or d < r[0]:
                reached[key] = (d, played)
        # a state ranks in a pool by (distance, 0, level, -left, progress); the progress of the
        # rankings not of the whole game is computed only where it decides or the state is kept
        whole_prog, left, prog = tuple([ranking(i, S, P) for i in whole]), supply(S), None
        level = tuple([r[:1] for r in whole_prog])
        cell = (tuple([r[:2] for r in whole_prog]), left // 4)
        total = sum(dists.values())
        old = cells.get(cell)
        # nearest the goal (a state from which a rollout came as near after the state reached, see
        # inherit); then furthest in the game; then the most cards left to draw
        into = []
        after = (0, level, -left)
        for key, d in dists.items():
            bucket = pools[key]
            if len(bucket) < pool:
                into.append(key)
                continue
            last = bucket[-1].key  # the rank to beat, compared part by part as tuples compare
            if d != last[0]:
                if d < last[0]:
                    into.append(key)
            elif after != last[1:4]:
                if after < last[1:4]:
                    into.append(key)
            else:
                if prog is None:
                    prog = progress_of(S, P, whole_prog)
                if prog < last[4]:
                    into.append(key)
        if not into and old is not None and total >= old.dist:
            return
        sig = _digest(gi, S)
        if sig in seen:
            return
        seen.add(sig)
        if prog is None:
            prog = progress_of(S, P, whole_prog)
        meta = (level, -left, prog)
        node = _Node(gi, g.snapshot(), g.chance.getstate(), list(g.moves), total, shuns=frozenset(shunned), meta=meta)
        if old is None or total < old.dist:
            if old is not None:
                node.chosen = old.chosen
            cells[cell] = node
        for key in into:
            # (a pool is kept sorted: the new state goes after those of an equal rank, as a stable
            # sort of the pool with it appended puts it)
            bucket, d = pools[key], dists[key]
            bisect.insort_right(bucket, _Node(gi, node.state, node.chance, node.moves, d, (d,) + after + (prog,),
                                              shuns=node.shuns, meta=meta), key=_RANK)
            del bucket[pool:]

    def attempt(g: Game, move, keep: bool, after=None):
        """Play the move; the Gap or Fault it raised, or None. The game is as it was before the
        move when it raised, or always when keep is False; `after()` is called in the state the
        move led to, when it did not raise, before the move is undone."""
        if move[0] not in out.played:
            out.played[move[0]] = Found(g.seed, list(g.params), g.moves + [move])
        saved = g.save(move)
        try:
            g.step(move, check=False)
        except (Gap, Fault) as exc:
            # without its traceback: kept with it, the exception, its frame and every frame the
            # frame came from (with their Z3 terms) would be freed only by the garbage collector
            raised = exc.with_traceback(None)
        else:
            if keep:
                return None
            if after is not None:
                after()
            raised = None
        g.restore(saved)
        return raised

    def gaps_beside(g: Game):
        """A state a goal asked for may be one move from an undecided point that a distance does
        not foresee (a pile that runs out within a loop, its way judged on the state before the
        loop): try each legal move for the points still looked for (none once the game has ended)."""
        if not any(goal.gaps for goal in todo.values()) or _over(g):
            return
        for move in _moves(g)[:MOVES_WEIGHED]:
            exc = attempt(g, move, keep=False)
            if isinstance(exc, Gap):
                gap_found(exc, g, move)

    def gap_found(exc: Gap, g: Game, move):
        """The move steps into an undecided point: every goal still looked for that holds it is found."""
        for key, goal in list(todo.items()):
            if key in todo and exc.id in goal.gaps:
                found(key, g, g.moves + [move])

    def try_gap(g: Game, move, key: str) -> bool:
        """Whether this move steps into the undecided point of goal `key` (found then); the game
        is left as it was either way."""
        exc = attempt(g, move, keep=False)
        if isinstance(exc, Gap) and exc.id in todo[key].gaps:
            found(key, g, g.moves + [move])
            return True
        return False

    def step(g: Game, moves: list) -> bool:
        """Play one random legal move, stepping around undecided points (which may be goals);
        False when no move can be played. A move of an action the rollout shuns is played only
        when no other is legal."""
        if shunned:
            played = step_among(g, [m for m in moves if m[0] not in shunned])
            if played is not None:
                return played
            moves = [m for m in moves if m[0] in shunned]
        return bool(step_among(g, moves))

    def nearest(g: Game, moves: list) -> tuple[list, float | None]:
        """(the moves, their distance): the moves (at most MOVES_WEIGHED of them, drawn at random)
        whose next state is nearest the goal whose turn it is; a move that steps into an undecided
        point is not among them (it is found there when a goal holds the point), nor one that
        breaks the state or leaves a state the goal cannot be judged in. ([], None) when no goal
        has its turn or there is one move."""
        goal = todo.get(turn_of[0])
        if goal is None or len(moves) < 2:
            return [], None
        if len(moves) > MOVES_WEIGHED:
            moves = rng.sample(moves, MOVES_WEIGHED)
        best, out_, seen = None, [], []

        def judge():
            try:
                seen.append(goal.dist(g.S, g.P))
            except (Fault, Gap):  # not judged here (as in consider): not a candidate
                pass
        for move in moves:  # the chance's state is kept only by a move that draws (Chance)
            seen.clear()
            raised = attempt(g, move, keep=False, after=judge)
            if isinstance(raised, Gap):
                gap_found(raised, g, move)
            if not seen:
                continue
            if best is None or seen[0] < best:
                best, out_ = seen[0], [move]
            elif seen[0] == best:
                out_.append(move)
        return out_, best

    def step_among(g: Game, moves: list) -> bool | None:
        """True when one of these moves was played; False when one broke the state (a Fault);
        None when none could be played, the game left as it was. A heavy rollout plays one of the
        nearest moves (see `nearest`) when there is one."""
        ahead[0] = None
        if heavy[0] and len(moves) > 1:
            best, d = nearest(g, moves)
            played = step_among_(g, best) if best else None
            if played is not None:
                ahead[:] = turn_of[0], d  # every move of best is judged at d
                return played
            moves = [m for m in moves if m not in best]
        return step_among_(g, moves)

    def step_among_(g: Game, moves: list) -> bool | None:
        while moves:
            move = moves[rng.randrange(len(moves))]
            if not gappy[move[0]]:  # no undecided point on its way: no need to keep the state
                if move[0] not in out.played:
                    out.played[move[0]] = Found(g.seed, list(g.params), g.moves + [move])
                try:
                    g.step(move, check=False)
                except Fault:  # the state is broken: this rollout ends (kept states are copies)
                    return False
                return True
            exc = attempt(g, move, keep=True)
            if exc is None:
                return True
            if isinstance(exc, Gap):
                gap_found(exc, g, move)
            moves = [m for m in moves if m != move]
        return None

    def play(gi: int, g: Game, length: int):
        """A rollout of at most `length` random moves (`last_choice` follows the moves that had
        another legal move beside them)."""
        for _ in range(length):
            if not searching() or out.moves >= budget or _over(g):
                break
            moves = _moves(g)
            if len(moves) > 1:
                last_choice[0] = len(g.moves)
            if not step(g, moves):
                break
            out.moves += 1
            consider(gi, g)

    def inherit(node: _Node, g: Game):
        """The rollout from this node came as near a goal as `reached` says: where it then went to
        the end of the game without another choice, the node ranks by that in the goal's pool,
        after the states at that distance themselves. Such a state leaves no room to get nearer
        (the end of the game, where a goal needs other cards in hand at the end): the state the
        rollout came from does (Monte Carlo tree search backs up a rollout's value the same way).
        Only then: a state with choices left stays the better start, and a goal that needs the
        game to go on (the longest game) would be held back by states behind the frontier."""
        if not _over(g):
            return
        for key, (d, at) in reached.items():
            if key not in todo or not node.meta or last_choice[0] >= at:
                continue  # a move was chosen in or after its nearest state: that state leaves room
            rank = (d, 1) + node.meta
            bucket = pools[key]
            mine = next((n for n in bucket if n.state is node.state), None)
            if mine is not None:
                if rank >= mine.key:
                    continue
                mine.key, mine.dist, mine.shuns = rank, d, frozenset(shunned)
            elif len(bucket) < pool or rank < bucket[-1].key:
                bucket.append(_Node(node.game, node.state, node.chance, node.moves, d, rank, shuns=frozenset(shunned),
                                    meta=node.meta))
            else:
                continue
            bucket.sort(key=lambda n: n.key)
            del bucket[pool:]

    def go(node: _Node):
        """A rollout from the node's state, shunning some actions (played only when nothing else
        is legal): a goal that needs an action left alone for long, like keeping cards in hand,
        is out of reach of uniformly random moves. The shunned set is inherited: half the
        rollouts keep the one that reached the node, 3 in 10 add or drop one action, 1 in 10 draw
        a fresh half of the actions, 1 in 10 shun none; so the pools, keeping the nearest states,
        also keep the ways of playing that lead there."""
        nonlocal shunned
        node.chosen += 1
        g = games[node.game]
        g.S[:] = [copy(v) for v in node.state]
        g.chance.setstate(node.chance)
        g.moves[:] = node.moves
        out.restores += 1
        if _over(g) or not _moves(g):
            node.dead = True
            return
        r = rng.random()
        if r < 0.5:
            shunned = set(node.shuns)
        elif r < 0.8:
            shunned = set(node.shuns) ^ {rng.randrange(len(program.spec.actions))}
        elif r < 0.9:
            shunned = {a for a in range(len(program.spec.actions)) if rng.random() < 0.5}
        else:
            shunned = set()
        reached.clear()
        last_choice[0] = -1
        heavy[0] = greedy > 0 and rng.random() < greedy
        play(node.game, g, rng.randint(1, rollout))
        heavy[0] = False
        if last_choice[0] < 0 and _over(g):
            node.dead = True  # only forced moves to the end: the same rollout every time (its chance is kept)
        inherit(node, g)
        shunned = set()

    def finer(riding: set):
        """The undecided points still looked for that have a finer distance take it up: their pools
        begin anew (ranked by the old one, their states would keep the new ones out), and each
        cell's total changes by the difference on its state, so that a cell keeps the state nearer
        by the new total."""
        switched = {k: g for k, g in todo.items() if g.finer is not None and k not in riding}
        for key, goal in switched.items():
            todo[key] = replace(goal, dist=goal.finer, finer=None)
            pools[key] = []
        version[0] += 1
        for node in cells.values() if switched else ():
            P = games[node.game].P
            for key, goal in switched.items():
                if key in ruled_out[node.game]:
                    continue
                try:
                    node.dist += goal.finer(node.state, P) - goal.dist(node.state, P)
                except (Fault, Gap):
                    pass

    ruled_out: list[set] = []  # per game: the goals it cannot reach
    for i in range(starts * (STARTS_DRAWN if viable is not None else 1)):
        if len(games) == starts:
            break
        try:  # (the search evaluates no ranking or bound in its games: a bound's trigger is evaluated at the start)
            g = program.start(f"{seed}/{i}", judged=())
        except (Fault, Gap, ParamError):  # (ParamError: this seed's draws met no parameters' conditions)
            continue
        out_of_reach = set() if viable is None else {k for k in todo if not viable(todo[k].alias or k, g.S, g.P)}
        if out_of_reach and todo.keys() - riding <= out_of_reach:
            continue
        games.append(g)
        ruled_out.append(out_of_reach)
    if not games:
        return out
    whole = [i for i, (w, _r) in enumerate(rankings) if all(_holds(w, g) for g in games)]  # the whole game's
    for i, g in enumerate(games):
        consider(i, g)
    for i, g in enumerate(games):
        play(i, g, rollout)
    turn = 0
    stalled = 0  # rounds in a row without a move
    while searching() and out.moves < budget:
        if pause is not None and paused_now():
            more, out_of_reach = pause[1](list(dict.fromkeys(g.alias or k for k, g in todo.items())))
            for key, f in more.items():
                record(key, f)
            riding |= {k for k, g in todo.items() if (g.alias or k) in out_of_reach
                       or all(k in r for r in ruled_out)}
            finer(riding)
            pause = None
            continue
        before = out.moves
        for key in [k for k in todo if k not in riding]:
            turn_of[0] = key
            # greedy: a state among the nearest to this goal, those chosen least often first
            bucket = [n for n in pools.get(key, ()) if not n.dead]
            if bucket:
                go(min(bucket[: max(1, len(bucket) // 3)], key=lambda n: (n.chosen, rng.random())))
            # and new ground: a cell chosen seldom so far (Go-Explore's selection), every other
            # time one of the frontier: no other cell is as far in the game with as many cards left
            if cells and out.moves < budget and key in todo:
                turn += 1
                if turn % 2 and front[0] != len(cells):  # a cell was added (none is ever removed)
                    front[:] = [len(cells), frontier(cells)]
                nodes = [n for n in ([cells[k] for k in front[1]] if turn % 2 else cells.values()) if not n.dead]
                nodes = nodes or [n for n in cells.values() if not n.dead]
                if nodes:
                    go(rng.choices(nodes, weights=[1.0 / (1 + n.chosen) ** 0.5 for n in nodes])[0])
            if out.moves >= budget:
                break
        stalled = stalled + 1 if out.moves == before else 0
        if stalled and all(n.dead for n in itertools.chain(
                cells.values(), *(pools.get(k, ()) for k in todo if k not in riding))):
            break  # no kept state can move any more (a rider's pool has no turns: its states are never tried)
        if stalled >= STALLED:
            break  # kept states whose rollouts all stop at once (every move they try runs into a run-time error)
    return out

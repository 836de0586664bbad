"""Directed search in the interpreter for states random games do not reach.

Random games rarely reach a state that needs many unlikely moves in a row: the longest game, both
spell piles empty, a card comparison where nobody holds a suit. `explore` looks for such goals the
way search-based testing does: every goal gets a distance, computed from its expression on a
concrete state (0 when it holds; a comparison `a <= b` is as far as a - b, a conjunction is the sum
of the left part's distance and 1 until the left part holds, then the right part's distance; a
disjunction the least; a comparison scaled into [0, 1)); the states seen are kept in a
small pool per goal, the nearest first; and play goes on from a pool state with random legal moves.
Ties are broken by the spec's own progress measures (its `terminates` rankings: a state nearer the
end of the game first), then by the states chosen least often so far.

An undecided point is a goal too: reached when a move steps into it; its distance is the distance
to enabling an action that holds it (the guard's conjuncts that do not name the move's choices).

Everything found is a real play: a seed, the parameters, and legal moves from an initial state,
replayed by the caller in a fresh interpreter before it is reported. Finding nothing proves
nothing (the caller reports `bounded`, never `unreachable`).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from . import ir
from .backends.interpreter import Game, Program
from .backends.runtime import Fault, Gap, copy

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


def free_locals(e: ir.Expr, names: set[str]) -> bool:
    """Whether the expression names any of these locals (a move's choices)."""
    from .verify import _walk

    return any(isinstance(x, ir.Local) and x.name in names for x in _walk(e))


def distance(program: Program, e: ir.Expr, negated: bool = False):
    """A function (S, P) -> float, 0 exactly when `e` (or `not e`) holds, else in (0, number of parts]."""
    gen = program.gen
    if isinstance(e, ir.Unary) and e.op == "not":
        return distance(program, e.operand, not negated)
    if isinstance(e, ir.Binary) and e.op in ("and", "or", "implies"):
        left_neg = negated if e.op != "implies" else not negated
        left = distance(program, e.left, left_neg)
        right = distance(program, e.right, negated)
        conj = (e.op == "and") != negated  # not (a or b) = not a and not b; not (a -> b) = a and not b
        if conj:
            # the right part counts as unmet while the left is not met (search-based testing's
            # approach level): a costly right part is evaluated only where the left one holds
            def both(S, P):
                d = left(S, P)
                return d + 1.0 if d else right(S, P)
            return both
        return lambda S, P: min(left(S, P), right(S, P))
    if isinstance(e, ir.Binary) and e.op in _CMP:
        op = _NEGATE[e.op] if negated else e.op
        lf, rf = gen.compile_expr(e.left), gen.compile_expr(e.right)
        return lambda S, P: _cmp_distance(op, lf(S, P), rf(S, P))
    if isinstance(e, ir.Lit) and isinstance(e.value, bool):
        d = 0.0 if e.value != negated else 1.0
        return lambda S, P: d
    f = gen.compile_expr(e)
    return (lambda S, P: 1.0 if f(S, P) else 0.0) if negated else (lambda S, P: 0.0 if f(S, P) else 1.0)


def _gaps_in(stmts) -> set[int]:
    out: set[int] = set()
    for st in stmts:
        if isinstance(st, ir.Undecided):
            out.add(st.id)
        for name in ("then", "other", "body"):
            sub = getattr(st, name, None)
            if isinstance(sub, tuple):
                out |= _gaps_in(sub)
    return out


@dataclass
class Goal:
    """A state to reach (dist is 0 there) or an undecided point to step into (gaps: its ids)."""

    key: str
    dist: object                       # (S, P) -> float
    gaps: frozenset = frozenset()      # for an undecided point: the ids of its inlined copies


def state_goal(program: Program, key: str, expr: ir.Expr, negated: bool = False) -> Goal:
    return Goal(key, distance(program, expr, negated))


def gap_goal(program: Program, key: str, ids) -> Goal:
    """Distance: to enabling the nearest action that holds the point (its choice-free conjuncts)."""
    ids = frozenset(ids)
    guards = []
    for a in program.spec.actions:
        if _gaps_in(a.body) & ids:
            choices = {n for n, _t in a.params}
            parts = [distance(program, c) for c in a.guard if not free_locals(c, choices)]
            guards.append(parts)
    spec = program.spec
    piles = [i for i, v in enumerate(spec.state) if v.exhausted_gap is not None and v.exhausted_gap.id in ids]
    if piles:  # a pile running out with nothing to refill it: as far as the cards left
        supply = _supply(program, piles)
        guards.append([lambda S, P: _scale(supply(S))])
    if not guards:
        return Goal(key, lambda S, P: 1.0, ids)

    def dist(S, P):
        return min(sum(d(S, P) for d in parts) for parts in guards) + 1.0  # + 1: the point itself
    return Goal(key, dist, ids)


@dataclass
class _Node:
    game: int                 # index of the Game it belongs to (its seed and parameters)
    state: list
    chance: tuple
    moves: list
    progress: tuple
    dist: float = 0.0
    key: tuple = ()
    chosen: int = 0


@dataclass
class Found:
    seed: str
    params: list
    moves: list


@dataclass
class Exploration:
    found: dict[str, Found] = field(default_factory=dict)
    moves: int = 0            # moves played in all
    restores: int = 0         # times play went on from a pool state
    nearest: dict[str, tuple] = field(default_factory=dict)  # goal not found -> (distance, moves) of its nearest state


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
    """The cells no other cell beats in both how far the game has come (a smaller ranking) and the
    cards left where running out is undecided (more)."""
    out, best = [], None
    for (level, left), node in sorted(cells.items(), key=lambda kv: (kv[0][0], -kv[0][1])):
        if best is None or left > best:
            out.append(node)
            best = left
    return out


def _holds(w, g: Game) -> bool:
    try:
        return bool(w(g.S, g.P))
    except (Fault, Gap):
        return False


def explore(program: Program, goals: list[Goal], seed: str, budget: int, pool: int = 24,
            rollout: int = 40, starts: int = 8, progress=None) -> Exploration:
    """Look for each goal within `budget` moves in all; see the module's docstring."""
    rng = random.Random(f"{seed}/explore")
    out = Exploration()
    todo = {g.key: g for g in goals}
    rankings = [(w, r) for _p, w, r in program.rankings]
    supply = _supply(program)
    games: list[Game] = []
    pools: dict[str, list[_Node]] = {k: [] for k in todo}
    cells: dict[tuple, _Node] = {}
    seen: set = set()

    def progress_of(g: Game, which=None) -> tuple:
        S, P = g.S, g.P
        out_ = []
        for w, r in (rankings if which is None else which):
            try:
                out_.append(tuple(r(S, P)) if w(S, P) else ())
            except (Fault, Gap):
                out_.append(())
        return tuple(out_)

    def level_of(g: Game) -> tuple:
        """How far the game has come, coarsely: the first component of each ranking that holds for
        the whole game (its `while` holds in the initial states)."""
        return tuple(r[:1] for r in progress_of(g, whole))

    def found(key: str, g: Game, moves: list):
        out.found[key] = Found(g.seed, list(g.params), list(moves))
        del todo[key]
        pools.pop(key, None)

    def consider(gi: int, g: Game):
        """Check the goals in this state; keep it in the pools it is among the nearest of, and in
        its cell (how far the game has come by the whole-game rankings' first two components, the
        cards left where running out is undecided) when the cell is new or this state is nearer
        the goals."""
        S, P = g.S, g.P
        dists = {}
        for key, goal in list(todo.items()):
            try:
                d = goal.dist(S, P)
            except (Fault, Gap):
                continue
            if d == 0 and not goal.gaps:
                found(key, g, g.moves)
            else:
                dists[key] = d
        if not dists:
            return
        sig = hash((gi, repr(S)))
        if sig in seen:
            return
        seen.add(sig)
        prog, level, left = progress_of(g), level_of(g), supply(S)
        node = _Node(gi, g.snapshot(), g.chance.getstate(), list(g.moves), prog, sum(dists.values()))
        cell = (tuple(r[:2] for r in progress_of(g, whole)), left // 4)
        old = cells.get(cell)
        if old is None or node.dist < old.dist:
            if old is not None:
                node.chosen = old.chosen
            cells[cell] = node
        for key, d in dists.items():
            # nearest the goal; then furthest in the game; then the most cards left to draw
            rank = (d, level, -left, prog)
            bucket = pools[key]
            if len(bucket) >= pool and rank >= bucket[-1].key:
                continue
            bucket.append(_Node(gi, node.state, node.chance, node.moves, prog, d, rank))
            bucket.sort(key=lambda n: n.key)
            del bucket[pool:]

    def step(g: Game, moves: list) -> bool:
        """Play one random legal move, stepping around undecided points (which may be goals);
        False when no move can be played."""
        while moves:
            move = moves[rng.randrange(len(moves))]
            saved, chance = g.snapshot(), g.chance.getstate()
            try:
                g.step(move, check=False)
                return True
            except Gap as exc:
                for key, goal in list(todo.items()):
                    if exc.id in goal.gaps:
                        found(key, g, g.moves + [move])
            except Fault:
                pass
            g.S[:] = saved
            g.chance.setstate(chance)
            moves = [m for m in moves if m != move]
        return False

    def play(gi: int, g: Game, length: int):
        for _ in range(length):
            if not todo or out.moves >= budget or g.ended() is not None:
                return
            if not step(g, g.legal_moves()):
                return
            out.moves += 1
            consider(gi, g)
            if progress:
                progress(min(out.moves, budget))

    def go(node: _Node):
        node.chosen += 1
        g = games[node.game]
        g.S[:] = [copy(v) for v in node.state]
        g.chance.setstate(node.chance)
        g.moves[:] = node.moves
        out.restores += 1
        play(node.game, g, rng.randint(1, rollout))

    for i in range(starts):
        try:
            games.append(program.start(f"{seed}/{i}"))
        except (Fault, Gap):
            continue
    if not games:
        return out
    whole = [(w, r) for w, r in rankings if all(_holds(w, g) for g in games)]
    for i, g in enumerate(games):
        consider(i, g)
    for i, g in enumerate(games):
        play(i, g, rollout)
    turn = 0
    while todo and out.moves < budget:
        before = out.moves
        for key in list(todo):
            # greedy: a state among the nearest to this goal, those chosen least often first
            bucket = pools.get(key)
            if bucket:
                go(min(bucket[: max(1, len(bucket) // 3)], key=lambda n: (n.chosen, rng.random())))
            # and new ground: a cell chosen seldom so far (Go-Explore's selection), every other
            # time one of the frontier: no other cell is as far in the game with as many cards left
            if cells and out.moves < budget and key in todo:
                turn += 1
                nodes = frontier(cells) if turn % 2 else list(cells.values())
                go(rng.choices(nodes, weights=[1.0 / (1 + n.chosen) ** 0.5 for n in nodes])[0])
            if out.moves >= budget:
                break
        if out.moves == before:  # no kept state can move any more
            break
    for key, bucket in pools.items():
        if bucket:
            out.nearest[key] = (bucket[0].dist, len(bucket[0].moves))
    return out

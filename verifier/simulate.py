"""Random complete games: ir.Spec + players + seed -> SimReport (moves, ends, findings with traces).

A finding is a gap (an `undecided` point reached), a fault (a run-time error of the spec), a
violation (a property false after a step), a deadlock (no legal move outside an end state) or a
step limit (no end after max_steps moves). Each is kept once per kind and place, with how often
it happened and the shortest game that reached it, replayable from its seed.
"""

from __future__ import annotations

import random
import statistics
from dataclasses import dataclass, field

from . import ir
from .backends.interpreter import Game, Program
from .backends.runtime import Fault, Gap
from .source import Span
from .trace import Trace, TraceStep, describe_changes, moves_text


@dataclass
class Finding:
    kind: str                       # gap | fault | violation | deadlock | step_limit
    key: str                        # groups findings of the same kind and place
    title: str
    message: str
    span: Span | None = None
    cite: ir.Cite | None = None
    expected: str | None = None     # a violation the spec marks as expected, with its reason
    count: int = 0
    seed: str = ""
    params: list = field(default_factory=list)
    moves: list = field(default_factory=list)

    @property
    def severity(self) -> str:
        return "expected" if self.expected else ("gap" if self.kind == "gap" else "problem")

    def to_json(self) -> dict:
        return {"kind": self.kind, "key": self.key, "title": self.title, "message": self.message,
                "where": self.span.to_json() if self.span else None,
                "cite": self.cite.to_json() if self.cite else None, "expected": self.expected,
                "count": self.count, "seed": self.seed, "moves": len(self.moves)}


@dataclass
class GameResult:
    moves: list
    end: str | None
    findings: list[Finding]
    reached: dict[str, int]          # reachable property -> number of moves after which it first held
    stats: dict
    avoided: list[Finding] = field(default_factory=list)   # gaps stepped around (avoid_gaps)


def gap_finding(spec: ir.Spec, gap_id: int) -> Finding:
    u = spec.undecided[gap_id]
    # keyed by place: a gap inside a procedure is inlined at every call, with one id per call site
    where = f"{u.span.line}:{u.span.col}" if u.span else str(gap_id)
    return Finding("gap", f"gap:{where}", f"rulebook gap: {u.reason}", "an undecided point was reached",
                   u.span, u.cite)


def fault_finding(program: Program, exc: Fault) -> Finding:
    span = program.span(exc.span_id)
    return Finding("fault", f"fault:{exc.span_id}", f"run-time error: {exc.message}", exc.message, span)


def violation_finding(p: ir.Property, message: str) -> Finding:
    return Finding("violation", f"violation:{p.name}", f"{p.kind} {p.name} violated", message, p.span, p.cite,
                   p.expect_violated)


def may_reach_gap(spec: ir.Spec, action: ir.Action) -> bool:
    """Whether an action's body holds an undecided point, or moves cards from a pile whose
    exhaustion is undecided (procedures are inlined, so the body is all there is)."""
    gappy = {v.name for v in spec.state if v.exhausted == "undecided"}

    def reaches(stmts) -> bool:
        for st in stmts:
            if isinstance(st, ir.Undecided):
                return True
            if isinstance(st, ir.Move) and st.src is not None and st.src.var in gappy:
                return True
            if isinstance(st, ir.If) and (reaches(st.then) or reaches(st.other)):
                return True
            if isinstance(st, ir.For) and reaches(st.body):
                return True
        return False

    return reaches(action.body)


def play_random(game: Game, policy: random.Random, max_steps: int, check: bool = True,
                avoid_gaps: bool = False) -> GameResult:
    """Play uniformly random legal moves until an end state, a finding that stops play, or the limit.

    With avoid_gaps, a move that reaches an undecided point is recorded as a gap (once per game
    and place), taken back, and another legal move is chosen instead; the game stops at a gap
    only when every legal move reaches one.
    """
    findings: list[Finding] = []
    avoided: list[Finding] = []
    avoided_keys: set[str] = set()
    gappy = [may_reach_gap(game.program.spec, a) for a in game.program.spec.actions] if avoid_gaps else []
    seen_props: set[str] = set()
    # the invariants false in some state so far (by index): every invariant false now is among
    # them, so a step evaluates only those its action may change that are not (Game.step's only)
    noted: set[int] = set()
    index = {p.name: i for i, (p, _fn) in enumerate(game.program.invariants)}
    touched = game.program.touched
    reached: dict[str, int] = {}
    spec = game.program.spec
    end = None
    pending = None  # (move, moves before it) while a step runs

    def step(move):
        """The move played: checked, when the games are, for the invariants it may have made false."""
        return game.step(move, check=check, only=touched[move[0]] - noted if check else None)

    def note_violations(vs):
        for v in vs:
            if v.prop.name in index:
                noted.add(index[v.prop.name])
            if v.prop.name not in seen_props:
                seen_props.add(v.prop.name)
                f = violation_finding(v.prop, v.message)
                f.moves = list(game.moves)
                findings.append(f)

    def note_reached():
        for p in game.reached():
            reached.setdefault(p.name, len(game.moves))

    def step_around_gaps(move, moves):
        """Step `move`; if it reaches a gap, record the gap, take the move back and try another."""
        nonlocal pending
        while True:
            pending = (move, len(game.moves))
            if not gappy[move[0]]:
                return step(move)
            saved = game.save(move)  # what the move may change (Game.restore puts it back)
            try:
                return step(move)
            except Gap as exc:
                moves = [m for m in moves if m != move]
                if not moves:
                    raise
                f = gap_finding(spec, exc.id)
                if f.key not in avoided_keys:
                    avoided_keys.add(f.key)
                    f.moves = _with_failed(game, pending)
                    avoided.append(f)
                game.restore(saved)
                move = moves[policy.randrange(len(moves))] if len(moves) > 1 else moves[0]

    try:
        if check:
            note_violations(game.initial_violations())
            note_reached()
        for _ in range(max_steps):
            e = game.ended()
            if e is not None:
                end = e.name
                break
            moves = game.legal_moves()
            if not moves:
                f = Finding("deadlock", "deadlock", "deadlock: no legal move and the game has not ended",
                            "no action is enabled in a state that is not an end state")
                f.moves = list(game.moves)
                findings.append(f)
                break
            move = moves[policy.randrange(len(moves))] if len(moves) > 1 else moves[0]
            pending = (move, len(game.moves))
            note_violations(step_around_gaps(move, moves) if avoid_gaps else step(move))
            pending = None
            if check:
                note_reached()
        else:
            if game.ended() is None:
                f = Finding("step_limit", "step_limit", f"no end after {moves_text(max_steps)}",
                            f"the game did not reach an end state within {moves_text(max_steps)}; "
                            "raise --max-steps, or check that every phase ends")
                f.moves = list(game.moves)
                findings.append(f)
    except Gap as exc:
        f = gap_finding(spec, exc.id)
        f.moves = _with_failed(game, pending)
        findings.append(f)
    except Fault as exc:
        f = fault_finding(game.program, exc)
        f.moves = _with_failed(game, pending)
        findings.append(f)
    stats = {}
    if end is not None:
        try:
            stats = game.stats()
        except Fault as exc:  # a stat's own run-time error at the end: a finding, not a crash
            f = fault_finding(game.program, exc)
            f.moves = list(game.moves)
            findings.append(f)
    return GameResult(list(game.moves), end, findings, reached, stats, avoided)


def _with_failed(game: Game, pending) -> list:
    """The game's moves, with the move whose step raised if it was not recorded (it is recorded
    only once its body completes), so that a finding's trace ends with the move that reached it."""
    moves = list(game.moves)
    if pending is not None and len(moves) == pending[1]:
        moves.append(pending[0])
    return moves


@dataclass
class SimReport:
    spec: ir.Spec
    players: int
    seed: str
    games: int
    finished: int = 0
    moves: list[int] = field(default_factory=list)
    ends: dict[str, int] = field(default_factory=dict)
    stopped: dict[str, int] = field(default_factory=dict)   # games stopped by a finding, by kind
    findings: dict[str, Finding] = field(default_factory=dict)
    reached: dict[str, int] = field(default_factory=dict)
    witnesses: dict[str, tuple] = field(default_factory=dict)  # reachable -> (seed, params, moves) of the shortest
    stats: dict[str, list] = field(default_factory=dict)
    seconds: float = 0.0
    avoid_gaps: bool = False
    avoided: dict[str, int] = field(default_factory=dict)    # gap key -> games that stepped around it
    halted: dict[str, int] = field(default_factory=dict)     # gap key -> games it stopped (one may have stepped around it first)
    played: dict[str, int] = field(default_factory=dict)     # action -> moves of it played in all games

    @property
    def problems(self) -> list[Finding]:
        """Findings that make the run fail: unexpected violations, faults, deadlocks, step limits."""
        return [f for f in self.findings.values() if f.kind != "gap" and not f.expected]

    def move_summary(self) -> dict:
        if not self.moves:
            return {"min": 0, "median": 0, "max": 0}
        return {"min": min(self.moves), "median": statistics.median(self.moves), "max": max(self.moves)}

    def to_json(self) -> dict:
        spec = self.spec
        return {
            "spec": spec.path, "game": spec.game, "edition": spec.edition, "players": self.players,
            "seed": self.seed, "games": self.games, "finished": self.finished, "moves": self.move_summary(),
            "ends": self.ends, "stopped": self.stopped, "seconds": round(self.seconds, 3),
            "avoid_gaps": self.avoid_gaps, "avoided": self.avoided, "halted": self.halted,
            "findings": [f.to_json() for f in self.findings.values()],
            "reachable": {p.name: self.reached.get(p.name, 0) for p in spec.properties if p.kind == "reachable"},
            "stats": {k: _stat_summary(v) for k, v in self.stats.items()},
        }


def _stat_summary(values: list) -> dict:
    flat = [x for v in values for x in (v if isinstance(v, list) else [v])]
    nums = [float(x) for x in flat if isinstance(x, (int, float))]
    if not nums:
        return {"count": 0}
    return {"count": len(nums), "min": min(nums), "mean": round(statistics.fmean(nums), 3), "max": max(nums)}


def simulate(spec: ir.Spec, players: int, games: int, seed, max_steps: int = 100_000,
             progress=None, check: bool = True, avoid_gaps: bool = False) -> SimReport:
    """Play `games` random games; game g uses the seed "<seed>/<g>" (replayable on its own).

    avoid_gaps: step around undecided points (see play_random) instead of stopping at the first.
    """
    import time

    program = Program(spec, players)
    report = SimReport(spec, players, str(seed), games, avoid_gaps=avoid_gaps)
    t0 = time.perf_counter()
    for g in range(games):
        game_seed = f"{seed}/{g}"
        try:
            game = program.start(game_seed)
        except (Fault, Gap) as exc:  # the setup itself faults or reaches a gap
            f = gap_finding(spec, exc.id) if isinstance(exc, Gap) else fault_finding(program, exc)
            result = GameResult([], None, [f], {}, {})
            game = None
            drawn = getattr(exc, "params", None)  # a constant's run-time error: the parameters drawn
        else:
            result = play_random(game, random.Random(f"{game_seed}/policy"), max_steps, check, avoid_gaps)
        report.moves.append(len(result.moves))
        for m in result.moves:
            name = spec.actions[m[0]].name
            report.played[name] = report.played.get(name, 0) + 1
        if result.end is not None:
            report.finished += 1
            report.ends[result.end] = report.ends.get(result.end, 0) + 1
            for k, v in result.stats.items():
                report.stats.setdefault(k, []).append(v)
        stopping = [f for f in result.findings if f.kind != "violation"]
        if stopping:
            kind = stopping[0].kind
            report.stopped[kind] = report.stopped.get(kind, 0) + 1
            if kind == "gap":
                report.halted[stopping[0].key] = report.halted.get(stopping[0].key, 0) + 1
        # (a setup that raised: the parameters it was given, drawn from the seed as the game drew them)
        params = game.params if game is not None else \
            drawn if drawn is not None else program.params_of(game_seed)[:len(spec.params)]
        for f in result.avoided:
            report.avoided[f.key] = report.avoided.get(f.key, 0) + 1
        stopped_keys = {f.key for f in result.findings}
        for f in result.findings + [f for f in result.avoided if f.key not in stopped_keys]:
            f.seed, f.params = game_seed, params
            known = report.findings.get(f.key)
            if known is None:
                f.count = 1
                report.findings[f.key] = f
            else:
                known.count += 1
                if len(f.moves) < len(known.moves):
                    known.seed, known.params, known.moves = f.seed, f.params, f.moves
        for name, at in result.reached.items():
            report.reached[name] = report.reached.get(name, 0) + 1
            known = report.witnesses.get(name)
            if known is None or at < len(known[2]):
                report.witnesses[name] = (game_seed, params, result.moves[:at])
        if progress:
            progress(g + 1)
    report.seconds = time.perf_counter() - t0
    return report


def record_trace(program: Program, seed: str, params: list, moves: list, about=None) -> Trace:
    """Replay moves from a seed, keeping every state and what each step changed. `about`: the
    property (an ir.Property) the trace is shown for: only it is evaluated after each move
    (nothing for a reachability goal, an undecided point, a run-time error, a deadlock or an
    action), so that another property's run-time error does not cut the trace short (the directed
    search plays with none judged; a random game judges an invariant no more once false); None:
    every property, as the random games judge them."""
    spec = program.spec
    steps: list[TraceStep] = []
    how, judged = program.judging(about.kind, about.name) if about is not None else ({}, None)
    try:
        game = program.start(seed, params or None, judged=judged)
    except Gap as exc:
        u = spec.undecided[exc.id]
        return Trace(spec, program.players, seed, list(params), steps, [], {"kind": "gap", "reason": u.reason, "setup": True})
    except Fault as exc:
        return Trace(spec, program.players, seed, list(params), steps, [], {"kind": "fault", "message": exc.message, "setup": True})
    states = [game.snapshot()]
    outcome: dict = {"kind": "open"}
    # an invariant the trace is about is judged here, after the moves of the rules: where its own
    # evaluation runs into a run-time error, the step says so and the trace goes on (the directed
    # search's play went on; a random game's stops there, so its findings never meet one)
    inv = next(fn for q, fn in program.invariants if q.name == about.name) \
        if about is not None and about.kind == "invariant" else None

    def judge(after: str) -> str | None:
        """The invariant's run-time error, if any, or None; the outcome is its violation where false."""
        nonlocal outcome
        try:
            if not inv(game.S, game.P):
                outcome = {"kind": "violation", "property": about.name,
                           "message": f"the invariant is false {after}"}
        except (Fault, Gap) as exc:
            return f"evaluating {about.name} runs into a run-time error: {getattr(exc, 'message', exc)}"
        return None
    if inv is not None:  # judged here, not by the steps; false from the start: a finding of no move
        how = {"check": False}
        judge("in the initial state")
    try:
        for i, move in enumerate(moves, 1):
            a = spec.actions[move[0]]
            before = states[-1]
            violations = game.step(move, **how)
            after = game.snapshot()
            states.append(after)
            changes = describe_changes(spec, program.domains, before, after)
            note = judge("after this step") if inv is not None else None
            steps.append(TraceStep(i, a.name, move[1], program.move_label(move), a.cite,
                                   changes + [note] if note else changes))
            if violations:
                v = violations[0]
                outcome = {"kind": "violation", "property": v.prop.name, "message": v.message}
        if outcome["kind"] == "open":
            outcome = game.stopped() or outcome
    except Gap as exc:
        u = spec.undecided[exc.id]
        steps.append(TraceStep(len(steps) + 1, spec.actions[moves[len(steps)][0]].name, moves[len(steps)][1],
                               program.move_label(moves[len(steps)]), spec.actions[moves[len(steps)][0]].cite,
                               [f"reaches an undecided point: {u.reason}"]))
        outcome = {"kind": "gap", "reason": u.reason, "cite": u.cite.to_json() if u.cite else None}
    except Fault as exc:
        if len(steps) < len(moves):
            move = moves[len(steps)]
            steps.append(TraceStep(len(steps) + 1, spec.actions[move[0]].name, move[1], program.move_label(move),
                                   spec.actions[move[0]].cite, [f"run-time error: {exc.message}"]))
        # else the fault came after the last move: a guard or an end condition that cannot be evaluated
        outcome = {"kind": "fault", "message": exc.message}
    return Trace(spec, program.players, seed, list(params), steps, states, outcome)

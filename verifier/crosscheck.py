"""Cross-checks between the back-ends: ir.Spec + players + seed -> AgreementReport.

The interpreter is the reference semantics; the Z3 encoding must agree with it. From states of
random plays this module takes (state, move) pairs and checks, with the concrete state turned
into symbolic values (Python ints and bools inside OptV, BagV, PileV, ...):

  guard       Z3's guard of the move, evaluated on the concrete state and arguments, is true
              exactly when the interpreter finds the move legal (and a guard that faults in
              one faults in the other)
  successor   the interpreter's successor is one of Z3's possible successors, compared in the
              abstraction the prover uses: scalars, maps, sets and bags exactly, piles by their
              counts and top card (chance outcomes of Z3's step are left free)
  stop        a move that reaches an undecided point or a run-time error in the interpreter can
              do so in Z3 too; a move that completes in the interpreter can complete in Z3, and
              when the step involves no chance, Z3 sees no fault or gap either
  values      constants, invariants and end conditions have the same values in both

A disagreement is a bug in one of the two back-ends; each comes with the play that reaches the
state (seed and moves), replayable with the interpreter.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field

import z3

from . import ir
from .backends.interpreter import Game, Program
from .backends.runtime import Fault, Gap, copy
from .backends.z3 import (AND, EQ, IMPLIES, NOT, BagV, Ctx, Encoder, MapV, OptV, PileV, SeqV, SetV, Unsupported,
                          concrete)
from .trace import moves_text
from .types import (BagT, BoolT, EnumT, IntT, ListT, MapT, OptT, OrderT, PileT, PlayerT, RecordT, SetT, TupleT, Type,
                    format_value)


# ---- concrete values as symbolic values -----------------------------------------------------

def to_symbolic(enc: Encoder, t: Type, value):
    """An interpreter value of type t as the Z3 back-end's symbolic value, with known leaves."""
    dom = enc.dom
    if isinstance(t, BoolT):
        return bool(value)
    if isinstance(t, (IntT, EnumT, PlayerT, RecordT)):
        return int(value)
    if isinstance(t, OptT):
        return OptV(False, 0) if value is None else OptV(True, to_symbolic(enc, t.inner, value))
    if isinstance(t, SetT):
        return SetV([v in value for v in dom.values(t.elem)])
    if isinstance(t, (OrderT, ListT)):
        return SeqV([to_symbolic(enc, t.elem, x) for x in value])
    if isinstance(t, TupleT):
        return SeqV([to_symbolic(enc, et, x) for et, x in zip(t.elems, value)])
    if isinstance(t, MapT):
        return MapV([to_symbolic(enc, t.value, x) for x in value])
    if isinstance(t, BagT):
        return BagV([int(n) for n in value])
    if isinstance(t, PileT):
        counts = [0] * dom.size(t.elem)
        for c in value:
            counts[dom.index(t.elem, c)] += 1
        top = OptV(True, dom.index(t.elem, value[-1])) if value else OptV(False, 0)
        return PileV(counts, top)
    raise Unsupported(f"no symbolic value for a value of type {t}")


def symbolic_state(enc: Encoder, spec: ir.Spec, S: list) -> dict:
    return {v.name: to_symbolic(enc, v.type, x) for v, x in zip(spec.state, S)}


def equal_to(t: Type, sym, value, enc: Encoder, out: list):
    """Constraints saying that symbolic value `sym` equals concrete `value` in the prover's abstraction."""
    if isinstance(t, PileT):
        c = to_symbolic(enc, t, value)
        out.extend(EQ(a, b) for a, b in zip(sym.counts, c.counts))
        out.append(EQ(sym.top.some, c.top.some))
        if c.top.some:
            out.append(EQ(sym.top.val, c.top.val))
        return
    if isinstance(t, MapT):
        for s, v in zip(sym.items, value):
            equal_to(t.value, s, v, enc, out)
        return
    if isinstance(t, OptT):
        out.append(EQ(sym.some, value is not None))
        if value is not None:
            equal_to(t.inner, sym.val, value, enc, out)
        return
    if isinstance(t, BagT):
        out.extend(EQ(a, int(b)) for a, b in zip(sym.counts, value))
        return
    if isinstance(t, SetT):
        out.extend(EQ(b, x in value) for b, x in zip(sym.bits, enc.dom.values(t.elem)))
        return
    if isinstance(t, (OrderT, ListT, TupleT)):
        ets = t.elems if isinstance(t, TupleT) else [t.elem] * len(value)
        for et, s, v in zip(ets, sym.items, value):
            equal_to(et, s, v, enc, out)
        return
    out.append(EQ(sym, value if not isinstance(t, BoolT) else bool(value)))


# ---- the report ---------------------------------------------------------------------------------

@dataclass
class Disagreement:
    kind: str            # guard | guard_fault | successor | stop | value
    what: str            # the move (or the property / constant)
    message: str
    seed: str = ""
    moves: list = field(default_factory=list)   # the play that reaches the state
    params: list = field(default_factory=list)
    move: tuple | None = None                   # the move compared (None for a value)

    def render(self, program: Program | None = None) -> str:
        where = f' (seed "{self.seed}", after {moves_text(len(self.moves))})' if self.seed else ""
        return f"[{self.kind}] {self.what}: {self.message}{where}"


@dataclass
class AgreementReport:
    spec: ir.Spec
    players: int
    seed: str
    states: int = 0
    pairs: int = 0               # (state, move) pairs whose guard was compared
    legal: int = 0               # of which legal in the interpreter (successor compared)
    successors: int = 0          # successor checks done (legal moves whose step Z3 could encode)
    stops: int = 0               # moves that stop at a gap or fault in the interpreter, checked in Z3
    values: int = 0              # invariant / end / constant values compared
    enumerated: int = 0          # argument combinations whose guard was compared with legal_moves()
    undetermined: int = 0        # Z3's guard or value depends on what the abstraction leaves open
    open_by: dict = field(default_factory=dict)   # what was undetermined -> how often
    imprecise: int = 0           # a step with no chance where Z3 allows another successor too
    queries: int = 0
    unsupported: dict = field(default_factory=dict)   # action or property -> why Z3 cannot encode it
    disagreements: list = field(default_factory=list)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.disagreements

    def summary(self) -> str:
        return (f"{self.spec.label}, {self.players} players: {self.pairs} (state, move) pairs from {self.states} "
                f"states ({self.legal} legal, {self.successors} successors compared, {self.stops} gaps or faults), "
                f"{self.enumerated} argument combinations checked against legal_moves(), "
                f"{self.values} values, {self.queries} solver queries, {self.undetermined} undetermined, "
                f"{self.imprecise} imprecise, {len(self.disagreements)} disagreements in {self.seconds:.1f} s")


# ---- the checker ---------------------------------------------------------------------------------

class Agreement:
    """Compares the interpreter and the Z3 encoding on concrete states of one program."""

    def __init__(self, program: Program, timeout_ms: int = 20_000, explain: bool = True):
        self.program = program
        self.explain = explain  # say why a successor is missed (more solver queries per disagreement)
        self.spec = program.spec
        self.enc = Encoder(self.spec, program.players)
        self.timeout_ms = timeout_ms
        self.report = AgreementReport(self.spec, program.players, "")
        self.tags = iter(range(1 << 62))

    # ---- solver helpers ----------------------------------------------------------------------
    def sat(self, *constraints) -> str:
        """z3's answer for the conjunction: 'sat', 'unsat' or 'unknown'."""
        cs = [c for c in constraints if c is not True]
        if any(c is False for c in cs):
            return "unsat"
        if not cs:
            return "sat"
        s = z3.Solver()
        s.set("timeout", self.timeout_ms)
        s.add(*cs)
        self.report.queries += 1
        r = s.check()
        return "sat" if r == z3.sat else "unsat" if r == z3.unsat else "unknown"

    def decide(self, value, constraints) -> bool | None:
        """A Z3 boolean under constraints: True / False when determined, None when both are possible."""
        c = concrete(value)
        if c is not None:
            return bool(c)
        can_true = self.sat(*constraints, value)
        can_false = self.sat(*constraints, NOT(value))
        if can_true == "sat" and can_false == "unsat":
            return True
        if can_false == "sat" and can_true == "unsat":
            return False
        return None

    # ---- one state -----------------------------------------------------------------------------
    def params(self, game: Game):
        spec, enc = self.spec, self.enc
        params = {p.name: to_symbolic(enc, p.type, v) for p, v in zip(spec.params, game.params)}
        consts: dict = {}
        ctx = Ctx(enc, {}, params, consts, tag="consts")
        for c in spec.consts:
            consts[c.name] = ctx.ev(c.value)
        return params, consts

    def check_state(self, game: Game, moves: list, where: dict) -> None:
        """Every comparison for one concrete state and the given moves (legal or not)."""
        rep = self.report
        rep.states += 1
        spec, enc, program = self.spec, self.enc, self.program
        params, consts = self.params(game)
        self.check_consts(game, consts, where)
        state = symbolic_state(enc, spec, game.S)
        self.check_values(game, state, params, consts, where)
        self.check_enumerator(game, where)
        for move in moves:
            self.check_move(game, state, params, consts, move, dict(where, move=move))

    def check_enumerator(self, game: Game, where: dict, limit: int = 200):
        """The interpreter's own agreement: legal_moves() lists exactly the moves whose guard holds
        (every argument combination of each action with at most `limit` of them)."""
        import itertools

        program = self.program
        legal = set(game.legal_moves())
        for i, a in enumerate(self.spec.actions):
            try:
                domains = [program.domains.values(t) for _n, t in a.params]
            except TypeError:
                continue
            size = 1
            for d in domains:
                size *= len(d)
            if size > limit:
                continue
            for args in itertools.product(*domains):
                move = (i, tuple(args))
                try:
                    ok = game.failing_conjunct(move) < 0
                except Fault:
                    ok = False
                self.report.enumerated += 1
                if ok != (move in legal):
                    self.disagree("enumerator", program.move_label(move),
                                  f"its guard {'holds' if ok else 'fails'}, but legal_moves() "
                                  f"{'omits' if ok else 'lists'} it", dict(where, move=move))

    def check_consts(self, game: Game, consts: dict, where: dict):
        n = len(self.spec.params)
        for j, c in enumerate(self.spec.consts):
            value = game.P[n + j]
            out: list = []
            try:
                equal_to(c.type, consts[c.name], value, self.enc, out)
            except (Unsupported, AttributeError, TypeError):
                continue
            self.report.values += 1
            if self.sat(*out) == "unsat":
                self.disagree("value", f"const {c.name}",
                              f"is {format_value(c.type, value, self.program.domains)} in the interpreter, "
                              "something else in Z3", where)

    def check_values(self, game: Game, state: dict, params: dict, consts: dict, where: dict):
        program = self.program
        items = [(p, fn) for p, fn in program.invariants] + [(e, fn) for e, fn in program.ends]
        memo: dict = {}  # the definitions' values in this state, shared by the expressions
        for prop, fn in items:
            expr = prop.expr if isinstance(prop, ir.Property) else prop.cond
            label = f"{'invariant' if isinstance(prop, ir.Property) else 'end'} {prop.name}"
            try:
                mine = fn(game.S, game.P)
                err = None
            except Fault as exc:
                mine, err = None, exc
            try:
                value, fault, cons = self.enc.evaluate(expr, state, params, consts, tag=f"v{next(self.tags)}",
                                                       memo=memo)
            except Unsupported as exc:
                self.report.unsupported.setdefault(label, exc.message)
                continue
            self.report.values += 1
            if err is not None:
                if self.sat(*cons, fault) == "unsat":
                    self.disagree("value", label, f"faults in the interpreter ({err.message}) but not in Z3", where)
                continue
            z = self.decide(AND(value, NOT(fault)) if fault is not False else value, cons)
            if z is None:
                self.undetermined(label)
            elif z != bool(mine):
                self.disagree("value", label, f"is {bool(mine)} in the interpreter, {z} in Z3", where)

    def check_move(self, game: Game, state: dict, params: dict, consts: dict, move, where: dict):
        rep, program, enc = self.report, self.program, self.enc
        action = self.spec.actions[move[0]]
        label = program.move_label(move)
        args = tuple(to_symbolic(enc, t, v) for (_n, t), v in zip(action.params, move[1]))
        # the interpreter
        try:
            legal = game.failing_conjunct(move) < 0
            guard_fault = None
        except Fault as exc:
            legal, guard_fault = False, exc
        # Z3
        try:
            r = enc.step(state, params, consts, action, tag=f"m{next(self.tags)}", args=args, guard_only=not legal)
        except Unsupported as exc:
            rep.unsupported.setdefault(action.name, exc.message)
            return
        rep.pairs += 1
        gf = [c for c, _m, _s in r.guard_faults]
        if guard_fault is not None:
            if not gf or self.sat(*r.constraints, z3_or(gf)) == "unsat":
                self.disagree("guard_fault", label, f"the guard faults in the interpreter ({guard_fault.message}) "
                                                    "but cannot in Z3", where)
            return
        if gf and self.sat(*r.constraints, z3_or(gf)) == "sat" and not r.events:
            self.disagree("guard_fault", label, "the guard can fault in Z3 but not in the interpreter", where)
            return
        z = self.decide(r.guard, r.constraints)
        if z is None:
            self.undetermined(f"guard of {action.name}")
        elif z != legal:
            conj = game.failing_conjunct(move)
            why = "" if legal else f" (the interpreter's conjunct {conj + 1} is false)"
            self.disagree("guard", label, f"{'legal' if legal else 'illegal'} in the interpreter{why}, "
                                          f"{'legal' if z else 'illegal'} in Z3", where)
            return
        if not legal:
            return
        rep.legal += 1
        self.check_successor(game, r, move, label, where)

    def check_successor(self, game: Game, r, move, label: str, where: dict):
        rep, program, spec = self.report, self.program, self.spec
        S2 = [copy(v) for v in game.S]
        chance = random.Random()
        chance.setstate(game.chance.getstate())
        stop = None
        try:
            program.applies[move[0]](S2, game.P, chance, *move[1])
        except Gap as exc:
            stop = ("gap", exc)
        except Fault as exc:
            stop = ("fault", exc)
        base = [*r.constraints, r.guard]
        gaps = [c for c, _g in r.gaps]
        faults = [c for c, _m, _s in r.faults]
        if stop is not None:
            rep.stops += 1
            kind, exc = stop
            if kind == "gap":
                u = spec.undecided[exc.id]
                same = [c for c, g in r.gaps if spec.undecided[g].span == u.span]
                if not same or self.sat(*base, z3_or(same)) == "unsat":
                    self.disagree("stop", label, f"reaches the undecided point '{u.reason}' in the interpreter, "
                                                 "which Z3 rules out", where)
            else:
                if not faults or self.sat(*base, z3_or(faults)) == "unsat":
                    self.disagree("stop", label, f"faults in the interpreter ({exc.message}) but cannot in Z3", where)
            return
        rep.successors += 1
        eqs: list = []
        for var, value in zip(spec.state, S2):
            equal_to(var.type, r.state[var.name], value, self.enc, eqs)
        verdict = self.sat(*base, r.alive, *eqs)
        if verdict == "unsat":
            why = self.explain_successor(r, base, S2) if self.explain else \
                "Z3 cannot reach the interpreter's successor"
            self.disagree("successor", label, why, where)
            return
        if verdict == "unknown":
            self.undetermined(f"successor of {self.spec.actions[move[0]].name} (solver gave up)")
            return
        if not r.events:  # no chance in this step: Z3 must not see a fault or gap, nor another successor
            if (gaps or faults) and self.sat(*base, z3_or(gaps + faults)) == "sat":
                self.disagree("stop", label, "completes in the interpreter, but Z3 allows a "
                                             f"{'run-time error' if faults else 'gap'} with no chance involved", where)
                return
            if self.sat(*base, r.alive, NOT(AND(*eqs))) == "sat":
                rep.imprecise += 1

    def explain_successor(self, r, base, S2) -> str:
        """Why Z3 misses the interpreter's successor: no successor at all (with the constraints
        of an unsatisfiable core), or the variables it cannot reach, each alone."""
        spec, enc, dom = self.spec, self.enc, self.program.domains
        if self.sat(*base, r.alive) == "unsat":
            return ("Z3 allows no successor at all for this move, which is legal and completes in the interpreter; "
                    "an unsatisfiable core: " + self.core(r, [*base, r.alive]))
        bad = []
        for var, value in zip(spec.state, S2):
            eqs: list = []
            equal_to(var.type, r.state[var.name], value, enc, eqs)
            if self.sat(*base, r.alive, *eqs) == "unsat":
                shown = format_value(var.type, value, dom)
                bad.append(f"{var.name} = {shown if len(shown) < 80 else shown[:77] + '…'}")
        if not bad:
            return "Z3 reaches each variable of the interpreter's successor, but not all of them at once"
        return "Z3 cannot reach the interpreter's successor: " + "; ".join(bad[:4])

    def undetermined(self, label: str):
        self.report.undetermined += 1
        self.report.open_by[label] = self.report.open_by.get(label, 0) + 1

    def core(self, r, constraints: list, shown: int = 4) -> str:
        """A few constraints of an unsatisfiable core, as text (the step's tag taken out)."""
        s = z3.Solver()
        s.set("timeout", self.timeout_ms)
        s.set("unsat_core", True)
        tracked = {}
        for i, c in enumerate(constraints):
            if c is True:
                continue
            if c is False:
                return "a constraint that is false outright"
            name = f"c{i}"
            tracked[name] = c
            s.assert_and_track(c, z3.Bool(name))
        self.report.queries += 1
        if s.check() != z3.unsat:
            return "(no core found)"
        parts = []
        for b in s.unsat_core():
            text = " ".join(str(tracked[str(b)]).split())
            text = _untag(text)
            parts.append(text if len(text) <= 160 else text[:157] + "…")
        parts.sort(key=len)
        return "; ".join(parts[:shown]) + (f" (and {len(parts) - shown} more)" if len(parts) > shown else "")

    def disagree(self, kind: str, what: str, message: str, where: dict):
        self.report.disagreements.append(Disagreement(kind, what, message, where.get("seed", ""),
                                                      list(where.get("moves", [])), list(where.get("params", [])),
                                                      where.get("move")))


def _untag(text: str) -> str:
    """Z3 names without the per-check tag (`m12.draw3.b.0` -> `draw3.b.0`)."""
    import re
    return re.sub(r"\bm\d+\.", "", text)


def z3_or(conds: list):
    from .backends.z3 import OR
    return OR(*conds)


# ---- sampling states from plays ---------------------------------------------------------------------

def random_candidates(program: Program, rng: random.Random, k: int) -> list:
    """k moves with arguments drawn uniformly from their types (mostly illegal ones)."""
    out = []
    acts = program.spec.actions
    dom = program.domains
    for _ in range(k * 4):
        if len(out) >= k:
            break
        i = rng.randrange(len(acts))
        a = acts[i]
        try:
            args = tuple(rng.choice(dom.values(t)) for _n, t in a.params)
        except TypeError:  # a parameter of an infinite type
            continue
        out.append((i, args))
    return out


def check_agreement(spec: ir.Spec, players: int, pairs: int, seed="0", moves_per_state: int = 2,
                    illegal_per_state: int = 2, program: Program | None = None, max_steps: int = 5000,
                    timeout_ms: int = 20_000, explain: bool = True) -> AgreementReport:
    """Compare the interpreter and Z3 on about `pairs` (state, move) pairs from random plays.

    Each sampled state contributes up to `moves_per_state` legal moves (random) and
    `illegal_per_state` moves with random arguments; states are spread over whole games.
    """
    program = program or Program(spec, players)
    checker = Agreement(program, timeout_ms, explain)
    rep = checker.report
    rep.seed = str(seed)
    t0 = time.perf_counter()
    per_state = moves_per_state + illegal_per_state
    g = 0
    while rep.pairs < pairs:
        game_seed = f"{seed}/{g}"
        g += 1
        rng = random.Random(f"{game_seed}/agree")
        try:
            game = program.start(game_seed)
        except (Gap, Fault):
            continue
        # pick the steps to check before playing: spread over a game's typical length
        want = max(1, min(12, (pairs - rep.pairs) // per_state + 1))
        history: list = []
        states: list = []
        policy = random.Random(f"{game_seed}/policy")
        try:
            for _ in range(max_steps):
                if game.ended() is not None:
                    break
                legal = game.legal_moves()
                if not legal:
                    break
                states.append((game.snapshot(), game.chance.getstate(), list(history), legal))
                move = legal[policy.randrange(len(legal))]
                game.step(move, check=False)
                history.append(move)
        except (Gap, Fault):
            pass
        if not states:
            continue
        picks = sorted(rng.sample(range(len(states)), min(want, len(states))))
        for i in picks:
            S, chance, moves_before, legal = states[i]
            game.S[:] = [copy(v) for v in S]
            game.chance.setstate(chance)
            chosen = rng.sample(legal, min(moves_per_state, len(legal)))
            chosen += random_candidates(program, rng, illegal_per_state)
            where = {"seed": game_seed, "moves": moves_before, "params": game.params}
            checker.check_state(game, chosen, where)
            if rep.pairs >= pairs:
                break
    rep.seconds = time.perf_counter() - t0
    return rep


def recheck(program: Program, d: Disagreement, timeout_ms: int = 20_000, explain: bool = True) -> list[Disagreement]:
    """Compare again on the state and move of a disagreement (replayed from its seed and moves):
    the disagreements found there now. Empty once the bug behind it is fixed."""
    game = program.start(d.seed, d.params or None)
    for m in d.moves:
        game.step(m, check=False)
    checker = Agreement(program, timeout_ms, explain)
    checker.check_state(game, [d.move] if d.move is not None else [],
                        {"seed": d.seed, "moves": d.moves, "params": d.params})
    return checker.report.disagreements


def main(argv=None) -> int:
    """python -m verifier.crosscheck SPEC [--players N] [--pairs K] [--seed S]: print the agreement report."""
    import argparse
    import sys

    from .pipeline import load_spec

    ap = argparse.ArgumentParser(prog="python -m verifier.crosscheck", description=__doc__.splitlines()[0])
    ap.add_argument("spec")
    ap.add_argument("--players", type=int)
    ap.add_argument("--pairs", type=int, default=1000, help="(state, move) pairs per player count")
    ap.add_argument("--seed", default="0")
    args = ap.parse_args(argv)
    sys.setrecursionlimit(10_000)
    spec, _ = load_spec(args.spec)
    counts = [args.players] if args.players else range(spec.min_players, spec.max_players + 1)
    bad = 0
    for n in counts:
        rep = check_agreement(spec, n, args.pairs, args.seed)
        print(rep.summary())
        if rep.open_by:
            print("  undetermined: " + ", ".join(f"{k} {v}" for k, v in sorted(rep.open_by.items())))
        for k, v in rep.unsupported.items():
            print(f"  not encoded: {k}: {v}")
        for d in rep.disagreements:
            print("  " + d.render())
        bad += len(rep.disagreements)
    return 1 if bad else 0


__all__ = ["main", "recheck", "Agreement", "AgreementReport", "Disagreement", "check_agreement", "equal_to", "symbolic_state",
           "to_symbolic", "IMPLIES"]


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())

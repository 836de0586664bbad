"""Prove a spec's properties with Z3: ir.Spec + player count -> [Result] with honest statuses.

Invariants are proved together by induction (each action preserves all of them; the ones an
action breaks are dropped from the assumptions until what remains is inductive), and must hold
in every initial state. What is not proved is looked for in random games of the interpreter
(which step around undecided points to get further; what they find is a real trace), then by
bounded model checking from the initial states; a counterexample of the search counts only once
it replays in the interpreter (with the prover's chance outcomes forced), otherwise it is
reported as spurious with the reason.

Statuses: proved (by induction or ranking, unbounded), bounded (no violation up to depth k; when
the search times out at depth k + 1, k is the last depth it finished),
violated (with a replayed trace), unknown (time-out, unsupported construct, or a spurious
counterexample), and for reachability questions reachable (with a replayed witness) or
unreachable (proved).
"""

from __future__ import annotations

import contextlib
import functools
import math
import time
from dataclasses import dataclass, replace

import z3

from . import ir
from .ir import reads
from .backends.interpreter import Program
from .backends.runtime import Fault, ForcedChance, Gap, Spurious
from .backends.z3 import (BEYOND_EXACT, AND, EQ, IMPLIES, NOT, OR, BagV, Encoder, MapV, OptV, PileV, SeqPileV, SeqV, SetV, StepResult,
                          Unsupported, _consts, _lt, _model_bool, _model_int, assert_all, concrete,
                          is_false)
from .trace import Trace, TraceStep, describe_changes, moves_text
from .types import BagT, BoolT, EnumT, IntT, MapT, PileT, PlayerT, format_value


@dataclass
class Result:
    property: str
    kind: str                 # invariant reachable terminates bound undecided deadlock fault action
    players: int
    status: str               # proved bounded violated unknown reachable unreachable
    seconds: float
    message: str = ""
    depth: int | None = None
    cite: ir.Cite | None = None
    expected_violation: str | None = None
    span: object = None
    trace: Trace | None = None

    @property
    def problem(self) -> bool:
        """A result that makes `verify` fail: a violation the spec does not expect."""
        return self.status == "violated" and not self.expected_violation and self.kind not in ("reachable",)

    def to_json(self) -> dict:
        return {"property": self.property, "kind": self.kind, "players": self.players, "status": self.status,
                "depth": self.depth, "seconds": round(self.seconds, 3),
                "cite": self.cite.to_json() if self.cite else None, "expected_violation": self.expected_violation,
                "message": self.message, "where": self.span.to_json() if self.span else None,
                "trace": self.trace.to_json() if self.trace is not None else None}


EXPLORE = 400_000  # moves of the directed search (explore.py), per player count

# the results every run has besides the spec's properties
NO_RUNTIME_ERRORS = ir.Property("fault", "no_runtime_errors", None, None,
                                doc="No move runs into a run-time error of the spec.")
NO_DEADLOCK = ir.Property("deadlock", "no_deadlock", None, None, doc="Every state that is not an end has a move.")


def _gap_property(u_pt: ir.Undecided) -> ir.Property:
    """The result of an undecided point (one for all its inlined copies: named by its place)."""
    return ir.Property("undecided", f"gap:{u_pt.span.line}:{u_pt.span.col}" if u_pt.span else f"gap:{u_pt.id}",
                       u_pt.cite, u_pt.span, doc=u_pt.reason)


class _Budget:
    """The per-property time limit (Verifier.property_timeout): the solver time the questions of
    one property (or of the induction, which proves the invariants together) have taken."""

    def __init__(self, limit: float):
        self.limit = limit
        self.spent = 0.0

    def left_ms(self) -> int:
        """The milliseconds still left (0 or less: the limit is spent)."""
        return int((self.limit - self.spent) * 1000)

    def why(self) -> str:
        spent = f"{self.spent:.1f}" if self.spent >= 1 else f"{self.spent:.2g}"
        return f"the time limit of {self.limit:g} s per property was reached ({spent} s of solver time)"


def _preprocessed(method):
    """The verifier's method with its check() questions asked of Verifier.PREPROCESS's solver."""
    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        self._preprocessed += 1
        try:
            return method(self, *args, **kwargs)
        finally:
            self._preprocessed -= 1
    return wrapper


@contextlib.contextmanager
def _collector_off():
    """Python's cyclic garbage collector off while a run lasts (as it was after). A Z3 term freed
    (its Python object collected) gives its id to a term made after it, and Z3's work on a question
    depends on its terms' ids: collected at moments that depend on the hash seed (the allocations
    of a search over sets of strings, say), the same questions took another resource count from
    run to run (de.rules with 3 players, PYTHONHASHSEED 1 against 2: 89 of 193 questions from the
    104th on). Objects are still freed when their last reference goes; what an earlier run in the
    process left (another player count's Verifier) is not freed during this one. (Not collected
    first: in the test suite's process, with its large heap, that took the verify tests 14% longer.
    de.rules, 5 players: the peak memory the same, 282 MB against 283 MB, once the directed
    search's moves kept no frames in cycles.)"""
    import gc

    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


class _Solver(z3.Solver):
    """A solver whose questions count against the verifier's current per-property budget: one
    asked with the budget spent is not asked (unknown, reason_unknown naming the limit), and one
    asked with less left than its own time limit gets only what is left."""

    def __init__(self, budget_of, limit_ms: int | None = None, tactics: tuple = ()):
        if tactics:  # a solver that applies these tactics to the question, the last of them solving it
            super().__init__(solver=z3.Then(*tactics).solver().solver, ctx=z3.main_ctx())
        else:
            super().__init__()
        self._budget_of = budget_of  # () -> the current _Budget, or None
        self._limit_ms = limit_ms    # the run's time limit per question (--timeout), in ms
        self._timeout = None         # the time limit set on the solver, in ms
        self.over = False            # the last question was cut short or refused by the budget
        self._took = 0.0             # the seconds the last question took

    def set(self, *args, **keys):
        if len(args) == 2 and args[0] == "timeout":
            self._timeout = args[1]
        if "timeout" in keys:
            self._timeout = keys["timeout"]
        return super().set(*args, **keys)

    def check(self, *assumptions):
        b = self._budget_of()
        self.over = False
        if b is None:
            t0 = time.perf_counter()
            try:
                return super().check(*assumptions)
            finally:
                self._took = time.perf_counter() - t0
        left = b.left_ms()
        if left <= 0:
            self.over, self._why = True, b.why()
            return z3.unknown
        cut = self._timeout is None or left < self._timeout
        if cut:
            super().set("timeout", left)
        t0 = time.perf_counter()
        try:
            r = super().check(*assumptions)
        finally:
            self._took = time.perf_counter() - t0
            b.spent += self._took
            if cut:
                super().set("timeout", self._timeout if self._timeout is not None else 4294967295)
        if r == z3.unknown and cut and super().reason_unknown() in ("timeout", "canceled"):
            self.over, self._why = True, b.why()
        return r

    def reason_unknown(self):
        """Why the last question was not settled: the per-property limit; Z3's own word ("timeout",
        "canceled") said as the time limit per question where it took that long; or Z3's reason."""
        if self.over:
            return self._why
        why = super().reason_unknown()
        if why in ("timeout", "canceled") and self._timeout and self._took * 1000 >= 0.9 * self._timeout:
            option = ", --timeout" if self._timeout == self._limit_ms else ""
            return f"a question took the solver's time limit ({self._timeout / 1000:g} s{option})"
        return why


class Verifier:
    """All proof obligations of one spec for one player count."""

    def __init__(self, spec: ir.Spec, players: int, depth: int = 8, timeout: float = 30.0, games: int = 100,
                 explore: int = EXPLORE, answers=None, hard_before: dict | None = None,
                 property_timeout: float | None = None, exact: bool = True, seed: str = "verify"):
        self.spec = spec
        self._args = (spec, players, depth, timeout, games, explore, answers, hard_before, property_timeout)
        # the random games' seeds are seed/0, seed/1, ...; the directed search's seed, seed/GOAL, ...
        self.seed = seed
        # the solver time one property's questions may take in all (None: no limit); the induction,
        # which proves the invariants together, has one such limit (_Budget, budget())
        self.property_timeout = property_timeout
        self._budget: _Budget | None = None
        self._sim_error = ""  # simulation(): why the random games could not be played
        self.answers = answers  # an answers.Answers: unsat answers kept across runs, or None
        # preserved(): action -> the invariants a brief question alone did not settle for it with
        # another player count of the spec (split into cases at once here); hard_alone_at: this run's
        self.hard_before: dict[str, set[str]] = {a: set(ns) for a, ns in (hard_before or {}).items()}
        self.hard_alone_at: dict[str, set[str]] = {}
        self.n = players
        self.depth = depth
        self.games = games  # random games played for witnesses the bounded search is too shallow to find
        self.explore = explore  # moves of the directed search for what the random games did not reach
        self._explored = None         # the directed search's Exploration, once it ran
        self._ruled_out: dict = {}    # reachability goal -> whether Z3 proves it out of reach (ruled_out)
        self._explore_asked = False    # the search is set up once, even when there is nothing to look for
        self._preprocessed = 0         # > 0: check() asks of a solver that simplifies first (PREPROCESS)
        self._k_chain = None           # k_chain(): k-induction's runs, once asked for
        self._k_assumed: list[set] = []  # per state of that chain: the proved invariants asserted there
        self._k_left: dict = {}  # search_violation(): name -> (p, why, cti, what was assumed) left bounded
        self._unproved: set[str] = set()
        self._gaps_unreachable: dict[tuple, bool] = {}  # an undecided point's ids -> gap_unreachable's answer
        self.timeout_ms = int(timeout * 1000)
        self.enc = Encoder(spec, players)
        if not exact:
            self.enc.exact = {}
        # check_faults(): a move may put more cards in a pile followed card by card than its
        # capacity (BEYOND_EXACT), a state the encoding leaves out
        self.beyond_exact = False
        self.beyond_exact_cut = False  # ... where the check's time limit (property_timeout) was reached
        self.results: list[Result] = []
        self._program = None
        self.invariants = [p for p in spec.properties if p.kind == "invariant"]

    # ---- the encodings, built once ------------------------------------------------------
    def build(self):
        enc = self.enc
        pfaults: list = []  # the constants' run-time errors: the setup's first (a game meets them as it starts)
        self.params, self.consts, self.pcons = enc.fresh_params(faults=pfaults)
        self.init = enc.initial(self.params, self.consts)
        if pfaults:
            self.init.alive = AND(*[NOT(c) for c, _m, _s in pfaults], self.init.alive)
            self.init.faults[:0] = pfaults
        beyond = [c for c, m, _s in self.init.faults if m.startswith(BEYOND_EXACT)]
        if beyond and enc.exact:
            # the piles followed card by card have a capacity measured on sample setups: where some
            # setup may make more cards than that, those games are not in the encoding, and every
            # answer would leave them out; no pile is followed card by card then
            s = self.solver()
            s.add(*self.init.constraints, OR(*beyond))
            if s.check() != z3.unsat:
                self.enc = Encoder(self.spec, self.n)
                self.enc.exact = {}
                return self.build()
        # every zone starts empty: the totals after the setup are what it created (its ledger)
        from .backends.z3 import zone_totals
        empty = zone_totals(enc, {v.name: enc.default(v.type) for v in self.spec.state})
        self.init_totals = {t: [0] * len(vec) for t, vec in empty.items()}
        for t, vec in self.init.ledger.items():
            self.init_totals[t] = list(vec)
        self.pre, self.pre_ok = enc.fresh_state("s.")
        self.steps: dict[str, StepResult] = {}
        self.unsupported: dict[str, str] = {}
        self.post_totals: dict = {id(self.init.state): self.init_totals}  # id(state) -> its totals, when known
        pre_totals = None
        for a in self.spec.actions:
            try:
                st = enc.step(self.pre, self.params, self.consts, a, tag=f"t.{a.name}")
            except Unsupported as exc:
                self.unsupported[a.name] = exc.message
                continue
            self.steps[a.name] = st
            if pre_totals is None:
                from .backends.z3 import zone_totals
                pre_totals = zone_totals(enc, self.pre)
            self.post_totals[id(st.state)] = enc.totals_after(self.pre, st, pre_totals)
        self.pre_totals = pre_totals
        self._cases: dict = {}
        self._splits: dict = {}  # (id(step), beyond) -> (paths, index levels)
        self._beyond: dict = {}  # _named_beyond(): (id(step), let's id) -> whether it may lie beyond its cases
        self._values: dict = {}
        self._free: set = set()  # invariants whose evaluation makes free choices
        if not hasattr(self, "post_totals"):
            self.post_totals = {}
        self._memos: dict = {}   # id(state) -> (state, the definitions' values there: Encoder.evaluate)
        self._hard_alone: set[str] = set()  # preserved(): invariants a brief question alone did not settle
        self._unsettled_at_once: set[str] = set()  # preserved(): actions its question of all at once did not settle
        self._allowed: tuple | None = None  # allowed(): (the invariants assumed, its solver, questions asked)
        self._ranking_pre: dict = {}  # ranking_broken(): a ranking's name -> its pre-state parts
        self._kept: set | None = None  # rankings_kept()
        self._kept_with_faults: set[str] = set()  # actions faults_and_rankings kept for the rankings

    def value(self, expr: ir.Expr, state: dict, key=None, tag="v"):
        """(value, fault condition, constraints) of an expression in a state (cached by key)."""
        if key is not None and key in self._values:
            return self._values[key]
        kept = self._memos.get(id(state))
        if kept is None or kept[0] is not state:
            kept = self._memos[id(state)] = (state, {})  # the state is kept: its id stays its own
        r = self.enc.evaluate(expr, state, self.params, self.consts, tag=tag, totals=self.post_totals.get(id(state)),
                              memo=kept[1])
        if key is not None:
            self._values[key] = r
        return r

    def holds(self, p: ir.Property, state: dict, where: str):
        """The invariant's value in a state, false when its evaluation faults."""
        before = self.enc.choices
        v, f, cons = self.value(p.expr, state, key=(p.name, where), tag=f"{where}.{p.name}")
        if where == "pre" and self.enc.choices != before:
            self._free.add(p.name)
        return AND(v, NOT(f)), cons

    def untouched(self, a: ir.Action, p: ir.Property) -> bool:
        """Whether action a leaves every variable the invariant reads as it was (the same terms), so
        that the invariant's value after the move is its value before: nothing to prove.

        Not when evaluating the invariant makes free choices (an over-approximation such as the
        rank of a card in a pile whose order is not followed): two evaluations may then differ."""
        self.holds(p, self.pre, "pre")
        if p.name in self._free:
            return False
        st = self.steps[a.name]
        return all(_same_value_terms(self.pre[name], st.state[name]) for name in reads(self.spec, p.expr))

    def solver(self, tactics: tuple = ()) -> z3.Solver:
        s = _Solver(lambda: self._budget, self.timeout_ms, tactics)
        s.set("timeout", self.timeout_ms)
        assert_all(s, self.pcons)
        return s

    def over_budget(self) -> bool:
        """Whether the current per-property limit is spent: an unknown answer now may be the
        limit's, and is not remembered as the question's (hard, unsettled, out of reach)."""
        return self._budget is not None and self._budget.left_ms() <= 0

    def budget(self, fn, *args, limited: bool = True):
        """fn(*args) with its solver questions under a per-property time limit of their own
        (property_timeout; none when limited is False: the directed search, bounded by its moves,
        whose questions serve several properties)."""
        outer = self._budget
        self._budget = _Budget(self.property_timeout) if limited and self.property_timeout is not None else None
        try:
            return fn(*args)
        finally:
            self._budget = outer

    def allowed(self, *facts):
        """Whether some state the proved invariants allow (self.assumed, before any move) meets
        the facts: the result of one incremental solver that holds the assumptions, each question
        asked under a literal of its own (z3's check with assumptions), so that the assumptions are
        taken in once, not once per question. The reachability properties and the invariants'
        conditions are asked so (de.rules, 3 players: 27 questions in 1.7 s, against 10.7 s on a
        fresh solver each; the same answers)."""
        s, lit = self.allowed_under(*facts)
        return s.check(lit)

    def allowed_under(self, *facts) -> tuple:
        """(allowed()'s solver, a new literal that stands for the facts there)."""
        if self._allowed is None or self._allowed[0] != frozenset(self.assumed):
            s = self.solver()
            assert_all(s, self.assumptions(self.assumed))
            self._allowed = (frozenset(self.assumed), s, [0])
        _assumed, s, asked = self._allowed
        asked[0] += 1
        lit = z3.Bool(f"allowed!{asked[0]}")
        assert_all(s, [IMPLIES(lit, AND(*facts))])
        return s, lit

    def base_facts(self, a: ir.Action | None) -> list:
        """What every question about an action (None: the setup) shares: the pre-state's types, the
        step's guard and its choices."""
        if a is None:
            return list(self.init.constraints)
        return self.step_facts(self.steps[a.name])

    def step_facts(self, st: StepResult, guard: bool = True) -> list:
        """The base facts of one step (a whole action's or one case of a split step); without its
        guard when guard is False."""
        return [*self.pre_ok, *st.constraints, *([st.guard] if guard else [])]

    def ask(self, a: ir.Action | None, *facts, timeout_ms: int | None = None, second: bool = True):
        """(result, model or None, reason): the facts together with the action's base facts
        (second: as check's).

        A fresh solver each time: Z3's incremental mode (push/pop on one solver) skips the
        preprocessing these queries need, and was measured twice as slow here."""
        return self.check([*self.base_facts(a), *facts], timeout_ms, second)

    QUICK_MS = 4000  # the first try of a question that can be split (by cases, or one by one)
    MAX_CASES = 25  # a step split by the values of its player parameters: at most this many cases

    def cases(self, a: ir.Action) -> list[StepResult]:
        """The action's step once per combination of values of its player parameters, each encoded
        with those values fixed (so that every index by a player is resolved while encoding); []
        when the action has no player parameter or too many combinations."""
        if a.name not in self._cases:
            split = tuple(i for i, (_n, t) in enumerate(a.params) if isinstance(t, PlayerT))
            self._cases[a.name] = self._encode_cases(a, split, "c") if self.splittable(a) else []
        return self._cases[a.name]

    def _encode_cases(self, a: ir.Action, keep: tuple, prefix: str) -> list[StepResult]:
        """The action's step once per combination of values of the parameters at these indices
        (player parameters), the others left free."""
        import itertools
        out: list = []
        for combo in itertools.product(range(self.n), repeat=len(keep)):
            cons: list = []
            args = tuple(combo[keep.index(i)] if i in keep else self.enc.fresh(t, f"{prefix}.{a.name}.{combo}.{n}", cons)
                         for i, (n, t) in enumerate(a.params))
            st = self.enc.step(self.pre, self.params, self.consts, a,
                               tag=f"{prefix}.{a.name}.{'.'.join(map(str, combo))}", args=args)
            st.constraints = cons + st.constraints
            if self.pre_totals is not None:
                self.post_totals[id(st.state)] = self.enc.totals_after(self.pre, st, self.pre_totals)
            out.append(st)
        return out

    def deciding_players(self, a: ir.Action, props: list) -> list[int]:
        """The indices of a's player parameters that what the invariants read after a's step may
        depend on: those named (through its lets, the procedures' arguments among them) by a
        statement that writes a variable one of them reads, in its place, its value or the
        conditions and loops around it. The others only choose what the invariants do not see."""
        read: set = set()
        for p in props:
            read |= ir.reads(self.spec, p.expr)
        names = {n for n, _t in a.params}
        deps: dict = {}  # a let's name -> the parameters its value names

        def named(*exprs) -> set:
            out: set = set()
            for e in exprs:
                if e is None:
                    continue
                for x in _walk(e):
                    if isinstance(x, ir.Local):
                        out |= {x.name} & names
                        out |= deps.get(x.name, set())
            return out

        found: set = set()

        def walk(stmts, around: set):
            for st in stmts:
                if isinstance(st, ir.Let):
                    deps[st.name] = named(st.value) | around
                elif isinstance(st, ir.If):
                    inner = around | named(st.cond)
                    walk(st.then, inner)
                    walk(st.other, inner)
                elif isinstance(st, ir.For):
                    walk(st.body, around | named(st.domain, st.where, st.order))
                elif isinstance(st, ir.Assign) and st.target.var in read:
                    found.update(around | named(st.value, *st.target.path))
                elif isinstance(st, ir.Move) and (moved := ir.writes(self.spec, [st])) & read:
                    # the cards moved, and the places of the zones read (a pile's refill is the source's)
                    src = st.src.var in read or (moved - {st.src.var, st.dst.var}) & read
                    found.update(around | named(st.value, *(st.src.path if src else ()),
                                                *(st.dst.path if st.dst.var in read else ())))
                elif isinstance(st, ir.Shuffle) and st.zone.var in read:
                    found.update(around | named(*st.zone.path))
        walk(a.body, set())
        return [i for i, (n, t) in enumerate(a.params) if isinstance(t, PlayerT) and n in found]

    def fewer_cases(self, a: ir.Action, keep: tuple) -> list[StepResult]:
        """The action's step once per combination of values of the player parameters at these
        indices, the others left free (cases() fixes them all)."""
        key = (a.name, keep)
        if key not in self._cases:
            self._cases[key] = self._encode_cases(a, keep, "f")
        return self._cases[key]

    def splittable(self, a: ir.Action) -> bool:
        split = [t for _n, t in a.params if isinstance(t, PlayerT)]
        return bool(split) and self.n ** len(split) <= self.MAX_CASES

    def ask_step(self, st: StepResult, *facts, timeout_ms: int | None = None, guard: bool = True):
        """Like ask, for one step (a whole action's or one case of a split step); without its guard
        when guard is False."""
        return self.check([*self.step_facts(st, guard), *facts], timeout_ms)

    SPLIT_PATHS = 16   # a hard question split by the step's branches: at most this many paths
    SPLIT_COMBOS = 27  # each path split by the values of what its map indices depend on: at most this many

    def settle(self, a: ir.Action | None, st: StepResult | None, *facts, guard: bool = True,
               hard: set | None = None, beyond: bool = False):
        """(result, model or None, reason) of a question about one step of action a (both None:
        the setup), split into cases when it is hard.

        First the whole question, briefly. Then once per path through the step's branches (the
        solver otherwise explores the encodings of branches a case cannot take, such as a new deal
        behind a branch the case cannot take), briefly; a path still open is asked once per value
        of the first variable its symbolic map indices depend on (a player-valued argument, state
        variable or let that indexes every per-player zone), briefly, what is still open once per
        value of the next variable, and so on (by_values), the last variable's cases each with the
        whole time limit. sat as soon as a case is; unsat when every case is; unknown at the first
        case that is not settled. A path whose branch the question itself denies (a fault or gap
        condition carries the path it is met on) is not asked: it cannot be taken.

        hard, when given, remembers across a series of like questions (the invariants one at a
        time, against one step) what was not settled briefly: the whole question ("whole"), each
        path by its number and each path's variables (by_values). A later question of the series
        skips those brief tries and splits at once; every case is still asked, so the answer is the
        same, only the wasted tries go."""
        step = self.init if st is None else st
        asked = [*([st.guard] if st is not None and guard else []), *facts]
        facts = [*(self.init.constraints if st is None else self.step_facts(st, guard)), *facts]
        paths, levels = self.splits(step, a, beyond)
        combos = math.prod(len(cases) for cases in levels)
        if len(paths) <= 1 and combos <= 1:
            return self.check(facts, self.timeout_ms)
        hard = set() if hard is None else hard
        if "whole" not in hard:
            r, m, why = self.check(facts, self.QUICK_MS)
            if r != z3.unknown:
                return r, m, why
            hard.add("whole")
        conj = _literals(asked) if len(paths) > 1 else {}
        for k, path in enumerate(paths):
            if any(_contradicts(lit, conj) for lit in path):
                continue  # the question itself takes the other side of one of the path's branches
            # a brief try of the path, unless it is the whole question (one path), is the only
            # combination below (asked there in full), or was found hard before
            if len(paths) > 1 and combos > 1 and k not in hard:
                r, m, why = self.check([*facts, *path], self.QUICK_MS)
                if r == z3.sat:
                    return r, m, why
                if r == z3.unsat:
                    continue
                hard.add(k)
            r, m, why = self.by_values([*facts, *path], levels, k, hard)
            if r != z3.unsat:
                return r, m, why
        return z3.unsat, None, ""

    def by_values(self, facts: list, levels: list, path: int, hard: set):
        """settle()'s question on one path, once per value of the first index variable; a value
        not settled briefly there is split by the next variable's values, and so on, the last
        variable's cases each with the whole time limit. sat or unknown at the first case that is;
        unsat when every case is. hard remembers, per path and variable, that a brief try failed:
        later questions of the series split there at once."""
        if not levels:
            return self.check(facts, self.timeout_ms)
        first, rest = levels[0], levels[1:]
        for case in first:
            if rest and (path, len(rest)) not in hard:
                r, m, why = self.check([*facts, case], self.QUICK_MS)
                if r == z3.sat:
                    return r, m, why
                if r == z3.unsat:
                    continue
                hard.add((path, len(rest)))
            r, m, why = self.by_values([*facts, case], rest, path, hard)
            if r != z3.unsat:
                return r, m, why
        return z3.unsat, None, ""

    # Z3's settings for check()'s brief tries (a fresh solver, asked once; a try its caller splits
    # further when it fails). solve-eqs, Z3's first step, substitutes only variables an equation
    # already gives, without solving equations through the theories (theory_solver); and the try is
    # asked first of the simplex-based arithmetic solver (arith.solver 2; Z3's default is 6), then,
    # when that does not settle it within the try's share, again without it. de.rules' questions of
    # a whole run, asked again from files (144, 158 and 203 with 3, 4 and 5 players): 41.1, 43.8
    # and 52.6 s with Z3's defaults, 33.0, 35.3 and 44.2 s so, the same two brief tries per count
    # left open. The simplex solver alone settled the questions both settle in about 35% less time,
    # but left open brief tries the default settles, hence the second try. A question with the
    # run's whole limit keeps Z3's defaults: without the theory solvers, Wizard Extreme's
    # `all_cards_dealt` at the initial states (3 players) timed out after 30 s, where Z3's defaults
    # prove it. So do the incremental solvers (allowed, check_alone, Unrolling): with the simplex
    # solver on allowed()'s, de.rules' 4- and 5-player counts were still in its questions after 5
    # minutes.
    BRIEF = {"theory_solver": False}
    FIRST = {"arith.solver": 2}
    # The questions whether a condition can hold on a step (possible(): run-time errors, undecided
    # points; faults_and_rankings) are asked, on fresh solvers, of these tactics: simplified, and
    # the variables an equation gives substituted, before Z3's SMT core sees them (the run-time
    # error check took about 40% less time so; measured in benchmarks/HISTORY.md). The induction's
    # questions were slower so, and so were the incremental solvers' (a tactic's solver does all its
    # work again at each check): both keep Z3's defaults.
    PREPROCESS = ("simplify", "solve-eqs", "simplify", "smt")

    def check(self, facts: list, timeout_ms: int | None = None, second: bool = True):
        """(result, model or None, reason) of the facts on a fresh solver, within the time limit
        (or less). With a store of answers, an unsat answer found before is taken from it, and
        one found now is added to it; so is a brief try (shorter than the run's limit: its caller
        splits the question when it fails) that timed out. A brief try is asked of the simplex
        solver (FIRST) and, where that leaves it open, again of Z3's default arithmetic; not
        again when second is False (the induction's questions of a whole step: what they leave
        open is split into questions that settle sooner than the second try fails)."""
        ms = self.timeout_ms if timeout_ms is None else min(timeout_ms, self.timeout_ms)
        key, known = self._recall(facts, ms)
        if known == "unsat":
            return z3.unsat, None, ""
        if known == "unknown":
            return z3.unknown, None, f"timeout (a brief try of {ms} ms, as in an earlier run)"
        t0 = time.perf_counter()
        if ms >= self.timeout_ms:
            tries = [{}]  # the run's whole limit: Z3's defaults
        elif self.FIRST:
            # the second when the first leaves it open (and the caller wants it)
            tries = [{**self.BRIEF, **self.FIRST}, self.BRIEF][:2 if second else 1]
        else:
            tries = [self.BRIEF]
        for settings in tries:
            s = self.solver(self.PREPROCESS if self._preprocessed else ())
            for k, val in settings.items():
                s.set(k, val)
            if timeout_ms is not None:
                self._limit(s, ms)
            assert_all(s, facts)
            r = s.check()
            if r != z3.unknown:
                break
        why = s.reason_unknown() if r == z3.unknown else ""
        self._remember(key, r, why, ms, time.perf_counter() - t0)
        return r, (s.model() if r == z3.sat else None), why

    def check_alone(self, base: list, t, solvers: dict, tag, timeout_ms: int):
        """The result of check([*base, t], timeout_ms), for one of many questions that share base:
        asked of an incremental solver kept in solvers under tag (base asserted once; t pushed and
        popped). Through the store of answers like check()."""
        ms = min(timeout_ms, self.timeout_ms)
        key, known = self._recall([*base, t], ms)
        if known is not None:
            return z3.unsat if known == "unsat" else z3.unknown
        s = solvers.get(tag)
        if s is None:
            s = solvers[tag] = self.solver()
            self._limit(s, ms)
            assert_all(s, base)
        t0 = time.perf_counter()
        s.push()
        assert_all(s, [t])
        r = s.check()
        why = s.reason_unknown() if r == z3.unknown else ""
        s.pop()
        self._remember(key, r, why, ms, time.perf_counter() - t0)
        return r

    RLIMIT_PER_MS = 7500  # a brief try's share of Z3's resource count, per millisecond of its time

    def _limit(self, s: z3.Solver, ms: int) -> None:
        """Bound a question to ms milliseconds; a brief try (shorter than the run's limit) by Z3's
        resource count instead, ms * RLIMIT_PER_MS, with twice ms on the clock as a backstop: the
        questions a brief try leaves for splitting are then the same whatever the machine's load
        (de.rules: the questions answered within 4 s took at most 19.4 million, those that time
        out 21 to 80 million in their 4 s, at 5 to 20 million a second)."""
        if ms < self.timeout_ms:
            s.set("rlimit", max(1, int(ms * self.RLIMIT_PER_MS)))
            s.set("timeout", min(2 * ms, self.timeout_ms))
        else:
            s.set("timeout", ms)

    def _recall(self, facts: list, ms: int) -> tuple:
        """(key or None, what the store of answers says of the question asked within ms: "unsat",
        "unknown" for a brief try that timed out before, or None)."""
        if self.answers is None:
            return None, None
        key = self.answers.key([*self.pcons, *facts])
        brief = ms if ms < self.timeout_ms else None  # a try the caller splits further when it fails
        return key, (self.answers.known(key, brief) if key is not None else None)

    def _remember(self, key, r, why: str, ms: int, seconds: float) -> None:
        """Keep an unsat answer, or a brief try (shorter than the run's limit) that timed out (not
        one the per-property limit cut short or refused: its reason names that limit, _Budget)."""
        if key is None:
            return
        if r == z3.unsat:
            self.answers.add(key, seconds)
        elif r == z3.unknown and ms < self.timeout_ms and any(w in why for w in ("timeout", "solver's time limit",
                                                                                  "canceled", "resource")):
            self.answers.add_brief(key, ms)

    def splits(self, st: StepResult, a: ir.Action | None, beyond: bool = False) -> tuple[list, list]:
        """(paths, index_levels) of a step, computed once per step (and beyond)."""
        key = (id(st), beyond)
        if key not in self._splits:
            self._splits[key] = (_paths(st.branches, self.SPLIT_PATHS), self.index_levels(st, a, beyond))
        return self._splits[key]

    def index_levels(self, st: StepResult, a: ir.Action | None, beyond: bool = False) -> list[list]:
        """The variables (state, arguments, named lets, parameters of small finite types) that the
        step's symbolic map indices depend on, each as one condition per value. Variables are
        taken in the order the indices first use them, as long as the combinations of their values
        stay within SPLIT_COMBOS."""
        known: dict = {}
        pairs = [(v.type, self.pre[v.name]) for v in self.spec.state if not v.zone]
        if a is not None:
            pairs += [(t, x) for (_n, t), x in zip(a.params, st.args)]
        pairs += [(p.type, self.params[p.name]) for p in self.spec.params]
        for t, x in pairs:
            for var, cases in self.var_cases(t, x):
                known.setdefault(var.get_id(), cases)
        # a named let is its expression's value, which nothing keeps within the let's type where
        # the step faults (a definition's result beyond its declared type, get() of none): for a
        # question that does not assume the step completes (beyond: a run-time error's), its
        # values outside the type are a case too, else such an error passed every case refuted
        for t, x in st.named:
            for var, cases in self.var_cases(t, x):
                if beyond and not z3.is_bool(var) and self._named_beyond(st, var, cases):
                    cases = cases + [NOT(OR(*cases))]
                known.setdefault(var.get_id(), cases)
        order: list = []
        for k in st.index_keys:
            for x in _consts(k):
                if x.get_id() in known and x.get_id() not in order:
                    order.append(x.get_id())
        levels: list = []
        size = 1
        for vid in order:
            size *= len(known[vid])
            if size > self.SPLIT_COMBOS:
                break
            levels.append(known[vid])
        return levels

    def _named_beyond(self, st: StepResult, var, cases: list) -> bool:
        """Whether the step's own facts (its constraints and the pre-state's types) let a named
        let's value lie outside its cases (asked once per step and let, briefly; unknown: yes).
        Where they do not (de.rules' seats), the split needs no case for the values beyond."""
        key = (id(st), var.get_id())
        if key not in self._beyond:
            s = self.solver()
            s.set("timeout", min(self.QUICK_MS, self.timeout_ms))
            assert_all(s, [*self.step_facts(st, guard=False), NOT(OR(*cases))])
            self._beyond[key] = s.check() != z3.unsat
        return self._beyond[key]

    def var_cases(self, t, x) -> list:
        """[(variable, [one condition per value])] for a value of a small finite type."""
        if isinstance(x, OptV):
            out = self.var_cases(BoolT(), x.some) if z3.is_const(x.some) else []
            return out + self.var_cases(t.inner, x.val)
        if not isinstance(x, z3.ExprRef) or not z3.is_const(x) or concrete(x) is not None:
            return []
        if isinstance(t, BoolT):
            return [(x, [x, NOT(x)])]
        if not isinstance(t, (IntT, EnumT, PlayerT)):
            return []
        if isinstance(t, IntT) and (t.lo is None or t.hi is None):
            return []
        size = self.enc.dom.size(t)
        if size > 8:
            return []
        lo = t.lo if isinstance(t, IntT) else 0
        return [(x, [x == lo + k for k in range(size)])]

    @_preprocessed
    def possible(self, a: ir.Action, conds_of, assume: list, with_guard: bool = True) -> list[str]:
        """Which of an action's conditions (conds_of(step) -> [(label, term, span)]) some state the
        assumptions allow can meet: [] when each is refuted. All at once first, briefly (QUICK_MS,
        as the induction's question of all invariants at once: de.rules' card comparison with 4
        players took a little more than 2 s so, and its one-at-a-time questions after a 2 s try
        about 14 s); then one at a time, and where that does not settle a label (briefly, when the
        step can be split) each condition once per value of the action's player parameters,
        remembering across the conditions and cases what needed splitting (settle's hard: the
        cases are the same step with other values; sharing was measured faster on Wizard Extreme,
        128 s against 109 s).
        What stays open (sat or unknown) is returned by label; the labels a model of the first
        question meets are open without more questions. (The open conditions of a case all at
        once, before each alone, was measured 6 times slower: their disjunction is much harder than
        each.)

        Before each condition is asked with its step, it is asked with the assumptions and the
        guard only (sliced): most run-time errors contradict the guard and the invariants, and
        without the step's own constraints (a whole new deal, say) the solver sees that at once.
        Fewer facts can only allow more, so unsat there refutes the condition; anything else goes
        on to the full question. These sliced questions share their facts but the condition, so
        they are asked of one incremental solver per step (Wizard Extreme, 5 players, 65
        conditions of a case: 22 s against 74 s on fresh solvers, the same answers but one
        unknown)."""
        st = self.steps[a.name]
        solvers: dict = {}

        def query(step, terms, timeout_ms=None):
            """(result, model or None, reason) of the terms' disjunction on the step."""
            return self.ask_step(step, *assume, OR(*terms), timeout_ms=timeout_ms, guard=with_guard)

        def sliced(step, t) -> bool:
            base = [*assume, *([step.guard] if with_guard else [])]
            return self.check_alone(base, t, solvers, id(step), self.QUICK_MS // 2) == z3.unsat

        items = conds_of(st)
        if not items:
            return []
        split = self.splittable(a)
        r, m, _why = query(st, [t for _l, t, _sp in items], self.QUICK_MS)
        if r == z3.unsat:
            return []
        # a label with a condition the model meets is open: a state the assumptions allow meets it
        # (the model's), so it needs no question of its own (de.rules, 5 players: an undecided
        # point's 0.8 s question, then 0.9 s of it again alone)
        met = {lab for lab, t, _sp in items if _model_bool(m, t)} if r == z3.sat else set()
        # one at a time: several together are often much harder than each alone
        open_: list = []
        hard: set = set()  # settle()'s memory
        labels = list(dict.fromkeys(lab for lab, _t, _sp in items))
        refuted: dict = {}  # (case, condition) -> whether it is refuted there

        def refuted_in(case, t) -> bool:
            key = (id(case), id(t))  # (the cases and their conditions live as long as the verifier)
            if key not in refuted:
                refuted[key] = sliced(case, t) or \
                    self.settle(a, case, *assume, t, guard=with_guard, hard=hard, beyond=True)[0] == z3.unsat
            return refuted[key]
        for lab in labels:
            if lab in met:
                open_.append(lab)
                continue
            if all(sliced(st, t) or query(st, [t], self.QUICK_MS // 2 if split else None)[0] == z3.unsat
                   for lb, t, _sp in items if lb == lab):
                continue
            # a case's label may name the values the case fixes ("index 3 is outside the keys"
            # where the whole step says "an index"), and so be none of the whole step's, or
            # another of them (refuted there for other conditions): a case's condition is this
            # label's where its label is, or none of the whole step's is, or where it comes from
            # the same place in the spec as a condition of this label (its span; else such a
            # condition would pass for refuted unasked)
            spans = {sp for lb, _t, sp in items if lb == lab}
            if split and all(refuted_in(case, t) for case in self.cases(a)
                             for lb, t, sp in conds_of(case) if lb == lab or lb not in labels or sp in spans):
                continue
            open_.append(lab)
        return open_

    # ---- driver --------------------------------------------------------------------------
    def run(self, progress=None) -> list[Result]:
        """Every result of the spec for this player count. Python's cyclic garbage collector is
        off meanwhile (_collector_off): what it frees when, which Z3's terms made next depends on, is
        then the same from run to run."""
        with _collector_off():
            return self._run(progress)

    def _run(self, progress=None) -> list[Result]:
        t0 = time.perf_counter()
        try:
            self.build()
        except Unsupported as exc:
            self.setup_unencodable(exc.message)
            return self.results
        self.no_parameters()
        self.assumed = self.budget(self.prove_invariants)
        self.budget(self.check_faults)
        if self.beyond_exact and self.enc.exact:
            # the piles followed card by card hold at most their capacity (measured on sample
            # setups): the proofs so far stand only where no move goes beyond it, and check_faults
            # did not refute that one does; every answer is asked again, no pile followed so
            again = Verifier(*self._args, exact=False, seed=self.seed)
            if getattr(self, "_sim", None) is not None or self._sim_error:
                # the random games played so far are the same games (the spec, the count, the
                # seed): not played again (a refill's 100 games of 20,000 moves took 14 s)
                again._sim, again._sim_error = self._sim, self._sim_error
            self.results = again.run(progress)
            # what the count's run without them cannot encode says why it ran so
            why = ("no pile is followed card by card for this count: the run-time error check did not rule out "
                   "more cards in one than it follows" + (", its time limit reached" if self.beyond_exact_cut else ""))
            for r in self.results:
                if r.status == "unknown" and "cannot encode" in r.message and "pile" in r.message:
                    r.message += f" ({why})"
            self.hard_alone_at = again.hard_alone_at
            return self.results
        for p in self.spec.properties:
            if p.kind == "terminates":
                self.encoded(self.prove_ranking, p)
            elif p.kind == "bound":
                self.encoded(self.prove_bound, p)
            elif p.kind == "reachable":
                self.budget(self.check_reachable, p)
            if progress:
                progress()
        self.check_gaps()
        self.budget(self.check_deadlock)
        self.budget(self.check_sanity)
        self.cross_check_simulation()
        self.cross_check_exploration()
        return self.results

    def no_parameters(self) -> None:
        """Where Z3 finds that no parameter values meet every `where` with this player count, the
        game has no initial state: every proof would hold only vacuously, and every goal be out of
        reach. That is the spec's mistake, told as the other commands tell it (ParamError, E305),
        not a list of vacuous results."""
        from .backends.interpreter import ParamError

        wheres = [p for p in self.spec.params if p.where is not None]
        if not wheres:
            return
        s = self.solver()
        s.add(*self.pcons)
        if s.check() == z3.unsat:
            raise ParamError(f"no value of the parameters meets every `where` condition with {self.n} players "
                             "(Z3 finds none)", wheres[0].span)

    def setup_unencodable(self, why: str) -> None:
        """The setup cannot be encoded, so Z3 proves nothing: every result a run has (each property,
        the run-time errors, the deadlocks, each undecided point) is unknown, naming why, unless
        the random games show it with a replayed trace (a violation, a run-time error of the
        rules, a deadlock, a goal or an undecided point reached)."""
        why = f"cannot encode the setup: {why}"
        for p in self.spec.properties:
            t0 = time.perf_counter()
            if p.kind == "reachable":
                w = self.simulated_witness(p)
                if w is not None:
                    self.add(p, "reachable", t0, f"reached in a simulated game after {moves_text(len(w.steps))} "
                                                 "(a real trace)", depth=len(w.steps), trace=w)
                    continue
            elif self.from_simulation(p, f"violation:{p.name}", t0):
                continue
            self.add(p, "unknown", t0, why)
        t0 = time.perf_counter()
        fault = self.rules_fault()
        if not (fault and self.from_simulation(NO_RUNTIME_ERRORS, fault, t0, kind="fault")):
            self.add(NO_RUNTIME_ERRORS, "unknown", t0, why, kind="fault")
        if not self.simulated_deadlock(t0):
            self.add(NO_DEADLOCK, "unknown", t0, why, kind="deadlock")
        for u_pt in self.spec.undecided:
            prop = _gap_property(u_pt)
            if not any(r.property == prop.name for r in self.results) and not self.gap_simulated(prop, u_pt, t0):
                self.add(prop, "unknown", t0, f"{u_pt.reason}: {why}", kind="undecided")

    def encoded(self, prove, p: ir.Property) -> None:
        """prove(p) under its own time limit; a part of p that Z3 cannot encode (a division by a
        value whose sign is not known, say) makes p unknown, not an internal error, unless a
        random game breaks it (a real trace)."""
        t0 = time.perf_counter()
        try:
            self.budget(prove, p)
        except Unsupported as exc:
            if not any(r.property == p.name for r in self.results) and \
                    not self.from_simulation(p, f"violation:{p.name}", t0):
                self.add(p, "unknown", t0, f"cannot encode: {exc.message}")

    def cross_check_simulation(self):
        """What Z3 proved, the random games (which check every invariant, ranking and bound after
        every move, and meet run-time errors and deadlocks where they are) must not have broken,
        and what it proved unreachable they must not have reached: a result with such a finding
        or witness that replays in a fresh game turns into unknown, naming the defect, with
        the game's trace. Only a run-time error of the rules counts against Z3's proof of none
        (_replays: one while evaluating a property is not of the rules). The games run here if
        nothing asked for them before (a proved result is always checked against them, when
        there are any)."""
        if not self.games or not any(r.status in ("proved", "unreachable") for r in self.results):
            return
        sim = self.simulation()
        if sim is None:
            return
        from .explore import Found
        from .simulate import record_trace

        prog = self.interpreter()
        goals = {p.name: p for p in self.spec.properties if p.kind == "reachable"}
        named = {p.name: p for p in self.spec.properties}  # what a trace judges (record_trace's about)
        broken: list[str] = []  # the proved invariants a game breaks
        for k, r in enumerate(self.results):
            if r.status == "unreachable" and r.kind == "reachable" and r.property in sim.witnesses:
                seed, params, moves = sim.witnesses[r.property]  # (the moves up to where it first held)
                if not self.replays(Found(seed, params, moves), goals[r.property]):
                    continue
                what, n = "reaches it", len(moves)
            elif r.status == "proved":
                if r.kind == "fault":
                    keys = [key for key, f in sim.findings.items() if f.kind == "fault"]
                elif r.kind == "deadlock":
                    keys = ["deadlock"]
                elif r.kind in ("invariant", "terminates", "bound"):
                    keys = [f"violation:{r.property}"]
                else:
                    continue
                f = next((sim.findings[key] for key in keys if key in sim.findings and self._replays(sim.findings[key])),
                         None)
                what = f"breaks it ({f.message})" if f is not None else ""
                if f is None and r.kind in ("invariant", "terminates"):  # Z3 takes it as false (broken) where it faults
                    f, message = self.evaluation_fault(r.property) or (None, "")
                    what = f"runs into a run-time error evaluating it ({message})"
                if f is None:
                    continue
                seed, params, moves = f.seed, f.params, f.moves
                n = len(moves)
            else:
                continue
            self.results[k] = Result(r.property, r.kind, self.n, "unknown", r.seconds,
                                     f"Z3 {'proved it unreachable' if r.status == 'unreachable' else 'proved it'}, but "
                                     f"a simulated game {what}, replayed after {moves_text(n)} (seed \"{seed}\"): a defect "
                                     "of rulespec's Z3 encoding or its interpreter, please report it", n, r.cite,
                                     r.expected_violation, r.span,
                                     record_trace(prog, seed, params, moves, about=named.get(r.property) or
                                                  ir.Property(r.kind, r.property, None, None)))
            if r.kind == "invariant" and r.status == "proved":
                broken.append(r.property)
        if broken:
            # every other proof of this count assumed the proved invariants (the induction proves
            # them together; the other questions ask of the states they allow): none stands now
            names = ", ".join(broken)
            for k, r in enumerate(self.results):
                if r.status in ("proved", "unreachable"):
                    self.results[k] = replace(r, status="unknown", message=(
                        f"Z3 {'proved it unreachable' if r.status == 'unreachable' else 'proved it'} assuming the "
                        f"proved invariants, but a simulated game breaks {names} (see its result): not trusted"))

    def evaluation_fault(self, name: str):
        """(finding, message) of the shortest simulated game that stopped at a run-time error in
        evaluating invariant or ranking `name`: its moves replay in a fresh game without
        one (no property evaluated), and evaluating the property in the state they lead to raises
        one; None when no game did (or `name` is neither). Z3 takes an invariant as false where it
        faults, a ranking as broken; the interpreter, as neither (a game stops there)."""
        from .backends.runtime import Fault

        prog = self.interpreter()
        fn = next((fn for q, fn in prog.invariants if q.name == name), None)
        if fn is None:  # a ranking: its while-condition, and where that holds, its ranks
            fn = next(((lambda S, P, w=w, r=r: w(S, P) and r(S, P)) for q, w, r in prog.rankings if q.name == name),
                      None)
        if fn is None:
            return None
        for f, game in self._stopped_by_properties():
            try:
                fn(game.S, game.P)
            except Fault as exc:
                return f, exc.message
        return None

    def _stopped_by_properties(self) -> list:
        """(finding, game at its end) of the simulated games that stopped at a run-time error not
        of the rules: their moves replay in a fresh game, no property evaluated, without
        one. Shortest first; replayed once per run."""
        if getattr(self, "_stopped", None) is None:
            from .backends.runtime import Fault, Gap

            self._stopped = []
            sim = self.simulation()
            prog = self.interpreter()
            for f in sorted((f for f in sim.findings.values() if f.kind == "fault") if sim else (),
                            key=lambda f: len(f.moves)):
                try:  # (no ranking or bound evaluated: a bound's trigger is evaluated at the start)
                    game = prog.start(f.seed, f.params or None, judged=())
                    for move in f.moves:
                        if not game.is_legal(move):
                            break
                        game.step(move, check=False)
                    else:
                        game.ended()  # (an end condition's run-time error is one of the rules)
                        self._stopped.append((f, game))
                except (Fault, Gap):  # a run-time error of the rules
                    pass
        return self._stopped

    def rules_fault(self) -> str | None:
        """The key of a random game's run-time error that the rules meet (a property's evaluation
        that faults is not one of them: _replays), or None."""
        sim = self.simulation()
        return next((k for k, f in (sim.findings if sim else {}).items() if f.kind == "fault" and self._replays(f)),
                    None)

    def _replays(self, f) -> bool:
        """Whether a simulated game's finding (a violation, a run-time error or a deadlock) happens
        again when its moves are replayed in a fresh game from its seed. A violation: the
        invariants evaluated after a move as the game did (those the move may change, less those
        already false: one false before may fault later). A run-time error: one of the rules
        (the setup, a move, or the guards of the state the moves lead to), at the finding's
        place, replayed with no property evaluated: Z3's check covers the rules, and a property
        whose evaluation faults is not one of them (Z3 takes it as false there)."""
        from .backends.runtime import Fault, Gap

        prog = self.interpreter()
        index = {p.name: i for i, (p, _fn) in enumerate(prog.invariants)}
        noted: set = set()
        rules = f.kind == "fault"

        def met(violations) -> bool:
            hit = False
            for v in violations:
                hit = hit or f.key == f"violation:{v.prop.name}"
                if v.prop.name in index:
                    noted.add(index[v.prop.name])
            return hit

        # the rankings and bounds judged: none for a run-time error or a deadlock (a bound's trigger
        # is evaluated at the start), the one broken for a ranking's or a bound's violation
        judged = {f.key.split(":", 1)[1]} if f.kind == "violation" else ()
        try:
            game = prog.start(f.seed, f.params or None, judged=judged)
            if not rules and met(game.initial_violations()):
                return True
            for move in f.moves:
                if not game.is_legal(move):
                    return False
                if rules:
                    game.step(move, check=False)
                elif met(game.step(move, only=prog.touched[move[0]] - noted)):
                    return True
            if rules:
                if game.ended() is None:  # an end condition's run-time error, or a guard's where
                    game.legal_moves()    # the moves are looked for
                return False
        except Fault as exc:
            return rules and f.key == f"fault:{exc.span_id}"
        except Gap:
            return False
        return f.kind == "deadlock" and game.ended() is None and not game.legal_moves()

    def cross_check_exploration(self):
        """What Z3 proved unreachable, the directed search (when it ran) must not have reached: a
        goal it reached anyway, replayed, turns the result into unknown, naming the defect."""
        from .simulate import gap_finding, record_trace

        ex = self._explored
        if ex is None:
            return
        props = {p.name: p for p in self.spec.properties if p.kind == "reachable"}
        gaps = {gap_finding(self.spec, u.id).key: u for u in self.spec.undecided}
        index = {f"enabled:{a.name}": i for i, a in enumerate(self.spec.actions)}
        for k, r in enumerate(self.results):
            if r.status == "unreachable" and r.kind == "action":
                f = ex.played.get(index.get(r.property, -1))
                if f is not None and self._enabled_after(f):
                    self.results[k] = Result(r.property, r.kind, self.n, "unknown", r.seconds,
                                             "Z3 proved it never enabled, but the directed search played it (replayed "
                                             f"after {moves_text(len(f.moves) - 1)}): a defect of rulespec's Z3 encoding, "
                                             "please report it", len(f.moves) - 1, r.cite, r.expected_violation,
                                             r.span, record_trace(self.interpreter(), f.seed, f.params, f.moves[:-1],
                                                                  about=ir.Property("action", r.property, None, None)))
                continue
            f = ex.found.get(r.property) if r.status == "unreachable" else None
            gap = gaps.get(r.property)
            p = props.get(r.property) or (ir.Property("undecided", r.property, None, None) if gap else None)
            if f is None or p is None or not self.replays(f, p, gap):
                continue
            self.results[k] = Result(r.property, r.kind, self.n, "unknown", r.seconds,
                                     "Z3 proved it unreachable, but the directed search reached it (replayed after "
                                     f"{moves_text(len(f.moves))}): a defect of rulespec's Z3 encoding, please report it",
                                     len(f.moves), r.cite, r.expected_violation, r.span,
                                     record_trace(self.interpreter(), f.seed, f.params, f.moves, about=p))

    def _enabled_after(self, f) -> bool:
        """Whether f's last move is legal, in a fresh game, after its other moves (each
        legal, in a game not ended)."""
        from .backends.runtime import Fault, Gap

        from .explore import play_legal

        try:
            game = self.interpreter().start(f.seed, f.params or None)
            return play_legal(game, f.moves[:-1]) and game.ended() is None and game.is_legal(f.moves[-1])
        except (Fault, Gap):
            return False

    # ---- invariants ----------------------------------------------------------------------
    def assumptions(self, names) -> list:
        out = list(self.pre_ok)
        for p in self.invariants:
            if p.name in names:
                h, cons = self.holds(p, self.pre, "pre")
                out.append(h)
                out.extend(cons)
        return out

    def prove_invariants(self) -> set[str]:
        """The largest set of invariants that hold initially and that every action preserves together."""
        t0 = time.perf_counter()
        candidates = {p.name for p in self.invariants if not p.expect_violated}
        broken: dict[str, str] = {}     # name -> why it is not proved
        unknown: dict[str, str] = {}
        if self.unsupported:
            why = "; ".join(f"cannot encode {a}: {m}" for a, m in self.unsupported.items())
            for name in candidates:
                unknown[name] = why
            candidates = set()
        # an invariant Z3 cannot encode (a division by a value that may be negative, say) is unknown
        self.encodable(candidates, unknown, self.init.state, "init")
        # initial states: all at once first, one by one only if that does not settle it
        inits = {p.name: self.holds(p, self.init.state, "init") for p in self.invariants if p.name in candidates}
        r, _m, _why = self.ask(None, self.init.alive, *[c for _h, cs in inits.values() for c in cs],
                               NOT(AND(*[h for h, _cs in inits.values()])), timeout_ms=self.QUICK_MS)
        if r != z3.unsat:
            hard: set = set()
            for name, (h, cons) in inits.items():
                r, _m, why = self.settle(None, None, self.init.alive, *cons, NOT(h), hard=hard)
                if r == z3.sat:
                    broken[name] = "false in an initial state"
                    candidates.discard(name)
                elif r == z3.unknown:
                    unknown[name] = f"the initial states: {why}"
                    candidates.discard(name)
        self.encodable(candidates, unknown, self.pre, "pre")
        # induction: drop what some action breaks, until the rest is preserved by every action
        self.cti: dict[str, tuple] = {}
        changed = True
        kept: dict = {}  # action -> the candidates it was last found to preserve, none dropped
        while changed and candidates:
            changed = False
            for a in self.spec.actions:
                if not candidates:
                    break
                if kept.get(a.name) == candidates:
                    continue  # the same question as in the last round: the same answer
                failed, timed_out = self.preserved(a, candidates)
                if not failed and not timed_out:
                    kept[a.name] = set(candidates)
                for name, why in timed_out.items():
                    candidates.discard(name)
                    unknown[name] = why
                    changed = True
                for name in failed:
                    candidates.discard(name)
                    broken[name] = f"not preserved by {a.name}"
                    changed = True
        seconds = time.perf_counter() - t0
        self._unproved = {p.name for p in self.invariants if p.name not in candidates and p.name not in unknown}
        self.assumed = candidates  # the directed search, first asked for below, rules out start games by them (viable)
        for p in self.invariants:
            if p.name in candidates:
                self.results.append(Result(p.name, "invariant", self.n, "proved", seconds,
                                           "proved by induction" + (" (a helper invariant)" if p.lemma else ""),
                                           cite=p.cite, span=p.span))
            elif p.name in unknown:
                # Z3 could not settle it (it cannot encode it, or timed out): a random game that
                # breaks it still shows it false, with a real trace
                if not self.from_simulation(p, f"violation:{p.name}", t0):
                    self.results.append(Result(p.name, "invariant", self.n, "unknown", seconds, unknown[p.name],
                                               cite=p.cite, span=p.span, expected_violation=p.expect_violated))
            else:
                why = broken.get(p.name, "expected to fail")
                self.budget(self.search_violation, p, why)  # a limit of its own, past the induction's
        self.k_again()
        return self.assumed  # with what k-induction proved (search_violation, k_again)

    def encodable(self, candidates: set, unknown: dict, state: dict, where: str) -> None:
        """Encode each candidate in the state (kept for later: holds caches it), in the order the
        induction would; one Z3 cannot encode is dropped and unknown. (The order of the terms
        matters to Z3: encoding every candidate at the pre-state before the initial states'
        question, measured with 3 players, took the induction from 75 questions to 93.)"""
        for p in self.invariants:
            if p.name in candidates:
                try:
                    self.holds(p, state, where)
                except Unsupported as exc:
                    candidates.discard(p.name)
                    unknown[p.name] = f"cannot encode: {exc.message}"

    def preserved(self, a: ir.Action, candidates: set) -> tuple[list, dict]:
        """Which candidates action a may break, assuming all of them before the move.

        One query for all at once, again without what a counterexample breaks until none is found;
        when it times out, one query per invariant, so that a hard one does not take the others down
        with it. A step that can be split by its players' values is asked so first briefly
        (preserved_alone), and only what that leaves open is split into cases: most invariants are
        settled at once alone, and one whose whole-step question is as hard as its cases' is not
        split (measured in benchmarks/HISTORY.md). An invariant whose brief question alone was not
        settled for an earlier action is split into cases at once, and left out of the questions of
        all at once and alone: they would only time out on it again (measured in
        benchmarks/HISTORY.md: two invariants made four actions' questions time out twice each). So
        is one whose brief question alone was not settled for this action with another player count
        of the spec (hard_before: the induction with 3 players after 4, 26.3 -> 17.8 s, a probe).
        The brief questions of the whole step (all at once, one alone) are asked of the simplex
        solver alone (check's second): Z3's default arithmetic settled few of those it left open,
        and took 2 to 4 s on each it did not (measured in benchmarks/HISTORY.md: de.rules' and
        Wizard Extreme's inductions a quarter to a third faster). A case's brief try still asks
        both. Returns (broken names, {name: why unknown})."""
        st = self.steps[a.name]
        failed: list = []
        timed_out: dict = {}
        touched = [p for p in self.invariants if p.name in candidates and not self.untouched(a, p)]
        # an invariant found hard alone for an earlier action is split at once here too, and so is
        # one found hard alone for this action with another player count (hard_before)
        before = self.hard_before.get(a.name, set())
        at_once = [p for p in touched if p.name in self._hard_alone or p.name in before]
        if at_once and not self.cases(a):  # (the cases are encoded only when asked for)
            at_once = []
        self._hard(a, [p.name for p in at_once if p.name in before])
        remaining = {p.name for p in touched} - {p.name for p in at_once}
        assume = self.assumptions(candidates)
        while remaining:
            posts, extra = {}, []
            for p in self.invariants:
                if p.name in remaining:
                    h, cons = self.holds(p, st.state, f"post.{a.name}")
                    extra.extend(cons)
                    posts[p.name] = h
            # when the step can be split by its players' values, a hard question is split early
            quick = self.QUICK_MS if self.splittable(a) else None
            r, m, _why = self.ask(a, *assume, st.alive, *extra, NOT(AND(*posts.values())), timeout_ms=quick,
                                  second=False)
            if r == z3.unsat:
                remaining = set()
                break
            if r == z3.sat:
                bad = [name for name, h in posts.items() if not _model_bool(m, h)] or list(posts)
                for name in bad:
                    self.cti[name] = (a, m, st)
                    remaining.discard(name)
                failed.extend(bad)
                # ask again for the rest, without assuming what broke (Houdini: each answer is
                # for a superset of the inductive invariants, so what it drops is rightly dropped)
                assume = self.assumptions(candidates - set(failed))
                continue
            if quick is not None and len(posts) == 1:
                self._hard(a, posts)
            if not self.over_budget():
                self._unsettled_at_once.add(a.name)
            break  # unknown: split the step by its players' values, or go one by one
        todo = [p for p in touched if p.name in remaining]
        if not todo and not at_once:
            return failed, timed_out
        if self.cases(a):
            # each invariant alone on the whole step first, briefly: most are settled at once, and
            # only what is still open is split (one hard invariant otherwise makes every case ask
            # for all of them)
            if len(todo) > 1:
                before = len(failed)
                todo = self.preserved_alone(a, st, todo, assume, failed)
                if len(failed) > before:
                    assume = self.assumptions(candidates - set(failed))
            todo += [p for p in at_once if p.name not in failed]
            if not todo:
                return failed, timed_out
            more, timed_out = self.preserved_by_cases(a, todo, assume, candidates - set(failed))
            return failed + more, timed_out
        hard: set = set()
        for p in todo:
            h, cons = self.holds(p, st.state, f"post.{a.name}")
            r, m, why = self.settle(a, st, *assume, st.alive, *cons, NOT(h), hard=hard)
            if r == z3.sat:
                self.cti[p.name] = (a, m, st)
                failed.append(p.name)
            elif r == z3.unknown:
                timed_out[p.name] = f"the induction step for {a.name}: {why}"
        return failed, timed_out

    def _hard(self, a: ir.Action, names) -> None:
        """These invariants were not settled alone on action a's whole step (or were not for
        another player count): they go to the cases at once for the actions after it, and for a
        with the next player counts (hard_alone_at, passed on as their hard_before). Not when
        the per-property limit is what left them open (over_budget)."""
        if names and not self.over_budget():
            self._hard_alone.update(names)
            self.hard_alone_at.setdefault(a.name, set()).update(names)

    def preserved_alone(self, a: ir.Action, st: StepResult, todo: list, assume: list, failed: list) -> list:
        """Each invariant of todo alone against the whole step, within QUICK_MS: a counterexample
        is added to failed (with its CTI); what is neither refuted nor proved is returned, for the
        cases. (An answer here assumed every candidate; when one is broken, prove_invariants asks
        every action again without it.)"""
        left = []
        for p in todo:
            h, cons = self.holds(p, st.state, f"post.{a.name}")
            r, m, _why = self.ask(a, *assume, st.alive, *cons, NOT(h), timeout_ms=self.QUICK_MS, second=False)
            if r == z3.sat:
                self.cti[p.name] = (a, m, st)
                failed.append(p.name)
            elif r == z3.unknown:
                left.append(p)
                self._hard(a, [p.name])
        return left

    def preserved_by_cases(self, a: ir.Action, todo: list, assume: list, candidates: set) -> tuple[list, dict]:
        """preserved() for a step split by the values of its player parameters: each case for all
        the invariants at once (split by paths and index values when hard), again without what a
        counterexample breaks until none is found; one by one where that is not settled. What
        needed splitting is remembered across the cases (settle's hard)."""
        failed: list = []
        timed_out: dict = {}
        together: set = set()  # settle()'s memory for the questions of all at once, across the cases
        alone: set = set()     # and for those of one invariant
        # an invariant whose reads depend on only some of the player parameters is split by those
        # alone first (de.rules, 5 players: zeiger_zaehlt after eule_nehmen(p, q, c) in 5 cases of
        # q, 1.5 s, against 25 cases of p and q, 7.1 s); what that does not settle goes on below
        players = [i for i, (_n, t) in enumerate(a.params) if isinstance(t, PlayerT)]
        for p in list(todo):
            keep = tuple(self.deciding_players(a, [p]))
            if not keep or len(keep) == len(players):
                continue
            hard: set = set()
            for k, st in enumerate(self.fewer_cases(a, keep)):
                h, cons = self.holds(p, st.state, f"few{k}.{a.name}")
                r, m, _why = self.settle(a, st, *assume, st.alive, *cons, NOT(h), hard=hard)
                if r != z3.unsat:
                    break
            if r == z3.unsat:
                todo = [q for q in todo if q is not p]
            elif r == z3.sat:
                self.cti[p.name] = (a, m, st)
                failed.append(p.name)
                todo = [q for q in todo if q is not p]
                assume = self.assumptions(candidates - set(failed))
        if not todo:
            return failed, timed_out  # (the cases of every player parameter are not encoded)
        for k, st in enumerate(self.cases(a)):
            while True:
                left = [p for p in todo if p.name not in failed and p.name not in timed_out]
                if not left:
                    return failed, timed_out
                posts = {p.name: self.holds(p, st.state, f"case{k}.{a.name}") for p in left}
                r, m, _why = self.settle(a, st, *assume, st.alive, *[c for _h, cs in posts.values() for c in cs],
                                         NOT(AND(*[h for h, _cs in posts.values()])), hard=together)
                if r != z3.sat:
                    break
                bad = [p.name for p in left if not _model_bool(m, posts[p.name][0])] or [p.name for p in left]
                for name in bad:
                    self.cti[name] = (a, m, st)  # the model is a counterexample for these
                failed.extend(bad)
                assume = self.assumptions(candidates - set(failed))
            if r == z3.unsat:
                continue
            for p in left:
                h, cons = posts[p.name]
                r1, m1, why = self.settle(a, st, *assume, st.alive, *cons, NOT(h), hard=alone)
                if r1 == z3.sat:
                    self.cti[p.name] = (a, m1, st)
                    failed.append(p.name)
                elif r1 == z3.unknown:
                    timed_out[p.name] = (f"the induction step for {a.name} "
                                         f"(case {k + 1} of {len(self.cases(a))}): {why}")
        return failed, timed_out

    def cti_text(self, p: ir.Property) -> str:
        """Which action breaks the induction, and from which state (the variables the invariant reads)."""
        if p.name not in self.cti:
            return ""
        a, m, st = self.cti[p.name]
        args = ", ".join(format_value(t, self.enc.value(m, t, v), self.enc.dom) for (_n, t), v in zip(a.params, st.args))
        names = sorted({n.name for n in _walk(p.expr) if isinstance(n, ir.Var)})
        parts = []
        for name in names[:6]:
            t = self.spec.var(name).type
            before = _show(t, self.enc.value(m, t, self.pre[name]), self.enc.dom)
            after = _show(t, self.enc.value(m, t, st.state[name]), self.enc.dom)
            parts.append(f"{name}: {before} -> {after}" if before != after else f"{name}: {before}")
        return f"{a.name}({args}) breaks it from a state where " + "; ".join(parts)

    # ---- witnesses from simulated games ------------------------------------------------------
    def simulation(self):
        """Random games of the interpreter (shared): their findings and witnesses are real traces."""
        if getattr(self, "_sim", None) is None:
            from .simulate import simulate
            # games step around undecided points (each recorded where it was reached), so that they
            # get further: every finding is still a trace of legal moves from an initial state
            from .backends.interpreter import ParamError
            try:
                self._sim = simulate(self.spec, self.n, self.games, self.seed, max_steps=20_000,
                                     avoid_gaps=True) if self.games else None
            except ParamError as exc:  # parameters whose conditions random draws do not meet
                self._sim, self._sim_error = None, str(exc)
        return self._sim

    def simulated(self, key: str, about: ir.Property):
        """(trace, finding) of the shortest simulated game with this finding key, or None. The
        trace judges only `about`, the property the finding is of (record_trace): the game judged
        an invariant it had found false no more, and one that faults there later would cut the
        trace short, or name itself as the one broken."""
        sim = self.simulation()
        if sim is None or key not in sim.findings:
            return None
        from .simulate import record_trace
        f = sim.findings[key]
        return record_trace(self.interpreter(), f.seed, f.params, f.moves, about=about), f

    def simulated_witness(self, p: ir.Property):
        """The trace of the shortest simulated game in which reachability goal p first held (no
        property judged on the way, as in simulated), or None."""
        sim = self.simulation()
        if sim is None or p.name not in sim.witnesses:
            return None
        from .simulate import record_trace
        seed, params, moves = sim.witnesses[p.name]
        return record_trace(self.interpreter(), seed, params, moves, about=p)

    def interpreter(self):
        if getattr(self, "_plain", None) is None:
            self._plain = Program(self.spec, self.n)
        return self._plain

    def exploration(self):
        """The directed search (explore.py) for what the random games did not reach: the reachability
        goals, the undecided points, violations of the invariants not proved. Run once, when first
        needed (after the induction, so that the invariants not proved are known); None when off.
        Its solver questions (which start games may reach a goal; which undecided points are out
        of reach) serve several properties: they are not under the per-property time limit of
        the one that first needed the search (budget)."""
        return self.budget(self._exploration, limited=False)

    def _exploration(self):
        if not self._explore_asked and self.explore:
            self._explore_asked = True
            from .explore import Exploration, explore, gap_goal, search_own, state_goal
            from .simulate import gap_finding

            sim, prog = self.simulation(), self.interpreter()
            met = set(sim.witnesses) | set(sim.findings) if sim is not None else set()
            goals = [state_goal(prog, p.name, p.expr) for p in self.spec.properties
                     if p.kind == "reachable" and p.name not in met]
            goals += [state_goal(prog, f"violation:{p.name}", p.expr, negated=True) for p in self.invariants
                      if p.name in self._unproved and f"violation:{p.name}" not in met]
            gaps: dict[str, list] = {}
            for u in self.spec.undecided:
                gaps.setdefault(gap_finding(self.spec, u.id).key, []).append(u.id)
            goals += [gap_goal(prog, key, ids) for key, ids in gaps.items() if key not in met]
            kept = self.kept_plays([g.key for g in goals], gaps)
            goals = [g for g in goals if g.key not in kept]
            if kept or goals:
                ex = self._explored = Exploration(found=dict(kept), kept=set(kept), searched=bool(goals))
            if goals:
                viable = self.viable()
                searched: set = set()

                def own(left) -> tuple[dict, set]:
                    """A search of its own for each state goal in left (once per goal), of a quarter of
                    the budget, from its own seeds: the goals' turns share the first search, and a
                    costly goal's rollouts are few there. The undecided points still open ride along
                    (one may lie a move beyond the goal). Three such searches per goal of a quarter
                    each, measured, doubled the test suite's verify time and reached no goal more;
                    the quarter split into restarts, each from start games of its own, costs no more.
                    A costly goal's search is one run with a quarter of its rollouts heavy
                    (own_greedy): ties in many colours at the final count were reached so, never by
                    random rollouts alone. Both searches leave the start games Z3 proves out of a
                    goal's reach (viable). Returns what they found, and the undecided points of left
                    that Z3 proves out of reach (gap_unreachable), asked only of those they did not
                    reach: a point a rider reached needs no proof (check_gaps reports its trace), and
                    Z3's sat answer for it cost de.rules 1 to 2.7 s a count."""
                    found: dict = {}
                    for goal in [g for g in goals if not g.gaps and g.key in left and g.key not in searched]:
                        searched.add(goal.key)
                        if goal.key in found:
                            continue
                        riders = [g for g in goals if g.gaps and g.key in left and g.key not in found]
                        more = search_own(prog, goal, f"{self.seed}/{goal.key}", self.explore // 4, riders=riders,
                                          viable=viable)
                        ex.add(more)
                        for key, f in more.found.items():
                            found.setdefault(key, f)
                    return found, {key for key in left if key in gaps and key not in found
                                   and self.gap_unreachable(gaps[key])}

                # the searches of their own begin once the shared search has played three quarters of
                # its moves (de.rules' shared searches found what they found after 8,500 to 260,000
                # of 400,000; pausing at half lost a 5-player find), and it goes on after them for
                # what they left: an undecided point Z3 proves out of reach no longer keeps it going.
                # The pause comes sooner once only costly goals and undecided points are left (and
                # goals no kept start game may reach): de.rules' 3 and 4 players, 300,000 moves
                # fewer than 400,000 (82,532 and 95,697 for the same finds)
                shared = explore(prog, goals, self.seed, self.explore, viable=viable, pause=(self.explore * 3 // 4, own))
                ex.add(shared)
                ex.found.update(shared.found)
                found, out_of_reach = own([g.key for g in goals if g.key not in ex.found])
                for key, f in found.items():
                    ex.found.setdefault(key, f)
                # what is still open and not ruled out by Z3 gets one more search, from a seed of
                # its own: which goal a search misses rests on its seed (de.rules with 5 players:
                # seeds a1, b2 and c3 each left one goal bounded, a different one each time)
                props = {p.name: p for p in self.spec.properties if p.kind == "reachable"}
                left = [g for g in goals if g.key not in ex.found and g.key not in out_of_reach
                        and not (g.key in props and self.ruled_out(props[g.key]))]
                if left:  # (an undecided point judged by its finer distance at once, as after a pause)
                    left = [replace(g, dist=g.finer, finer=None) if g.finer is not None else g
                            for g in left]
                    again = explore(prog, left, f"{self.seed}/again", self.explore // 4, viable=viable)
                    ex.add(again)
                    for key, f in again.found.items():
                        ex.found.setdefault(key, f)
        return self._explored

    def ruled_out(self, p: ir.Property) -> bool:
        """Whether Z3 proves that no state the proved invariants allow satisfies reachability goal p
        (asked once: the search and check_reachable both want it)."""
        if p.name not in self._ruled_out:
            try:
                v, f, c = self.value(p.expr, self.pre, tag=f"reach.{p.name}.pre")
                self._ruled_out[p.name] = self.allowed(*c, v, NOT(f)) == z3.unsat
            except Unsupported:
                self._ruled_out[p.name] = False
        return self._ruled_out[p.name]

    def play_scope(self) -> str:
        """What a kept play is filed under in the store of answers: the game, its edition and the
        player count (a play is trusted only once it replays, so this only spares replays)."""
        return f"{self.spec.game}|{self.spec.edition or ''}|{self.n}"

    def kept_plays(self, keys: list, gaps: dict) -> dict:
        """goal key -> Found: the plays an earlier run kept in the store of answers (add_play) for
        these goals that replay in this spec and reach their goal (replays, the check every find
        of the search passes); none without a store."""
        if self.answers is None or not keys:
            return {}
        from .explore import Found

        stored = self.answers.plays(self.play_scope())
        props = {p.name: p for p in self.spec.properties}
        prog, kept = self.interpreter(), {}
        for key in keys:
            if key not in stored:
                continue
            seed, params, moves = stored[key]
            params = prog.given_params(params)
            if key in gaps:
                gap = self.spec.undecided[gaps[key][0]]
                p = _gap_property(gap)
            else:
                gap, p = None, props.get(key.removeprefix("violation:"))
            if params is not None and p is not None and isinstance(moves, list):
                f = Found(seed, params, moves)
                if self.replays(f, p, gap):
                    kept[key] = f
        self.answers.plays_reused += len(kept)
        return kept

    def keep_play(self, key: str, f) -> None:
        """Keep a replayed find of the search in the store of answers, for the next run."""
        if self.answers is not None and key not in self._explored.kept:
            self.answers.add_play(self.play_scope(), key, f.seed, list(f.params), list(f.moves))

    def viable(self):
        """(goal key, S, P) -> whether a game whose initial state is S, with parameters P, may reach
        the goal: False when Z3 proves that no state the proved invariants allow satisfies the goal
        (a reachability goal, or an invariant's violation) with the values the game fixed at the
        setup: its parameters and the state variables no action writes (the same terms before and
        after every step). Every state of such a game has those values and satisfies the proved
        invariants, so none reaches the goal, and the directed search leaves it (a card shuffled
        deep at the setup that caps how far the game can go). A time-out, an undecided point's goal
        or a goal that cannot be encoded: True. The variables and parameters whose type `_fix`
        pins are pinned (the others are left free); one solver per goal, asked once per set of
        values, and not at all where the values that ruled out an earlier game recur (_Pinned)."""
        fixed = [] if self.unsupported else [
            (i, v) for i, v in enumerate(self.spec.state)
            if _pinnable(v.type)
            and all(_same_value_terms(self.pre[v.name], st.state[v.name]) for st in self.steps.values())]
        params = [(i, p) for i, p in enumerate(self.spec.params) if _pinnable(p.type)]
        goals = {p.name: (p, False) for p in self.spec.properties if p.kind == "reachable"}
        goals.update({f"violation:{p.name}": (p, True) for p in self.invariants if p.name in self._unproved})
        asked: dict = {}  # goal key -> _Pinned

        def viable(key: str, S: list, P: list) -> bool:
            if key not in goals or not (fixed or params):
                return True
            if key not in asked:
                asked[key] = self._pinned(*goals[key], [(v, self.pre[v.name]) for _i, v in fixed]
                                          + [(p, self.params[p.name]) for _i, p in params])
            return asked[key].may_reach([S[i] for i, _v in fixed] + [P[i] for i, _p in params])
        return viable

    def _pinned(self, p: ir.Property, violation: bool, pinned: list) -> "_Pinned":
        """The question of `viable` for one goal: the proved invariants and the goal (p, or its
        violation) at the pre-state, the values of `pinned` ((variable or parameter, term)) given
        per game; None where the goal cannot be encoded."""
        try:
            v, f, cons = self.value(p.expr, self.pre, key=(p.name, "pre"), tag=f"pre.{p.name}")
        except Unsupported:
            return _Pinned(None, pinned)
        s, goal = self.allowed_under(*cons, OR(NOT(v) if violation else v, f))
        return _Pinned(s, pinned, goal, min(self.QUICK_MS, self.timeout_ms), self.timeout_ms)

    def from_exploration(self, p: ir.Property, key: str, t0, gap=None) -> bool:
        """Report what the directed search found for this goal, after replaying it in a fresh
        interpreter and checking it there (a reachability goal holds at the end, an invariant is
        false, the last move steps into the undecided point); False when it found nothing."""
        ex = self.exploration()
        f = ex.found.get(key) if ex is not None else None
        if f is None:
            return False
        from .simulate import record_trace

        ok = self.replays(f, p, gap)
        trace = record_trace(self.interpreter(), f.seed, f.params, f.moves, about=p)
        if not ok:  # the search and a fresh replay disagree: reported, never trusted
            self.add(p, "unknown", t0, f"spurious: the directed search's witness ({moves_text(len(f.moves))}) does not "
                                       "reach it when replayed", depth=len(f.moves), trace=trace,
                     kind="undecided" if gap is not None else None)
            return True
        self.keep_play(key, f)
        if key in ex.kept:
            kept = f"kept in {self.answers.path.name} by an earlier run"
            how = f"a play of {moves_text(len(f.moves))} {kept} reached it (replayed)"
            broke = f"violated: a play of {moves_text(len(f.moves))} {kept} breaks it (replayed)"
        else:
            how = f"a directed search of {ex.moves:,} moves reached it after {len(f.moves)} (replayed)"
            broke = (f"violated: a directed search of {ex.moves:,} moves found a play of {moves_text(len(f.moves))} "
                     "that breaks it (replayed)")
        if gap is not None:
            self.add(p, "reachable", t0, f"{gap.reason}: {how}", depth=len(f.moves), trace=trace, kind="undecided")
        elif p.kind == "reachable":
            self.add(p, "reachable", t0, how, depth=len(f.moves), trace=trace)
        else:
            self.add(p, "violated", t0, broke, depth=len(f.moves), trace=trace)
        return True

    def replays(self, f, p: ir.Property, gap=None) -> bool:
        """Whether a directed search's find replays in a fresh game and does what it claims
        there: a reachability goal holds at the end, an invariant is false, or (gap: the undecided
        point) the last move steps into the point (explore.replays)."""
        from .explore import replays

        return replays(self.interpreter(), f, p, gap)

    def from_simulation(self, p: ir.Property, key: str, t0, kind=None) -> bool:
        """Report a violation found in simulated games (a real trace); False when there is none."""
        found = self.simulated(key, p)
        if found is None:
            return False
        trace, f = found
        self.add(p, "violated", t0, f"violated in a simulated game after {moves_text(len(f.moves))} (seed \"{f.seed}\"): "
                                    f"{f.message}", depth=len(f.moves), trace=trace, kind=kind)
        return True

    def simulated_deadlock(self, t0) -> bool:
        """Report a deadlock of the simulated games, once its moves replayed in a fresh game end
        in it again (_replays, as for every other finding taken from them); False otherwise."""
        sim = self.simulation()
        f = sim.findings.get("deadlock") if sim is not None else None
        return f is not None and self._replays(f) and self.from_simulation(NO_DEADLOCK, "deadlock", t0, kind="deadlock")

    # ---- bounded model checking -------------------------------------------------------------
    def unrolling(self) -> "Unrolling":
        """The bounded unrolling, shared by every search (it grows as deeper states are needed)."""
        if getattr(self, "_unrolling", None) is None:
            self._unrolling = Unrolling(self)
        return self._unrolling

    def search_violation(self, p: ir.Property, why: str):
        """Look for a real violation of an invariant up to the depth; replay what is found."""
        t0 = time.perf_counter()
        cti = self.cti_text(p)
        if self.from_simulation(p, f"violation:{p.name}", t0):
            return
        if self.from_exploration(p, f"violation:{p.name}", t0):
            return
        try:
            u = self.unrolling()
            verdict, i = u.first(lambda i: u.invariant_target(p, i))
            if verdict == "unknown":
                if not self.from_evaluation_fault(p, t0):
                    self.stopped(p, t0, i, 0, u.reason, why + (f": {cti}" if cti else ""))
                return
            if verdict == "sat":
                self.report_trace(p, u, i, t0, ("invariant", p))
                return
        except Unsupported as exc:
            self.add(p, "unknown", t0, f"{why}; the bounded search cannot encode: {exc.message}")
            return
        if self.from_evaluation_fault(p, t0):
            return
        k, not_k = self.k_induction(p, self.depth) if not p.expect_violated else (None, "")
        if k is not None:
            # it holds in every state a game reaches: the questions after this one assume it, as
            # they assume what induction proved (a game that breaks it takes them all down with it:
            # cross_check_simulation)
            self.assumed = self.assumed | {p.name}
            self.add(p, "proved", t0, self.k_proved(k, why, cti))
            return
        msg = f"{why}" + (f": {cti}" if cti else "") + f"; no violation within {moves_text(self.depth)}" + \
            self.games_note() + not_k
        self.add(p, "bounded", t0, msg, depth=self.depth)
        if not p.expect_violated and not_k:
            self._k_left[p.name] = (p, why, cti, frozenset(self.assumed))

    def k_proved(self, k: int, why: str, cti: str) -> str:
        return (f"proved by {k}-induction: {why}" + (f" ({cti})" if cti else "") +
                f", but no {k} moves in a row through states where it holds (and the invariants proved before it) "
                f"lead to one where it does not, and it holds in every state within {moves_text(self.depth)} of the start")

    def k_again(self) -> None:
        """k-induction once more for each invariant it left bounded, where invariants were proved
        after it was tried (by k-induction, in the spec's order): the runs now assume them too, as
        they would have if those had come first. Again while that proves more. (A differential fuzz
        found `z <= 2` left bounded where the lemma `y <= 2`, tried after it, was proved.)"""
        while True:
            proved = False
            for name, (p, why, cti, assumed) in list(self._k_left.items()):
                if assumed == self.assumed:
                    continue
                t0 = time.perf_counter()
                k, _not_k = self.budget(self.k_induction, p, self.depth)
                self._k_left[name] = (p, why, cti, frozenset(self.assumed))
                if k is None:
                    continue
                del self._k_left[name]
                i = next(i for i, r in enumerate(self.results) if r.property == name and r.kind == p.kind)
                before = self.results[i].seconds
                self.assumed = self.assumed | {name}
                self.add(p, "proved", t0, self.k_proved(k, why, cti))
                self.results[i] = self.results.pop()
                self.results[i].seconds += before
                proved = True
            if not proved:
                return

    K_INDUCTION = 4  # k-induction tries k = 2 up to this many moves (and up to one more than the depth searched)

    def k_induction(self, p: ir.Property, searched: int) -> tuple[int | None, str]:
        """Whether an invariant that one move may break (from a state no game reaches, perhaps) is
        kept by k moves in a row: no run of k moves whose first k states meet it (and the proved
        invariants) ends in a state that does not (k-induction). With every state within k - 1
        moves of the start meeting it (the bounded search found no violation within `searched`
        moves), that proves it. Returns (the least such k, "") or (None, what to add to the
        bounded result: each k up to the limit has such a run, or the solver stopped at one).
        The runs are one chain of states for every invariant tried (k_chain), each invariant's
        part of a question under literals of its own."""
        top = min(self.K_INDUCTION, searched + 1)
        if top < 2:
            return None, ""
        try:
            held = []  # literals: p holds in the chain's states 0 .. k - 1
            for k in range(2, top + 1):
                u = self.k_chain(k)
                for i in range(len(held), k):
                    h, cons = self.holds(p, u.states[i], f"kind.{i}")
                    lit = z3.Bool(f"kind.holds.{p.name}.{i}")
                    u.solver.add(z3.Implies(lit, AND(*cons, h)))
                    held.append(lit)
                h, cons = self.holds(p, u.states[k], f"kind.{k}")
                verdict = u.find(AND(*cons, NOT(h)), k, assume=held)
                if verdict == "unsat":
                    return k, ""
                if verdict == "unknown":
                    if u.solver.over:  # the per-property limit, not the brief try's
                        return None, f"; k-induction stopped at k = {k}: {u.reason}"
                    why = "" if u.limited else f" ({u.reason})"  # (the brief try's limit: the message names it)
                    return None, f"; k-induction not settled at k = {k} within its brief try{why}"
        except Unsupported as exc:
            return None, f"; k-induction cannot encode: {exc.message}"
        return None, f"; not proved by k-induction either (k = 2{f' to {top}' if top > 2 else ''})"

    def k_chain(self, k: int) -> "Unrolling":
        """k-induction's runs (shared by the invariants it tries): k moves from any state, each
        state meeting the proved invariants (they hold in every state a game reaches; those
        k-induction proved are added as they are proved)."""
        u = self._k_chain
        if u is None:
            state, cons = self.enc.fresh_state("kind.s0.")
            u = self._k_chain = Unrolling(self, (state, cons))
            # brief tries, half the induction's: an attempt past the bounded search, not a search
            # of its own (benchmarks/HISTORY.md: the tries of the induction's length settled
            # nothing more, and took twice as long)
            self._limit(u.solver, min(self.QUICK_MS // 2, self.timeout_ms))
        u.reach(k)
        for i in range(len(u.states)):
            if i == len(self._k_assumed):
                self._k_assumed.append(set())
            for q in self.invariants:
                if q.name in self.assumed and q.name not in self._k_assumed[i]:
                    h, cons = self.holds(q, u.states[i], f"kind.{i}")
                    u.solver.add(*cons, h)
                    self._k_assumed[i].add(q.name)
        return u

    def from_evaluation_fault(self, p: ir.Property, t0) -> bool:
        """Report an invariant (a ranking) no search found false as unknown where a simulated game stopped
        at a run-time error in evaluating it (evaluation_fault), with that game's trace: not
        bounded, as if no game had met a state it does not hold in; False when none did."""
        found = self.evaluation_fault(p.name)
        if found is None:
            return False
        from .simulate import record_trace

        f, message = found
        self.add(p, "unknown", t0, f"evaluating {p.name} runs into a run-time error ({message}) in a simulated game "
                                   f"after {moves_text(len(f.moves))} (seed \"{f.seed}\"): the interpreter takes it as "
                                   "neither true nor false there, Z3 as " + ("broken" if p.kind == "terminates" else "false"),
                 depth=len(f.moves),
                 trace=record_trace(self.interpreter(), f.seed, f.params, f.moves, about=p))
        return True

    def stopped(self, p: ir.Property, t0, i: int, first: int, reason: str, why: str = "", kind=None):
        """The bounded search timed out at depth i: bounded by the depths it finished (those from
        `first` on), unknown when it finished none."""
        lead = f"{why}; " if why else ""
        if i > first:
            self.add(p, "bounded", t0, f"{lead}no violation within {moves_text(i - 1)} (the search at depth {i} stopped: "
                                       f"{reason})" + self.games_note(p.kind == "invariant"), depth=i - 1, kind=kind)
        else:
            self.add(p, "unknown", t0, f"{lead}bounded search stopped at depth {i}: {reason}", depth=i, kind=kind)

    def games_note(self, searched: bool = True) -> str:
        """What else found nothing: the random games (which judge every property), and the directed
        search where it ran and looked for it (searched: an invariant's violation, a reachability
        goal, an undecided point; not a run-time error, a ranking, a bound or a deadlock)."""
        note = f" nor in {self.games} simulated game{'s' * (self.games != 1)}" if self.games else ""
        sim = getattr(self, "_sim", None)
        if note and sim is not None and sim.moves and not any(sim.moves):
            note += " (none played a move)"  # each stopped at the setup, or the game ends there
        if self._sim_error:
            note = f" (no random games: {self._sim_error})"
        if self._explored is not None and self._explored.searched and searched:
            note += f" nor by a directed search of {self._explored.moves:,} moves"
        return note

    def add(self, p: ir.Property, status, t0, message, depth=None, trace=None, kind=None):
        self.results.append(Result(p.name, kind or p.kind, self.n, status, time.perf_counter() - t0, message, depth,
                                   p.cite, p.expect_violated, p.span, trace))

    def report_trace(self, p, u: "Unrolling", i: int, t0, target):
        trace, problem = u.replay(i, target)
        if problem:
            if p.kind == "reachable":
                w = self.simulated_witness(p)
                if w is not None:
                    self.add(p, "reachable", t0, f"reached in a simulated game after {moves_text(len(w.steps))}", trace=w)
                    return
            elif self.from_simulation(p, f"violation:{p.name}", t0):
                return
            if u.evaluation_error:  # a real play, on which the property cannot be evaluated
                if not trace.steps:  # (at the setup: no move of Z3's play was replayed)
                    self.add(p, "unknown", t0, f"the setup (replayed): {problem}", depth=0, trace=trace)
                else:
                    self.add(p, "unknown", t0, f"a play of {moves_text(i)} (replayed): {problem}", depth=i, trace=trace)
                return
            self.add(p, "unknown", t0, f"spurious counterexample of {moves_text(i)}: {problem}", depth=i, trace=trace)
        else:
            what = "reached" if p.kind == "reachable" else "violated"
            status = "reachable" if p.kind == "reachable" else "violated"
            how = " with its own chance: the model's draws did not replay" if u.own_chance else ""
            self.add(p, status, t0, f"{what} after {moves_text(i)} (replayed in the interpreter{how})", depth=i, trace=trace)

    # ---- run-time errors -----------------------------------------------------------------
    def check_faults(self):
        """No action (nor the setup) can run into a run-time error, in the states the invariants allow."""
        t0 = time.perf_counter()
        suspects = []
        s = self.solver()
        s.add(*self.init.constraints, OR(*[c for c, _m, _sp in self.init.faults]) if self.init.faults else False)
        if self.init.faults and s.check() != z3.unsat:
            suspects.append((None, "the setup"))
        assume = self.assumptions(self.assumed)
        try:
            ends = self.end_faults()
        except Unsupported as exc:
            ends = []
            suspects.append((None, f"the end conditions (cannot encode: {exc.message})"))
        if ends:  # every state's end conditions are evaluated, in order, before its moves are looked for
            if self.allowed(OR(*[c for c, _m in ends])) != z3.unsat:
                suspects.append((None, f"the end conditions ({'; '.join(dict.fromkeys(m for _c, m in ends))})"))
        for a in self.spec.actions:
            if a.name in self.unsupported:  # not proved for an action Z3 cannot encode
                suspects.append((a, f"{a.name} (cannot encode: {self.unsupported[a.name]})"))
                continue
            # a fault in the guard itself is asked without the guard
            open_ = self.possible(a, lambda st: [(m, c, sp) for c, m, sp in st.guard_faults], assume, with_guard=False)
            if not self.faults_and_rankings(a, assume):
                open_ += self.possible(a, lambda st: [(m, c, sp) for c, m, sp in st.faults], assume)
            if any(m.startswith(BEYOND_EXACT) for m in open_):
                self.beyond_exact = True
                self.beyond_exact_cut = self.beyond_exact_cut or self.over_budget()
            if open_:
                suspects.append((a, f"{a.name} ({'; '.join(dict.fromkeys(open_))})"))
        prop = NO_RUNTIME_ERRORS
        if not suspects:
            self.add(prop, "proved", t0, "no action can fault in a state the proved invariants allow", kind="fault")
            return
        # a run-time error in a simulated game is a real trace; else search for one
        fault = self.rules_fault()
        if fault and self.from_simulation(prop, fault, t0, kind="fault"):
            return
        try:
            u = self.unrolling()
            verdict, i = u.first(u.fault_target, last_step_completes=False)
            if verdict == "sat":
                trace, problem = u.replay(i, ("fault", None))
                status = "unknown" if problem else "violated"
                msg = (f"spurious counterexample: {problem}" if problem else
                       f"a run-time error after {moves_text(i)} (replayed): {trace.outcome.get('message', '')}")
                self.add(prop, status, t0, msg, depth=i, trace=trace, kind="fault")
                return
            if verdict == "unknown":
                self.stopped(prop, t0, i, 0, u.reason, f"not proved for {', '.join(w for _a, w in suspects)}", kind="fault")
                return
        except Unsupported as exc:
            self.add(prop, "unknown", t0, f"cannot encode: {exc.message}", kind="fault")
            return
        names = ", ".join(w for _a, w in suspects)
        self.add(prop, "bounded", t0, f"not proved for {names}; none within {moves_text(self.depth)}"
                 + self.games_note(searched=False),
                 depth=self.depth, kind="fault")

    @_preprocessed
    def faults_and_rankings(self, a: ir.Action, assume: list) -> bool:
        """Whether one brief question refutes both the run-time errors of action a's whole step
        (its guard holding) and every ranking's failing to decrease or to stay non-negative on it:
        the two questions share the assumptions and the step, and asked as one they cost about what
        the run-time errors' question alone does (de.rules, the 28 actions: 9.9 s against 9.5 s and
        4.6 s with 3 players, 10.1 s against 9.0 s and 4.5 s with 4; a probe). Where it does, the
        action's run-time errors are refuted and it is kept for the rankings (rankings_kept); where
        it does not, both are asked apart, as before. Not asked for an action whose induction step
        the question of all invariants at once did not settle: its step is hard, and the joint
        question then ran out its time as well (Wizard Extreme's play_card with 3 players, 4.7 s,
        before both questions apart timed out too)."""
        ranked = [p for p in self.spec.properties if p.kind == "terminates"]
        st = self.steps[a.name]
        faults = [c for c, _m, _sp in st.faults]
        if not ranked or not faults or a.name in self._unsettled_at_once:
            return False
        try:
            cons, bad = self.rankings_broken(ranked, st)
        except Unsupported:
            return False
        r, _m, _why = self.ask_step(st, *assume, *cons, OR(*faults, AND(st.alive, bad)), timeout_ms=self.QUICK_MS)
        if r != z3.unsat:
            return False
        self._kept_with_faults.add(a.name)
        return True

    def end_faults(self, state=None, tag: str = "pre") -> list:
        """[(condition, message)]: the run-time errors of the end conditions in a state (the
        pre-state by default), each where the ends before it do not hold (the interpreter stops
        at the first that does). An end condition Z3 cannot encode: Unsupported."""
        state = self.pre if state is None else state
        out, before = [], []
        for e in self.spec.ends:
            v, f, cons = self.value(e.cond, state, tag=f"{tag}.endfault.{e.name}")
            if not is_false(f):
                out.append((AND(*cons, *before, f), f"the end condition {e.name}"))
            before.append(AND(*cons, NOT(v)))
        return out

    # ---- rankings ------------------------------------------------------------------------
    def prove_ranking(self, p: ir.Property):
        t0 = time.perf_counter()
        if self.unsupported:  # nothing proved; a random game that breaks it is a real trace
            if not self.from_simulation(p, f"violation:{p.name}", t0):
                self.add(p, "unknown", t0, "cannot encode " + ", ".join(self.unsupported))
            return
        failing = []
        assume = self.assumptions(self.assumed)
        kept = self.rankings_kept()

        def breaks(a, st, timeout_ms=None):
            """Whether this step (an action's, or one case of it) may fail to decrease the ranking."""
            cons, bad = self.ranking_broken(p, st)
            facts = [*assume, st.alive, *cons, bad]
            if timeout_ms is not None:
                return self.ask_step(st, *facts, timeout_ms=timeout_ms)
            return self.settle(a, st, *facts)

        for a in self.spec.actions:
            if a.name in kept:
                continue  # every ranking decreases on it (asked of all the rankings at once)
            # split by the player parameters' values after a brief try of the whole step; settle
            # splits each (or the whole step, with no such parameter) by paths after its own try
            cases = self.cases(a)
            r, _m, why = breaks(a, self.steps[a.name], self.QUICK_MS if cases else None)
            if r == z3.unknown and cases:
                for st in cases:
                    r, _m, why = breaks(a, st)
                    if r != z3.unsat:
                        break
            if r == z3.sat:
                failing.append(a.name)
            elif r == z3.unknown:
                self.add(p, "unknown", t0, f"{a.name}: {why}")
                return
        if not failing:
            self.add(p, "proved", t0, "the ranking decreases on every move and stays non-negative")
            return
        if self.from_simulation(p, f"violation:{p.name}", t0):
            return
        try:
            u = self.unrolling()
            verdict, i = u.first(lambda i: u.ranking_target(p, i), start=1)
            if verdict == "sat":
                self.report_trace(p, u, i, t0, ("terminates", p))
                return
            if verdict == "unknown":
                if not self.from_evaluation_fault(p, t0):
                    self.stopped(p, t0, i, 1, u.reason, f"not proved for {', '.join(failing)}")
                return
        except Unsupported as exc:
            self.add(p, "unknown", t0, f"cannot encode: {exc.message}")
            return
        if self.from_evaluation_fault(p, t0):
            return
        self.add(p, "bounded", t0, f"not proved for {', '.join(failing)}; no violation within {moves_text(self.depth)}"
                 + self.games_note(searched=False), depth=self.depth)

    def ranking_broken(self, p: ir.Property, st: StepResult) -> tuple[list, object]:
        """(constraints, condition) for one step (an action's, or one case of it) of ranking p: the
        condition holds where the step starts in p's phase and then fails to decrease the ranking
        or to keep it non-negative (its pre-state parts evaluated once per ranking)."""
        if p.name not in self._ranking_pre:
            self._ranking_pre[p.name] = (self.value(p.cond, self.pre, tag=f"rank.{p.name}.cond"),
                                         [self.value(r, self.pre, tag=f"rank.{p.name}.r") for r in p.ranks])
        (cond, cf, cc), ranks = self._ranking_pre[p.name]
        cond2, cf2, cc2 = self.value(p.cond, st.state, tag=f"rank.{p.name}.cond2")
        ranks2 = [self.value(r, st.state, tag=f"rank.{p.name}.r2") for r in p.ranks]
        nonneg = AND(*[v >= 0 for v, _f, _c in ranks])
        dec = _lex_less([v for v, _f, _c in ranks2], [v for v, _f, _c in ranks])
        # a run-time error in evaluating the ranking or its while-condition, before or after the
        # step, breaks it: the interpreter cannot judge the step there (a game stops)
        ok = AND(nonneg, NOT(OR(*[f for _v, f, _c in ranks])), NOT(cf2),
                 OR(NOT(cond2), AND(dec, NOT(OR(*[f for _v, f, _c in ranks2])))))
        extra = [c for _v, _f, cs in ranks + ranks2 for c in cs]
        return [*cc, *cc2, *extra], OR(cf, AND(cond, NOT(ok)))

    def rankings_broken(self, ranked: list, st: StepResult) -> tuple[list, object]:
        """ranking_broken for several rankings on one step at once: (their constraints, the
        condition that one of them fails)."""
        parts = [self.ranking_broken(p, st) for p in ranked]
        return [c for cons, _b in parts for c in cons], OR(*[bad for _c, bad in parts])

    def rankings_kept(self) -> set[str]:
        """The actions on which every ranking of the spec decreases and stays non-negative: one
        brief question per action for all of them together (de.rules, 5 players, two rankings:
        5.8 s against 11.4 s asked apart, every answer the same). Only an unsat answer counts; a
        ranking still open on an action is asked alone (prove_ranking). Computed once; the actions
        check_faults already kept (faults_and_rankings) are not asked again, with one ranking too."""
        if self._kept is None:
            self._kept = set(self._kept_with_faults)
            ranked = [p for p in self.spec.properties if p.kind == "terminates"]
            if len(ranked) < 2 or self.unsupported:
                return self._kept
            assume = self.assumptions(self.assumed)
            try:
                for a in self.spec.actions:
                    if a.name in self._kept:
                        continue
                    st = self.steps[a.name]
                    cons, bad = self.rankings_broken(ranked, st)
                    r, _m, _why = self.ask_step(st, *assume, st.alive, *cons, bad, timeout_ms=self.QUICK_MS)
                    if r == z3.unsat:
                        self._kept.add(a.name)
            except Unsupported:
                pass
        return self._kept

    # ---- bounded response --------------------------------------------------------------------
    def prove_bound(self, p: ir.Property):
        """`after T, at most N A`: a monitor (active, count) proved with candidate helper facts."""
        t0 = time.perf_counter()
        if self.unsupported:  # nothing proved; a random game that breaks it is a real trace
            if not self.from_simulation(p, f"violation:{p.name}", t0):
                self.add(p, "unknown", t0, "cannot encode " + ", ".join(self.unsupported))
            return
        active, count = z3.Bool(f"mon.{p.name}.active"), z3.Int(f"mon.{p.name}.count")
        trig_pre, tf, tc = self.value(p.trigger, self.pre, tag=f"mon.{p.name}.pre")
        # candidates: count == 0 unless active; the monitor is active exactly when the trigger holds
        # (a trigger that, once true, stays true); count <= x or count == x for integer state x
        # (only variables the counted action changes can keep pace with the count)
        counted = self.steps.get(p.action)
        ints = [(v.name, self.pre[v.name]) for v in self.spec.state if isinstance(v.type, IntT) and not v.zone
                and (counted is None or not _same_value_terms(self.pre[v.name], counted.state[v.name]))]
        cands = {"base": lambda act, cnt, st, trig: AND(cnt >= 0, OR(act, cnt == 0)),
                 "active-when-triggered": lambda act, cnt, st, trig: IMPLIES(trig, act),
                 "triggered-when-active": lambda act, cnt, st, trig: IMPLIES(act, trig)}
        for name, _x in ints:
            cands[f"le:{name}"] = lambda act, cnt, st, trig, name=name: cnt <= st[name]
            cands[f"eq:{name}"] = lambda act, cnt, st, trig, name=name: cnt == st[name]
        goal = lambda act, cnt, st: cnt <= p.limit  # noqa: E731
        init_trig, itf, itc = self.value(p.trigger, self.init.state, tag=f"mon.{p.name}.init")
        alive = dict(cands)

        def weed(ask, holds_after: dict, facts):
            """Houdini: drop the candidates a counterexample falsifies until the rest is settled;
            facts(names) gives what may be assumed while those candidates are alive."""
            while alive:
                extra = facts(list(alive))  # (in their order: a set's order would change with the hash seed)
                r, m, _why = ask(*extra, NOT(AND(*[holds_after[n] for n in alive])))
                if r == z3.unsat:
                    return
                if r == z3.sat:
                    bad = [n for n in alive if not _model_bool(m, holds_after[n])]
                else:  # unknown: one by one
                    bad = [n for n in alive if ask(*extra, NOT(holds_after[n]))[0] != z3.unsat]
                for n in bad or list(alive):
                    del alive[n]

        # initial: count 0, active = trigger
        weed(lambda *f: self.ask(None, self.init.alive, *f),
             {n: f(init_trig, 0, self.init.state, init_trig) for n, f in cands.items()}, lambda names: list(itc))
        changed = True
        kept: dict = {}  # action -> the candidates it was last found to keep, none dropped
        while changed and alive:
            changed = False
            for a in self.spec.actions:
                if not alive:
                    break
                before = set(alive)
                if kept.get(a.name) == before:
                    continue  # the same question as in the last round: the same answer
                st = self.steps[a.name]
                trig_post, tf2, tc2 = self.value(p.trigger, st.state, tag=f"mon.{p.name}.post.{a.name}")
                if a.name != p.action and _same_value_terms(trig_pre, trig_post) and \
                        all(_same_value_terms(x, st.state[name]) for name, x in ints):
                    # the count, the trigger and every x the same terms after the move: each candidate
                    # holds after it as before (the monitor's activity only grows; de.rules: 22 of 28
                    # actions, the bound with 3 players 47 -> 13 questions, 4.7 -> 2.0 s, a probe)
                    kept[a.name] = before
                    continue
                act2 = OR(active, trig_post)
                cnt2 = z3.If(active, count + 1, count) if a.name == p.action else count
                after = {n: f(act2, cnt2, st.state, trig_post) for n, f in alive.items()}
                base = [*self.assumptions(self.assumed), st.alive, *tc, *tc2]
                weed(lambda *f: self.ask(a, *f), after,
                     lambda names: base + [cands[n](active, count, self.pre, trig_pre) for n in names])
                if set(alive) == before:
                    kept[a.name] = before
                else:
                    changed = True
        s = self.solver()
        s.add(*self.assumptions(self.assumed), *tc, *[f(active, count, self.pre, trig_pre) for f in alive.values()],
              NOT(goal(active, count, self.pre)))
        if alive and s.check() == z3.unsat:
            helpers = [n for n in alive if n != "base"]
            self.add(p, "proved", t0, "proved by induction on a monitor" +
                     (f" with {', '.join(h.replace(':', ' ') for h in helpers)}" if helpers else ""))
            return
        if self.from_simulation(p, f"violation:{p.name}", t0):
            return
        try:
            u = self.unrolling()
            verdict, i = u.first(lambda i: u.bound_target(p, i), start=1)
            if verdict == "sat":
                self.report_trace(p, u, i, t0, ("bound", p))
                return
            if verdict == "unknown":
                self.stopped(p, t0, i, 1, u.reason, "not proved by induction")
                return
        except Unsupported as exc:
            self.add(p, "unknown", t0, f"cannot encode: {exc.message}")
            return
        self.add(p, "bounded", t0, f"not proved by induction; no violation within {moves_text(self.depth)}"
                 + self.games_note(searched=False),
                 depth=self.depth)

    # ---- reachability ------------------------------------------------------------------------
    def check_reachable(self, p: ir.Property):
        """Unreachable when no state the proved invariants allow satisfies it; reachable with a real
        trace from a simulated game or the bounded search (the shortest one it finds)."""
        t0 = time.perf_counter()
        if self.ruled_out(p):
            self.add(p, "unreachable", t0, "no state the proved invariants allow satisfies it")
            return
        w = self.simulated_witness(p)
        if w is not None:
            self.add(p, "reachable", t0, f"reached in a simulated game after {moves_text(len(w.steps))} (a real trace)",
                     depth=len(w.steps), trace=w)
            return
        if self.from_exploration(p, p.name, t0):
            return
        def reached(i):
            v, f, c = self.value(p.expr, u.states[i], tag=f"reach.{p.name}.{i}")
            return AND(v, NOT(f), *c)
        try:
            u = self.unrolling()
            verdict, i = u.first(reached)
            if verdict == "sat":
                self.report_trace(p, u, i, t0, ("reachable", p))
                return
            if verdict == "unknown":
                if i:
                    self.add(p, "bounded", t0, f"not reached within {moves_text(i - 1)} (the search at depth {i} "
                                               f"stopped: {u.reason})" + self.games_note(), depth=i - 1)
                else:
                    self.add(p, "unknown", t0, f"the bounded search stopped at depth 0: {u.reason}; not reached"
                                               + self.games_note().replace(" nor", ""))
                return
        except Unsupported as exc:
            self.add(p, "unknown", t0, f"cannot encode: {exc.message}")
            return
        self.add(p, "bounded", t0, f"not reached within {moves_text(self.depth)}" + self.games_note(), depth=self.depth)

    def gap_unreachable(self, ids) -> bool:
        """Whether Z3 proves that neither the setup nor any step from a state the proved invariants
        allow meets one of these copies of an undecided point. Asked once per point (check_gaps
        and the directed search's pause, where such a point stops keeping the search going, share
        the answer)."""
        key = tuple(sorted(ids))
        known = self._gaps_unreachable.get(key)
        if known is not None:
            return known
        possible = False
        s = self.solver()
        s.add(*self.init.constraints, OR(*[c for c, g in self.init.gaps if g in ids]) if self.init.gaps else False)
        if self.init.gaps and s.check() != z3.unsat:
            possible = True
        assume = self.assumptions(self.assumed)
        for a in self.spec.actions:
            if possible:
                break
            if a.name not in self.steps:
                possible = True
            elif self.possible(a, lambda st: [("gap", c, None) for c, g in st.gaps if g in ids], assume):
                possible = True
        if not self.over_budget():  # (an answer the per-property limit cut short is not kept)
            self._gaps_unreachable[key] = not possible
        return not possible

    def check_gaps(self):
        """Each undecided point: proved unreachable, or reached by a replayed trace (each under a
        per-property time limit of its own)."""
        for u_pt in self.spec.undecided:
            self.budget(self.check_gap, u_pt)

    def check_gap(self, u_pt):
        """One undecided point (and its inlined copies, reported once)."""
        t0 = time.perf_counter()
        prop = _gap_property(u_pt)
        if any(r.property == prop.name for r in self.results):
            return
        ids = [x.id for x in self.spec.undecided if x.span == u_pt.span]  # inlined copies of one point
        # a real trace settles it: a simulated game's, or the directed search's when it has run
        # and reached the point (replayed); Z3 is asked only for the others (a sat answer there
        # only says what the trace shows, at a cost: de.rules' reachable points took most of
        # the 8 s of this check)
        explored = self._explored
        if self.gap_simulated(prop, u_pt, t0) or (explored is not None and prop.name in explored.found
                                                  and self.from_exploration(prop, prop.name, t0, u_pt)):
            return
        if self.gap_unreachable(ids):
            self.add(prop, "unreachable", t0, f"{u_pt.reason}: not reachable in any state the invariants allow",
                     kind="undecided")
            return
        if self.from_exploration(prop, prop.name, t0, u_pt):
            return
        try:
            un = self.unrolling()
            for i in range(self.depth + 1):
                un.reach(i)
                verdict = un.find(un.gap_target(ids, i), i, last_step_completes=False)
                if verdict == "sat":
                    trace, problem = un.replay(i, ("gap", ids))
                    if problem:
                        self.add(prop, "unknown", t0, f"{u_pt.reason}: spurious witness: {problem}", depth=i,
                                 trace=trace, kind="undecided")
                    else:
                        self.add(prop, "reachable", t0, f"{u_pt.reason}: reached after {moves_text(i)} (replayed)",
                                 depth=i, trace=trace, kind="undecided")
                    break
                if verdict == "unknown":
                    if i:
                        self.add(prop, "bounded", t0, f"{u_pt.reason}: not reached within {moves_text(i - 1)} (the search "
                                 f"at depth {i} stopped: {un.reason})" + self.games_note()
                                 + ", and not proved unreachable", depth=i - 1, kind="undecided")
                    else:
                        self.add(prop, "unknown", t0, f"{u_pt.reason}: search stopped at depth {i}: {un.reason}",
                                 kind="undecided")
                    break
            else:
                self.add(prop, "bounded", t0, f"{u_pt.reason}: not reached within {moves_text(self.depth)}"
                                              + self.games_note() + ", and not proved unreachable",
                         depth=self.depth, kind="undecided")
        except Unsupported as exc:
            self.add(prop, "unknown", t0, f"cannot encode: {exc.message}", kind="undecided")

    def gap_simulated(self, prop: ir.Property, u_pt, t0) -> bool:
        """Report an undecided point reached in a simulated game (a real trace); False when none did."""
        found = self.simulated(prop.name, prop)
        if found is None:
            return False
        trace, f = found
        self.add(prop, "reachable", t0, f"{u_pt.reason}: reached in a simulated game after "
                                        f"{moves_text(len(f.moves))} (seed \"{f.seed}\")", depth=len(f.moves),
                 trace=trace, kind="undecided")
        return True

    def check_deadlock(self):
        t0 = time.perf_counter()
        prop = NO_DEADLOCK
        if self.unsupported:  # nothing proved; a random game that ends in one is a real trace
            if not self.simulated_deadlock(t0):
                self.add(prop, "unknown", t0, "cannot encode " + ", ".join(self.unsupported), kind="deadlock")
            return
        try:
            stuck = no_move(self, self.pre, "dl")
        except Unsupported as exc:
            self.add(prop, "unknown", t0, f"cannot encode: {exc.message}", kind="deadlock")
            return
        s = self.solver()
        s.add(*self.assumptions(self.assumed), stuck)
        r = s.check()
        if r == z3.unsat:
            self.add(prop, "proved", t0, "in every state the invariants allow, an end holds or a move is legal",
                     kind="deadlock")
            return
        if r == z3.unknown:
            self.add(prop, "unknown", t0, s.reason_unknown(), kind="deadlock")
            return
        if self.simulated_deadlock(t0):
            return
        try:
            u = self.unrolling()
            verdict, i = u.first(lambda i: no_move(self, u.states[i], f"dl{i}"))
            if verdict == "sat":
                trace, problem = u.replay(i, ("deadlock", None))
                status = "unknown" if problem else "violated"
                msg = f"spurious counterexample: {problem}" if problem else f"a deadlock after {moves_text(i)} (replayed)"
                self.add(prop, status, t0, msg, depth=i, trace=trace, kind="deadlock")
                return
            if verdict == "unknown":
                self.stopped(prop, t0, i, 0, u.reason, "not proved", kind="deadlock")
                return
        except Unsupported as exc:
            self.add(prop, "unknown", t0, f"cannot encode: {exc.message}", kind="deadlock")
            return
        self.add(prop, "bounded", t0, f"not proved; no deadlock within {moves_text(self.depth)}"
                 + self.games_note(searched=False),
                 depth=self.depth, kind="deadlock")

    # ---- sanity ----------------------------------------------------------------------------------
    def check_sanity(self):
        """Actions that can never be enabled; invariants `A implies B` whose A never holds. An
        action a simulated game played is enabled in a reachable state, so Z3 is not asked about
        it: a real trace settles it, and the question's sat answer was the costly kind."""
        sim = self.simulation()
        played = sim.played if sim is not None else {}
        for a in self.spec.actions:
            st = self.steps.get(a.name)
            if st is None or a.name in played:
                continue
            t0 = time.perf_counter()
            r, _m, _why = self.ask(a, *self.assumptions(self.assumed))
            if r == z3.unsat:
                prop = ir.Property("action", f"enabled:{a.name}", a.cite, a.span, doc=a.doc)
                self.add(prop, "unreachable", t0, f"{a.name} can never be enabled in a state the invariants allow",
                         kind="action")
        for p in self.invariants:
            if isinstance(p.expr, ir.Binary) and p.expr.op == "implies":
                t0 = time.perf_counter()
                try:
                    v, f, c = self.value(p.expr.left, self.pre, tag=f"vac.{p.name}")
                except Unsupported:
                    continue
                if self.allowed(*c, v) == z3.unsat:
                    for r in self.results:
                        if r.property == p.name and r.kind == "invariant":
                            r.message += "; vacuous: its condition never holds"


def _paths(nodes: list, limit: int, depth: int = 8) -> list[list]:
    """The paths through a branch tree (Ctx.branch) as lists of conditions, exhaustive: split on
    the first branch with branches inside, then on the first such inside each side, and so on;
    [[]] when there is none, or when the paths would pass the limit."""
    out: list = [[]]
    for n in nodes:
        if depth and (n["then"] or n["else"]):
            out = []
            for lit, kids in ((n["cond"], n["then"]), (NOT(n["cond"]), n["else"])):
                out += [[lit, *rest] for rest in _paths(kids, limit, depth - 1)]
            return out if len(out) <= limit else [[n["cond"]], [NOT(n["cond"])]]
    return out


def _polarity(t) -> tuple[int, bool]:
    """(the id of a condition under its negations, whether they are even in number)."""
    even = True
    while z3.is_not(t):
        t, even = t.arg(0), not even
    return t.get_id(), even


def _literals(facts) -> dict:
    """The conditions the facts assert through their conjunctions (a fault's or gap's path
    condition among them), as {id under negations: {polarities}}."""
    out: dict = {}
    stack = [f for f in facts if isinstance(f, z3.BoolRef)]
    seen: set = set()
    while stack:
        x = stack.pop()
        if x.get_id() in seen:
            continue
        seen.add(x.get_id())
        if z3.is_and(x):
            stack.extend(x.children())
        else:
            key, even = _polarity(x)
            out.setdefault(key, set()).add(even)
    return out


def _contradicts(lit, literals: dict) -> bool:
    """Whether a path's condition is the negation of one the facts assert (syntactically)."""
    key, even = _polarity(lit)
    return (not even) in literals.get(key, ())


def _walk(e):
    stack = [e]
    while stack:
        x = stack.pop()
        yield x
        for name in getattr(x, "__dataclass_fields__", {}):
            if name in ("type", "span"):
                continue
            v = getattr(x, name)
            for y in (v if isinstance(v, tuple) else (v,)):
                if isinstance(y, (ir.Expr, ir.Domain, ir.BagItem)):
                    stack.append(y)
                elif isinstance(y, tuple):
                    stack.extend(z for z in y if isinstance(z, (ir.Expr, ir.Domain)))


def _terms(v):
    """The scalar terms a symbolic value is made of."""
    if isinstance(v, OptV):
        yield v.some
        yield from _terms(v.val)
    elif isinstance(v, SeqPileV):
        yield v.size
        yield from v.items
    elif isinstance(v, PileV):
        yield from v.counts
        yield from _terms(v.top)
    elif isinstance(v, BagV):
        yield from v.counts
    elif isinstance(v, SetV):
        yield from v.bits
    elif isinstance(v, (SeqV, MapV)):
        for x in v.items:
            yield from _terms(x)
    else:
        yield v


def _same_value_terms(a, b) -> bool:
    """The two symbolic values are made of the very same terms (so they are equal in every model)."""
    ta, tb = list(_terms(a)), list(_terms(b))
    if len(ta) != len(tb):
        return False
    for x, y in zip(ta, tb):
        if isinstance(x, z3.ExprRef) or isinstance(y, z3.ExprRef):
            if not (isinstance(x, z3.ExprRef) and isinstance(y, z3.ExprRef) and x.eq(y)):
                return False
        elif type(x) is not type(y) or x != y:
            return False
    return True


def _show(t, value, dom) -> str:
    if isinstance(value, tuple) and value and value[0] == "pile":
        _tag, counts, top = value
        return f"{sum(counts)} cards" + (f", top {format_value(t.elem, dom.values(t.elem)[top], dom)}" if top is not None else "")
    if isinstance(value, tuple) and value and value[0] == "seq":  # a pile followed card by card: its cards in order
        value = [dom.values(t.elem)[k] for k in value[1]]
    if isinstance(t, MapT) and isinstance(t.value, PileT):
        return "{…}"
    try:
        text = format_value(t, value, dom)
    except Exception:  # a value of a shape format_value does not know (a pile summary inside a map)
        text = str(value)
    return text if len(text) <= 80 else text[:77] + "…"


def _lex_less(a: list, b: list):
    """a < b lexicographically."""
    if not a:
        return False
    return OR(a[0] < b[0], AND(a[0] == b[0], _lex_less(a[1:], b[1:])))


def no_move(v: Verifier, state: dict, tag: str):
    """The state is not an end and no action has a legal move in it."""
    parts = []
    for e in v.spec.ends:
        val, f, c = v.value(e.cond, state, tag=f"{tag}.end.{e.name}")
        parts.append(NOT(val))
    for a in v.spec.actions:
        domains = [v.enc.dom.values(t) if t.finite else None for _n, t in a.params]
        size = 1
        for d in domains:
            size = size * len(d) if d is not None and size is not None else None
        if size is not None and size <= 600:
            import itertools

            for combo in itertools.product(*domains):
                args = tuple(_sym(v, t, x) for (_n, t), x in zip(a.params, combo))
                r = v.enc.step(state, v.params, v.consts, a, tag=f"{tag}.{a.name}", args=args, guard_only=True)
                parts.append(NOT(r.guard))
        else:
            cons: list = []
            args = tuple(v.enc.fresh(t, f"{tag}.{a.name}.{n}", cons) for n, t in a.params)
            r = v.enc.step(state, v.params, v.consts, a, tag=f"{tag}.{a.name}", args=args, guard_only=True)
            arg_vars = [x for x in _leaves(args) if isinstance(x, z3.ExprRef)]
            no_guard = NOT(r.guard)
            if arg_vars and r.constraints:
                # the guard's own constants (a let's defining equation, a free choice) depend on
                # the move: for every move some value of theirs (one the step's constraints
                # allow) fails the guard; left free outside the quantifier, one value had to fail
                # it for every move, and a state with no legal move passed for one with a move
                outer = {x.get_id() for x in _terms_in([state, v.params, v.consts, arg_vars])}
                aux = [x for x in _consts(AND(r.guard, *r.constraints)) if x.get_id() not in outer]
                no_guard = AND(*r.constraints, no_guard)
                if aux:
                    no_guard = z3.Exists(aux, no_guard)
            parts.append(z3.ForAll(arg_vars, z3.Implies(AND(*cons), no_guard)) if arg_vars else no_guard)
    return AND(*parts)


def _terms_in(value):
    """The uninterpreted constants of every term in a value (a state's, nested in lists, dicts
    and the encoder's value classes)."""
    roots, stack, seen = [], [value], set()
    while stack:
        x = stack.pop()
        if isinstance(x, z3.ExprRef):
            roots.append(x)
        elif id(x) in seen or isinstance(x, (bool, int, str)) or x is None:
            continue
        else:
            seen.add(id(x))
            if isinstance(x, dict):
                stack.extend(x.values())
            elif isinstance(x, (list, tuple)):
                stack.extend(x)
            elif hasattr(x, "__dict__"):
                stack.extend(vars(x).values())
    return _consts(*roots)


def _sym(v: Verifier, t, x):
    """A concrete interpreter value as a symbolic value."""
    from .types import OptT, OrderT, SetT
    if isinstance(t, OptT):
        return OptV(False, 0) if x is None else OptV(True, x)
    if isinstance(t, SetT):
        return SetV([y in x for y in v.enc.dom.values(t.elem)])
    if isinstance(t, OrderT):
        return SeqV(list(x))
    return x


def _leaves(values):
    for x in values:
        if isinstance(x, OptV):
            yield x.some
            yield x.val
        elif isinstance(x, SetV):
            yield from x.bits
        elif isinstance(x, SeqV):
            yield from _leaves(x.items)
        else:
            yield x


class Unrolling:
    """Bounded model checking: the initial states and k steps, each a choice among all actions."""

    def __init__(self, v: Verifier, start: tuple | None = None):
        self.v = v
        self.enc = v.enc
        self.solver = v.solver()
        # the setup completes (no run-time error or undecided point in it) under this literal: a
        # search at depth 0 for what the setup meets does not assume it
        # the names of its terms (the chain's are its own: Z3 takes two terms of one name as one)
        self.prefix = "" if start is None else "kind."
        self.set_up = z3.Bool(f"{self.prefix}set_up")
        if start is None:
            init = v.init
            self.solver.add(*init.constraints, z3.Implies(self.set_up, init.alive))
            self.states = [init.state]
            self.events = [init.events]
        else:  # (state, its facts): runs from any such state, not from the setup (k_induction)
            state, facts = start
            self.solver.add(*facts, self.set_up)
            self.states = [state]
            self.events = [{}]
        self.choices = []                   # per step: (selector, {action index: StepResult})
        # step i's facts hold under the literal uses[i-1], its completion under completes[i-1]: a
        # search at depth i assumes the first i of them only, so that the deeper steps an earlier
        # search encoded do not weigh on it
        self.uses: list = []
        self.completes: list = []
        self.reason = ""
        self.limited = False  # find(): the last unknown answer was the solver's time or resource limit
        self.evaluation_error = False  # replay(): the trace's problem is a property's run-time error, not the prover's
        self.own_chance = False  # replay(): the trace is played with the interpreter's own chance, not the model's

    def reach(self, i: int):
        """Make states 0..i exist (steps up to i encoded)."""
        while len(self.states) <= i:
            self.extend()

    def extend(self):
        v, enc = self.v, self.enc
        i = len(self.states)
        prev = self.states[-1]
        pre = self.prefix
        use, done = z3.Bool(f"{pre}use{i}"), z3.Bool(f"{pre}done{i}")
        facts = []
        nxt, cons = enc.fresh_state(f"{pre}s{i}.")
        facts.extend(cons)
        sel = z3.Int(f"{pre}step{i}")
        facts += [sel >= 0, sel < len(v.spec.actions)]
        for e in v.spec.ends:
            val, f, c = v.value(e.cond, prev, tag=f"{pre}u{i}.end.{e.name}")
            facts += [*c, NOT(val)]
        results = {}
        completes = []
        for j, a in enumerate(v.spec.actions):
            r = enc.step(prev, v.params, v.consts, a, tag=f"{pre}u{i}.{a.name}")
            results[j] = r
            facts.extend(r.constraints)
            facts.append(z3.Implies(sel == j, r.guard))
            completes.append(z3.Implies(sel == j, AND(r.alive, *_state_eq(enc, nxt, r.state))))
        self.solver.add(z3.Implies(use, AND(*facts)), z3.Implies(done, AND(*completes)))
        if self.uses:  # a step is taken only from a state the step before completed to
            self.solver.add(z3.Implies(use, self.completes[-1]))
        self.uses.append(use)
        self.completes.append(done)
        self.states.append(nxt)
        self.choices.append((sel, results))

    def monitor(self, p: ir.Property, i: int):
        """(active, count) of a bound's monitor in state i."""
        trig, f, c = self.v.value(p.trigger, self.states[0], tag=f"bm.{p.name}.0.{id(self)}")
        act, cnt, extra = trig, 0, list(c)
        j = next(k for k, a in enumerate(self.v.spec.actions) if a.name == p.action)
        for k in range(1, i + 1):
            sel, _results = self.choices[k - 1]
            cnt = z3.If(AND(act, sel == j), cnt + 1, cnt)
            trig, f, c = self.v.value(p.trigger, self.states[k], tag=f"bm.{p.name}.{k}.{id(self)}")
            extra.extend(c)
            act = OR(act, trig)
        return act, cnt, extra

    def find(self, target, i: int, last_step_completes: bool = True, assume: list = ()) -> str:
        """Whether some run of i moves ends in the target (the last move completing, or not), with
        these literals assumed as well."""
        assume = ([self.set_up] if i or last_step_completes else []) + self.uses[:i] + \
            (self.completes[i - 1:i] if last_step_completes and i else []) + list(assume)
        self.solver.push()
        self.solver.add(target)
        r = self.solver.check(*assume)
        if r == z3.sat:
            self.model = self.solver.model()
            self.target_depth = i
        elif r == z3.unknown:
            self.reason = self.solver.reason_unknown()
            # stopped by the solver's own limits (not the per-property one, _Solver.over): Z3's words
            self.limited = z3.Solver.reason_unknown(self.solver) in ("timeout", "canceled")
        self.solver.pop()
        return "sat" if r == z3.sat else "unknown" if r == z3.unknown else "unsat"

    def first(self, target, start: int = 0, last_step_completes: bool = True) -> tuple[str, int]:
        """The bounded search: for each depth i from start to the verifier's depth, the states up to
        i made, whether some run of i moves ends in target(i). ("sat", i) at the first depth it
        does, ("unknown", i) where the solver stopped, ("unsat", depth) when none does."""
        for i in range(start, self.v.depth + 1):
            self.reach(i)
            verdict = self.find(target(i), i, last_step_completes=last_step_completes)
            if verdict != "unsat":
                return verdict, i
        return "unsat", self.v.depth

    # targets
    def invariant_target(self, p: ir.Property, i: int):
        h, cons = self.v.holds(p, self.states[i], f"unrolled{i}")
        return AND(*cons, NOT(h))

    def fault_target(self, i: int):
        """A run-time error of the setup (i = 0) or of move i, or of state i's end conditions
        (where no fault came before them: the interpreter gets there), or of listing state i's
        moves (listing_target). A move's guard errors are its state's listing errors: the
        interpreter meets them before any move is chosen."""
        ends = [c for c, _m in self.v.end_faults(self.states[i], f"u{i}.{id(self)}")]
        listing = self.listing_target(i)
        if i == 0:
            return OR(*[c for c, _m, _s in self.v.init.faults], AND(self.set_up, OR(*ends)), listing)
        sel, results = self.choices[i - 1]
        # state i's end conditions: the move completed to it (its literal, not assumed for a fault's last move)
        return OR(*[AND(sel == j, OR(*[c for c, _m, _s in r.faults])) for j, r in results.items() if r.faults],
                  AND(self.completes[i - 1], OR(*ends)), listing)

    def listing_target(self, i: int):
        """Listing state i's legal moves runs into a run-time error: the state was reached (the
        setup, or move i, completed), no end holds in it (none faulting), and some action's guard
        faults for some choice (the interpreter judges every action's guard, for every choice,
        its conjuncts in order, in every state it lists the moves of)."""
        v, enc, state = self.v, self.enc, self.states[i]
        tag = f"ul{i}.{id(self)}"
        faults = []
        for a in v.spec.actions:
            r = enc.step(state, v.params, v.consts, a, tag=f"{tag}.{a.name}", guard_only=True)
            if r.guard_faults:
                faults.append(AND(*r.constraints, OR(*[c for c, _m, _s in r.guard_faults])))
        if not faults:
            return False
        no_end = []
        for e in v.spec.ends:
            val, f, cons = v.value(e.cond, state, tag=f"{tag}.end.{e.name}")
            no_end += [*cons, NOT(val), NOT(f)]
        return AND(self.set_up if i == 0 else self.completes[i - 1], *no_end, OR(*faults))

    def gap_target(self, ids, i: int):
        if i == 0:
            return OR(*[c for c, g in self.v.init.gaps if g in ids]) if self.v.init.gaps else False
        sel, results = self.choices[i - 1]
        return OR(*[AND(sel == j, r.guard, OR(*[c for c, g in r.gaps if g in ids]))
                    for j, r in results.items() if any(g in ids for _c, g in r.gaps)])

    def ranking_target(self, p: ir.Property, i: int):
        prev, nxt = self.states[i - 1], self.states[i]
        cond, cf, cc = self.v.value(p.cond, prev, tag=f"ur{i}.c")
        cond2, cf2, cc2 = self.v.value(p.cond, nxt, tag=f"ur{i}.c2")
        r1 = [self.v.value(r, prev, tag=f"ur{i}.r") for r in p.ranks]
        r2 = [self.v.value(r, nxt, tag=f"ur{i}.r2") for r in p.ranks]
        extra = list(cc) + list(cc2) + [c for _v, _f, cs in r1 + r2 for c in cs]
        # as ranking_broken: a run-time error in evaluating it, before or after the move, breaks it
        ok = AND(AND(*[x >= 0 for x, _f, _c in r1]), NOT(OR(*[f for _x, f, _c in r1])), NOT(cf2),
                 OR(NOT(cond2), AND(_lex_less([x for x, _f, _c in r2], [x for x, _f, _c in r1]),
                                    NOT(OR(*[f for _x, f, _c in r2])))))
        return AND(*extra, OR(cf, AND(cond, NOT(ok))))

    def bound_target(self, p: ir.Property, i: int):
        _act, cnt, extra = self.monitor(p, i)
        return AND(*extra, cnt > p.limit)

    # ---- replay in the interpreter --------------------------------------------------------------
    def replay(self, depth: int, target) -> tuple[Trace, str | None]:
        """Replay the model's trace in the interpreter with forced chance; (trace, why it is spurious,
        or evaluation_error: why the interpreter cannot judge the property there)."""
        v, enc, m = self.v, self.enc, self.model
        self.evaluation_error = False
        spec = v.spec
        params = [enc.value(m, p.type, v.params[p.name]) for p in spec.params]
        moves = []
        events = list(_model_events(m, self.events[0]))
        for i in range(depth):
            sel, results = self.choices[i]
            j = m.eval(sel, model_completion=True).as_long()
            a = spec.actions[j]
            r = results[j]
            args = tuple(enc.value(m, t, x) for (_n, t), x in zip(a.params, r.args))
            moves.append((j, args))
            events.extend(_model_events(m, r.events))
        if v._program is None:
            v._program = Program(spec, v.n, forced=True)
        exact = {var.name for var in spec.state if var.zone and self.enc.is_exact(
            var.type.value if isinstance(var.type, MapT) else var.type)}
        # only what the target is about is evaluated after each move (its invariant; its ranking or
        # bound, the game judging no other: Program.start's judged; else nothing): a property whose
        # evaluation runs into a run-time error on the way must neither make the trace spurious nor
        # pass for a run-time error of the rules or of the property replayed
        about = target[0] in ("invariant", "terminates", "bound")
        how = v._program.judging(target[0] if about else "", target[1].name if about else "")
        trace, problem = self._play(v._program, params, moves, target, how, (events, exact), m)
        self.own_chance = False
        if problem is not None:
            # Z3 leaves a pile's order free where the interpreter knows it (never shuffled): the
            # model's draws may not be the cards there (the forced chance refused, or a state
            # differed after a draw), and the same moves with the interpreter's own chance may
            # still do what the target says: a real play either way
            flag = self.evaluation_error
            own, own_problem = self._play(v.interpreter(), params, moves, target, how, None, None)
            if own_problem is None:
                self.own_chance = True
                return own, None
            self.evaluation_error = flag  # (the forced play's problem is the one reported)
        return trace, problem

    def _play(self, program, params, moves, target, how, forced, m) -> tuple[Trace, str | None]:
        """Play the moves in `program` as a game does: (trace, why it is spurious), the chance
        forced to the model m's draws (forced: (events, exact)) and each state compared with m's;
        with forced None, the program's own chance (seed "z3") and no state compared. `how`: what
        the game judges (Program.judging: Game.step's keywords, start's judged)."""
        v, enc, spec = self.v, self.enc, self.v.spec
        steps: list[TraceStep] = []
        states = []
        outcome: dict = {"kind": "open"}
        problem = None
        try:
            keywords, judged = how
            game = program.start("z3", params, judged=judged,
                                 **({"chance": ForcedChance(*forced)} if forced else {}))
            states.append(game.snapshot())
            problem = _compare(enc, m, spec, self.states[0], game.S, 0) if forced else None
            for i, move in enumerate(moves, 1):
                if problem:
                    break
                a = spec.actions[move[0]]
                try:  # as a game does before each move: its end conditions, then its legal moves
                    ended = game.ended()
                    if ended is None:
                        game.legal_moves()
                except Fault as exc:
                    problem = f"before move {i}, the interpreter's game runs into a run-time error: {exc.message}"
                    break
                if ended is not None:
                    problem = f"move {i}: the game has already ended"
                    break
                failing = game.failing_conjunct(move)
                if failing >= 0:
                    problem = f"move {i}: {program.move_label(move)} is not legal in the interpreter"
                    break
                before = states[-1]
                try:
                    violations = game.step(move, **keywords)
                except Gap as exc:
                    steps.append(TraceStep(i, a.name, move[1], program.move_label(move), a.cite,
                                           [f"reaches an undecided point: {spec.undecided[exc.id].reason}"]))
                    outcome = {"kind": "gap", "id": exc.id, "reason": spec.undecided[exc.id].reason}
                    if i != len(moves) or target[0] != "gap":  # Z3's trace completes its last move
                        problem = f"move {i} reaches an undecided point in the interpreter"
                    break
                except Fault as exc:
                    steps.append(TraceStep(i, a.name, move[1], program.move_label(move), a.cite,
                                           [f"run-time error: {exc.message}"]))
                    outcome = {"kind": "fault", "message": exc.message}
                    if target[0] in ("invariant", "terminates", "bound") and \
                            self._completes(program, params, forced, moves[:i], judged):
                        # the move completes: the error is the property's, evaluated after it
                        what = "false" if target[0] == "invariant" else "broken"
                        outcome = {"kind": "evaluation", "message": exc.message}
                        problem = (f"evaluating {target[1].name} after move {i} runs into a run-time error in the "
                                   f"interpreter ({exc.message}), where Z3 takes it as {what}")
                        self.evaluation_error = True
                    elif i != len(moves) or target[0] != "fault":
                        problem = f"move {i} faults in the interpreter: {exc.message}"
                    break
                after = game.snapshot()
                states.append(after)
                steps.append(TraceStep(i, a.name, move[1], program.move_label(move), a.cite,
                                       describe_changes(spec, program.domains, before, after)))
                if violations:
                    outcome = {"kind": "violation", "property": violations[0].prop.name,
                               "message": violations[0].message, "all": [x.prop.name for x in violations]}
                if forced and not (i == len(moves) and target[0] in ("gap", "fault")):
                    problem = problem or _compare(enc, m, spec, self.states[i], game.S, i)
            else:
                if target[0] == "fault" and outcome["kind"] == "open":
                    try:  # the end conditions of the state reached (the game looks at them first)
                        game.ended()
                    except Fault as exc:
                        outcome = {"kind": "fault", "message": f"in the end conditions: {exc.message}"}
                    else:
                        try:  # then its legal moves, every action's guard
                            if game.ended() is None:
                                game.legal_moves()
                        except Fault as exc:
                            outcome = {"kind": "fault", "message": f"in listing the legal moves: {exc.message}"}
                elif target[0] == "deadlock" and outcome["kind"] == "open":
                    try:  # as a simulated game's trace says it: no end, and no legal move
                        if game.ended() is None and not game.legal_moves():
                            outcome = {"kind": "deadlock"}
                    except (Fault, Gap) as exc:  # a game stops there: not a deadlock
                        problem = problem or ("the interpreter's game runs into "
                                   + (f"a run-time error ({exc.message})" if isinstance(exc, Fault)
                                      else "an undecided point") + " where Z3 sees no move")
            if problem is None:
                problem = _confirm(game, target, outcome, spec)
        except Spurious as exc:
            problem = exc.message
        except Gap as exc:  # in the setup
            outcome = {"kind": "gap", "id": exc.id, "reason": spec.undecided[exc.id].reason}
            if target[0] != "gap" or exc.id not in target[1]:
                problem = "the setup reaches an undecided point in the interpreter"
        except Fault as exc:
            outcome = {"kind": "fault", "message": exc.message}
            if target[0] == "bound" and not steps and self._completes(program, params, forced, [], ()):
                # the setup completes: the error is the bound's trigger's, evaluated after it
                outcome = {"kind": "evaluation", "message": exc.message}
                problem = (f"evaluating the trigger of {target[1].name} after the setup runs into a run-time "
                           f"error in the interpreter ({exc.message})")
                self.evaluation_error = True
            elif target[0] != "fault":
                problem = f"the setup faults in the interpreter: {exc.message}"
        trace = Trace(spec, v.n, "z3", params, steps, states, outcome)
        return trace, problem

    @staticmethod
    def _completes(program, params, forced, moves, judged) -> bool:
        """Whether these moves, replayed afresh with the same chance, no property evaluated and the
        replay's judged (Program.start), complete (none runs into a run-time error or an undecided
        point)."""
        try:
            game = program.start("z3", params, judged=judged,
                                 **({"chance": ForcedChance(*forced)} if forced else {}))
            for move in moves:
                game.step(move, check=False)
        except (Fault, Gap, Spurious):
            return False
        return True


def _confirm(game, target, outcome, spec) -> str | None:
    """None when the interpreter shows what the prover claimed, else why not."""
    kind, what = target
    if kind == "invariant":
        names = outcome.get("all", []) if outcome.get("kind") == "violation" else []
        if what.name in names:
            return None
        fn = next(f for p, f in game.program.invariants if p.name == what.name)
        try:
            holds = fn(game.S, game.P)
        except Fault as exc:  # Z3 takes it as false there; the interpreter and the games, as an error
            return (f"evaluating {what.name} runs into a run-time error in the interpreter ({exc.message}), "
                    "where Z3 takes it as false")
        return None if not holds else f"{what.name} holds in the interpreter's state"
    if kind == "reachable":
        fn = next(f for p, f in game.program.reachables if p.name == what.name)
        return None if fn(game.S, game.P) else f"{what.name} does not hold in the interpreter's state"
    if kind in ("terminates", "bound"):
        if outcome.get("kind") == "violation" and what.name in outcome.get("all", []):
            return None
        return f"the interpreter does not see {what.name} violated"
    if kind == "gap":
        return None if outcome.get("kind") == "gap" and outcome.get("id") in what else "the interpreter reaches no undecided point"
    if kind == "fault":
        return None if outcome.get("kind") == "fault" else "the interpreter runs into no run-time error"
    if kind == "deadlock":  # (_play looked)
        return None if outcome.get("kind") == "deadlock" else "the interpreter has a legal move (or an end) there"
    return None


def _model_events(m, events):
    """The chance outcomes of the events that happen in a model, as the forced interpreter takes them."""
    for e in events:
        if not _model_bool(m, e.when):
            continue
        lo = e.elem.lo if isinstance(e.elem, IntT) and e.elem.lo else 0
        if e.kind == "order" and _model_int(m, e.present) == 0:
            continue
        if e.kind == "order":  # a shuffle of a pile followed card by card: the whole order
            n = _model_int(m, e.present)
            yield ("order", e.zone, [_model_int(m, x) + lo for x in e.var.items[:n]])
            continue
        if e.kind == "draw":
            cards = []
            for k, c in enumerate(e.drawn):
                cards.extend([k + lo] * _model_int(m, c))
            top = _model_int(m, e.top) + lo if _model_bool(m, e.present) else None
            last = None
            if e.last is not None and cards and e.last[0] == "top":
                last = _model_int(m, e.last[1]) + lo
            yield ("draw", e.zone, (cards, top, last))
        elif _model_bool(m, e.present):
            yield (e.kind, e.zone, _model_int(m, e.var) + lo)


def _state_eq(enc: Encoder, a: dict, b: dict) -> list:
    out = []
    for var in enc.spec.state:
        _eq(var.type, a[var.name], b[var.name], out)
    return out


def _eq(t, x, y, out):
    if isinstance(x, OptV):
        out.append(EQ(x.some, y.some))
        out.append(IMPLIES(x.some, EQ(x.val, y.val)))
    elif isinstance(x, SeqPileV):
        out.append(EQ(x.size, y.size))
        out.extend(IMPLIES(_lt(i, x.size), EQ(a, b)) for i, (a, b) in enumerate(zip(x.items, y.items)))
    elif isinstance(x, PileV):
        out.extend(a == b for a, b in zip(x.counts, y.counts))
        _eq(None, x.top, y.top, out)
    elif isinstance(x, BagV):
        out.extend(a == b for a, b in zip(x.counts, y.counts))
    elif isinstance(x, SetV):
        out.extend(a == b for a, b in zip(x.bits, y.bits))
    elif isinstance(x, (SeqV, MapV)):
        vt = t.value if isinstance(t, MapT) else None
        for a, b in zip(x.items, y.items):
            _eq(vt, a, b, out)
    else:
        out.append(EQ(x, y))


class _Pinned:
    """Whether a goal may be reached with given values of the pinned variables: the solver of the
    proved invariants (Verifier.allowed's, shared by every goal), the goal and each value pinned
    through a literal of its own (asked as assumptions, briefly), so that an unsat answer's core
    names the values that rule the goal out; a game
    whose values include a known core is ruled out without asking again (the depth of one card
    shuffled in at the setup alone, where the other values differ from game to game).

    A goal none of whose first FRUITLESS questions rules a game out is not asked about again: every
    game is taken as able to reach it. Such a goal's reach seems not to hang on the values the setup
    fixes, and each further question costs time (de.rules, 5 players: four of six goals ruled out
    no game in 8 to 15 questions each, up to 11.2 s for one goal, with two 4 s time-outs; the goals
    that ruled games out, with 4 and 5 players, did so at their first question). A game is then
    kept that a later question might have ruled out: the search has more to look through, and
    nothing it finds is less real (every find is replayed)."""

    FRUITLESS = 4
    # A question's share of Z3's resource count (the clock, timeout_ms, as a backstop). Only an
    # unsat answer rules a game out, and sat and a time-out both keep it, so a question is stopped
    # early: de.rules, 5 players, the unsat answers took at most 20,330 units (0.01 s), the sat
    # answers up to 10.5 million (2.2 s; on a slower hour two of them timed out after 4 s).
    RLIMIT = 1_000_000

    def __init__(self, solver, pinned: list, goal=None, timeout_ms: int = 0, restore_ms: int = 0):
        # solver: Verifier.allowed()'s, shared with other goals; goal: the literal of this one
        self.solver, self.pinned, self.goal = solver, pinned, goal
        self.timeout_ms, self.restore_ms = timeout_ms, restore_ms
        self.literals: dict = {}  # (index, repr of the value) -> its literal
        self.cores: list = []     # sets of (index, repr) that rule the goal out
        self.open: set = set()    # the values asked that did not (or that timed out)

    def may_reach(self, values: list) -> bool:
        if self.solver is None or (not self.cores and len(self.open) >= self.FRUITLESS):
            return True
        keys = [(j, repr(x)) for j, x in enumerate(values)]
        if any(core <= set(keys) for core in self.cores):
            return False
        if tuple(keys) in self.open:
            return True
        lits = []
        for (j, shown), x in zip(keys, values):
            if (j, shown) not in self.literals:
                facts: list = []
                what, term = self.pinned[j]
                _fix(what.type, term, x, facts)
                lit = self.literals[j, shown] = z3.Bool(f"pin.{self.goal}.{j}.{len(self.literals)}")
                assert_all(self.solver, [IMPLIES(lit, AND(*facts))])
            lits.append(self.literals[j, shown])
        self.solver.set("timeout", self.timeout_ms)
        self.solver.set("rlimit", self.RLIMIT)
        r = self.solver.check(self.goal, *lits)
        self.solver.set("timeout", self.restore_ms)
        self.solver.set("rlimit", 0)  # (the solver is shared: no limit but the clock for the others)
        if r == z3.unsat:
            core = {str(x) for x in self.solver.unsat_core()}
            self.cores.append({k for k in keys if str(self.literals[k]) in core})
            return False
        self.open.add(tuple(keys))
        return True


def _pinnable(t) -> bool:
    """Whether `_fix` pins a value of this type."""
    if isinstance(t, MapT):
        return _pinnable(t.value)
    return isinstance(t, (BoolT, IntT, EnumT, PlayerT, BagT))


def _fix(t, term, value, out: list) -> None:
    """Facts that pin a symbolic value to an interpreter's value, where its type is a scalar or a
    bag, or a map of these (anything else is left free: fewer facts, a weaker question)."""
    if isinstance(t, BoolT):
        out.append(EQ(term, bool(value)))
    elif isinstance(t, (IntT, EnumT, PlayerT)) and isinstance(value, int):
        out.append(EQ(term, value))
    elif isinstance(t, BagT) and isinstance(term, BagV):
        out.extend(EQ(c, n) for c, n in zip(term.counts, value))
    elif isinstance(t, MapT) and isinstance(term, (MapV, SeqV)):
        for x, y in zip(term.items, value):
            _fix(t.value, x, y, out)


def _compare(enc: Encoder, m, spec: ir.Spec, sym_state: dict, state: list, i: int) -> str | None:
    """Where the interpreter's state differs from the prover's (piles compared by counts and top)."""
    for var, value in zip(spec.state, state):
        mine = enc.value(m, var.type, sym_state[var.name])
        if not _same_value(var.type, mine, value, enc):
            shown_p = _show(var.type, mine, enc.dom)
            shown_i = _show(var.type, _abstract(var.type, value, enc), enc.dom)
            where = "after the setup" if i == 0 else f"after move {i}"
            return f"{where}, {var.name} is {shown_p} for the prover but {shown_i} in the interpreter"
    return None


def _abstract(t, value, enc):
    if isinstance(t, PileT) and enc.is_exact(t):
        return ("seq", [enc.dom.index(t.elem, c) for c in value])
    if isinstance(t, PileT):
        size = enc.dom.size(t.elem)
        counts = [0] * size
        for c in value:
            counts[enc.dom.index(t.elem, c)] += 1
        return ("pile", counts, enc.dom.index(t.elem, value[-1]) if value else None)
    if isinstance(t, MapT):
        return [_abstract(t.value, x, enc) for x in value]
    return value


def _same_value(t, prover, interp, enc) -> bool:
    return prover == _abstract(t, interp, enc)


def verify_spec(spec: ir.Spec, players: int, depth: int = 8, timeout: float = 30.0, progress=None,
                games: int = 100, explore: int = EXPLORE, answers=None, seed: str = "verify") -> list[Result]:
    """Every property of a spec for one player count, with the statuses the module docstring defines."""
    return Verifier(spec, players, depth, timeout, games, explore, answers, seed=seed).run(progress)


__all__ = ["Result", "Verifier", "verify_spec", "BagT", "PlayerT", "is_false", "concrete"]

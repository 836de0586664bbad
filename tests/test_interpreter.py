"""The interpreter: determinism, the move enumerator against the guards, and every kind of finding."""

from __future__ import annotations

import itertools
from copy import deepcopy
import json
import random
import re

import pytest

from verifier.backends.interpreter import Chance, Program
from verifier.pipeline import load_spec
from verifier.simulate import record_trace, simulate
from verifier.types import Domains

from conftest import EXAMPLES, MINI, ROOT, SHIPPED, compile_text

FEATURES = ROOT / "tests" / "specs" / "good" / "features.rules"
SPECS = EXAMPLES + [FEATURES]


def _report(spec, players, games, seed):
    doc = simulate(spec, players, games, seed).to_json()
    doc.pop("seconds")
    return doc


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_same_seed_same_games(path):
    spec, _ = load_spec(str(path))
    a = _report(spec, spec.min_players, 20, "s")
    b = _report(spec, spec.min_players, 20, "s")
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def test_same_seed_same_trace_text():
    spec, _ = load_spec(str(EXAMPLES[0]))
    prog = Program(spec, spec.min_players)
    games = []
    for _ in range(2):
        g = prog.start("fixed")
        rng = random.Random("policy")
        while g.ended() is None:
            moves = g.legal_moves()
            g.step(moves[rng.randrange(len(moves))])
        games.append(record_trace(prog, "fixed", g.params, g.moves).render())
    assert games[0] == games[1]


def test_different_seeds_shuffle_differently():
    spec = compile_text(MINI)
    prog = Program(spec, 2)
    stocks = {tuple(prog.start(f"seed-{i}").S[spec.state.index(spec.var("stock"))]) for i in range(10)}
    assert len(stocks) > 5


def _candidate_moves(prog, action_index, limit=4000):
    """Every argument tuple of an action over its full parameter domains (when small enough)."""
    action = prog.spec.actions[action_index]
    doms = [prog.domains.values(t) for _n, t in action.params]
    size = 1
    for d in doms:
        size *= len(d)
    if size > limit:
        return None
    return [(action_index, args) for args in itertools.product(*doms)]


@pytest.mark.parametrize("path", SPECS, ids=lambda p: p.name)
def test_enumerated_moves_are_exactly_the_legal_ones(path):
    """The optimised enumerator (narrowed loops) against the plain guard, on states of real games."""
    spec, _ = load_spec(str(path))
    checked = 0
    for players in range(spec.min_players, spec.max_players + 1):
        prog = Program(spec, players)
        for g in range(3):
            game = prog.start(f"enum/{g}")
            rng = random.Random(g)
            for _ in range(60):
                if game.ended() is not None:
                    break
                listed = game.legal_moves()
                assert len(listed) == len(set(listed)), "a move is listed twice"
                for i in range(len(spec.actions)):
                    candidates = _candidate_moves(prog, i)
                    if candidates is None:
                        continue
                    by_guard = {m for m in candidates if game.is_legal(m)}
                    by_enum = {m for m in listed if m[0] == i}
                    assert by_guard == by_enum, (spec.actions[i].name, by_guard ^ by_enum)
                    checked += 1
                if not listed:
                    break
                try:
                    game.step(listed[rng.randrange(len(listed))])
                except Exception:
                    break
    assert checked > 50


PHASED = """
game phased "Phased"
players 2..3 cite "Players" "two or three"
enum Phase { bidding, playing, over }
var phase: Phase
var bids: int
var shouts: int
init cite "Setup" "bidding first" { phase := bidding }
/// Bid.
action bid(p: Player) cite "Bid" "bid" when phase == bidding and bids < 3 { bids += 1 }
/// Shout twice at any time but the end.
action shout() cite "Shout" "any time" when shouts < 2 and phase != over { shouts += 1 }
/// Start playing.
action start() cite "Play" "start" when phase == bidding and bids == 3 { phase := playing }
/// Play, and so end.
action play(p: Player) cite "Play" "play" when phase == playing { phase := over }
end finished cite "End" "over": phase == over
"""


@pytest.mark.parametrize("path", SHIPPED + [FEATURES], ids=lambda p: f"{p.parent.name}/{p.name}")
def test_random_games_that_evaluate_only_the_invariants_a_move_may_change_report_the_same(path, monkeypatch):
    """play_random evaluates after a move only the invariants its action may change and that
    were not false before (Game.step's only): every report, of games that step around undecided
    points or stop at them, is the one evaluating every invariant after every move gives."""
    from verifier.backends.interpreter import Game

    spec, _ = load_spec(str(path))
    counts = sorted({spec.min_players, spec.max_players})

    def reports() -> list:
        out = []
        for players in counts:
            for avoid in (False, True):
                r = simulate(spec, players, 12, "only", max_steps=2000, avoid_gaps=avoid)
                doc = r.to_json()
                doc.pop("seconds")
                out.append((doc, r.witnesses, [(f.key, f.seed, f.moves) for f in r.findings.values()]))
        return out
    evaluated: list = []
    real = Game.step

    def step(self, move, check=True, only=None):
        if check and only is not None:
            evaluated.append(len(only) < len(self.program.invariants))
        return real(self, move, check, only)
    monkeypatch.setattr(Game, "step", step)
    fewer = reports()
    monkeypatch.setattr(Game, "step", lambda self, move, check=True, only=None: real(self, move, check))
    assert fewer == reports()
    if path.parent.name == "sieben_weisen":  # moves that leave invariants out (in some specs every
        assert any(evaluated)                 # action may change every invariant)


@pytest.mark.parametrize("path", SHIPPED + [FEATURES], ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_phase_dispatch_lists_the_moves_of_every_enumerator_in_order(path):
    """Program.legal calls only the enumerators of the phase the state is in (those whose first
    test is the state variable against a number), and the others in every branch: on states of
    real games the moves and their order are those of calling every action's enumerator in turn
    (the search and the random games draw a move by its place in the list)."""
    from verifier.backends.runtime import Fault, Gap

    spec, _ = load_spec(str(path))
    states = 0
    for players in sorted({spec.min_players, spec.max_players}):
        prog = Program(spec, players)
        for g in range(3):
            game, rng = prog.start(f"dispatch/{g}"), random.Random(g)
            for _ in range(150):
                every: list = []
                for enum in prog.enumerators:
                    enum(game.S, game.P, every)
                listed = game.legal_moves()
                assert listed == every
                states += 1
                if not listed or game.ended() is not None:
                    break
                try:
                    game.step(listed[rng.randrange(len(listed))], check=False)
                except (Fault, Gap):
                    break
    assert states > 20


def test_the_phase_dispatch_keeps_an_action_of_every_phase_in_its_place():
    spec = compile_text(PHASED)
    prog = Program(spec, 2)
    source = prog.ns["__source__"]
    legal = source[source.index("def legal("):]
    legal = legal[:legal.index("\n\n")]
    # bid and start in the bidding branch, play in the playing branch; shout (no phase test
    # first) in each branch, in its place between bid and start, and in the other states
    assert "k = S[" in legal and legal.count("moves_1(S, P, out)") == 3
    game, slot = prog.start("s"), prog.gen.slots

    def listed(phase: int, bids: int, shouts: int) -> list:
        game.S[slot["phase"]], game.S[slot["bids"]], game.S[slot["shouts"]] = phase, bids, shouts
        return [spec.actions[m[0]].name for m in game.legal_moves()]
    assert listed(0, 0, 0) == ["bid", "bid", "shout"]
    assert listed(0, 3, 0) == ["shout", "start"]
    assert listed(0, 3, 2) == ["start"]
    assert listed(1, 3, 1) == ["shout", "play", "play"]
    assert listed(2, 3, 0) == []


@pytest.mark.parametrize("path", SHIPPED + [FEATURES], ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_move_changes_only_what_save_keeps(path):
    """Game.save keeps only the state variables a move's action writes (and the chance where the
    action uses it): on states of real games, every legal move changes nothing else, and
    restore() gives back the state and the chance exactly, whether the move ended well or broke
    halfway, and whether save() took the chance's state or was given it."""
    from copy import deepcopy

    from verifier.backends.runtime import Fault, Gap

    spec, _ = load_spec(str(path))
    moves = changed = 0
    for players in sorted({spec.min_players, spec.max_players}):
        prog = Program(spec, players)
        for g in range(2):
            game = prog.start(f"save/{g}")
            rng = random.Random(g)
            for _ in range(80):
                listed = game.legal_moves()
                if not listed or game.ended() is not None:
                    break
                taken = game.chance.getstate()  # the chance's state taken once for the moves tried here
                for k, move in enumerate(listed[:12]):
                    before, chance, count = deepcopy(game.S), game.chance.getstate(), len(game.moves)
                    saved = game.save(move, taken if k % 2 else None)
                    try:
                        game.step(move, check=False)
                    except (Fault, Gap):
                        pass
                    kept = set(prog.written[move[0]])
                    for i, (old, new) in enumerate(zip(before, game.S)):
                        if old != new:
                            assert i in kept, (spec.actions[move[0]].name, spec.state[i].name)
                            changed += 1
                    if not prog.chancy[move[0]]:
                        assert game.chance.getstate() == chance, spec.actions[move[0]].name
                    game.restore(saved)
                    assert game.S == before and game.chance.getstate() == chance and len(game.moves) == count
                    moves += 1
                try:
                    game.step(listed[rng.randrange(len(listed))], check=False)
                except (Fault, Gap):
                    break
    assert moves > 50 and changed > 0



def test_chance_draws_as_random_does_and_keeps_its_state_at_the_first_draw():
    """A game's Chance gives random.Random's draws from the same seed. Armed with keep(box), its
    first draw puts the state from before that draw into box, and no later one; release(box)
    disarms it only for that box. (Game.save relies on this to skip the 625-word copy of the
    state for a move that does not draw.)"""
    a, b = Chance("s"), random.Random("s")
    xs, ys = list(range(30)), list(range(30))
    a.shuffle(xs)
    b.shuffle(ys)
    assert xs == ys and a.random() == b.random() and a.choice(xs) == b.choice(ys)
    assert a.sample(xs, 5) == b.sample(ys, 5) and a.randrange(1000) == b.randrange(1000)
    box, before = [], a.getstate()
    a.keep(box)
    assert box == []
    a.shuffle(xs)
    assert box == [before] and a.getstate() != before
    a.random()
    assert len(box) == 1
    other = []
    a.keep(other)
    a.release(other)
    a.random()
    assert other == []
    armed = []
    a.keep(armed)
    a.release([])  # not the armed box: still armed
    a.getrandbits(8)
    assert len(armed) == 1


def test_save_and_restore_give_back_the_chance_of_a_move_that_shuffles():
    """A `take` of reshuffle.rules refills the stock from the discard pile, shuffled: the first
    one shuffles two chips (it draws), the later ones a single chip (they do not). For each,
    restore() puts back the chance's state from before save(), which the Chance kept only when
    the move drew, and playing the move again gives the same game."""
    spec, _ = load_spec(str(ROOT / "tests" / "specs" / "crosscheck" / "reshuffle.rules"))
    game = Program(spec, 2).start("shuffles")
    drew = []
    for _ in range(4):
        move = game.legal_moves()[0]
        before, chance = deepcopy(game.S), game.chance.getstate()
        saved = game.save(move)
        game.step(move, check=False)
        after = deepcopy(game.S)
        drew.append(game.chance.getstate() != chance)
        assert saved[1] == ([chance] if drew[-1] else [])
        game.restore(saved)
        assert game.S == before and game.chance.getstate() == chance
        game.step(move, check=False)
        assert game.S == after
    assert drew == [True, False, False, False]

def _sim(text, players=2, games=5, **kw):
    spec = compile_text(text)
    return spec, simulate(spec, players, games, "t", **kw)


def test_invariant_violation_found_with_shortest_trace():
    text = MINI + '\n/// Broken on purpose.\ninvariant small_hands cite "Chips" "x": all(p in Player: size(hand[p]) < 2)\n'
    spec, rep = _sim(text, games=20)
    f = rep.findings["violation:small_hands"]
    assert f.kind == "violation" and f.count >= 1 and f.expected is None
    trace = record_trace(Program(spec, 2), f.seed, f.params, f.moves)
    assert trace.outcome["kind"] == "violation" and trace.outcome["property"] == "small_hands"
    # the shortest game reaching it: one player has taken two chips, which needs at least 3 moves
    assert len(f.moves) >= 3
    assert rep.problems


def test_expected_violation_is_not_a_problem():
    text = MINI + ('\n/// Known to fail.\ninvariant small_hands cite "Chips" "x" expect violated "known":'
                   ' all(p in Player: size(hand[p]) < 2)\n')
    _spec, rep = _sim(text, games=10)
    assert rep.findings["violation:small_hands"].expected == "known"
    assert not rep.problems


def test_fault_draw_from_empty_pile():
    text = MINI.replace("when p == turn and size(stock) > 0 and not done", "when p == turn and not done")
    _spec, rep = _sim(text, games=10)
    faults = [f for f in rep.findings.values() if f.kind == "fault"]
    assert faults and "empty pile" in faults[0].message and faults[0].span.line > 1


def test_gap_is_a_finding_not_a_crash():
    text = MINI.replace("draw 1 from stock to hand[p]",
                        'draw 1 from stock to hand[p]\n  if size(hand[p]) == 3 { undecided "three chips" cite "Play" "x" }')
    _spec, rep = _sim(text, games=20)
    gaps = [f for f in rep.findings.values() if f.kind == "gap"]
    assert gaps and gaps[0].title == "rulebook gap: three chips"
    assert rep.stopped.get("gap", 0) == gaps[0].count
    assert not rep.problems


def test_gap_trace_ends_with_the_move_that_reached_it():
    text = MINI.replace("draw 1 from stock to hand[p]",
                        'draw 1 from stock to hand[p]\n  if size(hand[p]) == 3 { undecided "three chips" cite "Play" "x" }')
    spec, rep = _sim(text, games=20)
    gap, = [f for f in rep.findings.values() if f.kind == "gap"]
    assert spec.actions[gap.moves[-1][0]].name == "take"
    trace = record_trace(Program(spec, 2), gap.seed, gap.params, gap.moves)
    assert trace.outcome["kind"] == "gap" and trace.steps[-1].action == "take"
    assert len(trace.steps) == len(gap.moves)


def test_avoid_gaps_steps_around_an_undecided_point_and_goes_on():
    text = MINI.replace("draw 1 from stock to hand[p]",
                        'draw 1 from stock to hand[p]\n  if size(hand[p]) == 3 { undecided "three chips" cite "Play" "x" }')
    spec, plain = _sim(text, games=20)
    _spec, rep = _sim(text, games=20, avoid_gaps=True)
    gap, = [f for f in rep.findings.values() if f.kind == "gap"]
    assert plain.finished < 20 and rep.finished == 20 and "gap" not in rep.stopped
    assert rep.avoided[gap.key] == gap.count > 0
    trace = record_trace(Program(spec, 2), gap.seed, gap.params, gap.moves)
    assert trace.outcome["kind"] == "gap" and trace.steps[-1].action == "take"
    again = simulate(spec, 2, 20, "t", avoid_gaps=True)
    assert again.moves == rep.moves and again.avoided == rep.avoided


def test_avoid_gaps_stops_when_every_move_reaches_a_gap():
    text = MINI.replace("when p == turn and size(stock) > 0 and not done",
                        "when p == turn and size(stock) > 0 and not done and size(hand[p]) < 9").replace(
        "draw 1 from stock to hand[p]",
        'draw 1 from stock to hand[p]\n  if size(hand[p]) == 1 { undecided "one chip" cite "Play" "x" }')
    _spec, rep = _sim(text, games=5, avoid_gaps=True)
    assert rep.stopped == {"gap": 5} and rep.finished == 0 and sum(rep.avoided.values()) == 0


def test_deadlock_detected():
    text = MINI.replace("action stop() cite", "action stop() cite").replace(
        "when size(stock) == 0 and not done", "when size(stock) == 0 and not done and false")
    text = text.replace("when p == turn and c in hand[p] and not done", "when p == turn and c in hand[p] and not done and size(stock) > 0")
    _spec, rep = _sim(text, games=5)
    assert "deadlock" in rep.findings and rep.problems


def test_step_limit():
    # laying no longer removes the chip, and the game can never stop: it goes on forever
    text = MINI.replace("move c from hand[p] to table", "skip").replace(
        "when size(stock) == 0 and not done", "when false")
    _spec, rep = _sim(text, games=2, max_steps=200)
    assert "step_limit" in rep.findings and rep.findings["step_limit"].count == 2


def test_ranking_that_does_not_decrease_is_reported():
    text = MINI + ('\n/// Wrong on purpose.\nterminates wrong cite "End" "x": while not done decreases size(stock)\n')
    _spec, rep = _sim(text, games=5)
    f = rep.findings["violation:wrong"]
    assert "did not decrease" in f.message


def test_bound_counts_actions_after_trigger():
    text = MINI + ('\n/// At most one lay after the stock is empty: false.\n'
                   'bound one_lay cite "End" "x": after size(stock) == 0, at most 1 lay\n')
    _spec, rep = _sim(text, games=10)
    assert "violation:one_lay" in rep.findings
    ok = MINI + ('\n/// At most six lays after the stock is empty.\n'
                 'bound six_lays cite "End" "x": after size(stock) == 0, at most 6 lay\n')
    _spec, rep = _sim(ok, games=10)
    assert "violation:six_lays" not in rep.findings


def test_out_of_range_assignment_is_a_fault():
    text = MINI.replace("var done: bool", "var done: bool\nvar n: 0..2").replace("turn := left(p)\n}", "turn := left(p)\n  n += 1\n}", 1)
    _spec, rep = _sim(text, games=3)
    faults = [f for f in rep.findings.values() if f.kind == "fault"]
    assert faults and "outside 0..2" in faults[0].message


def test_reachable_counts_games():
    text = MINI + '\n/// Sanity.\nreachable somebody_has_three cite "Play" "x": any(p in Player: size(hand[p]) >= 3)\n'
    _spec, rep = _sim(text, games=10)
    assert 0 < rep.reached["somebody_has_three"] <= 10


def test_params_respect_where_and_are_drawn_per_game():
    spec, _ = load_spec(str(FEATURES))
    prog = Program(spec, 3)
    seen = set()
    for i in range(30):
        g = prog.start(f"p{i}")
        order_, chosen, start = g.params
        assert len(chosen) == 2 and sorted(order_) == [0, 1, 2] and 0 <= start < 3
        seen.add(order_)
    assert len(seen) > 3


def test_domains_index_round_trip():
    dom = Domains(4)
    spec = compile_text(MINI)
    chip = spec.records["Chip"]
    for k in dom.values(chip):
        from verifier.types import record_fields, record_kind

        assert record_kind(chip, record_fields(chip, k, dom), dom) == k


def test_an_invariant_of_the_parameters_alone_is_evaluated_once_and_still_reported_after_each_step():
    text = MINI + '''
param start: 0..5 cite "Setup" "shuffle"
def twice(x: int): int = x * 2
def in_stock(): int = size(stock)
/// Of the parameter alone.
invariant low cite "Setup" "shuffle": start < 3
/// Of the parameter alone, through a definition.
invariant low_twice cite "Setup" "shuffle": twice(start) < 6
/// Of the state, through a definition.
invariant stocked cite "Setup" "shuffle": in_stock() <= 6
'''
    spec = compile_text(text)
    prog = Program(spec, 2)
    names = {prog.invariants[i][0].name for i in prog.of_params}
    assert names == {"low", "low_twice"}   # `conserved` reads every zone through total()
    game = prog.start("s", fixed_params={"start": 4})
    calls = []
    i_low = next(i for i, (p, _f) in enumerate(prog.invariants) if p.name == "low")
    p_low, fn = prog.invariants[i_low]
    prog.invariants[i_low] = (p_low, lambda S, P: calls.append(1) or fn(S, P))
    for _ in range(3):
        broken = [v.prop.name for v in game.step(game.legal_moves()[0])]
        assert broken == ["low", "low_twice"]
    assert len(calls) == 1
    # a caller that sets the parameters gets them evaluated again
    game.P[[p.name for p in spec.params].index("start")] = 1
    assert [v.prop.name for v in game.step(game.legal_moves()[0])] == []
    assert len(calls) == 2


def test_a_sum_over_a_bag_filtered_by_the_first_field_reads_only_that_run_and_agrees_with_the_whole_bag():
    # Chip(colour, value): the chips of one colour are one run of the bag's indices, so the
    # generated code reads that run alone (a loop over its range, its slice counted by _run, or
    # a sum of a field whose values are the same in every run unrolled by PyGen.run_dot); a
    # filter of another shape reads the whole bag.
    text = MINI + '''
enum Shade extends Colour { grey }
def of_colour(p: Player, f: Colour): int = sum(c in hand[p] where c.colour == f: c.value)
def high_of(p: Player, f: Colour): int = count(c in hand[p] where f == c.colour and c.value >= 2)
def of_shade(p: Player, s: Shade): int = sum(c in hand[p] where c.colour == s: c.value)
def of_value(p: Player, v: 1..3): int = count(c in hand[p] where c.value == v)
def in_colour(p: Player, f: Colour): int = count(c in hand[p] where c.colour == f)
def all_values(p: Player): int = sum(c in hand[p]: c.value)
'''
    spec = compile_text(text)
    prog = Program(spec, 2)
    source = prog.gen.g["__source__"]

    def body(name):
        return source.split(f"def d_{name}(", 1)[1].split("\ndef ", 1)[0]

    def reads_a_run(name):
        b = body(name)
        return "range(" in b or re.search(r"\b_(run\([^\n]*\* 3, 3|rd\d+\([^\n]*\* 3)\)", b) is not None
    assert reads_a_run("of_colour") and reads_a_run("high_of") and reads_a_run("in_colour")
    assert "_rd" in body("of_colour") and "_run(" in body("in_colour") and "_dot(" in body("all_values")
    run_dot = prog.ns[re.search(r"\b(_rd\d+)\(", body("of_colour")).group(1)]
    assert run_dot([0, 0, 0, 1, 2, 1], 3) == 1 + 4 + 3  # a chip's value is 1, 2, 3 in each colour's run
    # a value of a wider type (grey is no colour of a chip), or a field that is not the first
    assert not reads_a_run("of_shade") and not reads_a_run("of_value")
    hand = [v.name for v in spec.state].index("hand")
    colours = prog.domains.values(spec.defs["of_colour"].params[1][1])
    shades = prog.domains.values(spec.defs["of_shade"].params[1][1])
    chips = [(f, v) for f in colours for v in (1, 2, 3)]  # the bag's order: colour, then value
    rng = random.Random(7)
    game = prog.start("s")
    for _ in range(50):
        counts = [rng.choice([0, 0, 1, 2]) for _ in chips]
        game.S[hand][0] = list(counts)
        for f in colours:
            assert prog.ns["d_of_colour"](game.S, game.P, 0, f) == sum(
                v * n for (g, v), n in zip(chips, counts) if g == f)
            assert prog.ns["d_high_of"](game.S, game.P, 0, f) == sum(
                n for (g, v), n in zip(chips, counts) if g == f and v >= 2)
        for s in shades:
            assert prog.ns["d_of_shade"](game.S, game.P, 0, s) == sum(
                v * n for (g, v), n in zip(chips, counts) if g == s)
        for f in colours:
            assert prog.ns["d_in_colour"](game.S, game.P, 0, f) == sum(n for (g, _v), n in zip(chips, counts) if g == f)
        assert prog.ns["d_all_values"](game.S, game.P, 0) == sum(v * n for (_g, v), n in zip(chips, counts))


def test_a_membership_written_as_any_or_all_is_generated_as_a_test_and_agrees():
    """`any(x in C: x == v)` and `all(x in C: x != v)` over a set, a pile or a list are generated
    as `v in C` (PyGen.membership); the same questions with a filter (`where true`) keep the
    generator. On states of real games and for every argument value, both give the same answer,
    for sets (a parameter, a state variable), a pile, and each side of the comparison."""
    defs = """
def in_chosen(r: Role): bool = any(x in chosen: x == r)
def in_chosen_g(r: Role): bool = any(x in chosen where true: x == r)
def in_chosen_left(r: Role): bool = any(x in chosen: r == x)
def not_seen(p: Player): bool = all(x in seen: x != p)
def not_seen_g(p: Player): bool = all(x in seen where true: x != p)
def in_stock(c: Power): bool = any(x in stock: x == c)
def in_stock_g(c: Power): bool = any(x in stock where true: x == c)
def owl_chosen(): bool = any(x in chosen: x == owl)
def owl_chosen_g(): bool = any(x in chosen where true: x == owl)
"""
    spec = compile_text(FEATURES.read_text() + defs, str(FEATURES))
    prog = Program(spec, 3)
    source = prog.ns["__source__"]
    fast = ("in_chosen", "in_chosen_left", "not_seen", "in_stock", "owl_chosen")
    for name in fast:
        body = source.split(f"def d_{name}(")[1].split("\ndef ")[0]
        assert " in " in body and "any(" not in body and "all(" not in body, body
    for name in ("in_chosen_g", "not_seen_g", "in_stock_g"):
        assert "any(" in source.split(f"def d_{name}(")[1].split("\ndef ")[0] or "all(" in \
            source.split(f"def d_{name}(")[1].split("\ndef ")[0]
    dom = prog.domains
    role, power = spec.defs["in_chosen"].params[0][1], spec.defs["in_stock"].params[0][1]
    pairs = [("in_chosen", "in_chosen_g", dom.values(role)), ("in_chosen_left", "in_chosen_g", dom.values(role)),
             ("not_seen", "not_seen_g", range(3)), ("in_stock", "in_stock_g", dom.values(power)),
             ("owl_chosen", "owl_chosen_g", [None])]
    checked = set()
    for g in range(6):
        game, rng = prog.start(f"member/{g}"), random.Random(g)
        for _ in range(60):
            for a, b, values in pairs:
                for v in values:
                    args = () if v is None else (v,)
                    got = prog.ns[f"d_{a}"](game.S, game.P, *args)
                    assert got == prog.ns[f"d_{b}"](game.S, game.P, *args), (a, v)
                    checked.add((a, got))
            moves = game.legal_moves()
            if not moves or game.ended() is not None:
                break
            try:
                game.step(moves[rng.randrange(len(moves))], check=False)
            except Exception:
                break
    assert {(a, x) for a in fast if a != "owl_chosen" for x in (True, False)} | {("owl_chosen", False)} <= checked


def test_the_move_enumerator_tests_a_guard_s_conjunct_that_may_fault_after_those_written_ahead_of_it():
    # `get(who)` faults while nobody is picked; `who == p`, written ahead of it, rules it out
    # then. The enumerator tests a conjunct without parameters before the loop over p, unless it
    # may fault: then not before what is written ahead of it, as `is_legal` and Z3 take them.
    spec = compile_text("""
game ordr "Ordr"
players 2..2 cite "P" "two"
var who: Player?
var moves: 0..20
init cite "S" "start" { who := none }
/// Pick.
action pick(p: Player) by p cite "R" "pick" when moves < 20 { who := p
  moves += 1 }
/// Use: only the picked player.
action use(p: Player) by p cite "R" "use" when who == p and get(who) == get(who) and moves < 20 { moves += 1 }
end done cite "E" "e": moves >= 20
""")
    game = Program(spec, 2).start("o")
    moves = game.legal_moves()
    assert {spec.actions[j].name for j, _a in moves} == {"pick"}
    assert all(game.is_legal(m) for m in moves)
    report = simulate(spec, 2, 5, "o")
    assert not [f for f in report.findings.values() if f.kind == "fault"]


SEATS_POOL = """
game g "G"
players 2..2 cite "P" "p"
zone pool: bag of Player
zone out: bag of Player
var x: -1..3
init cite "P" "p" {
  pool := { 0, 1 }
  x := 0
}
/// Step x down.
action down() cite "P" "p" when x > -1 { x := x - 1 }
/// Take x.
action take() cite "P" "p" when x == -1 { move x from pool to out
  x := 0 }
end fin cite "P" "p": size(out) > 0
/// -1 counts as in the pool.
reachable weird cite "P" "p": x == -1 and x in pool
"""


def test_a_number_outside_a_bag_s_players_is_not_in_it_and_cannot_be_taken_from_it():
    from verifier.backends.runtime import Fault

    spec = compile_text(SEATS_POOL)
    g = Program(spec, 2).start("s")
    g.step((0, ()))  # down: x = -1 (a negative index would read the last seat's count)
    assert g.reached() == []
    with pytest.raises(Fault, match="the card is not in pool"):
        g.step((1, ()))


NARROW = """
game g "G"
players 2..2 cite "P" "p"
var y: 0..3
var done: bool
init cite "P" "p" { y := 3 }
/// Split.
action split(x: 0..9) cite "P" "p" when GUARD { done := true }
/// Stop.
action stop() cite "P" "p" when not done { done := true }
end fin cite "P" "p": done
"""


def test_the_move_enumerator_meets_a_guard_s_run_time_error_exactly_where_the_guard_does():
    from verifier.backends.runtime import Fault

    # `x + y < 3` rules out every x before [1, 2, 3][y] is read (y is 3): no run-time error
    g = Program(compile_text(NARROW.replace("GUARD", "not done and x + y < 3 and x == [1, 2, 3][y]")), 2).start("s")
    assert g.legal_moves() == [(1, ())]
    # read first, [1, 2, 3][3] is an error for every x, and `y < 3` written after it must not hide it
    g = Program(compile_text(NARROW.replace("GUARD", "not done and x == [1, 2, 3][y] and y < 3")), 2).start("s")
    with pytest.raises(Fault):
        g.failing_conjunct((0, (0,)))
    with pytest.raises(Fault):
        g.legal_moves()


def test_a_bag_moved_under_a_pile_goes_as_one_block_in_the_order_of_the_card_type():
    spec = compile_text("""
game g "G"
players 2..2 cite "P" "p"
enum Card { a, b }
zone hand: bag of Card
zone row: pile of Card
var done: bool
init cite "P" "p" { hand := { 2 of a, 2 of b } }
/// Put one a and one b under the row, twice.
action put() cite "P" "p" when not done {
  move { a, b } from hand to bottom of row
  move { a, b } from hand to bottom of row
  done := true
}
end fin cite "P" "p": done
""")
    g = Program(spec, 2).start("s")
    g.step((0, ()))
    assert g.S[1] == [0, 1, 0, 1]  # bottom first: each block a then b, as `move all` and Z3 put them


def test_given_parameters_must_be_of_their_types_not_only_equal_to_such_values():
    # a kept play read back from a file: True and 1.0 are equal to 1 in Python, but no player; an
    # order with a value of another type made sorted() raise TypeError (exit 3)
    spec = next(s for s in (compile_text(p.read_text()) for p in EXAMPLES) if s.game == "tug_of_wands")
    prog = Program(spec, 4)
    colours, leader = prog.params_of("x")[:2]
    assert prog.given_params([colours, leader]) == [colours, leader]
    first, *rest = colours
    for bad in ([colours, True], [colours, 1.0], [colours, 7], [[(first[0], "x", *first[2:]), *rest], leader],
                [[tuple(float(v) for v in first), *rest], leader], [colours], "not a list"):
        assert prog.given_params(bad) is None, bad

"""Traces: ITF export, replay of saved traces, and traces that stop fitting the rules."""

from __future__ import annotations

import json
import random

import pytest

from verifier.backends.interpreter import Program
from verifier.pipeline import load_spec
from verifier.simulate import record_trace
from verifier.trace import ItfCodec, dump_itf, state_offsets
from verifier.types import Domains

from conftest import EXAMPLES, run_cli, simulated_trace

TRICKS = next(p for p in EXAMPLES if p.name == "little_tricks.rules")


def _game_trace(path, players, seed="t", steps=40):
    spec, _ = load_spec(str(path))
    prog = Program(spec, players)
    g = prog.start(seed)
    rng = random.Random(1)
    for _ in range(steps):
        if g.ended() is not None:
            break
        moves = g.legal_moves()
        g.step(moves[rng.randrange(len(moves))])
    return spec, prog, record_trace(prog, seed, g.params, g.moves)


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_itf_values_round_trip(path):
    spec, prog, trace = _game_trace(path, 4 if "tug" in path.name else 3)
    codec = ItfCodec(Domains(trace.players))
    itf = json.loads(dump_itf(trace.to_itf()))
    assert itf["#meta"]["format"] == "ITF" and len(itf["states"]) == len(trace.steps) + 1
    for state, snapshot in zip(itf["states"], trace.states):
        for var, value in zip(spec.state, snapshot):
            assert codec.decode(var.type, state[var.name]) == value
    assert itf["states"][1]["mbt::actionTaken"] == trace.steps[0].action
    assert "cite" in itf["states"][1]["#meta"]


def _save(tmp_path, trace, name="t.itf.json"):
    path = tmp_path / name
    path.write_text(dump_itf(trace.to_itf()))
    return path


def test_replay_of_a_saved_trace(tmp_path):
    _spec, _prog, trace = _game_trace(TRICKS, 3, steps=500)
    path = _save(tmp_path, trace)
    r = run_cli("replay", str(TRICKS), str(path))
    assert r.code == 0, r
    assert "every move legal" in r.out and "game_over" in r.out


def test_replay_reports_where_the_trace_stops_being_legal(tmp_path):
    _spec, _prog, trace = _game_trace(TRICKS, 3, steps=30)
    itf = trace.to_itf()
    # make the 10th move play a card its player does not hold
    bad = itf["states"][10]
    bad["mbt::actionTaken"] = "play_card"
    bad["mbt::nondetPicks"] = {"p": {"#bigint": "0"}, "c": {"suit": "hearts", "rank": {"#bigint": "1"}}}
    path = tmp_path / "bad.itf.json"
    path.write_text(dump_itf(itf))
    r = run_cli("replay", str(TRICKS), str(path))
    assert r.code == 2 and "Traceback" not in r.err
    line = path.read_text().splitlines().index(next(x for x in path.read_text().splitlines() if '"index":10' in x)) + 1
    assert f"bad.itf.json:{line}:" in r.err and "error[E007]" in r.err and "state 10" in r.err
    assert "is not legal" in r.err and "^" in r.err


def test_replay_detects_an_edited_state(tmp_path):
    _spec, _prog, trace = _game_trace(TRICKS, 3, steps=10)
    itf = trace.to_itf()
    itf["states"][5]["round"] = {"#bigint": "3"}
    path = tmp_path / "edited.itf.json"
    path.write_text(dump_itf(itf))
    r = run_cli("replay", str(TRICKS), str(path))
    assert r.code == 2 and "state 5: round is 3 in the trace, but 1 by the rules" in r.err
    # a hand too long to show whole: the card that differs, not two values cut at the same place
    itf = trace.to_itf()
    itf["states"][0]["hand"]["#map"][2][1]["#map"][0][1] = {"#bigint": "2"}
    path.write_text(dump_itf(itf))
    r = run_cli("replay", str(TRICKS), str(path))
    assert r.code == 2 and "state 0: hand is not what the rules give; from the rules' value to the trace's: " \
        "hand[P2]: +Card(" in r.err, r.err
    # a pile with as many cards, one of them another: not "reordered" (replay shows it so)
    from verifier.trace import diff_value
    from verifier.types import EnumT, PileT
    col, out = EnumT("Col", ("red", "green", "blue")), []
    diff_value("dk", PileT(col), [0, 1], [0, 2], Domains(2), out)
    diff_value("dk", PileT(col), [0, 1], [1, 0], Domains(2), out)
    assert out == ["dk: -green, +blue (2 cards)", "dk: reordered (2 cards, top red)"], out


def test_replay_refuses_a_name_that_is_no_variable_or_argument(tmp_path):
    # a misspelt variable or argument was ignored: the state meant went unchecked, exit 0
    _spec, _prog, trace = _game_trace(TRICKS, 3, steps=10)
    itf = trace.to_itf()
    itf["states"][1]["phse"] = "over"
    path = tmp_path / "edited.itf.json"
    path.write_text(dump_itf(itf))
    r = run_cli("replay", str(TRICKS), str(path))
    assert r.code == 2 and "state 1: 'phse' is not a variable of little_tricks" in r.err and "'phase'" in r.err, r
    itf = trace.to_itf()
    itf["states"][1]["mbt::nondetPicks"]["suits"] = "bells"
    path.write_text(dump_itf(itf))
    r = run_cli("replay", str(TRICKS), str(path))
    assert r.code == 2 and "has no argument 'suits'" in r.err, r


@pytest.mark.parametrize("content, message", [
    ("{not json", "not valid JSON"),
    ('{"#meta": {"players": 3}, "states": {}}', 'no "states" list'),
    ('{"#meta": {"players": 3}, "states": []}', "the trace has no states (a game whose setup stopped), but the setup"),
    ('{"#meta": {}, "states": [{}]}', '"players"'),
    ('{"#meta": {"players": 9}, "states": [{}]}', "for 9 players"),
    ('{"#meta": {"players": 3, "game": "other"}, "states": [{}]}', "the trace is of the game other, not of"),
])
def test_replay_rejects_malformed_traces(tmp_path, content, message):
    path = tmp_path / "x.json"
    path.write_text(content)
    r = run_cli("replay", str(TRICKS), str(path))
    assert r.code == 2 and message in r.err and "Traceback" not in r.err


def test_state_offsets_find_each_state():
    _spec, _prog, trace = _game_trace(TRICKS, 3, steps=5)
    text = dump_itf(trace.to_itf())
    offsets = state_offsets(text)
    assert len(offsets) == 6
    for i, off in enumerate(offsets):
        assert text[off:].startswith('{"#meta":{"index":%d' % i)


def test_simulate_saves_replayable_traces(tmp_path):
    spec_path = next(p for p in EXAMPLES if p.name == "tug_of_wands.rules")
    out = tmp_path / "traces"
    r = run_cli("simulate", str(spec_path), "--players", "4", "--games", "30", "--seed", "1", "--save-traces", str(out))
    assert r.code == 0, r
    files = sorted(out.iterdir())
    assert files
    for f in files:
        rr = run_cli("replay", str(spec_path), str(f))
        assert rr.code in (0, 1) and "Traceback" not in rr.err, rr
        assert "replayed" in rr.out
    # saving again never overwrites
    r2 = run_cli("simulate", str(spec_path), "--players", "4", "--games", "30", "--seed", "1", "--save-traces", str(out))
    assert r2.code == 0 and len(list(out.iterdir())) == 2 * len(files)


def _where(path, offset):
    """`name:line:col` of a character offset in the file at path (for a diagnostic's position)."""
    text = path.read_text()
    line = text.count("\n", 0, offset) + 1
    return f"{path.name}:{line}:{offset - (text.rfind(chr(10), 0, offset) + 1) + 1}: error[E007]: "


def _meta_trace(tmp_path, edit, name="m.itf.json"):
    """A saved trace of little_tricks (which has the parameter first_dealer), its "#meta" edited."""
    _spec, _prog, trace = _game_trace(TRICKS, 3, steps=10)
    itf = trace.to_itf()
    edit(itf)
    path = tmp_path / name
    path.write_text(dump_itf(itf))
    return path


@pytest.mark.parametrize("edit, key, message, hint", [
    # "params" not an object was ignored: the parameters were drawn from the seed, exit 0
    (lambda m: m.update(params=5), '"params": 5', 'has "params": a number (5); "params" must be an object',
     '"params": {"<parameter>": <value>, ...}, or leave "params" out'),
    (lambda m: m.update(params="garbage"), '"params": "garbage"', '"params": a string ("garbage"); "params" must be',
     None),
    (lambda m: m.update(params=[1]), '"params": [', '"params": a list; "params" must be an object', None),
    # a parameter the spec does not have was ignored
    (lambda m: m["params"].update(bogus=1), '"bogus"',
     "the trace gives the parameter 'bogus', which is no parameter of little_tricks", "its parameters: first_dealer"),
    (lambda m: m["params"].update(first_dealr=1), '"first_dealr"', "the parameter 'first_dealr', which is no",
     "did you mean 'first_dealer'?"),
    # an outcome rulespec never writes was taken as it came
    (lambda m: m.update(outcome="nonsense"), '"outcome": "nonsense"', 'has "outcome": a string ("nonsense"), not an '
     "object", None),
    (lambda m: m.update(outcome={"kind": "weird"}), '"kind": "weird"', "\"outcome\" has the kind 'weird'; rulespec "
     "writes end, open, violation, deadlock, gap, fault", None),
    (lambda m: m.update(outcome={"reason": "x"}), '"outcome": {', '"outcome" has no "kind"', None),
    (lambda m: m.update(outcome={"kind": "end", "end": "game_over", "move": {"mbt::actionTaken": "pass"}}),
     '"move": {', 'has a "move", but is of the kind end', None),
    # a trace of another edition of the game was replayed as if of this one
    (lambda m: m.update(edition="fr"), '"edition": "fr"', "the trace is of the edition fr, not en",
     "pass the spec the trace was written for"),
    (lambda m: m.update(edition=5), '"edition": 5', '"#meta" has "edition": a number (5), not a name', None),
    # (the game's check was there; its caret was at 1:1)
    (lambda m: m.update(game="other"), '"game": "other"', "the trace is of the game other, not of little_tricks",
     None),
    (lambda m: m.update(players=9), '"players": 9', "the trace is for 9 players",
     "pass the spec the trace was written for"),
    # a seed that was no string was converted with str(): 5 replayed the game of "5"
    (lambda m: m.update(seed=5), '"seed": 5', '"#meta" has "seed": a number (5), not a string',
     '"seed" is the text the game was started from, as rulespec writes it: "5", not 5'),
    (lambda m: m.update(seed=None), '"seed": null', '"#meta" has "seed": null, not a string', None),
    # (an internal error, a list being no key of a set, when the outcome was compared)
    (lambda m: m.update(outcome={"kind": "violation", "property": ["x"]}), '"property": [',
     '"outcome" has "property": a list, not a name', None),
])
def test_replay_rejects_a_malformed_meta_at_its_key(tmp_path, edit, key, message, hint):
    path = _meta_trace(tmp_path, lambda itf: edit(itf["#meta"]))
    r = run_cli("replay", str(TRICKS), str(path))
    assert r.code == 2 and "Traceback" not in r.err, r
    assert _where(path, path.read_text().index(key)) + "" in r.err and message in r.err, r.err
    assert "^" * len(key.split(":")[0]) in r.err, r.err  # the caret under the key, quotes included
    assert hint is None or f"hint: {hint}" in r.err, r.err


def test_replay_rejects_a_meta_that_is_not_an_object(tmp_path):
    path = _meta_trace(tmp_path, lambda itf: itf.update({"#meta": [3]}))
    r = run_cli("replay", str(TRICKS), str(path))
    assert r.code == 2 and _where(path, path.read_text().index('"#meta"')) + \
        'the trace\'s "#meta" is a list, not an object' in r.err, r
    path.write_text('{"#meta": "x", "states": [{}]}')
    r = run_cli("replay", str(TRICKS), str(path))
    assert r.code == 2 and 'm.itf.json:1:2: error[E007]: the trace\'s "#meta" is a string ("x"), not an object' \
        in r.err, r


def test_replay_checks_the_params_and_edition_of_a_spec_without_them(tmp_path):
    # a spec with no parameters and no edition (whose games end in a deadlock, exit 1): a trace's
    # parameter is refused, its edition not
    spec, saved = simulated_trace(tmp_path, "x := 1", "x := 2", when="x == 1")
    itf = json.loads(saved.read_text())
    assert itf["#meta"]["params"] == {} and itf["#meta"]["edition"] is None
    assert "deadlock" in run_cli("replay", str(spec), str(saved)).out
    itf["#meta"]["edition"] = "fr"  # the spec names no edition: nothing to compare with
    saved.write_text(dump_itf(itf))
    r = run_cli("replay", str(spec), str(saved))
    assert r.code == 1 and "every move legal, but no move is left" in r.out, r
    itf["#meta"]["params"] = {"first_dealer": 1}
    saved.write_text(dump_itf(itf))
    r = run_cli("replay", str(spec), str(saved))
    assert r.code == 2 and _where(saved, saved.read_text().index('"first_dealer"')) + \
        "the trace gives the parameter 'first_dealer', but g has no parameters" in r.err, r


def test_a_trace_of_the_spec_s_own_edition_or_of_none_replays(tmp_path):
    for edition in ("en", None):
        path = _meta_trace(tmp_path, lambda itf: itf["#meta"].update(edition=edition), f"{edition}.itf.json")
        r = run_cli("replay", str(TRICKS), str(path))
        assert r.code == 0 and "every move legal" in r.out, r


def _state_key(path, i, key, nth=1):
    """The offset of the nth `"key":` in state i's line of a trace dump_itf wrote."""
    text = path.read_text()
    start = text.index('{"#meta":{"index":%d,' % i)
    at = start - 1
    for _ in range(nth):
        at = text.index(f'"{key}":', at + 1)
    assert at < text.index("\n", start)
    return at


def test_replay_points_at_the_key_of_a_state_that_is_wrong(tmp_path):
    # the caret was under the state's opening brace, far from what is wrong in a line of 2,000 characters
    _spec, _prog, trace = _game_trace(TRICKS, 3, steps=10)
    cases = [
        (lambda s: s.update(phase="nonsense"), "phase", 1,
         'state 3: phase: expected one of trump_choice, bidding, playing, over, found "nonsense"'),
        (lambda s: s.update(round={"#bigint": "3"}), "round", 1, "state 3: round is 3 in the trace, but 1 by the rules"),
        (lambda s: s.update(phse="over"), "phse", 1, "state 3: 'phse' is not a variable of little_tricks"),
        (lambda s: s["mbt::nondetPicks"].update(suits="bells"), "suits", 1, "state 3: make_bid has no argument 'suits'"),
        (lambda s: s.update({"mbt::actionTaken": "pas"}), "mbt::actionTaken", 1, "state 3: unknown action 'pas'"),
        # a key of that name nested in the state before it (here in its "#meta"): the state's own key
        (lambda s: (s["#meta"].update(round=0), s.update(round={"#bigint": "3"})), "round", 2,
         "state 3: round is 3 in the trace, but 1 by the rules"),
    ]
    for edit, key, nth, message in cases:
        itf = trace.to_itf()
        edit(itf["states"][3])
        path = tmp_path / "s.itf.json"
        path.write_text(dump_itf(itf))
        r = run_cli("replay", str(TRICKS), str(path))
        assert r.code == 2 and _where(path, _state_key(path, 3, key, nth)) + message in r.err, (key, r.err)
        assert "^" * (len(key) + 2) in r.err and "in: trace state 3" in r.err, r.err


def test_replay_compares_the_outcome_a_trace_tells_with_its_own(tmp_path):
    # the "#meta" outcome was only checked where a move stopped the game: a trace whose game ended
    # replayed with exit 0 whatever its outcome said
    _spec, _prog, trace = _game_trace(TRICKS, 3, steps=500)  # (it ends, and breaks an invariant expected to fail)
    assert trace.outcome["kind"] == "violation" and trace.outcome["property"] == "scores_never_negative"
    path = _save(tmp_path, trace)
    r = run_cli("replay", str(TRICKS), str(path))
    assert r.code == 0 and "the game ended (game_over)" in r.out, r
    cases = [
        ({"kind": "open"}, "says the game goes on, but replayed here it ended (game_over)"),
        ({"kind": "end", "end": "other_end"}, "says the game ended (other_end), but replayed here it ended (game_over)"),
        ({"kind": "deadlock"}, "says the game has no move left (a deadlock), but replayed here it ended"),
        ({"kind": "violation", "property": "hands_even", "message": "x"},
         "says the game breaks hands_even, but replayed here it breaks only scores_never_negative"),
        ({"kind": "fault", "message": "x"}, "says the game stops at a run-time error, but replayed here it ended"),
    ]
    for told, message in cases:
        itf = trace.to_itf()
        itf["#meta"]["outcome"] = told
        path.write_text(dump_itf(itf))
        r = run_cli("replay", str(TRICKS), str(path))
        assert r.code == 2 and _where(path, path.read_text().index('"outcome"')) + "the trace's \"#meta\" " + message \
            in r.err, (told, r.err)
        assert "hint: the trace was written for other rules or another seed, or was edited" in r.err, r.err
    # a trace cut short keeps the outcome of its whole game: it no longer fits
    itf = trace.to_itf()
    itf["#meta"]["outcome"] = {"kind": "end", "end": "game_over"}  # (what it tells of the game is not wrong)
    path.write_text(dump_itf(itf))
    assert run_cli("replay", str(TRICKS), str(path)).code == 0
    del itf["states"][-3:]
    path.write_text(dump_itf(itf))
    r = run_cli("replay", str(TRICKS), str(path))
    assert r.code == 2 and "says the game ended (game_over), but replayed here it goes on" in r.err, r.err
    # without an outcome, the cut trace replays: it goes on
    del itf["#meta"]["outcome"]
    path.write_text(dump_itf(itf))
    r = run_cli("replay", str(TRICKS), str(path))
    assert r.code == 0 and "the game goes on" in r.out, r


def test_a_trace_whose_game_faults_after_its_last_move_replays_to_that_fault(tmp_path):
    # listing the moves after the second move divides by zero: simulate saved the game with the
    # outcome fault and no stopping move, and replay crashed on it (an internal error, exit 3)
    spec, saved = simulated_trace(tmp_path, "x := 0", "x := x + 1", when="x < 5 and 10 / (2 - x) > 0")
    itf = json.loads(saved.read_text())
    assert itf["#meta"]["outcome"] == {"kind": "fault", "message": "division by zero"} and len(itf["states"]) == 3
    r = run_cli("replay", str(spec), str(saved))
    assert r.code == 1 and "replayed 2 moves: run-time error of the spec after move 2: division by zero" in r.out, r
    r = run_cli("replay", str(spec), str(saved), "--json")
    assert r.code == 1 and json.loads(r.out)["outcome"]["where"].endswith("t.rules:6:54"), r
    # a move after it: the guard of the move faults, where the game stopped
    more = dict(itf["states"][-1], x={"#bigint": "3"})
    itf["states"].append(more)
    del itf["#meta"]["outcome"]
    saved.write_text(dump_itf(itf))
    r = run_cli("replay", str(spec), str(saved))
    assert r.code == 1 and "replayed 2 moves: run-time error of the spec after move 2: division by zero" in r.out, r
    # an outcome that says otherwise does not fit
    itf["#meta"]["outcome"] = {"kind": "open"}
    saved.write_text(dump_itf(itf))
    r = run_cli("replay", str(spec), str(saved))
    assert r.code == 2 and "says the game goes on, but replayed here it stops at a run-time error" in r.err, r


def test_a_trace_of_a_violation_replays_where_the_game_faults_after_its_last_move(tmp_path):
    # a trace whose game broke a property tells the violation and does not look at the end
    # conditions and the moves after its last move: the run-time error there was refused (E007,
    # exit 2) as another outcome, for traces simulate and fuzz had written
    spec, saved = simulated_trace(tmp_path, "x := 0", "x := x + 1", when="x < 5 and 10 / (2 - x) > 0")
    spec.write_text(spec.read_text() + '/// Small.\ninvariant small cite "S" "s": x < 2\n')
    (tmp_path / "tr" / saved.name).unlink()
    r = run_cli("simulate", str(spec), "--games", "1", "--save-traces", str(tmp_path / "tr"))
    traces = sorted((tmp_path / "tr").iterdir())
    assert r.code == 1 and len(traces) == 2, r  # (the run-time error's and the violation's)
    for path in traces:
        assert json.loads(path.read_text())["#meta"]["outcome"]["kind"] == "violation"
        r = run_cli("replay", str(spec), str(path))
        assert r.code == 1 and "run-time error of the spec after move 2: division by zero" in r.out \
            and "small violated from move 2" in r.out, r
    # the property it names must be one the replay breaks
    itf = json.loads(traces[0].read_text())
    itf["#meta"]["outcome"]["property"] = "other"
    traces[0].write_text(dump_itf(itf))
    r = run_cli("replay", str(spec), str(traces[0]))
    assert r.code == 2 and 'says the game breaks other, but replayed here it breaks only small' in r.err, r


def test_play_stops_at_a_run_time_error_after_a_move_and_keeps_the_game(tmp_path):
    # listing the moves after the second move divides by zero: play crashed there (an internal
    # error, exit 3) and the game played was not saved
    spec, _saved = simulated_trace(tmp_path, "x := 0", "x := x + 1", when="x < 5 and 10 / (2 - x) > 0")
    played = tmp_path / "played.json"
    r = run_cli("play", str(spec), "--save-trace", str(played), stdin="r\nr\nr\nq\n")
    assert r.code == 1 and "Run-time error in the spec after move 2: division by zero (at " in r.out, r
    assert json.loads(played.read_text())["#meta"]["outcome"] == {"kind": "fault", "message": "division by zero"}
    r = run_cli("replay", str(spec), str(played))
    assert r.code == 1 and "replayed 2 moves: run-time error of the spec after move 2: division by zero" in r.out, r

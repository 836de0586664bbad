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

from conftest import EXAMPLES, run_cli

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

"""The store of the solver's unsat answers (verify --answers): keys, reuse, and bad input."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import z3

from verifier.answers import Answers, fingerprint
from verifier.verify import Verifier

from conftest import compile_text, run_cli
from test_verify import SPELLS

GOOD = SPELLS.replace(" GUARD", "").replace(" RANK", "")
ROOT = Path(__file__).resolve().parent.parent

_KEY = """
import sys
sys.path.insert(0, {root!r}); sys.path.insert(0, {tests!r})
from conftest import compile_text
from test_verify import SPELLS
from verifier.answers import fingerprint
from verifier.verify import Verifier
v = Verifier(compile_text(SPELLS.replace(" GUARD", "").replace(" RANK", "")), 3, 2, 20, 0)
v.build()
a = v.spec.actions[0]
print(fingerprint([*v.pcons, *v.step_facts(v.steps[a.name])]))
"""


def _key_in_a_new_process() -> str:
    code = _KEY.format(root=str(ROOT), tests=str(ROOT / "tests"))
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()


def test_a_question_built_again_elsewhere_has_the_same_key_and_another_question_another():
    v = Verifier(compile_text(GOOD), 3, 2, 20, 0)
    v.build()
    a = v.spec.actions[0]
    facts = [*v.pcons, *v.step_facts(v.steps[a.name])]
    key = fingerprint(facts)
    assert key == _key_in_a_new_process()
    turn = v.pre["turn"]
    keys = {key, fingerprint([*facts, turn == 0]), fingerprint([*facts, turn == 1]), fingerprint([turn == 0, *facts])}
    assert len(keys) == 4


def test_terms_that_differ_anywhere_have_different_keys():
    """Z3's own structural hash takes a number's absolute value (5 and -5 alike): the key does not
    rest on it."""
    x, y = z3.Ints("x y")
    alike = [[x == 5], [x == -5], [x * 5 > 1], [x * -5 > 1], [x - y > 0], [y - x > 0],
             [z3.If(x > 0, x + 1, x - 1) == y], [z3.If(x > 0, x + 1, x - 2) == y],
             [z3.Real("x") == z3.RealVal("1/2")], [z3.Real("x") == z3.RealVal("-1/2")],
             [z3.ForAll([y], y + x >= 0)], [z3.ForAll([y], y - x >= 0)], [x == 5, y == 1], [y == 1, x == 5],
             # a quantifier's free constants of other sorts, printed alike; a name that needs
             # quoting and the same name quoted, printed alike
             [z3.ForAll([y], z3.Implies(y == 0, z3.Distinct(*z3.Bools("a b c"))))],
             [z3.ForAll([y], z3.Implies(y == 0, z3.Distinct(*z3.Ints("a b c"))))],
             [z3.Int("a b") == 1, z3.Int("a b") == 2], [z3.Int("a b") == 1, z3.Int("|a b|") == 2]]
    keys = [fingerprint(f) for f in alike]
    assert len(set(keys)) == len(keys)
    assert fingerprint([x == -5]) == fingerprint([z3.Int("x") == -5])


def test_a_second_run_takes_the_unsat_answers_and_says_the_same(tmp_path):
    path = tmp_path / "answers.db"
    first_store = Answers(path)
    first = {(r.property, r.status) for r in Verifier(compile_text(GOOD), 2, 2, 20, 0, answers=first_store).run()}
    assert first_store.hits == 0 and first_store.added > 0 and len(first_store) == first_store.added
    again = Answers(path)
    second = {(r.property, r.status) for r in Verifier(compile_text(GOOD), 2, 2, 20, 0, answers=again).run()}
    assert second == first
    assert again.hits >= first_store.added and again.added == 0


def test_an_answer_in_the_store_is_taken_without_asking_the_solver(tmp_path):
    """What the store says is believed (so that its keys must be exact): a sat question whose key
    is in the store is answered unsat. Only the prover writes there."""
    v = Verifier(compile_text(GOOD), 2, 2, 20, 0, answers=Answers(tmp_path / "a.db"))
    v.build()
    turn = v.pre["turn"]
    facts = [turn == 0]
    assert v.check(facts)[0] == z3.sat
    assert len(v.answers) == 0  # sat answers are not kept
    v.answers.add(fingerprint([*v.pcons, *facts]), 0.0)
    assert v.check(facts)[0] == z3.unsat and v.answers.hits == 1


def test_a_changed_constant_is_asked_again_not_taken_from_the_store(tmp_path):
    """A spec whose step adds 1 keeps its counter non-negative; after the change to adding -1 the
    same store must not prove it (the questions differ only in a sign)."""
    text = """
game counter "Counter"
players 2..2 cite "P" "players"
var v: -20..20
var t: 0..10
init cite "P" "start" { v := 0 }
action tick() cite "P" "tick" when t < 10 { v := v + 1
  t += 1 }
/// The counter stays non-negative.
invariant v_nonneg cite "P" "never below": v >= 0
"""
    store = tmp_path / "a.db"
    first = {r.property: r.status for r in Verifier(compile_text(text), 2, 2, 20, 0, answers=Answers(store)).run()}
    assert first["v_nonneg"] == "proved"
    again = Answers(store)
    changed = text.replace("v := v + 1", "v := v + -1")
    second = {r.property: r.status for r in Verifier(compile_text(changed), 2, 2, 20, 0, answers=again).run()}
    assert second["v_nonneg"] == "violated"


def test_verify_answers_json_counts_and_bad_files(tmp_path):
    good = tmp_path / "good.rules"
    good.write_text(GOOD)
    store = tmp_path / "answers.db"
    args = ("verify", str(good), "--players", "2", "--depth", "2", "--games", "5", "--answers", str(store))
    r = run_cli(*args, "--json")
    assert r.code == 0, r
    use = json.loads(r.out)["answers"]
    assert use["reused"] == 0 and use["added"] > 0
    r = run_cli(*args, "--json")
    assert r.code == 0 and json.loads(r.out)["answers"]["reused"] > 0, r
    r = run_cli(*args)
    assert r.code == 0 and "solver questions answered from" in r.out, r
    # a folder, a missing folder, a file that is not a store: exit 2, and the file is left as it was
    for bad, says in ((tmp_path, "is a folder"), (tmp_path / "no" / "a.db", "does not exist")):
        r = run_cli("verify", str(good), "--players", "2", "--answers", str(bad))
        assert r.code == 2 and says in r.err and "Traceback" not in r.err, r
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n" * 200)
    other = tmp_path / "other.db"  # another program's SQLite file
    with sqlite3.connect(other) as db:
        db.execute("create table unsat (id integer, what text)")
    empty = tmp_path / "empty"
    empty.write_bytes(b"")
    damaged = tmp_path / "damaged.db"  # a store with a page of garbage: its count failed later, exit 3
    data = bytearray(store.read_bytes())
    data[4096:8192] = b"\xde\xad" * 2048
    damaged.write_bytes(bytes(data))
    for path in (notes, other, empty, damaged):
        before = path.read_bytes()
        r = run_cli("verify", str(good), "--players", "2", "--answers", str(path))
        assert r.code == 2 and "not a file of answers" in r.err and "Traceback" not in r.err, r
        assert path.read_bytes() == before


def test_a_brief_try_that_timed_out_is_not_waited_for_again(tmp_path):
    """A brief try only decides whether the prover splits a question; one that timed out is kept
    with its limit and given back for a try no longer than that, never for the full question."""
    v = Verifier(compile_text(GOOD), 3, 2, 20, 0, answers=Answers(tmp_path / "a.db"))
    v.build()
    # ten pigeons in nine holes: no solver settles it within a few milliseconds
    p = [[z3.Bool(f"p{i}_{j}") for j in range(9)] for i in range(10)]
    facts = [z3.Or(*row) for row in p] + [z3.Or(z3.Not(p[i][j]), z3.Not(p[k][j]))
                                          for j in range(9) for i in range(10) for k in range(i + 1, 10)]
    r, _m, why = v.check(facts, 5)
    assert r == z3.unknown, (r, why)
    hits = v.answers.hits
    r, _m, why = v.check(facts, 5)
    assert r == z3.unknown and "earlier run" in why and v.answers.hits == hits + 1
    r, _m, why = v.check(facts, 3)
    assert "earlier run" in why and v.answers.hits == hits + 2  # a shorter try too
    key = v.answers.key([*v.pcons, *facts])
    assert v.answers.known(key, 6) is None    # a longer try is asked of the solver
    assert v.answers.known(key, None) is None  # and so is the full question


def test_processes_of_jobs_share_the_store(tmp_path):
    good = tmp_path / "good.rules"
    good.write_text(GOOD)
    store = tmp_path / "answers.db"
    args = ("verify", str(good), "--depth", "2", "--games", "5", "--jobs", "2", "--answers", str(store), "--json")
    first = run_cli(*args)
    assert first.code == 0, first
    use = json.loads(first.out)["answers"]
    assert use["added"] > 0 and use["added"] == len(Answers(store))
    second = run_cli(*args)
    again = json.loads(second.out)
    assert again["answers"]["reused"] >= use["added"] and again["answers"]["added"] == 0
    statuses = [sorted((r["players"], r["property"], r["status"]) for r in doc["specs"][0]["results"])
                for doc in (json.loads(first.out), again)]
    assert statuses[0] == statuses[1] and {p for p, *_ in statuses[0]} == {2, 3}


def test_a_play_s_values_are_kept_as_tagged_json_and_read_back_equal(tmp_path):
    from verifier.answers import _decode, _encode

    moves = [(0, (1, 6)), (1, (frozenset({2, 0}), True)), (7, ()), (3, ("x", None, [1, (2,)]))]
    params = [[(5, 3, 4), (1, 0, 2)], 3, frozenset(), 0]
    store = Answers(tmp_path / "a.db")
    store.add_play("g|e|3", "goal", "seed", params, moves)
    assert Answers(tmp_path / "a.db").plays("g|e|3") == {"goal": ("seed", params, moves)}
    assert _decode(json.loads(json.dumps(_encode(moves)))) == moves
    store.add_play("g|e|3", "other", "seed", [{"a": 1}], moves)  # a value tagged JSON cannot hold: not kept
    assert set(store.plays("g|e|3")) == {"goal"} and store.plays("g|e|4") == {}
    for bad in ('[1, 2]', '{"t": [1], "l": [2]}', '{"q": [1]}', '{"f": [{"l": []}]}', 'not json'):
        store._db.execute("insert or replace into plays values ('g|e|3', 'bad', 's', '[]', ?)", (bad,))
        assert set(store.plays("g|e|3")) == {"goal"}, bad  # a row that does not decode is left out


def test_verify_answers_counts_the_plays_it_replays(tmp_path):
    from test_explore import CLIMB

    spec = tmp_path / "climb.rules"
    spec.write_text(CLIMB)
    args = ("verify", str(spec), "--depth", "2", "--games", "5", "--answers", str(tmp_path / "a.db"))
    first = json.loads(run_cli(*args, "--json").out)["answers"]
    again = run_cli(*args, "--json")
    use = json.loads(again.out)["answers"]
    assert first["plays_added"] == 3 and first["plays_reused"] == 0 and use["plays_reused"] == 3, again
    assert use["plays_added"] == 0
    r = run_cli(*args)
    assert r.code == 0 and "3 plays of the directed search replayed from it instead of searched for (0 added)" in r.out, r


def test_a_damaged_table_of_plays_is_refused_and_a_row_that_is_not_utf8_left_out(tmp_path):
    # both stopped verify with sqlite3.OperationalError (exit 3)
    store = Answers(tmp_path / "a.db")
    store.add_play("g|e|3", "goal", "seed", [1], [(0, (1,))])
    store._db.execute("insert into plays values ('g|e|3', 'bad', 's', '{\"l\": []}', cast(x'ff7b' as text))")
    assert set(Answers(tmp_path / "a.db").plays("g|e|3")) == {"goal"}
    store._db.execute("drop table plays")
    store._db.execute("create table plays (x)")
    good = tmp_path / "good.rules"
    good.write_text(GOOD)
    r = run_cli("verify", str(good), "--players", "2", "--answers", str(tmp_path / "a.db"))
    assert r.code == 2 and "not a file of answers" in r.err and "Traceback" not in r.err, r

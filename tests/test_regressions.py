"""Bugs found while writing the language reference, each pinned by a test."""

from __future__ import annotations

import pytest

from verifier.backends.interpreter import Program
from verifier.scenarios import run_scenarios
from verifier.simulate import simulate

from conftest import MINI, compile_text, diagnostics_of

BASE = """
game g
players 2..4 cite "P" "p"
var i: int
var m: map Player -> 0..9
init { skip }
/// Step.
action step() cite "S" "s" when i < 3 { i += 1 }
end done cite "E" "e": i >= 3
"""


def _codes(text):
    return [d.code for d in diagnostics_of(text) if d.is_error]


def _faults(text, players=2):
    spec = compile_text(text)
    rep = simulate(spec, players, 3, "r")
    return [f for f in rep.findings.values() if f.kind == "fault"]


def test_player_map_index_out_of_range_is_a_fault_not_a_wrap():
    f = _faults(BASE.replace("{ i += 1 }", "{ m[i - 1] := 5  i += 1 }"))
    assert f and "outside the keys" in f[0].message
    f = _faults(BASE.replace("{ i += 1 }", "{ m[i + 5] := 5  i += 1 }"))
    assert f and "outside the keys" in f[0].message


def test_param_condition_may_use_a_constant():
    spec = compile_text(BASE + "const limit = 3\nparam x: 0..5 where x < limit cite \"P\" \"p\"\n")
    prog = Program(spec, 2)
    assert all(prog.start(f"s{k}").params[0] < 3 for k in range(20))


def test_param_of_unbounded_values_is_rejected():
    assert _codes(BASE + "param x: map Player -> int cite \"P\" \"p\"\n") == ["E205"]


def test_scenario_param_values_are_checked():
    text = BASE + ('param x: 1..5 cite "P" "p"\nparam who: Player cite "P" "p"\n'
                   'scenario a cite "S" "s" { param x = 2 + 7 }\n'
                   'scenario b cite "S" "s" { players 3  param who = 3 }\n')
    results = {r.scenario.name: r for r in run_scenarios(compile_text(text))}
    assert not results["a"].ok and "not a value of 1..5" in results["a"].message
    assert not results["b"].ok and "with 3 players" in results["b"].message


def test_pile_equals_list_literal():
    text = BASE.replace("var i: int", "var i: int\ncard C { v: 1..3 }\nzone p1: pile of C\nzone box: bag of C") \
        .replace("init { skip }", "init { box := {C(1), C(2)} }") + \
        'scenario s cite "S" "s" { setup { move C(1) from box to p1 } expect p1 == [C(1)] and p1 != [C(2)] }\n'
    assert all(r.ok for r in run_scenarios(compile_text(text)))


def test_zones_of_an_enum_and_its_extension_do_not_exchange_cards():
    text = BASE.replace("var i: int", "var i: int\nenum R { a }\nenum S extends R { b }\nzone rs: bag of R\nzone ss: bag of S") \
        .replace("{ i += 1 }", "{ move all from ss to rs  i += 1 }")
    assert _codes(text) == ["E201"]


def test_mutual_recursion_is_caught():
    text = BASE + "def f(): int = g()\ndef g(): int = f()\nproc p() { q() }\nproc q() { p() }\n"
    assert _codes(text).count("E209") == 2


def test_stat_takes_at_most_one_parameter():
    assert _codes(BASE + "stat two(p: Player, q: Player): p + q\n") == ["E202"]


def test_fault_in_init_is_a_finding():
    f = _faults(BASE.replace("init { skip }", "init { i := 1 / i }"))
    assert f and "division by zero" in f[0].message


def test_gap_in_scenario_setup_fails_the_scenario():
    text = BASE + 'scenario s cite "S" "s" { setup { undecided "open" cite "S" "s" } }\n'
    r, = run_scenarios(compile_text(text))
    assert not r.ok and "undecided point" in r.message


def test_expect_illegal_holds_after_the_end():
    text = BASE + 'scenario s cite "S" "s" { do step() do step() do step() expect end expect illegal step() }\n'
    r, = run_scenarios(compile_text(text))
    assert r.ok, r.message


def test_invariants_checked_after_setup():
    text = BASE + '/// Small.\ninvariant small cite "S" "s": i <= 3\nscenario s cite "S" "s" { setup { i := 5 } do step() }\n'
    r, = run_scenarios(compile_text(text))
    assert not r.ok and "breaks invariant small" in r.message


def test_membership_in_a_literal_set_of_players():
    text = BASE.replace("var i: int", "var i: int\nenum Colour { red, blue }\nvar s: set of Colour\nvar who: Player") + \
        'scenario s cite "S" "s" { setup { s := {red} } expect who in {0, 2} and 1 not in {0, 2} and i in {0, 7} ' \
        'and {red} == s }\n'
    r, = run_scenarios(compile_text(text))
    assert r.ok, r.message


def test_range_bound_from_a_constant_of_constants():
    assert _codes(BASE + "const a = 2\nconst b = a * 2\nvar z: 0..b\n") == []


def test_definition_argument_out_of_range_is_a_fault():
    text = BASE.replace("{ i += 1 }", "{ i += f(i + 5) }") + "def f(x: 1..3): int = x\n"
    f = _faults(text)
    assert f and "argument x" in f[0].message


def test_procedure_argument_out_of_range_is_a_fault():
    text = BASE.replace("{ i += 1 }", "{ bump(i + 5)  i += 1 }") + "proc bump(x: 1..3) { skip }\n"
    f = _faults(text)
    assert f and "argument x" in f[0].message


def test_cards_cannot_hide_in_a_var_map():
    assert _codes(BASE + "card C { v: 1..2 }\nvar m2: map Player -> bag of C\n") == ["E210"]


def test_citations_on_vars_and_zones_are_collected():
    spec = compile_text(MINI.replace("var done: bool", 'var done: bool cite "End" "done"'))
    assert ("var done", ) == tuple(w for w, _c in spec.other_cites)


def test_scenario_fixes_parameters_before_drawing_the_others():
    # `b` depends on `a` through its `where`: fixing a = false must draw b = false, whatever seed.
    text = BASE + ('param a: bool cite "P" "p"\nparam b: bool where not b or a cite "P" "p"\n'
                   + "".join(f'scenario s{k} cite "S" "s" {{ seed {k}  param a = false  expect not b }}\n'
                             for k in range(12))
                   + 'scenario bad cite "S" "s" { param a = false  param b = true }\n')
    results = {r.scenario.name: r for r in run_scenarios(compile_text(text))}
    assert all(results[f"s{k}"].ok for k in range(12)), [r.message for r in results.values() if not r.ok]
    assert not results["bad"].ok and "does not satisfy its `where` condition" in results["bad"].message


def test_a_stat_whose_evaluation_faults_at_the_end_is_a_finding_not_a_crash():
    spec = compile_text("""
game s "S"
players 2..2 cite "P" "two"
var who: Player?
var moves: 0..3
init cite "S" "start" { who := none }
/// Tick.
action tick(p: Player) by p cite "R" "tick" when moves < 3 { moves += 1 }
end done cite "E" "e": moves >= 3
stat picked: get(who)
""")
    rep = simulate(spec, 2, 3, "s")
    assert rep.games == 3 and any(f.kind == "fault" and "get() of none" in f.message for f in rep.findings.values())


@pytest.mark.parametrize("body, after", [("s += {0}", {0}), ("s := {1, 2}", {1, 2}), ("s := s - {1}", set())])
def test_a_set_literal_of_numbers_is_a_set_where_a_set_of_a_range_is_expected(body, after):
    # {0} was typed a set of int (E205: "a set holds values of a finite type"), where {x} with
    # x: 0..5 was taken: the expected set's element type judges its numbers, as a stored number is
    spec = compile_text("""
game g "G"
players 2..2 cite "P" "p"
var x: 0..5
var s: set of 0..4
init cite "P" "p" { x := 0 }
/// A.
action a() cite "P" "p" when x < 3 { BODY
  x := x + 1 }
end fin cite "P" "p": x == 3
""".replace("BODY", body))
    g = Program(spec, 2).start(0)
    g.step((0, ()))
    assert set(g.S[1]) == after


def test_a_bound_counts_from_a_scenario_s_setup_as_from_init():
    # the same state (n == 5) after init and after setup: two fires break the bound either way. After
    # setup the bound was not armed, so the first fire counted as the step that met the trigger
    base = """
game b "B"
players 2..2 cite "P" "p"
var n: 0..20
var fired: 0..20
init cite "S" "s" { n := INIT }
/// Fire.
action fire() cite "A" "a" when n == 5 and fired < 2 { fired += 1 }
end done cite "E" "e": fired == 2
/// At most one fire after n reaches 5.
bound once cite "A" "a": after n >= 5, at most 1 fire
/// Two fires.
scenario two cite "A" "a" { SETUP do fire() do fire() }
"""
    for init, setup in (("5", ""), ("0", "setup { n := 5 }")):
        (r,) = run_scenarios(compile_text(base.replace("INIT", init).replace("SETUP", setup)))
        assert not r.ok and "bound once is violated" in r.message, (init, r.message)

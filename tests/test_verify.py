"""The Z3 back-end: proofs, broken specs caught with traces that replay, spurious counterexamples."""

from __future__ import annotations

import json

import pytest

from verifier.verify import Verifier

from conftest import MINI, compile_text, run_cli

SPELLS = """
game spells "Spells"
players 2..3 cite "P" "players"
enum Phase { struggle, over }
enum Spell { bolt, fog }
var phase: Phase
var turn: Player
var cast: map Player -> 0..3
var plays: 0..20
zone book: pile of Spell refill from spent shuffled
zone spent: bag of Spell
zone hand[Player]: bag of Spell
zone laid[Player]: bag of Spell
init cite "Setup" "s" {
  book := { 3 of s for s in Spell }
  shuffle book
  for p in Player { draw 2 from book to hand[p] }
}
/// Cast a spell: at most one per player per struggle.
action cast_spell(p: Player, s: Spell) by p cite "Play" "one spell"
  when phase == struggle and p == turn and plays < 12 and s in hand[p] and cast[p] == 0 GUARD
{
  move s from hand[p] to laid[p]
  cast[p] += 1
  plays += 1
  turn := left(p)
}
/// Pass.
action pass_turn(p: Player) by p cite "Play" "pass" when phase == struggle and p == turn and plays < 12 {
  plays += 1
  turn := left(p)
}
/// End the struggle.
action finish() cite "End" "end" when phase == struggle and plays >= 12 { phase := over }
end done cite "End" "e": phase == over
/// Spells are conserved.
invariant spells_kept cite "Setup" "six": all(s in Spell: total(s) == 3)
/// At most one spell each.
invariant one_spell_each cite "Play" "one spell": all(p in Player: cast[p] <= 1)
/// Plays stop at twelve (a helper for the ranking below).
invariant plays_bounded cite "End" "end" lemma: plays <= 12
/// The struggle ends.
terminates struggle_ends cite "End" "ends": while phase == struggle decreases 12 - plays RANK
"""


def _results(text, players=2, depth=4, games=30):
    spec = compile_text(text)
    return {r.property: r for r in Verifier(spec, players, depth, 20, games).run()}


def test_a_correct_spec_is_proved():
    r = _results(SPELLS.replace(" GUARD", "").replace(" RANK", ""))
    assert r["spells_kept"].status == "proved"
    assert r["one_spell_each"].status == "proved"
    assert r["struggle_ends"].status == "proved"
    assert r["no_runtime_errors"].status == "proved"
    assert r["no_deadlock"].status == "proved"


def _assert_replayed(result, kind):
    assert result.status == "violated", (result.status, result.message)
    assert result.trace is not None and result.trace.outcome.get("kind") == kind
    assert "replayed" in result.message or "simulated game" in result.message


def test_a_move_that_duplicates_a_card_is_caught():
    text = SPELLS.replace(" GUARD", "").replace(" RANK", "").replace(
        "move s from hand[p] to laid[p]", "laid[p] += {s}")
    _assert_replayed(_results(text)["spells_kept"], "violation")


def test_a_guard_that_lets_a_second_spell_through_is_caught():
    text = SPELLS.replace(" and cast[p] == 0 GUARD", "").replace(" RANK", "")
    _assert_replayed(_results(text)["one_spell_each"], "violation")


def test_a_phase_that_never_ends_is_caught():
    text = SPELLS.replace(" GUARD", "").replace(" RANK", "").replace(
        "when phase == struggle and p == turn and plays < 12 {\n  plays += 1", "when phase == struggle and p == turn {\n  skip")
    r = _results(text)
    assert r["struggle_ends"].status in ("violated", "bounded")
    assert r["struggle_ends"].status != "proved"


def test_an_undecided_point_is_proved_unreachable_or_reached():
    unreachable = SPELLS.replace(" GUARD", "").replace(" RANK", "").replace(
        "  plays += 1\n  turn := left(p)\n}\n/// Pass.",
        "  plays += 1\n  if cast[p] > 5 { undecided \"never\" cite \"Play\" \"p\" }\n  turn := left(p)\n}\n/// Pass.")
    r = _results(unreachable)
    gap = next(x for x in r.values() if x.kind == "undecided")
    assert gap.status == "unreachable"
    reachable = unreachable.replace("if cast[p] > 5", "if plays >= 2")
    gap = next(x for x in _results(reachable).values() if x.kind == "undecided")
    assert gap.status == "reachable" and gap.trace.outcome["kind"] == "gap"


STACK = """
game stack "Stack"
players 2..2 cite "P" "p"
enum Tile { t1, t2, t3, t4, t5, last }
var revealed: 0..6
var over: bool
zone pile_: pile of Tile
zone mix: pile of Tile
zone shown: pile of Tile
init cite "Setup" "the last tile among the bottom three" {
  pile_ := { t for t in Tile where t != last }
  shuffle pile_
  mix := [last]
  move 2 from bottom of pile_ to mix
  shuffle mix
  move all from mix to bottom of pile_
}
/// Reveal the next tile.
action reveal() cite "Play" "reveal" when not over {
  move 1 from pile_ to shown
  revealed += 1
  if top(shown) == last { over := true }
}
end done cite "End" "e": over
/// Every tile is in exactly one place.
invariant tiles_kept cite "Setup" "s": all(t in Tile: total(t) == 1)
/// The last tile lies among the bottom three while it is in the stack.
invariant last_low cite "Setup" "bottom" lemma: last in pile_ implies rank(pile_, last) <= 2 and size(pile_) + revealed == 6
/// The last tile is not revealed before the fourth reveal.
invariant late_end cite "Play" "late": over implies revealed >= 4
"""


def test_small_piles_are_followed_card_by_card():
    r = _results(STACK, players=2)
    assert r["late_end"].status == "proved", r["late_end"].message
    assert r["last_low"].status == "proved"


def test_an_order_the_prover_does_not_follow_gives_an_honest_answer():
    """A big pile (more cards than followed exactly) dealt unshuffled: the prover cannot know which
    card comes second, finds a counterexample the interpreter cannot replay, and says so."""
    text = """
game big "Big"
players 2..2 cite "P" "p"
card C { v: 1..20 }
var drawn: 0..20
zone deck: pile of C
zone hand: bag of C
init cite "S" "s" { deck := { C(v) for v in 1..20 } }
/// Draw.
action take() cite "P" "p" when drawn < 2 { draw 1 from deck to hand  drawn += 1 }
end e cite "E" "e": drawn == 2
/// The two highest come first (true: the deck is in order).
invariant highest_first cite "P" "p": drawn == 2 implies C(20) in hand and C(19) in hand
"""
    r = _results(text, players=2, games=5)["highest_first"]
    assert r.status in ("unknown", "bounded") and r.status != "proved"
    if r.status == "unknown":
        assert "spurious" in r.message


def test_verify_command_json_and_exit_codes(tmp_path):
    good = tmp_path / "good.rules"
    good.write_text(SPELLS.replace(" GUARD", "").replace(" RANK", ""))
    r = run_cli("verify", str(good), "--players", "2", "--depth", "2", "--games", "10", "--json")
    assert r.code == 0, r
    doc = json.loads(r.out)
    res = doc["specs"][0]["results"]
    assert {"property", "kind", "players", "status", "depth", "seconds", "cite", "expected_violation", "message",
            "trace"} <= set(res[0])
    bad = tmp_path / "bad.rules"
    bad.write_text(SPELLS.replace(" and cast[p] == 0 GUARD", "").replace(" RANK", ""))
    r = run_cli("verify", str(bad), "--players", "2", "--depth", "3", "--games", "10")
    assert r.code == 1 and "violated" in r.out and "one_spell_each" in r.out


def test_an_expected_violation_does_not_fail_verify(tmp_path):
    text = SPELLS.replace(" and cast[p] == 0 GUARD", "").replace(" RANK", "").replace(
        'invariant one_spell_each cite "Play" "one spell":',
        'invariant one_spell_each cite "Play" "one spell" expect violated "known":')
    path = tmp_path / "exp.rules"
    path.write_text(text)
    r = run_cli("verify", str(path), "--players", "2", "--depth", "3", "--games", "10")
    assert r.code == 0 and "[expected]" in r.out


@pytest.mark.slow
def test_the_mini_spec():
    r = _results(MINI, players=2, depth=3)
    assert r["conserved"].status == "proved"

"""Deliberately broken copies of the shipped specs, for the cross-checks between back-ends.

Each mutant is one text replacement in one spec: a move that duplicates a card, a guard that
lets a second move through, a phase that never ends, a payment made twice. tests/test_mutants.py
checks that fuzzing and Z3 (rulespec verify, its results cached in tests/data/verify/mutants.json
by tests/verify_cache.py) each catch every mutant, or names which does not and why.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Mutant:
    id: str            # spec stem / what
    spec: str          # path from the project root
    what: str
    old: str
    new: str
    players: int       # the player count both back-ends are run with
    depth: int         # Z3's bounded search depth for it

    def text(self) -> str:
        original = (ROOT / self.spec).read_text(encoding="utf-8")
        if original.count(self.old) != 1:
            raise ValueError(f"the mutant {self.id} no longer applies to {self.spec}")
        return original.replace(self.old, self.new)

    def digest(self) -> str:
        return hashlib.sha256(self.text().encode()).hexdigest()


LT, SR, TW = "examples/little_tricks/little_tricks.rules", "examples/spice_route/spice_route.rules", \
    "examples/tug_of_wands/tug_of_wands.rules"
WE, SW = "spec/wizard_extreme/de.rules", "spec/sieben_weisen/de.rules"

MUTANTS = [
    Mutant("little_tricks/duplicate_card", LT, "a played card also stays in the hand",
           "  move c from hand[p] to table[p]\n", "  table[p] += { c }\n", 3, 6),
    Mutant("little_tricks/play_out_of_turn", LT, "any player may play, not only the one whose turn it is",
           "when phase == playing and p == turn and c in hand[p]", "when phase == playing and c in hand[p]", 3, 6),
    Mutant("little_tricks/endless_rounds", LT, "the round count never advances: the game never ends",
           "    round += 1\n", "", 3, 6),
    Mutant("spice_route/sale_paid_twice", SR, "a sale pays 4 coins out of the bank, one merchant gets 2 of them",
           "      coins[p] += 2\n", "      coins[p] += 2\n      bank -= 2\n", 3, 6),
    Mutant("spice_route/second_pick", SR, "a merchant may pick a second card in the same turn",
           "when phase == choosing and not picked[p] and g in hand[p]", "when phase == choosing and g in hand[p]", 3, 6),
    Mutant("tug_of_wands/duplicate_wand", TW, "a played wand also stays in the hand",
           "  move c from hand[p] to played[p]\n", "  played[p] += { c }\n", 4, 6),
    Mutant("tug_of_wands/join_full_team", TW, "a full team can still be joined",
           "when phase == teams and p == turn and not full(s)", "when phase == teams and p == turn", 4, 6),
    Mutant("tug_of_wands/endless_game", TW, "the round after the last storm is never the final one",
           "  if last_storm_seen { final_round := true } else {", "  if last_storm_seen { } else {", 4, 6),
    Mutant("wizard_extreme/fifth_exchange", WE, "a seal may be exchanged more than four times",
           "when q != p and c in seals[q] and exchanges < 4", "when q != p and c in seals[q]", 4, 2),
    Mutant("wizard_extreme/seals_kept", WE, "the seals stay with the players after a round",
           "  for p in Player { move all from seals[p] to middle }\n", "", 4, 2),
    Mutant("sieben_weisen/second_spell", SW, "a second spell in the same power struggle",
           "not entschieden and not zauber_gespielt[p] and z in zauberhand[p]",
           "not entschieden and z in zauberhand[p]", 4, 2),
    Mutant("sieben_weisen/duplicate_card", SW, "a power card laid out also stays in the hand",
           "  move c from hand[p] to ausgelegt[p]\n", "  ausgelegt[p] += { c }\n", 4, 2),
    Mutant("sieben_weisen/endless_discard", SW, "the last exiter's discards are never counted down",
           "  noch_abwerfen -= 1\n", "", 4, 2),
]

"""Helpers the generated interpreter code calls: faults, gaps, and the operations that can fail.

A Fault is a spec's run-time error (a card moved from a zone that lacks it, a value outside its
range, a draw from an empty pile): the interpreter reports it with its span and trace, like a
violated property. A Gap is an `undecided` point reached.
"""

from __future__ import annotations

from operator import mul


class Fault(Exception):
    """A run-time error of the spec at SPANS[span_id]."""

    def __init__(self, span_id: int, message: str):
        super().__init__(message)
        self.span_id = span_id
        self.message = message


class Gap(Exception):
    """An `undecided` point was reached."""

    def __init__(self, undecided_id: int):
        super().__init__(undecided_id)
        self.id = undecided_id


def copy(value):
    """A deep copy of a mutable state value (lists of lists); immutable values are returned."""
    if type(value) is list:
        if value and type(value[0]) is list:
            return [copy(v) for v in value]
        return value[:]
    return value


def div(a, b, span):
    if b == 0:
        raise Fault(span, "division by zero")
    return a // b


def mod(a, b, span):
    if b == 0:
        raise Fault(span, "division by zero")
    return a % b


def at(seq, i, span):
    if not 0 <= i < len(seq):
        raise Fault(span, f"position {i} is outside 0..{len(seq) - 1}")
    return seq[i]


def ix(k, size, span, what="index"):
    """k as an index of a map or bag of `size` slots, or a fault (never Python's wrap-around)."""
    if not 0 <= k < size:
        raise Fault(span, f"{what} {k} is outside the keys (0..{size - 1})")
    return k


def rank(seq, x, span):
    try:
        return seq.index(x)
    except ValueError:
        raise Fault(span, "the value is not in the order") from None


def first(seq, span):
    if not seq:
        raise Fault(span, "first() of an empty sequence")
    return seq[0]


def last(seq, span):
    if not seq:
        raise Fault(span, "last() of an empty sequence")
    return seq[-1]


def top(pile, span):
    if not pile:
        raise Fault(span, "top() of an empty pile")
    return pile[-1]


def get(value, span):
    if value is None:
        raise Fault(span, "get() of none")
    return value


def the_bag(bag, span, lo=0):
    n = sum(bag)
    if n != 1:
        raise Fault(span, "the() of an empty zone" if n == 0 else f"the() expects exactly one card, found {n}")
    return bag.index(1) + lo


def the_seq(seq, span):
    if len(seq) != 1:
        raise Fault(span, f"the() expects exactly one value, found {len(seq)}")
    return next(iter(seq))


def least(values, span, what="min"):
    if not values:
        raise Fault(span, f"{what} over nothing: the domain is empty")
    return min(values)


def greatest(values, span, what="max"):
    if not values:
        raise Fault(span, f"{what} over nothing: the domain is empty")
    return max(values)


def argbest(candidates, key, span, best_is_max):
    """The first candidate (in domain order) with the greatest (or least) key."""
    if not candidates:
        raise Fault(span, f"{'argmax' if best_is_max else 'argmin'} over nothing: the domain is empty")
    if best_is_max:
        return max(candidates, key=key)
    return min(candidates, key=key)


def present(bag, lo=0):
    """The distinct values in a bag, in index order."""
    return [k + lo for k, n in enumerate(bag) if n]


def items(bag, lo=0):
    return [(k + lo, n) for k, n in enumerate(bag) if n]


def dot(table, bag, start=0, n=None):
    """The sum of table[k] * bag[k] over the indices start .. start + n - 1 (the whole bag when n is
    None): a sum over a bag's cards of a value looked up per card (a field of the record)."""
    if n is None:
        return sum(map(mul, table, bag))
    total = 0
    for k in range(start, start + n):
        if bag[k]:
            total += table[k] * bag[k]
    return total


def run(bag, start, n):
    """How many cards a bag holds at the indices start .. start + n - 1."""
    return sum(bag[start:start + n])


def expand(bag, lo=0):
    """Every card of a bag, duplicates included, in index order."""
    out = []
    for k, n in enumerate(bag):
        if n:
            out.extend([k + lo] * n)
    return out


def make_bag(size, pairs, span):
    bag = [0] * size
    for count, key in pairs:
        if count < 0:
            raise Fault(span, f"a negative number of cards ({count})")
        if not 0 <= key < size:
            raise Fault(span, "a value outside the bag's element type")
        bag[key] += count
    return bag


def make_set(lo, hi, items, span):
    """A set of the numbers lo..hi (or the players 0..hi) from values that may lie outside them."""
    out = frozenset(items)
    for x in out:
        if not lo <= x <= hi:
            raise Fault(span, f"a value outside the set's element type ({x})")
    return out


def check_values(values, lo, hi, span):
    """A copy of a map's values (a list, by key) stored where each must lie in lo..hi."""
    for x in values:
        if not lo <= x <= hi:
            raise Fault(span, f"a value outside {lo}..{hi} ({x})")
    return list(values)


def bag_add(a, b):
    return [x + y for x, y in zip(a, b)]


def bag_sub(a, b):
    return [x - y if x > y else 0 for x, y in zip(a, b)]


def as_bag(pile, size, lo=0):
    bag = [0] * size
    for c in pile:
        bag[c - lo] += 1
    return bag


def as_pile(bag, lo=0):
    return expand(bag, lo)


def remove_from_pile(pile, card, from_top, span, what):
    if from_top:
        for i in range(len(pile) - 1, -1, -1):
            if pile[i] == card:
                del pile[i]
                return
    else:
        for i, c in enumerate(pile):
            if c == card:
                del pile[i]
                return
    raise Fault(span, f"{what} is not there")


def take_bag(src, bag, span, what):
    for k, n in enumerate(bag):
        if n and src[k] < n:
            raise Fault(span, f"{what}: the zone holds only {src[k]} of a card, {n} asked")
    for k, n in enumerate(bag):
        if n:
            src[k] -= n


def check_order(seq, values, span):
    """`seq` as an order of `values` (sorted): each value exactly once."""
    if sorted(seq) != list(values):
        raise Fault(span, f"not an order of all {len(values)} values: each must appear exactly once")
    return tuple(seq)


# ---- forced chance: replaying a prover's counterexample ------------------------------------

class Spurious(Exception):
    """A prover's trace asks for a chance outcome no real shuffle can give (the pile's order is known)."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class ForcedChance:
    """Chance outcomes taken from a list of events instead of a random generator.

    A shuffled pile keeps an unknown-order region [lo, hi): positions no one has seen. An event
    fixes a position (the new top after a draw, a shuffle, a refill or a removal; the bottom card
    before a draw from the bottom) to the card the event names, by choosing it within the region;
    a position outside the region is known, and the event must name the card that is there.
    Events are consumed in the order the generated code meets them, the same order as the prover's.
    """

    def __init__(self, events, exact: set | None = None):
        self.events = list(events)   # (kind, zone, value); a draw: ("draw", zone, (cards, final top, last))
        self.exact = exact or set()  # piles the prover follows card by card: their shuffles give whole orders
        self.pos = 0
        self.regions: dict[int, list[int]] = {}
        self.batch = None            # the draw in progress: cards still to come, final top, card to come last

    def _next(self, kind: str, zone: str):
        if self.pos >= len(self.events):
            raise Spurious(f"the trace gives no chance outcome for the {kind} card of {zone}")
        ekind, ezone, value = self.events[self.pos]
        if ekind != kind:
            raise Spurious(f"the trace's chance outcomes do not follow the rules' order: expected the {kind} card "
                           f"of {zone}, found the {ekind} card of {ezone}")
        self.pos += 1
        return value

    def _region(self, pile):
        r = self.regions.get(id(pile))
        if r is None or r[1] > len(pile) or r[0] > r[1]:
            r = [0, 0]
            self.regions[id(pile)] = r
        return r

    def _fix(self, pile, position: int, value, kind: str, zone: str):
        lo, hi = self._region(pile)
        if lo <= position < hi:
            for j in range(lo, hi):
                if pile[j] == value:
                    pile[j], pile[position] = pile[position], pile[j]
                    break
            else:
                raise Spurious(f"the trace puts a card on {'top' if kind == 'top' else 'the bottom'} of {zone} "
                               "that the shuffled cards do not hold")
            r = self.regions[id(pile)]
            if position == hi - 1:
                r[1] -= 1
            else:
                r[0] += 1
        elif pile[position] != value:
            raise Spurious(f"the trace needs a different {kind} card of {zone}, but that pile's order is known "
                           "(it was not shuffled since)")

    def _is_exact(self, zone: str) -> bool:
        return zone.split("[", 1)[0] in self.exact

    def _order(self, pile, zone: str):
        order = self._next("order", zone)
        if sorted(order) != sorted(pile):
            raise Spurious(f"the trace's order of {zone} is not an arrangement of the cards it holds")
        pile[:] = order

    def top_event(self, pile, zone: str):
        if self._is_exact(zone):
            return
        if pile:
            self._fix(pile, len(pile) - 1, self._next("top", zone), "top", zone)

    def shuffle(self, pile, zone: str = "a pile"):
        if self._is_exact(zone):
            if pile:
                self._order(pile, zone)
            return
        self.regions[id(pile)] = [0, len(pile)]
        self.top_event(pile, zone)

    def refilled(self, pile, shuffled: bool, zone: str):
        if self._is_exact(zone):
            if shuffled and pile:
                self._order(pile, zone)
            return
        self.regions[id(pile)] = [0, len(pile)] if shuffled else [0, 0]
        if self.batch is None:
            self.top_event(pile, zone)

    # a draw of n cards: the prover gives the multiset drawn, not the order, so the order is chosen
    # here among the unknown cards, keeping the card that must come last for the end
    def draw_begin(self, pile, zone: str):
        if self._is_exact(zone):
            return
        cards, final_top, last = self._next("draw", zone)
        self.batch = {"left": list(cards), "top": final_top, "last": last, "zone": zone, "popped": []}

    def _choose(self, pile, position: int, kind: str):
        b = self.batch
        left = b["left"]
        if not left:
            raise Spurious(f"the rules draw more cards from {b['zone']} than the trace does")
        lo, hi = self._region(pile)
        last = b["last"]
        if lo <= position < hi:
            unknown = pile[lo:hi]
            options = [c for c in left if c in unknown]
            keep = [c for c in options if not (c == last and left.count(last) == 1 and len(left) > 1)]
            if not (keep or options):
                raise Spurious(f"the trace draws cards from {b['zone']} that are not among its shuffled cards")
            self._fix(pile, position, (keep or options)[0], kind, b["zone"])
        card = pile[position]
        if card not in left:
            raise Spurious(f"the trace does not draw the card on the {kind} of {b['zone']}, whose order is known")
        left.remove(card)
        b["popped"].append(card)

    def pop_top(self, pile, zone: str):
        if self._is_exact(zone):
            return pile.pop()
        if self.batch is None:
            card = pile.pop()
            r = self._region(pile)
            r[1] = min(r[1], len(pile))
            self.top_event(pile, zone)
            return card
        self._choose(pile, len(pile) - 1, "top")
        card = pile.pop()
        r = self._region(pile)
        r[1] = min(r[1], len(pile))
        return card

    def pop_bottom(self, pile, zone: str):
        if self._is_exact(zone):
            return pile.pop(0)
        if self.batch is None:
            self._fix(pile, 0, self._next("bottom", zone), "bottom", zone)
        else:
            self._choose(pile, 0, "bottom")
        card = pile.pop(0)
        r = self._region(pile)
        r[0], r[1] = max(r[0] - 1, 0), max(r[1] - 1, 0)
        return card

    def draw_end(self, pile, zone: str):
        if self._is_exact(zone):
            return
        b, self.batch = self.batch, None
        if b["left"]:
            raise Spurious(f"the trace draws more cards from {zone} than the rules do")
        if pile and b["top"] is not None and b["popped"]:
            self._fix(pile, len(pile) - 1, b["top"], "top", zone)

    def insert_bottom(self, pile, cards):
        pile[0:0] = cards
        r = self._region(pile)
        if r[1] > r[0]:
            r[0] += len(cards)
            r[1] += len(cards)

    def clear(self, pile):
        pile.clear()
        self.regions.pop(id(pile), None)

    def remove(self, pile, card, from_top: bool, span, what):
        """Take one copy of a card out of a pile: the topmost known copy, else one from the unknown region."""
        lo, hi = self._region(pile)
        order = list(range(len(pile) - 1, hi - 1, -1)) + list(range(hi - 1, lo - 1, -1)) + list(range(lo - 1, -1, -1)) \
            if from_top else list(range(0, lo)) + list(range(lo, hi)) + list(range(hi, len(pile)))
        for i in order:
            if pile[i] == card:
                del pile[i]
                r = self.regions.get(id(pile))
                if r is not None:
                    if i < r[0]:
                        r[0] -= 1
                        r[1] -= 1
                    elif i < r[1]:
                        r[1] -= 1
                return
        raise Fault(span, f"{what} is not there")

    @property
    def unused(self) -> int:
        return len(self.events) - self.pos

"""Helpers the generated interpreter code calls: faults, gaps, and the operations that can fail.

A Fault is a spec's run-time error (a card moved from a zone that lacks it, a value outside its
range, a draw from an empty pile): the interpreter reports it with its span and trace, like a
violated property. A Gap is an `undecided` point reached.
"""

from __future__ import annotations


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

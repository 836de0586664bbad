"""The types of the rules language and their finite domains, shared by the checker, IR and back-ends.

Values at run time (the interpreter's representation, also used for IR constants):
bool -> bool; int -> int; enum -> index of the value; Player -> seat 0..n-1;
record/card -> kind index (mixed radix over its fields); T? -> None or the value;
set -> frozenset; order/list -> tuple; tuple -> tuple; map -> list indexed by key index;
bag -> list of counts indexed by element index; pile -> list of elements, top last.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from itertools import permutations


class Type:
    finite = False

    def __str__(self) -> str:  # pragma: no cover - every subclass overrides
        return type(self).__name__


@dataclass(frozen=True)
class BoolT(Type):
    finite = True

    def __str__(self):
        return "bool"


@dataclass(frozen=True)
class IntT(Type):
    lo: int | None = None
    hi: int | None = None

    @property
    def finite(self):
        return self.lo is not None and self.hi is not None

    def __str__(self):
        return "int" if not self.finite else f"{self.lo}..{self.hi}"

    @property
    def default(self) -> int:
        """The value an integer of this type starts at where the spec gives none (the interpreter
        and the prover alike): 0, or the end of its range nearest 0."""
        if self.lo is not None and self.lo > 0:
            return self.lo
        if self.hi is not None and self.hi < 0:
            return self.hi
        return 0


@dataclass(frozen=True)
class StrT(Type):
    def __str__(self):
        return "string"


@dataclass(frozen=True)
class NoneT(Type):
    """The type of the `none` literal: fits any optional type."""

    def __str__(self):
        return "none"


@dataclass(frozen=True)
class EnumT(Type):
    name: str
    values: tuple[str, ...]
    base: "EnumT | None" = None  # `enum B extends A { extra }`: B's base is A
    finite = True

    def __str__(self):
        return self.name

    def includes(self, other: "EnumT") -> bool:
        """True when every value of `other` is a value of self (other is self or extended by it)."""
        t = self
        while t is not None:
            if t.name == other.name:
                return True
            t = t.base
        return False


@dataclass(frozen=True)
class PlayerT(Type):
    finite = True

    def __str__(self):
        return "Player"


@dataclass(frozen=True)
class RecordT(Type):
    name: str
    fields: tuple[tuple[str, Type], ...]
    card: bool = False

    @property
    def finite(self):
        return all(t.finite for _n, t in self.fields)

    def __str__(self):
        return self.name

    def field_type(self, name: str) -> Type | None:
        for n, t in self.fields:
            if n == name:
                return t
        return None


@dataclass(frozen=True)
class MapT(Type):
    key: Type
    value: Type

    def __str__(self):
        return f"map {self.key} -> {self.value}"


@dataclass(frozen=True)
class SetT(Type):
    elem: Type

    @property
    def finite(self):
        return self.elem is not None and indexable(self.elem)

    def __str__(self):
        return f"set of {self.elem}"


@dataclass(frozen=True)
class OrderT(Type):
    """A total order of all values of a finite type (a permutation), e.g. a printed hierarchy."""

    elem: Type

    @property
    def finite(self):
        return self.elem is not None and indexable(self.elem)

    def __str__(self):
        return f"order of {self.elem}"


@dataclass(frozen=True)
class ListT(Type):
    """The type of a `[a, b, c]` literal: fits an order, a pile or a sequence to iterate."""

    elem: Type

    def __str__(self):
        return f"list of {self.elem}"


@dataclass(frozen=True)
class BagT(Type):
    elem: Type

    def __str__(self):
        return f"bag of {self.elem}"


@dataclass(frozen=True)
class PileT(Type):
    elem: Type

    def __str__(self):
        return f"pile of {self.elem}"


@dataclass(frozen=True)
class OptT(Type):
    inner: Type

    def __str__(self):
        return f"{self.inner}?"


@dataclass(frozen=True)
class TupleT(Type):
    elems: tuple[Type, ...]

    def __str__(self):
        return "(" + ", ".join(map(str, self.elems)) + ")"


@dataclass(frozen=True)
class RangeT(Type):
    """The type of an `a..b` expression used as a domain."""

    def __str__(self):
        return "range"


BOOL = BoolT()
INT = IntT()
PLAYER = PlayerT()
STR = StrT()
NONE = NoneT()


# ---- relations ---------------------------------------------------------------------------

def indexable(t: Type) -> bool:
    """Types whose values index maps and bags: bool, bounded ints, enums, Player, records."""
    return isinstance(t, (BoolT, EnumT, PlayerT)) or (isinstance(t, IntT) and t.finite) or (
        isinstance(t, RecordT) and all(indexable(ft) for _n, ft in t.fields))


def is_numeric(t: Type) -> bool:
    return isinstance(t, (IntT, PlayerT))


def assignable(src: Type, dst: Type) -> bool:
    """Whether a value of type `src` may be stored where `dst` is expected (ranges checked at run time)."""
    if src == dst:
        return True
    if isinstance(dst, (IntT, PlayerT)) and is_numeric(src):
        return True
    if isinstance(dst, EnumT) and isinstance(src, EnumT):
        return dst.includes(src)
    if isinstance(dst, OptT):
        return isinstance(src, NoneT) or assignable(src, dst.inner) or (
            isinstance(src, OptT) and assignable(src.inner, dst.inner))
    if isinstance(dst, (OrderT, PileT)) and isinstance(src, ListT):
        return src.elem is None or assignable(src.elem, dst.elem)
    if isinstance(dst, PileT) and isinstance(src, (BagT, PileT)):
        return src.elem is None or same_elements(src.elem, dst.elem)
    if isinstance(dst, BagT) and isinstance(src, (BagT, PileT)):
        return src.elem is None or same_elements(src.elem, dst.elem)
    if isinstance(dst, SetT) and isinstance(src, SetT):
        return src.elem is None or assignable(src.elem, dst.elem)
    if isinstance(dst, MapT) and isinstance(src, MapT):
        return src.key == dst.key and assignable(src.value, dst.value)
    if isinstance(dst, TupleT) and isinstance(src, TupleT):
        return len(src.elems) == len(dst.elems) and all(map(assignable, src.elems, dst.elems))
    return False


def fits(src: Type, dst: Type) -> bool:
    """Whether every value of type `src` is one of `dst` (no run-time range check needed): a
    player as a player, a finite range within another."""
    if isinstance(dst, PlayerT) and isinstance(src, PlayerT):
        return True
    return isinstance(dst, IntT) and isinstance(src, IntT) and src.finite and dst.finite and \
        dst.lo <= src.lo and src.hi <= dst.hi


def same_elements(a: Type, b: Type) -> bool:
    """Zones exchange cards only when they hold the same type (a bag of an enum's extension has
    more slots than a bag of the enum)."""
    return a == b


def comparable(a: Type, b: Type) -> bool:
    """Whether `a == b` is meaningful."""
    if is_numeric(a) and is_numeric(b):
        return True
    if isinstance(a, OptT) or isinstance(b, OptT) or isinstance(a, NoneT) or isinstance(b, NoneT):
        ia = a.inner if isinstance(a, OptT) else a
        ib = b.inner if isinstance(b, OptT) else b
        return isinstance(ia, NoneT) or isinstance(ib, NoneT) or comparable(ia, ib)
    return assignable(a, b) or assignable(b, a)


def join(a: Type, b: Type) -> Type | None:
    """The common type of the branches of an if-expression, or None."""
    if a == b:
        return a
    if is_numeric(a) and is_numeric(b):
        if isinstance(a, PlayerT) and isinstance(b, PlayerT):
            return PLAYER
        return INT
    if isinstance(a, NoneT):
        return b if isinstance(b, OptT) else OptT(b)
    if isinstance(b, NoneT):
        return a if isinstance(a, OptT) else OptT(a)
    if assignable(a, b):
        return b
    if assignable(b, a):
        return a
    return None


# ---- finite domains ----------------------------------------------------------------------

@dataclass
class Domains:
    """Enumerates the values of finite types for one player count."""

    players: int
    # record_layout's answers, by the record type's identity (the type is kept, so its id stays its own)
    layouts: dict = field(default_factory=dict, repr=False, compare=False)

    def size(self, t: Type) -> int:
        if isinstance(t, BoolT):
            return 2
        if isinstance(t, IntT):
            return t.hi - t.lo + 1
        if isinstance(t, EnumT):
            return len(t.values)
        if isinstance(t, PlayerT):
            return self.players
        if isinstance(t, RecordT):
            n = 1
            for _name, ft in t.fields:
                n *= self.size(ft)
            return n
        if isinstance(t, OptT):
            return self.size(t.inner) + 1
        raise TypeError(f"{t} is not a finite domain")

    def values(self, t: Type) -> list:
        """Every value of `t` in its index order (index i holds the value with index i)."""
        if isinstance(t, BoolT):
            return [False, True]
        if isinstance(t, IntT):
            return list(range(t.lo, t.hi + 1))
        if isinstance(t, (EnumT, RecordT, PlayerT)):
            return list(range(self.size(t)))
        if isinstance(t, OptT):
            return [None] + self.values(t.inner)
        if isinstance(t, SetT):
            elems = self.values(t.elem)
            return [frozenset(x for i, x in enumerate(elems) if mask >> i & 1) for mask in range(1 << len(elems))]
        if isinstance(t, OrderT):
            return [tuple(p) for p in permutations(self.values(t.elem))]
        raise TypeError(f"{t} is not a finite domain")

    def index(self, t: Type, value) -> int:
        """The position of `value` in values(t); maps and bags are indexed by it."""
        if isinstance(t, BoolT):
            return int(value)
        if isinstance(t, IntT):
            return value - t.lo
        if isinstance(t, OptT):
            return 0 if value is None else 1 + self.index(t.inner, value)
        return value


def record_layout(t: RecordT, domains: Domains) -> tuple[list[int], list[int]]:
    """Sizes and strides of a record's fields: kind = sum(index(field_i) * stride_i)."""
    known = domains.layouts.get(id(t))
    if known is not None and known[0] is t:
        return known[1]
    sizes = [domains.size(ft) for _n, ft in t.fields]
    strides = [1] * len(sizes)
    for i in range(len(sizes) - 2, -1, -1):
        strides[i] = strides[i + 1] * sizes[i + 1]
    domains.layouts[id(t)] = (t, (sizes, strides))
    return sizes, strides


def record_fields(t: RecordT, kind: int, domains: Domains) -> list:
    """The field values of record kind `kind`."""
    sizes, strides = record_layout(t, domains)
    out = []
    for (_name, ft), size, stride in zip(t.fields, sizes, strides):
        i = kind // stride % size
        out.append(domains.values(ft)[i])
    return out


def record_kind(t: RecordT, values: list, domains: Domains) -> int:
    sizes, strides = record_layout(t, domains)
    return sum(domains.index(ft, v) * s for (_n, ft), v, s in zip(t.fields, values, strides))


def format_value(t: Type, value, domains: Domains) -> str:
    """A value as it would be written in a spec, e.g. `Card(hearts, 3)`, `{2 of Card(bells, 1)}`."""
    if value is None:
        return "none"
    if isinstance(t, OptT):
        return format_value(t.inner, value, domains)
    if isinstance(t, BoolT):
        return "true" if value else "false"
    if isinstance(t, EnumT):
        return t.values[value] if 0 <= value < len(t.values) else f"<{t.name} {value}>"
    if isinstance(t, PlayerT):
        return f"P{value}"
    if isinstance(t, RecordT):
        fields = record_fields(t, value, domains)
        return f"{t.name}(" + ", ".join(format_value(ft, v, domains) for (_n, ft), v in zip(t.fields, fields)) + ")"
    if isinstance(t, BagT):
        parts = []
        for kind, n in enumerate(value):
            if n:
                shown = format_value(t.elem, domains.values(t.elem)[kind], domains)
                parts.append(shown if n == 1 else f"{n} of {shown}")
        return "{" + ", ".join(parts) + "}"
    if isinstance(t, (PileT, OrderT, ListT)):
        return "[" + ", ".join(format_value(t.elem, v, domains) for v in value) + "]"
    if isinstance(t, SetT):
        return "{" + ", ".join(format_value(t.elem, v, domains) for v in sorted(value, key=lambda v: domains.index(t.elem, v))) + "}"
    if isinstance(t, MapT):
        keys = domains.values(t.key)
        return "{" + ", ".join(f"{format_value(t.key, k, domains)}: {format_value(t.value, v, domains)}"
                               for k, v in zip(keys, value)) + "}"
    if isinstance(t, TupleT):
        return "(" + ", ".join(format_value(et, v, domains) for et, v in zip(t.elems, value)) + ")"
    return str(value)

"""The column types of the metric history: numbers (`NumColumn`), interned strings
(`StrColumn`), the numeric checks' values (`NumericColumn`), as arrays or as views of
history.bin's bytes (see metrics.binary). A year of a 1,000-skill fleet is 365,000 samples:
building a `Sample` for each costs more than the rest of the nightly run, so samples are held
as columns and built only when asked for (docs/metrics.md, "How it is read back").
"""

from __future__ import annotations

import math
import re
from array import array
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from datetime import date
from itertools import accumulate
from typing import Any, TypeAlias

from aeon_evals.model import Status

STATUSES: tuple[Status, ...] = tuple(Status)
_CODE = {s: i for i, s in enumerate(STATUSES)}
_CODE_OR_NONE: dict[Status | None, int] = {None: -1, **{s: i for s, i in _CODE.items()}}
_STATUS_OF_CODE: dict[int, Status | None] = {code: s for s, code in _CODE_OR_NONE.items()}
KINDS = ("run", "article", "skill-health")
_KIND = {k: i for i, k in enumerate(KINDS)}
NONE_INT = -(2**63)  # None in an int64 column
NONE_I32 = -(2**31)  # None in an int32 column
_NONE = {"q": NONE_INT, "i": NONE_I32}
_NAN = float("nan")  # None in a float64 column (a column holding a real NaN is kept as JSON)
INT64 = (-(2**63) + 1, 2**63 - 1)
INT32 = (-(2**31) + 1, 2**31 - 1)

# An int column: an array, or a read-only view of history.bin's bytes cast to the item type.
Ints: TypeAlias = "array[int] | memoryview"
Bytes: TypeAlias = "bytes | memoryview"  # a string table's bytes: its own, or a view of the file's

_ALL_NONE = {
    "i": array("i", [NONE_I32]).tobytes(),
    "q": array("q", [NONE_INT]).tobytes(),
    "d": array("d", [_NAN]).tobytes(),
}


def _array(code: str, data: Any) -> Any:
    """`data` (an array, or a view of history.bin's bytes cast to `code`) as an array."""
    if isinstance(data, array):
        return data
    out = array(code)
    out.frombytes(data.cast("B"))
    return out


# A source: (path relative to the root, "run" | "article", day ordinal, inode, size, mtime_ns).
Source = tuple[str, str, int, int, int, int, int]  # rel, kind, day, inode, size, mtime, ctime


# --------------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------------
# Columns


class NumColumn:
    """Numbers or None: int32 or int64 (NONE_I32, NONE_INT for None), float64 (NaN for None), or
    a plain list when the values do not fit exactly (a NaN read from a file, an int read as a
    float …)."""

    __slots__ = ("data", "kind")

    def __init__(self, kind: str, data: Any) -> None:
        self.kind = kind  # "i", "q", "d" or "j"
        self.data = data

    @classmethod
    def of(cls, values: Sequence[Any], numeric: type) -> NumColumn:
        """The most compact column that gives back exactly `values` (int or float, or None)."""
        types = set(map(type, values))
        types.discard(type(None))
        present = [v for v in values if v is not None]
        if numeric is int and types <= {int}:
            low, high = (min(present), max(present)) if present else (0, 0)
            if INT32[0] <= low and high <= INT32[1]:
                return cls("i", array("i", [NONE_I32 if v is None else v for v in values]))
            if INT64[0] <= low and high <= INT64[1]:
                return cls("q", array("q", [NONE_INT if v is None else v for v in values]))
        if numeric is float and types <= {float} and not any(map(math.isnan, present)):
            return cls("d", array("d", [_NAN if v is None else v for v in values]))
        return cls("j", list(values))

    @classmethod
    def one(cls, value: Any, numeric: type) -> NumColumn:
        """`of([value], numeric)`, quickly (a run's sample joined to a skill's columns)."""
        if value is None:
            return cls.none("i" if numeric is int else "d", 1)
        kind = type(value)
        if numeric is int and kind is int:
            if INT32[0] <= value <= INT32[1]:
                return cls("i", array("i", (value,)))
            if INT64[0] <= value <= INT64[1]:
                return cls("q", array("q", (value,)))
        elif numeric is float and kind is float and value == value:
            return cls("d", array("d", (value,)))
        return cls("j", [value])

    def __len__(self) -> int:
        return len(self.data)

    def get(self, i: int) -> Any:
        value = self.data[i]
        kind = self.kind
        if kind == "d":
            return None if value != value else value
        if kind != "j":
            return None if value == _NONE[kind] else value
        return value

    def values(self, lo: int = 0, hi: int | None = None) -> list[Any]:
        """The values of samples lo…hi-1 (every one by default), None where there is none."""
        kind = self.kind
        if kind == "j":
            return list(self.data[lo:hi])
        data = self.data[lo:hi].tolist()  # (a list is walked faster than a view or an array)
        if kind == "d":
            # no NaN (None) among them unless their sum is one: most columns have no gap
            total = sum(data)
            return data if total == total else [None if v != v else v for v in data]
        none = _NONE[kind]
        return [None if v == none else v for v in data] if none in data else data

    def head(self, n: int) -> NumColumn:
        return NumColumn(self.kind, self.data[:n])

    def plus(self, other: NumColumn, numeric: type) -> NumColumn:
        kind = self.kind
        if kind == other.kind:
            if kind == "j":
                return NumColumn(kind, self.data + other.data)
            return NumColumn(kind, _array(kind, self.data) + _array(kind, other.data))
        if other.empty() and kind != "j":  # no value: any array kind takes it
            return NumColumn(kind, _array(kind, self.data) + NumColumn.none(kind, len(other)).data)
        if self.empty() and other.kind != "j":
            return NumColumn(
                other.kind,
                NumColumn.none(other.kind, len(self)).data + _array(other.kind, other.data),
            )
        return NumColumn.of([*self.values(), *other.values()], numeric)

    def empty(self) -> bool:
        """No sample has a value."""
        if self.kind == "j":
            return all(v is None for v in self.data)
        return bool(self.data.tobytes() == _ALL_NONE[self.kind] * len(self.data))

    @staticmethod
    def none(kind: str, n: int) -> NumColumn:
        """A column of `n` samples without a value."""
        return NumColumn(kind, array(kind, [_NAN if kind == "d" else _NONE[kind]]) * n)


class StrColumn:
    """Strings or None, interned: the distinct strings' UTF-8 bytes end to end, where each ends,
    and per sample the index of its string (-1: None). Strings are decoded when first read.
    `hex32`: every string is 64 lowercase hex digits (a SHA-256), kept as its 32 bytes.
    `unique`: the table is known to hold each string once (made by `of`, or joined by `plus`
    from two such tables without a string in common; kept in the cache file), so `firsts` is
    known without comparing the table's strings (a skill page's outputs, each night)."""

    __slots__ = ("_ascii", "_first", "_memo", "ends", "hex32", "index", "text")

    def __init__(
        self, text: Bytes, ends: Ints, index: Ints, *, hex32: bool = False, unique: bool = False
    ) -> None:
        self.text, self.ends, self.index, self.hex32 = text, ends, index, hex32
        self._memo: dict[int, str] = {}
        self._ascii: str | None = None  # the text when it is ASCII ("" when it is not)
        # each table entry's first equal entry (empty: each string is in the table once)
        self._first: list[int] | None = [] if unique else None

    @property
    def unique(self) -> bool:
        """Whether the table is known to hold each string once."""
        return self._first == []

    @classmethod
    def of(cls, values: Iterable[str | None]) -> StrColumn:
        every = list(values)
        at: dict[str, int] = {}
        for value in dict.fromkeys([v for v in every if v is not None]):
            at[value] = len(at)
        index = array("i", [-1 if v is None else at[v] for v in every])
        joined = "".join(at)
        if at and set(map(len, at)) == {64} and _HEX.fullmatch(joined):
            return cls(bytes.fromhex(joined), array("q"), index, hex32=True, unique=True)
        if joined.isascii():
            ends = array("q", accumulate(map(len, at)))
            return cls(joined.encode("ascii"), ends, index, unique=True)
        raws = [v.encode("utf-8", "surrogatepass") for v in at]
        return cls(b"".join(raws), array("q", accumulate(map(len, raws))), index, unique=True)

    @classmethod
    def one(cls, value: str | None) -> StrColumn:
        """`of([value])`, quickly (a run's sample joined to a skill's columns)."""
        if value is None:
            return cls(b"", array("q"), array("i", (-1,)), unique=True)
        if len(value) == 64 and _HEX.fullmatch(value):
            return cls(bytes.fromhex(value), array("q"), array("i", (0,)), hex32=True, unique=True)
        raw = value.encode("ascii") if value.isascii() else value.encode("utf-8", "surrogatepass")
        return cls(raw, array("q", (len(raw),)), array("i", (0,)), unique=True)

    def __len__(self) -> int:
        return len(self.index)

    def count(self) -> int:
        """How many distinct strings the table holds."""
        return len(self.text) // 32 if self.hex32 else len(self.ends)

    def entry(self, at: int) -> str:
        found = self._memo.get(at)
        if found is None:
            if self.hex32:
                found = self.text[32 * at : 32 * at + 32].hex()
            else:
                start = self.ends[at - 1] if at else 0
                found = str(self.text[start : self.ends[at]], "utf-8", "surrogatepass")
            self._memo[at] = found
        return found

    def get(self, i: int) -> str | None:
        at = self.index[i]
        return None if at < 0 else self.entry(at)

    def keys(self) -> list[int]:
        """Each sample's string as a number, equal exactly where the strings are equal (-1:
        None), read from the index and the table's bytes without decoding a string: the table
        of two columns joined by `plus` can hold a string twice."""
        first = self.firsts()
        if not first:
            return self.index.tolist()
        return [at if at < 0 else first[at] for at in self.index]

    def firsts(self) -> list[int]:
        """For each table entry, the first entry with the same bytes (empty when no string is
        in the table twice); worked out once."""
        first = self._first
        if first is None:
            raw = bytes(self.text)
            if self.hex32:
                starts: Iterable[int] = range(0, len(raw), 32)
                ends: Iterable[int] = range(32, len(raw) + 32, 32)
            else:
                ends = self.ends.tolist()
                starts = [0, *ends]  # (one more than the ends: map stops at the shorter)
            entries = list(map(raw.__getitem__, map(slice, starts, ends)))
            if len(set(entries)) == len(entries):  # the usual table, each string once
                self._first = first = []
                return first
            # each entry → its first index: the later (higher) ones are overwritten
            at_first = dict(zip(reversed(entries), range(len(entries) - 1, -1, -1), strict=True))
            self._first = first = list(map(at_first.__getitem__, entries))
        return first

    def values(self, lo: int = 0, hi: int | None = None) -> list[str | None]:
        """The strings of samples lo…hi-1 (every one by default)."""
        index = self.index[lo:hi].tolist()
        raw = self.text
        if self.hex32:
            raw = bytes(raw)  # (a view's slices cost more than a copy of 32 bytes a sample)
            return [None if at < 0 else raw[32 * at : 32 * at + 32].hex() for at in index]
        ends = self.ends
        if self._ascii is None and 4 * len(index) < len(ends):
            # a few samples of many strings (drift's tail): the bytes from the first of their
            # strings to the last decoded, not kept (a year of a fleet's paths is megabytes)
            first = min(index, default=0)
            if first < 0:  # (-1: no string)
                first = min((at for at in index if at >= 0), default=0)
            base = ends[first - 1] if first else 0
            span = bytes(raw[base : ends[max(max(index, default=0), 0)]])
            if span.isascii():
                part = span.decode("ascii")
                return [
                    None if at < 0 else part[(ends[at - 1] if at else 0) - base : ends[at] - base]
                    for at in index
                ]
            entry = self.entry
            return [None if at < 0 else entry(at) for at in index]
        if self._ascii is None:
            whole = bytes(raw)
            self._ascii = whole.decode("ascii") if whole.isascii() else ""
        text = self._ascii
        if not text:
            entry = self.entry
            return [None if at < 0 else entry(at) for at in index]
        # ASCII: byte offsets are character offsets, so slices of the text decoded once
        return [None if at < 0 else text[ends[at - 1] if at else 0 : ends[at]] for at in index]

    def head(self, n: int) -> StrColumn:
        # the same table
        return StrColumn(self.text, self.ends, self.index[:n], hex32=self.hex32, unique=self.unique)

    def plus(self, other: StrColumn) -> StrColumn:
        index = _array("i", self.index)
        if not other.count():  # no string at all: any table takes it
            joined = index + _array("i", other.index)
            return StrColumn(self.text, self.ends, joined, hex32=self.hex32, unique=self.unique)
        if not self.count():
            joined = index + _array("i", other.index)
            return StrColumn(other.text, other.ends, joined, hex32=other.hex32, unique=other.unique)
        if self.hex32 != other.hex32:
            return StrColumn.of([*self.values(), *other.values()])
        base = self.count()
        index = index + array("i", [-1 if at < 0 else at + base for at in other.index])
        raw = bytes(self.text)
        size = len(raw)
        ends = _array("q", self.ends) + array("q", [e + size for e in other.ends])
        at = self._found_in(raw, other) if self.unique and other.unique else None
        joined = StrColumn(raw + bytes(other.text), ends, index, hex32=self.hex32)
        if at is not None:
            if max(at, default=-1) < 0:
                joined._first = []  # no string in common: each string is in the table once
            else:  # (a run that evaluated an output seen before: its entry is a repeat)
                repeats = [k if k >= 0 else base + j for j, k in enumerate(at)]
                joined._first = [*range(base), *repeats]
        return joined

    def _found_in(self, raw: bytes, other: StrColumn) -> list[int] | None:
        """Where each of `other`'s strings is in this table (its bytes `raw`; -1: not in it);
        None when that is not worked out cheaply (an empty string, more than a few strings)."""
        if other.count() > _FEW:
            return None
        if self.hex32:
            theirs = bytes(other.text)
            return [_finds(raw, theirs[at : at + 32], 32) for at in range(0, len(theirs), 32)]
        ends = self.ends
        start = 0
        found: list[int] = []
        for end in other.ends:
            entry = bytes(other.text[start:end])
            start = end
            if not entry:
                return None
            pos = raw.find(entry)
            while pos >= 0:
                k = bisect_right(ends, pos)  # the string `pos` is in: it starts there, and ends
                if (ends[k - 1] if k else 0) == pos and ends[k] == pos + len(entry):
                    break
                pos = raw.find(entry, pos + 1)
            found.append(k if pos >= 0 else -1)
        return found


_HEX = re.compile("[0-9a-f]*")  # SHA-256s end to end
_FEW = 4  # a table joined with at most this many strings is checked for them (StrColumn.plus)


def _finds(raw: bytes, entry: bytes, width: int) -> int:
    """Which of the `width`-byte strings `raw` holds end to end is `entry` (-1: none)."""
    pos = raw.find(entry)
    while pos >= 0:
        if pos % width == 0:
            return pos // width
        pos = raw.find(entry, pos + 1)
    return -1


Numeric = tuple[tuple[str, float], ...]


class NumericColumn:
    """Each sample's numeric checks ((label, value) pairs): a table of the distinct ones and
    per sample its index in it."""

    __slots__ = ("_by_label", "_labels", "index", "table")

    def __init__(self, table: list[Numeric], index: Ints) -> None:
        self.table, self.index = table, index
        self._by_label: dict[str, list[float | None]] = {}
        self._labels: set[str] | None = None

    @classmethod
    def of(cls, values: Iterable[Numeric], table: list[Numeric] | None = None) -> NumericColumn:
        every = list(values)
        table = list(table or [])
        at = {entry: i for i, entry in enumerate(table)}
        for value in dict.fromkeys(every):
            if value not in at:
                at[value] = len(table)
                table.append(value)
        return cls(table, array("i", map(at.__getitem__, every)))

    def __len__(self) -> int:
        return len(self.index)

    def get(self, i: int) -> Numeric:
        return self.table[self.index[i]]

    def label(self, metric: str) -> list[float | None]:
        """The value of the numeric check `metric` in each table entry (None: not there)."""
        found = self._by_label.get(metric)
        if found is None:
            found = self._by_label[metric] = [
                next((v for k, v in entry if k == metric), None) for entry in self.table
            ]
        return found

    def labels(self) -> set[str]:
        """Every label some entry has."""
        if self._labels is None:
            self._labels = {label for entry in self.table for label, _ in entry}
        return self._labels

    def head(self, n: int) -> NumericColumn:
        return NumericColumn(self.table, self.index[:n])

    def plus(self, other: NumericColumn) -> NumericColumn:
        both = NumericColumn.of([other.table[at] for at in other.index], self.table)
        return NumericColumn(both.table, _array("i", self.index) + both.index)


class _Dates(dict[int, date]):
    """Each day ordinal's date, made when first asked for: a fleet's skills share their runs'
    days, and a page reads each skill's (a dict lookup costs half of date.fromordinal)."""

    def __missing__(self, ordinal: int) -> date:
        day = self[ordinal] = date.fromordinal(ordinal)
        return day


_DATES = _Dates()

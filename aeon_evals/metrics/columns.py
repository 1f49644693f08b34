"""The metric history as columns per skill, and its cache `.aeon-evals/cache/history.bin`.

A year of a 1,000-skill fleet is 365,000 samples. Building a `Sample` for each, or decoding a
JSON row for each, costs more than the rest of the nightly run, and the run needs only the last
few dozen points per metric. So each skill's samples are held as columns (`SkillColumns`:
arrays of day ordinals, status codes, words, …, and interned strings), Samples are built only
when asked for, and the columns are kept in one binary file, appended to run by run
(docs/metrics.md, "How it is read back").

The file: `AEHIST01`, the header's length (8 bytes, little-endian), a JSON header (version,
code fingerprint, the sources the history was built from with their stamps, the CRC-32 of the
columns' bytes, and per skill where each column's bytes are), then the columns' bytes. Reading
it is JSON and views of the file's bytes cast to each column's item type (`memoryview.cast`: the
columns are not copied; a column is made an array when it is joined with another): no code is
loaded from it (no pickle, no marshal), every offset, code and index is checked, and a file
that is damaged, truncated or of another version or code is ignored (the history is then read
from the files). Nothing in it is needed for correctness: delete it any time.
"""

from __future__ import annotations

import json
import math
import re
import zlib
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import date
from itertools import accumulate
from typing import Any, TypeAlias, overload

from aeon_evals.cache.folder import Cache, Entry
from aeon_evals.metrics.file import AGE, BYTES, QUALITY, WORDS, Sample
from aeon_evals.model import Status

CACHE_NAME = "history.bin"
# 4: statuses and kinds stored by name in the header; no per-article cache stamp
ENTRY = Entry("history", 4)
MAGIC = b"AEHIST01"
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


class SkillColumns:
    """One skill's samples, oldest first, as columns. The fast accessors (`days`, `statuses`,
    `causes`, `outputs`, `shas`, `value`, `sample`) read one column without building Samples;
    `samples()` builds them all. Never changed once built (`plus` and `head` make new ones)."""

    __slots__ = (
        "_days",
        "ages",
        "bytes",
        "causes_col",
        "day_ords",
        "kinds",
        "numeric",
        "outputs_col",
        "qualities",
        "shas_col",
        "sources",
        "status_codes",
        "words",
    )

    def __init__(
        self,
        day_ords: Ints,
        status_codes: Ints,
        words: NumColumn,
        bytes_: NumColumn,
        ages: NumColumn,
        qualities: NumColumn,
        outputs: StrColumn,
        shas: StrColumn,
        causes: StrColumn,
        numeric: NumericColumn,
        kinds: Ints,
        sources: Ints,
    ) -> None:
        self.day_ords, self.status_codes = day_ords, status_codes
        self.words, self.bytes, self.ages, self.qualities = words, bytes_, ages, qualities
        self.outputs_col, self.shas_col, self.causes_col = outputs, shas, causes
        self.numeric, self.kinds, self.sources = numeric, kinds, sources
        self._days: list[date] | None = None  # each sample's day, once read (a page reads two)

    @classmethod
    def of(cls, samples: Sequence[Sample], sources: Sequence[int] | None = None) -> SkillColumns:
        """The columns of `samples`; `sources`: each one's index in the cache's source list."""
        if len(samples) == 1:  # a run's sample joined to a skill's columns (_then)
            return _one_sample(samples[0], -1 if sources is None else sources[0])
        if not samples:
            fields: list[Sequence[Any]] = [()] * len(Sample._fields)
        else:
            fields = list(zip(*samples, strict=True))  # one tuple per field
        day, status, words, size, age, quality, output, sha, cause, numeric, kind = fields
        return cls(
            array("i", map(date.toordinal, day)),
            array("b", map(_CODE_OR_NONE.__getitem__, status)),
            NumColumn.of(words, int),
            NumColumn.of(size, int),
            NumColumn.of(age, float),
            NumColumn.of(quality, float),
            StrColumn.of(output),
            StrColumn.of(sha),
            StrColumn.of(cause),
            NumericColumn.of(numeric),
            array("b", [_KIND.get(k, -1) for k in kind]),
            array("i", sources if sources is not None else [-1] * len(samples)),
        )

    def __len__(self) -> int:
        return len(self.day_ords)

    # -- the fast accessors

    def days(self) -> list[date]:
        """Each sample's day."""
        if self._days is None:
            self._days = list(map(_DATES.__getitem__, self.day_ords))
        return list(self._days)  # (a copy: the caller's to change)

    def day(self, i: int) -> date:
        return date.fromordinal(self.day_ords[i])

    def statuses(self) -> list[Status | None]:
        """Each sample's status (None: not recorded)."""
        return list(map(_STATUS_OF_CODE.__getitem__, self.status_codes))

    def causes(self) -> list[str]:
        """Each sample's root cause ("" when clean)."""
        col = self.causes_col
        if len(col.index) and min(col.index) < -1:  # (any negative index is no cause)
            return [c or "" for c in col.values()]
        # a few distinct causes over many runs: each looked up in the table, -1 (none) last
        table = [col.entry(at) for at in range(col.count())]
        table.append("")
        return list(map(table.__getitem__, col.index))

    def outputs(self) -> list[str | None]:
        """Each sample's output path."""
        return self.outputs_col.values()

    def shas(self) -> list[str | None]:
        """Each sample's output SHA-256."""
        return self.shas_col.values()

    def column(self, metric: str) -> NumColumn | None:
        """The column of a built-in metric (words, bytes, age_days, quality), else None."""
        if metric == WORDS:
            return self.words
        if metric == BYTES:
            return self.bytes
        if metric == AGE:
            return self.ages
        if metric == QUALITY:
            return self.qualities
        return None

    def values(self, metric: str, lo: int = 0, hi: int | None = None) -> list[Any]:
        """Each sample's raw value of `metric` (a built-in or a numeric check's label) or None,
        of samples lo…hi-1 (every one by default): words and bytes as int, as in a Sample."""
        col = self.column(metric)
        if col is not None:
            return col.values(lo, hi)
        by_entry = self.numeric.label(metric)
        return [by_entry[at] for at in self.numeric.index[lo:hi].tolist()]

    def newest_outputs(self, count: int) -> list[int]:
        """The samples of the newest `count` distinct (output, SHA-256) pairs, newest first
        (each pair at its newest sample; samples without an output skipped), read from the
        newest sample back only as far as needed (each string table compared once: firsts)."""
        out_at, sha_at = self.outputs_col.index, self.shas_col.index
        out_first, sha_first = self.outputs_col.firsts(), self.shas_col.firsts()
        n = len(out_at)
        lo = max(n - count, 0)
        if not out_first and count > 0 and n:
            newest = out_at[lo:n]
            if min(newest) >= 0 and len(set(newest)) == n - lo:
                # the newest runs each evaluated another output (each string once in the table):
                # their pairs are distinct, the newest `count` of them
                return list(range(n - 1, lo - 1, -1))
        seen: set[tuple[int, int]] = set()
        found: list[int] = []
        for i in range(n - 1, -1, -1):
            if len(found) >= count:
                break
            output, sha = out_at[i], sha_at[i]
            if output < 0:
                continue
            pair = (
                out_first[output] if out_first else output,
                sha_first[sha] if sha_first and sha >= 0 else sha,
            )
            if pair not in seen:
                seen.add(pair)
                found.append(i)
        return found

    def sample(self, i: int) -> Sample:
        """The i-th sample, built."""
        code = self.status_codes[i]
        kind = self.kinds[i]
        return Sample(
            date.fromordinal(self.day_ords[i]),
            None if code < 0 else STATUSES[code],
            self.words.get(i),
            self.bytes.get(i),
            self.ages.get(i),
            self.qualities.get(i),
            self.outputs_col.get(i),
            self.shas_col.get(i),
            self.causes_col.get(i) or "",
            self.numeric.get(i),
            KINDS[kind] if kind >= 0 else "run",
        )

    def samples(self) -> list[Sample]:
        """Every sample, built, oldest first."""
        days = [date.fromordinal(d) for d in self.day_ords]
        statuses = self.statuses()
        kinds = [KINDS[k] if k >= 0 else "run" for k in self.kinds]
        numeric = self.numeric
        table = numeric.table
        return [
            Sample(*fields)
            for fields in zip(
                days,
                statuses,
                self.words.values(),
                self.bytes.values(),
                self.ages.values(),
                self.qualities.values(),
                self.outputs_col.values(),
                self.shas_col.values(),
                self.causes(),
                [table[at] for at in numeric.index],
                kinds,
                strict=True,
            )
        ]

    # -- new columns from these

    def head(self, n: int) -> SkillColumns:
        """The first `n` samples."""
        if n >= len(self):
            return self
        return SkillColumns(
            self.day_ords[:n],
            self.status_codes[:n],
            self.words.head(n),
            self.bytes.head(n),
            self.ages.head(n),
            self.qualities.head(n),
            self.outputs_col.head(n),
            self.shas_col.head(n),
            self.causes_col.head(n),
            self.numeric.head(n),
            self.kinds[:n],
            self.sources[:n],
        )

    def before_source(self, count: int) -> SkillColumns:
        """The samples read from the first `count` sources (their indices are ascending)."""
        return self.head(bisect_left(self.sources, count))

    def plus(self, other: SkillColumns) -> SkillColumns:
        """These samples, then `other`'s."""
        if not len(other):
            return self
        if not len(self):
            return other
        return SkillColumns(
            _array("i", self.day_ords) + _array("i", other.day_ords),
            _array("b", self.status_codes) + _array("b", other.status_codes),
            self.words.plus(other.words, int),
            self.bytes.plus(other.bytes, int),
            self.ages.plus(other.ages, float),
            self.qualities.plus(other.qualities, float),
            self.outputs_col.plus(other.outputs_col),
            self.shas_col.plus(other.shas_col),
            self.causes_col.plus(other.causes_col),
            self.numeric.plus(other.numeric),
            _array("b", self.kinds) + _array("b", other.kinds),
            _array("i", self.sources) + _array("i", other.sources),
        )


EMPTY = SkillColumns.of([])


def _one_sample(sample: Sample, source: int) -> SkillColumns:
    """`SkillColumns.of([sample], [source])`, quickly: the column kinds `of` picks for one."""
    day, status, words, size, age, quality, output, sha, cause, numeric, kind = sample
    return SkillColumns(
        array("i", (day.toordinal(),)),
        array("b", (_CODE_OR_NONE[status],)),
        NumColumn.one(words, int),
        NumColumn.one(size, int),
        NumColumn.one(age, float),
        NumColumn.one(quality, float),
        StrColumn.one(output),
        StrColumn.one(sha),
        StrColumn.one(cause),
        NumericColumn([numeric], array("i", (0,))),
        array("b", (_KIND.get(kind, -1),)),
        array("i", (source,)),
    )


class Samples(Sequence[Sample]):
    """One skill's samples, oldest first, built from its columns: one by one when indexed
    (`samples[-1]` builds one Sample), all at once (and kept) when iterated or sliced."""

    __slots__ = ("_all", "cols")

    def __init__(self, cols: SkillColumns) -> None:
        self.cols = cols
        self._all: list[Sample] | None = None

    def built(self) -> list[Sample]:
        """Every sample, built once."""
        if self._all is None:
            self._all = self.cols.samples()
        return self._all

    def __len__(self) -> int:
        return len(self.cols)

    @overload
    def __getitem__(self, i: int) -> Sample: ...
    @overload
    def __getitem__(self, i: slice) -> list[Sample]: ...
    def __getitem__(self, i: int | slice) -> Sample | list[Sample]:
        if isinstance(i, slice):
            return self.built()[i]
        if self._all is not None:
            return self._all[i]
        n = len(self.cols)
        if not -n <= i < n:
            raise IndexError("sample index out of range")
        return self.cols.sample(i % n)

    def __iter__(self) -> Iterator[Sample]:
        return iter(self.built())

    def __reversed__(self) -> Iterator[Sample]:
        return reversed(self.built())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence) and not isinstance(other, str):
            return self.built() == list(other)
        return NotImplemented

    def __hash__(self) -> int:  # a sequence that compares equal to a list: not hashable
        raise TypeError("unhashable type: 'Samples'")

    def __repr__(self) -> str:
        return repr(self.built())


class SampleMap(Mapping[str, Sequence[Sample]]):
    """skill → its samples, oldest first (`Samples`, built from the columns when read; the
    last skill's are kept, so a page that reads them twice builds them once); `columns(skill)`
    gives the columns without building a Sample."""

    def __init__(
        self,
        columns: Mapping[str, SkillColumns | None],
        lists: Mapping[str, list[Sample]] | None = None,
        pending: Mapping[str, tuple[SampleMap, Sample]] | None = None,
    ) -> None:
        self._columns = dict(columns)
        self._lists: dict[str, list[Sample]] = dict(lists or {})
        # skill → (the map whose samples it extends, the sample added): joined when read, and
        # only the last one joined is kept (a page reads one skill at a time: the joined columns
        # of every skill would be a second copy of the history)
        self._pending: dict[str, tuple[SampleMap, Sample]] = dict(pending or {})
        self._joined: tuple[str, SkillColumns] | None = None
        self._last: tuple[str, Samples] | None = None

    @classmethod
    def of_samples(cls, samples: Mapping[str, Sequence[Sample]]) -> SampleMap:
        """A map of Samples already built (their columns are built when first asked for)."""
        return cls(dict.fromkeys(samples), {k: list(v) for k, v in samples.items()})

    def __getitem__(self, skill: str) -> Sequence[Sample]:
        found = self._lists.get(skill)
        if found is not None:
            return found
        if self._last is not None and self._last[0] == skill:
            return self._last[1]
        if skill not in self._columns:
            raise KeyError(skill)  # as a dict
        samples = Samples(self.columns(skill))
        self._last = (skill, samples)
        return samples

    def __iter__(self) -> Iterator[str]:
        return iter(self._columns)

    def __len__(self) -> int:
        return len(self._columns)

    def __contains__(self, skill: object) -> bool:
        return skill in self._columns

    def columns(self, skill: str) -> SkillColumns:
        """The columns of `skill` (empty for a skill without samples)."""
        if skill not in self._columns:
            return EMPTY
        cols = self._columns[skill]
        if cols is not None:
            return cols
        pending = self._pending.get(skill)
        if pending is None:
            cols = self._columns[skill] = SkillColumns.of(self._lists[skill])
            return cols
        if self._joined is not None and self._joined[0] == skill:
            return self._joined[1]
        cols = _then(pending[0].columns(skill), pending[1])
        self._joined = (skill, cols)
        return cols

    def last(self, skill: str) -> Sample | None:
        """The newest sample of `skill` (None: it has none), without joining its columns: a
        skill with a sample added (`with_samples`) has that one last."""
        pending = self._pending.get(skill)
        if pending is not None:
            return pending[1]
        cols = self.columns(skill)
        return cols.sample(len(cols) - 1) if len(cols) else None

    def with_samples(self, samples: Mapping[str, Sample]) -> SampleMap:
        """This map with each sample of `samples` (skill → sample) added last to its skill's,
        after the skill's samples of earlier days only (those of that day or later are left
        out). Nothing is joined here: a skill's columns are when it is first read."""
        columns = {**self._columns, **dict.fromkeys(samples)}
        lists = {k: v for k, v in self._lists.items() if k not in samples}
        pending = {k: v for k, v in self._pending.items() if k not in samples}
        pending.update((skill, (self, sample)) for skill, sample in samples.items())
        return SampleMap(columns, lists, pending)

    def all_columns(self) -> dict[str, SkillColumns]:
        return {skill: self.columns(skill) for skill in self._columns}


def _then(cols: SkillColumns, sample: Sample) -> SkillColumns:
    """`cols`' samples of days before `sample`'s, then `sample`."""
    if len(cols) and max(cols.day_ords) >= sample.day.toordinal():
        cols = SkillColumns.of([s for s in cols.samples() if s.day < sample.day])
    return cols.plus(SkillColumns.of([sample]))


# --------------------------------------------------------------------------------------------
# The file


class CacheError(ValueError):
    """A cache file that cannot be used (damaged, another version or code): never reported."""


def _encode_num(col: NumColumn, parts: list[Bytes], size: list[int]) -> list[Any]:
    if col.kind == "j":
        return ["j", _put(json.dumps(col.data).encode(), parts, size)]
    raw = col.data.tobytes()
    if raw == _ALL_NONE[col.kind] * len(col.data):
        return ["none"]  # a column with no value (bytes and age of backfilled articles): no bytes
    return [col.kind, _put(raw, parts, size)]


_ALL_NONE = {
    "i": array("i", [NONE_I32]).tobytes(),
    "q": array("q", [NONE_INT]).tobytes(),
    "d": array("d", [_NAN]).tobytes(),
}


def _encode_index(index: Ints, parts: list[Bytes], size: list[int]) -> list[int] | None:
    """A string column's index, or None when every sample has no string."""
    raw = index.tobytes()
    if raw == _NO_INDEX * len(index):
        return None
    return _put(raw, parts, size)


_NO_INDEX = array("i", [-1]).tobytes()


def _put(raw: Bytes, parts: list[Bytes], size: list[int]) -> list[int]:
    at = size[0]
    parts.append(raw)
    size[0] += len(raw)
    return [at, len(raw)]


def _encode(cols: SkillColumns, parts: list[Bytes], size: list[int]) -> list[Any]:
    put = _put
    return [
        len(cols),
        put(cols.day_ords.tobytes(), parts, size),
        put(cols.status_codes.tobytes(), parts, size),
        *[_encode_num(c, parts, size) for c in (cols.words, cols.bytes, cols.ages, cols.qualities)],
        *[
            [
                put(c.text, parts, size),
                None if c.hex32 else put(c.ends.tobytes(), parts, size),
                _encode_index(c.index, parts, size),
                c.unique,
            ]
            for c in (cols.outputs_col, cols.shas_col, cols.causes_col)
        ],
        [
            put(json.dumps(cols.numeric.table).encode(), parts, size),
            put(cols.numeric.index.tobytes(), parts, size),
        ],
        put(cols.kinds.tobytes(), parts, size),
        put(cols.sources.tobytes(), parts, size),
    ]


class _Reader:
    def __init__(
        self, blob: memoryview, status_map: bytes | None = None, kind_map: bytes | None = None
    ) -> None:
        self.blob = blob
        self.status_map, self.kind_map = status_map, kind_map  # _code_map's tables, or None

    def codes(self, where: Any, n: int, table: bytes | None) -> Any:
        """An int8 column, its codes translated by `table` (written by code of another order)."""
        view = self.arr("b", where, n)
        if table is None:
            return view
        out = array("b")
        out.frombytes(view.tobytes().translate(table))
        return out

    def raw(self, where: Any) -> memoryview:
        at, length = where
        if not (isinstance(at, int) and isinstance(length, int)) or at < 0 or length < 0:
            raise CacheError("bad offset")
        view = self.blob[at : at + length]
        if len(view) != length:
            raise CacheError("truncated")
        return view

    def arr(self, code: str, where: Any, n: int) -> Any:
        """The file's bytes at `where` as `n` items of type `code` (a view: not copied)."""
        view: Any = self.raw(where)
        out = view.cast(code)  # (a TypeError when not a whole number of items)
        if len(out) != n:
            raise CacheError("column length")
        return out

    def num(self, spec: Any, n: int) -> NumColumn:
        if spec == ["none"]:
            return NumColumn.none("i", n)
        kind, where = spec
        if kind in ("i", "q", "d"):
            return NumColumn(kind, self.arr(kind, where, n))
        if kind != "j":
            raise CacheError("column kind")
        data = json.loads(bytes(self.raw(where)))
        if not isinstance(data, list) or len(data) != n:
            raise CacheError("column length")
        return NumColumn("j", data)

    def strings(self, spec: Any, n: int) -> StrColumn:
        text, ends, index, unique = spec
        raw = self.raw(text)
        at = array("i", [-1]) * n if index is None else self.arr("i", index, n)
        col = StrColumn(
            raw,
            array("q") if ends is None else self.raw(ends).cast("q"),
            at,
            hex32=ends is None,
            unique=unique is True,
        )
        if ends is None:
            if len(raw) % 32:
                raise CacheError("string column")
        elif (col.ends[-1] if len(col.ends) else 0) != len(raw):
            raise CacheError("string column")
        # (a negative index is no string: it never indexes the table)
        if col.index and max(col.index) >= col.count():
            raise CacheError("string column")
        return col

    def numeric(self, spec: Any, n: int) -> NumericColumn:
        table_at, index_at = spec
        table = json.loads(bytes(self.raw(table_at)))
        if not isinstance(table, list):
            raise CacheError("numeric table")
        entries = [tuple((str(k), v) for k, v in entry) for entry in table]
        index = self.arr("i", index_at, n)
        if index and (max(index) >= len(entries) or min(index) < 0):
            raise CacheError("numeric index")
        return NumericColumn(entries, index)

    def columns(self, spec: Any) -> SkillColumns:
        n, days, status, words, size, age, quality, out, sha, cause, numeric, kinds, src = spec
        if not isinstance(n, int) or n < 0:
            raise CacheError("length")
        codes = self.codes(status, n, self.status_map)
        if codes.tobytes().translate(None, _STATUS_BYTES):  # a byte that is no code
            raise CacheError("status code")
        kind_codes = self.codes(kinds, n, self.kind_map)
        if kind_codes.tobytes().translate(None, _KIND_BYTES):
            raise CacheError("kind code")
        cols = SkillColumns(
            self.arr("i", days, n),
            codes,
            self.num(words, n),
            self.num(size, n),
            self.num(age, n),
            self.num(quality, n),
            self.strings(out, n),
            self.strings(sha, n),
            self.strings(cause, n),
            self.numeric(numeric, n),
            kind_codes,
            self.arr("i", src, n),
        )
        if cols.day_ords and min(cols.day_ords) < 1:
            raise CacheError("day")
        return cols


_STATUS_BYTES = array("b", range(-1, len(STATUSES))).tobytes()  # the valid codes, as bytes
_KIND_BYTES = array("b", range(-1, len(KINDS))).tobytes()


class Cached:
    """What the cache file holds: the sources (in reading order), the warning each gave (or
    None), and every skill's columns in the order the skills first appeared."""

    def __init__(
        self,
        sources: list[Source],
        warnings: list[str | None],
        columns: dict[str, SkillColumns],
        digests: list[str | None] | None = None,
        encoded: tuple[list[Any], memoryview, int] | None = None,
    ) -> None:
        self.sources, self.warnings, self.columns = sources, warnings, columns
        # each source's content digest (None: unreadable then): a file whose stamp moved (a
        # fresh checkout, a restored cache) but whose bytes did not is the same
        self.digests: list[str | None] = digests if digests is not None else [None] * len(sources)
        # the columns as the file read held them (skills' specs, bytes, CRC-32): a history whose
        # only change is its stamps is written again without encoding a column
        self.encoded = encoded

    def before_source(self, count: int) -> Cached:
        """The history of the first `count` sources only."""
        columns = {}
        for skill, cols in self.columns.items():
            kept = cols.before_source(count)
            if len(kept):
                columns[skill] = kept
        return Cached(
            self.sources[:count],
            self.warnings[:count],
            columns,
            self.digests[:count],
        )

    def restamped(self, sources: list[Source]) -> Cached:
        """The same history with the sources' stamps of tonight."""
        return Cached(sources, self.warnings, self.columns, self.digests, self.encoded)


def read_cache(cache: Cache) -> Cached | None:
    """The history `cache` holds, or None when there is none or it cannot be used (damaged,
    nested too deep, of other code or format)."""
    data = cache.read(CACHE_NAME)
    if data is None:
        return None
    try:
        return _decode(data, ENTRY.key())
    except (
        CacheError,
        ValueError,
        TypeError,
        KeyError,
        IndexError,
        OverflowError,
        RecursionError,
        MemoryError,
    ):
        return None


def _decode(data: bytes, code: str) -> Cached:
    if data[: len(MAGIC)] != MAGIC:
        raise CacheError("not a history cache")
    length = int.from_bytes(data[len(MAGIC) : len(MAGIC) + 8], "little")
    start = len(MAGIC) + 8
    header = json.loads(data[start : start + length])
    if not isinstance(header, dict) or header.get("version") != ENTRY.version:
        raise CacheError("version")
    if header.get("code") != code:
        raise CacheError("another code")
    # statuses and kinds by name: codes of another order are translated, an unknown name is a miss
    status_map = _code_map(header.get("statuses"), [s.value for s in STATUSES])
    kind_map = _code_map(header.get("kinds"), list(KINDS))
    sources: list[Source] = []
    warnings: list[str | None] = []
    digests: list[str | None] = []
    for rel, kind, day, ino, size, mtime, ctime, warning, digest in header["sources"]:
        if not (isinstance(rel, str) and kind in ("run", "article")):
            raise CacheError("source")
        if not all(isinstance(v, int) for v in (day, ino, size, mtime, ctime)):
            raise CacheError("source")
        if warning is not None and not isinstance(warning, str):
            raise CacheError("source")
        if digest is not None and not isinstance(digest, str):
            raise CacheError("source")
        sources.append((rel, kind, day, ino, size, mtime, ctime))
        warnings.append(warning)
        digests.append(digest)
    blob = memoryview(data)[start + length :]
    if header.get("crc32") != zlib.crc32(blob):
        raise CacheError("damaged")  # a flipped bit in a value is found here, not by the checks
    reader = _Reader(blob, status_map, kind_map)
    columns: dict[str, SkillColumns] = {}
    specs = header["skills"]
    for skill, spec in specs:
        if not isinstance(skill, str):
            raise CacheError("skill")
        columns[skill] = reader.columns(spec)
    if status_map is not None or kind_map is not None:  # other codes: encoded again when written
        return Cached(sources, warnings, columns, digests)
    encoded = (specs, blob, header["crc32"])
    return Cached(sources, warnings, columns, digests, encoded)


def _code_map(names: Any, current: list[str]) -> bytes | None:
    """A `bytes.translate` table from the codes of a file whose enum names are `names` to this
    code's (`current`); None when they are the same; CacheError when a name is unknown."""
    if names == current:
        return None
    if not (isinstance(names, list) and all(isinstance(n, str) for n in names)):
        raise CacheError("codes")
    if any(n not in current for n in names) or len(names) > 127:
        raise CacheError("codes")
    table = bytearray(range(256))
    for old, name in enumerate(names):
        table[old] = current.index(name)
    return bytes(table)


def write_cache(cache: Cache, cached: Cached) -> None:
    """Store the history in `cache` (written at the end of the run). The columns' bytes `cached`
    was read with are written as they were (`Cached.encoded`)."""
    parts: list[Bytes] = []
    if cached.encoded is not None:
        skills, blob, crc = cached.encoded
        parts.append(blob)
    else:
        size = [0]
        skills = [[skill, _encode(cols, parts, size)] for skill, cols in cached.columns.items()]
        crc = 0
        for part in parts:
            crc = zlib.crc32(part, crc)
    header = json.dumps(
        {
            "version": ENTRY.version,
            "code": ENTRY.key(),
            "statuses": [s.value for s in STATUSES],
            "kinds": list(KINDS),
            "sources": [
                [*source, warning, digest]
                for source, warning, digest in zip(
                    cached.sources, cached.warnings, cached.digests, strict=True
                )
            ],
            "skills": skills,
            "crc32": crc,
        },
        separators=(",", ":"),
    ).encode()
    cache.put(CACHE_NAME, b"".join([MAGIC, len(header).to_bytes(8, "little"), header, *parts]))

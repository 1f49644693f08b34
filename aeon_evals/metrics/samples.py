"""One skill's samples as columns (`SkillColumns`), and the samples of every skill as a
mapping that builds `Sample`s only when asked for (`SampleMap`).
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Iterator, Mapping, Sequence
from datetime import date
from typing import Any, overload

from aeon_evals.metrics.columns import (
    _CODE_OR_NONE,
    _DATES,
    _KIND,
    _STATUS_OF_CODE,
    KINDS,
    STATUSES,
    Ints,
    NumColumn,
    NumericColumn,
    StrColumn,
    _array,
)
from aeon_evals.metrics.file import AGE, BYTES, QUALITY, WORDS, Sample
from aeon_evals.model import Status


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
        "runs_col",
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
        runs: StrColumn,
    ) -> None:
        self.day_ords, self.status_codes = day_ords, status_codes
        self.words, self.bytes, self.ages, self.qualities = words, bytes_, ages, qualities
        self.outputs_col, self.shas_col, self.causes_col = outputs, shas, causes
        self.numeric, self.kinds, self.sources, self.runs_col = numeric, kinds, sources, runs
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
        day, status, words, size, age, quality, output, sha, cause, numeric, kind, run = fields
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
            StrColumn.of([r or None for r in run]),
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

    def runs(self) -> list[str]:
        """What each sample's newest run reported (`error:X_ERROR`; "" not read)."""
        return [r or "" for r in self.runs_col.values()]

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
            self.runs_col.get(i) or "",
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
                self.runs(),
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
            self.runs_col.head(n),
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
            self.runs_col.plus(other.runs_col),
        )


EMPTY = SkillColumns.of([])


def _one_sample(sample: Sample, source: int) -> SkillColumns:
    """`SkillColumns.of([sample], [source])`, quickly: the column kinds `of` picks for one."""
    day, status, words, size, age, quality, output, sha, cause, numeric, kind, run = sample
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
        StrColumn.one(run or None),
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

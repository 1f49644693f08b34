"""Each run's per-skill metrics as a history, with drift applied (the history is read by
metrics.read).

One file per run, `<articles>/skill-evals-metrics-YYYY-MM-DD.tsv` (docs/metrics.md, metrics.file).
`History` holds every skill's samples and skill-health scores and gives each metric's series;
`with_drift` turns the drift detector's steps into causes and notes.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from operator import is_not, ne
from typing import TYPE_CHECKING, Any, cast

from aeon_evals.metrics.file import (
    AGE,
    BYTES,
    COLUMNS,
    QUALITY,
    SCORE,
    WORDS,
    MetricsError,
    Sample,
    metrics_rel,
    parse_tsv,
    render_tsv,
    sample_of,
    samples_of_article,
    write_run,
)
from aeon_evals.metrics.samples import SampleMap, SkillColumns
from aeon_evals.model import Cause, DriftMode, SkillResult, Spec, Status, drift, worst

# What the rest of the package and the tests read as `metrics.X`: the file format's names too.
__all__ = [
    "AGE",
    "BYTES",
    "COLUMNS",
    "QUALITY",
    "SCORE",
    "WORDS",
    "History",
    "MetricsError",
    "Sample",
    "metrics_rel",
    "parse_tsv",
    "render_tsv",
    "samples_of_article",
    "with_drift",
    "write_run",
]

# 2: keyed by the package fingerprint (a parser change rebuilds what the articles said)


# The built-in metrics (names in metrics_file); every numeric check adds one named by its label.
BUILTIN = (WORDS, BYTES, AGE, QUALITY, SCORE)
DIRECTIONS = {
    WORDS: drift.Direction.HIGHER_BETTER,
    BYTES: drift.Direction.HIGHER_BETTER,
    QUALITY: drift.Direction.HIGHER_BETTER,
    SCORE: drift.Direction.HIGHER_BETTER,
    AGE: drift.Direction.LOWER_BETTER,
}
# bytes follow words (one flag is enough); age follows the schedule's phase and STALE covers it
DEFAULT_MODES = {WORDS: DriftMode.WARN, BYTES: DriftMode.OFF, AGE: DriftMode.OFF}

if TYPE_CHECKING:
    pass


_PER_RUN = (QUALITY, AGE)  # metrics of the run, not of the output: every run is a point


@dataclass(frozen=True)
class History:
    """Every skill's samples, oldest first, and each skill's skill-health scores by date.

    `samples` is a mapping skill → list of Samples; a history read by `load_history` holds
    each skill's samples as columns (samples_mod.SkillColumns) and builds the Samples of a
    skill only when they are read. `columns(skill)` gives the columns themselves: days,
    statuses, causes, outputs … without building a Sample (what the skill pages need)."""

    samples: Mapping[str, Sequence[Sample]] = field(default_factory=dict)
    scores: Mapping[str, Sequence[tuple[date, float]]] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.samples, SampleMap):
            object.__setattr__(self, "samples", SampleMap.of_samples(self.samples))

    def columns(self, skill: str) -> SkillColumns:
        """`skill`'s samples as columns, oldest first (empty when it has none). Fast accessors,
        none of which builds a Sample: `days()`, `statuses()`, `causes()`, `outputs()`,
        `shas()`, `values(metric)` (raw values, None where there is none), `sample(i)`,
        `len()`."""
        return cast(SampleMap, self.samples).columns(skill)

    def last(self, skill: str) -> Sample | None:
        """`skill`'s newest sample (None: it has none), without joining the columns of a
        skill whose run was added by `with_run` (the badges need only that)."""
        return cast(SampleMap, self.samples).last(skill)

    def series(
        self,
        skill: str,
        metric: str,
        latest: Sample | None = None,
        *,
        last: int | None = None,
        memo: dict[Any, Any] | None = None,
    ) -> list[tuple[date, float]]:
        """(day, value) of `metric` for `skill`, oldest first; runs without a value skipped.

        A metric of the output (words, bytes, a numeric check) counts each output once: a run
        that evaluated the same file as the run before (same path, and same SHA-256 when both
        are known) measured nothing new, and an old article's re-estimate of an unchanged file
        is no step of the skill. `latest`: this run's sample, taken after the history.
        `last`: only the newest `last` points (the same ones the whole series ends with), read
        without walking the whole history. `memo`: a dict kept by the caller across the series
        of one skill and `latest` (the days, outputs and SHA-256s of the runs read are read
        once for all of them)."""
        if metric == SCORE:
            scores = list(self.scores.get(skill, ()))
            return scores[-last:] if last is not None and last > 0 else scores
        cols = self.columns(skill)
        return _series(cols, metric, latest, metric not in _PER_RUN, last, memo)

    def every_series(self, skill: str, names: Sequence[str]) -> list[list[tuple[date, float]]]:
        """`series(skill, metric)` of each metric in `names` (the whole series, no `latest`),
        for the price of about one: the output and SHA-256 columns are read once for the skill,
        as numbers (StrColumn.keys), and the runs the per-output rule keeps are worked out once
        for every metric whose runs with a value are the same."""
        cols = self.columns(skill)
        found: list[list[tuple[date, float]]] = []
        keys: tuple[list[int], list[int]] | None = None
        # the runs with a value (None: every run) → the runs kept of them
        kept_by_present: dict[tuple[int, ...] | None, Sequence[int]] = {}
        days: list[date] | None = None
        for metric in names:
            if metric == SCORE:
                found.append(list(self.scores.get(skill, ())))
                continue
            if not len(cols) or (
                cols.column(metric) is None and metric not in cols.numeric.labels()
            ):
                found.append([])
                continue
            values = cols.values(metric)
            if days is None:
                days = cols.days()
            full = None not in values
            present = range(len(values)) if full else _present(values)
            if metric in _PER_RUN:
                found.append(_pairs(days, values, present, full))
                continue
            at = None if full else tuple(present)
            kept = kept_by_present.get(at)
            if kept is None:
                if keys is None:
                    keys = (cols.outputs_col.keys(), cols.shas_col.keys())
                kept = kept_by_present[at] = _kept(values, *keys, present=present)
            found.append(_pairs(days, values, kept, full and len(kept) == len(values)))
        return found

    def with_run(self, day: date, results: Sequence[SkillResult]) -> History:
        """This history with the run of `day` recorded (the samples `write_run` writes, in
        place of any of that day or later); each skill's columns are joined when first read."""
        current = cast(SampleMap, self.samples)
        added = current.with_samples({r.skill: sample_of(r, day) for r in results})
        return History(added, self.scores, self.warnings)

    def metrics(self, skill: str) -> list[str]:
        """The metrics `skill` has values of: the built-ins first, then numeric labels."""
        cols = self.columns(skill)
        labels = sorted(cols.numeric.labels()) if len(cols) else []
        found = [
            m
            for m in BUILTIN
            if m not in labels
            and (
                bool(self.scores.get(skill))
                if m == SCORE
                else any(v is not None for v in cols.values(m))
            )
        ]
        return found + labels


def _series(
    cols: SkillColumns,
    metric: str,
    latest: Sample | None,
    per_output: bool,
    last: int | None,
    memo: dict[Any, Any] | None = None,
) -> list[tuple[date, float]]:
    """History.series on one skill's columns."""
    if last is not None and last <= 0:
        return []
    n = len(cols)
    if n and cols.column(metric) is None and metric not in cols.numeric.labels():
        n = 0  # a numeric check this history never recorded: only `latest` can have a value
    if last is None or n <= last + _SLACK:
        points = _points(cols, n, metric, latest, per_output, 0, memo=memo)
        return _dated(points if last is None else points[-last:])
    # The newest `last` points from a window of the newest runs, else from the whole series.
    # The window is read from its first block start: a run with a value whose output differs
    # from the previous run with a value (or has none). The whole series keeps that run
    # whatever came before, so the points from there on are the whole series' last ones.
    lo = n - last - _SLACK
    points = _points(cols, n, metric, latest, per_output, lo, from_block=True, memo=memo)
    if len(points) < last:
        points = _points(cols, n, metric, latest, per_output, 0, memo=memo)
    return _dated(points[-last:])


def _dated(points: list[tuple[int, float]]) -> list[tuple[date, float]]:
    fromordinal = date.fromordinal
    return [(fromordinal(o), v) for o, v in points]


_SLACK = 8  # runs read beyond the `last` asked for: a few outputs evaluated twice, runs without


def _points(
    cols: SkillColumns,
    n: int,
    metric: str,
    latest: Sample | None,
    per_output: bool,
    lo: int,
    *,
    from_block: bool = False,
    memo: dict[Any, Any] | None = None,
) -> list[tuple[int, float]]:
    """The series' points (day ordinal, value) of runs lo…n-1 then `latest`, the per-output
    rule applied from a fresh start; `from_block`: from the first block start after the first
    run with a value. `memo`: see History.series."""
    values = cols.values(metric, lo, n) if lo < n else []
    if latest is not None:
        values.append(latest[_FIELD_AT[metric]] if metric in _FIELD_AT else _label(latest, metric))
    # the runs' days, outputs and SHA-256s then `latest`'s: the same for every metric of the
    # skill, so read once when the caller keeps a memo (they are only read from here on)
    key = (lo, n, per_output)
    found = memo.get(key) if memo is not None else None
    if found is None or found[3] is not latest:
        ords = cols.day_ords[lo:n].tolist()
        size = len(ords)
        outs: list[str | None] = (
            cols.outputs_col.values(lo, n) if per_output and size else [None] * size
        )
        shas: list[str | None] = (
            cols.shas_col.values(lo, n) if per_output and size else [None] * size
        )
        if latest is not None:
            ords.append(latest.day.toordinal())
            outs.append(latest.output if per_output else None)
            shas.append(latest.sha256 if per_output else None)
        found = (ords, outs, shas, latest)
        if memo is not None:
            memo[key] = found
    ords, outs, shas, _latest = found
    start = 0
    if from_block:
        prev: str | None = None
        seen = False
        start = len(values)
        for i, value in enumerate(values):
            if value is None:
                continue
            if seen and (not per_output or outs[i] is None or outs[i] != prev):
                start = i
                break
            seen, prev = True, outs[i]
    kept: list[tuple[int, float]] = []
    output: str | None = None
    sha: str | None = None
    for i in range(start, len(values)):
        value = values[i]
        if value is None:
            continue
        s_output, s_sha = outs[i], shas[i]
        if (
            per_output
            and output is not None
            and output == s_output
            and (sha is None or s_sha is None or sha == s_sha)
        ):
            continue
        kept.append((ords[i], value))
        output, sha = s_output, s_sha
    return kept


def _present(values: Sequence[object]) -> list[int]:
    """The positions of the runs with a value."""
    return list(itertools.compress(range(len(values)), map(is_not, values, itertools.repeat(None))))


def _pairs(
    days: list[date], values: list[Any], at: Sequence[int], every: bool = False
) -> list[tuple[date, Any]]:
    """(day, value) of the runs `at` (`every`: `at` is every run)."""
    if every:
        return list(zip(days, values, strict=True))
    return list(zip(map(days.__getitem__, at), map(values.__getitem__, at), strict=True))


def _kept(
    values: Sequence[object],
    outputs: Sequence[int],
    shas: Sequence[int],
    *,
    present: Sequence[int] | None = None,
) -> Sequence[int]:
    """The runs `_points` keeps of a metric of the output (the whole series, no `latest`), the
    outputs and SHA-256s given as numbers (StrColumn.keys: -1 for None): a run with a value,
    unless it evaluated the same output as the last run kept and their SHA-256s do not differ
    (either unknown, or equal). `present`: the runs with a value, when the caller knows them."""
    if present is None:
        present = range(len(values)) if None not in values else _present(values)
    outs = list(map(outputs.__getitem__, present))
    if len(set(outs)) == len(outs):
        # each run with a value evaluated another output (the usual series): all are kept
        return present
    at_sha = list(map(shas.__getitem__, present))
    if -1 not in outs and -1 not in at_sha:
        # every output and SHA-256 known (a year of runs of one output a week): a run is kept
        # where its pair differs from the run with a value before it (a run left out has the
        # pair of the last run kept, so the one before it always has that pair)
        pairs = list(zip(outs, at_sha, strict=True))
        return [present[0], *itertools.compress(present[1:], map(ne, pairs[1:], pairs))]
    kept: list[int] = []
    output = sha = -1
    for i, value in enumerate(values):
        if value is None:
            continue
        s_output, s_sha = outputs[i], shas[i]
        if s_output == output and output >= 0 and (sha < 0 or s_sha < 0 or sha == s_sha):
            continue
        kept.append(i)
        output, sha = s_output, s_sha
    return kept


def _label(sample: Sample, metric: str) -> float | None:
    for label, value in sample.numeric:
        if label == metric:
            return value
    return None


# the Sample field of each built-in metric (the series of a year of runs is read a lot)
_FIELD_AT = {WORDS: 2, BYTES: 3, AGE: 4, QUALITY: 5}


# --------------------------------------------------------------------------------------------
# Drift: steps become causes (WARN, or FAIL when the spec says so) and notes.


@dataclass(frozen=True)
class Found:
    """One metric's step for one skill, as the run reports it."""

    skill: str
    metric: str
    step: drift.Step
    mode: DriftMode

    @property
    def text(self) -> str:
        return self.step.describe(self.metric)


def _mode(spec: Spec | None, metric: str) -> DriftMode:
    default = DEFAULT_MODES.get(metric, DriftMode.WARN)
    return spec.drift_mode(metric, default) if spec is not None else default


def steps_for(
    result: SkillResult,
    history: History,
    day: date,
    spec: Spec | None,
    params: drift.Params = drift.DEFAULT,
) -> list[Found]:
    """Every step (regression or improvement) of the metrics of `result` on the run of `day`;
    metrics the spec turns off are not looked at."""
    if result.status in (Status.ERROR, Status.NOT_RUN, Status.NO_OUTPUT):
        return []
    sample = sample_of(result, day)
    labels = [label for label, _ in result.numbers]
    found: list[Found] = []
    tail = drift.needed(params)  # the detector looks at no more than these newest points
    memo: dict[Any, Any] = {}  # the runs' days, outputs and SHA-256s, read once for all metrics
    for metric in [WORDS, BYTES, AGE, QUALITY, SCORE, *labels]:
        mode = _mode(spec, metric)
        if mode is DriftMode.OFF:
            continue
        if metric == SCORE:
            # skill-health's own dates: its newest entry is "today"
            series = history.series(result.skill, SCORE, last=tail)
        elif sample.value(metric) is None:
            continue
        else:
            series = history.series(result.skill, metric, sample, last=tail, memo=memo)
        if not series:
            continue
        step = drift.detect(series, DIRECTIONS.get(metric, drift.Direction.EITHER), params)
        if step is not None:
            found.append(Found(result.skill, metric, step, mode))
    return found


def with_drift(
    results: Sequence[SkillResult],
    history: History,
    *,
    day: date,
    specs: Mapping[str, Spec],
) -> tuple[list[SkillResult], list[Found]]:
    """`results` with each regression step as a cause (`drift:<metric>`, WARN unless the spec
    says fail) and a note, and each improvement as a note; plus every step found."""
    out: list[SkillResult] = []
    every: list[Found] = []
    for result in results:
        found = steps_for(result, history, day, specs.get(result.skill))
        every += found
        if not found:
            out.append(result)
            continue
        causes = list(result.causes)
        notes = list(result.notes)
        for f in one_quality_step(found):
            if f.step.worse:
                status = Status.FAIL if f.mode is DriftMode.FAIL else Status.WARN
                causes.append(Cause(status, f"drift:{f.metric}", f.text))
                notes.append(f"drift: {f.text}")
            else:
                notes.append(f"improved: {f.text}")
        ordered = tuple(sorted(causes, key=lambda c: c.status.rank))
        status = worst([c.status for c in ordered]) if ordered else result.status
        out.append(dataclasses.replace(result, causes=ordered, status=status, notes=tuple(notes)))
    return out, every


def one_quality_step(found: Sequence[Found]) -> list[Found]:
    """`found` with at most one of `quality` and `score` when both stepped the same way on this
    run: they are one signal (quality is skill-health's avg_score, score the history[] it is
    the average of), so one cause and one note. The one kept is the one whose mode is stronger
    (fail over warn), else `quality`: the figure the row's Quality cell shows."""
    by_metric = {f.metric: f for f in found}
    quality, score = by_metric.get(QUALITY), by_metric.get(SCORE)
    if quality is None or score is None or quality.step.worse != score.step.worse:
        return list(found)
    drop = quality if _RANK[score.mode] > _RANK[quality.mode] else score
    return [f for f in found if f is not drop]


_RANK = {DriftMode.OFF: 0, DriftMode.WARN: 1, DriftMode.FAIL: 2}

"""Each run's per-skill metrics read back as a history, with drift applied (one file: metrics_file).

One file per run, `<articles>/skill-evals-metrics-YYYY-MM-DD.tsv` (docs/metrics.md): a version
line, a header, one line per evaluated skill. Later runs read every such file and, for days
before the first one, what the articles say (status, words, quality; kept in a cache keyed by
each article's inode, size and mtime, so no article is parsed twice) plus skill-health
`history[]`. `with_drift` then turns the drift detector's steps into causes and notes.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from aeon_evals import drift
from aeon_evals.cache import CACHE_DIR
from aeon_evals.errors import EvalsError
from aeon_evals.fsio import atomic_write, rel_path
from aeon_evals.metrics_file import (
    AGE,
    BYTES,
    COLUMNS,
    PREFIX,
    QUALITY,
    SCORE,
    STATUS_BY_NAME,
    SUFFIX,
    WORDS,
    MetricsError,
    Sample,
    metrics_rel,
    parse_tsv,
    read_file,
    render_tsv,
    sample_of,
    samples_of_article,
    write_run,
)
from aeon_evals.model import Cause, DriftMode, SkillResult, Spec, Status, worst

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
    "history_for_run",
    "load_history",
    "metrics_rel",
    "parse_tsv",
    "render_tsv",
    "samples_of_article",
    "with_drift",
    "write_run",
]

CACHE_NAME = "metrics.json"
CACHE_VERSION = 1

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
    from aeon_evals.state import Health
    from aeon_evals.store import ArticleStore


def _label_value(numeric: tuple[tuple[str, float], ...], metric: str) -> float | None:
    """The value of the numeric check `metric` in a sample's `numeric`, if there."""
    for label, value in numeric:
        if label == metric:
            return value
    return None


# the Sample field of each built-in metric (the series of a year of runs is read a lot)
_FIELD_AT = {WORDS: 2, BYTES: 3, AGE: 4, QUALITY: 5}


@dataclass(frozen=True)
class History:
    """Every skill's samples, oldest first, and each skill's skill-health scores by date."""

    samples: Mapping[str, Sequence[Sample]] = field(default_factory=dict)
    scores: Mapping[str, Sequence[tuple[date, float]]] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()

    def series(
        self, skill: str, metric: str, latest: Sample | None = None
    ) -> list[tuple[date, float]]:
        """(day, value) of `metric` for `skill`, oldest first; runs without a value skipped.

        A metric of the output (words, bytes, a numeric check) counts each output once: a run
        that evaluated the same file as the run before (same path, and same SHA-256 when both
        are known) measured nothing new, and an old article's re-estimate of an unchanged file
        is no step of the skill. `latest`: this run's sample, taken after the history."""
        if metric == SCORE:
            return list(self.scores.get(skill, ()))
        per_output = metric not in (QUALITY, AGE)
        samples = self.samples.get(skill, ())
        if latest is not None:
            samples = [*samples, latest]
        field_at = _FIELD_AT.get(metric)
        if field_at is not None:
            values = [cast("float | None", s[field_at]) for s in samples]
        else:
            values = [_label_value(s.numeric, metric) if s.numeric else None for s in samples]
        out: list[tuple[date, float]] = []
        # the last kept sample's output and SHA-256 (a year of a fleet's series is read a lot)
        output: str | None = None
        sha: str | None = None
        for s, value in zip(samples, values, strict=True):
            if value is None:
                continue
            if (
                per_output
                and output is not None
                and output == s.output
                and (sha is None or s.sha256 is None or sha == s.sha256)
            ):
                continue
            out.append((s.day, value))
            output, sha = s.output, s.sha256
        return out

    def with_run(self, day: date, results: Sequence[SkillResult]) -> History:
        """This history with the run of `day` recorded (the samples `write_run` writes)."""
        samples = {skill: list(found) for skill, found in self.samples.items()}
        for result in results:
            kept = [s for s in samples.get(result.skill, ()) if s.day < day]
            samples[result.skill] = [*kept, sample_of(result, day)]
        return History(samples, self.scores, self.warnings)

    def metrics(self, skill: str) -> list[str]:
        """The metrics `skill` has values of: the built-ins first, then numeric labels."""
        labels = sorted({label for s in self.samples.get(skill, ()) for label, _ in s.numeric})
        found = [m for m in BUILTIN if m not in labels and self.series(skill, m)]
        return found + labels


# --------------------------------------------------------------------------------------------
# Reading the history back: metrics files, then articles for the days before them.


def _row(skill: str, s: Sample) -> list[Any]:
    return [
        skill,
        s.status.value if s.status else None,
        s.words,
        s.bytes,
        s.age_days,
        s.quality,
        s.output,
        s.sha256,
        s.cause,
        [list(pair) for pair in s.numeric],
    ]


def _from_row(row: list[Any], day: date, source: str) -> tuple[str, Sample]:
    return row[0], Sample(
        day,
        STATUS_BY_NAME.get(row[1]) if row[1] else None,
        row[2],
        row[3],
        row[4],
        row[5],
        row[6],
        row[7],
        row[8],
        tuple((str(a), float(b)) for a, b in row[9]),
        source,
    )


class MetricsCache:
    """What the articles say per skill (the backfill) by article path, valid while the file's
    inode, size and mtime are unchanged. One JSON file in the cache folder; safe to delete."""

    def __init__(self, root: Path, *, writable: bool) -> None:
        self.path = root / CACHE_DIR / CACHE_NAME
        self.writable = writable
        self.entries: dict[str, Any] = {}
        self.used: set[str] = set()
        self.dirty = False
        with contextlib.suppress(OSError, ValueError):
            data = json.loads(self.path.read_text(encoding="utf-8"))
            if isinstance(data, dict) and data.get("version") == CACHE_VERSION:
                files = data.get("files")
                self.entries = files if isinstance(files, dict) else {}

    def get(self, rel: str, stamp: list[int]) -> list[list[Any]] | None:
        """The rows cached for `rel` when read with this stamp."""
        entry = self.entries.get(rel)
        self.used.add(rel)
        if isinstance(entry, dict) and entry.get("stamp") == stamp:
            rows = entry.get("rows")
            return rows if isinstance(rows, list) else None
        return None

    def put(self, rel: str, stamp: list[int], rows: list[list[Any]]) -> None:
        self.entries[rel] = {"stamp": stamp, "rows": rows}
        self.used.add(rel)
        self.dirty = True

    def save(self) -> None:
        """Write the cache when it changed (entries of files gone are dropped); never an error."""
        gone = set(self.entries) - self.used
        if not self.writable or not (self.dirty or gone):
            return
        for rel in gone:
            del self.entries[rel]
        with contextlib.suppress(OSError):
            self.path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(
                self.path,
                json.dumps(
                    {"version": CACHE_VERSION, "files": self.entries}, separators=(",", ":")
                ),
            )


def _stamp(path: Path) -> list[int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return [st.st_ino, st.st_size, st.st_mtime_ns]


def _metric_files(root: Path, dirs: Sequence[str]) -> dict[date, Path]:
    """Every `<dir>/skill-evals-metrics-YYYY-MM-DD.tsv`, by day; the first folder's on a tie."""
    found: dict[date, Path] = {}
    for folder in dirs:
        base = root / folder
        try:
            with os.scandir(base) as entries:
                names = [
                    e.name for e in entries if e.name.startswith(PREFIX) and e.name.endswith(SUFFIX)
                ]
        except OSError:
            continue
        for name in names:
            try:
                day = date.fromisoformat(name[len(PREFIX) : -len(SUFFIX)])
            except ValueError:
                continue
            found.setdefault(day, base / name)
    return found


def load_history(
    root: Path,
    *,
    dirs: Sequence[str],
    articles: Sequence[tuple[date, Path]],
    read_article: Any,
    health: Mapping[str, Sequence[tuple[date, float]]],
    before: date | None = None,
    writable: bool = True,
) -> History:
    """Every skill's samples from the metrics files under `dirs` and, for days without one, from
    the `articles` ((day, path), read with `read_article(path) -> ParsedArticle`); only runs
    dated before `before` when given. `health`: skill-health `history[]` by skill. A file that
    cannot be read is a warning, never an error; the cache is written when `writable`."""
    cache = MetricsCache(root, writable=writable)
    files = _metric_files(root, dirs)
    sources: list[tuple[date, Path, str]] = [(d, p, "run") for d, p in files.items()]
    sources += [(d, p, "article") for d, p in articles if d not in files]
    per_day: list[tuple[date, list[tuple[str, Sample]]]] = []
    warnings: list[str] = []
    for day, path, kind in sorted(sources, key=lambda item: item[0]):
        if before is not None and day >= before:
            continue
        rel = rel_path(path, root)
        stamp = _stamp(path)
        if stamp is None:
            continue
        # A metrics file is parsed each time: a JSON copy of a year of them (70 MB at 1,000
        # skills) decodes slower than the TSV parses. What the cache saves is the markdown
        # parse of the articles the history is backfilled from.
        rows = cache.get(rel, stamp) if kind == "article" else None
        if rows is not None:
            with contextlib.suppress(TypeError, ValueError, IndexError):
                per_day.append((day, [_from_row(r, day, kind) for r in rows]))
                continue
        try:
            if kind == "run":
                samples = read_file(root, rel, day=day)
            else:
                samples = samples_of_article(read_article(path))
        except FileNotFoundError:  # removed since it was listed
            continue
        except (EvalsError, OSError, UnicodeError) as exc:
            if kind == "run":  # an unreadable article is the article store's to report
                warnings.append(exc.line() if isinstance(exc, EvalsError) else f"{rel}: {exc}")
            continue
        if kind == "article":
            cache.put(rel, stamp, [_row(skill, s) for skill, s in samples.items()])
        per_day.append((day, list(samples.items())))
    cache.save()
    by_skill: dict[str, list[Sample]] = {}
    for _day, pairs in per_day:
        for skill, sample in pairs:
            by_skill.setdefault(skill, []).append(sample)
    scores = {
        skill: [(d, v) for d, v in series if before is None or d < before]
        for skill, series in health.items()
        if series
    }
    return History(by_skill, scores, tuple(warnings))


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
    scores = history.scores.get(result.skill, ())
    sample = sample_of(result, day)
    labels = [label for label, _ in result.numbers]
    found: list[Found] = []
    for metric in [WORDS, BYTES, AGE, QUALITY, SCORE, *labels]:
        mode = _mode(spec, metric)
        if mode is DriftMode.OFF:
            continue
        if metric == SCORE:
            series = list(scores)  # skill-health's own dates: its newest entry is "today"
        elif sample.value(metric) is None:
            continue
        else:
            series = history.series(result.skill, metric, sample)
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
        for f in found:
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


def history_for_run(
    root: Path,
    store: ArticleStore,
    health: Mapping[str, Health],
    *,
    before: date | None,
    writable: bool,
) -> History:
    """The history a run (or the dashboard) reads: the metrics files and the articles in the
    store's folders, skill-health `history[]` of the skills in `health`."""
    return load_history(
        root,
        dirs=store.dirs,
        articles=store.articles(),
        read_article=store.read,
        health={skill: h.history for skill, h in health.items()},
        before=before,
        writable=writable,
    )

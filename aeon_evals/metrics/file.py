"""The metrics file of one run, `<articles>/skill-evals-metrics-YYYY-MM-DD.tsv` (docs/metrics.md):
its format (a version line, a header, one tab-separated line per evaluated skill), writing it and
reading it back. The history of many runs is metrics.py's.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterable, Sequence
from datetime import date
from pathlib import Path
from typing import NamedTuple

from aeon_evals.errors import EvalsError
from aeon_evals.fs.confine import read_confined
from aeon_evals.fs.write import atomic_write
from aeon_evals.model import ParsedArticle, SkillResult, Status

# The built-in metrics; every numeric check adds one named by its label.
WORDS, BYTES, AGE, QUALITY, SCORE = "words", "bytes", "age_days", "quality", "score"
PREFIX = "skill-evals-metrics-"  # beside the article; .tsv: outside `skill-evals-*.md` and `*.md`
SUFFIX = ".tsv"
VERSION = 1
FIRST_LINE = f"# aeon-evals metrics v{VERSION}"
COLUMNS = (
    "skill",
    "status",
    "words",
    "bytes",
    "age_days",
    "quality",
    "output",
    "sha256",
    "cause",
    "numeric",
)
FILE_CAP = 64 << 20
STATUS_BY_NAME = {s.value: s for s in Status}


class MetricsError(EvalsError):
    """A metrics file this version cannot read (another format version, a broken line)."""


class Sample(NamedTuple):
    """One skill in one run, as recorded (or as an older article or skill-health tells it).

    A NamedTuple: a year of a large fleet is hundreds of thousands of them."""

    day: date
    status: Status | None
    words: int | None = None
    bytes: int | None = None
    age_days: float | None = None
    quality: float | None = None
    output: str | None = None
    sha256: str | None = None
    cause: str = ""
    numeric: tuple[tuple[str, float], ...] = ()
    source: str = "run"  # "run" (a metrics file), "article" (backfilled), "skill-health"

    def value(self, metric: str) -> float | None:
        """The sample's value of `metric` (a built-in name or a numeric check's label)."""
        if metric == WORDS:
            return None if self.words is None else float(self.words)
        if metric == BYTES:
            return None if self.bytes is None else float(self.bytes)
        if metric == AGE:
            return self.age_days
        if metric == QUALITY:
            return self.quality
        return dict(self.numeric).get(metric)


# --------------------------------------------------------------------------------------------
# The file format.


def metrics_rel(articles: str, day: date) -> str:
    """The metrics file of the run of `day`, relative to the root."""
    return f"{articles}/{PREFIX}{day.isoformat()}{SUFFIX}"


def _esc(text: str) -> str:
    return text.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")


def _unesc(text: str) -> str:
    """The inverse of `_esc`: `\\t`, `\\n`, `\\r` and `\\\\`; any other escaped character stands
    for itself, and a lone trailing backslash is kept."""
    if "\\" not in text:
        return text
    return _ESCAPED.sub(lambda m: _UNESCAPE.get(m[1], m[1]), text)


_ESCAPED = re.compile(r"\\(.)", re.DOTALL)
_UNESCAPE = {"t": "\t", "n": "\n", "r": "\r"}


def _num(value: float | None) -> str:
    if value is None:
        return ""
    return str(int(value)) if value == int(value) and abs(value) < 1e15 else repr(value)


def sample_of(result: SkillResult, day: date) -> Sample:
    """What the run records for one evaluated skill."""
    output = result.output
    return Sample(
        day=day,
        status=result.status,
        words=result.words,
        bytes=output.size if output else None,
        age_days=round(output.age_days, 3) if output and output.age_days is not None else None,
        quality=result.quality_score,
        output=output.path if output else None,
        sha256=output.sha256 if output else None,
        cause="" if result.root_cause == "—" else result.root_cause,
        numeric=result.numbers,
    )


def render_tsv(samples: Iterable[tuple[str, Sample]]) -> str:
    """The metrics file for (skill, sample) pairs, sorted by skill."""
    lines = [FIRST_LINE, "\t".join(COLUMNS)]
    for skill, s in sorted(samples, key=lambda pair: pair[0]):
        numeric = (
            json.dumps(dict(s.numeric), sort_keys=True, ensure_ascii=False) if s.numeric else ""
        )
        cells = [
            skill,
            s.status.value if s.status else "",
            _num(s.words),
            _num(s.bytes),
            _num(s.age_days),
            _num(s.quality),
            s.output or "",
            s.sha256 or "",
            s.cause,
            numeric,
        ]
        lines.append("\t".join(_esc(c) for c in cells))
    return "\n".join(lines) + "\n"


def _float(cell: str) -> float | None:
    return float(cell) if cell else None


def parse_tsv(text: str, *, day: date, path: str) -> dict[str, Sample]:
    """The samples of one metrics file by skill; MetricsError for another version or a bad line."""
    lines = text.splitlines()
    if not lines or not lines[0].startswith("# aeon-evals metrics v"):
        raise MetricsError("not an aeon-evals metrics file (no version line)", path=path)
    if lines[0].strip() != FIRST_LINE:
        raise MetricsError(
            f"format {lines[0][len('# aeon-evals metrics ') :].strip()} is not one this version "
            f"reads (v{VERSION}); upgrade aeon-evals",
            path=path,
        )
    header = lines[1].split("\t") if len(lines) > 1 else []
    if tuple(header[: len(COLUMNS)]) != COLUMNS:
        raise MetricsError("unexpected header line", path=path)
    out: dict[str, Sample] = {}
    numerics: dict[str, tuple[tuple[str, float], ...]] = {}  # the same object text, parsed once
    status_of = STATUS_BY_NAME.get
    make = Sample
    width = len(COLUMNS)
    for number, line in enumerate(lines[2:], start=3):
        if not line or line.isspace():
            continue
        cells = line.split("\t")
        if len(cells) < width:
            raise MetricsError(f"line {number}: {len(cells)} cells, expected {width}", path=path)
        if "\\" in line:
            cells = [_unesc(c) for c in cells]
        skill, status, words, size, age, quality, output, sha, cause, numeric = cells[:width]
        try:
            found = numerics.get(numeric) if numeric else ()
            if found is None:
                found = numerics[numeric] = _numeric(numeric)
            out[skill] = make(
                day,
                status_of(status),
                int(words) if words else None,
                int(size) if size else None,
                float(age) if age else None,
                float(quality) if quality else None,
                output or None,
                sha or None,
                cause,
                found,
            )
        except (ValueError, TypeError):
            raise MetricsError(f"line {number}: {_bad_cell(cells[:width])}", path=path) from None
    return out


def _bad_cell(cells: list[str]) -> str:
    """Which cell of a line that did not parse is wrong, said plainly (the error path only)."""
    for column in ("words", "bytes", "age_days", "quality", "numeric"):
        got = cells[COLUMNS.index(column)]
        if not got:
            continue
        try:
            if column == "numeric":
                _numeric(got)
            elif column in ("words", "bytes"):
                int(got)
            else:
                float(got)
        except (ValueError, TypeError):
            shown = got if len(got) <= 40 else got[:40] + "…"
            what = "an object of numbers" if column == "numeric" else "a number"
            return f"{column}: expected {what}, got {shown!r}"
    return "a cell that is not what its column holds"


def _numeric(text: str) -> tuple[tuple[str, float], ...]:
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError("numeric: not an object")
    return tuple(sorted((str(k), float(v)) for k, v in data.items()))


def samples_of_article(article: ParsedArticle) -> dict[str, Sample]:
    """What an article written before metrics files existed says per skill (backfill)."""
    out: dict[str, Sample] = {}
    for skill, row in [*article.inferred_rows.items(), *article.rows.items()]:
        quality = None
        if row.quality.startswith("avg="):
            with contextlib.suppress(ValueError):
                quality = float(row.quality[4:])
        out[skill] = Sample(
            day=article.day,
            status=row.status,
            words=row.words,
            quality=quality,
            output=row.last_output,
            cause="" if row.root_cause == "—" else row.root_cause,
            source="article",
        )
    return out


# --------------------------------------------------------------------------------------------
# Writing this run's file.


def write_run(
    root: Path, articles: str, day: date, results: Sequence[SkillResult], *, scoped: bool
) -> str:
    """Write the metrics file of the run of `day` (atomically); a `scoped` run (--skill) keeps
    the other skills' lines of today's file. Returns its path relative to the root."""
    rel = metrics_rel(articles, day)
    samples = {r.skill: sample_of(r, day) for r in results}
    try:
        earlier = read_file(root, rel, day=day)
    except FileNotFoundError:
        earlier = {}
    except MetricsError as exc:
        # Never replace what cannot be read: a --skill run would keep one line of the day's file,
        # and a file of a newer format is a newer aeon-evals's data. A whole run rewrites a file
        # that is only damaged (it holds every skill's line again).
        if scoped or exc.message.startswith("format "):
            raise MetricsError(
                f"{exc.message}; left as it is, this run's metrics not recorded", path=exc.path
            ) from None
        earlier = {}
    if scoped:
        samples = {**earlier, **samples}
    atomic_write(root / rel, render_tsv(samples.items()))
    return rel


def read_file(root: Path, rel: str, *, day: date) -> dict[str, Sample]:
    """The samples of the metrics file `rel` (confined to the root, size-capped). Raises
    FileNotFoundError when there is none, MetricsError (one line naming the file) for a file that
    cannot be read or parsed."""
    return parse_file(read_raw(root, rel), rel, day=day)


def read_raw(root: Path, rel: str) -> bytes:
    """The bytes of the metrics file `rel` (confined to the root, size-capped). Raises
    FileNotFoundError when there is none, MetricsError when it cannot be read."""
    try:
        return read_confined(root, rel, cap=FILE_CAP)
    except FileNotFoundError:
        raise
    except IsADirectoryError:
        raise MetricsError("is a folder, not a file", path=rel) from None
    except OSError as exc:
        raise MetricsError(f"cannot be read ({exc.strerror or exc})", path=rel) from None
    except EvalsError as exc:
        raise MetricsError(exc.message, path=exc.path or rel) from None


def parse_file(raw: bytes, rel: str, *, day: date) -> dict[str, Sample]:
    """The samples of a metrics file's bytes (`rel` names it in errors); MetricsError when they
    are not UTF-8 or do not parse."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise MetricsError(
            f"not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset {exc.start})", path=rel
        ) from None
    return parse_tsv(text, day=day, path=rel)

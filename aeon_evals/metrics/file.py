"""The metrics file of one run, `<articles>/skill-evals-metrics-YYYY-MM-DD.tsv` (docs/metrics.md):
its format (a version line, a header, one tab-separated line per evaluated skill), writing it and
reading it back. The history of many runs is metrics.py's.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable, Iterable, Sequence
from datetime import date
from pathlib import Path
from typing import NamedTuple

from aeon_evals.errors import EvalsError
from aeon_evals.fs.confine import read_confined
from aeon_evals.fs.write import atomic_write
from aeon_evals.model import ParsedArticle, SkillResult, Status
from aeon_evals.text import jsonio
from aeon_evals.text.numbers import bounded_float, bounded_int, finite, shown_cell

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
    "run",
)
OLD_WIDTH = 10  # the columns before `run` (added in 0.2): a file of ten columns reads with none
FILE_CAP = 16 << 20  # 20,000 lines (MAX_ROWS) of a few hundred bytes; a 1,000-skill run: ~0.3 MB
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
    run: str = ""  # what the skill's newest run reported: `error:X_ERROR`, `ok`; "" not read

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
    if value is None or value - value:  # infinite or NaN: not a number, written as none
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
        run=run_outcome(result),
    )


def run_outcome(result: SkillResult) -> str:
    """The outcome the skill's newest run reported, for the metrics file: its class, then the
    token or signature (`error:VIBECODING_DIGEST_ERROR`, `noop:FLEET_EMPTY`, `ok`); "" when its
    runs were not read."""
    run = result.run
    if run is None:
        return ""
    return f"{run.outcome}:{run.token}" if run.token else run.outcome


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
            s.run,
        ]
        lines.append("\t".join(_esc(c) for c in cells))
    return "\n".join(lines) + "\n"


def parse_tsv(
    text: str, *, day: date, path: str, notes: list[str] | None = None
) -> dict[str, Sample]:
    """The samples of one metrics file by skill; MetricsError for another version or a bad line.
    A number too large to be one (infinite, NaN, more than 30 digits, nested thousands of
    levels) is read as not a number and the lines past MAX_ROWS are not read: one line in
    `notes` says so."""
    # "\n" only: a cell may hold any other line break (U+2028 in a file name), never escaped
    lines = text.split("\n", _MAX_LINES)  # the rest of a planted 2,000,000-line file: one string
    rest = lines.pop() if len(lines) > _MAX_LINES else ""
    if "\r" in text:
        lines = [line.removesuffix("\r") for line in lines]
    if not lines or not lines[0].startswith("# aeon-evals metrics v"):
        raise MetricsError("not an aeon-evals metrics file (no version line)", path=path)
    if lines[0].strip() != FIRST_LINE:
        raise MetricsError(
            f"format {lines[0][len('# aeon-evals metrics ') :].strip()} is not one this version "
            f"reads (v{VERSION}); upgrade aeon-evals",
            path=path,
        )
    header = lines[1].split("\t") if len(lines) > 1 else []
    if tuple(header[:OLD_WIDTH]) != COLUMNS[:OLD_WIDTH]:
        raise MetricsError("unexpected header line", path=path)
    has_run = len(header) > OLD_WIDTH and header[OLD_WIDTH] == "run"
    out: dict[str, Sample] = {}
    numerics: dict[str, tuple[tuple[str, float], ...]] = {}  # the same object text, parsed once
    status_of = STATUS_BY_NAME.get
    make = Sample
    width = OLD_WIDTH
    odd = _OddCells()
    rows = 0
    for number, line in enumerate(lines[2:], start=3):
        if not line or line.isspace():
            continue
        rows += 1
        if rows > MAX_ROWS:
            rest = "\n".join([*lines[number - 1 :], rest] if rest else lines[number - 1 :])
            break
        cells = line.split("\t")
        if len(cells) < width:
            raise MetricsError(f"line {number}: {len(cells)} cells, expected {width}", path=path)
        if "\\" in line:
            cells = [_unesc(c) for c in cells]
        skill, status, words, size, age, quality, output, sha, cause, numeric = cells[:width]
        try:
            found = numerics.get(numeric) if numeric else ()
            if found is None:
                found = numerics[numeric] = _numeric(numeric, odd.at(number, "numeric"))
            sample = make(
                day,
                status_of(status),
                (int(words) if len(words) <= _INT_CHARS else odd.whole(number, "words", words))
                if words
                else None,
                (int(size) if len(size) <= _INT_CHARS else odd.whole(number, "bytes", size))
                if size
                else None,
                float(age) if age else None,
                float(quality) if quality else None,
                output or None,
                sha or None,
                cause,
                found,
                "run",
                cells[width] if has_run and len(cells) > width else "",
            )
        except (ValueError, TypeError):
            raise MetricsError(f"line {number}: {_bad_cell(cells[:width])}", path=path) from None
        age_v, quality_v = sample.age_days, sample.quality
        if (age_v is not None and age_v - age_v) or (
            quality_v is not None and quality_v - quality_v
        ):
            sample = odd.floats(number, sample, age, quality)  # inf - inf, nan - nan: not 0
        out[skill] = sample
    if rest.strip():
        odd.dropped_rows = rest.count("\n") + (not rest.endswith("\n"))
    if notes is not None and (odd.count or odd.dropped_rows):
        notes.append(odd.line(path))
    return out


# An integer cell longer than this is read with its bound (text.numbers); a count never needs it.
_INT_CHARS = 18
# A metrics file holds one line per skill of one run: a fleet is dozens of skills, the largest
# benchmarked thousands. A file of more lines was not written by a run (docs/bad-input.md).
MAX_ROWS = 20_000
_MAX_LINES = 2 * MAX_ROWS + 2  # split off: blank lines are skipped, not counted


class _OddCells:
    """The cells of one metrics file read as not a number, for its one warning."""

    def __init__(self) -> None:
        self.first = ""
        self.count = 0
        self.dropped_rows = 0

    def note(self, number: int, column: str, cell: str) -> None:
        self.count += 1
        if not self.first:
            self.first = f"line {number}: {column}: {shown_cell(cell)}"

    def at(self, number: int, column: str) -> Callable[[str], None]:
        return lambda cell: self.note(number, column, cell)

    def whole(self, number: int, column: str, cell: str) -> int | None:
        value = bounded_int(cell)  # ValueError for a cell that is no integer at all
        if value is None:
            self.note(number, column, cell)
        return value

    def floats(self, number: int, sample: Sample, age: str, quality: str) -> Sample:
        age_v, quality_v = sample.age_days, sample.quality
        if age_v is not None and age_v - age_v:
            self.note(number, "age_days", age)
            age_v = None
        if quality_v is not None and quality_v - quality_v:
            self.note(number, "quality", quality)
            quality_v = None
        return sample._replace(age_days=age_v, quality=quality_v)

    def line(self, path: str) -> str:
        parts = []
        if self.count:
            more = f" (and {self.count - 1} more)" if self.count > 1 else ""
            parts.append(f"{self.first}{more} read as not a number")
        if self.dropped_rows:
            parts.append(
                f"more than {MAX_ROWS:,} skill lines (the limit): {self.dropped_rows:,} "
                "lines after them ignored"
            )
        return f"{path}: " + "; ".join(parts)


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
                bounded_int(got)
            else:
                float(got)
        except (ValueError, TypeError):
            shown = got if len(got) <= 40 else got[:40] + "…"
            what = "an object of numbers" if column == "numeric" else "a number"
            return f"{column}: expected {what}, got {shown!r}"
    return "a cell that is not what its column holds"


def _numeric(text: str, odd: Callable[[str], None] | None = None) -> tuple[tuple[str, float], ...]:
    """The numeric checks' values of a `numeric` cell; a value too large to be a number is left
    out, and a cell nested too deeply read as none (each told to `odd`). ValueError when the
    cell is not an object of numbers."""
    try:
        data = jsonio.loads(text).data
    except jsonio.JSONTooDeep:
        if odd is not None:
            odd(text)
        return ()
    if not isinstance(data, dict):
        raise ValueError("numeric: not an object")
    found = []
    for key, value in data.items():
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError("numeric: not a number")
        number = finite(value)
        if number is None:
            if odd is not None:
                odd(text)
            continue
        found.append((str(key), number))
    return tuple(sorted(found))


def samples_of_article(article: ParsedArticle) -> dict[str, Sample]:
    """What an article written before metrics files existed says per skill (backfill)."""
    out: dict[str, Sample] = {}
    for skill, row in [*article.inferred_rows.items(), *article.rows.items()]:
        quality = None
        if row.quality.startswith("avg="):
            with contextlib.suppress(ValueError):
                quality = bounded_float(row.quality[4:])
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


def parse_file(
    raw: bytes, rel: str, *, day: date, notes: list[str] | None = None
) -> dict[str, Sample]:
    """The samples of a metrics file's bytes (`rel` names it in errors); MetricsError when they
    are not UTF-8 or do not parse. `notes`: as parse_tsv's."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise MetricsError(
            f"not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset {exc.start})", path=rel
        ) from None
    return parse_tsv(text, day=day, path=rel, notes=notes)

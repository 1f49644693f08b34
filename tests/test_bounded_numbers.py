"""Every number read from a file is bounded (issue 35.3): a metrics cell, an article cell or an
issue id too large to be a number is "not a number" with one warning, never an exit 70; and a
property test feeds random cells to every reader of the metrics TSV, the article's tables and
INDEX.md."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from datetime import date
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from aeon_evals.articles.parse import ArticleParseError, parse_article
from aeon_evals.issues.index import Index
from aeon_evals.metrics.file import (
    COLUMNS,
    FIRST_LINE,
    MAX_ROWS,
    MetricsError,
    parse_tsv,
    render_tsv,
)
from aeon_evals.text.numbers import bounded_float, bounded_int, finite, parse_words

Cli = Callable[..., tuple[int, str, str]]
FIRST = "2026-12-01T07:00:00Z"
NEXT = "2026-12-02T08:00:00Z"
METRICS = "articles/skill-evals-metrics-2026-12-01.tsv"
ARTICLE = "articles/skill-evals-2026-12-01.md"


def _demo(tmp_path: Path, cli: Cli) -> Path:
    root = tmp_path / "demo"
    code, _out, err = cli("demo", str(root), "--now", FIRST)
    assert code == 0, err
    return root


def _run(root: Path, cli: Cli) -> tuple[int, str, str]:
    return cli("run", "--root", str(root), "--now", NEXT, "--no-notify", "--no-site")


def _set_cell(root: Path, skill: str, column: str, value: str) -> None:
    path = root / METRICS
    lines = path.read_text(encoding="utf-8").split("\n")
    at = COLUMNS.index(column)
    for i, line in enumerate(lines):
        cells = line.split("\t")
        if cells[0] == skill:
            cells[at] = value
            lines[i] = "\t".join(cells)
            break
    else:
        raise AssertionError(f"no line for {skill}")
    path.write_text("\n".join(lines), encoding="utf-8")


def _warnings(err: str, needle: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("warning:") and needle in line]


def test_metrics_numeric_cell_of_1_and_309_zeros_is_not_a_number_not_exit_70(
    tmp_path: Path, cli: Cli
) -> None:
    """Regression: `{"n": 1<309 zeros>}` raised OverflowError (int too large to convert to
    float) in the metrics reader's numeric parsing, exit 70 on every later run."""
    root = _demo(tmp_path, cli)
    _set_cell(root, "cost-report", "numeric", '{"n": 1' + "0" * 309 + "}")
    code, _out, err = _run(root, cli)
    assert code == 0, err
    assert "Traceback" not in err
    found = _warnings(err, METRICS)
    assert len(found) == 1, err
    assert 'numeric: \'{"n": 1000' in found[0]
    assert found[0].endswith("read as not a number")


def test_metrics_numeric_cell_of_5000_brackets_is_not_a_number_not_exit_70(
    tmp_path: Path, cli: Cli
) -> None:
    """Regression: `[` × 5,000 raised RecursionError in the metrics reader, exit 70."""
    root = _demo(tmp_path, cli)
    _set_cell(root, "cost-report", "numeric", "[" * 5000)
    code, _out, err = _run(root, cli)
    assert code == 0, err
    found = _warnings(err, METRICS)
    assert len(found) == 1 and found[0].endswith("read as not a number"), err


def test_metrics_words_age_and_quality_too_large_to_be_numbers_are_one_warning(
    tmp_path: Path, cli: Cli
) -> None:
    """A words cell of 5,000 digits (past Python's int limit), an age of 1e999 and a quality of
    NaN: each read as none, the file's other cells kept, one warning for the file."""
    root = _demo(tmp_path, cli)
    _set_cell(root, "cost-report", "words", "9" * 5000)
    _set_cell(root, "changelog", "age_days", "1e999")
    _set_cell(root, "heartbeat", "quality", "nan")
    code, _out, err = _run(root, cli)
    assert code == 0, err
    found = _warnings(err, METRICS)
    assert len(found) == 1, err
    assert "(and 2 more) read as not a number" in found[0]
    history = parse_tsv(
        (root / METRICS).read_text(encoding="utf-8"), day=date(2026, 12, 1), path=METRICS
    )
    assert history["cost-report"].words is None
    assert history["changelog"].age_days is None
    assert history["heartbeat"].quality is None
    assert history["cost-report"].status is not None  # the rest of the line is kept


def test_article_words_cell_of_309_nines_is_not_a_number_not_exit_70(
    tmp_path: Path, cli: Cli
) -> None:
    """Regression: a past article's Words cell of 309 nines made the article parser turn float
    infinity into an integer (OverflowError), exit 70 on every later run."""
    root = _demo(tmp_path, cli)
    path = root / ARTICLE
    lines = path.read_text(encoding="utf-8").split("\n")
    start = lines.index("## Full Results")
    header = next(i for i in range(start, len(lines)) if lines[i].startswith("| Skill |"))
    words = [c.strip() for c in lines[header].split("|")].index("Words")
    row = header + 2
    cells = lines[row].split("|")
    skill = cells[1].strip()
    cells[words] = " " + "9" * 309 + " "
    lines[row] = "|".join(cells)
    path.write_text("\n".join(lines), encoding="utf-8")
    (root / METRICS).unlink()  # the article is the history's only source for that day
    code, _out, err = _run(root, cli)
    assert code == 0, err
    found = _warnings(err, ARTICLE)
    assert found == [f"warning: {ARTICLE}: {skill}'s Words '{'9' * 40}…' read as not a number"], err


def test_an_issue_id_of_5000_digits_is_no_issue_id_not_exit_70(tmp_path: Path, cli: Cli) -> None:
    """Regression: `ISS-<5,000 digits>` in INDEX.md or an issue's frontmatter id raised
    ValueError (Python's 4,300-digit limit) in the issue reader, exit 70."""
    root = _demo(tmp_path, cli)
    index = root / "memory/issues/INDEX.md"
    text = index.read_text(encoding="utf-8")
    assert "[ISS-002](ISS-002.md)" in text
    index.write_text(text.replace("[ISS-002]", "[ISS-" + "9" * 5000 + "]"), encoding="utf-8")
    issue = root / "memory/issues/ISS-003.md"
    issue.write_text(
        issue.read_text(encoding="utf-8").replace("id: ISS-003", "id: ISS-" + "9" * 5000),
        encoding="utf-8",
    )
    code, _out, err = _run(root, cli)
    assert code == 0, err
    found = _warnings(err, "memory/issues/ISS-003.md: frontmatter id")
    assert len(found) == 1 and len(found[0]) < 300, err


def test_article_coverage_of_5000_digits_and_a_failing_since_of_2026_13_45_parse() -> None:
    """Regression: a Coverage line of 5,000 digits and a Failing since date that is no day
    raised ValueError from the article parser (exit 70 when it was the previous article)."""
    text = (
        "# Skill Evals\n\n**Verdict:** SKILL_EVALS_OK\n**Coverage:** "
        + "1" * 5000
        + "/2 ("
        + "9" * 5000
        + "%)\n\n## Full Results\n\n| Skill | Status | Words |\n|---|---|---|\n"
        "| a | FAIL | 12 |\n\n"
        "## Still failing\n\n| Skill | Issue | Failing since | Root cause |\n|---|---|---|---|\n"
        "| a | ISS-001 | 2026-13-45 | x |\n"
    )
    parsed = parse_article(text, path="a.md", day=date(2026, 1, 1))
    assert parsed.coverage is None and parsed.coverage_pct is None
    assert parsed.failing_since["a"].since == date(2026, 1, 1)
    assert parsed.unread == (f"Coverage '{'1' * 40}…' read as not a number",)


def test_a_metrics_file_of_more_than_max_rows_lines_reads_the_first_with_one_warning() -> None:
    """Issue 35.4: a planted metrics file of 400,000 made-up skills built 400,000 pages; a file
    holds at most MAX_ROWS skill lines, the rest ignored with one warning."""
    lines = [FIRST_LINE, "\t".join(COLUMNS)]
    lines += [f"fake-{i:06d}\tPASS\t1\t2\t\t\t\t\t\t" for i in range(MAX_ROWS + 500)]
    notes: list[str] = []
    found = parse_tsv("\n".join(lines) + "\n", day=date(2026, 1, 1), path="m.tsv", notes=notes)
    assert len(found) == MAX_ROWS
    assert notes == [
        f"m.tsv: more than {MAX_ROWS:,} skill lines (the limit): 500 lines after them ignored"
    ]


# --- property tests: random cells into every reader --------------------------------------------

HUGE = st.sampled_from(
    [
        "1" + "0" * 309,
        "9" * 5000,
        "-" + "9" * 400,
        "1e999",
        "-1e999",
        "inf",
        "-Infinity",
        "nan",
        "NaN",
        "[" * 5000,
        "{" * 3000,
        '{"n": 1' + "0" * 309 + "}",
        '{"n": 1e999}',
        '{"n": NaN}',
        '{"n": Infinity}',
        '{"n": "' + "9" * 5000 + '"}',
        '{"n": [1]}',
        '{"n": true}',
        "0x10",
        "1_000",
        "٣",  # an Arabic-Indic digit: isdigit() is true, int() reads it
        "²",  # a superscript: isdigit() is true, int() refuses it
    ]
)
NUMBERISH = st.one_of(
    st.integers().map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.floats().map(lambda f: json.dumps({"x": f})),
)
CELL = st.one_of(HUGE, NUMBERISH, st.text(max_size=30), st.just(""))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(*([CELL] * len(COLUMNS))), min_size=1, max_size=5))
def test_random_metrics_cells_are_read_or_refused_in_one_line(rows: list[tuple[str, ...]]) -> None:
    """Any cell: the file reads (every number finite, and it renders and reads back the same)
    or is refused as a MetricsError; never another exception."""
    text = "\n".join(
        [
            FIRST_LINE,
            "\t".join(COLUMNS),
            *("\t".join(c.replace("\n", " ") for c in r) for r in rows),
        ]
    )
    notes: list[str] = []
    try:
        found = parse_tsv(text, day=date(2026, 1, 1), path="m.tsv", notes=notes)
    except MetricsError as exc:
        assert exc.line().startswith("m.tsv: ")
        assert "\n" not in exc.line()
        return
    assert len(notes) <= 1
    for sample in found.values():
        for value in (sample.age_days, sample.quality, *(v for _, v in sample.numeric)):
            assert value is None or math.isfinite(value)
        for count in (sample.words, sample.bytes):
            assert count is None or abs(count) < 10**31
    again = parse_tsv(render_tsv(found.items()), day=date(2026, 1, 1), path="m.tsv")
    assert again == found


ARTICLE_CELL = st.one_of(HUGE, NUMBERISH, st.text(max_size=30))


@settings(max_examples=200, deadline=None)
@given(
    words=st.lists(ARTICLE_CELL, min_size=1, max_size=4),
    coverage=ARTICLE_CELL,
    since=st.one_of(ARTICLE_CELL, st.from_regex(r"\d{4}-\d{2}-\d{2}", fullmatch=True)),
    issue=ARTICLE_CELL,
)
def test_random_article_cells_parse_or_are_refused_in_one_line(
    words: list[str], coverage: str, since: str, issue: str
) -> None:
    """Any Words, Coverage, Failing since or Issue cell: the article parses, every count a
    bounded integer, or it is refused as an ArticleParseError; never another exception."""

    def cell(text: str) -> str:
        return text.replace("|", "/").replace("\n", " ")

    rows = "".join(f"| s{i} | FAIL | {cell(w)} |\n" for i, w in enumerate(words))
    text = (
        f"# Skill Evals\n\n**Verdict:** SKILL_EVALS_OK\n**Coverage:** {cell(coverage)}\n\n"
        f"## Full Results\n\n| Skill | Status | Words |\n|---|---|---|\n{rows}\n"
        "## Still failing\n\n| Skill | Issue | Failing since | Root cause |\n|---|---|---|---|\n"
        f"| s0 | ISS-{cell(issue)} | {cell(since)} | x |\n"
    )
    try:
        parsed = parse_article(text, path="a.md", day=date(2026, 1, 1))
    except ArticleParseError:
        return
    for row in parsed.rows.values():
        assert row.words is None or 0 <= row.words < 10**34
    if parsed.coverage_pct is not None:
        assert math.isfinite(parsed.coverage_pct)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(HUGE, st.text(max_size=20)), min_size=1, max_size=4))
def test_random_index_rows_are_read(ids: list[str]) -> None:
    """Any ISS-<cell> in INDEX.md's tables is read (a number of more than 30 digits is no
    issue's id), never a ValueError."""
    rows = "".join(f"| [ISS-{i}](ISS-{i}.md) | t | high | c | 2026-01-01 | s |\n" for i in ids)
    text = (
        "# Issues\n\n## Open\n\n| ID | Title | Severity | Category | Detected | Affected Skills |\n"
        f"|----|-------|----------|----------|----------|-----------------|\n{rows}"
    )
    index = Index(text)
    assert index.text == text


@given(st.one_of(HUGE, NUMBERISH, st.text(max_size=40)))
def test_the_bounded_number_readers_never_raise_but_value_error(text: str) -> None:
    for read in (bounded_int, bounded_float):
        try:
            value = read(text)
        except ValueError:
            continue
        assert value is None or (
            (math.isfinite(value) and abs(value) < 10**31) or read is bounded_float
        )
    words = parse_words(text)
    assert words is None or 0 <= words < 10**34
    assert finite(text) is None


def test_an_output_holding_a_400_digit_number_fails_its_numeric_check_not_exit_70(
    tmp_path: Path, cli: Cli
) -> None:
    """Regression: an output whose numeric check found `$` and 400 nines read it as infinity
    and showed it with int(), OverflowError, exit 70."""
    root = _demo(tmp_path, cli)
    (root / "articles/cost-report-2026-12-02.md").write_text(
        "# Cost\n\nTotal spend $" + "9" * 400 + " today.\n", encoding="utf-8"
    )
    code, out, err = cli("run", "--root", str(root), "--now", NEXT, "--no-notify", "--json")
    assert code == 0, err
    row = next(s for s in json.loads(out)["skills"] if s["skill"] == "cost-report")
    assert "numeric_oob:dollar amount" in {c["code"] for c in row["root_causes"]}

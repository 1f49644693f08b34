"""Render the dated article, the daily-log section and the notification body (SPEC §7–8)."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from datetime import date
from typing import TYPE_CHECKING

from aeon_evals.articles.parse import body_html, parse_article, unescape_cell
from aeon_evals.fs import daylog
from aeon_evals.model import Coverage, DiffLabel, ParsedArticle, Status, Verdict
from aeon_evals.report.diff import DiffCounts, Numbers, Row, counted, coverage_change, numbers
from aeon_evals.text import mdtable
from aeon_evals.text.controls import one_line, show_name

if TYPE_CHECKING:
    from aeon_evals.catalog.summary import CatalogSummary

MAX_GAP_LINES = 10
ROOT_CAUSE = 3  # RESULT_HEADER's Root cause: cause codes, shown as text
RESULT_HEADER = [
    "Skill",
    "Status",
    "Diff",
    "Root cause",
    "Quality",
    "Words",
    "Last output",
    "Notes",
]
# history.parse_article finds this section by its title's start: keep "Inferred contracts" first
INFERRED_HEADING = "## Inferred contracts (from SKILL.md; report only: no issues, no verdict)"
WITHOUT_HEADING = "## Without a contract (enabled, not in evals.json, no usable SKILL.md contract)"
UNSCORED_HEADING = "## Listed, not scored (enabled, `scorable: false` in their SKILL.md)"
GAPS_HEADING = "## Coverage Gaps (enabled in aeon.yml, missing from evals.json)"


def no_actions(verdict: Verdict) -> str:
    """What an empty Action Queue says: "all green" only when the verdict is OK or RECOVERED (a
    coverage cliff, or a broken aeon.yml, can leave nothing to do and still not be green)."""
    return "none — all green" if verdict in (Verdict.OK, Verdict.RECOVERED) else "none"


@dataclass(frozen=True)
class ArticleData:
    """Everything the article shows, decided before rendering."""

    day: date
    verdict: Verdict
    coverage: Coverage
    previous_pct: float | None
    counts: DiffCounts
    actions: list[str]
    rows: list[Row]
    gaps: list[tuple[str, str]]
    sources: list[str]
    legacy_pct: float | None = (
        None  # the previous article's coverage when it was counted another way
    )
    contracts: str | None = (
        None  # what the Coverage line adds: "+83 inferred; 2 without a contract"
    )
    inferred_counts: DiffCounts | None = None  # the Inferred contracts section's own diff (report)
    without: list[tuple[str, str]] = field(default_factory=list)  # (skill, why no contract)
    unscored: list[str] = field(default_factory=list)  # `scorable: false`: listed, not scored
    # what cron-state says of a skill of those two lists gone silent or failing (facts.silent)
    silent: dict[str, str] = field(default_factory=dict)
    catalog: CatalogSummary | None = None  # `aeon-evals lint`'s checks; None: no SKILL.md at all
    fleet: list[str] = field(default_factory=list)  # fleet findings, one line each (issue #32)

    @functools.cached_property
    def numbers(self) -> Numbers:
        """The run's numbers, computed once; every surface renders these."""
        return numbers(
            self.rows,
            verdict=self.verdict,
            coverage=self.coverage,
            previous_pct=self.previous_pct,
            legacy_pct=self.legacy_pct,
            actions=self.actions,
        )


def pct_text(pct: float) -> str:
    text = f"{pct:.1f}"
    return text[:-2] if text.endswith(".0") else text


def coverage_line(
    coverage: Coverage,
    previous_pct: float | None,
    legacy_pct: float | None = None,
    contracts: str | None = None,
) -> str:
    """`12/97 (12.4%) ↑ vs prior …`; with SKILL.md contracts (`contracts`: what the coverage is
    by, `Scope.line`), `12/97 (12.4%) by evals.json, +83 inferred; 2 without a contract …` (the
    ratio and percentage stay first: they are parsed)."""
    now = f"{coverage.covered}/{coverage.enabled} ({pct_text(coverage.pct)}%)"
    if contracts:
        now += f" by {contracts}"
    if legacy_pct is not None:
        return (
            f"{now} (prior article counted coverage another way: {pct_text(legacy_pct)}%; "
            "not compared)"
        )
    if previous_pct is None:
        return f"{now} (first run)"
    delta = coverage_change(coverage.pct, previous_pct)
    if abs(delta) < 0.05:
        return f"{now} = vs prior {pct_text(previous_pct)}%"
    arrow = "↑" if delta > 0 else "↓"
    return f"{now} {arrow} vs prior {pct_text(previous_pct)}% ({delta:+.1f} pp)"


def row_flags(row: Row) -> list[str]:
    """The Notes cell: disabled, muted, flaky, which log was used, cron-state mismatches."""
    result = row.result
    if result is None:
        return list(row.kept.flags) if row.kept else []
    flags: list[str] = []
    if not result.registered:
        flags.append("unregistered")
    elif not result.enabled:
        flags.append("disabled")
    if result.muted is not None:
        reason = f": {result.muted.reason}" if result.muted.reason else ""
        flags.append(f"muted until {result.muted.until.isoformat()}{reason}")
        if result.status is Status.PASS:
            flags.append("can unmute")
    if row.flaky:
        flags.append("flaky")
    if result.spec_source is not None:
        flags.append(f"spec {result.spec_source}")
    flags.extend(result.notes)
    return flags


def _words(value: int | None) -> str:
    return "—" if value is None else f"{value:,}"


def cause_cell(row: Row) -> str:
    """The head cause with its detail, escaped for the Regressions and Still Failing tables: the
    code as text (a pattern's backticks are no code span), the detail as markdown (its code
    spans show a pattern or a heading as it is)."""
    result = row.result
    if result is not None:
        head = result.head
        code, detail = (head.code, head.detail) if head is not None else ("—", "")
    elif row.kept_cause is not None:  # a row a scoped run kept: its cause as written today
        code, _, detail = row.kept_cause.partition(" — ")
    else:
        code, detail = (row.kept.root_cause if row.kept is not None else "—"), ""
    return mdtable.escape_literal(code) + (f" — {mdtable.escape_cell(detail)}" if detail else "")


def _escaped(skill: str, status: str, cause: str, issue: str, since: str) -> list[str]:
    """A Regressions or Still Failing row, its cells escaped (the cause is already)."""
    return [
        *map(mdtable.escape_cell, (skill, status)),
        cause,
        *map(mdtable.escape_cell, (issue, since)),
    ]


def since_text(row: Row) -> str:
    """The Failing since cell: the day, or "—"."""
    return row.failing_since.since.isoformat() if row.failing_since else "—"


def _was(row: Row) -> str:
    """The Recovered table's Was cell: the previous status and cause, or a kept row's cell as
    today's article wrote it."""
    if row.previous is not None:
        return f"{row.previous.status.value} ({row.previous.root_cause})"
    return row.kept_was or "—"


def full_result_cells(row: Row) -> list[str]:
    """A Full Results (or Inferred contracts) row, each cell escaped for the table: the Root
    cause's codes as text (mdtable.escape_literal), the others as markdown."""
    cells = _full_result_raw(row)
    return [
        (mdtable.escape_literal if i == ROOT_CAUSE else mdtable.escape_cell)(cell)
        for i, cell in enumerate(cells)
    ]


def _full_result_raw(row: Row) -> list[str]:
    result = row.result
    if result is None and row.kept is not None:
        kept = row.kept
        return [
            kept.skill,
            kept.status.value,
            kept.diff,
            kept.root_cause,
            kept.quality,
            _words(kept.words),
            kept.last_output or "—",
            "; ".join(kept.flags) or "—",
        ]
    if result is None:
        previous = row.previous
        assert previous is not None
        return [previous.skill, "—", row.diff, "no longer in evals.json", "—", "—", "—", "—"]
    return [
        show_name(result.skill),
        result.status.value,
        row.diff,
        result.root_cause,
        result.quality,
        _words(result.words),
        result.output.path if result.output else "—",
        "; ".join(row_flags(row)) or "—",
    ]


def _status_order(row: Row) -> tuple[int, str]:
    status = row.status
    return (status.rank if status is not None else len(Status), row.skill)


def render_article(data: ArticleData) -> str:
    """The article in the SPEC §7 layout; empty sections are omitted."""
    return article(data).text()


def parsed_article(data: ArticleData, *, path: str) -> ParsedArticle | None:
    """`history.parse_article(render_article(data))`, without parsing the result tables' rows:
    the rest of the article is parsed, the rows' cells are taken as the parser would read them.
    None when the text holds what the parser treats specially (it is then parsed as a whole)."""
    return article(data).parsed(path=path)


@dataclass(frozen=True)
class Article:
    """One article's lines, laid out once for both its text and its parse (a run writes the one
    and hands the other to the dashboard)."""

    day: date
    lines: list[str]
    spans: tuple[Span, Span]  # where the Full Results and Inferred contracts rows are
    tables: tuple[list[list[str]], list[list[str]]]  # those rows' cells, escaped as written

    def text(self) -> str:
        """render_article's text."""
        return "\n".join(self.lines) + "\n"

    def parsed(self, *, path: str) -> ParsedArticle | None:
        """parsed_article's parse."""
        lines = self.lines
        if any("\x00" in line or "\r" in line for line in lines):
            return None
        (start, end), (i_start, i_end) = self.spans
        skeleton = "\n".join(lines[:start] + lines[end:i_start] + lines[i_end:]) + "\n"
        full, inferred = ([[_as_parsed(c) for c in row] for row in t] for t in self.tables)
        return parse_article(
            skeleton,
            path=path,
            day=self.day,
            full_rows=full,
            inferred_full_rows=inferred if i_end > i_start else None,
        )


def article_body(article: Article) -> str | None:
    """`history.BODY_MD.render(article.text())`, the article's HTML on its run page, with the
    result tables' rows made from their cells instead of parsed back (history.body_html); None
    when the text holds what the parser treats specially (it is then rendered as a whole)."""
    lines = article.lines
    if any("\x00" in line or "\r" in line for line in lines):
        return None
    (start, _end), (i_start, i_end) = article.spans
    full, inferred = article.tables
    tables = [(start, full), *([(i_start, inferred)] if i_end > i_start else [])]
    try:
        return body_html(lines, tables)
    except ValueError:
        return None


def _as_parsed(cell: str) -> str:
    """What the parser reads back from a cell written escaped as `cell` (markdown-it's table
    rule drops the backslash of `\\|` and trims; then parse.unescape_cell), at once for the
    usual cell (no `\\`, nothing to trim), which it leaves as it is."""
    if "\\" not in cell and cell == cell.strip():
        return cell
    return unescape_cell(cell.replace("\\|", "|").strip())


def article(data: ArticleData) -> Article:
    """The article of `data`, laid out (render_article and parsed_article in one)."""
    return Article(data.day, *_article_lines(data))


Span = tuple[int, int]


def _article_lines(
    data: ArticleData,
) -> tuple[list[str], tuple[Span, Span], tuple[list[list[str]], list[list[str]]]]:
    """The article's lines, where the Full Results and Inferred contracts rows are among them,
    and those rows' cells."""
    coverage = coverage_line(data.coverage, data.previous_pct, data.legacy_pct, data.contracts)
    # one paragraph each: lines of one paragraph run together on GitHub (no hard breaks)
    out = [
        f"# Skill Evals — {data.day.isoformat()}",
        "",
        f"**Verdict:** {data.verdict.value}",
        "",
        f"**Coverage:** {coverage}",
        "",
        f"**Diff:** {data.counts.summary()}",
        "",
    ]
    if data.catalog is not None:
        out += [f"**Catalog:** {data.catalog.line()}", ""]
    if data.fleet:  # one cause explains many failures: said first
        out += ["## Fleet findings", *[f"- {one_line(f, tabs=True)}" for f in data.fleet], ""]
    if data.actions:
        out += [
            "## Action Queue",
            *[f"{i}. {one_line(a, tabs=True)}" for i, a in enumerate(data.actions, 1)],
            "",
        ]
    else:
        out += [f"Action Queue: {no_actions(data.verdict)}.", ""]

    regressions = [
        r
        for r in data.rows
        if r.label in (DiffLabel.NEW_FAIL, DiffLabel.NEW_QUALITY_DEGRADED) and counted(r)
    ]
    if regressions:
        out += ["## Regressions (NEW_FAIL + NEW_QUALITY_DEGRADED)"]
        out += mdtable.table(
            ["Skill", "Status", "Root cause", "Issue", "Failing since"],
            [
                _escaped(show_name(r.skill), r.diff, cause_cell(r), r.issue or "—", since_text(r))
                for r in sorted(regressions, key=_status_order)
            ],
            cell=str,
        )
        out.append("")
    # a scoped run's kept rows too: the tables show what the Diff line counts
    recovered = [r for r in data.rows if r.label is DiffLabel.FIXED and counted(r)]
    if recovered:
        out += ["## Recovered (FIXED)"]
        out += mdtable.table(
            ["Skill", "Was", "Now"],
            [
                [
                    show_name(r.skill),
                    _was(r),
                    str(r.status),
                ]
                for r in sorted(recovered, key=lambda r: r.skill)
            ],
        )
        out.append("")
    still = [r for r in data.rows if r.label is DiffLabel.STILL_FAIL and counted(r)]
    out += _cause_table("## Still Failing", still)
    # failing rows of disabled, unregistered or muted skills and of contracts reported only: no
    # verdict, no issue, but what is wrong in words like any other (their Full Results or
    # Inferred contracts row gives only the codes)
    apart = [r for r in data.rows if not counted(r) and r.status is not None and r.status.failing]
    out += _cause_table(
        "## Counted apart (disabled, unregistered, muted or reported only: no verdict, no issue)",
        apart,
    )
    out += ["## Full Results"]
    cells = [
        full_result_cells(r)
        for r in sorted((r for r in data.rows if not r.reported_only), key=_status_order)
    ]
    out += mdtable.table(RESULT_HEADER, cells, cell=str)
    span = (len(out) - len(cells), len(out))
    out.append("")
    reported = [r for r in data.rows if r.reported_only]
    inferred_cells: list[list[str]] = []
    inferred_span = (len(out), len(out))
    if reported:
        out += [INFERRED_HEADING]
        if data.inferred_counts is not None:
            out += [f"Inferred diff: {data.inferred_counts.summary()}", ""]
        inferred_cells = [full_result_cells(r) for r in sorted(reported, key=_status_order)]
        out += mdtable.table(RESULT_HEADER, inferred_cells, cell=str)
        inferred_span = (len(out) - len(inferred_cells), len(out))
        out.append("")
    said = {skill: f"; {one_line(note, tabs=True)}" for skill, note in data.silent.items()}
    out += _listed(
        WITHOUT_HEADING,
        [
            f"{show_name(skill)} — {one_line(why, tabs=True)}{said.get(skill, '')}"
            for skill, why in data.without
        ],
    )
    out += _listed(
        UNSCORED_HEADING,
        [
            f"{show_name(skill)} — {said[skill][2:]}" if skill in said else show_name(skill)
            for skill in data.unscored
        ],
    )
    # a skill listed, not scored, is no gap: it has no spec to add
    unscored = set(data.unscored)
    out += _listed(
        GAPS_HEADING,
        [
            f"{show_name(skill)} — inferred pattern: `{one_line(pattern, tabs=True)}`"
            if pattern
            else f"{show_name(skill)} — no output pattern inferred"
            for skill, pattern in data.gaps
            if skill not in unscored
        ],
    )
    out += ["## Sources", *[f"- {one_line(s, tabs=True)}" for s in data.sources]]
    return out, (span, inferred_span), (cells, inferred_cells)


def _cause_table(heading: str, rows: list[Row]) -> list[str]:
    """A table of failing rows with their cause in words, issue and failing-since date (Still
    Failing, Counted apart), worst first; nothing when there are no rows."""
    if not rows:
        return []
    return [
        heading,
        *mdtable.table(
            ["Skill", "Status", "Root cause", "Issue", "Failing since"],
            [
                _escaped(
                    show_name(r.skill), str(r.status), cause_cell(r), r.issue or "—", since_text(r)
                )
                for r in sorted(rows, key=_status_order)
            ],
            cell=str,
        ),
        "",
    ]


def _listed(heading: str, items: list[str]) -> list[str]:
    """A short list section: the heading, at most MAX_GAP_LINES items, `+N more`, a blank line;
    nothing when there are no items."""
    if not items:
        return []
    more = [f"+{len(items) - MAX_GAP_LINES} more"] if len(items) > MAX_GAP_LINES else []
    return [heading, *(f"- {item}" for item in items[:MAX_GAP_LINES]), *more, ""]


def log_section(data: ArticleData, *, article: str, filed: list[str], closed: list[str]) -> str:
    """The `### skill-evals` section appended to memory/logs/DATE.md."""
    coverage = coverage_line(data.coverage, data.previous_pct, data.legacy_pct, data.contracts)
    return (
        "\n".join(
            [
                daylog.SECTION,
                f"- Verdict: {data.verdict.value}",
                f"- Diff: {data.counts.summary()}",
                f"- Coverage: {coverage}",
                f"- Issues filed: {', '.join(filed) or 'none'}",
                f"- Issues closed: {', '.join(closed) or 'none'}",
                "- Action queue head: "
                + (
                    one_line(data.actions[0], tabs=True)
                    if data.actions
                    else no_actions(data.verdict)
                ),
                f"- Article: {article}",
            ]
        )
        + "\n"
    )

"""What the newest article says about each skill, as the dashboard leads with it (pure).

A `Finding` is one skill's row of the newest article: its status and diff label as written
(whatever label the article carries: the site never decides a label itself), the cause codes,
the cause's expected-vs-actual detail ("107 words, minimum 200") where the article gives one,
since when it has been failing and its issue. The index's skills table and every skill page
read the same findings, so the two never disagree with each other or with the article.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from markupsafe import Markup, escape

from aeon_evals.model import ArticleRow, ParsedArticle, Status

NO_CAUSE = "—"
# The article writes a cause with its detail as "code — detail" (report.render.cause_cell).
_DETAIL_SEP = " — "


@dataclass(frozen=True)
class Finding:
    """One skill's row of the newest article, with what the article's other tables add."""

    day: date  # the article's run
    status: Status
    diff: str  # the diff label as the article wrote it ("" when it wrote none)
    codes: str  # the Root cause cell's codes ("word_count; stale_file"), "—" when clean
    detail: str  # expected vs actual for the head cause, "" when the article gives none
    since: date | None  # failing since, as the article says (None: not failing)
    issue: str | None  # the ISS-NNN the article names for the skill
    notes: tuple[str, ...] = ()  # the Notes cell: disabled, muted, which log was used …
    inferred: bool = False  # a row of the Inferred contracts table (report mode)

    @property
    def failing(self) -> bool:
        return self.status.failing

    @property
    def headline(self) -> str:
        """What the finding says first, in words: the detail, else the cause codes, else that
        nothing was found."""
        if self.detail:
            return self.detail
        if self.codes != NO_CAUSE:
            return self.codes
        return "every check passed" if self.status is Status.PASS else ""

    @property
    def cause(self) -> str:
        """The root cause as the index shows it: the codes, then the detail when there is one
        ("word_count — 107 words, minimum 200")."""
        return f"{self.codes}{_DETAIL_SEP}{self.detail}" if self.detail else self.codes

    def since_text(self, today: date) -> str:
        """ "2026-05-31 (77 d)", or "—" when the skill is not failing."""
        if self.since is None or not self.failing:
            return "—"
        return f"{self.since.isoformat()} ({(today - self.since).days} d)"


def split_cause(cell: str) -> tuple[str, str]:
    """A Root cause cell as (codes, detail): "word_count — 107 words, minimum 200" is
    ("word_count", "107 words, minimum 200"); a cell without a detail is (cell, "")."""
    cell = cell.strip()
    if _DETAIL_SEP in cell:
        codes, detail = cell.split(_DETAIL_SEP, 1)
        return codes.strip() or NO_CAUSE, detail.strip()
    return cell or NO_CAUSE, ""


def finding(article: ParsedArticle, skill: str, row: ArticleRow, *, inferred: bool) -> Finding:
    """`skill`'s finding in `article`, from its row (Full Results or Inferred contracts) and the
    Regressions and Still Failing tables (the cause with its detail, since when, the issue)."""
    codes, detail = split_cause(row.root_cause)
    told = article.causes.get(skill)
    if told and not detail:
        told_codes, detail = split_cause(told)
        if codes == NO_CAUSE:
            codes = told_codes
    since = article.failing_since.get(skill)
    issue = article.issues.get(skill) or (since.issue if since is not None else None)
    return Finding(
        day=article.day,
        status=row.status,
        diff=row.diff,
        codes=codes,
        detail=detail,
        since=since.since if since is not None and row.status.failing else None,
        issue=issue,
        notes=row.flags,
        inferred=inferred,
    )


def findings(article: ParsedArticle | None) -> dict[str, Finding]:
    """Every skill's finding in `article` (none without one): its Full Results rows, then the
    Inferred contracts rows of skills not among them."""
    if article is None:
        return {}
    found = {
        skill: finding(article, skill, row, inferred=True)
        for skill, row in article.inferred_rows.items()
    }
    found.update(
        (skill, finding(article, skill, row, inferred=False)) for skill, row in article.rows.items()
    )
    return found


_CODE_SPAN = re.compile(r"`([^`]+)`")


def code_spans(text: str) -> Markup:
    """`text` escaped, its `code spans` shown as code: a detail as the article writes it,
    without reading the rest of it as markdown (a `*` or `_` in a pattern stays as it is)."""
    parts: list[str] = []
    last = 0
    for match in _CODE_SPAN.finditer(text):
        parts.append(str(escape(text[last : match.start()])))
        parts.append(f"<code>{escape(match.group(1))}</code>")
        last = match.end()
    parts.append(str(escape(text[last:])))
    return Markup("".join(parts))

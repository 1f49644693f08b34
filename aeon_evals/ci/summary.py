"""The GitHub job summary of a run (issue #9): verdict, numbers and capped tables, in markdown
under GitHub's size limit. Pure: `commands/run_cmd.py` writes it."""

from __future__ import annotations

from collections.abc import Mapping

from aeon_evals.ci.gate import FailOn, fail_reason
from aeon_evals.report.diff import Row
from aeon_evals.report.message import blob_url
from aeon_evals.report.render import cause_cell, coverage_line, no_actions, since_text
from aeon_evals.run.data import RunOutcome
from aeon_evals.text import mdspan, mdtable
from aeon_evals.text.controls import one_line
from aeon_evals.text.mdtable import escape_cell

# GitHub refuses a step summary over 1 MiB; stay far below so other steps keep room too.
MAX_SUMMARY_BYTES = 512 * 1024
MAX_TABLE_ROWS = 100  # per summary table; the article has every row
MAX_CELL_CHARS = 300


def article_url(env: Mapping[str, str], article_path: str) -> str | None:
    """The article's file on GitHub (report.message.blob_url), or None outside Actions."""
    return blob_url(env, article_path)


def _md_cell(text: str) -> str:
    text = text if len(text) <= MAX_CELL_CHARS else text[: MAX_CELL_CHARS - 1] + "…"
    return _md_escaped(escape_cell(one_line(text)))  # a name's newline shown as `\n`


def _md_escaped(text: str) -> str:
    """A cell already escaped for a table, for the summary GitHub renders as HTML: no tag opened
    by skill data (outside code spans: inside one, `<` is shown as it is and `&lt;` would show
    as typed), a tab (in a skill name, a cause) shown as `\t`, as the article shows it."""
    text = text.replace("\t", "\\t")
    return "".join(
        piece if code else piece.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        for code, piece in mdspan.split(text, escapes=True)
    )


class _Budget:
    """Bytes left for the summary; tables stop adding rows when it runs out."""

    def __init__(self, limit: int) -> None:
        self.left = limit

    def take(self, line: str) -> bool:
        size = len(line.encode("utf-8")) + 1
        if size > self.left:
            return False
        self.left -= size
        return True


CAUSE = frozenset({2})  # the Root cause column of Regressions and Still Failing: markdown


def _cut(text: str) -> str:
    """A cell of markdown cut to MAX_CELL_CHARS (never inside a backslash escape)."""
    if len(text) <= MAX_CELL_CHARS:
        return text
    cut = text[: MAX_CELL_CHARS - 1]
    slashes = len(cut) - len(cut.rstrip("\\"))
    return cut[: len(cut) - slashes % 2] + "…"


# Room kept for the "+N more rows" line and the sections after a table.
_RESERVE = 4096


def _table(
    title: str,
    header: list[str],
    rows: list[list[str]],
    budget: _Budget,
    more: str,
    escaped: frozenset[int] = frozenset(),
) -> list[str]:
    """A capped table; the cells of the columns in `escaped` are markdown already."""
    if not rows:
        return []
    out = [
        f"### {title}",
        "",
        *mdtable.header(header, short_rule=True),
    ]
    for line in out:
        budget.take(line)
    shown = 0
    for cells in rows[:MAX_TABLE_ROWS]:
        line = mdtable.row(
            _md_escaped(c) if i in escaped else _md_cell(c) for i, c in enumerate(cells)
        )
        if budget.left - _RESERVE < len(line.encode("utf-8")) + 1 or not budget.take(line):
            break
        out.append(line)
        shown += 1
    if shown < len(rows):
        tail = f"+{len(rows) - shown} more rows — see {more}"
        budget.take(tail)
        out += ["", tail]
    out.append("")
    return out


def job_summary(
    outcome: RunOutcome,
    *,
    fail_on: FailOn,
    code: int,
    article_link: str | None = None,
    dry_run: bool = False,
    limit: int = MAX_SUMMARY_BYTES,
) -> str:
    """Markdown for `$GITHUB_STEP_SUMMARY`: verdict, diff counts, Action Queue, regressions.

    Tables are cut to fit `limit` bytes (and 100 rows each), with a "+N more rows" line that
    links to the full article.
    """
    budget = _Budget(limit)
    data = outcome.article
    path = outcome.article_path
    if path and article_link and not dry_run:
        more = f"the [full article]({article_link})"
        article_line = f"**Article:** [{path}]({article_link})"
    else:
        more = f"the full article ({path})" if path else "the full article"
        article_line = (
            f"**Article:** `{path}`" + (" (dry run: not written)" if dry_run else "")
            if path
            else ""
        )
    reason = fail_reason(outcome, fail_on)
    gate = f"`--fail-on {fail_on.value}`: " + (
        f"tripped ({reason}) → exit {code}" if reason else f"not tripped → exit {code}"
    )
    out = [
        f"## Skill Evals — {outcome.day.isoformat()}",
        "",
        f"**Verdict:** `{outcome.verdict.value}`  ",
        f"{gate}  ",
    ]
    if data is not None:
        n = data.numbers
        apart = (
            f" ({len(n.failing_apart)} disabled or muted, not counted)" if n.failing_apart else ""
        )
        out += [
            "**Coverage:** "
            f"{coverage_line(n.coverage, n.previous_pct, n.legacy_pct, data.contracts)}  ",
            f"**Diff:** {n.counts.summary()}  ",
            f"**Failing now:** {len(n.failing)} of {n.evaluated}{apart}  ",
            *(f"**Fleet:** {_md_cell(f)}  " for f in data.fleet),
        ]
    if article_line:
        out.append(article_line)
    out.append("")
    out += [_md_cell(m) for m in outcome.messages]
    for line in out:
        budget.take(line)
    if data is not None:
        if n.actions:
            queue = [
                "### Action Queue",
                "",
                *[f"{i}. {_md_cell(a)}" for i, a in enumerate(n.actions, 1)],
                "",
            ]
        else:
            queue = [f"Action Queue: {no_actions(n.verdict)}.", ""]
        for line in queue:
            budget.take(line)
        out += queue
        # the article's lists: enabled, unmuted skills only (disabled and muted ones are apart)
        by_skill = {r.skill: r for r in data.rows}

        def listed(skills: tuple[str, ...]) -> list[Row]:
            return [by_skill[s] for s in skills]  # a scoped run's kept rows included

        regressions = listed(n.regressions)
        out += _table(
            "Regressions (NEW_FAIL + NEW_QUALITY_DEGRADED)",
            ["Skill", "Status", "Root cause", "Issue", "Failing since"],
            [
                [r.skill, r.diff, _cut(cause_cell(r)), r.issue or "—", since_text(r)]
                for r in regressions
            ],
            budget,
            more,
            CAUSE,
        )
        recovered = listed(n.recovered)
        out += _table(
            "Recovered (FIXED)",
            ["Skill", "Was", "Now"],
            [
                [r.skill, r.previous.status.value if r.previous else "—", str(r.status)]
                for r in recovered
            ],
            budget,
            more,
        )
        still = listed(n.still_failing)
        out += _table(
            "Still Failing",
            ["Skill", "Status", "Root cause", "Issue", "Failing since"],
            [
                [
                    r.skill,
                    str(r.status),
                    _cut(cause_cell(r)),
                    r.issue or "—",
                    since_text(r),
                ]
                for r in still
            ],
            budget,
            more,
            CAUSE,
        )
    if outcome.warnings:
        shown_warnings = [f"- {_md_cell(w)}" for w in outcome.warnings[:20]]
        extra = (
            [f"- +{len(outcome.warnings) - 20} more warnings — see the run log"]
            if len(outcome.warnings) > 20
            else []
        )
        block = [
            "<details><summary>Warnings</summary>",
            "",
            *shown_warnings,
            *extra,
            "",
            "</details>",
            "",
        ]
        if all(budget.take(line) for line in block):
            out += block
    text = "\n".join(out).rstrip("\n") + "\n"
    return _fit(text, limit)


def error_summary(message: str, code: int) -> str:
    """The job summary of a run that stopped before producing a result."""
    return f"## Skill Evals — stopped\n\n**aeon-evals exited {code}:** {_md_cell(message)}\n"


def _fit(text: str, limit: int) -> str:
    """Last guard: cut whole lines so the UTF-8 size never exceeds `limit`."""
    if len(text.encode("utf-8")) <= limit:
        return text
    note = "\n… summary cut to fit GitHub's size limit — see the full article\n"
    room = limit - len(note.encode("utf-8"))
    kept: list[str] = []
    used = 0
    for line in text.splitlines():
        size = len(line.encode("utf-8")) + 1
        if used + size > room:
            break
        kept.append(line)
        used += size
    return "\n".join(kept) + note

"""A page per skill (`site/skills/<skill>.html`) and its badges: view dataclasses, built purely.

The metrics history (metrics.History), the skill's issues and its spec in; frozen dataclasses
out. `build.py` renders them with `skill.html` and writes them with the badges (badges.py).
"""

from __future__ import annotations

import json
from bisect import bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from html import escape
from typing import NamedTuple

from markupsafe import Markup
from markupsafe import escape as escape_markup

from aeon_evals.issues import IssueFile
from aeon_evals.metrics.history import History
from aeon_evals.metrics.samples import SkillColumns
from aeon_evals.model import FAILING, Spec, Status
from aeon_evals.site.badges import badge_stem
from aeon_evals.site.charts import Chart
from aeon_evals.site.findings import Finding
from aeon_evals.site.skill_charts import (
    ChartMemo,
    chart_figures,
    charts_for,
    escaped,
    needs_escape,
    spec_limits,
)
from aeon_evals.site.skill_lead import FindingView, SkillIssueView, finding_view, skill_issues
from aeon_evals.site.views import ABSENT_MARK, STATUS_MARKS, Assets, Mark

MAX_OUTPUTS = 30  # outputs evaluated, newest first


class OutputView(NamedTuple):
    """One row of the outputs table (a named tuple: thirty a page are made faster than frozen
    dataclasses)."""

    day: str
    path: str
    href: str
    size: str
    sha256: str


@dataclass(frozen=True)
class SkillPage:
    """Everything skills/<skill>.html shows."""

    assets: Assets
    skill: str
    mark: Mark  # the latest status
    latest: str  # "2026-08-16: WARN · drift:words"
    finding: FindingView
    strip: Markup  # every run, oldest first
    runs: int
    pass_30: str  # "92% of 13 runs" or "no runs"
    pass_90: str
    charts: tuple[Chart, ...]
    outputs: tuple[OutputView, ...]
    issues: tuple[SkillIssueView, ...]
    spec: str  # the evals.json entry, pretty-printed; "" when there is none
    spec_source: str  # where the spec came from, in words
    spec_href: str
    badge_href: str
    badge_json: str
    root_href: str  # the instance root from skills/
    generated: str

    @property
    def charts_html(self) -> Markup:
        """The charts' figures, as skill.html showed them with a loop (chart_figures)."""
        return chart_figures(self.charts)

    @property
    def outputs_html(self) -> Markup:
        """The outputs table's rows (output_rows)."""
        return output_rows(self.outputs)

    @property
    def issues_html(self) -> Markup:
        """The issues table's rows (issue_rows)."""
        return issue_rows(self.issues)


# --------------------------------------------------------------------------------------------
# Pure builders.


class _Ticks(dict[tuple[date, Status | None, str, str], str]):
    """Each run's tick of the strip by (day, status, cause, what the skill's run reported), made
    when first met (with the `run_pages` of the strip being built)."""

    def __init__(self) -> None:
        super().__init__()
        self.run_pages: Mapping[date, str] = {}

    def __missing__(self, run: tuple[date, Status | None, str, str]) -> str:
        tick = self[run] = _tick(*run, self.run_pages)
        return tick


@dataclass(frozen=True)
class PageMemo:
    """What the pages of one build share, made once: each run's tick of the strip by day,
    status and cause, filled as met (a thousand strips of the same days), the issues by the
    skills they name (None: looked for in the list each time) and the charts' days (ChartMemo).
    For one `run_pages`."""

    ticks: _Ticks = field(default_factory=_Ticks)
    issues: Mapping[str, Sequence[IssueFile]] | None = None
    charts: ChartMemo = field(default_factory=ChartMemo)

    @classmethod
    def for_build(cls, issues: Sequence[IssueFile]) -> PageMemo:
        """A memo with `issues` indexed by the skills they name."""
        by_skill: dict[str, list[IssueFile]] = {}
        for issue in issues:
            for name in dict.fromkeys(issue.affected_skills):
                by_skill.setdefault(name, []).append(issue)
        return cls(issues=by_skill)


# What a skill's newest run reported (the metrics file's `run`, docs/outcomes.md) that the strip
# marks with a band at the foot of the tick; `ok` and `quiet` are healthy and unmarked.
RUN_MARKS = {"error": "run error", "partial": "partial run", "noop": "no-op"}


def _tick(
    day: date, status: Status | None, cause: str, run: str, run_pages: Mapping[date, str]
) -> str:
    """One run on the strip: a link to its run page, titled with the date, status, cause and
    what the skill's newest run reported (a band at its foot for an error, a partial run or a
    no-op)."""
    if status is None:
        css, label = ABSENT_MARK.css, "not evaluated"
    else:
        css, label = STATUS_MARKS[status].css, status.value
    outcome, _, token = run.partition(":")
    said = f" · run: {outcome}{f' {token}' if token else ''}" if run else ""
    # a date and a status value hold nothing to escape
    title = f"{day.isoformat()} · {label}{escape(f' · {cause}' if cause else '')}{escape(said)}"
    band = f" r-{outcome}" if outcome in RUN_MARKS else ""
    href = escape(run_pages.get(day, ""))
    # the title is the empty link's accessible name too (no aria-label repeating it: a year of
    # ticks is 365 of them a page, and a thousand pages are written every night)
    return f'<a class="tick s-{css}{band}" href="{href}" title="{title}"></a>'


def strip_html(
    days: Sequence[date],
    statuses: Sequence[Status | None],
    causes: Sequence[str],
    run_pages: Mapping[date, str],
    memo: PageMemo | None = None,
    runs: Sequence[str] | None = None,
) -> Markup:
    """The status strip of the runs (each one's day, status, cause and what the skill's newest
    run reported then, oldest first): one link per run, its title saying all four. Built here
    rather than in a template loop: a year of daily runs is 365 of them per page. `memo`: shared
    by the pages of one build, whose strips are made of the same ticks; `runs`: None, none
    read."""
    ticks = (memo if memo is not None else PageMemo()).ticks
    ticks.run_pages = run_pages  # (a tick not met yet links to its page in these)
    said = runs if runs is not None else [""] * len(days)
    return Markup("".join(map(ticks.__getitem__, zip(days, statuses, causes, said, strict=True))))


def output_rows(outputs: Sequence[OutputView]) -> Markup:
    """The rows of the outputs table (see chart_figures)."""
    # paths and hashes seldom hold anything to escape: looked for once in all of them
    e = escaped if needs_escape("".join([f"{o.path}{o.href}{o.sha256}" for o in outputs])) else str
    return Markup(
        "".join(
            # the day and the size are this module's text, with nothing to escape
            f'<tr><th scope="row" class="nowrap day">{o.day}</th><td data-label="Output" '
            f'class="path"><a href="{e(o.href)}">{e(o.path)}</a></td><td data-label="Size" '
            f'class="num nowrap short">{o.size}</td><td data-label="SHA-256" class="path sha">'
            f"{e(o.sha256)}</td></tr>\n"
            for o in outputs
        )
    )


_FAILING_ROW = ' class="failing"'


def issue_rows(issues: Sequence[SkillIssueView]) -> Markup:
    """The rows of the issues table (see chart_figures)."""
    e = escape_markup
    return Markup(
        "".join(
            f"<tr{_FAILING_ROW if i.open else ''}>"
            f'<th scope="row" class="nowrap"><a href="{e(i.href)}">{e(i.id)}</a></th>'
            f'<td data-label="Title" class="wrap">{e(i.title)}</td><td data-label="Status" '
            f'class="short">{e(i.status)}</td><td data-label="Detected" class="nowrap short">'
            f'{e(i.detected)}</td><td data-label="Age" class="nowrap short">{e(i.age)}</td>'
            "</tr>\n"
            for i in issues
        )
    )


_ENCODER = json.JSONEncoder(ensure_ascii=False)


def pretty_json(value: object) -> str:
    """`json.dumps(value, indent=2, ensure_ascii=False)`, built from the C encoder's pieces (the
    stdlib takes its pure-Python path whenever it indents: a spec on each of a thousand pages)."""
    try:
        return _pretty(value, "")
    except TypeError:  # a key that is not a string (never in JSON read from a file)
        return json.dumps(value, indent=2, ensure_ascii=False)


def _pretty(value: object, pad: str) -> str:
    inner = pad + "  "
    if isinstance(value, dict) and value:
        items = []
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(key)
            items.append(f"{inner}{_ENCODER.encode(key)}: {_pretty(item, inner)}")
        return "{\n" + ",\n".join(items) + f"\n{pad}}}"
    if isinstance(value, list | tuple) and value:
        return "[\n" + ",\n".join(inner + _pretty(item, inner) for item in value) + f"\n{pad}]"
    return _ENCODER.encode(value)


def pass_rate(
    days: Sequence[date], statuses: Sequence[Status | None], today: date, window: int
) -> str:
    """Share of the runs (each one's day and status, oldest first) in the last `window` days
    whose status is not failing, in words."""
    # the runs after `since` up to `today`, found by bisection; counted in C (a thousand pages
    # count two windows each)
    since = today - timedelta(days=window)
    within = statuses[bisect_right(days, since) : bisect_right(days, today)]
    judged = len(within) - within.count(None)
    if not judged:
        return "no runs"
    passing = judged - sum(map(within.count, FAILING))
    return f"{100 * passing / judged:.0f}% of {judged} run{'s' if judged != 1 else ''}"


def _size(n: int | None) -> str:
    if n is None:
        return "—"
    if n < 1024:
        return f"{n} B"
    return f"{n / 1024:.1f} KiB" if n < 1 << 20 else f"{n / (1 << 20):.1f} MiB"


class _IsoDays(dict[int, str]):
    """Each day ordinal's ISO date, made when first asked for (the pages share their days)."""

    def __missing__(self, ordinal: int) -> str:
        text = self[ordinal] = date.fromordinal(ordinal).isoformat()
        return text


_ISO_DAYS = _IsoDays()


def _outputs(cols: SkillColumns, root_href: str) -> tuple[OutputView, ...]:
    """The outputs evaluated (each run's output, SHA-256 and size), newest first, each once."""
    at = cols.newest_outputs(MAX_OUTPUTS)
    if not at:
        return ()
    # the span of runs they were evaluated in (usually the newest ones), each column read once
    lo, hi = min(at), max(at) + 1
    outputs, shas = cols.outputs_col.values(lo, hi), cols.shas_col.values(lo, hi)
    sizes, days = cols.bytes.values(lo, hi), cols.day_ords
    out: list[OutputView] = []
    for i in at:
        output = outputs[i - lo] or ""  # (never None: newest_outputs skips those)
        out.append(
            OutputView(
                _ISO_DAYS[days[i]],
                output,
                f"{root_href}/{output}",
                _size(sizes[i - lo]),
                shas[i - lo] or "—",
            )
        )
    return tuple(out)


def _drifted(days: Sequence[date], causes: Sequence[str]) -> dict[date, str]:
    """The cause of each run whose cause names a drift (looked for in all of them at once
    first: most skills never drifted)."""
    if "drift:" not in "\n".join(causes):
        return {}
    return {day: c for day, c in zip(days, causes, strict=True) if "drift:" in c}


def skill_page(
    skill: str,
    history: History,
    *,
    issues: Sequence[IssueFile],
    spec: object | None,
    run_pages: Mapping[date, str],
    today: date,
    assets: Assets,
    generated: str,
    root_href: str = "../..",
    skill_md: bool = False,
    memo: PageMemo | None = None,
    finding: Finding | None = None,
    checked: Spec | None = None,
) -> SkillPage:
    """The context of one skill's page. `spec`: its evals.json entry (None: none); `run_pages`:
    each run's page relative to skills/; `skill_md`: skills/<skill>/SKILL.md exists; `memo`:
    shared by the pages of one build (strip, issues); `finding`: the skill's row of the newest
    article (findings.finding; None: not in it); `checked`: its spec, validated (the bounds its
    charts draw)."""
    memo = memo if memo is not None else PageMemo()
    cols = history.columns(skill)
    days, statuses, causes = cols.days(), cols.statuses(), cols.causes()
    last = cols.sample(len(days) - 1) if days else None
    named = skill_issues(skill, issues, today, root_href, memo.issues)
    lead = finding_view(finding, days, statuses, causes, named, today)
    mark = lead.mark
    latest = "no run recorded"
    if lead.day:
        latest = f"{lead.day}: {mark.label}" + (
            f" · {lead.codes or lead.headline}" if lead.codes or lead.failing else ""
        )
    elif last is not None:
        latest = f"{last.day.isoformat()}: {last.status.value if last.status else '—'}"
    if spec is not None:
        spec_text = pretty_json(spec)
        source = "its entry in skills/skill-evals/evals.json"
        spec_href = f"{root_href}/skills/skill-evals/evals.json"
    else:
        spec_text = ""
        source = (
            "no evals.json entry: evaluated on the output contract inferred from its SKILL.md"
            if skill_md
            else "no evals.json entry and no SKILL.md"
        )
        spec_href = f"{root_href}/skills/{skill}/SKILL.md" if skill_md else ""
    return SkillPage(
        assets=assets,
        skill=skill,
        mark=mark,
        latest=latest,
        finding=lead,
        strip=strip_html(days, statuses, causes, run_pages, memo, cols.runs()),
        runs=len(days),
        pass_30=pass_rate(days, statuses, today, 30),
        pass_90=pass_rate(days, statuses, today, 90),
        charts=charts_for(
            skill, history, memo.charts, _drifted(days, causes), spec_limits(checked)
        ),
        outputs=_outputs(cols, root_href),
        issues=named,
        spec=spec_text,
        spec_source=source,
        spec_href=spec_href,
        badge_href=f"../badges/{badge_stem(skill)}.svg",
        badge_json=f"../badges/{badge_stem(skill)}.json",
        root_href=root_href,
        generated=generated,
    )

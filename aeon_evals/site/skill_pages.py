"""A page per skill (`site/skills/<skill>.html`) and its badges: view dataclasses, built purely.

The metrics history (metrics.History), the skill's issues and its spec in; frozen dataclasses
out. `build.py` renders them with `skill.html` and writes them with the badges (badges.py).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from html import escape

from markupsafe import Markup
from markupsafe import escape as escape_markup

from aeon_evals.issues import IssueFile
from aeon_evals.metrics import History, Sample
from aeon_evals.model import Status
from aeon_evals.site.skill_charts import MetricChart, chart_figures, charts_for
from aeon_evals.site.views import ABSENT_MARK, STATUS_MARKS, Assets, Mark

MAX_OUTPUTS = 30  # outputs evaluated, newest first


@dataclass(frozen=True)
class OutputView:
    day: str
    path: str
    href: str
    size: str
    sha256: str


@dataclass(frozen=True)
class SkillIssueView:
    id: str
    title: str
    status: str
    open: bool
    detected: str
    age: str  # "open 12 d" / "resolved after 5 d"
    href: str


@dataclass(frozen=True)
class SkillPage:
    """Everything skills/<skill>.html shows."""

    assets: Assets
    skill: str
    mark: Mark  # the latest status
    latest: str  # "2026-08-16: WARN · drift:words"
    strip: Markup  # every run, oldest first
    runs: int
    pass_30: str  # "92% of 13 runs" or "no runs"
    pass_90: str
    charts: tuple[MetricChart, ...]
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


# --------------------------------------------------------------------------------------------
# Pure builders.


@dataclass(frozen=True)
class StripMemo:
    """What the strips of one build's pages share, escaped once: each day's ISO text and run
    link, each cause as " · cause". Filled as met; only for one `run_pages`."""

    days: dict[date, tuple[str, str]] = field(default_factory=dict)
    causes: dict[str, str] = field(default_factory=dict)


def strip_html(
    samples: Sequence[Sample], run_pages: Mapping[date, str], memo: StripMemo | None = None
) -> Markup:
    """The status strip, oldest first: one link per run, its title the date, status and cause.
    Built here rather than in a template loop: a year of daily runs is 365 of them per page.
    `memo`: shared by the pages of one build (a thousand strips of the same days)."""
    memo = memo if memo is not None else StripMemo()
    days, causes = memo.days, memo.causes
    parts = []
    for s in samples:
        day = days.get(s.day)
        if day is None:
            day = days[s.day] = (s.day.isoformat(), escape(run_pages.get(s.day, "")))
        cause = causes.get(s.cause)
        if cause is None:
            cause = causes[s.cause] = escape(f" · {s.cause}") if s.cause else ""
        if s.status is None:
            css, label = ABSENT_MARK.css, "not evaluated"
        else:
            css, label = STATUS_MARKS[s.status].css, s.status.value
        # a date and a status value hold nothing to escape
        title = f"{day[0]} · {label}{cause}"
        parts.append(
            f'<a class="tick s-{css}" href="{day[1]}" title="{title}" aria-label="{title}"></a>'
        )
    return Markup("".join(parts))


def output_rows(outputs: Sequence[OutputView]) -> Markup:
    """The rows of the outputs table (see chart_figures)."""
    e = escape_markup
    return Markup(
        "".join(
            f'<tr><td class="nowrap">{e(o.day)}</td><td class="path"><a href="{e(o.href)}">'
            f'{e(o.path)}</a></td><td class="num nowrap">{e(o.size)}</td>'
            f'<td class="path sha">{e(o.sha256)}</td></tr>\n'
            for o in outputs
        )
    )


def pass_rate(samples: Sequence[Sample], today: date, days: int) -> str:
    """Share of runs in the last `days` days whose status is not failing, in words."""
    since = today - timedelta(days=days)
    window = [s.status for s in samples if s.status is not None and since < s.day <= today]
    if not window:
        return "no runs"
    passing = sum(1 for status in window if not status.failing)
    pct = 100 * passing / len(window)
    return f"{pct:.0f}% of {len(window)} run{'s' if len(window) != 1 else ''}"


def _size(n: int | None) -> str:
    if n is None:
        return "—"
    if n < 1024:
        return f"{n} B"
    return f"{n / 1024:.1f} KiB" if n < 1 << 20 else f"{n / (1 << 20):.1f} MiB"


def _outputs(samples: Sequence[Sample], root_href: str) -> tuple[OutputView, ...]:
    seen: set[tuple[str, str | None]] = set()
    out: list[OutputView] = []
    for s in reversed(samples):
        if s.output is None or (s.output, s.sha256) in seen:
            continue
        seen.add((s.output, s.sha256))
        out.append(
            OutputView(
                s.day.isoformat(),
                s.output,
                f"{root_href}/{s.output}",
                _size(s.bytes),
                s.sha256 or "—",
            )
        )
        if len(out) == MAX_OUTPUTS:
            break
    return tuple(out)


def _day(text: str | None) -> date | None:
    try:
        return date.fromisoformat((text or "").strip()[:10])
    except ValueError:
        return None


def skill_issues(
    skill: str, issues: Sequence[IssueFile], today: date, root_href: str
) -> tuple[SkillIssueView, ...]:
    """The issues naming `skill`: open ones first, newest first, with their ages."""
    views = []
    for issue in issues:
        if skill not in issue.affected_skills:
            continue
        detected = _day(issue.detected_at)
        resolved = _day(issue.resolved_at)
        if issue.is_open:
            age = f"open {(today - detected).days} d" if detected else "open"
        elif detected and resolved:
            age = f"resolved after {(resolved - detected).days} d"
        else:
            age = "resolved"
        views.append(
            SkillIssueView(
                issue.id,
                issue.title,
                issue.status,
                issue.is_open,
                detected.isoformat() if detected else (issue.detected_at or "?"),
                age,
                f"{root_href}/{issue.path}",
            )
        )
    return tuple(sorted(views, key=lambda v: (not v.open, v.detected), reverse=False))


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
    memo: StripMemo | None = None,
) -> SkillPage:
    """The context of one skill's page. `spec`: its evals.json entry (None: none); `run_pages`:
    each run's page relative to skills/; `skill_md`: skills/<skill>/SKILL.md exists; `memo`:
    shared by the pages of one build (strip_html)."""
    samples = history.samples.get(skill, ())
    last = samples[-1] if samples else None
    mark = STATUS_MARKS[last.status] if last is not None and last.status else ABSENT_MARK
    latest = "no run recorded"
    if last is not None:
        latest = f"{last.day.isoformat()}: {last.status.value if last.status else '—'}"
        latest += f" · {last.cause}" if last.cause else ""
    if spec is not None:
        spec_text = json.dumps(spec, indent=2, ensure_ascii=False)
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
        strip=strip_html(samples, run_pages, memo),
        runs=len(samples),
        pass_30=pass_rate(samples, today, 30),
        pass_90=pass_rate(samples, today, 90),
        charts=charts_for(skill, history),
        outputs=_outputs(samples, root_href),
        issues=skill_issues(skill, issues, today, root_href),
        spec=spec_text,
        spec_source=source,
        spec_href=spec_href,
        badge_href=f"../badges/{skill}.svg",
        badge_json=f"../badges/{skill}.json",
        root_href=root_href,
        generated=generated,
    )


def latest_statuses(history: History) -> dict[str, Status | None]:
    """Each skill's status in its newest recorded run."""
    return {skill: samples[-1].status for skill, samples in history.samples.items() if samples}

"""The run as one json-render card for Aeon's dashboard feed (`apps/dashboard/outputs/`).

Aeon's dashboard shows each skill run as a card: `{root, state, elements}`, where every element
is `{type, props, children?}` and children are element ids. The old LLM skill wrote one per run;
this module builds the same kind of card, in the element vocabulary the real cards use, from the
data the article shows. Pure: the pipeline writes it.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from aeon_evals.model import DiffLabel, Verdict
from aeon_evals.report.diff import coverage_change
from aeon_evals.report.render import ArticleData, pct_text

SKILL = "skill-evals"
MAX_REGRESSIONS = 10  # then one "+N more" line: the article has them all
# Every element type the real cards in ../shared/realdata use (Aeon's json-render catalogue).
ELEMENT_TYPES = frozenset(
    {"Alert", "Badge", "Card", "Grid", "Heading", "Link", "Separator", "Stack", "Stat"}
    | {"StoryLink", "Text"}
)
_ALERT = {
    Verdict.REGRESSED: "error",
    Verdict.QUALITY_DROP: "warning",
    Verdict.COVERAGE_CLIFF: "warning",
    Verdict.RECOVERED: "success",
    Verdict.OK: "success",
}


def card_name(now: datetime) -> str:
    """`skill-evals-YYYY-MM-DDTHH-MM-SSZ.json`: the feed's file name for a run at `now` (UTC)."""
    return f"{SKILL}-{now:%Y-%m-%dT%H-%M-%SZ}.json"


def same_day(name: str, now: datetime) -> bool:
    """Whether feed file `name` is one of this tool's cards from the UTC day of `now`."""
    return name.startswith(f"{SKILL}-{now:%Y-%m-%d}T") and name.endswith(".json")


class _Elements:
    """Elements in insertion order; `add` returns the id so parents can list their children."""

    def __init__(self) -> None:
        self.items: dict[str, dict[str, Any]] = {}

    def add(
        self, key: str, kind: str, props: dict[str, Any], children: list[str] | None = None
    ) -> str:
        element: dict[str, Any] = {"type": kind, "props": props}
        if children is not None:
            element["children"] = children
        self.items[key] = element
        return key

    def separator(self, n: int) -> str:
        return self.add(f"sep_{n}", "Separator", {"orientation": "horizontal"})


def _message(data: ArticleData) -> str:
    counts = data.counts
    return (
        f"{counts.new_fail} new failure{'s' * (counts.new_fail != 1)} · {counts.fixed} fixed · "
        f"{counts.still_failing} still failing"
    )


def _coverage(data: ArticleData) -> dict[str, Any]:
    props: dict[str, Any] = {"label": "Coverage", "value": f"{pct_text(data.coverage.pct)}%"}
    if data.previous_pct is not None:
        delta = coverage_change(data.coverage.pct, data.previous_pct)
        props["delta"] = f"{'+' if delta >= 0 else '−'}{pct_text(abs(delta))}pp"
        props["trend"] = "up" if delta > 0 else ("down" if delta < 0 else "neutral")
    elif data.legacy_pct is None:
        props["delta"] = "first run"
    return props


def build_card(data: ArticleData, *, article: str) -> dict[str, Any]:
    """The card for one run: the verdict, new failures, fixed, coverage, the top action, the
    regressions (at most MAX_REGRESSIONS, then a count) and a link to the article."""
    el = _Elements()
    alert = el.add(
        "alert_verdict",
        "Alert",
        {
            "title": data.verdict.value,
            "message": _message(data),
            "type": _ALERT.get(data.verdict, "info"),
        },
    )
    stats = el.add(
        "metrics_stack",
        "Stack",
        {"direction": "horizontal", "gap": "lg"},
        [
            el.add(
                "stat_new_fail",
                "Stat",
                {"label": "New Failures", "value": str(data.counts.new_fail)},
            ),
            el.add("stat_fixed", "Stat", {"label": "Fixed", "value": str(data.counts.fixed)}),
            el.add("stat_coverage", "Stat", _coverage(data)),
        ],
    )
    action = el.add(
        "action_section",
        "Stack",
        {"direction": "vertical", "gap": "sm"},
        [
            el.add("action_heading", "Heading", {"text": "Top Action", "level": "h3"}),
            el.add(
                "action_text",
                "Text",
                {
                    "text": data.actions[0] if data.actions else "none — all green",
                    "variant": "body",
                },
            ),
        ],
    )
    children = [alert, el.separator(1), stats, el.separator(2), action]

    regressions = sorted(
        (
            r
            for r in data.rows
            if r.counts and r.label in (DiffLabel.NEW_FAIL, DiffLabel.NEW_QUALITY_DEGRADED)
        ),
        key=lambda r: r.skill,
    )
    if regressions:
        items = [el.add("regressions_heading", "Heading", {"text": "Regressions", "level": "h3"})]
        for n, row in enumerate(regressions[:MAX_REGRESSIONS], start=1):
            badges = [
                el.add(f"regression_{n}_skill", "Badge", {"text": row.skill, "variant": "outline"})
            ]
            if row.issue:
                badges.append(
                    el.add(
                        f"regression_{n}_issue",
                        "Badge",
                        {"text": row.issue, "variant": "secondary"},
                    )
                )
            head = row.result.head if row.result else None
            cause = row.result.root_cause if row.result else "—"
            detail = f"{cause} — {head.detail}" if head and head.detail else cause
            items.append(
                el.add(
                    f"regression_{n}",
                    "Stack",
                    {"direction": "vertical", "gap": "sm"},
                    [
                        el.add(
                            f"regression_{n}_header",
                            "Stack",
                            {"direction": "horizontal", "gap": "sm"},
                            badges,
                        ),
                        el.add(f"regression_{n}_desc", "Text", {"text": detail, "variant": "body"}),
                    ],
                )
            )
        if len(regressions) > MAX_REGRESSIONS:
            more = len(regressions) - MAX_REGRESSIONS
            items.append(
                el.add(
                    "regressions_more",
                    "Text",
                    {"text": f"+{more} more — see the article", "variant": "muted"},
                )
            )
        children += [
            el.separator(3),
            el.add("regressions_section", "Stack", {"direction": "vertical", "gap": "md"}, items),
        ]
    children += [
        el.separator(4),
        el.add(
            "article_link",
            "StoryLink",
            {"title": f"Skill Evals — {data.day.isoformat()}", "href": article, "source": SKILL},
        ),
    ]
    root = el.add("card_main", "Card", {"title": f"Skill Evals — {data.verdict.value}"}, children)
    return {"root": root, "state": {}, "elements": el.items}


def same_result(written: bytes, card: bytes) -> bool:
    """Whether two cards tell the same result: the same, but for the regressions' detail texts
    (a skill gone quiet says how old its output is: ten minutes later the age has moved on, the
    result has not). A card that is not this tool's JSON is different."""

    def result(raw: bytes) -> object:
        data = json.loads(raw)
        elements = data["elements"]
        return {
            **data,
            "elements": {
                k: v
                for k, v in elements.items()
                if not (k.startswith("regression_") and k.endswith("_desc"))
            },
        }

    if written == card:
        return True
    try:
        return result(written) == result(card)
    except (ValueError, KeyError, TypeError, AttributeError):
        return False


def _detail_text(key: str) -> bool:
    return key.startswith("regression_") and key.endswith("_desc")


def render_card(card: dict[str, Any]) -> str:
    """The card as the feed's files are written: indented JSON, non-ASCII kept, a final newline."""
    return json.dumps(card, indent=2, ensure_ascii=False) + "\n"

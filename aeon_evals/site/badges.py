"""Status badges: shields-style SVG and a shields.io endpoint JSON per skill and for the fleet.

`site/badges/<skill>.svg` and `.json` (`_fleet.svg` for a skill named `fleet`: see RESERVED),
`site/badges/fleet.svg` and `.json`. The JSON follows the
shields.io endpoint schema (schemaVersion, label, message, color), so
`https://img.shields.io/endpoint?url=<published site>/badges/fleet.json` renders the same badge.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from html import escape

from aeon_evals.model import Status

# shields.io's named colours and the hex they draw.
COLORS = {
    "brightgreen": "#4c1",
    "green": "#97ca00",
    "yellow": "#dfb317",
    "orange": "#fe7d37",
    "red": "#e05d44",
    "lightgrey": "#9f9f9f",
    "blue": "#007ec6",
}
STATUS_COLORS = {
    Status.PASS: "brightgreen",
    Status.WARN: "yellow",
    Status.STALE: "orange",
    Status.QUALITY_DEGRADED: "orange",
    Status.FAIL: "red",
    Status.NO_OUTPUT: "red",
    Status.ERROR: "lightgrey",
    Status.NOT_RUN: "lightgrey",
}


@dataclass(frozen=True)
class Badge:
    """One badge: what the endpoint JSON says and what the SVG draws."""

    label: str
    message: str
    color: str  # a shields.io colour name

    def endpoint(self) -> str:
        """The shields.io endpoint JSON."""
        return (
            json.dumps(
                {
                    "schemaVersion": 1,
                    "label": self.label,
                    "message": self.message,
                    "color": self.color,
                },
                ensure_ascii=False,
            )
            + "\n"
        )

    def svg(self) -> str:
        """A flat shields-style SVG (text widths estimated: 6.5 px a character of Verdana 11)."""
        left = _width(self.label)
        right = _width(self.message)
        total = left + right
        fill = COLORS.get(self.color, COLORS["lightgrey"])
        label, message = escape(self.label), escape(self.message)
        return (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{total}" height="20" role="img" '
            f'aria-label="{label}: {message}">'
            f"<title>{label}: {message}</title>"
            f'<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" '
            f'stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>'
            f'<clipPath id="r"><rect width="{total}" height="20" rx="3" fill="#fff"/></clipPath>'
            f'<g clip-path="url(#r)"><rect width="{left}" height="20" fill="#555"/>'
            f'<rect x="{left}" width="{right}" height="20" fill="{fill}"/>'
            f'<rect width="{total}" height="20" fill="url(#s)"/></g>'
            f'<g fill="#fff" text-anchor="middle" '
            f'font-family="Verdana,Geneva,DejaVu Sans,sans-serif" font-size="11">'
            f'<text x="{left / 2:.1f}" y="15" fill="#010101" fill-opacity=".3">{label}</text>'
            f'<text x="{left / 2:.1f}" y="14">{label}</text>'
            f'<text x="{left + right / 2:.1f}" y="15" fill="#010101" fill-opacity=".3">'
            f"{message}</text>"
            f'<text x="{left + right / 2:.1f}" y="14">{message}</text></g></svg>\n'
        )


# The site's own badges: a skill of the same name (a skill called `fleet`, or `Fleet` on a file
# system that ignores case) must not overwrite them.
RESERVED = frozenset({"fleet"})


def badge_stem(skill: str) -> str:
    """The file name (without .svg/.json) of `skill`'s badge under badges/: its name, or
    `_<name>` for a reserved one (a skill name never starts with `_`)."""
    return f"_{skill}" if skill.lower() in RESERVED else skill


def _width(text: str) -> int:
    return round(len(text) * 6.5) + 10


def skill_badge(skill: str, status: Status | None) -> Badge:
    """A skill's badge: its name and its latest status."""
    if status is None:
        return Badge(skill, "not evaluated", "lightgrey")
    return Badge(skill, status.value, STATUS_COLORS[status])


def fleet_badge(statuses: Mapping[str, Status | None]) -> Badge:
    """The fleet's badge: how many of the skills judged in the latest run are not failing (an
    on-demand skill that did not run, NOT_RUN, is not judged)."""
    judged = [s for s in statuses.values() if s is not None and s is not Status.NOT_RUN]
    failing = sum(1 for s in judged if s.failing)
    if not judged:
        return Badge("skill evals", "no runs", "lightgrey")
    color = "brightgreen" if failing == 0 else ("orange" if failing * 10 < len(judged) else "red")
    return Badge("skill evals", f"{len(judged) - failing}/{len(judged)} passing", color)

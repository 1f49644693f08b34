"""The skill pages assembled from skill.html rendered once per shape, without Jinja per page.

The packaged `skill.html` (with `base.html` and `macros.html`) only prints a page's fields and
tests whether its lists are empty. So it is rendered once for each combination of those tests
with a stand-in page whose every field prints as a numbered slot (`\\x00<n>\\x00`), split into
literal text and slots, and each page is the literal text joined with its own fields, escaped as
the template escapes them. A user's override of any of the three templates is rendered by Jinja
page by page, as before (SkillSiteJob.shell is False then): an override may do anything.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from types import SimpleNamespace

from markupsafe import Markup

from aeon_evals.site.skill_charts import escaped
from aeon_evals.site.skill_pages import SkillPage
from aeon_evals.site.views import Assets

SLOT = "\x00"  # never in a template, untouched by escaping
# What a stand-in list's length prints as: the template's `|length` calls len(), which must be
# an int; these numbers are turned into slots right after the render.
_LENGTH_BASE = 9_876_543_210_000

# The page's fields the template prints, in slot order; how each is made text: "text" escaped,
# "markup" as it is, "int" its number, "length" the number of items.
_FIELDS = (
    ("skill", "text"),
    ("mark.css", "text"),
    ("mark.glyph", "text"),
    ("mark.label", "text"),
    ("latest", "text"),
    ("badge_href", "text"),
    ("badge_json", "text"),
    ("runs", "int"),
    ("pass_30", "text"),
    ("pass_90", "text"),
    ("strip", "markup"),
    ("charts_html", "markup"),
    ("outputs", "length"),
    ("outputs_html", "markup"),
    ("issues", "length"),
    ("issues_html", "markup"),
    ("spec_href", "text"),
    ("spec_source", "text"),
    ("spec", "text"),
)


class _Items:
    """A stand-in list: empty or not as the shape says, its length a number to find again."""

    def __init__(self, present: bool, length: int) -> None:
        self._present = present
        self._length = length

    def __bool__(self) -> bool:
        return self._present

    def __len__(self) -> int:
        return self._length


Shape = tuple[bool, bool, bool, bool, bool]  # charts, outputs, issues, spec_href, spec


def shape_of(page: SkillPage) -> Shape:
    """What the template tests of `page`."""
    return (
        bool(page.charts),
        bool(page.outputs),
        bool(page.issues),
        bool(page.spec_href),
        bool(page.spec),
    )


def _stand_in(shape: Shape, assets: Assets, generated: str) -> SimpleNamespace:
    """A page whose fields print as their slots (the assets and the build time as they are)."""
    charts, outputs, issues, spec_href, spec = shape
    slot = {name: f"{SLOT}{n}{SLOT}" for n, (name, _) in enumerate(_FIELDS)}
    index = {name: n for n, (name, _) in enumerate(_FIELDS)}
    return SimpleNamespace(
        assets=assets,
        generated=generated,
        skill=slot["skill"],
        mark=SimpleNamespace(
            css=slot["mark.css"], glyph=slot["mark.glyph"], label=slot["mark.label"]
        ),
        latest=slot["latest"],
        badge_href=slot["badge_href"],
        badge_json=slot["badge_json"],
        runs=slot["runs"],
        pass_30=slot["pass_30"],
        pass_90=slot["pass_90"],
        strip=Markup(slot["strip"]),
        charts=_Items(charts, 0),
        charts_html=Markup(slot["charts_html"]),
        outputs=_Items(outputs, _LENGTH_BASE + index["outputs"]),
        outputs_html=Markup(slot["outputs_html"]),
        issues=_Items(issues, _LENGTH_BASE + index["issues"]),
        issues_html=Markup(slot["issues_html"]),
        spec_href=slot["spec_href"] if spec_href else "",
        spec_source=slot["spec_source"],
        spec=slot["spec"] if spec else "",
    )


@dataclass(frozen=True)
class Shell:
    """One shape of the page: literal text and slot numbers, alternating (text first)."""

    parts: tuple[str | int, ...]

    def fill(self, values: list[str]) -> str:
        """The page with each slot replaced by its field's text."""
        return "".join([p if isinstance(p, str) else values[p] for p in self.parts])

    @functools.cached_property
    def _encoded(self) -> tuple[bytes | int, ...]:
        return tuple(p.encode() if isinstance(p, str) else p for p in self.parts)

    def fill_bytes(self, values: list[str]) -> bytes:
        """`fill(values)` as UTF-8: the literal text encoded once for every page, only the
        fields encoded per page. (A page holds a few characters past U+00FF (a glyph, an
        arrow, a dash), which make the whole joined string two bytes a character; encoding
        that string cost more than rendering the page.)"""
        return b"".join([p if isinstance(p, bytes) else values[p].encode() for p in self._encoded])


def parse_shell(text: str) -> Shell | None:
    """The shell of a stand-in's render; None when it does not split cleanly into text and
    known slots (then the pages are rendered one by one)."""
    for n, (_, kind) in enumerate(_FIELDS):
        if kind == "length":
            text = text.replace(str(_LENGTH_BASE + n), f"{SLOT}{n}{SLOT}")
    pieces = text.split(SLOT)
    if len(pieces) % 2 == 0:
        return None
    parts: list[str | int] = []
    for i, piece in enumerate(pieces):
        if i % 2 == 0:
            parts.append(piece)
        elif piece.isdigit() and int(piece) < len(_FIELDS):
            parts.append(int(piece))
        else:
            return None
    return Shell(tuple(parts))


def _values(page: SkillPage) -> list[str]:
    """Each slot's text for `page` (as the template's autoescape prints it)."""
    e = escaped
    mark = page.mark
    return [
        e(page.skill),
        e(mark.css),
        e(mark.glyph),
        e(mark.label),
        e(page.latest),
        e(page.badge_href),
        e(page.badge_json),
        str(page.runs),
        e(page.pass_30),
        e(page.pass_90),
        str(page.strip),
        str(page.charts_html),
        str(len(page.outputs)),
        str(page.outputs_html),
        str(len(page.issues)),
        str(page.issues_html),
        e(page.spec_href),
        e(page.spec_source),
        e(page.spec),
    ]


class ShellRenderer:
    """Renders skill pages from shells made with `render` (the template's renderer), one per
    shape met; a page whose shell cannot be made is rendered by `render` itself."""

    def __init__(
        self, render: Callable[[str, object], str], assets: Assets, generated: str
    ) -> None:
        self._render = render
        self._assets = assets
        self._generated = generated
        self._shells: dict[Shape, Shell | None] = {}

    def _shell(self, page: SkillPage) -> Shell | None:
        """The shell of `page`'s shape (made when first met); None: render it with Jinja."""
        if page.assets is not self._assets or page.generated != self._generated:
            return None  # (not the page the shells are made for: no shell made for it)
        shape = shape_of(page)
        if shape not in self._shells:
            stand_in = _stand_in(shape, self._assets, self._generated)
            self._shells[shape] = parse_shell(self._render("skill.html", stand_in))
        return self._shells[shape]

    def page_bytes(self, page: SkillPage) -> bytes:
        """The HTML of `page` as UTF-8, byte for byte what `render("skill.html", page)` gives
        encoded."""
        shell = self._shell(page)
        if shell is None:
            return self._render("skill.html", page).encode()
        return shell.fill_bytes(_values(page))

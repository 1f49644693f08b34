"""The skills × runs grid: its cells (status only, readable without JavaScript) and the one
data block from which site.js makes each cell's link, hover text and label."""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from markupsafe import Markup


class Mark(Protocol):
    """How a status is drawn (views.Mark, a frozen dataclass): its css class suffix and glyph."""

    def __hash__(self) -> int: ...

    @property
    def css(self) -> str: ...

    @property
    def glyph(self) -> str: ...


@dataclass(frozen=True)
class Cell:
    """One grid cell: one skill in one run. Its link and hover text (skill, date, status, diff
    label, root cause) are made in the browser from the page's grid data (`grid_data`)."""

    mark: Mark
    diff: str = ""  # the diff label, "" when none
    root_cause: str = ""  # "" when none


class _Row(Protocol):
    @property
    def skill(self) -> str: ...

    @property
    def cells(self) -> tuple[Cell, ...]: ...


class _Run(Protocol):
    @property
    def iso(self) -> str: ...

    @property
    def href(self) -> str: ...


@functools.cache
def _cell_html(mark: Mark) -> Markup:
    return Markup('<td><a class="cell s-{}">{}</a></td>').format(mark.css, mark.glyph)


def cells_html(cells: Sequence[Cell]) -> Markup:
    """A grid row's cells: each status's glyph and colour class, made once per status."""
    # a plain join: each piece is Markup already (Markup.join would escape-check every one)
    return Markup("".join([_cell_html(cell.mark) for cell in cells]))


def grid_data(
    runs: Sequence[_Run],
    tables: Sequence[tuple[str, Sequence[_Row]]],
    labels: Mapping[str, str],
) -> str:
    """The grids' links and hover texts as one JSON block, which site.js turns into each cell's
    link, title and label: `runs` (the grid's columns, newest first: date and page), `labels`
    (status by css class; none for an absent cell), `strings` (every diff label and root cause
    once) and, per table (`grid`, `inferred`) and skill, the diff label of each column (a
    `strings` index, -1 for none) and the columns that have a root cause. The template puts it
    in one attribute, escaped as any other text: it is data, never markup or script."""
    strings: dict[str, int] = {}

    def index(text: str) -> int:
        return strings.setdefault(text, len(strings)) if text else -1

    found: dict[str, dict[str, list[list[int] | list[list[int]]]]] = {}
    for name, rows in tables:
        table: dict[str, list[list[int] | list[list[int]]]] = {}
        for row in rows:
            diffs = [index(cell.diff) for cell in row.cells]
            causes = [[col, index(c.root_cause)] for col, c in enumerate(row.cells) if c.root_cause]
            table[row.skill] = [diffs, causes] if causes else [diffs]
        found[name] = table
    data = {
        "runs": [[run.iso, run.href] for run in runs],
        "labels": dict(labels),
        "strings": list(strings),
        "tables": found,
    }
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))

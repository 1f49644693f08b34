"""Markdown tables as this tool writes them: cell escaping, and the header, rule and row lines."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from aeon_evals.text import mdspan
from aeon_evals.text.controls import escape_controls


def escape_cell(text: str) -> str:
    """Make any text safe inside a markdown table cell; `parse.unescape_cell` reverses it.

    A backslash is doubled (shown as itself), except inside a code span, where CommonMark
    shows it as it is (a doubled one would show twice: `\\\\$`); a `|` is `\\|` everywhere, code
    spans included (GFM's table rule reads it before the spans)."""
    text = " ".join(text.splitlines()) if ("\n" in text or "\r" in text) else text
    text = escape_controls(text)
    if "`" not in text:
        return text.replace("\\", "\\\\").replace("|", "\\|")
    return "".join(
        piece.replace("|", "\\|") if code else piece.replace("\\", "\\\\").replace("|", "\\|")
        for code, piece in mdspan.split(text)
    )


def escape_literal(text: str) -> str:
    """Any text as a table cell that shows it as it is, markdown and all: `escape_cell`, with a
    backtick escaped too (a cause code holding a pattern such as `(?:^|[^`\\\\])…` is no code
    span). `parse.unescape_cell` reverses it."""
    text = " ".join(text.splitlines()) if ("\n" in text or "\r" in text) else text
    text = escape_controls(text).replace("\\", "\\\\").replace("|", "\\|")
    return text.replace("`", "\\`") if "`" in text else text


def row(cells: Iterable[str]) -> str:
    """One table line of cells already escaped for a table."""
    return "| " + " | ".join(cells) + " |"


def header(columns: Sequence[str], *, short_rule: bool = False) -> list[str]:
    """The header line and the delimiter rule under it: a run of dashes as wide as each column
    name, or `---` for each with `short_rule`."""
    rule = "|".join("---" if short_rule else "-" * (len(c) + 2) for c in columns)
    return [row(columns), f"|{rule}|"]


def table(
    columns: Sequence[str],
    rows: Iterable[Sequence[str]],
    *,
    cell: Callable[[str], str] = escape_cell,
) -> list[str]:
    """A whole table: the header, then each row with every cell made safe by `cell`."""
    return [*header(columns), *(row(map(cell, r)) for r in rows)]

"""Code spans as this tool writes them (issue 34, point 4): any text in a code span renders as
itself, in a table cell too (escaped once: a backslash stays single, a pipe is `\\|`), and the
cell parses back to what was written."""

from __future__ import annotations

import html
import re

from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from aeon_evals.articles.parse import cell_as_parsed, unescape_cell
from aeon_evals.text.mdspan import code_span, spans
from aeon_evals.text.mdtable import escape_cell, escape_literal

GFM = MarkdownIt("commonmark", {"html": False}).enable("table")
_CODE = st.text(st.sampled_from([*"ab `\\|$*_{}[]<>&#", "—"]), min_size=1, max_size=20).filter(
    lambda t: "\\|" not in t  # GitHub cannot show a backslash before a pipe in a table's span
)


def _code_of(rendered: str) -> str:
    found = re.search(r"<code>(.*?)</code>", rendered, re.S)
    assert found, rendered
    return html.unescape(found.group(1))


@settings(max_examples=400, deadline=None)
@given(_CODE)
def test_a_code_span_shows_its_text_in_a_paragraph_and_in_a_table_cell(text: str) -> None:
    span = code_span(text)
    assert _code_of(GFM.render(f"x {span} y\n")) == text
    cell = escape_cell(f"see {span} here")
    assert _code_of(GFM.render(f"| a |\n|---|\n| {cell} |\n")) == text


@settings(max_examples=400, deadline=None)
@given(st.text(st.sampled_from([*"ab `\\|$ "]), max_size=24))
def test_a_cell_with_code_spans_parses_back_as_written(text: str) -> None:
    table = GFM.parse(f"| a |\n|---|\n| {escape_cell(text)} |\n")
    cells = [t.content for t in table if t.type == "inline"]
    assert unescape_cell(cells[1].strip()) == cell_as_parsed(text) == text.strip()


def test_spans_pair_backtick_strings_by_length() -> None:
    assert spans("a `b` c") == [(2, 5)]
    assert spans("`` a`b ``") == [(0, 9)]
    assert spans("` a `` b") == []  # no closer of the same length: text
    assert spans("\\`a` `b`", escapes=True) == [(3, 6)]  # an escaped backtick opens nothing
    assert spans("\\\\`a`", escapes=True) == [(2, 5)]  # an escaped backslash, then a span


def test_patterns_were_shown_with_doubled_backslashes() -> None:
    """Regression: a pattern in a code span of a table cell showed doubled backslashes."""
    cell = escape_cell("forbidden_pattern:\\$\\{var\\} — pattern `\\$\\{var\\}`, `a|b`")
    rendered = GFM.render(f"| a |\n|---|\n| {cell} |\n")
    assert "<code>\\$\\{var\\}</code>" in rendered and "<code>a|b</code>" in rendered
    assert "forbidden_pattern:\\$\\{var\\} —" in rendered


@settings(max_examples=400, deadline=None)
@given(st.text(st.sampled_from([*"ab `\\|$*_ "]), max_size=24))
def test_a_literal_cell_shows_and_parses_back_as_it_is(text: str) -> None:
    """A cause code in a cell (`mdtable.escape_literal`): a pattern's backticks, backslashes and
    pipes show as they are and parse back exactly, beside markdown with code spans."""
    cell = escape_literal(text) + " — " + escape_cell("see `x|y`")
    table = GFM.parse(f"| a |\n|---|\n| {cell} |\n")
    cells = [t.content for t in table if t.type == "inline"]
    assert unescape_cell(cells[1].strip()) == f"{text} — see `x|y`".strip()
    if text.strip() and "*" not in text and "_" not in text:
        rendered = GFM.render(f"| a |\n|---|\n| {escape_literal(text)} |\n")
        shown = re.search(r"<td>(.*?)</td>", rendered, re.S)
        assert shown and html.unescape(shown.group(1)) == text.strip()

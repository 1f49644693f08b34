"""The dashboard's HTML of an article without markdown-it's full passes: plain inline content
skips the inline parser (history.BODY_MD), and the article a run just wrote has its result rows
made from their cells (render.article_body). Both must be exactly markdown-it's stock output,
with the one rule the dashboard adds (each body cell labelled with its column's name)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from realdata import realdata
from test_render_parse import _data

from aeon_evals.articles import body
from aeon_evals.articles.parse import BODY_MD, body_html
from aeon_evals.report import render
from aeon_evals.report.render import ArticleData

# markdown-it as configured for the dashboard, with its stock inline rule: the reference (and
# the rule that labels each body cell with its column's name, which the shortcuts must keep)
STOCK = MarkdownIt("commonmark", {"html": False}).enable("table").disable("image")
STOCK.core.ruler.push("cell_labels", body._cell_labels)

_MARKDOWN = st.lists(
    st.sampled_from(
        [*"ab |\\`*_[]()<>&!~#-:.\n\t ", "—", "&amp;", "\u2028", "é", "\x00", "\r\n", "| a |"]
    ),
    max_size=40,
).map("".join)


@settings(max_examples=500, deadline=None)
@given(_MARKDOWN)
def test_plain_inline_content_renders_as_markdown_it_renders_it(text: str) -> None:
    assert BODY_MD.render(text) == STOCK.render(text)
    assert BODY_MD.renderInline(text) == STOCK.renderInline(text)


def _articles() -> list[Path]:
    return sorted(realdata().rglob("*.md*"))


def test_every_real_markdown_file_renders_as_markdown_it_renders_it() -> None:
    found = _articles()
    assert len(found) > 100
    for path in found:
        text = path.read_bytes().decode("utf-8", errors="replace")
        assert BODY_MD.render(text) == STOCK.render(text), path


@settings(max_examples=300, deadline=None)
@given(_data())
def test_the_body_a_run_hands_over_is_the_article_rendered(data: ArticleData) -> None:
    article = render.article(data)
    fast = render.article_body(article)
    if fast is None:  # the text holds what the parser treats specially: it is rendered whole
        return
    assert fast == STOCK.render(article.text())


@pytest.mark.parametrize(
    ("lines", "tables"),
    [
        # a row the cells' join does not match (escaped when written): rendered by markdown-it
        (
            ["# T", "", "| a | b |", "|---|---|", "| x\\|y | `z` |", "| p | q |", ""],
            [(4, [["x|y", "`z`"], ["p", "q"]])],
        ),
        # a reference definition elsewhere makes `[x]` in a cell a link, as in the whole text
        (["[x]: http://e.org", "", "| a |", "|---|", "| [x] |", ""], [(4, [["[x]"]])]),
        # no row at all: the table keeps no <tbody>, as markdown-it renders it
        (["| a |", "|---|", "", "text"], [(2, [])]),
    ],
)
def test_rows_from_cells_fall_back_to_markdown_it_where_the_cells_are_not_plain(
    lines: list[str], tables: list[tuple[int, list[list[str]]]]
) -> None:
    assert body_html(lines, tables) == STOCK.render("\n".join(lines) + "\n")


def test_rows_not_followed_by_a_blank_line_are_refused() -> None:
    with pytest.raises(ValueError):
        body_html(["| a |", "|---|", "| x |", "more"], [(2, [["x"]])])


def test_each_body_cell_is_labelled_with_its_column() -> None:
    """On a phone a run page's table is one block per row, each cell under its column's name
    (style.css): the name comes with the cell, from markdown-it and from the cells alike."""
    text = "| Skill | Root cause |\n|---|---|\n| a | `x` b |\n| c | d |\n"
    html = BODY_MD.render(text)
    assert '<td data-label="Skill">a</td>' in html
    assert '<td data-label="Root cause"><code>x</code> b</td>' in html
    lines = text.splitlines()
    assert body_html(lines, [(2, [["a", "`x` b"], ["c", "d"]])]) == html

"""An article's HTML on the dashboard: markdown-it with raw HTML and images off, plain inline
content rendered without the inline parser, and the result rows of an article a run just wrote
made from their cells (the same HTML as markdown-it's: tests/test_body_html.py pins it)."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import markdown_it
from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

# What markdown-it's inline pass could read as markup (code, emphasis, links, images, autolinks,
# entities, escapes, line breaks, strikethrough) or a table cell holds escaped (`|`): text
# without any of these, and printable, is one text token, rendered as its HTML-escaped self.
_INLINE_SPECIAL = re.compile(r"[\\`*_\[\]<>&!~|\n\r]")


def plain_inline(text: str) -> bool:
    """markdown-it's inline pass turns `text` into one text token of the same content: nothing in
    it is markup, it is printable (no tab, line break, NUL or other control) and not empty."""
    return bool(text) and text.isprintable() and _INLINE_SPECIAL.search(text) is None


def _inline_plain_first(state: StateCore) -> None:
    """markdown-it's `inline` core rule, without running the inline parser over the content it
    would leave as one text token (most cells of a 1,000-row table: ~30 % of a body's cost)."""
    md = state.md
    for token in state.tokens:
        if token.type != "inline":
            continue
        if token.children is None:
            token.children = []
        if plain_inline(token.content):
            text = Token("text", "", 0)
            text.content = token.content
            token.children.append(text)
        else:
            md.inline.parse(token.content, md, state.env, token.children)


def body_md() -> MarkdownIt:
    """How an article's markdown becomes HTML on the dashboard. Raw HTML off (markdown-it passes
    it through by default) and images off: an image would make the page fetch from the network,
    and the site must work offline from file://. Plain inline content skips the inline parser
    (the same HTML: tests/test_body_html.py pins it against the stock rule)."""
    md = MarkdownIt("commonmark", {"html": False}).enable("table").disable("image")
    md.core.ruler.at("inline", _inline_plain_first)
    md.core.ruler.push("cell_labels", _cell_labels)
    return md


def _cell_labels(state: StateCore) -> None:
    """Each body cell of a table carries its column's name (`data-label`, the header cell's
    text as written): on a phone a row is one block, each cell under its column's name
    (style.css), not a table wider than the screen."""
    tokens = state.tokens
    labels: list[str] = []
    column = 0
    for i, token in enumerate(tokens):
        kind = token.type
        if kind == "table_open":
            labels = []
        elif kind == "th_open":
            labels.append(_label(tokens, i))
        elif kind == "tr_open":
            column = 0
        elif kind == "td_open":
            if column < len(labels) and labels[column]:
                token.attrSet("data-label", labels[column])
            column += 1


def _label(tokens: Sequence[Token], at: int) -> str:
    """The text of the header cell opened at tokens[at]."""
    following = tokens[at + 1] if at + 1 < len(tokens) else None
    return following.content.strip() if following is not None and following.type == "inline" else ""


BODY_MD = body_md()
BODY_VERSION = 2  # bump when a body's HTML changes other than through markdown-it or BODY_MD


def body_fingerprint() -> str:
    """What the bodies' HTML depends on, and nothing else: the markdown-it version, BODY_MD's
    options and rules (the shortcuts above render what markdown-it renders: tests pin it) and
    BODY_VERSION. Cached bodies outlive any other change of the code."""
    rules = {chain: sorted(names) for chain, names in BODY_MD.get_active_rules().items()}
    digest = hashlib.sha256(f"v{BODY_VERSION}".encode())
    digest.update(markdown_it.__version__.encode())
    digest.update(repr(sorted(BODY_MD.options.items())).encode())
    digest.update(repr(sorted(rules.items())).encode())
    return digest.hexdigest()[:16]


def body_html(lines: Sequence[str], tables: Sequence[tuple[int, Sequence[Sequence[str]]]]) -> str:
    """`BODY_MD.render` of the text `"\\n".join(lines) + "\\n"`, where each (start, rows) of
    `tables` says that lines[start:start + len(rows)] are the body rows of a table (its header
    and rule are the two lines before) that mdtable.table wrote from `rows`' cells. Those rows'
    HTML is made from the cells; only the rest of the text, and a row with a cell that is not
    plain text (`plain_inline`), goes through markdown-it."""
    skeleton: list[str] = []
    heads: dict[int, tuple[int, Sequence[Sequence[str]]]] = {}  # header line in the skeleton
    at = 0
    for start, rows in sorted(tables, key=lambda table: table[0]):
        if start < 2 or start < at:
            raise ValueError(f"no table header before line {start}")
        skeleton.extend(lines[at:start])
        heads[len(skeleton) - 2] = (start, rows)
        at = start + len(rows)
        if at < len(lines) and lines[at].strip():  # it would be read as one more row
            raise ValueError(f"no blank line after the table rows at line {start}")
    skeleton.extend(lines[at:])
    env: dict[str, object] = {}
    tokens = BODY_MD.parse("\n".join(skeleton) + "\n", env)
    out: list[Token] = []
    table: tuple[int, Sequence[Sequence[str]]] | None = None
    labels: list[str] = []
    for i, token in enumerate(tokens):
        if token.type == "table_open":
            table = heads.get(token.map[0]) if token.map else None
            labels = []
        elif token.type == "th_open":
            labels.append(_label(tokens, i))
        elif token.type == "table_close" and table is not None and table[1]:
            tbody = Token("html_block", "", 0)
            tbody.content = _tbody(lines, *table, labels, env)
            out.append(tbody)
        out.append(token)
    return str(BODY_MD.renderer.render(out, BODY_MD.options, env))


def _tbody(
    lines: Sequence[str],
    start: int,
    rows: Sequence[Sequence[str]],
    labels: Sequence[str],
    env: dict[str, object],
) -> str:
    """The <tbody> of the table rows at lines[start:], as markdown-it renders them (each cell
    labelled with its column's name: `labels`)."""
    columns = len(labels)
    opens = [f'<td data-label="{escapeHtml(label)}">' if label else "<td>" for label in labels]
    parts: list[str] = []
    odd: list[int] = []  # rows with a cell markdown-it may read as markup: rendered by it
    for i, cells in enumerate(rows):
        if (
            len(cells) == columns
            and lines[start + i] == "| " + " | ".join(cells) + " |"  # written as they are
            and all(map(_plain_cell, cells))
        ):
            tds = "".join(
                [f"{td}{escapeHtml(cell)}</td>\n" for td, cell in zip(opens, cells, strict=True)]
            )
            parts.append(f"<tr>\n{tds}</tr>\n")
        else:
            parts.append("")
            odd.append(i)
    if odd:
        mini = [lines[start - 2], lines[start - 1], *(lines[start + i] for i in odd)]
        refs = {"references": env["references"]} if "references" in env else {}
        html = BODY_MD.render("\n".join(mini) + "\n", refs)
        body = html[html.index("<tbody>\n") + 8 : html.rindex("</tbody>\n")]
        rendered = [row + "</tr>\n" for row in body.split("</tr>\n")[:-1]]
        if len(rendered) != len(odd):
            raise ValueError("a table row did not render as one row")
        for i, row in zip(odd, rendered, strict=True):
            parts[i] = row
    return "<tbody>\n" + "".join(parts) + "</tbody>\n"


def _plain_cell(cell: str) -> bool:
    """A cell the table rule passes to the inline pass as it is, and that stays one text token
    (an empty cell renders empty)."""
    return not cell or (plain_inline(cell) and cell == cell.strip())

"""One cell of an article's tables read back: markdown's backslash escapes undone, the status a
cell states (old LLM-written articles' quirks included), the word count it gives."""

from __future__ import annotations

import re

from aeon_evals.model import Status
from aeon_evals.text.numbers import parse_words

__all__ = ["capped_tables", "parse_status", "parse_words", "unescape_cell"]

# An article holds a table line per skill and a few more: a 1,000-skill fleet's has ~3,000.
# Past this many, an article was not written by a run (a planted file of 400,000 rows took a run
# 185 s and 7 GB): the rest of it is not read.
MAX_TABLE_LINES = 50_000

_STATUS_RE = re.compile(r"\b(NO_OUTPUT|QUALITY_DEGRADED|FAIL|STALE|WARN|ERROR|NOT_RUN|PASS)\b")
# Old articles sometimes put a diff label where the status belongs.
_LABEL_AS_STATUS = {
    "NEW_QUALITY_DEGRADED": Status.QUALITY_DEGRADED,
    "NEW_FAIL": Status.FAIL,
    "STILL_FAIL": Status.FAIL,
    "FIXED": Status.PASS,
    "NEW_PASS": Status.PASS,
}
_PUNCT = set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


def unescape_cell(text: str) -> str:
    """CommonMark backslash escapes (markdown-it has already turned `\\|` into `|`)."""
    if "\\" not in text:
        return text
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text) and text[i + 1] in _PUNCT:
            out.append(text[i + 1])
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def parse_status(cell: str) -> Status | None:
    """The status a cell states, tolerating `PASS→STALE`, `FAIL (missing_pattern)`, `NEW_FAIL`."""
    cell = cell.strip()
    if "→" in cell:
        cell = cell.rsplit("→", 1)[1]
    match = _STATUS_RE.search(cell)
    if match:
        return Status(match.group(1))
    for label, status in _LABEL_AS_STATUS.items():
        if label in cell:
            return status
    return None


def capped_tables(text: str) -> tuple[str, str]:
    """`text` cut after its MAX_TABLE_LINES-th table line (a line starting with `|`), and what
    was cut, said for a warning (`""` when nothing was)."""
    if text.count("\n|") < MAX_TABLE_LINES:
        return text, ""
    at, seen = -1, 0
    while seen < MAX_TABLE_LINES:
        at = text.index("\n|", at + 1)
        seen += 1
    end = text.find("\n", at + 1)
    if end < 0:
        return text, ""
    left = text.count("\n", end + 1)
    return text[: end + 1], (
        f"more than {MAX_TABLE_LINES:,} table lines (the limit): {left:,} lines after them not read"
    )

"""Markdown code spans as CommonMark reads them: where they lie in a text (backtick strings paired
by length, as the spec pairs them), and any text written as one span that shows it exactly."""

from __future__ import annotations

import bisect
import re
from collections import defaultdict

_RUN = re.compile(r"`+")


def code_span(text: str) -> str:
    """`text` as one code span that renders as `text`: delimited by a backtick string longer
    than any inside it, and padded with a space where CommonMark would otherwise read a
    backtick as part of the delimiter or strip a space of the text. Line breaks are the
    caller's to remove (a span shows one as a space)."""
    if not text:
        return "` `"
    longest = max((len(m.group(0)) for m in _RUN.finditer(text)), default=0)
    fence = "`" * (longest + 1)
    pad = (
        text[0] == "`"
        or text[-1] == "`"
        or (text[0] == " " and text[-1] == " " and text.strip(" ") != "")
    )
    return f"{fence} {text} {fence}" if pad else f"{fence}{text}{fence}"


def spans(text: str, *, escapes: bool = False) -> list[tuple[int, int]]:
    """(start, end) of each code span of `text`, from its opening backtick string to the end of
    its closing one: an opener is closed by the next backtick string of the same length, and
    one without such a string is plain text. With `escapes`, a backtick preceded by an odd
    number of backslashes outside a span is escaped, not a delimiter (markdown as read); without,
    backslashes are text (a cell before `mdtable.escape_cell` doubles them)."""
    runs = [(m.start(), m.end()) for m in _RUN.finditer(text)]
    if len(runs) < 2:
        return []
    by_length: dict[int, list[int]] = defaultdict(list)
    for i, (start, end) in enumerate(runs):
        by_length[end - start].append(i)
    found: list[tuple[int, int]] = []
    i = 0
    while i < len(runs):
        start, end = runs[i]
        if escapes:
            back = start
            while back > 0 and text[back - 1] == "\\":
                back -= 1
            start += (start - back) % 2  # an escaped backtick is text; the rest may still open
        if start == end:
            i += 1
            continue
        same = by_length[end - start]
        k = bisect.bisect_right(same, i)
        if k == len(same):
            i += 1
            continue
        closer = same[k]
        found.append((start, runs[closer][1]))
        i = closer + 1
    return found


def split(text: str, *, escapes: bool = False) -> list[tuple[bool, str]]:
    """`text` cut into (is a code span, piece), in order; the pieces join back to `text`."""
    pieces: list[tuple[bool, str]] = []
    at = 0
    for start, end in spans(text, escapes=escapes):
        if start > at:
            pieces.append((False, text[at:start]))
        pieces.append((True, text[start:end]))
        at = end
    if at < len(text):
        pieces.append((False, text[at:]))
    return pieces

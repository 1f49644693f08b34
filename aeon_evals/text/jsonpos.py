"""Line numbers of JSON members, so a problem at `skills.x.min_words` can say `evals.json:9`."""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Mapping

_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\],:]|[^\s{}\[\],:"]+', re.DOTALL)


def member_lines(text: str) -> dict[str, int]:
    """Map each member's path to the 1-based line it starts on.

    Paths are written the way the validator names places: `skills.cost-report.min_words`,
    `skills.x.numeric_checks[0].max`. An object member starts at its key, an array item at its
    value. A key written twice keeps its last line (json.loads keeps the last value). The text is
    assumed to be JSON that parsed; on anything else the paths read so far are returned. The
    scan is iterative, so a deeply nested document cannot exhaust the stack.
    """
    return _scan(text)[0]


def duplicate_members(text: str) -> list[tuple[str, int]]:
    """Each key written again in the same object, as (its path, the line of the repeat), in
    document order; same assumptions as `member_lines`."""
    return _scan(text)[1]


def _scan(text: str) -> tuple[dict[str, int], list[tuple[str, int]]]:
    newlines = [m.start() for m in re.finditer("\n", text)]
    lines: dict[str, int] = {}
    repeats: list[tuple[str, int]] = []
    # Each open container: [is_object, path, key or item index, expecting a key, keys seen].
    stack: list[list[object]] = []
    for match in _TOKEN.finditer(text):
        token = match.group()
        line = bisect.bisect_left(newlines, match.start()) + 1
        top = stack[-1] if stack else None
        if token in "}]":
            if stack:
                stack.pop()
            continue
        if token == ",":
            if top is not None:
                if top[0]:
                    top[3] = True
                else:
                    top[2] = int(str(top[2])) + 1
            continue
        if token == ":":
            continue
        if top is not None and top[0] and top[3]:  # a key
            try:
                key = json.loads(token)
            except ValueError:
                return lines, repeats
            top[2], top[3] = key, False
            member = _join(str(top[1]), str(key))
            seen = top[4]
            assert isinstance(seen, set)
            if key in seen:
                repeats.append((member, line))
            seen.add(key)
            lines[member] = line
            continue
        if top is None:
            path = ""
        elif top[0]:
            path = _join(str(top[1]), str(top[2]))
        else:
            path = f"{top[1]}[{top[2]}]"
            lines[path] = line
        if token == "{":
            stack.append([True, path, "", True, set()])
        elif token == "[":
            stack.append([False, path, 0, False, set()])
    return lines, repeats


def _join(prefix: str, key: str) -> str:
    return f"{prefix}.{key}" if prefix else key


def line_of(lines: Mapping[str, int], where: str) -> int | None:
    """The line of `where`, or of its nearest enclosing member that has one (a problem about a
    missing key is located at the object that lacks it)."""
    while where:
        if where in lines:
            return lines[where]
        cut = max(where.rfind("."), where.rfind("["))
        where = where[:cut] if cut > 0 else ""
    return None


_SPACE = " \t\r\n"  # JSON's whitespace


def _place(text: str, pos: int) -> str:
    line = text.count("\n", 0, pos) + 1
    return f"line {line} column {pos - text.rfind(chr(10), 0, pos)}"


def decode_error(text: str, exc: json.JSONDecodeError) -> str:
    """`exc` (json.loads of `text` failed) as one message that names the offending token's
    line: the parser stops at the token after the mistake, often on the next line.

    - a comma before `}` or `]`: `invalid JSON: trailing comma at line 101 column 18 (JSON
      allows none before '}')`, at the comma, not at the brace that follows it;
    - two members with no comma between them: `invalid JSON: missing comma at line 3 column 11
      (before the next member at line 4 column 3)`, at the end of the first;
    - anything else as the parser says it: `invalid JSON at line 1 column 18: Expecting value`.
    """
    pos = min(exc.pos, len(text))
    before = len(text[:pos].rstrip(_SPACE))  # just past the last token before the stop
    stop = text[pos : pos + 1]
    if (
        exc.msg in ("Expecting property name enclosed in double quotes", "Expecting value")
        and stop in ("}", "]")
        and before > 0
        and text[before - 1] == ","
    ):
        where = _place(text, before - 1)
        return f"invalid JSON: trailing comma at {where} (JSON allows none before {stop!r})"
    if exc.msg == "Expecting ',' delimiter" and 0 < before < pos:
        where, following = _place(text, before), _place(text, pos)
        return f"invalid JSON: missing comma at {where} (before the next member at {following})"
    return f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"

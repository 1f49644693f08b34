"""User patterns compiled once with RE2: linear-time matching whatever the pattern or the text.

Patterns in evals.json are written in grep/PCRE style. They are matched against the raw UTF-8
bytes of an output, per line for `^` and `$` (as grep does), with POSIX classes such as
`[[:digit:]]` meaning what grep means (RE2 supports them natively). `\\|` inside an entry is an
alternative, as in grep's basic syntax. Constructs RE2 cannot run in linear time (backreferences,
lookaround) are refused at load time with the engine's message.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import re2

_OPTIONS = re2.Options()
_OPTIONS.log_errors = False  # we report the error ourselves, once, as one line
_OPTIONS.max_mem = 64 << 20


MAX_LENGTH = (
    4096  # characters; a longer pattern is a mistake, and its text is quoted in issues and pings
)


class PatternError(ValueError):
    """The pattern cannot be compiled by the engine the run uses."""


def translate(pattern: str) -> str:
    """grep-style → RE2: `\\|` becomes `|`; everything else is passed through unchanged."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\" and i + 1 < len(pattern):
            pair = pattern[i : i + 2]
            out.append("|" if pair == "\\|" else pair)
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


@dataclass(frozen=True)
class Pattern:
    """A compiled user pattern; `source` is the text as written in evals.json."""

    source: str
    regex: object  # re2._Regexp over bytes

    def search(self, data: bytes) -> Any:
        """The first match in `data`, or None."""
        return self.regex.search(data)  # type: ignore[attr-defined]

    def finditer(self, data: bytes) -> Any:
        """Every match in `data`, in order (an empty match at most once per position)."""
        return self.regex.finditer(data)  # type: ignore[attr-defined]


@functools.lru_cache(maxsize=8192)
def compile_pattern(source: str) -> Pattern:
    """Compile `source` (cached: each distinct pattern is compiled once per process)."""
    if len(source) > MAX_LENGTH:
        raise PatternError(
            f"pattern is {len(source):,} characters long; the limit is {MAX_LENGTH:,}"
        )
    try:
        regex = re2.compile(("(?m)" + translate(source)).encode("utf-8"), options=_OPTIONS)
    except re2.error as exc:
        message = exc.args[0] if exc.args else str(exc)
        if isinstance(message, bytes):
            message = message.decode("utf-8", errors="replace")
        raise PatternError(f"pattern `{source}` does not compile: {message}") from None
    return Pattern(source, regex)


def forget() -> None:
    """Drop every compiled pattern (RE2 programs and their DFA caches live outside Python's heap:
    about 6 MB for 1,000 specs): once a run's checks are done, for the stages after them."""
    compile_pattern.cache_clear()

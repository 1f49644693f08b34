"""Numbers read from a file, bounded: a cell that holds a number too large to be one (an integer
of more than 30 digits, `1e999`, infinity, NaN) is read as not a number, never as an
OverflowError, a ValueError from Python's 4,300-digit limit or an infinite value that breaks
what is computed from it later."""

from __future__ import annotations

import math
import re
from datetime import date
from typing import Any

from aeon_evals.text.jsonio import MAX_DIGITS

# A number cell is short: the longest float repr is 24 characters.
MAX_CHARS = 64
_DAY = re.compile(r"(\d{4})-(\d{2})-(\d{2})")


def bounded_int(text: str) -> int | None:
    """The integer `text` states (`-12`, `3_000` is not one), or None when it has more than
    MAX_DIGITS digits. Raises ValueError when `text` is not an integer at all."""
    digits = text.strip()
    if len(digits.lstrip("+-")) > MAX_DIGITS:
        if digits.lstrip("+-").isdigit():
            return None
        raise ValueError(f"not an integer: {digits[:40]!r}")
    return int(digits)


def bounded_float(text: str) -> float | None:
    """The finite number `text` states, or None when it is infinite, NaN or longer than any
    number written by this tool. Raises ValueError when `text` is not a number at all."""
    if len(text) > MAX_CHARS:
        float(text[:MAX_CHARS].strip() or "x")  # the start must read as a number to be one
        return None
    value = float(text)
    return value if math.isfinite(value) else None


def finite(value: Any) -> float | None:
    """`value` (a JSON number) as a finite float, None for anything else: a boolean, a string,
    infinity, NaN, an integer too large for a float."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


def digits_int(text: str) -> int | None:
    """The count `text` (a run of digits, commas allowed: `3,300`) states, None when it has
    more than MAX_DIGITS digits."""
    plain = text.replace(",", "")
    if not plain.isdigit() or len(plain) > MAX_DIGITS:
        return None
    return int(plain)


def iso_day(text: str) -> date | None:
    """The date `YYYY-MM-DD` at the start of `text`, None when there is none or it is not a
    day of the calendar (`2026-13-45`, `0000-00-00`)."""
    match = _DAY.match(text)
    if match is None:
        return None
    try:
        return date(int(match[1]), int(match[2]), int(match[3]))
    except ValueError:
        return None


_WORDS = re.compile(r"(\d[\d,]*(?:\.\d+)?)\s*([kK])?")


def shown_cell(text: str, limit: int = 40) -> str:
    """A cell quoted in a warning: at most `limit` characters, then `…`."""
    return repr(text if len(text) <= limit else text[:limit] + "…")


def shown_repr(value: object, limit: int = 60) -> str:
    """`repr(value)` as a warning quotes it: at most `limit` characters, then `…`."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "…"


def parse_words(cell: str) -> int | None:
    """`~3,300`, `>7,000`, `18,115+`, `~13k+`, `15,513 (log)` → an integer; `—`, `large`, and a
    number too large to be a count (more than 30 digits) → None."""
    match = _WORDS.search(cell)
    if not match:
        return None
    whole, _, fraction = match.group(1).replace(",", "").partition(".")
    if len(whole) > MAX_DIGITS:
        return None
    value = float(f"{whole}.{fraction or 0}"[:MAX_CHARS])
    if match.group(2):
        value *= 1000
    return int(value)

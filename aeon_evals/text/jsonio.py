"""JSON read with bounds: nesting depth and integer size never crash a run."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

MAX_DIGITS = 30  # a count or a score never needs more; int('9' * 5000) is refused by Python
MAX_DEPTH_NOTE = "nested too deeply (thousands of levels)"


class JSONTooDeep(ValueError):
    """The document nests deeper than the parser's recursion limit."""


@dataclass(frozen=True)
class Loaded:
    """Parsed JSON, and how many integers were too long to be numbers (read as infinity)."""

    data: Any
    huge_ints: int = 0


def loads(text: str) -> Loaded:
    """`json.loads` with integers of more than MAX_DIGITS digits read as infinity (a value every
    check refuses as not finite) instead of a ValueError, and a document nested thousands of
    levels deep raised as JSONTooDeep instead of a RecursionError. Invalid JSON raises
    json.JSONDecodeError as usual."""
    huge = 0

    def parse_int(digits: str) -> int | float:
        nonlocal huge
        if len(digits.lstrip("-")) > MAX_DIGITS:
            huge += 1
            return -math.inf if digits.startswith("-") else math.inf
        return int(digits)

    try:
        data = json.loads(text, parse_int=parse_int)
    except RecursionError:
        raise JSONTooDeep(MAX_DEPTH_NOTE) from None
    return Loaded(data, huge)


def huge_note(count: int) -> str:
    """The warning's wording for `count` over-long integers."""
    what = "an integer" if count == 1 else f"{count} integers"
    return f"{what} of more than {MAX_DIGITS} digits read as not a number"

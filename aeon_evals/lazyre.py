"""Regular expressions compiled when first used, not when their module is imported.

A command that imports the contract inference without running it (a warm run reads every
contract from the cache) then pays nothing for its few dozen patterns.
"""

from __future__ import annotations

import re
from typing import cast

_METHODS = ("match", "fullmatch", "search", "finditer", "findall", "sub", "subn", "split")


class _Lazy:
    """Compiles on the first attribute looked up, then keeps the compiled pattern's methods as
    its own attributes: later calls cost what they cost on the compiled pattern."""

    def __init__(self, pattern: str, flags: int) -> None:
        self._source = (pattern, flags)

    def __getattr__(self, name: str) -> object:
        compiled = re.compile(*self._source)
        for method in _METHODS:
            setattr(self, method, getattr(compiled, method))
        return getattr(compiled, name)


def lazy(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """`re.compile(pattern, flags)`, compiled on first use (for the methods of `_METHODS`)."""
    return cast("re.Pattern[str]", _Lazy(pattern, flags))

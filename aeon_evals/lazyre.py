"""Regular expressions compiled when first used, not when their module is imported.

A command that imports the contract inference without running it (a warm run reads every
contract from the cache) then pays nothing for its few dozen patterns.
"""

from __future__ import annotations

import re
from typing import cast

# what a compiled pattern offers that the code uses: its methods and its description
_ATTRIBUTES = (
    *("match", "fullmatch", "search", "finditer", "findall", "sub", "subn", "split"),
    *("pattern", "flags", "groups", "groupindex"),
)


class _Compiled:
    """A _Lazy once compiled: the compiled pattern's attributes are its own, looked up as fast
    as any attribute (no `__getattr__` hook left in the way)."""


class _Lazy:
    """Compiles on the first attribute looked up, copies the compiled pattern's attributes onto
    itself and becomes a `_Compiled`."""

    def __init__(self, pattern: str, flags: int) -> None:
        self._source = (pattern, flags)

    def __getattr__(self, name: str) -> object:
        compiled = re.compile(*self._source)
        for attribute in _ATTRIBUTES:
            setattr(self, attribute, getattr(compiled, attribute))
        self.__class__ = _Compiled  # type: ignore[assignment]
        return getattr(compiled, name)


def lazy(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """`re.compile(pattern, flags)`, compiled on first use (for the attributes `_ATTRIBUTES`)."""
    return cast("re.Pattern[str]", _Lazy(pattern, flags))

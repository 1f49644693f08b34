"""The code `dataclasses` writes for each class, compiled once and kept beside the bytecode.

For every dataclass, `dataclasses` writes the source of its `__init__`, `__repr__`, `__eq__`…
and compiles it with `exec`: about 0.6 ms a class, 60 ms of the package's 100 ms import, paid
by every command before it does anything. `install()` gives the `dataclasses` module an `exec`
that compiles each distinct source once and keeps the code object; `save()` writes them, keyed
by their source, to `__pycache__/dataclasses.<cache tag>.bin` in this package (marshal, as
`.pyc` files are, behind the interpreter's magic number), and the next process loads them
instead of compiling. The same source gives the same code, so a class is what it would have
been without this; a missing, foreign or damaged file is a cold start, never an error; like
`.pyc` files, it is not written when PYTHONDONTWRITEBYTECODE is set (`save(force=True)` does,
as `compileall` does).
"""

from __future__ import annotations

import builtins
import contextlib
import dataclasses
import marshal
import os
import sys
from importlib.util import MAGIC_NUMBER
from types import CodeType
from typing import Any

_CACHE_TAG = sys.implementation.cache_tag or "none"
PATH = os.path.join(os.path.dirname(__file__), "__pycache__", f"dataclasses.{_CACHE_TAG}.bin")
_HEADER = b"aeon-evals dataclasses 1\n" + MAGIC_NUMBER
MAX_ENTRIES = 4_000  # far above this package's ~550: a file that grew past it starts over

_codes: dict[str, CodeType] = {}
_new = False  # a source compiled here that the file does not hold yet


def _exec(source: Any, globals: Any = None, locals: Any = None, /) -> None:
    """`exec` as `dataclasses` calls it, with each source string compiled once."""
    global _new
    if type(source) is not str:
        exec(source, globals, locals)
        return
    code = _codes.get(source)
    if code is None:
        # dont_inherit: compiled as `dataclasses` compiles it, without this module's
        # `from __future__ import annotations` (its annotations stay objects, not strings)
        code = _codes[source] = compile(source, "<string>", "exec", dont_inherit=True)
        _new = True
    exec(code, globals, locals)


def _load(path: str) -> dict[str, CodeType]:
    """The code objects kept at `path` ({} when it is missing, foreign or damaged)."""
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except OSError:
        return {}
    if not raw.startswith(_HEADER):
        return {}
    try:
        kept = marshal.loads(raw[len(_HEADER) :])
    except (EOFError, ValueError, TypeError):
        return {}
    if not isinstance(kept, dict):
        return {}
    return {k: v for k, v in kept.items() if type(k) is str and type(v) is CodeType}


def install(path: str = PATH) -> None:
    """Load the kept code and route `dataclasses`' compiling through it (once a process)."""
    if getattr(dataclasses, "exec", None) is _exec:
        return
    _codes.update(_load(path))
    dataclasses.exec = _exec  # type: ignore[attr-defined]  # found before builtins.exec


def uninstall() -> None:
    """Give `dataclasses` back the built-in `exec` (the tests compare both)."""
    with contextlib.suppress(AttributeError):
        if dataclasses.exec is _exec:  # type: ignore[attr-defined]
            del dataclasses.exec  # type: ignore[attr-defined]
    assert getattr(dataclasses, "exec", builtins.exec) is builtins.exec


def save(path: str = PATH, *, force: bool = False) -> bool:
    """Write the code compiled so far (with what the file held) when there is new code and
    bytecode may be written (`force`: even under PYTHONDONTWRITEBYTECODE); True when written.
    Atomic (a temp file renamed over it); a folder that cannot be written is left alone."""
    global _new
    if not _new or (sys.dont_write_bytecode and not force):
        return False
    codes = {**_load(path), **_codes}
    if len(codes) > MAX_ENTRIES:
        codes = dict(_codes)
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(tmp, "wb") as fh:
            fh.write(_HEADER + marshal.dumps(codes))
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        return False
    _new = False
    return True

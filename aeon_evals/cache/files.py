"""Reads and writes under `.aeon-evals/cache/`: confined like every read, a miss
rather than an error, and the code fingerprint that keys an entry."""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from aeon_evals.errors import EvalsError
from aeon_evals.fs.confine import MB, inside, read_confined, rel_path

CACHE_CAP = 512 * MB  # one file under .aeon-evals/cache (history.bin of a year of runs: ~10 MB)


def cache_allowed(root: Path) -> bool:
    """False when `.aeon-evals` or `.aeon-evals/cache` leads outside the root through a symlink:
    the caches are then off (nothing is written through it, and reads refuse it anyway)."""
    return inside(root, root / ".aeon-evals" / "cache")


def read_cache(root: Path, path: Path, *, cap: int = CACHE_CAP) -> bytes | None:
    """The bytes of the cache file `path` under `root`, or None (a miss): every cache read goes
    through here. Only a regular file inside the root is opened (`open_regular`: a FIFO, a
    device or a symlink out of the root is refused before it is opened), at most `cap` bytes."""
    try:
        return read_confined(root, rel_path(path, root), cap=cap)
    except (OSError, EvalsError, MemoryError):
        return None


def load_cache_json(root: Path, path: Path, *, cap: int = CACHE_CAP) -> Any:
    """The JSON value of the cache file `path` (see `read_cache`), or None when it is missing,
    refused or cannot be decoded (not UTF-8, not JSON, nested too deep): a miss, never an error."""
    data = read_cache(root, path, cap=cap)
    if data is None:
        return None
    try:
        return json.loads(data)
    except (ValueError, RecursionError, MemoryError):
        return None


def code_digest(tag: str, names: Iterable[str]) -> hashlib._Hash:
    """A SHA-256 of `tag` and the bytes of the package's modules `names` (one missing is
    skipped): what a cache keyed by the code that wrote it starts from; callers add their own
    inputs to the hash object returned."""
    here = Path(__file__).parents[1]  # the package: names are relative to it
    digest = hashlib.sha256(tag.encode())
    for name in names:
        with contextlib.suppress(OSError):
            digest.update((here / name).read_bytes())
    return digest

"""Test helpers for the cache folder (aeon_evals.cache.folder): a call made with a cache of its
own that is saved at once (as a run saves its cache at the end), and an entry's stored data."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from aeon_evals.cache.folder import CACHE_DIR, Cache

T = TypeVar("T")


def saved(call: Callable[[Cache], T], root: Path, *, writable: bool = True) -> T:
    """`call(cache)` with a new cache of `root`, saved right after (nothing when read-only)."""
    cache = Cache(root, writable=writable)
    found = call(cache)
    cache.save()
    return found


def entry_path(root: Path, name: str) -> Path:
    return root / CACHE_DIR / name


def entry_data(root: Path, name: str) -> Any:
    """The data an entry's file holds (its envelope's `data`)."""
    return json.loads(entry_path(root, name).read_text(encoding="utf-8"))["data"]


def put_entry_data(root: Path, name: str, data: Any) -> bytes:
    """Replace an entry's data, its envelope (name, version, key) kept; the file's new bytes."""
    path = entry_path(root, name)
    envelope = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps({**envelope, "data": data}), encoding="utf-8")
    return path.read_bytes()

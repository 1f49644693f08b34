"""One fingerprint for the whole package: every cache entry's key starts from it.

It hashes what any cached value can depend on: every source file of the package and its
packaged templates (by path and bytes), the dependencies (each one's installed module file, by
name, size and mtime: an upgrade rewrites it), the Python version and the platform facts binary
formats rely on (byte order, array item sizes). No hand-kept list of modules: a change anywhere
in the package is a miss everywhere, which costs time, never correctness.

Hashing the sources costs a few milliseconds; the result is kept once per process, and between
processes in the user's cache folder (never in the instance, never in the installed package)
under a key made of every source file's path, size and mtime, so an unchanged install is not
read again.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import sys
import tempfile
from array import array
from importlib.util import find_spec
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1]
# The third-party modules whose behaviour a cached value can depend on.
DEPENDENCIES = ("yaml", "markdown_it", "frontmatter", "croniter", "jinja2", "markupsafe", "re2")
_SUFFIXES = (".py", ".html", ".css", ".js", ".yml", ".sh")


def _sources() -> list[tuple[str, Path, os.stat_result]]:
    """(name, path, stat) of every file the package's behaviour comes from: its modules and its
    packaged templates (beside the package in a checkout, inside it when installed)."""
    from aeon_evals.resources import templates_dir

    found: list[tuple[str, Path, os.stat_result]] = []
    for label, base in (("pkg", PACKAGE), ("tpl", templates_dir())):
        for folder, dirs, files in os.walk(base):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__" and not d.startswith("."))
            if label == "pkg" and Path(folder) == PACKAGE:
                dirs[:] = [d for d in dirs if d != "_bundled"]  # the demo instance: data
            for name in sorted(files):
                if name.endswith(_SUFFIXES):
                    path = Path(folder, name)
                    with contextlib.suppress(OSError):
                        rel = path.relative_to(base).as_posix()
                        found.append((f"{label}/{rel}", path, path.stat()))
    return found


def _platform() -> bytes:
    """Python's version, the byte order, the array item sizes and each dependency's module
    file (path, size, mtime), found without importing it."""
    parts = [sys.version, sys.byteorder, *(f"{c}{array(c).itemsize}" for c in "bhiqd")]
    for module in DEPENDENCIES:
        spec = find_spec(module)
        origin = spec.origin if spec is not None else None
        try:
            info = os.stat(origin) if origin else None
        except OSError:
            info = None
        parts.append(f"{module} {origin} {info.st_size} {info.st_mtime_ns}" if info else module)
    return "\n".join(parts).encode()


def _kept_path() -> Path:
    """Where the fingerprint is kept between processes: the user's cache folder."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "aeon-evals" / "fingerprint"


@functools.cache
def fingerprint() -> str:
    """16 hex digits that change whenever the package's code or templates, a dependency, or
    Python change (computed once per process; see the module's docstring)."""
    sources = _sources()
    platform = _platform()
    stamp = hashlib.sha256(platform)
    for name, _path, info in sources:
        stamp.update(f"{name}\0{info.st_size}\0{info.st_mtime_ns}\0".encode())
    key = stamp.hexdigest()[:32]
    kept = _kept_path()
    with contextlib.suppress(OSError, UnicodeError):
        recorded, _, value = kept.read_text(encoding="ascii").strip().partition(" ")
        if recorded == key and len(value) == 16:
            return value
    digest = hashlib.sha256(platform)
    for name, path, _info in sources:
        with contextlib.suppress(OSError):
            digest.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    value = digest.hexdigest()[:16]
    _keep(kept, f"{key} {value}\n")
    return value


def _keep(path: Path, text: str) -> None:
    """Write `text` to `path` atomically; a folder that cannot be written is only slower."""
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".fingerprint.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="ascii") as fh:
                fh.write(text)
            os.replace(tmp, path)
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(tmp)

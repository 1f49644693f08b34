"""The run's cache of the parsed skill registry (`.aeon-evals/cache/registry.json`): aeon.yml
read as YAML, entry by entry when it is not, and every schedule checked, kept for the next run
that reads the very same bytes.

Keyed by the file's name, the SHA-256 of its bytes and a hash of the code that parses it (the
registry, YAML and cron modules, PyYAML's version); kept only when the entries survive a JSON
round trip unchanged (a date or a set in aeon.yml is parsed each run). Read through
`fsio.load_cache_json`; anything damaged, outdated or malformed is a miss.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from pathlib import Path
from typing import Any

import yaml

from aeon_evals.cache.files import cache_allowed, code_digest, load_cache_json
from aeon_evals.fs.write import atomic_write
from aeon_evals.load.registry import Registry, _registration, parse_registry_bytes
from aeon_evals.model.problems import Problem, Severity

CACHE_FILE = Path(".aeon-evals") / "cache" / "registry.json"
VERSION = 1
_CODE = (
    "load/registry.py",
    "text/yamlsafe.py",
    "load/cadence.py",
    "model/problems.py",
    "model/__init__.py",
    "load/registry_cache.py",
)


def _fingerprint() -> str:
    tag = f"v{VERSION} {yaml.__version__} {yaml.__with_libyaml__}"
    return code_digest(tag, _CODE).hexdigest()[:16]


def _key(name: str, raw: bytes) -> str:
    return f"{_fingerprint()}:{name}:{hashlib.sha256(raw).hexdigest()}"


class CachedParser:
    """A `load_registry` parser that takes the registry from the cache under `root` when it
    holds these very bytes, and else parses them; `save` keeps a new parse for the next run
    (called once the run writes: a run that stops early leaves the cache as it was)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._fresh: tuple[str, bytes, Registry] | None = None

    def __call__(self, raw: bytes, name: str) -> Registry:
        found = lookup(self.root, name, raw)
        if found is None:
            found = parse_registry_bytes(raw, name)
            self._fresh = (name, raw, found)
        return found

    def save(self) -> None:
        """Keep the registry parsed by this parser, if it parsed one."""
        if self._fresh is not None:
            keep(self.root, *self._fresh)
            self._fresh = None


def lookup(root: Path, name: str, raw: bytes) -> Registry | None:
    """The registry kept for these bytes of `name`, or None (a miss)."""
    data = load_cache_json(root, root / CACHE_FILE)
    if not (isinstance(data, dict) and data.get("version") == VERSION):
        return None
    if data.get("key") != _key(name, raw):
        return None
    try:
        return _from_json(name, data)
    except (KeyError, TypeError, ValueError):
        return None


def _from_json(name: str, data: dict[str, Any]) -> Registry | None:
    raw, lines, error = data["raw"], data["lines"], data["yaml_error"]
    warnings, issues = data["warnings"], data["issues"]
    if not (
        isinstance(raw, dict)
        and isinstance(lines, dict)
        and all(type(v) is int for v in lines.values())
        and (error is None or isinstance(error, str))
        and isinstance(warnings, list)
        and all(isinstance(w, str) for w in warnings)
        and isinstance(issues, list)
    ):
        return None
    problems = []
    for item in issues:
        file, where, message, severity, line = item
        if not (
            isinstance(file, str)
            and isinstance(where, str)
            and isinstance(message, str)
            and (line is None or type(line) is int)
        ):
            return None
        problems.append(Problem(file, where, message, Severity(severity), line))
    return Registry(
        name,
        {skill: _registration(skill, value) for skill, value in raw.items()},
        tuple(warnings),
        raw=raw,
        lines=lines,
        yaml_error=error,
        issues=tuple(problems),
    )


def keep(root: Path, name: str, raw: bytes, registry: Registry) -> None:
    """Keep `registry` (parsed from `raw`) for the next run, when what it holds survives JSON
    unchanged and the cache folder stays inside the root; a failed write is only slower."""
    payload = {
        "version": VERSION,
        "key": _key(name, raw),
        "raw": registry.raw,
        "lines": registry.lines,
        "yaml_error": registry.yaml_error,
        "warnings": list(registry.warnings),
        "issues": [[p.file, p.where, p.message, p.severity.value, p.line] for p in registry.issues],
    }
    try:
        text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
        if json.loads(text) != payload:  # NaN, keys that are not strings …
            return
    except (TypeError, ValueError):  # a date, a set, bytes: not JSON
        return
    if not registry.found or _from_json(name, json.loads(text)) != registry:
        return
    with contextlib.suppress(OSError):
        if (root / ".aeon-evals").is_symlink() or not cache_allowed(root):
            return
        atomic_write(root / CACHE_FILE, text, sync=False)

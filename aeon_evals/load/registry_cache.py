"""The run's cache of the parsed skill registry (`.aeon-evals/cache/registry.json`): aeon.yml
read as YAML, entry by entry when it is not, and every schedule checked, kept for the next run
that reads the very same bytes.

A cache entry (`cache.folder.Entry`) keyed by the file's name and bytes; kept only when the
entries survive a JSON round trip unchanged (a date or a set in aeon.yml is parsed each run).
Anything damaged, outdated or malformed is a miss.
"""

from __future__ import annotations

import json
from typing import Any

from aeon_evals.cache.folder import Cache, Entry
from aeon_evals.load.registry import Registry, _registration, parse_registry_bytes
from aeon_evals.model.problems import Problem, Severity

ENTRY = Entry("registry", 2)


def _key(name: str, raw: bytes) -> str:
    return ENTRY.key(name, raw)


class CachedParser:
    """A `load_registry` parser that takes the registry from the cache under `root` when it
    holds these very bytes, and else parses them; `save` keeps a new parse for the next run
    (called once the run writes: a run that stops early leaves the cache as it was)."""

    def __init__(self, cache: Cache) -> None:
        self.cache = cache
        self._fresh: tuple[str, bytes, Registry] | None = None

    def __call__(self, raw: bytes, name: str) -> Registry:
        found = lookup(self.cache, name, raw)
        if found is None:
            found = parse_registry_bytes(raw, name)
            self._fresh = (name, raw, found)
        return found

    def save(self) -> None:
        """Store the registry parsed by this parser, if it parsed one, in the run's cache."""
        if self._fresh is not None:
            keep(self.cache, *self._fresh)
            self._fresh = None


def lookup(cache: Cache, name: str, raw: bytes) -> Registry | None:
    """The registry kept for these bytes of `name`, or None (a miss)."""
    data = cache.load(ENTRY, _key(name, raw))
    if not isinstance(data, dict):
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


def keep(cache: Cache, name: str, raw: bytes, registry: Registry) -> None:
    """Store `registry` (parsed from `raw`) for the next run, when what it holds survives JSON
    unchanged."""
    payload = {
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
    cache.store(ENTRY, _key(name, raw), payload)

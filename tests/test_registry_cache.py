"""The run's cache of the parsed registry (`.aeon-evals/cache/registry.json`, boot pass): what
it gives back is what parsing gives, for real files and broken ones; anything else is a miss."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from realdata import realdata

from aeon_evals.cache.folder import CACHE_DIR, Cache
from aeon_evals.load import registry_cache
from aeon_evals.load.registry import Registry, load_registry

CACHE_FILE = CACHE_DIR / "registry.json"

BROKEN = {
    "chains": 'skills:\n  a: { enabled: true, schedule: "0 7 * * *" }\n\nchains:\n'
    "  morning:\n    - skill: a, consume: [b]\n",
    "entry": 'skills:\n  a: { enabled: true, schedule: "0 7 * * *"\n  b: { enabled: yes }\n',
    "tabs": 'skills:\n\ta: { enabled: true, schedule: "0 7 * * *" }\n',
    "twice": 'skills:\n  a: { enabled: true }\n  a: { enabled: false, schedule: "@daily" }\n',
    "schedules": 'skills:\n  a: { enabled: true, schedule: "61 * * * *" }\n'
    '  b: { enabled: "on", schedule: 7 }\n  c: { enabled: true }\n  d: 3\n',
    "no block": "name: x\n",
    "not utf-8": b'skills:\n  a: { enabled: true, schedule: "0 7 * * *" } # \xff\n',
}


def _saving(root: Path) -> Callable[[bytes, str], Registry]:
    """A cached parser that keeps what it parses at once (the run keeps it when it writes)."""
    cache = Cache(root)
    parser = registry_cache.CachedParser(cache)

    def parse(raw: bytes, name: str) -> Registry:
        found = parser(raw, name)
        parser.save()
        cache.save()
        return found

    return parse


def _real() -> list[Path]:
    base = realdata()
    return sorted(p for p in base.rglob("*.yml*") if p.name.startswith(("aeon.yml", "claw.yml")))


def _cases() -> list[tuple[str, bytes]]:
    cases = [(k, v.encode() if isinstance(v, str) else v) for k, v in BROKEN.items()]
    return cases + [(p.parent.name + "/" + p.name, p.read_bytes()) for p in _real()]


@pytest.mark.parametrize(("label", "raw"), _cases(), ids=[c[0] for c in _cases()])
def test_a_registry_read_from_the_cache_is_the_registry_parsed(
    tmp_path: Path, label: str, raw: bytes
) -> None:
    (tmp_path / "aeon.yml").write_bytes(raw)
    parsed = load_registry(tmp_path, required=False)  # "no block" is no registry: kept as such
    first = load_registry(tmp_path, parse=_saving(tmp_path), required=False)
    assert first == parsed
    kept = registry_cache.lookup(Cache(tmp_path), "aeon.yml", raw)
    assert kept is None or kept == parsed
    again = load_registry(tmp_path, parse=_saving(tmp_path), required=False)
    assert again == parsed
    assert (again.unusable is not None) == (label == "no block")


def test_the_real_registries_are_kept(tmp_path: Path) -> None:
    """Every real aeon.yml (plain entries) is kept, so the run's next read skips YAML."""
    for path in _real():
        (tmp_path / "aeon.yml").write_bytes(path.read_bytes())
        load_registry(tmp_path, parse=_saving(tmp_path))
        assert registry_cache.lookup(Cache(tmp_path), "aeon.yml", path.read_bytes()) is not None, (
            path
        )


def test_entries_json_cannot_hold_are_parsed_each_run(tmp_path: Path) -> None:
    """A date, a set or a number key in an entry would come back as another type: not kept."""
    text = (
        'skills:\n  a: { enabled: true, schedule: "0 7 * * *", since: 2026-05-01 }\n'
        "  b: { enabled: true, tags: !!set {x: null} }\n  c: { 1: one }\n"
    )
    (tmp_path / "aeon.yml").write_text(text)
    parsed = load_registry(tmp_path)
    assert load_registry(tmp_path, parse=_saving(tmp_path)) == parsed
    assert registry_cache.lookup(Cache(tmp_path), "aeon.yml", text.encode()) is None
    assert not (tmp_path / CACHE_FILE).exists()


def test_an_edited_registry_is_parsed_again(tmp_path: Path) -> None:
    (tmp_path / "aeon.yml").write_text('skills:\n  a: { enabled: true, schedule: "0 7 * * *" }\n')
    load_registry(tmp_path, parse=_saving(tmp_path))
    (tmp_path / "aeon.yml").write_text('skills:\n  a: { enabled: false, schedule: "0 7 * * *" }\n')
    found = load_registry(tmp_path, parse=registry_cache.CachedParser(Cache(tmp_path)))
    assert found == load_registry(tmp_path) and not found.skills["a"].enabled


@pytest.mark.parametrize(
    "damage",
    [
        lambda d: "\x00 not json",
        lambda d: json.dumps({**d, "version": 99}),
        lambda d: json.dumps({**d, "key": "x" + d["key"][1:]}),
        lambda d: json.dumps({**d, "data": {**d["data"], "raw": [1]}}),
        lambda d: json.dumps(
            {**d, "data": {**d["data"], "issues": [["aeon.yml", "x", "y", "fatal", None]]}}
        ),
        lambda d: json.dumps({**d, "data": {**d["data"], "issues": [[1, 2]]}}),
        lambda d: json.dumps({**d, "data": {**d["data"], "lines": {"a": "3"}}}),
        lambda d: json.dumps(
            {**d, "data": {k: v for k, v in d["data"].items() if k != "warnings"}}
        ),
    ],
    ids=["not-json", "version", "key", "raw", "severity", "issue", "lines", "missing"],
)
def test_a_damaged_registry_cache_is_a_miss(tmp_path: Path, damage: object) -> None:
    text = 'skills:\n  a: { enabled: true, schedule: "61 * * * *" }\n  b:\n'
    (tmp_path / "aeon.yml").write_text(text)
    parsed = load_registry(tmp_path)
    load_registry(tmp_path, parse=_saving(tmp_path))
    cache = tmp_path / CACHE_FILE
    cache.write_text(damage(json.loads(cache.read_text())))  # type: ignore[operator]
    assert registry_cache.lookup(Cache(tmp_path), "aeon.yml", text.encode()) is None
    assert load_registry(tmp_path, parse=_saving(tmp_path)) == parsed

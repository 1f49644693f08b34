"""The run's cache of the validated evals.json (`.aeon-evals/cache/manifest.json`): what it
gives back is what validating gives; a manifest with problems is never kept; other bytes,
another version or a damaged file are a miss."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import Instance

from aeon_evals import manifest as manifest_module
from aeon_evals import patterns
from aeon_evals.manifest import EVALS_PATH, MANIFEST_CACHE, Manifest, ManifestCache, read_manifest

Cli = Callable[..., tuple[int, str, str]]

FULL = {
    "version": "1",
    "contracts": "enforce",
    "skills": {
        "digest": {
            "output_pattern": "articles/digest-*.md",
            "min_words": 120,
            "required_patterns": ["^## Top", "items: [0-9]+"],
            "forbidden_patterns": ["\\[TODO\\]", "error\\|failed"],
            "required_headings": ["## Summary"],
            "numeric_checks": [
                {"label": "items", "pattern": "items: ([0-9]+)", "min": 1, "max": 500.5},
                {"label": "cost", "pattern": "\\$([0-9.]+)", "max": 3, "skip_if_not_found": True},
            ],
            "expected_cadence": "0 7 * * 1",
            "section": "### digest",
            "mute": {"until": "2026-07-01", "reason": "rewriting — ünïcode"},
            "stale_fail_after": 4,
            "drift": {"words": "fail", "items": "off"},
        },
        "log": {"output_pattern": "memory/logs/*.md", "section": "digest run", "drift": "off"},
        "plain": {"output_pattern": "out/plain.txt", "expected_cadence": 7},
    },
}


def _kept(root: Path) -> Manifest | None:
    """read_manifest through a cache that is saved at once (a run saves it when it writes)."""
    cache = ManifestCache(root)
    found = read_manifest(root, cache=cache)
    cache.save()
    return found


def _write(root: Path, data: object) -> None:
    (root / EVALS_PATH).parent.mkdir(parents=True, exist_ok=True)
    (root / EVALS_PATH).write_text(json.dumps(data, ensure_ascii=False, indent=2))
    (root / MANIFEST_CACHE).parent.mkdir(parents=True, exist_ok=True)


def test_a_manifest_read_from_the_cache_is_the_one_validated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write(tmp_path, FULL)
    validated = read_manifest(tmp_path, retry_delay=0)
    cache = ManifestCache(tmp_path)
    assert read_manifest(tmp_path, cache=cache) == validated
    assert not (tmp_path / MANIFEST_CACHE).exists()  # kept only when the run saves it
    cache.save()
    assert (tmp_path / MANIFEST_CACHE).is_file()

    def refused(source: str) -> object:
        raise AssertionError(f"compiled {source} on a cache hit")

    monkeypatch.setattr(manifest_module, "compile_pattern", refused)
    cache = ManifestCache(tmp_path)
    cached = read_manifest(tmp_path, cache=cache)
    assert cached == validated and cache.fresh is None  # a hit: nothing new to keep
    assert cached is not None and cached.specs["plain"].expected_cadence_days == 7.0
    assert type(cached.specs["digest"].stale_fail_after) is float


def test_the_cache_is_only_read_or_written_through_a_manifest_cache(tmp_path: Path) -> None:
    _write(tmp_path, FULL)
    read_manifest(tmp_path)
    assert not (tmp_path / MANIFEST_CACHE).exists()
    _kept(tmp_path)
    (tmp_path / MANIFEST_CACHE).write_text(
        (tmp_path / MANIFEST_CACHE).read_text().replace("articles/digest-", "articles/other-")
    )
    found = read_manifest(tmp_path)  # without `cache`, validated as ever
    assert found is not None and found.specs["digest"].output_pattern == "articles/digest-*.md"


def test_other_bytes_are_validated_again(tmp_path: Path) -> None:
    _write(tmp_path, FULL)
    _kept(tmp_path)
    changed = json.loads(json.dumps(FULL))
    changed["skills"]["plain"]["min_words"] = 9
    _write(tmp_path, changed)
    found = read_manifest(tmp_path, cache=ManifestCache(tmp_path))
    assert found is not None and found.specs["plain"].min_words == 9


def test_a_manifest_with_problems_is_never_kept(tmp_path: Path) -> None:
    bad = json.loads(json.dumps(FULL))
    bad["skills"]["broken"] = {"output_pattern": "x/*.md", "required_patterns": ["(a"]}
    bad["extra"] = 1
    _write(tmp_path, bad)
    found = _kept(tmp_path)
    assert found is not None and "broken" in found.spec_errors and found.problems
    assert not (tmp_path / MANIFEST_CACHE).exists()


@pytest.mark.parametrize(
    "damage",
    [
        "not json",
        json.dumps({"version": 99}),
        "VERSION",  # the right key and version, entries of the wrong shape
        "SPEC",
    ],
)
def test_a_damaged_manifest_cache_is_a_miss(tmp_path: Path, damage: str) -> None:
    _write(tmp_path, FULL)
    validated = _kept(tmp_path)
    data = json.loads((tmp_path / MANIFEST_CACHE).read_text())
    if damage == "VERSION":
        data["specs"] = [[1, 2]]
        damage = json.dumps(data)
    elif damage == "SPEC":
        data["specs"][0][11] = [["words", "loud"]]
        damage = json.dumps(data)
    (tmp_path / MANIFEST_CACHE).write_text(damage)
    assert read_manifest(tmp_path, cache=ManifestCache(tmp_path)) == validated
    patterns.forget()


def test_a_run_keeps_the_manifest_and_the_next_run_reads_it(
    instance: Instance, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    instance.evals({"digest": {"output_pattern": "articles/digest-*.md", "min_words": 3}})
    instance.aeon_yml({"digest": (True, "0 5 * * *")})
    instance.write("articles/digest-2026-05-31.md", "one two three four\n")
    root = str(instance.root)
    argv = ("run", "--root", root, "--now", "2026-05-31T06:00:00Z", "--no-notify", "--no-site")
    first = cli(*argv, "--dry-run")
    assert not (instance.root / MANIFEST_CACHE).exists()  # a dry run keeps nothing
    first = cli(*argv)
    assert (instance.root / MANIFEST_CACHE).is_file()
    article = (instance.root / "articles/skill-evals-2026-05-31.md").read_text()

    def refused(data: object, **_: object) -> object:
        raise AssertionError("validated again")

    monkeypatch.setattr(manifest_module, "parse_manifest", refused)
    again = cli(*argv)
    assert again[0] == first[0]
    assert (instance.root / "articles/skill-evals-2026-05-31.md").read_text() == article

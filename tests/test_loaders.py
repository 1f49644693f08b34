"""Every real file in ../shared/realdata loads: evals.json, aeon.yml, cron-state, skill-health."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from realdata import realdata

from aeon_evals.load.manifest import parse_manifest
from aeon_evals.load.registry import parse_registry
from aeon_evals.load.state import parse_cron_state, parse_health


def _files(pattern: str) -> list[Path]:
    found = sorted(realdata().glob(pattern))
    assert found, pattern
    return found


def test_every_real_evals_json_loads_without_errors() -> None:
    for path in _files("*/skills/skill-evals/evals.json@*"):
        manifest = parse_manifest(json.loads(path.read_text()), path=path.name)
        assert manifest.specs, path
        assert not manifest.spec_errors, (path, manifest.spec_errors)
        assert [p for p in manifest.problems if p.severity == "error"] == []


@pytest.mark.parametrize(
    ("name", "registered", "enabled"),
    [
        ("anajuliabit__aeon/aeon.yml@2026-05-24_6ad810e", 124, 21),
        (
            "anajuliabit__aeon/aeon.yml@2026-05-31_ea83659",
            124,
            29,
        ),  # the real 05-31 article says 14/29
        (
            "anajuliabit__aeon/aeon.yml@2026-06-2x_0444176",
            191,
            43,
        ),  # "33 enabled where there are 43"
        (
            "aeonfun__aeon/aeon.yml@2026-04-26_533505db",
            97,
            97,
        ),  # not valid YAML as a whole; article: 14/97
        ("aeonfun__aeon/aeon.yml", 69, 1),
        ("aaronjmars__aeon-nur/aeon.yml", 59, 8),
        ("aaronjmars__miroshark-aeon/aeon.yml", 71, 9),
        ("usiclabs__managr/aeon.yml", 197, 1),
        ("PortalFnd__clawtrlautonomous/claw.yml", 125, 1),
    ],
)
def test_every_real_aeon_yml_reads_its_skills(name: str, registered: int, enabled: int) -> None:
    registry = parse_registry((realdata() / name).read_text())
    assert len(registry.skills) == registered
    assert len(registry.enabled()) == enabled
    assert registry.warnings == ()


def test_multiline_entries_and_keys_without_value() -> None:
    registry = parse_registry((realdata() / "aaronjmars__aeon-nur/aeon.yml").read_text())
    fetch = registry.skills["fetch-tweets"]  # a multi-line flow map with a wrapped string
    assert fetch.enabled and fetch.schedule == "0 17 * * *"
    text = "skills:\n  bare-key:\n  other: { enabled: true, schedule: '0 7 * * *' }\n"
    reg = parse_registry(text)
    assert reg.skills["bare-key"].enabled is False and reg.skills["other"].enabled


def test_invalid_yaml_file_still_reads_each_entry_it_can() -> None:
    text = (
        "skills:\n  good: { enabled: true, schedule: '0 7 * * *' }\n  bad: { enabled: true, "
        'schedule: "0 8 * * *"\n  after: { enabled: true }\nchains:\n  - skill: a, consume: [b]\n'
    )
    reg = parse_registry(text)
    assert reg.skills["good"].enabled and reg.skills["after"].enabled


def test_skill_names_that_yaml_1_1_calls_booleans_stay_names() -> None:
    reg = parse_registry(
        "skills:\n  off: { enabled: true }\n  on: { enabled: false }\n  yes: { enabled: yes }\n"
    )
    assert sorted(reg.skills) == ["off", "on", "yes"]
    assert reg.skills["off"].enabled and not reg.skills["on"].enabled


def test_every_real_cron_state_loads() -> None:
    for path in _files("*/memory/cron-state.json*"):
        rows, warnings = parse_cron_state(json.loads(path.read_text()))
        assert rows and not warnings, path


def test_every_real_skill_health_record_loads() -> None:
    for path in _files("*/memory/skill-health/*"):
        skill = path.name.split("@")[0].removesuffix(".json")
        record, warning = parse_health(skill, json.loads(path.read_text()))
        if skill == "last-report":  # another schema: no avg_score, read as quality unknown
            assert record is None or record.avg_score is None
            continue
        assert warning is None and record is not None and record.avg_score is not None, path


def test_cron_state_that_is_a_list_is_ignored_with_a_warning() -> None:
    rows, warnings = parse_cron_state([{"heartbeat": {}}])
    assert rows == {} and warnings == [
        "memory/cron-state.json: expected an object of skills, got a list; cron-state ignored"
    ]


def test_skill_health_read_through_its_listing_is_what_opening_each_file_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """load_state lists memory/skill-health once and opens only the files there (boot pass: 950
    failed opens at 1,000 skills); the same records and warnings as opening each skill's file,
    hostile entries included. A folder behind a symlink is not listed: each file is opened."""
    from aeon_evals.load import state

    health = tmp_path / "memory/skill-health"
    health.mkdir(parents=True)
    (health / "good.json").write_text(json.dumps({"avg_score": 4.1, "history": []}))
    (health / "bad.json").write_text("{not json")
    (health / "folder.json").mkdir()
    (health / "out.json").symlink_to("/etc/hostname")
    (health / "dangling.json").symlink_to("nowhere.json")
    skills = ["good", "bad", "folder", "out", "dangling", "missing", "x" * 300]
    listed = state.load_state(tmp_path, skills)
    assert set(listed.health) == {"good"} and len(listed.warnings) == 4, listed.warnings
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / "memory").symlink_to(tmp_path / "memory")
    assert state._plain_listing(tmp_path, state.SKILL_HEALTH) is not None
    assert state._plain_listing(linked, state.SKILL_HEALTH) is None
    monkeypatch.setattr(state, "_plain_listing", lambda root, rel: None)
    assert state.load_state(tmp_path, skills) == listed

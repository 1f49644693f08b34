"""aeon.yml, as real instances write it: every real variant, broken entries, schedules."""

from __future__ import annotations

from pathlib import Path

import pytest
from realdata import realdata

from aeon_evals.errors import ConfigError
from aeon_evals.load.registry import load_registry, parse_registry, schedule_problems

REAL_FILES = [
    # (file, registered, enabled)
    ("aeonfun__aeon/aeon.yml", 69, 1),
    ("aeonfun__aeon/aeon.yml@2026-04-26_533505db", 97, 97),  # not valid YAML as a whole (chains)
    ("anajuliabit__aeon/aeon.yml@2026-05-24_6ad810e", 124, 21),
    ("anajuliabit__aeon/aeon.yml@2026-05-31_ea83659", 124, 29),
    ("anajuliabit__aeon/aeon.yml@2026-06-2x_0444176", 191, 43),
    ("aaronjmars__aeon-nur/aeon.yml", 59, 8),
    ("aaronjmars__miroshark-aeon/aeon.yml", 71, 9),
    ("usiclabs__managr/aeon.yml", 197, 1),
    ("PortalFnd__clawtrlautonomous/claw.yml", 125, 1),  # a fork's renamed copy
]


def test_the_table_covers_every_real_variant() -> None:
    found = {p.relative_to(realdata()).as_posix() for p in realdata().glob("*/aeon.yml*")}
    found |= {p.relative_to(realdata()).as_posix() for p in realdata().glob("*/claw.yml")}
    assert found == {name for name, _, _ in REAL_FILES}


@pytest.mark.parametrize(("name", "registered", "enabled"), REAL_FILES)
def test_every_real_file_reads_cleanly_with_a_line_for_each_entry(
    name: str, registered: int, enabled: int
) -> None:
    text = (realdata() / name).read_text(encoding="utf-8")
    registry = parse_registry(text)
    assert (len(registry.skills), len(registry.enabled())) == (registered, enabled)
    assert registry.warnings == ()
    assert schedule_problems(registry) == []
    lines = text.splitlines()
    for skill, line in registry.lines.items():
        assert lines[line - 1].lstrip().startswith(f"{skill}:"), (skill, line)
    assert set(registry.lines) == set(registry.skills)


def test_the_invalid_yaml_file_is_read_through_its_skills_block() -> None:
    registry = parse_registry(
        (realdata() / "aeonfun__aeon/aeon.yml@2026-04-26_533505db").read_text()
    )
    assert registry.yaml_error is not None and "line 199" in registry.yaml_error
    scanner = registry.skills["repo-scanner"]  # a multi-line flow map
    assert scanner.enabled and scanner.schedule == "0 15 * * 0"
    assert registry.skills["distribute-tokens"].schedule == "workflow_dispatch"
    assert "morning-brief" in registry.skills and "chains" not in registry.skills


def test_multi_line_entries_of_the_0444176_file_are_enabled() -> None:
    registry = parse_registry(
        (realdata() / "anajuliabit__aeon/aeon.yml@2026-06-2x_0444176").read_text()
    )
    for skill in ("operator-scorecard", "token-movers", "narrative-tracker"):
        assert registry.skills[skill].enabled, skill
    assert not registry.skills["skill-enabler"].enabled  # its comment says "enabled:true"


def test_a_tab_indented_entry_is_read_and_named() -> None:
    text = (
        'skills:\n  a: { enabled: true, schedule: "0 7 * * *" }\n\tb: { enabled: true, schedule: '
        '"0 8 * * *" }\n'
    )
    registry = parse_registry(text)
    assert registry.skills["b"].enabled and registry.skills["b"].schedule == "0 8 * * *"
    assert registry.warnings == (
        "aeon.yml: skills.b (line 3): indented with a tab (YAML allows only spaces); read anyway",
    )


def test_a_broken_flow_map_is_read_best_effort_and_named() -> None:
    text = (
        'skills:\n  a: { enabled: true, schedule: "0 7 * * *" }\n  b: { enabled: true, schedule: '
        '"0 8 * * 1"\n  c: { enabled: false }\n'
    )
    registry = parse_registry(text)
    assert registry.skills["b"].enabled and registry.skills["b"].schedule == "0 8 * * 1"
    assert registry.skills["a"].enabled and not registry.skills["c"].enabled
    assert len(registry.warnings) == 1
    assert registry.warnings[0].startswith("aeon.yml: skills.b (line 3): not valid YAML (")
    assert registry.warnings[0].endswith("read best-effort as enabled, schedule '0 8 * * 1'")


def test_a_skill_defined_twice_is_warned() -> None:
    registry = parse_registry(
        'skills:\n  a: { enabled: false }\n  b: {}\n  a: { enabled: true, schedule: "0 7 * * *" }\n'
    )
    assert registry.skills["a"].enabled
    assert registry.warnings == (
        "aeon.yml: skills.a (line 4): defined twice (lines 2 and 4); the last one wins",
    )


@pytest.mark.parametrize(
    ("text", "warning"),
    [
        (
            "model: x\n",
            "aeon.yml: no top-level 'skills:' block; every skill counts as unregistered",
        ),
        (
            "skills:\n  - a\n  - b\n",
            "aeon.yml: skills: expected a mapping of skill names, got a list; every skill counts "
            "as unregistered",
        ),
        (
            "chains: [\n",
            "aeon.yml: not valid YAML (expected the node content, but found '<stream end>' at "
            "line 2) and no top-level 'skills:' block; every skill counts as unregistered",
        ),
    ],
)
def test_a_file_with_no_usable_skills_block(text: str, warning: str) -> None:
    registry = parse_registry(text)
    assert registry.skills == {} and registry.warnings == (warning,)


def test_an_empty_skills_block_and_a_bom_are_fine() -> None:
    assert parse_registry("\ufeffskills:\nmodel: x\n").warnings == ()
    assert parse_registry("\ufeffskills:\n  a: { enabled: true }\n").enabled() == {"a"}


def test_missing_and_undecodable_files(tmp_path: Path) -> None:
    missing = load_registry(tmp_path, required=False)
    assert not missing.found and missing.warnings == (
        "aeon.yml: not found; every skill counts as unregistered",
    )
    with pytest.raises(ConfigError) as refused:  # what a run gets: no registry, no instance
        load_registry(tmp_path)
    assert refused.value.line() == (
        "aeon.yml: not found (looked for aeon.yml, then a *.yml or *.yaml with a top-level "
        f"skills: block, in {tmp_path}): not an Aeon instance (check --root, or pass --config FILE)"
    )
    (tmp_path / "aeon.yml").write_bytes(
        b'skills:\n  caf\xe9: { enabled: true, schedule: "0 7 * * *" }\n'
    )
    registry = load_registry(tmp_path)
    assert registry.warnings == (
        "aeon.yml: not UTF-8 text (byte 0xe9 at offset 13); undecodable bytes replaced",
    )
    assert len(registry.enabled()) == 1


SCHEDULES = [
    # (entry, (where, message start, severity)) — None when the entry is fine
    ('{ enabled: true, schedule: "0 7 * * 1,3" }', None),
    ('{ enabled: true, schedule: "workflow_dispatch" }', None),
    ('{ enabled: true, schedule: "reactive" }', None),
    ("{ enabled: false }", None),
    (
        '{ enabled: true, schedule: "0 0 7 * * *" }',
        (
            "skills.s.schedule (line 2)",
            "'0 0 7 * * *' has 6 fields; GitHub Actions only takes 5-field cron, so the 14-day "
            "fallback cadence applies",
            "warning",
        ),
    ),
    (
        '{ enabled: true, schedule: "@daily" }',
        (
            "skills.s.schedule (line 2)",
            "'@daily' is not a 5-field cron; GitHub Actions only takes 5-field cron, so the "
            "14-day fallback cadence applies",
            "warning",
        ),
    ),
    (
        '{ enabled: true, schedule: "0 25 * * *" }',
        (
            "skills.s.schedule (line 2)",
            "'0 25 * * *' is not a valid cron expression; Aeon would never schedule it as "
            "written, and the 14-day fallback cadence applies",
            "error",
        ),
    ),
    (
        '{ enabled: false, schedule: "0 7 * *" }',
        (
            "skills.s.schedule (line 2)",
            "'0 7 * *' has 4 fields; a cron schedule has 5 (minute hour day month weekday); Aeon "
            "would never schedule it as written, and the 14-day fallback cadence applies",
            "warning",
        ),
    ),
    (
        "{ enabled: true }",
        (
            "skills.s.schedule (line 2)",
            "enabled but no schedule; the 14-day fallback cadence applies",
            "warning",
        ),
    ),
    (
        "{ enabled: true, schedule: 7 }",
        ("skills.s.schedule (line 2)", "expected a cron string, got 7", "error"),
    ),
    (
        '{ enabled: yes, schedule: "0 7 * * *" }',
        (
            "skills.s.enabled (line 2)",
            "expected true or false, got 'yes'; read as enabled",
            "warning",
        ),
    ),
]


@pytest.mark.parametrize(("entry", "problem"), SCHEDULES)
def test_schedules_are_checked_as_github_actions_would(
    entry: str, problem: tuple[str, str, str] | None
) -> None:
    registry = parse_registry(f"skills:\n  s: {entry}\n")
    found = [(p.file, p.where, p.message, p.severity) for p in schedule_problems(registry)]
    assert found == ([("aeon.yml", *problem)] if problem else [])
    if problem:  # the run prints them too, whatever their severity
        assert registry.warnings == (f"aeon.yml: {problem[0]}: {problem[1]}",)

"""`aeon-evals validate`: one broken field at a time, each reported with its exact location."""

from __future__ import annotations

import copy
import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import Instance
from realdata import MIROSHARK, realdata

Cli = Callable[..., tuple[int, str, str]]
EVALS = "skills/skill-evals/evals.json"
SPECS: dict[str, Any] = {
    "cost-report": {
        "output_pattern": "articles/cost-report-*.md",
        "min_words": 20,
        "required_patterns": ["Total cost"],
        "forbidden_patterns": [r"\$\{var\}"],
        "numeric_checks": [
            {"label": "total", "pattern": r"Total cost \$([\d,.]+)", "min": 0, "max": 1000}
        ],
    },
    "heartbeat": {"output_pattern": "memory/logs/*.md", "section": "### heartbeat", "min_words": 3},
}
AEON = (
    'skills:\n  cost-report: { enabled: true, schedule: "0 7 * * 1" }\n  heartbeat: { enabled: '
    'true, schedule: "0 8 * * *" }\n'
)


def valid(inst: Instance, specs: dict[str, Any] | None = None, **top: Any) -> Instance:
    inst.write("aeon.yml", AEON)
    inst.write("skills/cost-report/SKILL.md", "")
    inst.write("skills/heartbeat/SKILL.md", "")
    inst.evals(copy.deepcopy(SPECS) if specs is None else specs, **top)
    return inst


def _set(skill: str, path: str, value: Any) -> dict[str, Any]:
    """SPECS with one field replaced (`numeric_checks.0.max`), or removed when value is DROP."""
    specs = copy.deepcopy(SPECS)
    node: Any = specs[skill]
    keys = path.split(".")
    for key in keys[:-1]:
        node = node[int(key)] if isinstance(node, list) else node[key]
    last: Any = int(keys[-1]) if isinstance(node, list) else keys[-1]
    if value is DROP:
        del node[last]
    else:
        node[last] = value
    return specs


DROP = object()
E = f"{EVALS}: skills"
MARK = "@@marked@@"


def _line_of(specs: dict[str, Any], where: str, **top: Any) -> int:
    """Oracle for the line validate names: mark the member `where` in the document the test
    wrote (json.dumps, indent 2) and find the marked line. A member that is not there is located
    at the object that lacks it."""
    keys = re.findall(r"[^.\[\]]+", where)
    while keys:
        doc: Any = copy.deepcopy({"version": "1", "skills": specs, **top})
        node = doc
        for key in keys[:-1]:
            node = node[int(key)] if isinstance(node, list) else node.get(key)
        last: Any = int(keys[-1]) if isinstance(node, list) else keys[-1]
        if (isinstance(node, list) and last < len(node)) or (
            isinstance(node, dict) and last in node
        ):
            node[last] = MARK
            text = json.dumps(doc, indent=2)
            return next(i for i, ln in enumerate(text.splitlines(), 1) if MARK in ln)
        keys = keys[:-1]
    raise AssertionError(f"{where} is not in the document")


def located(line: str, severity: str, specs: dict[str, Any], **top: Any) -> str:
    """`evals.json: where: message` as validate prints it:
    `evals.json:N: severity: where: message`."""
    file, where, message = line.split(": ", 2)
    return f"{file}:{_line_of(specs, where, **top)}: {severity}: {where}: {message}"


# (id, skill, field, value, severity, the exact line after `error: ` / `warning: `)
FIELDS = [
    (
        "max-below-min",
        "cost-report",
        "numeric_checks.0.max",
        -1,
        "error",
        f"{E}.cost-report.numeric_checks[0].max: max -1 is below min 0",
    ),
    (
        "min-a-string",
        "cost-report",
        "numeric_checks.0.min",
        "5",
        "error",
        f'{E}.cost-report.numeric_checks[0].min: expected a finite number, got a string "5"',
    ),
    (
        "numeric-no-pattern",
        "cost-report",
        "numeric_checks.0.pattern",
        DROP,
        "error",
        f"{E}.cost-report.numeric_checks[0].pattern: is required (a regex whose group 1 is the "
        "number)",
    ),
    (
        "numeric-bad-regex",
        "cost-report",
        "numeric_checks.0.pattern",
        "(?<=\\$)\\d+",
        "error",
        f"{E}.cost-report.numeric_checks[0].pattern: pattern `(?<=\\$)\\d+` does not compile: "
        "invalid perl operator: (?<=",
    ),
    (
        "numeric-label-int",
        "cost-report",
        "numeric_checks.0.label",
        7,
        "error",
        f"{E}.cost-report.numeric_checks[0].label: expected a string, got an integer 7",
    ),
    (
        "numeric-skip-str",
        "cost-report",
        "numeric_checks.0.skip_if_not_found",
        "yes",
        "error",
        f"{E}.cost-report.numeric_checks[0].skip_if_not_found: expected true or false, got a "
        'string "yes"',
    ),
    (
        "numeric-not-object",
        "cost-report",
        "numeric_checks.0",
        "total",
        "error",
        f"{E}.cost-report.numeric_checks[0]: expected an object with label, pattern, min, max, "
        'got a string "total"',
    ),
    (
        "numeric-unknown-key",
        "cost-report",
        "numeric_checks.0.maximum",
        5,
        "warning",
        f"{E}.cost-report.numeric_checks[0].maximum: unknown key (ignored)",
    ),
    (
        "numeric-no-bounds",
        "cost-report",
        "numeric_checks.0",
        {"label": "t", "pattern": "x(\\d+)"},
        "warning",
        f"{E}.cost-report.numeric_checks[0]: no min and no max: this check can never fail",
    ),
    (
        "min-words-negative",
        "cost-report",
        "min_words",
        -5,
        "error",
        f"{E}.cost-report.min_words: must be 0 or more, got -5",
    ),
    (
        "min-words-string",
        "cost-report",
        "min_words",
        "20",
        "error",
        f'{E}.cost-report.min_words: expected an integer, got a string "20"',
    ),
    (
        "min-words-float",
        "cost-report",
        "min_words",
        20.5,
        "error",
        f"{E}.cost-report.min_words: expected an integer, got a number 20.5",
    ),
    (
        "required-lookbehind",
        "cost-report",
        "required_patterns",
        ["ok", "(?<=a)b"],
        "error",
        f"{E}.cost-report.required_patterns[1]: pattern `(?<=a)b` does not compile: invalid perl "
        "operator: (?<=",
    ),
    (
        "forbidden-backref",
        "cost-report",
        "forbidden_patterns",
        ["(a)\\1"],
        "error",
        f"{E}.cost-report.forbidden_patterns[0]: pattern `(a)\\1` does not compile: invalid "
        "escape sequence: \\1",
    ),
    (
        "required-not-a-list",
        "cost-report",
        "required_patterns",
        5,
        "error",
        f"{E}.cost-report.required_patterns: expected a list of patterns, got an integer 5",
    ),
    (
        "required-item-null",
        "cost-report",
        "required_patterns",
        [None],
        "error",
        f"{E}.cost-report.required_patterns[0]: expected a pattern string, got null",
    ),
    (
        "required-a-string",
        "cost-report",
        "required_patterns",
        "Total",
        "warning",
        f"{E}.cost-report.required_patterns: expected a list of patterns; the single string was "
        "read as a list of one",
    ),
    (
        "required-empty",
        "cost-report",
        "required_patterns",
        [""],
        "warning",
        f"{E}.cost-report.required_patterns[0]: an empty pattern matches every output",
    ),
    (
        "pattern-missing",
        "cost-report",
        "output_pattern",
        DROP,
        "error",
        f"{E}.cost-report.output_pattern: is required (a glob relative to the root)",
    ),
    (
        "pattern-dotdot",
        "cost-report",
        "output_pattern",
        "articles/../../x/*.md",
        "error",
        f"{E}.cost-report.output_pattern: 'articles/../../x/*.md' contains '..'; patterns must "
        "stay inside the instance root",
    ),
    (
        "pattern-absolute",
        "cost-report",
        "output_pattern",
        "/etc/*.conf",
        "error",
        f"{E}.cost-report.output_pattern: '/etc/*.conf' is an absolute path; patterns are "
        "relative to the instance root",
    ),
    (
        "pattern-bracket",
        "cost-report",
        "output_pattern",
        "articles/[a-*.md",
        "error",
        f"{E}.cost-report.output_pattern: 'articles/[a-*.md' has an unbalanced '['",
    ),
    (
        "pattern-a-list",
        "cost-report",
        "output_pattern",
        ["a"],
        "error",
        f"{E}.cost-report.output_pattern: expected a string, got a list",
    ),
    (
        "cadence-bogus",
        "cost-report",
        "expected_cadence",
        "fortnightly",
        "error",
        f"{E}.cost-report.expected_cadence: expected days (7), '7d', 'daily', 'weekly' or a "
        '5-field cron, got a string "fortnightly"',
    ),
    (
        "section-empty",
        "heartbeat",
        "section",
        " ",
        "error",
        f"{E}.heartbeat.section: expected a heading such as '### heartbeat', got a string \" \"",
    ),
    (
        "section-missing",
        "heartbeat",
        "section",
        DROP,
        "warning",
        f"{E}.heartbeat.output_pattern: checks apply to the whole shared daily log; add "
        '"section": "### heartbeat" to check only this skill\'s part',
    ),
    (
        "mute-bad-date",
        "cost-report",
        "mute",
        {"until": "2026-13-01", "reason": "x"},
        "error",
        f'{E}.cost-report.mute.until: expected a date YYYY-MM-DD, got a string "2026-13-01"',
    ),
    (
        "mute-no-until",
        "cost-report",
        "mute",
        {"reason": "x"},
        "error",
        f"{E}.cost-report.mute.until: is required (a date YYYY-MM-DD)",
    ),
    (
        "mute-a-string",
        "cost-report",
        "mute",
        "2026-06-01",
        "error",
        f'{E}.cost-report.mute: expected {{"until": "YYYY-MM-DD", "reason": "…"}}, got a string '
        '"2026-06-01"',
    ),
    (
        "mute-unknown-key",
        "cost-report",
        "mute",
        {"until": "2026-06-01", "by": "me"},
        "warning",
        f"{E}.cost-report.mute.by: unknown key (ignored)",
    ),
    (
        "headings-a-string",
        "cost-report",
        "required_headings",
        "## Summary",
        "error",
        f'{E}.cost-report.required_headings: expected a list of headings such as ["## Summary"], '
        'got a string "## Summary"',
    ),
    (
        "heading-empty",
        "cost-report",
        "required_headings",
        ["## Summary", "##"],
        "error",
        f"{E}.cost-report.required_headings[1]: expected a heading such as '## Summary', got a "
        'string "##"',
    ),
    (
        "heading-not-text",
        "cost-report",
        "required_headings",
        [3],
        "error",
        f"{E}.cost-report.required_headings[0]: expected a heading such as '## Summary', got an "
        "integer 3",
    ),
    (
        "unknown-key",
        "cost-report",
        "outptu_pattern",
        "x",
        "warning",
        f"{E}.cost-report.outptu_pattern: unknown key (ignored)",
    ),
]


@pytest.mark.parametrize(
    ("case", "skill", "field", "value", "severity", "line"), FIELDS, ids=[f[0] for f in FIELDS]
)
def test_one_broken_field_is_reported_at_its_location(
    instance: Instance,
    cli: Cli,
    case: str,
    skill: str,
    field: str,
    value: Any,
    severity: str,
    line: str,
) -> None:
    specs = _set(skill, field, value)
    inst = valid(instance, specs)
    code, out, _ = cli("validate", "--root", str(inst.root))
    assert out.splitlines()[:-1] == [located(line, severity, specs)], out
    assert code == (2 if severity == "error" else 0)
    code, out, _ = cli("validate", "--json", "--root", str(inst.root))
    data = json.loads(out)
    file, where, message = line.split(": ", 2)
    at = _line_of(specs, where)
    assert data[f"{severity}s"] == [{"file": file, "line": at, "where": where, "message": message}]
    assert data["valid"] is (severity != "error")


def test_a_valid_instance_is_valid(instance: Instance, cli: Cli) -> None:
    code, out, _ = cli("validate", "--root", str(valid(instance).root))
    assert (code, out) == (0, "valid: 0 errors, 0 warnings\n")
    code, out, _ = cli("validate", "--json", "--root", str(instance.root))
    assert json.loads(out) == {"valid": True, "errors": [], "warnings": []}


def test_every_problem_is_reported_at_once(instance: Instance, cli: Cli) -> None:
    specs = _set("cost-report", "numeric_checks.0.max", -1)
    specs["cost-report"]["min_words"] = -5
    specs["heartbeat"]["required_patterns"] = ["(a)\\1"]
    specs["bad name/x"] = "a string"
    inst = valid(instance, specs, extra=1)
    inst.write("aeon.yml", AEON.replace('"0 8 * * *"', '"0 8 * *"'))
    code, out, _ = cli("validate", "--root", str(inst.root))
    assert code == 2
    assert out.splitlines() == [  # by file, then line; errors first on a line
        "aeon.yml:3: error: skills.heartbeat.schedule: '0 8 * *' has 4 fields; a cron schedule "
        "has 5 (minute hour day month weekday); Aeon would never schedule it as written, and the "
        "14-day fallback cadence applies",
        f"{EVALS}:6: error: skills.cost-report.min_words: must be 0 or more, got -5",
        f"{EVALS}:18: error: skills.cost-report.numeric_checks[0].max: max -1 is below min 0",
        f"{EVALS}:27: error: skills.heartbeat.required_patterns[0]: pattern `(a)\\1` does not "
        "compile: invalid escape sequence: \\1",
        f'{EVALS}:30: error: skills.bad name/x: "bad name/x" is not a skill name (letters, '
        "digits, '-', '_', '.'; it names the skills/<name>/ folder)",
        f"{EVALS}:30: error: skills.bad name/x: expected an object with at least output_pattern, "
        'got a string "a string"',
        f"{EVALS}:30: warning: skills.bad name/x: no skills/bad name/x/ folder and no aeon.yml "
        "entry (orphan spec)",
        f"{EVALS}:32: warning: extra: unknown key (ignored)",
        "invalid: 6 errors, 2 warnings",
    ]
    for line in out.splitlines()[1:6]:  # the evals.json lines above, worked out by the oracle
        where = line.split(": ")[2]
        assert line.startswith(f"{EVALS}:{_line_of(specs, where, extra=1)}: "), line


@pytest.mark.parametrize(
    ("raw", "line"),
    [
        (
            b'{"skills": {"a": {',
            f"{EVALS}:1: error: invalid JSON at line 1 column 19: Expecting property name "
            "enclosed in double quotes",
        ),
        (b"", f"{EVALS}:1: error: invalid JSON at line 1 column 1: Expecting value"),
        (
            b'{"skills": {"caf\xe9": {}}}',
            f"{EVALS}:1: error: not UTF-8 text (byte 0xe9 at offset 16)",
        ),
        (
            b'{"skills": {\n"a": {},\n"caf\xe9": {}}}',
            f"{EVALS}:3: error: not UTF-8 text (byte 0xe9 at offset 26)",
        ),
        (b"[1, 2]", f"{EVALS}: error: expected a JSON object with a 'skills' key, got a list"),
        (
            b'{"skills": [1]}',
            f"{EVALS}:1: error: skills: expected an object of skill specs, got a list",
        ),
        (
            b'{"skills": {}}',
            f"{EVALS}:1: error: skills: no skill specs; `aeon-evals run` would stop with "
            "SKILL_EVALS_BOOTSTRAP (exit 3)",
        ),
        (
            b'{"version": "1"}',
            f"{EVALS}: error: skills: no skill specs; `aeon-evals run` would stop with "
            "SKILL_EVALS_BOOTSTRAP (exit 3)",
        ),
    ],
)
def test_a_file_that_cannot_be_used_is_one_error(
    instance: Instance, cli: Cli, raw: bytes, line: str
) -> None:
    inst = valid(instance)
    inst.write(EVALS, raw)
    code, out, _ = cli("validate", "--root", str(inst.root))
    assert code == 2 and out.splitlines()[0] == line


def test_precommit_validate_blocked_every_aeon_yml_commit_without_evals_json(
    instance: Instance, cli: Cli
) -> None:
    """The pre-commit hook `aeon-evals-validate` exited 2 on miroshark (upstream layout, no
    evals.json: "error: not found"), so every aeon.yml commit was blocked. A missing evals.json
    is an info line (exit 0); aeon.yml is still validated and its errors still fail."""
    inst = valid(instance)
    (inst.root / EVALS).unlink()
    code, out, _ = cli("validate", "--root", str(inst.root))
    assert code == 0, out
    assert out.splitlines()[0] == (
        f"{EVALS}: info: not found: fine for today's Aeon, whose contracts come from each "
        "SKILL.md (aeon.yml is still checked): `aeon-evals run` evaluates every enabled skill on "
        "its contract; `aeon-evals init` writes a starter evals.json to pin or override them"
    )
    assert out.splitlines()[-1].startswith("valid: 0 errors")
    # the older layout still registers the LLM-run skill-evals: there `run` bootstraps (issue 33)
    registry = (inst.root / "aeon.yml").read_text()
    inst.write("aeon.yml", registry + '  skill-evals: { enabled: false, schedule: "0 6 * * 0" }\n')
    code, out, _ = cli("validate", "--root", str(inst.root))
    assert code == 0 and out.splitlines()[0] == (
        f"{EVALS}: info: not found: the registry still names the LLM-run skill-evals, so "
        "`aeon-evals run` would write a starter spec and stop (exit 3); `aeon-evals audit "
        "--stubs` drafts one"
    )
    inst.write("aeon.yml", registry)
    registry = (inst.root / "aeon.yml").read_text()
    inst.write(
        "aeon.yml",
        registry.replace(
            "skills:\n", 'skills:\n  broken: { enabled: true, schedule: "61 * * * *" }\n', 1
        ),
    )
    code, out, _ = cli("validate", "--root", str(inst.root))
    assert code == 2 and "aeon.yml" in out and "error" in out, out


def test_miroshark_validates_without_evals_json(cli: Cli) -> None:
    """The real upstream instance, as the pre-commit hook sees it: valid, exit 0."""
    root = realdata() / "instances" / MIROSHARK
    code, out, err = cli("validate", "--root", str(root))
    assert code == 0, out + err
    assert out.splitlines()[-1].startswith("valid: 0 errors")


def test_duplicate_keys_unknown_version_and_a_bom_are_warnings(
    instance: Instance, cli: Cli
) -> None:
    inst = valid(instance)
    text = json.dumps({"version": "2", "skills": SPECS}, indent=2)
    text = text.replace(
        '"heartbeat": {', '"cost-report": {"output_pattern": "x/*.md"},\n    "heartbeat": {', 1
    )
    inst.write(EVALS, b"\xef\xbb\xbf" + text.encode())
    twice = next(n for n, ln in enumerate(text.splitlines(), 1) if "x/*.md" in ln)
    code, out, _ = cli("validate", "--root", str(inst.root))
    assert code == 0, out
    assert out.splitlines() == [
        f'{EVALS}:2: warning: version: unknown version "2"; read as version 1',
        f"{EVALS}:{twice}: warning: skills.cost-report: written twice in the same object; the "
        "last one wins",
        "valid: 0 errors, 2 warnings",
    ]


@pytest.mark.parametrize(
    ("schedule", "severity", "message"),
    [
        ("workflow_dispatch", None, ""),
        ("reactive", None, ""),
        (
            "0 0 8 * * *",
            "warning",
            "'0 0 8 * * *' has 6 fields; GitHub Actions only takes 5-field cron, so the 14-day "
            "fallback cadence applies",
        ),
        (
            "@daily",
            "warning",
            "'@daily' is not a 5-field cron; GitHub Actions only takes 5-field cron, so the "
            "14-day fallback cadence applies",
        ),
        (
            "0 25 * * *",
            "error",
            "'0 25 * * *' is not a valid cron expression; Aeon would never schedule it as "
            "written, and the 14-day fallback cadence applies",
        ),
    ],
)
def test_aeon_yml_schedules(
    instance: Instance, cli: Cli, schedule: str, severity: str | None, message: str
) -> None:
    inst = valid(instance)
    inst.write("aeon.yml", AEON.replace('"0 8 * * *"', f'"{schedule}"'))
    code, out, _ = cli("validate", "--root", str(inst.root))
    if severity is None:
        assert (code, out) == (0, "valid: 0 errors, 0 warnings\n")
    else:
        assert (
            out.splitlines()[0] == f"aeon.yml:3: {severity}: skills.heartbeat.schedule: {message}"
        )
        assert code == (2 if severity == "error" else 0)


def test_aeon_yml_read_best_effort_is_a_warning_and_missing_an_error(
    instance: Instance, cli: Cli
) -> None:
    """A missing aeon.yml was a warning and `validate` said "valid" (issue 33: the run then
    passed an empty fleet): it is an error naming what was looked for."""
    inst = valid(instance)
    inst.write("aeon.yml", AEON.replace("  heartbeat", "\theartbeat"))
    code, out, _ = cli("validate", "--root", str(inst.root))
    assert code == 0
    assert (
        out.splitlines()[0]
        == "aeon.yml:3: warning: skills.heartbeat: indented with a tab (YAML allows only spaces); "
        "read anyway"
    )
    (inst.root / "aeon.yml").unlink()
    code, out, _ = cli("validate", "--root", str(inst.root))
    assert code == 2
    assert out.splitlines()[0] == (
        "aeon.yml: error: not found (looked for aeon.yml, then a *.yml or *.yaml with a top-level "
        f"skills: block, in {inst.root.resolve()}): not an Aeon instance (check --root, or pass "
        "--config FILE)"
    )
    assert out.splitlines()[-1] == "invalid: 1 error, 0 warnings"


def test_orphan_specs_are_warned_with_the_closest_skill(instance: Instance, cli: Cli) -> None:
    specs = copy.deepcopy(SPECS)
    specs["hn-digest"] = {"output_pattern": "articles/hn-*.md"}
    inst = valid(instance, specs)
    inst.write("skills/hacker-news-digest/SKILL.md", "")
    code, out, _ = cli("validate", "--root", str(inst.root))
    assert code == 0
    assert (
        f"{EVALS}:27: warning: skills.hn-digest: no skills/hn-digest/ folder and no aeon.yml "
        "entry (orphan spec); did you mean hacker-news-digest?" in out.splitlines()
    )


def test_a_glob_through_a_symlink_out_of_the_root_is_an_error(
    instance: Instance, cli: Cli, tmp_path: Path
) -> None:
    inst = valid(instance, _set("cost-report", "output_pattern", "reports/cost-*.md"))
    outside = tmp_path / "outside"
    outside.mkdir()
    (inst.root / "reports").symlink_to(outside)
    code, out, _ = cli("validate", "--root", str(inst.root))
    assert code == 2
    assert (
        out.splitlines()[0]
        == f"{EVALS}:5: error: skills.cost-report.output_pattern: 'reports/cost-*.md' leads "
        "outside the instance root through the symlink 'reports'"
    )


@pytest.mark.parametrize(
    ("evals", "yml"),
    [
        (
            "aeonfun__aeon/skills/skill-evals/evals.json@2026-04-09_9c0184c5",
            "aeonfun__aeon/aeon.yml@2026-04-26_533505db",
        ),
        (
            "anajuliabit__aeon/skills/skill-evals/evals.json@2026-05-28_b4ce442",
            "anajuliabit__aeon/aeon.yml@2026-05-31_ea83659",
        ),
        (
            "aaronjmars__aeon-nur/skills/skill-evals/evals.json@2026-07-10_814ad4d8",
            "aaronjmars__aeon-nur/aeon.yml",
        ),
        (
            "aeonfun__aeon/skills/skill-evals/evals.json@2026-07-01_7f8de0a4",
            "aeonfun__aeon/aeon.yml",
        ),
    ],
)
def test_real_configurations_are_valid(tmp_path: Path, cli: Cli, evals: str, yml: str) -> None:
    (tmp_path / "skills/skill-evals").mkdir(parents=True)
    shutil.copyfile(realdata() / evals, tmp_path / EVALS)
    shutil.copyfile(realdata() / yml, tmp_path / "aeon.yml")
    code, out, _ = cli("validate", "--json", "--root", str(tmp_path))
    data = json.loads(out)
    assert code == 0 and data["valid"] and data["errors"] == [], data["errors"]


def test_a_config_not_valid_yaml_as_a_whole_is_located_at_the_line_the_parser_stopped(
    instance: Instance, cli: Cli
) -> None:
    """Acceptance bug: the "not valid YAML as a whole" warning had no `file:line:` prefix."""
    inst = valid(instance)
    chains = "chains:\n  - skill: cost-report, consume: [heartbeat]\n"
    inst.write("aeon.yml", AEON + chains)
    stop = len(AEON.splitlines()) + 2  # the chain's `consume:` is where the parser stops
    code, out, _ = cli("validate", "--root", str(inst.root))
    assert (code, out.splitlines()) == (
        0,
        [
            f"aeon.yml:{stop}: warning: not valid YAML as a whole (mapping values are not allowed "
            f"in this context at line {stop}); the skills: block was read on its own",
            "valid: 0 errors, 1 warning",
        ],
    )
    code, out, _ = cli("validate", "--json", "--root", str(inst.root))
    assert [(w["file"], w["line"]) for w in json.loads(out)["warnings"]] == [("aeon.yml", stop)]
    inst.write("aeon.yml", "model: x\n" + chains)  # no skills: block to fall back on either
    code, out, _ = cli("validate", "--root", str(inst.root))
    assert (code, out.splitlines()[0]) == (
        2,
        "aeon.yml:3: error: not valid YAML (mapping values are not allowed here at line 3) and no "
        "top-level 'skills:' block: not an Aeon instance (check --root, or pass --config FILE)",
    )


def test_findings_of_one_file_are_sorted_by_line(instance: Instance, cli: Cli) -> None:
    """Acceptance bug: findings came in the order of the checks (skill names, then orphans), not
    in the order of the file."""
    specs = {
        "zeta": {"output_pattern": "articles/z-*.md", "min_words": -1, "colour": "red"},
        **copy.deepcopy(SPECS),
        "alpha": {"output_pattern": "articles/a-*.md", "min_words": "x"},
    }
    specs["cost-report"]["numeric_checks"][0]["max"] = -1
    inst = valid(instance, specs)
    code, out, _ = cli("validate", "--root", str(inst.root))
    lines = out.splitlines()[:-1]
    assert code == 2 and len(lines) == 6, out
    located = [(ln.split(":")[0], int(ln.split(":")[1])) for ln in lines]
    assert located == sorted(located)
    assert [ln.split(": ")[2] for ln in lines] == [
        "skills.zeta",  # the orphan warning, at the entry
        "skills.zeta.min_words",
        "skills.zeta.colour",
        "skills.cost-report.numeric_checks[0].max",
        "skills.alpha",
        "skills.alpha.min_words",
    ]
    code, out, _ = cli("validate", "--json", "--root", str(inst.root))
    data = json.loads(out)
    for found in (data["errors"], data["warnings"]):
        assert [f["line"] for f in found] == sorted(f["line"] for f in found)
    assert [f["where"] for f in data["errors"]] == [
        "skills.zeta.min_words",
        "skills.cost-report.numeric_checks[0].max",
        "skills.alpha.min_words",
    ]


def test_run_warnings_name_the_evals_json_line_validate_gives(instance: Instance, cli: Cli) -> None:
    """Acceptance bug: `run` printed evals.json warnings without the line `validate` names."""
    specs = copy.deepcopy(SPECS)
    specs["heartbeat"]["colour"] = "red"  # an unknown key: a warning
    specs["cost-report"]["min_words"] = -5  # an unusable spec: the run says ERROR, still a warning
    inst = valid(instance, specs)
    _, out, _ = cli("validate", "--root", str(inst.root))
    unknown = next(ln for ln in out.splitlines() if "colour" in ln)
    broken = next(ln for ln in out.splitlines() if "min_words" in ln)
    assert unknown.startswith(f"{EVALS}:{_line_of(specs, 'skills.heartbeat.colour')}: warning: ")
    code, _, err = cli(
        "run", "--root", str(inst.root), "--dry-run", "--no-notify", "--now", "2026-06-01T06:00:00Z"
    )
    assert code == 0
    assert unknown in err.splitlines()
    assert (
        broken.replace(": error: ", ": warning: ", 1) + " (the skill is reported as ERROR)"
        in err.splitlines()
    )


def test_a_300_character_skill_name_in_evals_json_is_a_warning(
    instance: Instance, cli: Cli
) -> None:
    """Acceptance bug: a 300-character skill key passed validate's name check; an Agent Skills
    name (and so its folder) is at most 64 characters. A warning: the spec still runs."""
    long = "a" * 300
    specs = {**copy.deepcopy(SPECS), long: {"output_pattern": "articles/a-*.md"}}
    inst = valid(instance, specs)
    inst.write(f"skills/{long[:200]}/SKILL.md", "")  # not the folder either (the limit is 255)
    code, out, _ = cli("validate", "--json", "--root", str(inst.root))
    data = json.loads(out)
    assert code == 0 and data["valid"], data
    assert {
        "file": EVALS,
        "line": _line_of(specs, f"skills.{long}"),
        "where": f"skills.{long}",
        "message": f'"{long[:56]}... is 300 characters: an Agent Skills name is at most 64 '
        "(lowercase letters, digits, hyphens), and it names the skills/<name>/ folder",
    } in data["warnings"]
    specs = {**copy.deepcopy(SPECS), "a" * 64: {"output_pattern": "articles/a-*.md"}}
    code, out, _ = cli("validate", "--root", str(valid(instance, specs).root))
    assert "characters: an Agent Skills name" not in out

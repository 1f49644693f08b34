"""Bad configuration (issue #6 point 6): one table, one breakage per case, run end to end.

Each case builds a small valid instance, breaks one thing, runs `aeon-evals run` and checks the
exact line printed (file + location + problem), the exit code, and that no file that existed
before the run changed (new files only on exit 0, except the bootstrap's starter spec).
docs/bad-input.md holds the same table: AEON_EVALS_UPDATE_GOLDEN=1 rewrites it from this one.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import signal
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from aeon_evals.cli import main
from aeon_evals.metrics.file import COLUMNS

EVALS = "skills/skill-evals/evals.json"
DOC = Path(__file__).resolve().parents[1] / "docs" / "bad-input.md"
ARGV = ["--now", "2026-05-31T06:00:00Z", "--no-notify", "--no-site", "--retry-delay", "0"]
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
    "heartbeat": {
        "output_pattern": "memory/logs/*.md",
        "section": "### heartbeat",
        "min_words": 3,
        "required_patterns": ["HEARTBEAT_OK"],
    },
}
AEON = (
    'skills:\n  cost-report: { enabled: true, schedule: "0 7 * * 1" }\n  heartbeat: { enabled: '
    'true, schedule: "0 8 * * *" }\n'
)


def _write(root: Path, rel: str, data: str | bytes) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, bytes):
        path.write_bytes(data)
    else:
        path.write_text(data, encoding="utf-8")


def make_instance(root: Path) -> Path:
    """A small valid instance whose run on 2026-05-31 is all green: aeon.yml, two skills with
    specs (an article and a section of the shared log), their outputs, cron-state, skill-health."""
    _write(root, "aeon.yml", AEON)
    _write(
        root,
        "skills/cost-report/SKILL.md",
        "Write the report to `articles/cost-report-${today}.md`.\n",
    )
    _write(
        root,
        "skills/heartbeat/SKILL.md",
        "Append a `### heartbeat` section to `memory/logs/${today}.md`.\n",
    )
    _write(root, EVALS, json.dumps({"version": "1", "skills": SPECS}, indent=2) + "\n")
    _write(
        root,
        "articles/cost-report-2026-05-25.md",
        "# Cost report\n\nTotal cost $12.50 this week across " + " ".join(["skills"] * 30) + "\n",
    )
    _write(
        root,
        "memory/logs/2026-05-30.md",
        "# 2026-05-30\n\n### heartbeat\nHEARTBEAT_OK all quiet, nothing to report today.\n",
    )
    _write(
        root,
        "memory/cron-state.json",
        json.dumps(
            {"heartbeat": {"last_status": "success", "last_success": "2026-05-30T08:01:00Z"}}
        )
        + "\n",
    )
    _write(
        root,
        "memory/skill-health/cost-report.json",
        json.dumps({"avg_score": 4.2, "history": []}) + "\n",
    )
    return root


# --- breakages ----------------------------------------------------------------------------------


def evals_json(data: Any) -> Callable[[Path], None]:
    return lambda root: _write(root, EVALS, json.dumps(data, indent=2))


def evals_bytes(data: bytes) -> Callable[[Path], None]:
    return lambda root: _write(root, EVALS, data)


def spec(skill: str, **fields: Any) -> Callable[[Path], None]:
    """SPECS with fields of one skill replaced."""
    specs = json.loads(json.dumps(SPECS))
    specs[skill].update(fields)
    return evals_json({"version": "1", "skills": specs})


def numeric(**fields: Any) -> Callable[[Path], None]:
    """SPECS with cost-report's numeric check changed (None removes a field)."""
    specs = json.loads(json.dumps(SPECS))
    check = specs["cost-report"]["numeric_checks"][0]
    check.update(fields)
    for key in [k for k, v in fields.items() if v is None]:
        del check[key]
    return evals_json({"version": "1", "skills": specs})


def whole_spec(skill: str, value: Any) -> Callable[[Path], None]:
    specs = json.loads(json.dumps(SPECS))
    specs[skill] = value
    return evals_json({"version": "1", "skills": specs})


def replace_in(rel: str, old: str, new: str) -> Callable[[Path], None]:
    def apply(root: Path) -> None:
        text = (root / rel).read_text()
        assert old in text, (rel, old)
        (root / rel).write_text(text.replace(old, new))

    return apply


def write(rel: str, data: str | bytes) -> Callable[[Path], None]:
    return lambda root: _write(root, rel, data)


def remove(rel: str) -> Callable[[Path], None]:
    return lambda root: (root / rel).unlink()


def both(*steps: Callable[[Path], None]) -> Callable[[Path], None]:
    def apply(root: Path) -> None:
        for step in steps:
            step(root)

    return apply


def evals_folder(root: Path) -> None:
    (root / EVALS).unlink()
    (root / EVALS).mkdir()


def fifo(rel: str) -> Callable[[Path], None]:
    """A named pipe in place of `rel`: opening it for reading would block forever."""

    def apply(root: Path) -> None:
        (root / rel).unlink(missing_ok=True)
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        os.mkfifo(root / rel)

    return apply


def symlink(rel: str, target: str, content: str | None = None) -> Callable[[Path], None]:
    """`rel` replaced by a symlink to `target` (relative to `rel`'s folder); `content`, when
    given, is written to the target first (a file outside the instance)."""

    def apply(root: Path) -> None:
        link = root / rel
        if content is not None:
            outside = (link.parent / target).resolve()
            outside.parent.mkdir(parents=True, exist_ok=True)
            outside.write_text(content, encoding="utf-8")
        link.unlink(missing_ok=True)
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(target)

    return apply


def sparse(rel: str, size: int) -> Callable[[Path], None]:
    """`rel` as a file of `size` bytes (sparse: no disk is used)."""

    def apply(root: Path) -> None:
        with open(root / rel, "ab") as fh:
            fh.truncate(size)

    return apply


def chattr(flag: str, rel: str) -> Callable[[Path], None]:
    """`chattr +i` makes a folder immutable even for root (the tests run as root, so chmod
    would not stop a write); the case is skipped where the file system has no such flag."""

    def apply(root: Path) -> None:
        proc = subprocess.run(
            ["chattr", flag, str(root / rel)], capture_output=True, text=True, check=False
        )
        if proc.returncode != 0 and flag.startswith("+"):
            pytest.skip(f"chattr {flag} is not available here: {proc.stderr.strip()}")

    return apply


def alias_bomb() -> str:
    """Nine levels of `&a [*a × 9]`: 387 million values once expanded."""
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    for level in range(1, 9):
        lines.append(f"a{level}: &a{level} [" + ", ".join([f"*a{level - 1}"] * 9) + "]")
    return "\n".join(lines) + "\n"


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def edit_json(rel: str, change: Callable[[Any], None]) -> Callable[[Path], None]:
    def apply(root: Path) -> None:
        data = json.loads((root / rel).read_text(encoding="utf-8"))
        change(data)
        (root / rel).write_text(json.dumps(data), encoding="utf-8")

    return apply


@dataclass(frozen=True)
class Case:
    id: str
    bad: str  # what is wrong, for the docs
    apply: Callable[[Path], None]
    line: str  # printed as is (a substring of one line of stdout or stderr)
    code: int
    stream: str = "err"
    changes: tuple[str, ...] = ()  # files that existed and are meant to change (documented)
    new: tuple[str, ...] = ()  # files a non-zero exit is meant to create (the bootstrap)
    xfail: str | None = None
    argv: tuple[str, ...] = ()  # options after the usual ones; `{root}` is the instance root
    cleanup: Callable[[Path], None] | None = None  # undone after the run (chattr +i)


def seeded(root: Path) -> None:
    """aeon.yml registers the LLM-run skill-evals (disabled): the layout its skill seeded."""
    config = root / "aeon.yml"
    config.write_text(
        config.read_text() + '  skill-evals: { enabled: false, schedule: "0 6 * * 0" }\n'
    )


METRICS = "articles/skill-evals-metrics-2026-05-24.tsv"
PRIOR = (
    "# Skill Evals — 2026-05-24\n\n**Verdict:** SKILL_EVALS_OK\n\n## Full Results\n\n"
    "| Skill | Status | Diff | Root cause | Quality | Words | Last output | Notes |\n"
    "|---|---|---|---|---|---|---|---|\n"
    "| cost-report | PASS | STABLE | — | avg=4.2 | {words} | articles/cost-report-2026-05-18.md "
    "| — |\n"
)
ISSUE = (
    "---\nid: {id}\ntitle: cost-report: word_count\nstatus: open\nseverity: high\n"
    "category: quality-regression\ndetected_by: skill-evals\n"
    'detected_at: "2026-05-24T06:00:00Z"\naffected_skills: [cost-report]\n---\n\nBody.\n'
)


def metrics_line(numeric: str, *, words: str = "120", extra: int = 0) -> Callable[[Path], None]:
    """A past run's metrics file: cost-report's line with these cells, then `extra` made-up
    skills."""
    cells = ["cost-report", "PASS", words, "700", "6", "4.2", "articles/x.md", "", "", numeric]
    lines = ["# aeon-evals metrics v1", "\t".join(COLUMNS), "\t".join(cells)]
    lines += [f"made-up-{i:06d}\tPASS\t1\t2\t\t\t\t\t\t" for i in range(extra)]
    return write(METRICS, "\n".join(lines) + "\n")


def W(line: int) -> str:
    """The start of a run's warning about evals.json, at the line `validate` names."""
    return f"skills/skill-evals/evals.json:{line}: warning: "


A = "warning: aeon.yml: "
NEED = ": the skill registry is needed (without it every skill would count as unregistered)"
FAIL_COST = spec("cost-report", min_words=1000)  # a failing skill, so that an issue is filed

CASES = [
    # evals.json that cannot be used at all: SKILL_EVALS_ERROR, nothing written
    Case(
        "truncated-json",
        "evals.json cut off mid-file",
        lambda root: _write(root, EVALS, (root / EVALS).read_bytes()[:200]),
        "aeon-evals: skills/skill-evals/evals.json: invalid JSON at line 10 column 7: "
        "Unterminated string starting at (also after a retry 0s later)",
        2,
    ),
    Case(
        "empty-evals",
        "evals.json is an empty file",
        evals_bytes(b""),
        "aeon-evals: skills/skill-evals/evals.json: invalid JSON at line 1 column 1: Expecting "
        "value (also after a retry 0s later)",
        2,
    ),
    Case(
        "evals-not-utf8",
        "evals.json is not UTF-8 (Latin-1 é)",
        evals_bytes(b'{"version": "1", "skills": {"caf\xe9": {}}}'),
        "aeon-evals: skills/skill-evals/evals.json: not UTF-8 text (byte 0xe9 at offset 32) (also "
        "after a retry 0s later)",
        2,
    ),
    Case(
        "evals-a-list",
        "evals.json is a list",
        evals_json([SPECS]),
        "aeon-evals: skills/skill-evals/evals.json: expected a JSON object with a 'skills' key, "
        "got a list",
        2,
    ),
    Case(
        "skills-a-list",
        "`skills` is a list",
        evals_json({"skills": [SPECS]}),
        "aeon-evals: skills/skill-evals/evals.json: skills: expected an object of skill specs, "
        "got a list",
        2,
    ),
    Case(
        "evals-a-folder",
        "evals.json is a folder",
        evals_folder,
        "aeon-evals: skills/skill-evals/evals.json: is a folder, not a file",
        2,
    ),
    # no usable specs where the LLM-run skill-evals is registered: SKILL_EVALS_BOOTSTRAP
    Case(
        "empty-skills",
        "`skills` is `{}`, skill-evals registered",
        both(seeded, evals_json({"version": "1", "skills": {}})),
        "skills/skill-evals/evals.json exists but names no skill; it was left as it is",
        3,
        stream="out",
    ),
    Case(
        "missing-evals",
        "no evals.json, skill-evals registered",
        both(seeded, remove(EVALS)),
        "wrote skills/skill-evals/evals.json with 2 starter specs: review it and commit it",
        3,
        stream="out",
        new=(EVALS,),
    ),
    # today's Aeon: no skill-evals registered, every skill judged on its SKILL.md contract
    Case(
        "missing-evals-upstream",
        "no evals.json, no skill-evals registered",
        remove(EVALS),
        "warning: no skills/skill-evals/evals.json: every enabled skill is judged on its "
        "SKILL.md contract",
        0,
    ),
    Case(
        "empty-skills-upstream",
        "`skills` is `{}`, no skill-evals registered",
        evals_json({"version": "1", "skills": {}}),
        "verdict: SKILL_EVALS_OK",
        0,
        stream="out",
    ),
    # one bad spec: that skill gets an ERROR row and a Patch action, the others run
    Case(
        "spec-a-string",
        "a spec that is a string",
        whole_spec("heartbeat", "memory/logs/*.md"),
        W(22) + "skills.heartbeat: expected an object with at least output_pattern, got a string "
        '"memory/logs/*.md"',
        0,
    ),
    Case(
        "min-words-string",
        "`min_words` is a string",
        spec("cost-report", min_words="20"),
        W(6) + 'skills.cost-report.min_words: expected an integer, got a string "20"',
        0,
    ),
    Case(
        "min-words-negative",
        "negative `min_words`",
        spec("cost-report", min_words=-5),
        W(6) + "skills.cost-report.min_words: must be 0 or more, got -5",
        0,
    ),
    Case(
        "min-above-max",
        "numeric check with min > max",
        numeric(min=5, max=1),
        W(18) + "skills.cost-report.numeric_checks[0].max: max 1 is below min 5",
        0,
    ),
    Case(
        "max-a-string",
        "numeric `max` is a string",
        numeric(max="1000"),
        W(18)
        + 'skills.cost-report.numeric_checks[0].max: expected a finite number, got a string "1000"',
        0,
    ),
    Case(
        "max-nan",
        "numeric `max` is NaN",
        replace_in(EVALS, '"max": 1000', '"max": NaN'),
        W(18)
        + "skills.cost-report.numeric_checks[0].max: expected a finite number, got a number NaN",
        0,
    ),
    Case(
        "numeric-no-pattern",
        "numeric check without `pattern`",
        numeric(pattern=None),
        W(14)
        + "skills.cost-report.numeric_checks[0].pattern: is required (a regex whose group 1 is "
        "the number)",
        0,
    ),
    Case(
        "lookbehind",
        "regex `(?<=a)b` (RE2 has no lookbehind)",
        spec("cost-report", required_patterns=["(?<=a)b"]),
        W(8)
        + "skills.cost-report.required_patterns[0]: pattern `(?<=a)b` does not compile: invalid "
        "perl operator: (?<=",
        0,
    ),
    Case(
        "backreference",
        "regex `(a)\\1` (RE2 has no backreferences)",
        spec("cost-report", forbidden_patterns=["(a)\\1"]),
        W(11)
        + "skills.cost-report.forbidden_patterns[0]: pattern `(a)\\1` does not compile: invalid "
        "escape sequence: \\1",
        0,
    ),
    Case(
        "required-a-number",
        "`required_patterns` is a number",
        spec("cost-report", required_patterns=5),
        W(7)
        + "skills.cost-report.required_patterns: expected a list of patterns, got an integer 5",
        0,
    ),
    Case(
        "pattern-dotdot",
        "`output_pattern` with `..`",
        spec("cost-report", output_pattern="../articles/*.md"),
        W(5) + "skills.cost-report.output_pattern: '../articles/*.md' contains '..'; patterns must "
        "stay inside the instance root",
        0,
    ),
    Case(
        "pattern-absolute",
        "absolute `output_pattern`",
        spec("cost-report", output_pattern="/etc/passwd"),
        W(5) + "skills.cost-report.output_pattern: '/etc/passwd' is an absolute path; patterns are "
        "relative to the instance root",
        0,
    ),
    Case(
        "pattern-bracket",
        "`output_pattern` with an unbalanced `[`",
        spec("cost-report", output_pattern="articles/[a-*.md"),
        W(5) + "skills.cost-report.output_pattern: 'articles/[a-*.md' has an unbalanced '['",
        0,
    ),
    Case(
        "pattern-empty",
        "empty `output_pattern`",
        spec("cost-report", output_pattern=""),
        W(5) + "skills.cost-report.output_pattern: is empty",
        0,
    ),
    Case(
        "mute-bad-date",
        "`mute.until` is not a date",
        spec("cost-report", mute={"until": "next week", "reason": "holiday"}),
        W(22)
        + 'skills.cost-report.mute.until: expected a date YYYY-MM-DD, got a string "next week"',
        0,
    ),
    Case(
        "cadence-bogus",
        "`expected_cadence` is not a cadence",
        spec("cost-report", expected_cadence="fortnightly"),
        W(21)
        + "skills.cost-report.expected_cadence: expected days (7), '7d', 'daily', 'weekly' or a "
        '5-field cron, got a string "fortnightly"',
        0,
    ),
    Case(
        "section-empty",
        "`section` is blank",
        spec("heartbeat", section=""),
        W(24)
        + "skills.heartbeat.section: expected a heading such as '### heartbeat', got a string \"\"",
        0,
    ),
    Case(
        "section-bad-regex",
        "`section` neither a heading nor a valid pattern",
        spec("heartbeat", section="(?<=x)"),
        W(24)
        + "skills.heartbeat.section: not a heading such as '### heartbeat', and as a pattern: "
        "pattern `(?<=x)` does not compile",
        0,
    ),
    Case(
        "skill-name-a-path",
        "a skill named `../../etc`",
        whole_spec("../../etc", {"output_pattern": "articles/x-*.md"}),
        W(30) + 'skills.../../etc: "../../etc" is not a skill name',
        0,
    ),
    # harmless but worth a word: warned, used
    Case(
        "unknown-spec-key",
        "unknown key in a spec (typo)",
        spec("cost-report", outptu_pattern="x"),
        W(21) + "skills.cost-report.outptu_pattern: unknown key (ignored)",
        0,
    ),
    Case(
        "unknown-top-key",
        "unknown top-level key",
        evals_json({"version": "1", "skills": SPECS, "skils": {}}),
        W(31) + "skils: unknown key (ignored)",
        0,
    ),
    Case(
        "unknown-version",
        '`version` is "2"',
        evals_json({"version": "2", "skills": SPECS}),
        W(2) + 'version: unknown version "2"; read as version 1',
        0,
    ),
    Case(
        "utf8-bom",
        "evals.json starts with a UTF-8 BOM",
        lambda root: _write(root, EVALS, b"\xef\xbb\xbf" + (root / EVALS).read_bytes()),
        "verdict: SKILL_EVALS_OK",
        0,
        stream="out",
    ),
    # aeon.yml: read what can be read, say what could not; no skill registry at all is an error
    # (issue 33: a missing aeon.yml turned the fleet green, Coverage 0/0)
    Case(
        "missing-aeon-yml",
        "no aeon.yml",
        remove("aeon.yml"),
        "aeon-evals: aeon.yml: not found (looked for aeon.yml, then a *.yml or *.yaml with a "
        "top-level skills: block, in ",
        2,
    ),
    Case(
        "aeon-yml-tab",
        "aeon.yml entry indented with a tab",
        replace_in("aeon.yml", "  heartbeat", "\theartbeat"),
        A + "skills.heartbeat (line 3): indented with a tab (YAML allows only spaces); read anyway",
        0,
    ),
    Case(
        "aeon-yml-broken-flow-map",
        "aeon.yml flow map without its closing brace",
        replace_in("aeon.yml", '"0 8 * * *" }', '"0 8 * * *"'),
        A + "skills.heartbeat (line 3): not valid YAML (expected ',' or '}', but got '<stream "
        "end>'); read best-effort as enabled, schedule '0 8 * * *'",
        0,
    ),
    Case(
        "cron-6-fields",
        "cron with 6 fields",
        replace_in("aeon.yml", '"0 8 * * *"', '"0 0 8 * * *"'),
        A + "skills.heartbeat.schedule (line 3): '0 0 8 * * *' has 6 fields; GitHub Actions only "
        "takes 5-field cron, so the 14-day fallback cadence applies",
        0,
    ),
    Case(
        "cron-at-daily",
        "schedule `@daily`",
        replace_in("aeon.yml", '"0 8 * * *"', '"@daily"'),
        A + "skills.heartbeat.schedule (line 3): '@daily' is not a 5-field cron; GitHub Actions "
        "only takes 5-field cron, so the 14-day fallback cadence applies",
        0,
    ),
    Case(
        "cron-invalid",
        "cron hour 25",
        replace_in("aeon.yml", '"0 8 * * *"', '"0 25 * * *"'),
        A + "skills.heartbeat.schedule (line 3): '0 25 * * *' is not a valid cron expression; Aeon "
        "would never schedule it as written, and the 14-day fallback cadence applies",
        0,
    ),
    Case(
        "schedule-a-list",
        "schedule is a list",
        replace_in("aeon.yml", '"0 8 * * *"', '["0 8 * * *"]'),
        A + "skills.heartbeat.schedule (line 3): expected a cron string, got ['0 8 * * *']",
        0,
    ),
    Case(
        "enabled-yes",
        "`enabled: yes`",
        replace_in("aeon.yml", 'enabled: true, schedule: "0 8', 'enabled: yes, schedule: "0 8'),
        A + "skills.heartbeat.enabled (line 3): expected true or false, got 'yes'; read as enabled",
        0,
    ),
    Case(
        "aeon-yml-no-skills",
        "aeon.yml without a `skills:` block",
        write("aeon.yml", "model: claude-sonnet-4-6\n"),
        "aeon-evals: aeon.yml: no top-level 'skills:' block: not an Aeon instance (check --root, "
        "or pass --config FILE)",
        2,
    ),
    Case(
        "aeon-yml-skills-list",
        "aeon.yml `skills:` is a list",
        write("aeon.yml", "skills:\n  - cost-report\n  - heartbeat\n"),
        "aeon-evals: aeon.yml: skills: expected a mapping of skill names, got a list: not an Aeon "
        "instance (check --root, or pass --config FILE)",
        2,
    ),
    Case(
        "aeon-yml-not-utf8",
        "aeon.yml is not UTF-8",
        write("aeon.yml", AEON.encode() + b"# caf\xe9\n"),
        A + "not UTF-8 text (byte 0xe9 at offset 123); undecodable bytes replaced",
        0,
    ),
    # memory/: state files are never fatal
    Case(
        "cron-state-a-list",
        "cron-state.json is a list",
        write("memory/cron-state.json", '[{"heartbeat": {}}]'),
        "warning: memory/cron-state.json: expected an object of skills, got a list; cron-state "
        "ignored",
        0,
    ),
    Case(
        "cron-state-truncated",
        "cron-state.json cut off",
        write("memory/cron-state.json", '{"heartbeat": {'),
        "warning: memory/cron-state.json: invalid JSON at line 1: Expecting property name "
        "enclosed in double quotes; cron-state ignored",
        0,
    ),
    Case(
        "cron-state-row-a-string",
        "a cron-state row is a string",
        write("memory/cron-state.json", '{"heartbeat": "ok"}'),
        "warning: memory/cron-state.json: heartbeat: expected an object, got str; row ignored",
        0,
    ),
    Case(
        "health-string-score",
        "skill-health `avg_score` is a string",
        write("memory/skill-health/cost-report.json", '{"avg_score": "4.2"}'),
        "warning: memory/skill-health/cost-report.json: avg_score: expected a number, got '4.2'; "
        "quality unknown",
        0,
    ),
    Case(
        "health-bad-json",
        "skill-health file is not JSON",
        write("memory/skill-health/cost-report.json", "{avg_score: 4.2"),
        "warning: memory/skill-health/cost-report.json: invalid JSON; quality unknown",
        0,
    ),
    Case(
        "health-a-list",
        "skill-health file is a list",
        write("memory/skill-health/cost-report.json", "[4.2]"),
        "warning: memory/skill-health/cost-report.json: expected an object; quality unknown",
        0,
    ),
    # issues and the previous article
    Case(
        "index-no-tables",
        "INDEX.md with no tables, and an issue to file",
        both(write("memory/issues/INDEX.md", "# Issues\n\nNothing here yet.\n"), FAIL_COST),
        "issues filed: ISS-001 (cost-report)",
        0,
        stream="out",
        changes=("memory/issues/INDEX.md",),
    ),
    Case(
        "index-not-utf8",
        "INDEX.md is binary, and an issue to file",
        both(write("memory/issues/INDEX.md", b"\x00\xff" * 40), FAIL_COST),
        "warning: memory/issues/INDEX.md: not UTF-8 text; left untouched",
        0,
    ),
    Case(
        "iss-no-frontmatter",
        "an ISS file with no frontmatter",
        write("memory/issues/ISS-001.md", "Just text, no frontmatter\n"),
        "warning: memory/issues/ISS-001.md: no YAML frontmatter; left untouched",
        0,
    ),
    Case(
        "iss-alias-bomb",
        "an ISS file with a YAML alias bomb (nine levels of `&a [*a × 9]`) in its title",
        write(
            "memory/issues/ISS-001.md",
            "---\nid: ISS-001\nstatus: open\ntitle: [&l0 [lol, lol, lol, lol, lol, lol, lol, lol, "
            "lol]"
            + "".join(f", &l{n} [" + ", ".join([f"*l{n - 1}"] * 9) + "]" for n in range(1, 9))
            + "]\n---\n",
        ),
        "warning: memory/issues/ISS-001.md: YAML aliases expand past 10,000 values; read key by "
        "key, 'title' ignored",
        0,
    ),
    Case(
        "iss-huge-frontmatter",
        "an ISS file whose frontmatter is larger than 64 KiB",
        write(
            "memory/issues/ISS-001.md", "---\nid: ISS-001\nroot_cause: " + "x" * 70_000 + "\n---\n"
        ),
        "warning: memory/issues/ISS-001.md: frontmatter larger than 64 KiB; left untouched",
        0,
    ),
    Case(
        "iss-id-mismatch",
        "an ISS file whose frontmatter id names another issue",
        write("memory/issues/ISS-001.md", "---\nid: ISS-007\nstatus: open\ntitle: x\n---\n"),
        "warning: memory/issues/ISS-001.md: frontmatter id 'ISS-007' disagrees with the file "
        "name; read as ISS-001",
        0,
    ),
    Case(
        "index-sections-in-code",
        "INDEX.md with `## Open` in a fenced block and an HTML comment, its real sections `### "
        "Open` "
        "and `### Resolved`, and an issue to file (the row goes to `### Open`)",
        both(
            write(
                "memory/issues/INDEX.md",
                "# Issues\n\n```\n## Open\n```\n<!-- ## Open -->\n\n### Open\n\n_None_\n\n"
                "### Resolved\n\n_None_\n",
            ),
            FAIL_COST,
        ),
        "issues filed: ISS-001 (cost-report)",
        0,
        stream="out",
        changes=("memory/issues/INDEX.md",),
    ),
    Case(
        "previous-article-empty",
        "the previous article is empty",
        write("articles/skill-evals-2026-05-24.md", ""),
        "warning: articles/skill-evals-2026-05-24.md: empty file; falling back to the next older "
        "article",
        0,
    ),
    Case(
        "previous-article-binary",
        "the previous article is binary",
        write("articles/skill-evals-2026-05-24.md", b"\x00\x01\x02\xff\xfe" * 50),
        "warning: articles/skill-evals-2026-05-24.md: binary content, not a skill-evals article; "
        "falling back to the next older article",
        0,
    ),
    Case(
        "previous-article-no-table",
        "the previous article has no Full Results table",
        write("articles/skill-evals-2026-05-24.md", "# Notes\n\nno tables\n"),
        "warning: articles/skill-evals-2026-05-24.md: no Full Results table with Skill and Status "
        "columns; falling back to the next older article",
        0,
    ),
    # hostile instances (issue 16): nothing blocks, nothing outside the root is read, one bad
    # file is one warning
    Case(
        "aeon-yml-fifo",
        "aeon.yml is a FIFO (named pipe)",
        fifo("aeon.yml"),
        "aeon-evals: aeon.yml: is a FIFO (named pipe), not a regular file; not read" + NEED,
        2,
    ),
    Case(
        "aeon-yml-dev-zero",
        "aeon.yml is a symlink to /dev/zero",
        symlink("aeon.yml", "/dev/zero"),
        "aeon-evals: aeon.yml: leads outside the root through the symlink aeon.yml -> /dev/zero; "
        "not read" + NEED,
        2,
    ),
    Case(
        "aeon-yml-outside",
        "aeon.yml is a symlink to a file outside the root",
        symlink("aeon.yml", "../elsewhere/aeon.yml", AEON),
        "aeon-evals: aeon.yml: leads outside the root through the symlink aeon.yml -> "
        "../elsewhere/aeon.yml; not read" + NEED,
        2,
    ),
    Case(
        "aeon-yml-50mb",
        "aeon.yml is 50 MB",
        sparse("aeon.yml", 50 << 20),
        "aeon-evals: aeon.yml: is 50.0 MB, over the 16.0 MB limit; not read" + NEED,
        2,
    ),
    Case(
        "aeon-yml-alias-bomb",
        "aeon.yml holds a YAML alias bomb (nine levels of `&a [*a × 9]`)",
        lambda root: _write(root, "aeon.yml", alias_bomb() + AEON),
        A + "not read as a whole: its aliases expand to more than 200,000 values (an alias bomb); "
        "entries read one by one",
        0,
    ),
    Case(
        "aeon-yml-deep",
        "`deep: [[[…]]]` nested 100,000 levels in aeon.yml's skills block",
        lambda root: _write(root, "aeon.yml", AEON + f"  deep: {nested(100_000)}\n"),
        A + "skills.deep (line 4): not valid YAML (nested more than 100 levels deep); read "
        "best-effort as disabled, no schedule",
        0,
    ),
    Case(
        "evals-fifo",
        "evals.json is a FIFO (named pipe)",
        fifo(EVALS),
        "aeon-evals: skills/skill-evals/evals.json: is a FIFO (named pipe), not a regular file; "
        "not read",
        2,
    ),
    Case(
        "evals-outside",
        "evals.json is a symlink to a file outside the root",
        symlink(EVALS, "../../../elsewhere/evals.json", json.dumps({"skills": SPECS})),
        "aeon-evals: skills/skill-evals/evals.json: leads outside the root through the symlink "
        "skills/skill-evals/evals.json -> ../../../elsewhere/evals.json; not read",
        2,
    ),
    Case(
        "evals-duplicate-key",
        "a key written twice in evals.json",
        replace_in(EVALS, '"min_words": 20,', '"min_words": 20, "min_words": 25,'),
        W(6) + "skills.cost-report.min_words: written twice in the same object; the last one wins",
        0,
    ),
    Case(
        "pattern-140kb",
        "a 140 KB pattern",
        spec("cost-report", required_patterns=["x" * 143_360]),
        W(8)
        + "skills.cost-report.required_patterns[0]: pattern is 143,360 characters long; the limit "
        "is 4,096",
        0,
    ),
    Case(
        "cadence-infinity",
        "`expected_cadence` is Infinity",
        replace_in(EVALS, '"min_words": 20,', '"min_words": 20, "expected_cadence": Infinity,'),
        W(6)
        + "skills.cost-report.expected_cadence: expected days (7), '7d', 'daily', 'weekly' or a "
        "5-field cron, got a number Infinity",
        0,
    ),
    Case(
        "cron-state-fifo",
        "cron-state.json is a FIFO (named pipe)",
        fifo("memory/cron-state.json"),
        "warning: memory/cron-state.json: is a FIFO (named pipe), not a regular file; not read; "
        "cron-state ignored",
        0,
    ),
    Case(
        "cron-state-deep",
        "cron-state.json nested 100,000 levels",
        write("memory/cron-state.json", nested(100_000)),
        "warning: memory/cron-state.json: nested too deeply (thousands of levels); cron-state "
        "ignored",
        0,
    ),
    Case(
        "cron-state-huge-int",
        "a 5,000-digit integer in cron-state.json",
        write(
            "memory/cron-state.json", '{"heartbeat": {"consecutive_failures": ' + "9" * 5000 + "}}"
        ),
        "warning: memory/cron-state.json: an integer of more than 30 digits read as not a number",
        0,
    ),
    Case(
        "health-fifo",
        "a skill-health file is a FIFO (named pipe)",
        fifo("memory/skill-health/cost-report.json"),
        "warning: memory/skill-health/cost-report.json: is a FIFO (named pipe), not a regular "
        "file; not read; quality unknown",
        0,
    ),
    Case(
        "health-deep",
        "a skill-health file nested 100,000 levels",
        write("memory/skill-health/cost-report.json", nested(100_000)),
        "warning: memory/skill-health/cost-report.json: nested too deeply (thousands of levels); "
        "quality unknown",
        0,
    ),
    Case(
        "health-outside",
        "a skill-health file is a symlink to a file outside the root",
        symlink(
            "memory/skill-health/cost-report.json", "../../../elsewhere/h.json", '{"avg_score": 1}'
        ),
        "warning: memory/skill-health/cost-report.json: leads outside the root through the "
        "symlink memory/skill-health/cost-report.json -> ../../../elsewhere/h.json; not read; "
        "quality unknown",
        0,
    ),
    Case(
        "skill-md-fifo",
        "the SKILL.md of an enabled skill without a spec is a FIFO",
        both(
            replace_in(
                "aeon.yml",
                "skills:\n",
                'skills:\n  digest: { enabled: true, schedule: "0 9 * * *" }\n',
            ),
            fifo("skills/digest/SKILL.md"),
        ),
        "verdict: SKILL_EVALS_OK",  # no hang: the SKILL.md readers open it non-blocking, skip it
        0,
        stream="out",
    ),
    Case(
        "output-future-dated",
        "an output named `…-9999-12-31.md`",
        write("articles/cost-report-9999-12-31.md", "Total cost $1 " + "word " * 40),
        "warning: articles/cost-report-9999-12-31.md: dated after the run (2026-05-31); ignored",
        0,
    ),
    Case(
        "log-future-dated",
        "a daily log dated after the run",
        write("memory/logs/2026-06-03.md", "# 2026-06-03\n\n### heartbeat\nHEARTBEAT_OK later\n"),
        "warning: memory/logs/2026-06-03.md: dated after the run (2026-05-31); ignored",
        0,
    ),
    Case(
        "output-wildcard-symlink",
        "`reports/*/etc/host*` with `reports/rootfs` a symlink out of the root",
        both(
            spec("cost-report", output_pattern="reports/*/etc/host*", numeric_checks=[]),
            symlink("reports/rootfs", "../../elsewhere", None),
            write("../elsewhere/etc/hosts", "127.0.0.1 localhost Total cost $5\n"),
        ),
        "warning: reports/rootfs is a symlink leading outside the root (-> ../../elsewhere); "
        "not searched",
        0,
    ),
    Case(
        "previous-article-50mb",
        "the previous article is 50 MB",
        both(
            write("articles/skill-evals-2026-05-24.md", ""),
            sparse("articles/skill-evals-2026-05-24.md", 50 << 20),
        ),
        "warning: articles/skill-evals-2026-05-24.md: is 50.0 MB, over the 8.0 MB limit; not "
        "read; falling back to the next older article",
        0,
    ),
    Case(
        "previous-article-outside",
        "the previous article is a symlink to a file outside the root",
        symlink(
            "articles/skill-evals-2026-05-24.md",
            "../../elsewhere/skill-evals-2026-05-24.md",
            "# Skill Evals\n\n## Full Results\n| Skill | Status |\n|---|---|\n| secret | PASS |\n",
        ),
        "warning: articles/skill-evals-2026-05-24.md: leads outside the root through the symlink "
        "articles/skill-evals-2026-05-24.md -> ../../elsewhere/skill-evals-2026-05-24.md; not "
        "read; falling back to the next older article",
        0,
    ),
    Case(
        "articles-immutable",
        "articles/ cannot be written (`chattr +i`), and an issue to file",
        both(FAIL_COST, chattr("+i", "articles")),
        "aeon-evals: articles/skill-evals-2026-05-31.md: cannot write: operation not permitted",
        2,
        cleanup=chattr("-i", "articles"),
    ),
    # the command line: clear option errors, nothing written
    Case(
        "now-year-9999",
        "`--now 9999-12-31T23:59:59Z`",
        lambda root: None,
        "aeon-evals: --now '9999-12-31T23:59:59Z' is out of range: the run's date must be between "
        "1970-01-01 and 9998-12-31",
        2,
        argv=("--now", "9999-12-31T23:59:59Z"),
    ),
    Case(
        "now-year-1",
        "`--now 0001-01-01T00:00:00Z`",
        lambda root: None,
        "aeon-evals: --now '0001-01-01T00:00:00Z' is out of range: the run's date must be between "
        "1970-01-01 and 9998-12-31",
        2,
        argv=("--now", "0001-01-01T00:00:00Z"),
    ),
    Case(
        "today-year-1",
        "`--today 0001-01-01`",
        lambda root: None,
        "aeon-evals: --today '0001-01-01' is out of range: the run's date must be between "
        "1970-01-01 and 9998-12-31",
        2,
        argv=("--today", "0001-01-01"),
    ),
    Case(
        "notify-timeout-nan",
        "`--notify-timeout nan`",
        lambda root: None,
        "aeon-evals: --notify-timeout nan: expected a number of seconds above 0, at most 86400",
        2,
        argv=("--notify-timeout", "nan"),
    ),
    Case(
        "notify-timeout-huge",
        "`--notify-timeout 1e308`",
        lambda root: None,
        "aeon-evals: --notify-timeout 1e+308: expected a number of seconds above 0, at most 86400",
        2,
        argv=("--notify-timeout", "1e308"),
    ),
    Case(
        "notify-timeout-negative",
        "`--notify-timeout -1`",
        lambda root: None,
        "aeon-evals: --notify-timeout -1: expected a number of seconds above 0, at most 86400",
        2,
        argv=("--notify-timeout=-1",),
    ),
    Case(
        "junit-a-folder",
        "`--junit` names a folder",
        lambda root: (root / "reports").mkdir(),
        "/reports: is a folder; name the XML file to write",
        2,
        argv=("--junit", "{root}/reports"),
    ),
    Case(
        "junit-missing-folder",
        "`--junit` in a folder that does not exist (not created)",
        lambda root: None,
        "/no-such-folder does not exist",
        2,
        argv=("--junit", "{root}/no-such-folder/x.xml"),
    ),
    Case(
        "trailing-comma",
        "a comma after the last spec in evals.json (the retry is announced first, on stderr)",
        evals_bytes(
            b'{\n  "version": "1",\n  "skills": {\n'
            b'    "heartbeat": {"output_pattern": "memory/logs/*.md"},\n  }\n}\n'
        ),
        "aeon-evals: skills/skill-evals/evals.json: invalid JSON: trailing comma at line 4 column "
        "56 (JSON allows none before '}') (also after a retry 0s later)",
        2,
    ),
    # issue 35: every number bounded, work bounded by the instance, names are data
    Case(
        "metrics-numeric-overflow",
        'a past metrics file\'s numeric cell `{"n": 1<309 zeros>}`',
        metrics_line('{"n": 1' + "0" * 309 + "}"),
        f"warning: {METRICS}: line 3: numeric: '{{\"n\": 1{'0' * 33}…' read as not a number",
        0,
    ),
    Case(
        "metrics-numeric-deep",
        "a past metrics file's numeric cell `[` × 5,000",
        metrics_line("[" * 5000),
        f"warning: {METRICS}: line 3: numeric: '{'[' * 40}…' read as not a number",
        0,
    ),
    Case(
        "metrics-words-5000-digits",
        "a past metrics file's words cell of 5,000 digits",
        metrics_line("", words="9" * 5000),
        f"warning: {METRICS}: line 3: words: '{'9' * 40}…' read as not a number",
        0,
    ),
    Case(
        "metrics-too-many-lines",
        "a past metrics file of 20,100 made-up skills",
        metrics_line("", extra=20_099),
        f"warning: {METRICS}: more than 20,000 skill lines (the limit): 100 lines after them "
        "ignored",
        0,
    ),
    Case(
        "metrics-over-16mb",
        "a past metrics file of 17 MB",
        both(metrics_line(""), sparse(METRICS, 17 << 20)),
        f"warning: {METRICS}: is 17.0 MB, over the 16.0 MB limit; not read",
        0,
    ),
    Case(
        "article-words-309-nines",
        "the previous article's Words cell of 309 nines",
        write("articles/skill-evals-2026-05-24.md", PRIOR.format(words="9" * 309)),
        "warning: articles/skill-evals-2026-05-24.md: cost-report's Words "
        f"'{'9' * 40}…' read as not a number",
        0,
    ),
    Case(
        "issue-id-5000-digits",
        "an ISS file whose frontmatter id has 5,000 digits",
        write("memory/issues/ISS-001.md", ISSUE.format(id="ISS-" + "9" * 5000)),
        f"warning: memory/issues/ISS-001.md: frontmatter id 'ISS-{'9' * 36}…' disagrees with "
        "the file name; read as ISS-001",
        0,
    ),
    Case(
        "output-whitespace-only",
        "the newest output is a single newline",
        write("articles/cost-report-2026-05-31.md", "\n"),
        '"detail": "articles/cost-report-2026-05-31.md is empty (only white space, 1 byte)"',
        0,
        stream="out",
        argv=("--json",),
    ),
    Case(
        "output-name-injection",
        "an output named `cost-report-x⏎::error title=INJECTED::pwned⏎-9999-12-31.md`",
        write("articles/cost-report-x\n::error title=INJECTED::pwned\n-9999-12-31.md", "x\n"),
        "warning: articles/cost-report-x\\n::error title=INJECTED::pwned\\n-9999-12-31.md: "
        "dated after the run (2026-05-31); ignored",
        0,
    ),
    Case(
        "skill-option-newline",
        "`--skill $'x⏎::error::y'`",
        lambda root: None,
        "aeon-evals: --skill x\\n::error::y: no such skill in this instance",
        2,
        argv=("--skill", "x\n::error::y"),
    ),
]


def _snapshot(root: Path) -> dict[str, str]:
    """The SHA-256 of every regular file inside the root (what a symlink leading out holds is
    not the root's), hashed in blocks: the 50 MB cases must not swell the test process (a child
    forked from it would report that memory as its own peak)."""
    base = root.resolve()
    found = {}
    for p in sorted(root.rglob("*")):
        if p.is_file() and p.resolve().is_relative_to(base):
            with open(p, "rb") as fh:
                found[p.relative_to(root).as_posix()] = hashlib.file_digest(
                    fh, "sha256"
                ).hexdigest()
    return found


@contextlib.contextmanager
def watchdog(seconds: int) -> Iterator[None]:
    """Raise TimeoutError in the test when the block runs longer than `seconds`."""

    def expire(_signum: int, _frame: object) -> None:
        raise TimeoutError(f"still running after {seconds}s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _params() -> list[Any]:
    return [
        pytest.param(
            case,
            id=case.id,
            marks=[pytest.mark.xfail(strict=True, reason=case.xfail)] if case.xfail else [],
        )
        for case in CASES
    ]


def test_the_table_is_big_and_unique() -> None:
    assert len(CASES) >= 80
    assert len({c.id for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", _params())
def test_bad_input(case: Case, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_instance(tmp_path / "instance")
    case.apply(root)
    before = _snapshot(root)
    argv = [arg.replace("{root}", str(root)) for arg in case.argv]
    try:
        with watchdog(60):  # a FIFO or a bomb that blocks fails the case, not the whole suite
            code = main(["run", "--root", str(root), *ARGV, *argv])
    finally:
        if case.cleanup is not None:
            case.cleanup(root)
    out, err = capsys.readouterr()
    printed = out if case.stream == "out" else err
    assert any(case.line in line for line in printed.splitlines()), (
        f"{case.line!r} not in:\n{printed}"
    )
    assert code == case.code, (code, out, err)
    after = _snapshot(root)
    changed = sorted(k for k in before if after.get(k) != before[k])
    assert changed == sorted(case.changes)
    created = sorted(set(after) - set(before))
    if code != 0:
        assert created == sorted(case.new)
    if code == 0:
        assert "articles/skill-evals-2026-05-31.md" in created  # the run still wrote its article


# --- docs/bad-input.md ----------------------------------------------------------------------------

START, END = "<!-- table:start (generated from tests/test_bad_config.py) -->", "<!-- table:end -->"


def _cell(text: str) -> str:
    text = text.replace("|", "\\|")
    ticks = "``" if "`" in text else "`"
    pad = " " if "`" in text else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def render_table() -> str:
    rows = [
        "| # | Bad input | Line printed (stdout / stderr) | Exit |",
        "|---|-----------|-------------------------------|------|",
    ]
    for n, case in enumerate(CASES, 1):
        bad = case.bad.replace("|", "\\|")
        extra = ""
        if case.changes:
            extra += " (changes " + ", ".join(case.changes) + ")"
        if case.new:
            extra += " (creates " + ", ".join(case.new) + ")"
        if case.xfail:
            extra += f" — **known bug:** {case.xfail}"
        rows.append(f"| {n} | {bad}{extra} | {case.stream}: {_cell(case.line)} | {case.code} |")
    return "\n".join(rows) + "\n"


def test_docs_table_matches_the_test_table() -> None:
    text = DOC.read_text(encoding="utf-8")
    head, _, rest = text.partition(START + "\n")
    _, _, tail = rest.partition(END)
    if os.environ.get("AEON_EVALS_UPDATE_GOLDEN") == "1":
        DOC.write_text(head + START + "\n" + render_table() + END + tail, encoding="utf-8")
        return
    assert START in text and END in text
    assert rest.partition(END)[0] == render_table(), (
        "docs/bad-input.md is stale: rerun with AEON_EVALS_UPDATE_GOLDEN=1"
    )
    assert re.search(rf"\b{len(CASES)} cases\b", head), "update the case count in docs/bad-input.md"

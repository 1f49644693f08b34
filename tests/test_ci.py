"""CI outputs (issue #9): --fail-on exit codes, JUnit XML, the job summary cap, annotations."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from aeon_evals import cli
from aeon_evals.ci import gate as ci
from aeon_evals.ci import summary as job_summary
from aeon_evals.model import (
    Cause,
    Coverage,
    DiffLabel,
    Mute,
    OutputFile,
    SkillResult,
    Status,
    Verdict,
)
from aeon_evals.report.diff import Row, count
from aeon_evals.report.render import ArticleData
from aeon_evals.run.data import RunOutcome

SCHEMA = Path(__file__).parent / "fixtures" / "junit" / "junit.xsd"
DAY1 = "2026-05-31"
DAY2 = "2026-06-07"
WORDS = "alpha beta gamma delta epsilon zeta eta theta\n"


@pytest.fixture(autouse=True)
def _no_github(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests decide for themselves whether they run "under GitHub Actions"."""
    for name in (
        "GITHUB_ACTIONS",
        "GITHUB_STEP_SUMMARY",
        "GITHUB_SERVER_URL",
        "GITHUB_REPOSITORY",
        "GITHUB_SHA",
        "GITHUB_WORKSPACE",
        "AEON_EVALS_ARTICLE_REF",
    ):
        monkeypatch.delenv(name, raising=False)


# --- a small instance on disk ------------------------------------------------------------------


def make_instance(root: Path, skills: dict[str, dict[str, Any]]) -> Path:
    """An Aeon instance: per skill `spec` (evals.json entry, None = no entry), `enabled`,
    `schedule`, `outputs` (file name → text), `health` (avg_score)."""
    registry = ["skills:"]
    specs: dict[str, Any] = {}
    for name, conf in skills.items():
        (root / "skills" / name).mkdir(parents=True, exist_ok=True)
        (root / "skills" / name / "SKILL.md").write_text(
            f"# {name}\nWrites articles/{name}-${{today}}.md\n", encoding="utf-8"
        )
        enabled = "true" if conf.get("enabled", True) else "false"
        registry.append(
            f'  {name}: {{ enabled: {enabled}, schedule: "{conf.get("schedule", "0 8 * * 0")}" }}'
        )
        if conf.get("spec", True) is not None:
            specs[name] = {
                "output_pattern": f"articles/{name}-*.md",
                "min_words": 5,
                **(conf.get("spec") or {}),
            }
        for file_name, text in conf.get("outputs", {}).items():
            path = root / "articles" / file_name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        if "health" in conf:
            health = root / "memory" / "skill-health" / f"{name}.json"
            health.parent.mkdir(parents=True, exist_ok=True)
            health.write_text(
                json.dumps({"avg_score": conf["health"], "history": []}), encoding="utf-8"
            )
    (root / "aeon.yml").write_text("\n".join(registry) + "\n", encoding="utf-8")
    evals = root / "skills" / "skill-evals" / "evals.json"
    evals.parent.mkdir(parents=True, exist_ok=True)
    evals.write_text(json.dumps({"version": "1", "skills": specs}, indent=2), encoding="utf-8")
    return root


def good(name: str) -> dict[str, Any]:
    return {"outputs": {f"{name}-2026-05-30.md": WORDS}}


CALM = {
    "good": good("good"),
    "stale": {
        "schedule": "0 8 * * *",
        "outputs": {"stale-2026-05-01.md": WORDS},
        # daily, 30 days old: STALE, kept from counting as failing (issue 15) by its spec
        "spec": {"stale_fail_after": 100},
    },
    "muted": {
        "spec": {"mute": {"until": "2026-12-31", "reason": "vendor outage"}}
    },  # NO_OUTPUT, muted
    "off": {"enabled": False},  # NO_OUTPUT, disabled
}


def run_cli(root: Path, *extra: str, today: str = DAY1) -> int:
    return cli.main(
        [
            "run",
            "--root",
            str(root),
            "--today",
            today,
            "--now",
            f"{today}T06:00:00Z",
            "--no-notify",
            "--no-site",
            "--retry-delay",
            "0",
            *extra,
        ]
    )


# --- --fail-on ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        # a first run: every result is NEW_*; muted and disabled NO_OUTPUT skills do not count
        ({}, {"never": 0, "regressed": 0, "failing": 0}),
        ({"broken": {}}, {"never": 0, "regressed": 1, "failing": 1}),  # NEW_FAIL → REGRESSED
        (
            {"meh": {**good("meh"), "health": 2.0}},
            {"never": 0, "regressed": 1, "failing": 1},
        ),  # QUALITY_DROP
    ],
    ids=["ok", "regressed", "quality-drop"],
)
def test_fail_on_exit_codes(
    tmp_path: Path,
    extra: dict[str, dict[str, Any]],
    expected: dict[str, int],
    capsys: pytest.CaptureFixture[str],
) -> None:
    root = make_instance(tmp_path, {**CALM, **extra})
    for mode, code in expected.items():
        assert run_cli(root, "--dry-run", "--fail-on", mode) == code, mode
    err = capsys.readouterr().err
    if expected["regressed"]:
        assert "--fail-on regressed: verdict SKILL_EVALS_" in err


def test_fail_on_failing_trips_on_a_still_failing_skill(tmp_path: Path) -> None:
    root = make_instance(tmp_path, {**CALM, "broken": {}})
    assert run_cli(root) == 0  # day 1: NEW_FAIL, article written
    # day 2: broken is STILL_FAIL, nothing new: verdict OK
    assert run_cli(root, "--dry-run", "--fail-on", "regressed", today=DAY2) == 0
    assert run_cli(root, "--dry-run", "--fail-on", "failing", today=DAY2) == 1
    assert run_cli(root, "--dry-run", today=DAY2) == 0


def test_nothing_evaluated_never_exits_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_instance(tmp_path, {"good": good("good")})
    (root / "skills" / "nope").mkdir()  # a skill of the instance, with no spec and no contract
    for mode in ci.FailOn:
        assert run_cli(root, "--skill", "nope", "--fail-on", mode.value) == 5
    assert "nope has no spec" in capsys.readouterr().err


def test_skill_typo_is_no_such_skill_with_did_you_mean(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Regression (#33): `run --skill cost-reprot` said "has no spec — add an entry" (exit 5)
    instead of naming the typo."""
    root = make_instance(tmp_path, {"good": good("good"), "cost-report": good("cost-report")})
    for mode in ci.FailOn:
        assert run_cli(root, "--skill", "cost-reprot", "--fail-on", mode.value) == 2
    err = capsys.readouterr().err
    assert "--skill cost-reprot: no such skill in this instance; did you mean cost-report?" in err
    assert not (root / "articles" / "skill-evals-2026-05-31.md").exists()


def test_bootstrap_keeps_exit_3_whatever_fail_on(tmp_path: Path) -> None:
    # the LLM-run skill-evals registered (disabled): the layout whose bootstrap writes starters
    root = make_instance(
        tmp_path, {"good": good("good"), "skill-evals": {"enabled": False, "spec": None}}
    )
    (root / "skills" / "skill-evals" / "evals.json").unlink()
    assert run_cli(root, "--fail-on", "failing") == 3
    assert (root / "skills" / "skill-evals" / "evals.json").is_file()


def test_json_reports_the_gate_and_keeps_stdout_pure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    root = make_instance(tmp_path, {**CALM, "broken": {}})
    assert run_cli(root, "--dry-run", "--json", "--fail-on", "regressed") == 1
    out, err = capsys.readouterr()
    data = json.loads(out)  # stdout holds only the JSON: annotations went to stderr
    assert data["fail_on"] == {
        "mode": "regressed",
        "tripped": True,
        "reason": "verdict SKILL_EVALS_REGRESSED",
        "exit_code": 1,
    }
    assert "::error file=skills/skill-evals/evals.json,line=" in err
    assert "::warning file=skills/skill-evals/evals.json" in err and "title=STALE stale::" in err


# --- JUnit -------------------------------------------------------------------------------------


def validate_junit(text: str) -> ET.Element:
    """Against tests/fixtures/junit/junit.xsd with xmlschema when installed; structurally always."""
    try:
        import xmlschema
    except ImportError:  # pragma: no cover - the structural checks below hold the same rules
        pass
    else:
        xmlschema.XMLSchema(str(SCHEMA)).validate(text)
    root = ET.fromstring(text)
    assert root.tag == "testsuites"
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == ["skill-evals"]
    suite = suites[0]
    cases = suite.findall("testcase")
    assert [c.tag for c in suite] == ["properties", *["testcase"] * len(cases)]
    tally = {"failures": 0, "errors": 0, "skipped": 0}
    for case in cases:
        assert case.get("name") and case.get("classname") == case.get("name")
        outcomes = [c.tag for c in case if c.tag in ("failure", "error", "skipped")]
        assert len(outcomes) <= 1
        assert [c.tag for c in case][len(outcomes) :] in ([], ["system-out"])
        for tag, key in (("failure", "failures"), ("error", "errors"), ("skipped", "skipped")):
            tally[key] += tag in outcomes
    for element in (root, suite):
        assert element.get("tests") == str(len(cases))
        assert {k: int(element.get(k, "-1")) for k in tally} == tally
    return suite


def test_junit_file_matches_the_schema_and_the_statuses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_instance(
        tmp_path / "inst",
        {
            **CALM,
            "broken": {},
            "badspec": {**good("badspec"), "spec": {"required_patterns": ["(unclosed"]}},
            "short": {"outputs": {"short-2026-05-30.md": "a b\n"}},
        },
    )
    junit = tmp_path / "reports" / "junit.xml"
    junit.parent.mkdir()  # --junit never creates a folder (issue 16)
    assert run_cli(root, "--junit", str(junit)) == 0
    assert f"junit: {junit}" in capsys.readouterr().out
    text = junit.read_text(encoding="utf-8")
    assert text.endswith("\n")
    assert not list(junit.parent.glob(".*.tmp"))  # atomic write left no temp file
    suite = validate_junit(text)
    cases = {c.get("name"): c for c in suite.findall("testcase")}
    assert set(cases) == {"good", "stale", "muted", "off", "broken", "badspec", "short"}

    def only(name: str, tag: str) -> ET.Element:
        found = cases[name].find(tag)
        assert found is not None, (name, tag, ET.tostring(cases[name], encoding="unicode"))
        return found

    assert only("broken", "failure").get("message") == "no_file_match"
    assert only("broken", "failure").get("type") == "NO_OUTPUT"
    assert only("short", "failure").get("message") == "word_count"
    assert only("badspec", "error").get("type") == "ERROR"
    assert "muted until 2026-12-31: vendor outage" in (
        only("muted", "skipped").get("message") or ""
    )
    assert "disabled in aeon.yml" in (only("off", "skipped").get("message") or "")
    assert "status: STALE" in (only("stale", "system-out").text or "")
    assert cases["stale"].find("failure") is None and cases["good"].find("failure") is None
    props = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert (
        props["verdict"] == "SKILL_EVALS_REGRESSED"
        and props["article"] == f"articles/skill-evals-{DAY1}.md"
    )


def test_junit_escapes_markup_and_drops_invalid_xml_characters() -> None:
    cause = Cause(Status.FAIL, 'missing_pattern:<b>&"x"', "LLM text \x00\x1b with ]]> and \ud800")
    result = SkillResult("s<1>", Status.FAIL, (cause,))
    outcome = outcome_of([Row(result, DiffLabel.NEW_FAIL, None)])
    suite = validate_junit(ci.junit_xml(outcome))
    failure = suite.find("testcase/failure")
    assert failure is not None and failure.get("message") == 'missing_pattern:<b>&"x"'
    assert "\ufffd" in (failure.text or "") and "]]>" in (failure.text or "")


def test_junit_for_a_bootstrap_run_is_an_empty_valid_suite() -> None:
    validate_junit(ci.junit_xml(RunOutcome(Verdict.BOOTSTRAP, date(2026, 5, 31))))


# --- job summary -------------------------------------------------------------------------------


def outcome_of(
    rows: list[Row], *, verdict: Verdict = Verdict.REGRESSED, actions: list[str] | None = None
) -> RunOutcome:
    day = date(2026, 5, 31)
    data = ArticleData(
        day,
        verdict,
        Coverage(len(rows), len(rows)),
        None,
        count(rows),
        actions or [],
        rows,
        [],
        ["evals.json=ok"],
    )
    return RunOutcome(
        verdict,
        day,
        [r.result for r in rows if r.result],
        rows,
        data,
        f"articles/skill-evals-{day.isoformat()}.md",
    )


def fleet(n: int) -> list[Row]:
    """n skills, every one a new failure with a long root cause (the worst case for the summary)."""
    rows = []
    for i in range(n):
        name = f"skill-{i:04d}"
        cause = Cause(Status.FAIL, f"missing_pattern:{'x|' * 60}end", "pattern absent " + "é" * 200)
        output = OutputFile(f"articles/{name}-2026-05-30.md", 10, "0" * 64, 1.0, "filename")
        rows.append(
            Row(
                SkillResult(name, Status.FAIL, (cause,), words=3, output=output),
                DiffLabel.NEW_FAIL,
                None,
                issue=f"ISS-{i + 1:04d}",
            )
        )
    return rows


GITHUB = {
    "GITHUB_SERVER_URL": "https://github.com",
    "GITHUB_REPOSITORY": "acme/aeon",
    "GITHUB_SHA": "0123abc",
}


def test_summary_of_a_2000_skill_fleet_stays_under_the_cap() -> None:
    outcome = outcome_of(
        fleet(2000), actions=[f"Investigate skill-{i:04d} — missing_pattern" for i in range(8)]
    )
    link = job_summary.article_url(GITHUB, "articles/skill-evals-2026-05-31.md")
    assert link == "https://github.com/acme/aeon/blob/0123abc/articles/skill-evals-2026-05-31.md"
    text = job_summary.job_summary(outcome, fail_on=ci.FailOn.REGRESSED, code=1, article_link=link)
    size = len(text.encode("utf-8"))
    assert size <= job_summary.MAX_SUMMARY_BYTES < 1024 * 1024
    assert "**Verdict:** `SKILL_EVALS_REGRESSED`" in text
    assert "**Diff:** 2000 new fail · 0 fixed · 0 still failing · 0 stable" in text
    assert "1. Investigate skill-0000 — missing_pattern" in text
    assert text.count("| NEW_FAIL |") == job_summary.MAX_TABLE_ROWS
    assert (
        f"+{2000 - job_summary.MAX_TABLE_ROWS} more rows — see the [full article]({link})" in text
    )
    assert "tripped (verdict SKILL_EVALS_REGRESSED) → exit 1" in text

    # A tighter byte budget cuts on bytes instead of rows, and still says how many are missing.
    small = job_summary.job_summary(
        outcome, fail_on=ci.FailOn.NEVER, code=0, article_link=link, limit=16 * 1024
    )
    assert len(small.encode("utf-8")) <= 16 * 1024
    shown = small.count("| NEW_FAIL |")
    assert 0 < shown < job_summary.MAX_TABLE_ROWS
    assert f"+{2000 - shown} more rows — see the [full article]({link})" in small


def test_summary_cells_cannot_open_html_or_break_the_table() -> None:
    cause = Cause(Status.FAIL, "forbidden_pattern:<script>|x", "a\nb")
    outcome = outcome_of([Row(SkillResult("s", Status.FAIL, (cause,)), DiffLabel.NEW_FAIL, None)])
    text = job_summary.job_summary(outcome, fail_on=ci.FailOn.NEVER, code=0)
    row = next(line for line in text.splitlines() if line.startswith("| s |"))
    assert "<script>" not in row and "&lt;script&gt;\\|x" in row and "a b" in row
    assert (
        "see the full article (articles/skill-evals-2026-05-31.md)" not in text
    )  # nothing was cut


def test_summary_is_appended_under_github_actions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n", encoding="utf-8")
    for name, value in {
        **GITHUB,
        "GITHUB_ACTIONS": "true",
        "GITHUB_STEP_SUMMARY": str(summary),
        "AEON_EVALS_ARTICLE_REF": "main",
    }.items():
        monkeypatch.setenv(name, value)
    root = make_instance(tmp_path / "inst", {**CALM, "broken": {}})
    monkeypatch.setenv(
        "GITHUB_WORKSPACE", str(tmp_path)
    )  # the instance is a subfolder of the checkout
    assert run_cli(root, "--fail-on", "failing") == 1
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("earlier step\n## Skill Evals — 2026-05-31\n")
    assert (
        "(https://github.com/acme/aeon/blob/main/inst/articles/skill-evals-2026-05-31.md)" in text
    )
    assert "| broken | NEW_FAIL | no_file_match" in text
    out = capsys.readouterr().out
    assert "::error file=inst/skills/skill-evals/evals.json,line=" in out
    # a run that stops still explains itself
    (root / "skills" / "nope").mkdir()
    assert run_cli(root, "--skill", "nope") == 5
    assert "**aeon-evals exited 5:**" in summary.read_text(encoding="utf-8")
    assert "::error title=aeon-evals::" in capsys.readouterr().out


def test_real_cli_on_a_fleet_caps_the_summary_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    n = job_summary.MAX_TABLE_ROWS + 20
    root = make_instance(tmp_path / "inst", {f"s{i:03d}": {} for i in range(n)})
    assert run_cli(root, "--dry-run", "--fail-on", "regressed") == 1
    text = summary.read_text(encoding="utf-8")
    assert text.count("| NEW_FAIL |") == job_summary.MAX_TABLE_ROWS
    assert "+20 more rows — see the full article (articles/skill-evals-2026-05-31.md)" in text
    assert "(dry run: not written)" in text


# --- annotations -------------------------------------------------------------------------------


def unescape(text: str) -> str:
    return (
        text.replace("%0D", "\r")
        .replace("%0A", "\n")
        .replace("%3A", ":")
        .replace("%2C", ",")
        .replace("%25", "%")
    )


@pytest.mark.parametrize(
    ("raw", "data", "prop"),
    [
        ("plain", "plain", "plain"),
        ("100%", "100%25", "100%25"),
        ("a\r\nb", "a%0D%0Ab", "a%0D%0Ab"),
        ("k: v, w", "k: v, w", "k%3A v%2C w"),
        ("%0A", "%250A", "%250A"),  # an already-escaped-looking value stays literal
        ("::set-output name=x::y", "::set-output name=x::y", "%3A%3Aset-output name=x%3A%3Ay"),
    ],
)
def test_workflow_command_escaping(raw: str, data: str, prop: str) -> None:
    assert ci.escape_data(raw) == data
    assert ci.escape_property(raw) == prop
    assert unescape(ci.escape_property(raw)) == raw


def test_annotations_escape_skill_data_and_point_at_the_spec() -> None:
    name = "weird,name:1"
    cause = Cause(Status.FAIL, "missing_pattern:a|b", "50% of\nthe text")
    rows = [
        Row(SkillResult(name, Status.FAIL, (cause,)), DiffLabel.NEW_FAIL, None, issue="ISS-007"),
        Row(
            SkillResult("old", Status.STALE, (Cause(Status.STALE, "stale_file", "9 days old"),)),
            DiffLabel.STABLE,
            None,
        ),
        Row(
            SkillResult("quiet", Status.FAIL, (cause,), muted=Mute(date(2026, 12, 1))),
            DiffLabel.NEW_FAIL,
            None,
        ),
        Row(SkillResult("off", Status.STALE, (cause,), enabled=False), DiffLabel.STABLE, None),
        Row(SkillResult("ok", Status.PASS), DiffLabel.STABLE, None),
    ]
    evals = json.dumps(
        {"version": "1", "skills": {name: {"output_pattern": "x"}, "old": {"output_pattern": "y"}}},
        indent=2,
    )
    lines = ci.annotation_lines(
        outcome_of(rows),
        spec_file="skills/skill-evals/evals.json",
        spec_lines=ci.spec_line_numbers(evals),
    )
    assert len(lines) == 2  # muted, disabled and passing skills are not annotated
    error, warning = lines
    assert all("\n" not in line and "\r" not in line for line in lines)
    assert error.startswith(
        "::error file=skills/skill-evals/evals.json,line=4,title=NEW_FAIL weird%2Cname%3A1::"
    )
    props, message = error[len("::error ") :].split("::", 1)
    assert dict(p.split("=", 1) for p in props.split(",")) == {
        "file": "skills/skill-evals/evals.json",
        "line": "4",
        "title": "NEW_FAIL weird%2Cname%3A1",
    }
    assert unescape(message).startswith(
        "weird,name:1: FAIL: missing_pattern:a|b — 50% of\nthe text (ISS-007). See articles/"
    )
    assert warning.startswith(
        "::warning file=skills/skill-evals/evals.json,line=7,title=STALE old::old: stale_file — 9 "
        "days old."
    )


def test_annotations_are_capped_at_githubs_per_step_limit() -> None:
    lines = ci.annotation_lines(outcome_of(fleet(25)), spec_file="e.json")
    assert len(lines) == ci.MAX_ANNOTATIONS_PER_LEVEL
    assert (
        lines[-1]
        == "::error file=e.json,title=16 more new failures::+16 more new failures — see the job "
        "summary and the article"
    )


def test_no_annotations_outside_github_actions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_instance(tmp_path, {**CALM, "broken": {}})
    run_cli(root, "--dry-run")
    captured = capsys.readouterr()
    assert "::error" not in captured.out + captured.err

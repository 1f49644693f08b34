"""evals.json's `outcomes` and `noop_fail_after` (issue 32.1): validated with their location,
applied over the real SKILL.md vocabulary, and shown by `aeon-evals contracts`."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import Instance
from realdata import realdata

from aeon_evals.load.manifest import parse_manifest
from aeon_evals.model import OutcomeClass, Spec
from aeon_evals.outcomes import (
    Why,
    extract_vocabulary,
    noop_fail_after,
    vocabulary_for,
    with_overrides,
)

Cli = Callable[..., tuple[int, str, str]]
FUN = "aeonfun__aeon@2026-05-03"


def _fleet_control() -> str:
    path = realdata() / "instances" / FUN / "skills" / "fleet-control" / "SKILL.md"
    return path.read_text(encoding="utf-8")


def _entry(**fields: object) -> dict[str, object]:
    return {"version": "1", "skills": {"fleet-control": {"output_pattern": "x/*.md", **fields}}}


def test_outcomes_and_noop_fail_after_are_read_into_the_spec() -> None:
    manifest = parse_manifest(
        _entry(outcomes={"FLEET_EMPTY": "quiet", "FLEET_GONE": "error"}, noop_fail_after=3)
    )
    assert not manifest.problems
    spec = manifest.specs["fleet-control"]
    assert spec.outcomes == (
        ("FLEET_EMPTY", OutcomeClass.QUIET),
        ("FLEET_GONE", OutcomeClass.ERROR),
    )
    assert spec.noop_fail_after == 3
    assert parse_manifest(_entry()).specs["fleet-control"].outcomes == ()


@pytest.mark.parametrize(
    ("fields", "where", "message"),
    [
        (
            {"outcomes": {"FLEET_EMPTY": "fatal"}},
            "skills.fleet-control.outcomes.FLEET_EMPTY",
            'expected one of "ok", "quiet", "noop", "partial", "error", got a string "fatal"',
        ),
        (
            {"outcomes": {"FLEET_EMPTY": 2}},
            "skills.fleet-control.outcomes.FLEET_EMPTY",
            'expected one of "ok", "quiet", "noop", "partial", "error", got an integer 2',
        ),
        (
            {"outcomes": {"fleet empty": "noop"}},
            "skills.fleet-control.outcomes.fleet empty",
            '"fleet empty" is not a status token (UPPER_SNAKE_CASE, two parts or more, as the '
            "SKILL.md writes it: FLEET_EMPTY)",
        ),
        (
            {"outcomes": ["FLEET_EMPTY"]},
            "skills.fleet-control.outcomes",
            'expected an object such as {"FLEET_EMPTY": "noop"}, got a list',
        ),
        (
            {"noop_fail_after": 0},
            "skills.fleet-control.noop_fail_after",
            "expected a number of runs, an integer 1 or more, got an integer 0",
        ),
        (
            {"noop_fail_after": "7"},
            "skills.fleet-control.noop_fail_after",
            'expected a number of runs, an integer 1 or more, got a string "7"',
        ),
        (
            {"noop_fail_after": True},
            "skills.fleet-control.noop_fail_after",
            "expected a number of runs, an integer 1 or more, got a boolean true",
        ),
    ],
)
def test_a_bad_outcomes_entry_is_an_error_of_that_skill_naming_the_field(
    fields: dict[str, object], where: str, message: str
) -> None:
    manifest = parse_manifest(
        {
            "version": "1",
            "skills": {
                "fleet-control": {"output_pattern": "x/*.md", **fields},
                "other": {"output_pattern": "y/*.md"},
            },
        }
    )
    assert [(p.where, p.message) for p in manifest.spec_errors["fleet-control"]] == [
        (where, message)
    ]
    assert "other" in manifest.specs  # a bad entry costs only its own skill


def test_vocabulary_for_applies_the_overrides_over_the_real_skill_md() -> None:
    text = _fleet_control()
    own = vocabulary_for("fleet-control", text, None)
    assert own.tokens["FLEET_EMPTY"].outcome is OutcomeClass.NOOP
    assert own.tokens["FLEET_EMPTY"].why is Why.SENTENCE
    spec = Spec(
        "fleet-control",
        "articles/fleet-status-*.md",
        outcomes=(("FLEET_EMPTY", OutcomeClass.QUIET), ("FLEET_PAUSED", OutcomeClass.NOOP)),
    )
    vocab = vocabulary_for("fleet-control", text, spec)
    empty = vocab.tokens["FLEET_EMPTY"]
    assert (empty.outcome, empty.why, empty.line) == (OutcomeClass.QUIET, Why.OVERRIDE, 21)
    added = vocab.tokens["FLEET_PAUSED"]
    assert (added.outcome, added.why, added.line) == (OutcomeClass.NOOP, Why.OVERRIDE, 0)
    others = {
        t: v.outcome for t, v in vocab.tokens.items() if t not in ("FLEET_EMPTY", "FLEET_PAUSED")
    }
    assert others == {t: v.outcome for t, v in own.tokens.items() if t != "FLEET_EMPTY"}
    assert vocabulary_for("fleet-control", text, Spec("fleet-control", "x")) == own
    # the same as reading the text with the map: a run may keep the map-free reading by hash
    assert vocab == extract_vocabulary(
        "fleet-control", text, {"FLEET_EMPTY": "quiet", "FLEET_PAUSED": "noop"}
    )
    assert with_overrides(own, spec.outcomes) == vocab


def test_noop_fail_after_defaults_to_seven_runs() -> None:
    assert noop_fail_after(None) == 7
    assert noop_fail_after(Spec("s", "x")) == 7
    assert noop_fail_after(Spec("s", "x", noop_fail_after=3)) == 3


def _instance_with_fleet_control(instance: Instance) -> Instance:
    instance.aeon_yml({"fleet-control": (True, "0 9,15 * * *")})
    (instance.root / "skills/fleet-control").mkdir(parents=True)
    shutil.copyfile(
        realdata() / "instances" / FUN / "skills/fleet-control/SKILL.md",
        instance.root / "skills/fleet-control/SKILL.md",
    )
    return instance


def test_contracts_shows_each_token_with_its_class_why_and_line(
    instance: Instance, cli: Cli
) -> None:
    root = _instance_with_fleet_control(instance).root
    code, out, err = cli("contracts", "fleet-control", "--root", str(root))
    assert code == 0, err
    lines = out.splitlines()
    start = lines.index("  outcomes  8 status tokens · noop_fail_after 7 runs (default)")
    assert lines[start + 4] == (
        "    FLEET_EMPTY            noop     sentence  SKILL.md:21   Log `FLEET_EMPTY: no managed "
        "instances` to `memory/logs/${today}.md`."
    )
    assert lines[start + 5].startswith("    FLEET_NO_AUTH          noop     name      SKILL.md:16")
    code, out, _ = cli("contracts", "fleet-control", "--json", "--root", str(root))
    block = json.loads(out)["skills"]["fleet-control"]["outcomes"]
    assert block["noop_fail_after"] == 7 and block["noop_fail_after_source"] == "default"
    assert {t["token"]: (t["class"], t["why"], t["line"]) for t in block["tokens"]}[
        "FLEET_EMPTY"
    ] == ("noop", "sentence", 21)


def test_contracts_shows_an_override_as_such(instance: Instance, cli: Cli) -> None:
    root = _instance_with_fleet_control(instance).root
    instance.evals(
        {
            "fleet-control": {
                "output_pattern": "memory/logs/*.md",
                "section": "## fleet-control",
                "outcomes": {"FLEET_EMPTY": "quiet", "FLEET_PAUSED": "noop"},
                "noop_fail_after": 3,
            }
        }
    )
    code, out, err = cli("contracts", "fleet-control", "--root", str(root))
    assert code == 0, err
    assert "  outcomes  9 status tokens · noop_fail_after 3 runs (evals.json)" in out
    assert (
        "    FLEET_EMPTY            quiet    override  SKILL.md:21   overrides noop (sentence): "
        "Log `FLEET_EMPTY: no managed instances` to `memory/logs/${today}.md`."
    ) in out
    assert (
        "    FLEET_PAUSED           noop     override  evals.json    added by evals.json outcomes"
    ) in out
    code, out, _ = cli("contracts", "fleet-control", "--json", "--root", str(root))
    block = json.loads(out)["skills"]["fleet-control"]["outcomes"]
    tokens = {t["token"]: t for t in block["tokens"]}
    assert tokens["FLEET_EMPTY"]["skill_md"] == {"class": "noop", "why": "sentence"}
    assert tokens["FLEET_EMPTY"]["class"] == "quiet" and tokens["FLEET_PAUSED"]["line"] is None
    assert block["noop_fail_after"] == 3
    assert block["noop_fail_after_source"] == "skills/skill-evals/evals.json"


def test_contracts_says_why_an_entrys_overrides_are_not_applied(
    instance: Instance, cli: Cli
) -> None:
    root = _instance_with_fleet_control(instance).root
    instance.evals(
        {"fleet-control": {"output_pattern": "x/*.md", "outcomes": {"FLEET_EMPTY": "fatal"}}}
    )
    code, out, _ = cli("contracts", "fleet-control", "--root", str(root))
    assert code == 0
    assert (
        "    not applied: skills/skill-evals/evals.json: "
        "skills.fleet-control.outcomes.FLEET_EMPTY: "
        'expected one of "ok", "quiet", "noop", "partial", "error", got a string "fatal"'
    ) in out
    assert "    FLEET_EMPTY            noop     sentence" in out
    code, out, _ = cli("validate", "--root", str(root))
    assert code == 2 and "skills.fleet-control.outcomes.FLEET_EMPTY: expected one of" in out


def test_a_skill_md_without_tokens_says_so(instance: Instance, cli: Cli) -> None:
    instance.aeon_yml({})
    instance.write("skills/a/SKILL.md", "Save to `articles/a-${today}.md`.\n")
    code, out, _ = cli("contracts", "--root", str(instance.root))
    assert code == 0
    assert out.splitlines()[-2:] == [
        "  outcomes  0 status tokens · noop_fail_after 7 runs (default)",
        "    (the SKILL.md names no status token: a run is read by its status lines)",
    ]


def test_binary_skill_md_has_no_vocabulary(instance: Instance, cli: Cli) -> None:
    instance.aeon_yml({})
    instance.write("skills/b/SKILL.md", b"\x00\x01")
    code, out, _ = cli("contracts", "--json", "--root", str(instance.root))
    assert code == 0 and json.loads(out)["skills"]["b"]["outcomes"] is None


def test_an_outcomes_override_reaches_the_runs_judgement(tmp_path: Path, cli: Cli) -> None:
    """aeonfun's fleet-control logs `FLEET_EMPTY: no managed instances` on every run: it never
    does its job, until the operator says in evals.json that an empty fleet is quiet."""
    root = Path(shutil.copytree(realdata() / "instances" / FUN, tmp_path / "f"))
    args = ("--root", str(root), "--now", "2026-05-03T23:00:00Z", "--no-notify", "--no-site")

    def row() -> dict[str, Any]:
        code, out, err = cli("run", *args, "--dry-run", "--json", "--contracts", "enforce")
        assert code in (0, 1), err
        return next(r for r in json.loads(out)["skills"] if r["skill"] == "fleet-control")

    before = row()
    assert (before["status"], before["run"]["cause"]) == ("FAIL", "never_does_its_job:FLEET_EMPTY")
    evals = root / "skills/skill-evals/evals.json"
    data = json.loads(evals.read_text())
    data["skills"]["fleet-control"] = {
        "output_pattern": "memory/logs/*.md",
        "section": "## fleet-control",
        "outcomes": {"FLEET_EMPTY": "quiet"},
    }
    evals.write_text(json.dumps(data))
    after = row()
    assert (after["status"], after["run"]["outcome"], after["run"]["cause"]) == (
        "PASS",
        "quiet",
        "",
    )

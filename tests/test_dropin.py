"""Issue 14: a drop-in for today's Aeon, on copies of the two real instances.

New layout (aaronjmars/miroshark-aeon, Aug 2026): articles in output/articles/, the dashboard
feed in apps/dashboard/outputs/. Old layout (aeonfun/aeon, May 2026): everything as before, the
LLM-run skill-evals still enabled in aeon.yml, its article of the day on disk.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from realdata import put, realdata

from aeon_evals.errors import ExitCode
from aeon_evals.load import layout, registry
from aeon_evals.load.layout import article_twin
from aeon_evals.load.manifest import EVALS_PATH
from aeon_evals.load.outputs import Outputs
from aeon_evals.report import card
from aeon_evals.report.render import pct_text

Cli = Callable[..., tuple[int, str, str]]
NEW = "aaronjmars__miroshark-aeon@2026-08-22"
OLD = "aeonfun__aeon@2026-05-03"
DA6HKIN = "Da6hkin__aeon@2026-07-11"
DA6HKIN_NOW = "2026-07-11T23:55:11Z"


def copy_instance(name: str, dest: Path) -> Path:
    shutil.copytree(realdata() / "instances" / name, dest)
    return dest


def tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".aeon-evals" not in p.parts
    }


@pytest.fixture
def new_layout(tmp_path: Path, cli: Cli) -> Path:
    """miroshark-aeon as it is: no evals.json (upstream removed it), so its first run judges
    every enabled skill on its SKILL.md contract."""
    return copy_instance(NEW, tmp_path / "miroshark")


def run_json(cli: Cli, root: Path, day: str, *extra: str) -> tuple[int, dict[str, Any], str]:
    code, out, err = cli(
        "run", "--root", str(root), "--now", f"{day}T06:00:00Z", "--no-notify", "--json", *extra
    )
    return code, (json.loads(out) if out.strip() else {}), err


# --- 1. layouts ----------------------------------------------------------------------------------


def test_new_layout_writes_to_output_articles_and_finds_the_prior_there(
    new_layout: Path, cli: Cli
) -> None:
    root = new_layout
    code, first, _ = run_json(cli, root, "2026-08-22")
    assert code == 0
    assert first["artifacts"]["article"] == "output/articles/skill-evals-2026-08-22.md"
    assert first["prior_article"] is None
    code, second, _ = run_json(cli, root, "2026-08-23")
    assert code == 0
    assert second["artifacts"]["article"] == "output/articles/skill-evals-2026-08-23.md"
    assert second["prior_article"] == "output/articles/skill-evals-2026-08-22.md"
    assert not (root / "articles").exists()
    log = (root / "memory/logs/2026-08-23.md").read_text(encoding="utf-8")
    assert "output/articles/skill-evals-2026-08-23.md" in log


def test_an_instance_that_moved_keeps_its_history_from_articles(new_layout: Path, cli: Cli) -> None:
    """Prior articles are found in either folder: the newest one wins, wherever it is."""
    root = new_layout
    old = realdata() / "aeonfun__aeon/articles/skill-evals-2026-05-03.md"
    put(old, root / "articles/skill-evals-2026-05-03.md")
    code, data, _ = run_json(cli, root, "2026-08-22")
    assert code == 0 and data["prior_article"] == "articles/skill-evals-2026-05-03.md"
    code, data, _ = run_json(cli, root, "2026-08-23")
    assert data["prior_article"] == "output/articles/skill-evals-2026-08-22.md"
    # The dashboard shows the runs of both folders.
    runs = sorted(p.name for p in (root / "site/runs").iterdir())
    assert runs == [f"skill-evals-{d}.html" for d in ("2026-05-03", "2026-08-22", "2026-08-23")]
    shutil.rmtree(root / "site")
    code, _, _ = cli("site", "--root", str(root), "--now", "2026-08-23T07:00:00Z")
    assert code == 0 and sorted(p.name for p in (root / "site/runs").iterdir()) == runs


def test_an_instance_that_moved_its_outputs_is_judged_as_before(tmp_path: Path, cli: Cli) -> None:
    """Da6hkin (July 2026) with its skills' outputs moved to output/articles/, as upstream Aeon
    moved them, and its evals.json left as it was (`articles/<skill>-*.md`, 13 specs): every
    skill is judged as before the move, on the same files in their new folder; a notice says
    which specs name the old folder. Its first run (no evals.json) drafts them in the new one."""
    before_root = copy_instance(DA6HKIN, tmp_path / "before")
    root = copy_instance(DA6HKIN, tmp_path / "moved")
    (root / "output/articles").mkdir(parents=True)
    moved = [p for p in (root / "articles").glob("*.md") if not p.name.startswith("skill-evals-")]
    assert len(moved) == 7
    for path in moved:
        path.rename(root / "output/articles" / path.name)
    now = DA6HKIN_NOW
    runs = [
        cli("run", "--root", str(r), "--now", now, "--no-notify", "--dry-run", "--json")
        for r in (before_root, root)
    ]
    (code_a, out_a, _), (code_b, out_b, err_b) = runs
    assert code_a == code_b == 0
    before, after = json.loads(out_a), json.loads(out_b)
    assert before["verdict"] == after["verdict"]
    was = {r["skill"]: r for r in before["skills"]}
    paths = {}
    for row in after["skills"]:
        old = was[row["skill"]]
        assert (row["status"], row["diff"]) == (old["status"], old["diff"]), row["skill"]
        if old["output"] is not None and old["output"]["path"].startswith("articles/"):
            paths[row["skill"]] = row["output"]["path"]
    assert paths == {
        "changelog": "output/articles/changelog-2026-03-19.md",
        "deep-research": "output/articles/deep-research-2026-07-11.md",
        "paper-digest": "output/articles/paper-digest-2026-07-11.md",
    }
    assert (
        "13 specs (changelog, cost-report, deep-research, fork-fleet, hn-digest and 8 more) "
        "name articles/ while this instance writes to output/articles/" in err_b
    )
    assert "name articles/" not in runs[0][2]
    # a first run drafts its starter specs in the folder the instance writes to now
    (root / EVALS_PATH).unlink()
    code, _, _ = cli("run", "--root", str(root), "--now", now, "--no-notify")
    assert code == ExitCode.BOOTSTRAP
    drafted = json.loads((root / EVALS_PATH).read_text())["skills"]
    patterns = {spec["output_pattern"] for spec in drafted.values()}
    assert "output/articles/paper-digest-*.md" in patterns
    assert not any(p.startswith("articles/") for p in patterns), patterns


def test_a_pattern_in_one_article_folder_matches_in_both(tmp_path: Path) -> None:
    """The newest file wins wherever it is; a pattern outside the article folders is as it is."""
    for rel in (
        "articles/x-2026-06-30.md",
        "output/articles/x-2026-07-02.md",
        "articles/x-2026-07-02.md",
        "memory/topics/x-2026-07-01.md",
    ):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x\n")
    outputs = Outputs(tmp_path)
    both = (
        "articles/x-2026-06-30.md",
        "articles/x-2026-07-02.md",
        "output/articles/x-2026-07-02.md",
    )
    assert outputs.matches("articles/x-*.md").files == both
    assert outputs.matches("output/articles/x-*.md").files == both
    assert outputs.matches("memory/topics/x-*.md").files == ("memory/topics/x-2026-07-01.md",)
    assert article_twin("output/articles/a/b-*.md") == "articles/a/b-*.md"
    assert article_twin("articlesx/b.md") is None and article_twin("memory/logs/*.md") is None


def test_articles_dir_overrides_the_detected_folder(new_layout: Path, cli: Cli) -> None:
    code, data, _ = run_json(cli, new_layout, "2026-08-22", "--articles-dir", "reports")
    assert code == 0 and data["artifacts"]["article"] == "reports/skill-evals-2026-08-22.md"
    assert (new_layout / "reports/skill-evals-2026-08-22.md").is_file()
    code, _, err = cli("run", "--root", str(new_layout), "--articles-dir", "../out", "--dry-run")
    assert code == ExitCode.ERROR and "--articles-dir '../out'" in err


def test_old_layout_is_unchanged(tmp_path: Path, cli: Cli) -> None:
    root = copy_instance(OLD, tmp_path / "aeonfun")
    assert layout.detect(root) == layout.Layout("articles", "aeon.yml", None)
    code, out, _err = cli(
        "run", "--root", str(root), "--now", "2026-05-03T06:40:00Z", "--no-notify", "--no-site"
    )
    assert code == 0
    assert "article: articles/skill-evals-2026-05-03.md" in out
    assert "dashboard card" not in out  # the instance has no dashboard feed folder
    assert not (root / "output").exists() and not (root / "apps").exists()


# --- 2. config -----------------------------------------------------------------------------------


def test_a_renamed_config_is_found(tmp_path: Path, cli: Cli) -> None:
    root = copy_instance(OLD, tmp_path / "fork")
    (root / "aeon.yml").unlink()
    put(realdata() / "PortalFnd__clawtrlautonomous/claw.yml", root / "claw.yml")
    (root / "docker-compose.yml").write_text("services:\n  app: {image: x}\n")
    assert registry.find_config(root) == "claw.yml"
    code, out, _ = cli("audit", "--json", "--root", str(root))
    assert code == 0
    claw = registry.load_registry(root)
    assert claw.path == "claw.yml" and claw.found and claw.skills
    assert json.loads(out)["summary"]["enabled_total"] == len(claw.enabled())


def test_two_candidate_configs_are_one_line_naming_both(tmp_path: Path, cli: Cli) -> None:
    root = copy_instance(OLD, tmp_path / "fork")
    shutil.move(root / "aeon.yml", root / "vigil.yml")
    put(realdata() / "PortalFnd__clawtrlautonomous/claw.yml", root / "claw.yml")
    for command in ("run", "validate", "audit", "init"):
        code, _, err = cli(command, "--root", str(root))
        assert code == ExitCode.ERROR, command
        assert err.count("\n") == 1 and "claw.yml and vigil.yml" in err, (command, err)
    code, _, err = cli("validate", "--root", str(root), "--config", "vigil.yml")
    assert code == 0, err


# --- 3. state freshness ---------------------------------------------------------------------------


def _shift_cron_state(path: Path, days: int, failed: str) -> None:
    """The real cron-state with `failed`'s last run marked failed, every time moved by `days`."""
    data = json.loads(path.read_text(encoding="utf-8"))
    data[failed]["last_status"] = "failed"
    data[failed]["last_failed"] = data[failed]["last_success"]
    for row in data.values():
        for key, value in row.items():
            if isinstance(value, str) and value[:2] == "20" and value.endswith("Z"):
                moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
                row[key] = (moment + timedelta(days=days)).strftime("%Y-%m-%dT%H:%M:%SZ")
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")


@pytest.mark.parametrize("behind", [0, 10])
def test_a_stale_cron_state_is_said_and_not_cross_checked(
    new_layout: Path, cli: Cli, behind: int
) -> None:
    _shift_cron_state(new_layout / "memory/cron-state.json", -behind, "token-movers")
    code, data, _ = run_json(cli, new_layout, "2026-08-22")
    assert code == 0
    article = (new_layout / data["artifacts"]["article"]).read_text(encoding="utf-8")
    notes = {s["skill"]: " ".join(s["notes"]) for s in data["skills"]}
    if behind:
        assert (
            "cron-state=stale (newest entry 2026-08-12 17:07Z, newest output 2026-08-2" in article
        )
        assert "; cross-check skipped)" in article
        assert "cron-state says" not in notes["token-movers"]
    else:
        assert "cron-state=ok" in article
        assert "cron-state says the last run failed" in notes["token-movers"]


# --- 4. safe switch-over --------------------------------------------------------------------------


def test_the_enabled_llm_skill_is_warned_about_by_init_validate_and_run(
    tmp_path: Path, cli: Cli
) -> None:
    root = copy_instance(OLD, tmp_path / "aeonfun")
    # one form on every command, as validate prints its findings (editors and CI logs jump to it)
    expected = "aeon.yml:139: warning: the LLM-run skill-evals skill is still enabled"
    edit = '`skill-evals: { enabled: false, schedule: "0 6 * * 0", model: "claude-sonnet-4-6" }`'
    code, _, err = cli("init", "--root", str(root), "--package", "aeon-evals")
    assert code == 0 and expected in err and edit in err
    code, out, _ = cli("validate", "--root", str(root))
    assert expected in out
    code, out, err = cli("run", "--root", str(root), "--now", "2026-05-03T06:40:00Z", "--no-notify")
    assert code == 0 and expected in err
    article = (root / "articles/skill-evals-2026-05-03.md").read_text(encoding="utf-8")
    assert "LLM-run" not in article  # about the switch-over, not the skills: kept out of the record


@pytest.mark.parametrize(
    ("source", "line"),
    [
        ("aeonfun__aeon/aeon.yml@2026-04-26_533505db", 139),
        ("anajuliabit__aeon/aeon.yml@2026-05-31_ea83659", 206),
    ],
)
def test_disable_llm_skill_edits_that_one_line_and_nothing_else(
    tmp_path: Path, cli: Cli, source: str, line: int
) -> None:
    root = copy_instance(OLD, tmp_path / "i")
    before = (realdata() / source).read_bytes()
    (root / "aeon.yml").write_bytes(before)
    code, out, err = cli(
        "init", "--root", str(root), "--disable-llm-skill", "--package", "aeon-evals"
    )
    assert code == 0, err
    assert f"edited aeon.yml:{line} (the LLM-run skill-evals disabled" in out
    after = (root / "aeon.yml").read_bytes()
    old_lines, new_lines = before.splitlines(keepends=True), after.splitlines(keepends=True)
    assert len(old_lines) == len(new_lines)
    changed = [i + 1 for i, (a, b) in enumerate(zip(old_lines, new_lines, strict=True)) if a != b]
    assert changed == [line]
    assert new_lines[line - 1] == old_lines[line - 1].replace(
        b"enabled: true", b"enabled: false", 1
    )
    assert registry.load_registry(root).skills["skill-evals"].enabled is False
    code, out, err = cli("init", "--root", str(root), "--disable-llm-skill")
    assert code == 0 and "unchanged aeon.yml" in out and (root / "aeon.yml").read_bytes() == after
    code, out, _ = cli("validate", "--root", str(root))
    assert "skill-evals skill is still enabled" not in out


def test_disable_llm_skill_keeps_crlf_and_edits_a_multiline_entry(tmp_path: Path, cli: Cli) -> None:
    root = tmp_path / "i"
    (root / "skills/heartbeat").mkdir(parents=True)
    text = (
        "skills:\r\n  heartbeat: { enabled: true }\r\n  skill-evals:\r\n    # weekly\r\n"
        '    enabled: "true" # on\r\n    schedule: "0 6 * * 0"\r\nmodel: x'
    )
    (root / "aeon.yml").write_bytes(text.encode())
    code, _out, err = cli(
        "init", "--root", str(root), "--disable-llm-skill", "--package", "aeon-evals"
    )
    assert code == 0, err
    assert (root / "aeon.yml").read_bytes() == text.replace(
        'enabled: "true"', "enabled: false"
    ).encode()


def test_a_same_day_llm_article_is_not_replaced_without_force(tmp_path: Path, cli: Cli) -> None:
    """Issue 14: `run` silently replaced the article the old skill wrote the same day."""
    root = copy_instance(OLD, tmp_path / "aeonfun")
    theirs = put(
        realdata() / "aeonfun__aeon/articles/skill-evals-2026-05-03.md",
        root / "articles/skill-evals-2026-05-03.md",
    )
    before = tree(root)
    code, out, err = cli("run", "--root", str(root), "--now", "2026-05-03T06:40:00Z", "--no-notify")
    assert code == ExitCode.NOT_OURS == 6
    assert "articles/skill-evals-2026-05-03.md: it exists and was not written by aeon-evals" in err
    assert "--force" in err and out == ""
    assert tree(root) == before  # no article, issue, index or log touched
    code, out, err = cli(
        "run", "--root", str(root), "--now", "2026-05-03T06:40:00Z", "--no-notify", "--force"
    )
    assert code == 0, err
    assert theirs.read_bytes() != before["articles/skill-evals-2026-05-03.md"]
    code, _, err = cli("run", "--root", str(root), "--now", "2026-05-03T07:00:00Z", "--no-notify")
    assert code == 0, err  # now it is ours: a second run the same day replaces it as before


# --- 7. the dashboard card ------------------------------------------------------------------------


def real_cards() -> list[dict[str, Any]]:
    base = realdata()
    paths = [
        *base.glob("*/dashboard/outputs/*.json*"),
        *base.glob("instances/*/apps/dashboard/outputs/*.json"),
    ]
    assert len(paths) >= 6
    return [json.loads(p.read_text(encoding="utf-8")) for p in paths]


def card_problems(data: Any, vocabulary: set[str]) -> list[str]:
    """What keeps `data` from being a card like the real ones: {root, state, elements}, the root
    an element, every child id an element, every type one the real cards use, no orphans."""
    if not isinstance(data, dict) or set(data) != {"root", "state", "elements"}:
        return [f"top-level keys {sorted(data) if isinstance(data, dict) else data!r}"]
    elements = data["elements"]
    problems = [] if data["root"] in elements else [f"root {data['root']!r} is no element"]
    reached = {data["root"]}
    for key, element in elements.items():
        if element.get("type") not in vocabulary:
            problems.append(f"{key}: unknown type {element.get('type')!r}")
        if not isinstance(element.get("props", {}), dict):
            problems.append(f"{key}: props is not an object")
        for child in element.get("children", []):
            reached.add(child)
            if child not in elements:
                problems.append(f"{key}: child {child!r} is no element")
    problems += [f"{key}: never shown" for key in elements if key not in reached]
    return problems


def test_the_real_cards_pass_the_structural_check() -> None:
    cards = real_cards()
    vocabulary = {e["type"] for c in cards for e in c["elements"].values()}
    # the card uses only element types that real cards use (real fleets add more: Table, …)
    assert set(card.ELEMENT_TYPES) <= vocabulary
    for real in cards:
        assert card_problems(real, vocabulary) == []
    broken = json.loads(json.dumps(cards[0]))
    broken["elements"][broken["root"]]["children"].append("missing")
    assert any("'missing' is no element" in p for p in card_problems(broken, vocabulary))


def test_each_run_writes_one_card_like_the_real_ones(new_layout: Path, cli: Cli) -> None:
    # a regression for the card to show: aeon-update dispatched (its first slot, 2026-08-24, is
    # after the snapshot: undispatched it is NOT_RUN) and no '### aeon-update' log section
    cron_path = new_layout / "memory/cron-state.json"
    cron = json.loads(cron_path.read_text())
    cron["aeon-update"] = {"last_status": "success", "last_success": "2026-08-21T11:20:00Z"}
    cron_path.chmod(0o644)
    cron_path.write_text(json.dumps(cron))
    feed = new_layout / "apps/dashboard/outputs"
    theirs = sorted(p.name for p in feed.iterdir())
    code, data, _ = run_json(cli, new_layout, "2026-08-22", "--dry-run")
    assert code == 0 and data["artifacts"]["dashboard_card"] == "not written (--dry-run)"
    assert sorted(p.name for p in feed.iterdir()) == theirs
    code, data, _ = run_json(cli, new_layout, "2026-08-22")
    rel = "apps/dashboard/outputs/skill-evals-2026-08-22T06-00-00Z.json"
    assert data["artifacts"]["dashboard_card"] == rel
    assert sorted(p.name for p in feed.iterdir()) == sorted([*theirs, Path(rel).name])
    written = json.loads((new_layout / rel).read_text(encoding="utf-8"))
    vocabulary = {e["type"] for c in real_cards() for e in c["elements"].values()}
    assert card_problems(written, vocabulary) == []
    props = {key: e.get("props", {}) for key, e in written["elements"].items()}
    assert props["alert_verdict"]["title"] == data["verdict"]
    assert props["stat_new_fail"]["value"] == str(data["diff"]["new_fail"])
    assert props["stat_fixed"]["value"] == str(data["diff"]["fixed"])
    assert props["stat_coverage"]["value"] == f"{pct_text(data['coverage']['pct'])}%"
    assert props["action_text"]["text"] == data["action_queue"][0]
    regressions = sorted(
        s["skill"] for s in data["skills"] if s["diff"] == "NEW_FAIL" and s["enabled"]
    )
    shown = sorted(p["text"] for k, p in props.items() if k.endswith("_skill"))
    assert regressions and shown == regressions
    assert props["article_link"]["href"] == data["artifacts"]["article"]
    code, data, _ = run_json(cli, new_layout, "2026-08-23")
    assert len([p for p in feed.iterdir() if p.name.startswith("skill-evals-")]) == 2
    assert not [p for p in feed.iterdir() if p.name.startswith(".")]  # no temp file left


def test_the_action_queue_never_asks_for_a_spec_for_a_skill_that_is_not_scorable(
    new_layout: Path, cli: Cli
) -> None:
    """Bug: miroshark's Action Queue said "Add evals.json entry for heartbeat" and for
    memory-flush, whose SKILL.md says `scorable: false` (listed, never scored)."""
    code, data, err = run_json(cli, new_layout, "2026-08-22")
    assert code == 0, err
    adds = [a for a in data["action_queue"] if a.startswith("Add evals.json entry for")]
    assert not [a for a in adds if "heartbeat" in a or "memory-flush" in a], adds

"""`aeon-evals demo`: on any date the bundled instance shows every kind of change."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

Cli = Callable[..., tuple[int, str, str]]


@pytest.mark.parametrize(
    "now",
    [
        "2026-03-01T06:00:00Z",
        "2026-11-29T22:30:00Z",
        "2027-07-14T13:05:00Z",
        "2031-02-28T00:10:00Z",
    ],
)
def test_demo_shows_every_kind_of_change(tmp_path: Path, cli: Cli, now: str) -> None:
    code, out, err = cli("demo", str(tmp_path / "demo"), "--now", now, "--json")
    assert code == 0, err
    data = json.loads(out)
    labels = {s["skill"]: (s["status"], s["diff"]) for s in data["skills"]}
    assert labels["cost-report"] == ("FAIL", "NEW_FAIL")
    assert labels["changelog"] == ("PASS", "FIXED")
    assert labels["repo-pulse"] == ("NO_OUTPUT", "STILL_FAIL")
    # weekly-digest went quiet (GITHUB_TOKEN expired, three failed runs in cron-state): more
    # than 3 weekly cadences without output is a failure, not a silent STALE (issue 15)
    assert labels["weekly-digest"] == ("FAIL", "NEW_FAIL")
    digest = next(s for s in data["skills"] if s["skill"] == "weekly-digest")
    assert digest["root_causes"][0]["code"] == "stale_file"
    assert labels["heartbeat"] == ("PASS", "STABLE")
    assert data["verdict"] == "SKILL_EVALS_REGRESSED"
    assert [i["skill"] for i in data["issues"]["filed"]] == ["cost-report"]
    assert [i["skill"] for i in data["issues"]["closed"]] == ["changelog"]
    day = now[:10]
    root = tmp_path / "demo"
    assert (root / f"articles/skill-evals-{day}.md").exists()
    assert "### skill-evals" in (root / f"memory/logs/{day}.md").read_text()


def test_demo_refuses_an_existing_folder(tmp_path: Path, cli: Cli) -> None:
    code, _, err = cli("demo", str(tmp_path))
    assert code == 2 and "already exists" in err


def test_demo_prints_where_everything_went(
    tmp_path: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, _ = cli("demo", "--now", "2026-12-06T07:00:00Z")
    assert code == 0
    root = tmp_path / "aeon-evals-demo"
    assert f"demo instance: {root}" in out
    for word in (
        "verdict: SKILL_EVALS_REGRESSED",
        "article: articles/skill-evals-2026-12-06.md",
        "issues filed: ISS-004 (cost-report)",
        "issues closed: ISS-001 (changelog)",
    ):
        assert word in out
    code, out, _ = cli("demo", "--now", "2026-12-06T07:00:00Z")
    assert (tmp_path / "aeon-evals-demo-2").is_dir()


def test_gitignore_ignored_aeon_demo_not_aeon_evals_demo(tmp_path: Path) -> None:
    """`.gitignore` had `aeon-demo*/` while `demo` writes ./aeon-evals-demo (and -2, -3 …)."""
    import shutil
    import subprocess

    repo = Path(__file__).resolve().parents[1]
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    shutil.copyfile(repo / ".gitignore", tmp_path / ".gitignore")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    for name in ("aeon-evals-demo/aeon.yml", "aeon-evals-demo-2/aeon.yml"):
        ignored = subprocess.run(
            ["git", "-C", str(tmp_path), "check-ignore", "-q", name], check=False
        )
        assert ignored.returncode == 0, name


def test_same_day_rerun_graded_this_tools_own_article_as_skill_evals(
    tmp_path: Path, cli: Cli
) -> None:
    """The demo's evals.json has a spec for skill-evals (Aeon's LLM-run skill this tool
    replaces): a same-day rerun graded the first run's article, this tool's own output, PASS.
    The spec is never evaluated (no row, not in the coverage), as audit's "Not counted" says,
    and the prior article's skill-evals row is no "no longer covered" ghost."""
    root = tmp_path / "demo"
    pinned = ("--today", "2026-06-01", "--now", "2026-06-01T06:00:00Z")
    assert cli("demo", str(root), *pinned)[0] == 0
    code, out, err = cli("run", "--root", str(root), *pinned, "--json", "--no-notify", "--no-site")
    assert code == 0, err
    data = json.loads(out)
    assert "skill-evals" not in {s["skill"] for s in data["skills"]}
    assert data["coverage"]["covered"] == 7 and data["coverage"]["enabled"] == 9
    article = (root / "articles/skill-evals-2026-06-01.md").read_text()
    assert "| skill-evals |" not in article
    code, out, _ = cli("audit", "--root", str(root))
    assert code == 0
    assert "Coverage: 7/9 enabled skills have a spec" in out
    assert "Not counted: skill-evals (" in out
    code, _, err = cli("run", "--root", str(root), *pinned, "--skill", "skill-evals")
    assert code == 5 and "is not evaluated: its output is this tool's own article" in err

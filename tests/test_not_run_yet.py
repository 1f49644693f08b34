"""A scheduled skill whose first run has not happened yet is listed as not run, not failing."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from realdata import AEONFUN, AEONFUN_NOW, MIROSHARK, MIROSHARK_NOW, whole_instance

Cli = Callable[..., tuple[int, str, str]]


def _row(article: str, skill: str) -> list[str]:
    for line in article.split("## Full Results")[1].splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if cells[0] == skill:
            return cells
    raise AssertionError(f"no row for {skill}")


def _drop_from_article(path: Path, skill: str) -> None:
    """The article without `skill`'s Full Results row: as if it was written before the skill
    was enabled."""
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(line for line in lines if not line.startswith(f"| {skill} |")))


def test_a_never_dispatched_skill_on_a_first_run_was_called_not_run_yet(
    tmp_path: Path, cli: Cli
) -> None:
    """On a first run nothing said a never-dispatched skill was new: aeonfun's morning-brief
    (daily, run by a chain whose dispatches fail) and syndicate-article (daily, never in
    cron-state, no output over 9 days of logs) were called "not run yet: its first scheduled run
    has not happened", hiding two broken skills. They are judged: both are named from the first
    daily log on, so nothing dates their enabling after a slot."""
    root = whole_instance(AEONFUN, tmp_path / "aeonfun")
    code, _, err = cli("run", "--root", str(root), "--now", AEONFUN_NOW, "--no-site", "--no-notify")
    assert code == 0, err
    article = (root / "articles/skill-evals-2026-05-03.md").read_text()
    for skill in ("morning-brief", "syndicate-article", "hacker-news-digest"):
        assert _row(article, skill)[1] in {"FAIL", "NO_OUTPUT"}, skill


def test_aeon_update_before_its_first_slot_failed_on_the_first_run(
    tmp_path: Path, cli: Cli
) -> None:
    """Regression (#33.5): the first run on miroshark filed ISS-001 `NEW_FAIL missing_section`
    (severity high) for aeon-update, enabled on 2026-08-18 (first named in that day's log) with
    its first slot on Monday 2026-08-24 11:00 UTC. It is NOT_RUN with the first slot named, and
    no issue is filed."""
    root = whole_instance(MIROSHARK, tmp_path / "miro")
    code, out, err = cli(
        "run", "--root", str(root), "--now", MIROSHARK_NOW, "--no-site", "--no-notify"
    )
    assert code == 0, err
    article = (root / "output/articles/skill-evals-2026-08-22.md").read_text()
    row = _row(article, "aeon-update")
    assert row[1] == "NOT_RUN"
    assert "not run yet: first slot 2026-08-24 11:00 UTC" in row[-1]
    assert "enabled 2026-08-18: first named in memory/logs/2026-08-18.md" in row[-1]
    assert "issues filed: none" in out
    assert not (root / "memory/issues/ISS-001.md").exists()


def test_aeon_update_enabled_before_its_first_slot_failed_missing_section(
    tmp_path: Path, cli: Cli
) -> None:
    """miroshark's aeon-update: no cron-state entry, no log section, first cron slot 2026-08-24.
    It is NOT_RUN before that slot, the row says why, no issue is filed for it; once its slot has
    passed (2026-08-25) it fails although cron-state still has no entry; and once cron-state
    shows a dispatch, the missing section fails at once."""
    root = whole_instance(MIROSHARK, tmp_path / "miro")
    base = ("run", "--root", str(root), "--no-site", "--no-notify")
    assert cli(*base, "--now", "2026-08-21T17:00:00Z")[0] == 0
    code, out, err = cli(*base, "--now", MIROSHARK_NOW)
    assert code == 0, err
    article = (root / "output/articles/skill-evals-2026-08-22.md").read_text()
    row = _row(article, "aeon-update")
    assert row[1] == "NOT_RUN"
    assert "not run yet" in row[-1]
    assert "(aeon-update)" not in out.split("issues filed:")[1].splitlines()[0]

    code, _, err = cli(*base, "--now", "2026-08-25T06:00:00Z")
    assert code == 0, err
    article = (root / "output/articles/skill-evals-2026-08-25.md").read_text()
    assert _row(article, "aeon-update")[1] == "FAIL"

    cron_path = root / "memory/cron-state.json"
    cron = json.loads(cron_path.read_text())
    cron["aeon-update"] = {"last_status": "success", "last_success": "2026-08-22T11:20:00Z"}
    cron_path.chmod(0o644)
    cron_path.write_text(json.dumps(cron))
    code, _, err = cli(*base, "--now", MIROSHARK_NOW)
    assert code == 0, err
    article = (root / "output/articles/skill-evals-2026-08-22.md").read_text()
    assert _row(article, "aeon-update")[1] == "FAIL"
    assert "missing_section" in _row(article, "aeon-update")[3]


def _git(root: Path, *args: str, when: str) -> None:
    env = {
        **os.environ,
        "GIT_AUTHOR_DATE": when,
        "GIT_COMMITTER_DATE": when,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    subprocess.run(["git", "-C", str(root), *args], check=True, env=env, capture_output=True)


@pytest.mark.parametrize(
    ("enabled_at", "status"),
    [("2026-08-19T09:00:00Z", "NOT_RUN"), ("2026-08-10T09:00:00Z", "FAIL")],
)
def test_the_configs_git_history_dates_when_a_skill_was_enabled(
    tmp_path: Path, cli: Cli, enabled_at: str, status: str
) -> None:
    """In a full checkout the commit that last changed the skill's entry in aeon.yml says when it
    was enabled: after its last slot (Monday 2026-08-17 11:00), it has not had a run; before it,
    the missing run is a failure. The daily logs are not asked (they name it only on 08-18)."""
    root = whole_instance(MIROSHARK, tmp_path / "miro")
    config = root / "aeon.yml"
    text = config.read_text()
    line = next(x for x in text.splitlines() if x.strip().startswith("aeon-update:"))
    _git(root, "init", "-q", when="2026-07-01T00:00:00Z")
    config.write_text(text.replace(line, line.replace("enabled: true", "enabled: false")))
    _git(root, "add", "-A", when="2026-07-01T00:00:00Z")
    _git(root, "commit", "-qm", "fleet", when="2026-07-01T00:00:00Z")
    config.write_text(text)
    _git(root, "commit", "-qam", "enable aeon-update", when=enabled_at)
    code, _, err = cli(
        "run", "--root", str(root), "--now", MIROSHARK_NOW, "--no-site", "--no-notify"
    )
    assert code == 0, err
    row = _row((root / "output/articles/skill-evals-2026-08-22.md").read_text(), "aeon-update")
    assert row[1] == status
    if status == "NOT_RUN":
        assert f"enabled {enabled_at[:10]}: aeon.yml's git history" in row[-1]

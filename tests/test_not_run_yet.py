"""A scheduled skill whose first run has not happened yet is listed as not run, not failing."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

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
    """On a first run nothing says a never-dispatched skill is new: aeonfun's morning-brief
    (daily, run by a chain whose dispatches fail) and syndicate-article (daily, never in
    cron-state, no output over 9 days of logs) were called "not run yet: its first scheduled run
    has not happened", hiding two broken skills. They are judged; so is miroshark's
    aeon-update on its first run."""
    root = whole_instance(AEONFUN, tmp_path / "aeonfun")
    code, _, err = cli("run", "--root", str(root), "--now", AEONFUN_NOW, "--no-site", "--no-notify")
    assert code == 0, err
    article = (root / "articles/skill-evals-2026-05-03.md").read_text()
    for skill in ("morning-brief", "syndicate-article", "hacker-news-digest"):
        assert _row(article, skill)[1] in {"FAIL", "NO_OUTPUT"}, skill

    miro = whole_instance(MIROSHARK, tmp_path / "miro")
    run = ("run", "--root", str(miro), "--now", MIROSHARK_NOW, "--no-site", "--no-notify")
    assert cli(*run)[0] == 3  # bootstrap: the starter evals.json, with aeon-update's spec
    assert cli(*run)[0] == 0
    article = (miro / "output/articles/skill-evals-2026-08-22.md").read_text()
    assert _row(article, "aeon-update")[1] == "FAIL"


def test_aeon_update_enabled_before_its_first_slot_failed_missing_section(
    tmp_path: Path, cli: Cli
) -> None:
    """miroshark enabled aeon-update after this tool's previous article (2026-08-21, which does
    not list it), and its first cron slot is 2026-08-24: no cron-state entry, no log section. The
    run said NEW_FAIL missing_section and filed an issue. It is NOT_RUN, the row says why, no
    issue is filed for it; once cron-state shows a dispatch, the missing section fails again;
    and once its slot has passed (2026-08-25) it fails although cron-state still has no entry."""
    root = whole_instance(MIROSHARK, tmp_path / "miro")
    base = ("run", "--root", str(root), "--no-site", "--no-notify")
    assert cli(*base, "--now", "2026-08-21T17:00:00Z")[0] == 3  # bootstrap
    assert cli(*base, "--now", "2026-08-21T17:00:00Z")[0] == 0
    _drop_from_article(root / "output/articles/skill-evals-2026-08-21.md", "aeon-update")
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

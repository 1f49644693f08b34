"""A scheduled skill whose first run has not happened yet is listed as not run, not failing."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from realdata import MIROSHARK, MIROSHARK_NOW, whole_instance

Cli = Callable[..., tuple[int, str, str]]


def _row(article: str, skill: str) -> list[str]:
    for line in article.split("## Full Results")[1].splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if cells[0] == skill:
            return cells
    raise AssertionError(f"no row for {skill}")


def test_aeon_update_enabled_before_its_first_slot_failed_missing_section(
    tmp_path: Path, cli: Cli
) -> None:
    """miroshark enabled aeon-update on 2026-08-18, its first cron slot is 2026-08-24: it has no
    cron-state entry and no log section. The run pinned to the snapshot said NEW_FAIL
    missing_section and filed ISS-001. It is NOT_RUN, the row says why, no issue is filed; once
    cron-state shows a dispatch, the missing section fails again."""
    root = whole_instance(MIROSHARK, tmp_path / "miro")
    run = ("run", "--root", str(root), "--now", MIROSHARK_NOW, "--no-site", "--no-notify")
    assert cli(*run)[0] == 3  # bootstrap: the starter evals.json, with aeon-update's spec
    code, out, err = cli(*run)
    assert code == 0, err
    article = (root / "output/articles/skill-evals-2026-08-22.md").read_text()
    row = _row(article, "aeon-update")
    assert row[1] == "NOT_RUN"
    assert "not run yet" in row[-1]
    assert "issues filed: none" in out
    assert not (root / "memory/issues/ISS-001.md").exists()
    assert "SKILL_EVALS_OK" in article

    cron_path = root / "memory/cron-state.json"
    cron = json.loads(cron_path.read_text())
    cron["aeon-update"] = {"last_status": "success", "last_success": "2026-08-22T11:20:00Z"}
    cron_path.chmod(0o644)
    cron_path.write_text(json.dumps(cron))
    code, out, err = cli(*run)
    assert code == 0, err
    article = (root / "output/articles/skill-evals-2026-08-22.md").read_text()
    assert _row(article, "aeon-update")[1] == "FAIL"
    assert "missing_section" in _row(article, "aeon-update")[3]


def test_a_never_dispatched_skill_listed_before_its_slot_was_not_run_forever(
    tmp_path: Path, cli: Cli
) -> None:
    """Not run yet lasts until its first slot: the 2026-08-22 article listed aeon-update (enabled
    by then), its slot of 2026-08-24 11:00 passed, so on 2026-08-25 the missing section fails,
    although cron-state still has no entry for it."""
    root = whole_instance(MIROSHARK, tmp_path / "miro")
    base = ("run", "--root", str(root), "--no-site", "--no-notify")
    assert cli(*base, "--now", MIROSHARK_NOW)[0] == 3  # bootstrap
    assert cli(*base, "--now", MIROSHARK_NOW)[0] == 0
    code, _, err = cli(*base, "--now", "2026-08-25T06:00:00Z")
    assert code == 0, err
    article = (root / "output/articles/skill-evals-2026-08-25.md").read_text()
    assert _row(article, "aeon-update")[1] == "FAIL"

"""The smaller holes of issue 35 (point 8), each pinned by the test named after it: a
whitespace-only output, `site` without the lock, a notifier's stderr in uploaded files, a
wildcard through a link out of the root, a skill named `fleet`, raw OS errors."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from aeon_evals.fs.lock import instance_lock

Cli = Callable[..., tuple[int, str, str]]
FIRST = "2026-12-01T07:00:00Z"
NEXT = "2026-12-02T08:00:00Z"
TOKEN = "123456:AAH-secret-token"


def _demo(tmp_path: Path, cli: Cli, name: str = "demo") -> Path:
    root = tmp_path / name
    code, _out, err = cli("demo", str(root), "--now", FIRST)
    assert code == 0, err
    return root


def _json_run(cli: Cli, root: Path, *args: str) -> dict:
    code, out, err = cli("run", "--root", str(root), "--now", FIRST, "--json", *args)
    assert code == 0, err
    return json.loads(out)


@pytest.mark.parametrize("blank", ["\n", "\n\n  \t\n", " "])
def test_a_whitespace_only_output_is_empty_not_a_pass_with_0_words(
    tmp_path: Path, cli: Cli, blank: str
) -> None:
    """Regression: an output of a single newline passed with 0 words (`empty_file` was only
    for 0 bytes)."""
    root = _demo(tmp_path, cli)
    (root / "articles/changelog-2026-12-01.md").write_text(blank, encoding="utf-8")
    data = _json_run(cli, root, "--no-notify", "--no-site")
    row = next(s for s in data["skills"] if s["skill"] == "changelog")
    assert row["status"] == "FAIL"
    assert [c["code"] for c in row["root_causes"]] == ["empty_file"]
    size = len(blank.encode())
    assert row["root_causes"][0]["detail"] == (
        f"articles/changelog-2026-12-01.md is empty (only white space, {size} "
        f"byte{'s' * (size != 1)})"
    )


def test_site_takes_the_instance_lock(tmp_path: Path, cli: Cli) -> None:
    """Regression: `aeon-evals site` took no lock; run during a nightly run it rewrote the
    dashboard from what it had read before the run's new page (3 of 5 tries lost it)."""
    root = _demo(tmp_path, cli)
    index = root / "site/index.html"
    before = index.stat().st_mtime_ns
    with instance_lock(root, timeout=0):
        code, out, err = cli("site", "--root", str(root), "--lock-timeout", "0")
    assert code == 4, (out, err)
    assert "another aeon-evals run is writing this instance" in err
    assert index.stat().st_mtime_ns == before
    code, _out, err = cli("site", "--root", str(root), "--lock-timeout", "0")
    assert code == 0, err


def _notifier(root: Path) -> None:
    script = root / "notify"
    script.write_text(
        "#!/bin/sh\n"
        'echo "curl: (22) https://api.telegram.org/bot$TELEGRAM_BOT_TOKEN/sendMessage: 401" >&2\n'
        "exit 1\n",
        encoding="utf-8",
    )
    script.chmod(0o755)


def test_a_failing_notifiers_stderr_stays_out_of_the_log_and_the_job_summary(
    tmp_path: Path, cli: Cli
) -> None:
    """Regression: a failing notifier's stderr (curl printing the URL, with the bot token) went
    into the ledger, the warnings, run.log and the job summary, which the workflow uploads."""
    root = _demo(tmp_path, cli)
    _notifier(root)
    (root / "articles/skill-evals-2026-12-01.md").unlink()  # the day's notification is due
    summary = tmp_path / "summary.md"
    done = subprocess.run(
        [sys.executable, "-m", "aeon_evals", "run", "--root", str(root), "--now", FIRST, "--json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "TELEGRAM_BOT_TOKEN": TOKEN, "GITHUB_STEP_SUMMARY": str(summary)},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["artifacts"]["notification"].startswith(
        "notifier ./notify failed (exit 1); its error output is not shown here"
    )
    for text in (done.stdout, done.stderr, summary.read_text(encoding="utf-8")):
        assert TOKEN not in text and "api.telegram.org" not in text
    assert "notifier's error output" not in done.stderr  # not a terminal: never shown


def test_a_failing_notifiers_stderr_is_shown_on_a_terminal_only(tmp_path: Path, cli: Cli) -> None:
    """Someone at a terminal sees the last line of what the notifier said (capped)."""
    root = _demo(tmp_path, cli)
    _notifier(root)
    (root / "articles/skill-evals-2026-12-01.md").unlink()
    main, secondary = pty.openpty()
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "aeon_evals", "run", "--root", str(root), "--now", FIRST],
            cwd=tmp_path,
            stdout=subprocess.DEVNULL,
            stderr=secondary,
            env={**os.environ, "TELEGRAM_BOT_TOKEN": TOKEN},
        )
        os.close(secondary)
        seen = b""
        while True:
            try:
                chunk = os.read(main, 65536)
            except OSError:  # the terminal's other side closed
                break
            if not chunk:
                break
            seen += chunk
        assert proc.wait(timeout=120) == 0
    finally:
        os.close(main)
    lines = seen.decode("utf-8", "replace").splitlines()
    shown = [line for line in lines if line.startswith("notifier's error output: ")]
    assert shown == [
        f"notifier's error output: curl: (22) https://api.telegram.org/bot{TOKEN}/sendMessage: 401"
    ]


def test_a_wildcard_through_a_link_out_of_the_root_is_one_warning_and_not_searched(
    tmp_path: Path, cli: Cli
) -> None:
    """Regression: `reports/*/etc/*` through `reports/rootfs -> /` listed the whole /etc tree
    into 681 warnings (no file read, but 11 s and outside names in the article). The folder
    behind the link is not searched: one warning names the link."""
    root = _demo(tmp_path, cli)
    outside = tmp_path / "outside"
    (outside / "etc").mkdir(parents=True)
    for i in range(50):
        (outside / "etc" / f"secret-{i:02d}.conf").write_text("x\n")
    (root / "reports").mkdir()
    (root / "reports/rootfs").symlink_to(outside)
    (root / "reports/loop").symlink_to("..")  # a loop inside the root: searched once
    evals = root / "skills/skill-evals/evals.json"
    data = json.loads(evals.read_text(encoding="utf-8"))
    data["skills"]["cost-report"]["output_pattern"] = "reports/*/etc/*"
    data["skills"]["changelog"]["output_pattern"] = "reports/**/changelog-*.md"
    evals.write_text(json.dumps(data), encoding="utf-8")
    code, out, err = cli("run", "--root", str(root), "--now", FIRST, "--no-notify", "--json")
    assert code == 0, err
    assert "secret-" not in out + err
    found = [line for line in err.splitlines() if "reports/" in line]
    assert found == [
        f"warning: reports/rootfs is a symlink leading outside the root (-> {outside}); not "
        "searched"
    ]
    row = next(s for s in json.loads(out)["skills"] if s["skill"] == "cost-report")
    assert row["output"] is None or not row["output"]["path"].startswith("reports/")


def test_a_skill_named_fleet_does_not_overwrite_the_fleet_badge(tmp_path: Path, cli: Cli) -> None:
    """Regression: a skill named `fleet` wrote its badge over `badges/fleet.svg`/`.json`, the
    fleet's (what a README embeds). Its badge is `badges/_fleet.*` and its page links that."""
    root = _demo(tmp_path, cli)
    config = root / "aeon.yml"
    config.write_text(
        config.read_text(encoding="utf-8").replace(
            "skills:\n", 'skills:\n  fleet: { enabled: true, schedule: "0 9 * * *" }\n', 1
        ),
        encoding="utf-8",
    )
    evals = root / "skills/skill-evals/evals.json"
    data = json.loads(evals.read_text(encoding="utf-8"))
    data["skills"]["fleet"] = {"output_pattern": "articles/fleet-*.md"}
    evals.write_text(json.dumps(data), encoding="utf-8")
    code, _out, err = cli("run", "--root", str(root), "--now", FIRST, "--no-notify")
    assert code == 0, err
    badges = root / "site/badges"
    assert json.loads((badges / "fleet.json").read_text())["label"] == "skill evals"
    assert json.loads((badges / "_fleet.json").read_text())["label"] == "fleet"
    assert "skill evals" in (badges / "fleet.svg").read_text()
    page = (root / "site/skills/fleet.html").read_text(encoding="utf-8")
    assert "../badges/_fleet.svg" in page and "../badges/fleet.svg" not in page


def test_os_errors_are_one_line_with_paths_relative_to_the_root(tmp_path: Path, cli: Cli) -> None:
    """Regression: the article held `[Errno 1] Operation not permitted: '/abs/…/INDEX.md' ->
    None`, and the ledger `site: site site/runs/index.html leads outside…`."""
    root = _demo(tmp_path, cli)
    outside = tmp_path / "outside-runs"
    outside.mkdir()
    (root / "site/runs").rename(tmp_path / "old-runs")
    (root / "site/runs").symlink_to(outside)
    index = root / "memory/issues/INDEX.md"
    locked = subprocess.run(["chattr", "+i", str(index)], capture_output=True, check=False)
    # the next day, a new failure, so that an issue is filed: INDEX.md must change
    (root / "articles/changelog-2026-12-02.md").write_text("\n", encoding="utf-8")
    try:
        code, out, err = cli("run", "--root", str(root), "--now", NEXT, "--no-notify")
    finally:
        if locked.returncode == 0:
            subprocess.run(["chattr", "-i", str(index)], check=False)
    assert code == 0, err
    article = (root / "articles/skill-evals-2026-12-02.md").read_text(encoding="utf-8")
    for text in (out, err, article):
        assert "[Errno" not in text and str(tmp_path) not in text.replace(str(outside), "")
        assert "site site/" not in text
    assert (
        "site: not written: site/runs/index.html: leads outside the root through the symlink "
        f"site/runs -> {outside}; not written" in out.splitlines()
    )
    if locked.returncode == 0:  # chattr is there (root on ext4, as in CI)
        said = [line for line in err.splitlines() if line.startswith("warning: memory/issues")]
        assert len(said) == 1 and "INDEX.md" in said[0] and "not permitted" in said[0], err

"""Faults and hostile input never lose data or hang the nightly job."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import frontmatter
import pytest
import yaml
from conftest import Instance
from test_bad_config import EVALS, make_instance
from test_cli_run import WEEK1, WEEK2, fleet

from aeon_evals.articles.parse import read_article
from aeon_evals.issues import read_issues
from aeon_evals.report.notify import MAX_BODY_BYTES, send

Cli = Callable[..., tuple[int, str, str]]


def _run_process(
    root: Path, now: str, env: dict[str, str] | None = None, *extra: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "aeon_evals", "run", "--root", str(root), "--now", now, *extra],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=120,
        check=False,
    )


def _consistent(root: Path) -> None:
    """Every file parses; every issue named in INDEX.md has its file; no temp file is left."""
    for article in (root / "articles").glob("skill-evals-*.md"):
        read_article(article, root=root)
    issues, warnings = read_issues(root / "memory/issues", root=root)
    assert warnings == [], warnings
    for issue in issues:
        post = frontmatter.loads((root / issue.path).read_text())
        assert post["id"] == issue.id
        yaml.safe_load((root / issue.path).read_text().split("---")[1])
    index = (root / "memory/issues/INDEX.md").read_text()
    assert "## Open" in index and "## Resolved" in index
    for number in {line.split("ISS-")[1][:3] for line in index.splitlines() if "ISS-" in line}:
        assert (root / f"memory/issues/ISS-{number}.md").exists(), (
            f"ISS-{number} indexed without its file"
        )
    for log in (root / "memory/logs").glob("*.md"):
        log.read_text(encoding="utf-8")
    assert not [p for p in root.rglob("*.tmp")], "a temp file was left behind"


def _week2(inst: Instance) -> None:
    inst.write("articles/repo-pulse-2026-05-23.md", "# pulse\n1,204 stars\n" + " ".join(["w"] * 80))
    inst.write("articles/cost-report-2026-05-18.md", "# cost\nTotal cost $14\nshort\n")


def test_a_run_killed_after_any_write_leaves_every_file_whole(tmp_path: Path) -> None:
    """SIGKILL after the 1st, 2nd, … write of a run that files and closes issues; then rerun."""
    total = None
    crash = 1
    while total is None or crash <= total:
        inst = fleet(Instance(tmp_path / f"crash-{crash}"))
        assert _run_process(inst.root, WEEK1, None, "--no-notify").returncode == 0
        _week2(inst)
        before = inst.snapshot()
        proc = _run_process(inst.root, WEEK2, {"AEON_EVALS_CRASH_AFTER": str(crash)}, "--no-notify")
        if proc.returncode == 0:
            total = crash - 1  # the run made fewer writes than `crash`: every point was covered
            break
        assert proc.returncode == -9, proc.stderr
        _consistent(inst.root)
        # (a killed run may leave the issues' hidden backups, `.ISS-001.md.undo`: whole links to
        # the old files, swept by the next run)
        changed = {
            k
            for k in inst.snapshot()
            if before.get(k) != inst.snapshot()[k] and not k.endswith(".undo")
        }
        assert (
            len(changed) <= crash + 1
        )  # only whole files, one per completed write (+ the lock-free log)
        # the next run repairs and completes: the issue is filed once, the index agrees
        assert _run_process(inst.root, WEEK2, None, "--no-notify").returncode == 0
        _consistent(inst.root)
        assert not list((inst.root / "memory/issues").glob(".*.undo"))
        filed = [
            i
            for i in read_issues(inst.root / "memory/issues", root=inst.root)[0]
            if "cost-report" in i.affected_skills
        ]
        assert len(filed) == 1
        crash += 1
    assert (
        total is not None and total >= 5
    )  # article, log, ISS file, closed ISS file, INDEX, site pages …


def test_two_runs_at_once_never_duplicate_an_issue(instance: Instance) -> None:
    inst = fleet(instance)
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "aeon_evals",
                "run",
                "--root",
                str(inst.root),
                "--now",
                WEEK1,
                "--no-notify",
                "--no-site",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for _ in range(3)
    ]
    codes = [p.wait(timeout=120) for p in procs]
    assert codes == [0, 0, 0]
    issues, _ = read_issues(inst.root / "memory/issues", root=inst.root)
    assert [i.id for i in issues] == ["ISS-001"]
    _consistent(inst.root)


def test_hostile_files_each_get_a_clear_result(instance: Instance, cli: Cli) -> None:
    inst = instance
    skills = [
        "binary",
        "badutf8",
        "folder",
        "fifo",
        "dangling",
        "escape",
        "dotdot",
        "absolute",
        "bad-regex",
        "ok",
    ]
    inst.aeon_yml({s: (True, "0 7 * * *") for s in skills})
    specs = {
        s: {"output_pattern": f"out/{s}-*.md", "min_words": 1, "required_patterns": ["word"]}
        for s in skills
    }
    specs["dotdot"]["output_pattern"] = "../outside/*.md"
    specs["absolute"]["output_pattern"] = "/etc/*.conf"
    specs["bad-regex"]["required_patterns"] = ["(a)\\1"]
    inst.evals(specs)
    inst.write("out/binary-2026-05-30.md", b"word\x00\x01\x02 binary")
    inst.write("out/badutf8-2026-05-30.md", b"word \xff\xfe\xc3\x28 words")
    (inst.root / "out/folder-2026-05-30.md").mkdir(parents=True)
    os.mkfifo(inst.root / "out/fifo-2026-05-30.md")
    (inst.root / "out/dangling-2026-05-30.md").symlink_to(inst.root / "nowhere.md")
    outside = inst.root.parent / "outside.md"
    outside.write_text("word secret")
    (inst.root / "out/escape-2026-05-30.md").symlink_to(outside)
    inst.write("out/ok-2026-05-30.md", "word word")
    inst.write("out/bad-regex-2026-05-30.md", "word")
    code, out, err = cli(
        "run",
        "--root",
        str(inst.root),
        "--now",
        "2026-05-31T06:00:00Z",
        "--json",
        "--no-site",
        "--no-notify",
    )
    assert code == 0, err
    rows = {s["skill"]: s for s in json.loads(out)["skills"]}
    head = {
        s: (
            r["status"],
            r["root_causes"][0]["code"] if r["root_causes"] else None,
            r["root_causes"][0]["detail"] if r["root_causes"] else "",
        )
        for s, r in rows.items()
    }
    assert head["binary"][:2] == ("FAIL", "binary_file")
    assert head["badutf8"][:2] == ("PASS", None) and rows["badutf8"]["words"] == 3
    assert head["folder"][0] == "NO_OUTPUT" and "is a directory" in head["folder"][2]
    assert head["fifo"][0] == "NO_OUTPUT" and "not a regular file" in head["fifo"][2]
    assert head["dangling"][0] == "NO_OUTPUT" and "dangling symlink" in head["dangling"][2]
    assert (
        head["escape"][0] == "NO_OUTPUT"
        and "leading outside the root (refused)" in head["escape"][2]
    )
    assert head["dotdot"][0] == "ERROR" and "'..'" in head["dotdot"][2]
    assert head["absolute"][0] == "ERROR" and "absolute path" in head["absolute"][2]
    assert head["bad-regex"][0] == "ERROR" and "does not compile" in head["bad-regex"][2]
    assert head["ok"][:2] == ("PASS", None)
    assert "secret" not in out


def test_an_output_folder_symlinked_outside_is_refused(instance: Instance, cli: Cli) -> None:
    inst = instance
    inst.aeon_yml({"x": (True, "0 7 * * *")})
    inst.evals({"x": {"output_pattern": "linked/x-*.md"}})
    elsewhere = inst.root.parent / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "x-2026-05-30.md").write_text("outside words")
    (inst.root / "linked").symlink_to(elsewhere)
    _code, out, _ = cli(
        "run",
        "--root",
        str(inst.root),
        "--now",
        "2026-05-31T06:00:00Z",
        "--json",
        "--no-site",
        "--no-notify",
    )
    row = json.loads(out)["skills"][0]
    assert row["status"] == "ERROR" and row["root_causes"][0]["code"] == "path_outside_root"


def test_a_log_folder_symlinked_outside_is_never_written(instance: Instance, cli: Cli) -> None:
    inst = fleet(instance)
    elsewhere = inst.root.parent / "foreign-logs"
    elsewhere.mkdir()
    (inst.root / "memory/logs").rename(inst.root / "memory/logs-real")
    (inst.root / "memory/logs").symlink_to(elsewhere)
    code, out, _err = cli(
        "run", "--root", str(inst.root), "--now", WEEK1, "--no-site", "--no-notify"
    )
    assert code == 0
    assert list(elsewhere.iterdir()) == []
    assert "log: not written: memory/logs/2026-05-17.md: leads outside the root" in out


def test_a_200_mb_output_is_streamed_in_bounded_memory(instance: Instance) -> None:
    inst = instance
    inst.aeon_yml({"huge": (True, "0 7 * * *")})
    inst.evals(
        {
            "huge": {
                "output_pattern": "out/huge-*.md",
                "min_words": 10,
                "required_patterns": ["NEEDLE_AT_THE_END"],
                "forbidden_patterns": ["\\$\\{var\\}"],
            }
        }
    )
    line = b"lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor\n"
    path = inst.root / "out/huge-2026-05-30.md"
    path.parent.mkdir(parents=True)
    with open(path, "wb") as fh:
        block = line * (1 << 14)
        for _ in range((200 << 20) // len(block)):
            fh.write(block)
        fh.write(b"NEEDLE_AT_THE_END\n")
    size = path.stat().st_size
    # The child's own peak: getrusage's ru_maxrss in a child started by fork and exec carries
    # the forking process's peak (pytest's, past 120 MB late in the suite); VmHWM is this
    # process image's alone.
    script = (
        "import json, resource, sys\n"
        "from aeon_evals.cli import main\n"
        "code = main(sys.argv[1:])\n"
        "try:\n"
        "    rss = next(int(l.split()[1]) for l in open('/proc/self/status') "
        "if l.startswith('VmHWM:'))\n"
        "except (OSError, StopIteration):\n"
        "    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "print(json.dumps({'code': code, 'rss_kb': rss}), file=sys.stderr)\n"
    )
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            script,
            "run",
            "--root",
            str(inst.root),
            "--now",
            "2026-05-31T06:00:00Z",
            "--json",
            "--no-site",
            "--no-notify",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    stats = json.loads(proc.stderr.strip().splitlines()[-1])
    row = json.loads(proc.stdout)["skills"][0]
    assert stats["code"] == 0 and row["status"] == "PASS", row
    assert row["output"]["size"] == size and row["words"] == (size - 18) // len(line) * 12 + 1
    assert stats["rss_kb"] < 120 * 1024, (
        f"peak memory {stats['rss_kb'] // 1024} MB for a {size >> 20} MB file"
    )
    path.unlink()


def test_a_file_vanishing_between_listing_and_reading(instance: Instance) -> None:
    from datetime import UTC, datetime

    from aeon_evals.checks.skill import Context, evaluate
    from aeon_evals.load.outputs import Outputs
    from aeon_evals.model import Registration, Spec

    inst = instance
    inst.write("out/v-2026-05-30.md", "word")
    outputs = Outputs(inst.root)
    assert outputs.matches("out/v-*.md").files == ("out/v-2026-05-30.md",)
    (inst.root / "out/v-2026-05-30.md").unlink()
    now = datetime(2026, 5, 31, tzinfo=UTC)
    result = evaluate(
        Spec(skill="v", output_pattern="out/v-*.md"),
        outputs,
        Context(Registration("v", True, "0 7 * * *"), None, None, now, now.date()),
    )
    assert (
        result.status.value == "NO_OUTPUT"
        and result.head
        and "vanished between listing and reading" in result.head.detail
    )


# --- hostile instances (issue 16) -----------------------------------------------------------------
# Each test builds a real instance on disk (real FIFOs, symlinks, git clones, notifiers), runs the
# real CLI in a subprocess under a watchdog (`timeout=`: a hang fails the test) and checks the
# exit code, the line printed and the files left untouched.

NOW = "2026-05-31T06:00:00Z"


def _aeon(
    root: Path, *args: str, timeout: float = 60, **kwargs: Any
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "aeon_evals", "run", "--root", str(root), "--now", NOW, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        **kwargs,
    )


def _failing(root: Path) -> Path:
    """The small instance of test_bad_config with cost-report failing: a REGRESSED run that
    files an issue and notifies."""
    make_instance(root)
    data = json.loads((root / EVALS).read_text())
    data["skills"]["cost-report"]["min_words"] = 1000
    (root / EVALS).write_text(json.dumps(data))
    return root


def _script(path: Path, body: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)
    return path


def _files(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


def test_a_notifier_that_leaves_a_daemon_holding_its_pipe_does_not_hold_the_run(
    tmp_path: Path,
) -> None:
    root = _failing(tmp_path / "inst")
    _script(
        root / "notify",
        "setsid sh -c 'echo $$ > child.pid; exec sleep 45' &\n"
        'printf "%s" "$1" > delivered.txt\n'
        "exit 0\n",
    )
    try:
        proc = _aeon(root, "--no-site", "--notify-timeout", "3", timeout=30)
        # the child still sleeps, and the instance lock is free: it never inherited the lock
        again = _aeon(root, "--no-site", "--no-notify", "--lock-timeout", "0", timeout=30)
        assert (root / "child.pid").exists() and again.returncode == 0, again.stderr
    finally:
        with contextlib.suppress(FileNotFoundError, ValueError, ProcessLookupError):
            os.kill(int((root / "child.pid").read_text()), signal.SIGKILL)
    assert proc.returncode == 0, proc.stderr
    assert "notification: sent via" in proc.stdout  # it delivered: the ledger says so
    assert (root / "delivered.txt").read_text().startswith("*Skill Evals — SKILL_EVALS_REGRESSED*")


def test_a_notifier_printing_200_mb_costs_no_memory_and_its_last_line_is_kept(
    tmp_path: Path,
) -> None:
    root = _failing(tmp_path / "inst")
    _script(
        root / "notify",
        "head -c 100000000 /dev/zero\nhead -c 100000000 /dev/zero >&2\n"
        "printf '\\nquota exceeded\\n' >&2\n"
        "exit 1\n",
    )
    # The child's own peak: getrusage's ru_maxrss in a child started by fork and exec carries
    # the forking process's peak (pytest's, past 120 MB late in the suite); VmHWM is this
    # process image's alone.
    script = (
        "import json, resource, sys\n"
        "from aeon_evals.cli import main\n"
        "code = main(sys.argv[1:])\n"
        "try:\n"
        "    rss = next(int(l.split()[1]) for l in open('/proc/self/status') "
        "if l.startswith('VmHWM:'))\n"
        "except (OSError, StopIteration):\n"
        "    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "print(json.dumps({'code': code, 'rss_kb': rss}), file=sys.stderr)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script, "run", "--root", str(root), "--now", NOW, "--no-site"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    stats = json.loads(proc.stderr.strip().splitlines()[-1])
    assert stats["code"] == 0, proc.stderr
    assert "notifier" in proc.stdout and "failed (exit 1)" in proc.stdout
    assert "quota exceeded" not in proc.stdout  # its stderr may hold a token (issue 35.8)
    assert stats["rss_kb"] < 150 * 1024, f"peak memory {stats['rss_kb'] // 1024} MB"


def test_a_body_too_long_for_one_argument_is_cut_and_still_sent(tmp_path: Path) -> None:
    got = tmp_path / "got.txt"
    command = _script(tmp_path / "notify", f'printf "%s" "$1" > {got}\n')
    result = send(command, "*Skill Evals*\x00\n" + "x" * 300_000, cwd=tmp_path, timeout=20)
    assert result.sent, result.message
    body = got.read_text()
    assert body.startswith("*Skill Evals*\\x00\n") and "\x00" not in body
    assert len(body.encode()) <= MAX_BODY_BYTES
    assert body.endswith("more bytes; see the article)")


def test_control_characters_and_newlines_never_reach_the_article_log_or_ping(
    tmp_path: Path,
) -> None:
    root = make_instance(tmp_path / "inst")
    data = json.loads((root / EVALS).read_text())
    data["skills"]["cost-report"]["required_patterns"] = ["NOPE\n### heartbeat\nHEARTBEAT_OK"]
    (root / EVALS).write_text(json.dumps(data))
    (root / "memory/cron-state.json").write_text(
        json.dumps(
            {
                skill: {"last_status": "failed", "last_error": "boom\x00\x1b[31m"}
                for skill in ("heartbeat", "cost-report")
            }
        )
    )
    _script(root / "notify", 'printf "%s" "$1" >> pings.txt\n')
    for _ in range(2):  # a rerun the same day must not add a heading either
        proc = _aeon(root, "--no-site")
        assert proc.returncode == 0, proc.stderr
    article = (root / "articles/skill-evals-2026-05-31.md").read_text()
    log = (root / "memory/logs/2026-05-31.md").read_text()
    ping = (root / "pings.txt").read_text()
    for text in (article, log, ping, (root / "memory/issues/ISS-001.md").read_text()):
        assert not any(ch in text for ch in "\x00\x1b"), text
    assert "boom\\\\x00\\\\x1b[31m" in article  # shown escaped in its table cell
    assert [line for line in log.splitlines() if line.startswith("#")] == [
        "# 2026-05-31",
        "### skill-evals",
    ]
    assert "missing_pattern:NOPE\\n### heartbeat\\nHEARTBEAT_OK" in log
    # next week the article is an article, not "binary": no false fallback two weeks back
    later = _aeon(root, "--no-site", "--no-notify", "--json", "--now", "2026-06-07T06:00:00Z")
    assert json.loads(later.stdout)["prior_article"] == "articles/skill-evals-2026-05-31.md"


def _git(cwd: Path, *args: str, when: str | None = None) -> None:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.org",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.org",
    }
    if when:
        env |= {"GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when}
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)


def _undated_repo(src: Path, skills: int = 1) -> None:
    """An instance in git whose undated outputs were last committed 424 days before NOW, and a
    commit 1.25 days before NOW touching something else."""
    make_instance(src)
    data = json.loads((src / EVALS).read_text())
    lines = (src / "aeon.yml").read_text()
    for n in range(skills):
        data["skills"][f"notes-{n}"] = {"output_pattern": f"memory/topics/notes-{n}.md"}
        lines += f'  notes-{n}: {{ enabled: true, schedule: "0 6 * * 1" }}\n'
        (src / f"memory/topics/notes-{n}.md").parent.mkdir(parents=True, exist_ok=True)
        (src / f"memory/topics/notes-{n}.md").write_text("notes written long ago\n")
    (src / EVALS).write_text(json.dumps(data))
    (src / "aeon.yml").write_text(lines)
    _git(src, "init", "-q")
    _git(src, "add", "-A")
    _git(src, "commit", "-qm", "old", when="2025-03-02T12:00:00Z")
    (src / "README.md").write_text("later\n")
    _git(src, "add", "-A")
    _git(src, "commit", "-qm", "later", when="2026-05-30T00:00:00Z")


def test_a_shallow_clone_says_so_and_never_makes_up_ages(tmp_path: Path) -> None:
    src = tmp_path / "src"
    _undated_repo(src)
    full, shallow = tmp_path / "full", tmp_path / "shallow"
    _git(tmp_path, "clone", "-q", str(src), str(full))
    _git(tmp_path, "clone", "-q", "--depth", "1", f"file://{src}", str(shallow))

    rows = {}
    for name, clone in (("full", full), ("shallow", shallow)):
        proc = _aeon(clone, "--no-site", "--no-notify", "--json")
        assert proc.returncode == 0, proc.stderr
        rows[name] = next(r for r in json.loads(proc.stdout)["skills"] if r["skill"] == "notes-0")
    assert rows["full"]["output"]["age_source"] == "git"
    assert rows["full"]["output"]["age_days"] == pytest.approx(454.75, abs=0.01)
    assert [c["code"] for c in rows["full"]["root_causes"]] == ["stale_file"]
    assert rows["shallow"]["output"]["age_source"] == "unknown (shallow clone)"
    assert rows["shallow"]["output"]["age_days"] is None  # not the 1.25 days of the clone's commit
    assert "stale_file" not in [c["code"] for c in rows["shallow"]["root_causes"]]
    sources = (shallow / "articles/skill-evals-2026-05-31.md").read_text().split("## Sources")[1]
    assert "history is shallow: ages of undated outputs are unknown" in sources


def test_one_git_walk_for_every_undated_output(tmp_path: Path) -> None:
    root = tmp_path / "inst"
    _undated_repo(root, skills=30)
    real = shutil.which("git")
    assert real is not None
    calls = tmp_path / "git-calls.txt"
    _script(tmp_path / "bin/git", f'echo "$*" >> {calls}\nexec {real} "$@"\n')
    env = {**os.environ, "PATH": f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}"}
    proc = _aeon(root, "--no-site", "--no-notify", "--json", env=env)
    assert proc.returncode == 0, proc.stderr
    rows = [r for r in json.loads(proc.stdout)["skills"] if r["skill"].startswith("notes-")]
    assert len(rows) == 30 and {r["output"]["age_source"] for r in rows} == {"git"}
    logs = [line for line in calls.read_text().splitlines() if " log " in f" {line} "]
    assert len([line for line in logs if "--name-only" in line and "@" not in line]) == 1, logs
    assert not [line for line in logs if " -1 " in f" {line} "], logs


def test_new_files_get_the_permissions_the_umask_gives(tmp_path: Path) -> None:
    root = make_instance(tmp_path / "inst")
    proc = _aeon(root, "--no-notify", preexec_fn=lambda: os.umask(0o002))
    assert proc.returncode == 0, proc.stderr
    for rel in (
        "articles/skill-evals-2026-05-31.md",
        "memory/logs/2026-05-31.md",
        "site/index.html",
    ):
        assert stat.S_IMODE((root / rel).stat().st_mode) == 0o664, rel


def _in_mount_namespace(script: str, root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run `script` (sh, with $ROOT set) then the CLI in a private mount namespace: the mounts
    vanish with the process, nothing is left mounted on the machine."""
    if shutil.which("unshare") is None:
        pytest.skip("unshare (util-linux) is not installed")
    probe = subprocess.run(["unshare", "-m", "true"], capture_output=True, check=False)
    if probe.returncode != 0:
        pytest.skip(f"no mount namespace here: {probe.stderr.decode().strip()}")
    command = " ".join(
        [sys.executable, "-m", "aeon_evals", "run", "--root", '"$ROOT"', "--now", NOW, *args]
    )
    return subprocess.run(
        ["unshare", "-m", "sh", "-ec", f"{script}\nexec {command}"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "ROOT": str(root)},
    )


def test_a_read_only_articles_folder_stops_the_run_before_any_issue_is_filed(
    tmp_path: Path,
) -> None:
    root = _failing(tmp_path / "inst")
    before = _files(root)
    proc = _in_mount_namespace(
        'mount --bind "$ROOT/articles" "$ROOT/articles"\nmount -o remount,bind,ro "$ROOT/articles"',
        root,
        "--no-notify",
    )
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip().splitlines() == [
        "aeon-evals: articles/skill-evals-2026-05-31.md: cannot write: read-only file system"
    ]
    assert _files(root) == before  # no ISS-001, INDEX.md, log or cache


def _ledger(stdout: str, name: str) -> str:
    return next(line for line in stdout.splitlines() if line.startswith(f"{name}: "))


def test_read_only_site_skills_says_what_was_written_and_names_the_real_page(
    tmp_path: Path,
) -> None:
    """Regression: with site/skills read-only the ledger said "site: not written" though
    index.html was written, and the message named the temporary file (`.x.html.123.tmp`)."""
    root = _failing(tmp_path / "inst")
    assert _aeon(root, "--no-notify").returncode == 0
    pages = sorted(p.name for p in (root / "site" / "skills").glob("*.html"))
    assert pages
    for page in (root / "site" / "skills").glob("*.html"):
        page.unlink()
    (root / "site" / "index.html").unlink()
    proc = _in_mount_namespace(
        'mount --bind "$ROOT/site/skills" "$ROOT/site/skills"\n'
        'mount -o remount,bind,ro "$ROOT/site/skills"',
        root,
        "--no-notify",
    )
    assert proc.returncode == 0, proc.stderr
    assert (root / "site" / "index.html").is_file()  # written, and the ledger says so
    site = _ledger(proc.stdout, "site")
    assert site.startswith("site: site/index.html (1 written, ")
    assert site.endswith("; not written: skill pages and badges)")
    warning = next(line for line in proc.stderr.splitlines() if line.startswith("warning: site:"))
    page = warning.split(": ")[2]
    assert page.startswith("site/skills/") and page.removeprefix("site/skills/") in pages
    assert warning == (
        f"warning: site: {page}: cannot write: read-only file system; "
        "skill pages and badges not written"
    )
    assert ".tmp" not in proc.stdout + proc.stderr


def test_read_only_site_folder_names_index_html_not_its_temporary_file(tmp_path: Path) -> None:
    """Regression: a read-only site/ was reported as `OSError: … site/.index.html.x.tmp`."""
    root = _failing(tmp_path / "inst")
    assert _aeon(root, "--no-notify").returncode == 0
    (root / "site" / "index.html").unlink()
    proc = _in_mount_namespace(
        'mount --bind "$ROOT/site" "$ROOT/site"\nmount -o remount,bind,ro "$ROOT/site"',
        root,
        "--no-notify",
    )
    assert proc.returncode == 0, proc.stderr
    line = "site/index.html: cannot write: read-only file system"
    assert _ledger(proc.stdout, "site") == f"site: not written: {line}"
    assert f"warning: site: {line}" in proc.stderr.splitlines()
    assert ".tmp" not in proc.stdout + proc.stderr


def test_a_full_disk_stops_the_run_before_any_issue_is_filed(tmp_path: Path) -> None:
    root = _failing(tmp_path / "inst")
    before = _files(root)
    proc = _in_mount_namespace(
        'cp -a "$ROOT/articles" "$ROOT/../saved"\n'
        'mount -t tmpfs -o size=64k tmpfs "$ROOT/articles"\n'
        'cp -a "$ROOT/../saved/." "$ROOT/articles/"\n'
        'dd if=/dev/zero of="$ROOT/articles/.filler" bs=4k 2>/dev/null || true',
        root,
        "--no-notify",
    )
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip().splitlines() == [
        "aeon-evals: articles/skill-evals-2026-05-31.md: cannot write: no space left on the device"
    ]
    assert _files(root) == before


def test_the_site_and_the_starter_spec_are_never_written_through_a_symlink_out(
    tmp_path: Path,
) -> None:
    root = make_instance(tmp_path / "inst")
    outside = tmp_path / "outside-runs"
    outside.mkdir()
    (outside / "skill-evals-2020-01-01.html").write_text("someone else's page\n")
    (root / "site").mkdir()
    (root / "site/runs").symlink_to("../../outside-runs")
    proc = _aeon(root, "--no-notify")
    assert proc.returncode == 0, proc.stderr
    assert (
        "site: not written: site/runs/index.html: leads outside the root through the symlink "
        "site/runs -> ../../outside-runs; not written" in proc.stdout
    )
    assert [p.name for p in outside.iterdir()] == ["skill-evals-2020-01-01.html"]

    bare = tmp_path / "bare"
    (bare / "skills").mkdir(parents=True)
    (bare / "aeon.yml").write_text("skills:\n  x: { enabled: true }\n")
    elsewhere = tmp_path / "elsewhere-evals"
    elsewhere.mkdir()
    (bare / "skills/skill-evals").symlink_to("../../elsewhere-evals")
    proc = _aeon(bare, "--no-notify")
    assert proc.returncode == 2
    assert (
        "leads outside the root through the symlink skills/skill-evals -> ../../elsewhere-evals"
        in proc.stderr
    )
    assert list(elsewhere.iterdir()) == []


def test_a_notifier_symlinked_outside_the_root_is_not_run(tmp_path: Path) -> None:
    root = _failing(tmp_path / "inst")
    _script(tmp_path / "outside-notify", f"touch {tmp_path / 'ran'}\n")
    (root / "notify").symlink_to("../outside-notify")
    proc = _aeon(root, "--no-site")
    assert proc.returncode == 0, proc.stderr
    assert not (tmp_path / "ran").exists()
    assert (
        "notification: not sent: notify: is a symlink to ../outside-notify, outside the root; not "
        "run" in proc.stdout
    )


def test_an_article_symlinked_outside_is_never_published(tmp_path: Path) -> None:
    root = make_instance(tmp_path / "inst")
    secret = tmp_path / "elsewhere/skill-evals-2026-05-24.md"
    secret.parent.mkdir()
    secret.write_text(
        "# Skill Evals\n\n## Full Results\n| Skill | Status |\n|---|---|\n| secret-skill | PASS |\n"
    )
    (root / "articles/skill-evals-2026-05-24.md").symlink_to(
        "../../elsewhere/skill-evals-2026-05-24.md"
    )
    proc = _aeon(root, "--no-notify")
    assert proc.returncode == 0, proc.stderr
    assert not (root / "site/runs/skill-evals-2026-05-24.html").exists()
    for path in [*(root / "site").rglob("*"), *(root / ".aeon-evals").rglob("*")]:
        if path.is_file():
            assert b"secret-skill" not in path.read_bytes(), path


def test_a_future_dated_article_is_not_the_newest_run_on_the_dashboard(tmp_path: Path) -> None:
    root = make_instance(tmp_path / "inst")
    assert _aeon(root, "--no-notify").returncode == 0
    shutil.copy(
        root / "articles/skill-evals-2026-05-31.md", root / "articles/skill-evals-2027-01-01.md"
    )
    proc = _aeon(root, "--no-notify", "--now", "2026-06-07T06:00:00Z")
    assert proc.returncode == 0, proc.stderr
    assert not (root / "site/runs/skill-evals-2027-01-01.html").exists()
    index = (root / "site/index.html").read_text()
    assert "runs/skill-evals-2027-01-01.html" not in index
    assert "runs/skill-evals-2026-05-31.html" in index


def test_the_daily_log_keeps_other_skills_bytes(tmp_path: Path) -> None:
    root = make_instance(tmp_path / "inst")
    theirs = b"# 2026-05-31\r\n\r\n### digest\r\ncaf\xe9 na\xefve\r\n"
    (root / "memory/logs/2026-05-31.md").write_bytes(theirs)
    assert _aeon(root, "--no-notify", "--no-site").returncode == 0
    first = (root / "memory/logs/2026-05-31.md").read_bytes()
    assert first.startswith(theirs + b"\n### skill-evals\n")
    # a skill appends after our section; the rerun replaces only our section's bytes
    late = b"\n### late\r\n\xff\xfe\r\n"
    (root / "memory/logs/2026-05-31.md").write_bytes(first + late)
    assert _aeon(root, "--no-notify", "--no-site").returncode == 0
    assert (root / "memory/logs/2026-05-31.md").read_bytes() == first + late


def test_a_wildcard_folder_part_never_reads_a_file_outside(instance: Instance, cli: Cli) -> None:
    inst = instance
    inst.aeon_yml({"hosts": (True, "0 7 * * *")})
    inst.evals(
        {
            "hosts": {
                "output_pattern": "reports/*/etc/host*",
                "numeric_checks": [
                    {"label": "n", "pattern": r"(\d+)\.0\.0\.1", "min": 0, "max": 1}
                ],
            }
        }
    )
    outside = inst.root.parent / "rootfs/etc"
    outside.mkdir(parents=True)
    (outside / "hosts").write_text("127.0.0.1 localhost secret-host\n")
    (inst.root / "reports").mkdir()
    (inst.root / "reports/rootfs").symlink_to("../../rootfs")
    code, out, err = cli(
        "run", "--root", str(inst.root), "--now", NOW, "--json", "--no-site", "--no-notify"
    )
    assert code == 0, err
    row = json.loads(out)["skills"][0]
    assert row["status"] == "NO_OUTPUT" and row["output"] is None
    assert (  # the folder behind the link is not searched at all (issue 35.8)
        "reports/rootfs is a symlink leading outside the root (-> ../../rootfs)"
        in row["root_causes"][0]["detail"]
    )
    assert (
        "secret-host" not in out
        and "127" not in (inst.root / "articles/skill-evals-2026-05-31.md").read_text()
    )


def test_a_cached_body_is_published_only_when_it_matches_its_source(tmp_path: Path) -> None:
    root = make_instance(tmp_path / "inst")
    assert _aeon(root, "--no-notify").returncode == 0
    (root / "site/runs/skill-evals-2026-05-31.html").unlink()  # rendered again, from the cache
    bodies = list((root / ".aeon-evals/cache").rglob("bodies/*.html"))
    assert len(bodies) == 1
    head, _, html = bodies[0].read_text().partition("\n")
    bodies[0].write_text(f"{head}\n{html.replace('Full Results', 'Planted text')}")
    assert _aeon(root, "--no-notify").returncode == 0
    page = (root / "site/runs/skill-evals-2026-05-31.html").read_text()
    assert "Planted text" not in page and "Full Results" in page


def test_validate_warns_about_a_wildcard_folder_part_leading_out(
    instance: Instance, cli: Cli
) -> None:
    inst = instance
    inst.aeon_yml({"hosts": (True, "0 7 * * *")})
    inst.evals({"hosts": {"output_pattern": "reports/*/etc/host*"}})
    (inst.root.parent / "rootfs/etc").mkdir(parents=True)
    (inst.root.parent / "rootfs/etc/hosts").write_text("127.0.0.1 localhost\n")
    (inst.root / "reports").mkdir()
    (inst.root / "reports/rootfs").symlink_to("../../rootfs")
    code, out, err = cli("validate", "--root", str(inst.root))
    assert code == 0, err  # a warning: the run goes on without that file
    assert (
        "skills.hosts.output_pattern: reports/rootfs is a symlink leading outside the root "
        "(-> ../../rootfs); the run will not read it"
    ) in out + err

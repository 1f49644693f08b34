"""Faults and hostile input never lose data or hang the nightly job."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import frontmatter
import yaml
from conftest import Instance
from test_cli_run import WEEK1, WEEK2, fleet

from aeon_evals.history import read_article
from aeon_evals.issues import read_issues

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
        changed = {k for k in inst.snapshot() if before.get(k) != inst.snapshot()[k]}
        assert (
            len(changed) <= crash + 1
        )  # only whole files, one per completed write (+ the lock-free log)
        # the next run repairs and completes: the issue is filed once, the index agrees
        assert _run_process(inst.root, WEEK2, None, "--no-notify").returncode == 0
        _consistent(inst.root)
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
    assert "log: not written: log memory/logs/2026-05-17.md leads outside the root" in out


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
    script = (
        "import json, resource, sys\n"
        "from aeon_evals.cli import main\n"
        "code = main(sys.argv[1:])\n"
        "print(json.dumps({'code': code, 'rss_kb': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}), file=sys.stderr)\n"
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

    from aeon_evals.checks import Context, evaluate
    from aeon_evals.model import Registration, Spec
    from aeon_evals.outputs import Outputs

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

"""Everything a run writes that is kept reaches the remote (#33), on both layouts: the article and
its metrics file (the drift history), the issues and INDEX.md, the day's log and the dashboard
card. The workflow's push script and the README's cron line, exactly as written, each run for
real: real git, a local bare remote, two real Aeon instances, no mocks. Afterwards `git status`
is clean but for site/, the dashboard every run rebuilds (uploaded as an artifact, never
committed)."""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from realdata import realdata

from aeon_evals import cli

PROJECT = Path(__file__).resolve().parents[1]
README = PROJECT / "README.md"


@dataclass(frozen=True)
class Layout:
    instance: str  # under realdata/instances/
    articles: str
    feed: str  # Aeon's dashboard feed folder
    day: str  # a day after the snapshot: a run then has failures to file


LAYOUTS = {
    # old: outputs in articles/, the feed in dashboard/outputs/, an evals.json, ISS-001…003
    # (on 07-14 its daily skills have been silent since the snapshot: one fleet issue)
    "articles": Layout("Da6hkin__aeon@2026-07-11", "articles", "dashboard/outputs", "2026-07-14"),
    # new (upstream since July 2026): output/articles/, apps/dashboard/outputs/, no evals.json
    "output/articles": Layout(
        "aaronjmars__miroshark-aeon@2026-08-22",
        "output/articles",
        "apps/dashboard/outputs",
        "2026-08-25",  # aeon-update, enabled on 08-18, missed its first slot (08-24 11:00)
    ),
}
GIT_ENV = {
    "GIT_AUTHOR_NAME": "bot",
    "GIT_AUTHOR_EMAIL": "bot@x",
    "GIT_COMMITTER_NAME": "bot",
    "GIT_COMMITTER_EMAIL": "bot@x",
    "GIT_CONFIG_GLOBAL": os.devnull,  # the machine's git config plays no part
    "GIT_CONFIG_NOSYSTEM": "1",
}
AEON_EVALS = (sys.executable, "-m", "aeon_evals")


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args],
        cwd=cwd,
        env={**os.environ, **GIT_ENV},
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def writable_copy(src: Path, dest: Path) -> Path:
    """A copy of a real instance that a run may write into (realdata is read-only)."""
    shutil.copytree(src, dest)
    for path in [dest, *dest.rglob("*")]:
        path.chmod(path.stat().st_mode | stat.S_IWUSR)
    return dest


def checkout(tmp_path: Path, layout: Layout) -> tuple[Path, Path]:
    """A bare remote holding the real instance set up by `init` (workflow, scripts, and a starter
    evals.json where it had none), and the runner's clone of it."""
    if shutil.which("git") is None:
        pytest.skip("git not installed")
    seed = writable_copy(realdata() / "instances" / layout.instance, tmp_path / "seed")
    assert cli.main(["init", "--root", str(seed), "--package", "aeon-evals"]) == 0
    git(seed, "init", "-q", "-b", "main")
    git(seed, "add", "-A")
    git(seed, "commit", "-q", "-m", "instance")
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    git(seed, "push", "-q", str(remote), "HEAD:refs/heads/main")
    runner = tmp_path / "runner"
    git(tmp_path, "clone", "-q", str(remote), str(runner))
    return remote, runner


def evaluate(runner: Path, now: str) -> dict[str, object]:
    """The workflow's Evaluate step (with --json, to know what the run says it wrote)."""
    done = subprocess.run(
        [*AEON_EVALS, "run", "--now", now, "--no-notify", "--json"],
        cwd=runner,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout)
    return result


def push_results(runner: Path, now: str) -> subprocess.CompletedProcess[str]:
    """The workflow's commit-and-push step, as it calls the script `init` wrote."""
    env = {
        **os.environ,
        **GIT_ENV,
        "BRANCH": "main",
        "VERDICT": "SKILL_EVALS_REGRESSED",
        "AEON_EVALS_PUSH_PAUSE": "0",
    }
    return subprocess.run(
        ["bash", ".github/skill-evals/push-results.sh", "--", *AEON_EVALS, "run", "--now", now],
        cwd=runner,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


def left_behind(runner: Path) -> list[str]:
    """`git status` of the runner's clone, site/ aside."""
    status = git(runner, "status", "--porcelain", "--untracked-files=all")
    return [line for line in status.splitlines() if not line[3:].startswith("site/")]


def pushed(runner: Path, remote: Path) -> set[str]:
    """The files the remote's newest commit changed; the runner's HEAD is that commit."""
    head = git(runner, "rev-parse", "HEAD").strip()
    assert git(runner, "ls-remote", str(remote), "refs/heads/main").split()[0] == head
    return set(git(runner, "show", "--name-only", "--format=", head).split())


def cards(root: Path, layout: Layout, day: str) -> list[str]:
    return sorted(p.name for p in (root / layout.feed).glob(f"skill-evals-{day}T*.json"))


@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_the_push_script_commits_every_kept_file_and_leaves_a_clean_tree(
    name: str, tmp_path: Path
) -> None:
    """Issue 33: push-results.sh staged `skill-evals-*.md` only, so the metrics TSV, the drift
    history docs/metrics.md calls committed data, was lost with every runner."""
    layout = LAYOUTS[name]
    remote, runner = checkout(tmp_path, layout)
    now = f"{layout.day}T06:00:00Z"
    result = evaluate(runner, now)
    artifacts = result["artifacts"]
    assert isinstance(artifacts, dict)
    article = f"{layout.articles}/skill-evals-{layout.day}.md"
    card = f"{layout.feed}/skill-evals-{layout.day}T06-00-00Z.json"
    assert (artifacts["article"], artifacts["dashboard_card"]) == (article, card)
    issues = result["issues"]
    assert isinstance(issues, dict)
    filed = {issue["path"] for issue in issues["filed"]}
    assert filed, "the day after the snapshot files an issue on both instances"

    done = push_results(runner, now)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "pushed to main (attempt 1)" in done.stdout
    assert pushed(runner, remote) == {
        article,
        f"{layout.articles}/skill-evals-metrics-{layout.day}.tsv",
        card,
        f"memory/logs/{layout.day}.md",
        "memory/issues/INDEX.md",
        *filed,
    }
    assert left_behind(runner) == []


@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_a_rerun_the_same_day_with_the_same_result_adds_no_second_card(
    name: str, tmp_path: Path
) -> None:
    """Issue 33: two runs on the same day wrote two identical dashboard cards."""
    layout = LAYOUTS[name]
    remote, runner = checkout(tmp_path, layout)
    heads = []
    for now in (f"{layout.day}T06:00:00Z", f"{layout.day}T06:10:00Z"):
        result = evaluate(runner, now)
        done = push_results(runner, now)
        assert done.returncode == 0, done.stdout + done.stderr
        assert left_behind(runner) == []
        heads.append(git(runner, "rev-parse", "HEAD").strip())
    artifacts = result["artifacts"]
    assert isinstance(artifacts, dict)
    first = f"skill-evals-{layout.day}T06-00-00Z.json"
    assert artifacts["dashboard_card"] == f"{layout.feed}/{first} (unchanged)"
    # what else the rerun changed (an output's age in the article, say) went out without a card
    rerun = git(runner, "diff", "--name-only", heads[0], heads[1]).split()
    assert not [f for f in rerun if f.startswith(layout.feed)]
    assert cards(runner, layout, layout.day) == [first]
    tree = git(remote, "ls-tree", "-r", "--name-only", "main", layout.feed)
    assert [p for p in tree.split() if f"skill-evals-{layout.day}T" in p] == [
        f"{layout.feed}/{first}"
    ]


# --- the README's cron line, as written -----------------------------------------------------------


def readme_cron_line() -> str:
    """The crontab line of the README's Scheduling section (its one ```cron block)."""
    blocks = re.findall(r"^```cron\n(.*?)^```", README.read_text(encoding="utf-8"), re.M | re.S)
    assert len(blocks) == 1, blocks
    lines = [line for line in blocks[0].splitlines() if line.strip()]
    assert len(lines) == 1, lines
    return lines[0]


def test_the_readme_cron_line_is_one_crontab_entry() -> None:
    line = readme_cron_line()
    fields = line.split(maxsplit=5)
    assert len(fields) == 6 and all(re.fullmatch(r"[\d*/,-]+", f) for f in fields[:5])
    # cron turns an unescaped % into a newline: the command would be cut there
    assert "%" not in fields[5]
    assert "git add -A articles" not in line  # the form that fails on the newer layout


@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_the_readme_cron_line_commits_every_kept_file_on_both_layouts(
    name: str, tmp_path: Path
) -> None:
    """Issue 33: `git add -A articles memory` stopped at `fatal: pathspec 'articles' did not match
    any files` on the newer layout, and the `&&` chain committed nothing."""
    layout = LAYOUTS[name]
    executable = Path(sys.executable).with_name("aeon-evals")
    if not executable.is_file():
        pytest.skip(f"no aeon-evals executable beside {sys.executable}")
    remote, runner = checkout(tmp_path, layout)
    log = tmp_path / "aeon-evals.log"
    command = readme_cron_line().split(maxsplit=5)[5]
    for placeholder, value in {
        "/srv/venv/bin/aeon-evals": str(executable),
        "/srv/aeon": str(runner),
        "/var/log/aeon-evals.log": str(log),
    }.items():
        assert placeholder in command
        command = command.replace(placeholder, value)
    # cron runs the line with /bin/sh, in a bare environment
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "LANG": "C.UTF-8", **GIT_ENV}
    done = subprocess.run(
        ["/bin/sh", "-c", command],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr + log.read_text(encoding="utf-8")
    assert "fatal" not in done.stderr
    files = pushed(runner, remote)
    # the run used the real clock: its day is the one in the article's name
    articles = [f for f in files if re.fullmatch(rf"{layout.articles}/skill-evals-[\d-]+\.md", f)]
    assert len(articles) == 1, sorted(files)
    day = articles[0].rsplit("-", 3)[-3:]
    day_text = "-".join(day).removesuffix(".md")
    assert {
        f"{layout.articles}/skill-evals-metrics-{day_text}.tsv",
        f"memory/logs/{day_text}.md",
        "memory/issues/INDEX.md",
    } <= files
    assert [f for f in files if f.startswith(f"{layout.feed}/skill-evals-{day_text}T")]
    assert [f for f in files if re.fullmatch(r"memory/issues/ISS-\d+\.md", f)]
    assert not [f for f in files if f.startswith("site/")]
    assert left_behind(runner) == []

"""The pre-commit hooks (.pre-commit-hooks.yaml), run by pre-commit itself with `try-repo` against a
temporary Aeon repository: each hook fails on a broken file, naming `file:line`, and passes once
it is fixed. pre-commit installs the hooks from a snapshot of this checkout into its own
virtualenv, as it would from the published repository."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

PROJECT = Path(__file__).resolve().parents[1]
EVALS = "skills/skill-evals/evals.json"


def _git(cwd: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    done = subprocess.run(
        ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True
    )
    return done.stdout


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This checkout's files (tracked and untracked, not ignored) committed to a fresh repository,
    so the hooks are installed from exactly the code under test."""
    if not (PROJECT / ".git").exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{PROJECT} is not a git checkout; the pre-commit hooks cannot be tried")
        pytest.skip(f"{PROJECT} is not a git checkout")
    repo = tmp_path_factory.mktemp("hook-repo")
    listed = _git(PROJECT, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    for name in filter(None, listed.split("\0")):
        source = PROJECT / name
        if source.is_file():
            (repo / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, repo / name)
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "snapshot")
    return repo


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("pre-commit-home")


@pytest.fixture
def aeon_repo(tmp_path: Path) -> Path:
    """A git repository holding the bundled demo instance's skills and registry."""
    repo = tmp_path / "aeon"
    shutil.copytree(PROJECT / "skills", repo / "skills")
    shutil.copy2(PROJECT / "aeon.yml", repo / "aeon.yml")
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "init")
    return repo


def _try(hook_repo: Path, home: Path, aeon: Path, hook: str) -> tuple[int, str]:
    """`pre-commit try-repo HOOK_REPO HOOK --all-files --verbose` in the Aeon repository (verbose:
    a passing hook's output is shown too)."""
    argv = ["try-repo", str(hook_repo), hook, "--all-files", "--verbose"]
    done = subprocess.run(
        [sys.executable, "-m", "pre_commit", *argv],
        cwd=aeon,
        env={**os.environ, "PRE_COMMIT_HOME": str(home), "PRE_COMMIT_COLOR": "never"},
        capture_output=True,
        text=True,
        timeout=600,
    )
    return done.returncode, done.stdout + done.stderr


def test_the_hooks_file_declares_both_hooks_on_the_files_they_check() -> None:
    hooks = {h["id"]: h for h in yaml.safe_load((PROJECT / ".pre-commit-hooks.yaml").read_text())}
    assert set(hooks) == {"aeon-evals-validate", "aeon-evals-lint"}
    assert hooks["aeon-evals-validate"]["pass_filenames"] is False
    assert hooks["aeon-evals-lint"]["entry"] == "aeon-evals lint"


def test_validate_hook_fails_on_a_broken_evals_json_and_passes_once_fixed(
    hook_repo: Path, pre_commit_home: Path, aeon_repo: Path
) -> None:
    evals = aeon_repo / EVALS
    good = evals.read_text(encoding="utf-8")
    evals.write_text(good.replace('"min_words": 20,', '"min_words": -5,', 1), encoding="utf-8")
    code, out = _try(hook_repo, pre_commit_home, aeon_repo, "aeon-evals-validate")
    assert code == 1, out
    assert f"{EVALS}:8: error: skills.heartbeat.min_words: must be 0 or more, got -5" in out
    assert "- exit code: 2" in out
    evals.write_text(good, encoding="utf-8")
    code, out = _try(hook_repo, pre_commit_home, aeon_repo, "aeon-evals-validate")
    assert code == 0, out  # a warning alone does not fail the commit
    assert "aeon.yml:20: warning: the LLM-run skill-evals skill is still enabled" in out


def test_lint_hook_fails_on_a_broken_skill_md_and_passes_once_fixed(
    hook_repo: Path, pre_commit_home: Path, aeon_repo: Path
) -> None:
    skill = aeon_repo / "skills/heartbeat/SKILL.md"
    good = skill.read_text(encoding="utf-8")
    skill.write_text("---\nname: heartbeat\n---\nSave to memory/logs/${today}.md\n", "utf-8")
    code, out = _try(hook_repo, pre_commit_home, aeon_repo, "aeon-evals-lint")
    assert code == 1, out
    assert "skills/heartbeat/SKILL.md:1: error: no description" in out
    skill.write_text(good, encoding="utf-8")
    code, out = _try(hook_repo, pre_commit_home, aeon_repo, "aeon-evals-lint")
    assert code == 0, out

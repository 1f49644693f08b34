"""The pre-commit hooks (.pre-commit-hooks.yaml), run by pre-commit itself with `try-repo` against a
temporary Aeon repository: each hook fails on a broken file, naming `file:line`, and passes once
it is fixed. pre-commit installs the hooks from a snapshot of this checkout into its own
virtualenv, as it would from the published repository."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

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
    assert "skills/heartbeat/SKILL.md:1: AE108 error: no description" in out
    skill.write_text(good, encoding="utf-8")
    code, out = _try(hook_repo, pre_commit_home, aeon_repo, "aeon-evals-lint")
    assert code == 0, out


# --- the snippet the README gives an Aeon repository -------------------------------------------


def _readme_snippet() -> tuple[str, dict[str, Any]]:
    """The README's pre-commit section, and the .pre-commit-config.yaml it gives."""
    text = (PROJECT / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## pre-commit hooks\n", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```yaml\n(.*?)```", section, re.S)
    assert block is not None
    config = yaml.safe_load(block.group(1))
    assert isinstance(config, dict)
    return section, config


def test_the_snippets_name_a_rev_that_exists_or_say_to_pin_one() -> None:
    """Issue 33: the README and .pre-commit-hooks.yaml said `rev: v0.1.0`, a tag that does not
    exist: pre-commit stopped at it in every repository that copied the snippet."""
    section, config = _readme_snippet()
    hooks_file = (PROJECT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    commented = re.search(r"^#\s+rev:\s*(\S+)", hooks_file, re.M)
    assert commented is not None
    tags = set(_git(PROJECT, "tag", "--list").split()) if (PROJECT / ".git").exists() else set()
    for rev in (config["repos"][0]["rev"], commented.group(1)):
        if rev in tags:
            continue
        assert not re.fullmatch(r"v?\d+(\.\d+)*", str(rev)), f"rev {rev}: no such tag"
        assert rev == "COMMIT", rev  # a placeholder, and the text says how to fill it
    assert "pre-commit autoupdate" in section and "no release is tagged yet" in section


def test_autoupdate_turns_the_readme_snippet_into_a_pin_that_runs(
    hook_repo: Path, pre_commit_home: Path, aeon_repo: Path
) -> None:
    """The README's instructions, followed: the snippet (pointing at this checkout's snapshot),
    `pre-commit autoupdate`, then both hooks run on the Aeon repository."""
    _section, config = _readme_snippet()
    config["repos"][0]["repo"] = str(hook_repo)
    (aeon_repo / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    env = {**os.environ, "PRE_COMMIT_HOME": str(pre_commit_home), "PRE_COMMIT_COLOR": "never"}
    for argv in (["autoupdate"], ["run", "--all-files"]):
        done = subprocess.run(
            [sys.executable, "-m", "pre_commit", *argv],
            cwd=aeon_repo,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        if argv == ["autoupdate"]:
            pinned = yaml.safe_load((aeon_repo / ".pre-commit-config.yaml").read_text("utf-8"))
            # no tag in the snapshot: the newest commit, a rev that exists
            assert pinned["repos"][0]["rev"] == _git(hook_repo, "rev-parse", "HEAD").strip()
    assert "aeon-evals validate" in done.stdout and "aeon-evals lint" in done.stdout

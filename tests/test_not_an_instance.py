"""Issue 33 point 4: a missing or unreadable skill registry is an error (exit 2, one line naming
what was looked for), never an OK verdict; the same for every command on a folder that is not
an Aeon instance, which is left as it was."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from realdata import AEONFUN, AEONFUN_NOW, MIROSHARK, whole_instance

Cli = Callable[..., tuple[int, str, str]]

LOOKED_FOR = (
    "(looked for aeon.yml, then a *.yml or *.yaml with a top-level skills: block, in {root})"
)
NOT_AN_INSTANCE = "not an Aeon instance (check --root, or pass --config FILE)"


def not_found(root: Path) -> str:
    return f"aeon-evals: aeon.yml: not found {LOOKED_FOR.format(root=root)}: {NOT_AN_INSTANCE}\n"


def _files(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".aeon-evals" not in p.parts
    }


def _folders(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_dir()}


def test_aeonfun_without_aeon_yml_is_an_error_not_an_ok_verdict(tmp_path: Path) -> None:
    """The bug: aeonfun with aeon.yml removed gave `Verdict: SKILL_EVALS_OK`, "Coverage: 0/0",
    exit 0, and only a `warning:` line said why (seven failing skills vanished as
    unregistered). A real process, as cron runs it."""
    root = whole_instance(AEONFUN, tmp_path / "aeonfun")
    (root / "aeon.yml").unlink()
    before = _files(root)
    done = subprocess.run(
        [sys.executable, "-m", "aeon_evals", "run", "--root", str(root), "--now", AEONFUN_NOW],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PYTHONUTF8": "1"},
        cwd=tmp_path,
    )
    assert (done.returncode, done.stdout, done.stderr) == (2, "", not_found(root))
    assert "SKILL_EVALS_OK" not in done.stdout + done.stderr
    assert _files(root) == before  # no article, no issue, no log section, no site


@pytest.mark.parametrize("command", ["run", "site", "audit", "contracts", "lint", "init"])
def test_every_command_refuses_an_instance_without_its_registry(
    command: str, tmp_path: Path, cli: Cli
) -> None:
    """A copy of miroshark (the new layout) without aeon.yml: each command stops with the same
    line, exit 2, and writes nothing (no site/, no cache, no evals.json, no workflow)."""
    root = whole_instance(MIROSHARK, tmp_path / "miroshark")
    (root / "aeon.yml").unlink()
    files, folders = _files(root), _folders(root)
    code, out, err = cli(command, "--root", str(root))
    assert (code, out, err) == (2, "", not_found(root))
    assert (_files(root), _folders(root)) == (files, folders)


@pytest.mark.parametrize(
    "command", ["run", "site", "audit", "contracts", "lint", "validate", "init"]
)
def test_a_root_that_does_not_exist_is_one_line_and_nothing_is_created(
    command: str, tmp_path: Path, cli: Cli
) -> None:
    """`aeon-evals site --root /does/not/exist` exited 0 and created site/ there."""
    root = tmp_path / "does" / "not" / "exist"
    code, out, err = cli(command, "--root", str(root))
    assert (code, out) == (2, "")
    assert err == f"aeon-evals: {root}: instance root does not exist or is not a folder\n"
    assert not (tmp_path / "does").exists()


@pytest.mark.parametrize("command", ["run", "site", "audit", "contracts", "lint", "init"])
def test_a_folder_that_is_no_instance_is_refused_and_left_alone(
    command: str, tmp_path: Path, cli: Cli
) -> None:
    (tmp_path / "notes.txt").write_text("not an Aeon repository\n")
    code, out, err = cli(command, "--root", str(tmp_path))
    assert (code, out, err) == (2, "", not_found(tmp_path))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def test_validate_lists_the_missing_registry_as_an_error(tmp_path: Path, cli: Cli) -> None:
    """`validate` reports every problem at once: the missing registry is one, an error."""
    (tmp_path / "skills/a").mkdir(parents=True)
    code, out, err = cli("validate", "--root", str(tmp_path))
    assert code == 2 and err == ""
    assert (
        f"aeon.yml: error: not found {LOOKED_FOR.format(root=tmp_path)}: {NOT_AN_INSTANCE}"
        in out.splitlines()
    )
    code, out, _ = cli("validate", "--root", str(tmp_path), "--json")
    data = json.loads(out)
    assert code == 2 and data["valid"] is False
    assert [(e["file"], e["line"]) for e in data["errors"]] == [("aeon.yml", None)]


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("model: claude-sonnet-5\n", "no top-level 'skills:' block"),
        ("skills:\n  - heartbeat\n", "skills: expected a mapping of skill names, got a list"),
        (
            "model: x\nchains:\n  - skill: a, consume: [b]\n",
            "not valid YAML (mapping values are not allowed here at line 3) and no top-level "
            "'skills:' block",
        ),
    ],
)
def test_a_registry_with_no_skills_block_is_no_registry(
    text: str, reason: str, tmp_path: Path, cli: Cli
) -> None:
    root = whole_instance(MIROSHARK, tmp_path / "miroshark")
    (root / "aeon.yml").write_text(text)
    for command in ("run", "audit", "lint"):
        code, out, err = cli(command, "--root", str(root), *(["--dry-run"] * (command == "run")))
        assert (code, out, err) == (2, "", f"aeon-evals: aeon.yml: {reason}: {NOT_AN_INSTANCE}\n")


def test_an_unreadable_registry_says_why(tmp_path: Path, cli: Cli) -> None:
    root = whole_instance(MIROSHARK, tmp_path / "miroshark")
    (root / "aeon.yml").unlink()
    os.mkfifo(root / "aeon.yml")  # a FIFO: opening it would block a run forever
    code, out, err = cli("run", "--root", str(root), "--dry-run")
    assert (code, out) == (2, "")
    assert err == (
        "aeon-evals: aeon.yml: is a FIFO (named pipe), not a regular file; not read: the skill "
        "registry is needed (without it every skill would count as unregistered)\n"
    )


def test_a_renamed_registry_is_found_and_config_names_what_it_looked_for(
    tmp_path: Path, cli: Cli
) -> None:
    root = whole_instance(MIROSHARK, tmp_path / "miroshark")
    (root / "aeon.yml").rename(root / "claw.yml")
    code, out, _ = cli("lint", "--root", str(root))
    assert code == 0 and out.splitlines()[-1].startswith("lint: 77 SKILL.md")
    code, out, err = cli("audit", "--root", str(root), "--config", "vigil.yml")
    assert (code, out) == (2, "")
    assert err == (
        f"aeon-evals: vigil.yml: not found (looked for vigil.yml in {root}): {NOT_AN_INSTANCE}\n"
    )


def test_run_json_says_so_on_stdout(tmp_path: Path, cli: Cli) -> None:
    root = tmp_path / "empty"
    root.mkdir()
    code, out, err = cli("run", "--root", str(root), "--json")
    assert code == 2 and err == not_found(root)
    error = json.loads(out)["error"]
    assert error == {
        "exit_code": 2,
        "class": "ConfigError",
        "message": f"not found {LOOKED_FOR.format(root=root)}: {NOT_AN_INSTANCE}",
        "file": "aeon.yml",
        "where": None,
        "text": not_found(root).removeprefix("aeon-evals: ").rstrip("\n"),
    }

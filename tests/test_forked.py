"""The checks on the second core (evaluate.start_checks, forked.Forked): the same run as in one
process, byte for byte, and a child that fails or is abandoned never changes the outcome."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from realdata import AEONFUN, AEONFUN_NOW, whole_instance

from aeon_evals.checks import skill as checks
from aeon_evals.parallel import Forked
from aeon_evals.run import evaluate

Cli = Callable[..., tuple[int, str, str]]


def test_the_work_is_done_by_a_child_and_its_result_handed_back() -> None:
    here = os.getpid()
    forked = Forked(lambda: (os.getpid(), {"rows": [1, 2, 3]}), fork=True)
    pid, data = forked.result()
    assert pid != here and data == {"rows": [1, 2, 3]}
    assert Forked(os.getpid, fork=False).result() == here


def test_a_child_that_fails_is_replaced_by_the_work_done_here() -> None:
    here = os.getpid()

    def work() -> int:
        if os.getpid() != here:
            raise RuntimeError("only in the child")
        return 7

    assert Forked(work, fork=True).result() == 7


def test_megabytes_of_pages_come_back_whole_and_a_half_pickled_result_is_worked_out_here(
    capfd: pytest.CaptureFixture[str],
) -> None:
    pages = [(f"skills/s{i}.html", bytes([i % 251]) * 40_000) for i in range(300)]
    assert Forked(lambda: pages, fork=True).result() == pages  # 12 MB, pickled into the file
    here = os.getpid()

    def work() -> list[object]:
        # in the child, a value that cannot be pickled after 4 MB that can: the file holds
        # half a pickle, which the parent must not read as a result
        tail: object = (lambda: 0) if os.getpid() != here else "here"
        return [b"x" * 4_000_000, tail]

    assert Forked(work, fork=True).result() == [b"x" * 4_000_000, "here"]
    assert "cannot be handed back" in capfd.readouterr().err


def test_an_error_of_the_work_is_raised_here_as_it_would_be_without_the_child() -> None:
    def work() -> int:
        raise ValueError("evals.json: a broken spec")

    with pytest.raises(ValueError, match="a broken spec"):
        Forked(work, fork=True).result()


def test_an_abandoned_child_is_killed_and_reaped_at_once() -> None:
    forked = Forked(lambda: time.sleep(60), fork=True)
    pid = forked._pid
    assert pid is not None
    start = time.monotonic()
    forked.abandon()
    assert time.monotonic() - start < 5
    with pytest.raises(ChildProcessError):  # reaped: no zombie left
        os.waitpid(pid, os.WNOHANG)


def _outputs(root: Path) -> dict[str, bytes]:
    """Everything a run writes that is not a cache: the article, the metrics file, the issues,
    INDEX.md, the day's log."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for folder in ("articles", "memory")
        for p in sorted((root / folder).rglob("*"))
        if p.is_file()
    }


def test_a_run_with_its_checks_forked_writes_what_a_run_in_one_process_writes(
    tmp_path: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """aeonfun (98 skills on evals.json and SKILL.md contracts, every status) checked in a child
    and in-process: the same article, issues, log, metrics file and --json, and the same
    warnings in the same order."""
    one = whole_instance(AEONFUN, tmp_path / "one")
    two = tmp_path / "two"
    shutil.copytree(one, two, symlinks=True)
    argv = ("--now", AEONFUN_NOW, "--no-site", "--no-notify", "--json")

    monkeypatch.setattr(evaluate, "FORK_MIN_CHECKS", 1 << 30)
    code_one, out_one, err_one = cli("run", "--root", str(one), *argv)
    monkeypatch.setattr(evaluate, "FORK_MIN_CHECKS", 1)
    checked_by: list[int] = []
    evaluate_one = checks.evaluate

    def spy(*args: object, **kwargs: object) -> object:
        checked_by.append(os.getpid())
        return evaluate_one(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(checks, "evaluate", spy)
    code_two, out_two, err_two = cli("run", "--root", str(two), *argv)

    assert checked_by == []  # not one skill was checked in this process: a child checked them
    assert (code_two, err_two) == (code_one, err_one.replace(str(one), str(two)))
    assert out_two.replace(str(two), str(one)) == out_one
    assert _outputs(two) == _outputs(one)
    assert (one / "articles/skill-evals-2026-05-03.md").is_file()


def test_a_failing_checks_child_leaves_the_run_as_it_would_be(
    tmp_path: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A child that dies (here: it cannot check a skill) is replaced by the checks done in the
    run's own process: same exit code and article."""
    one = whole_instance(AEONFUN, tmp_path / "one")
    two = tmp_path / "two"
    shutil.copytree(one, two, symlinks=True)
    argv = ("--now", AEONFUN_NOW, "--no-site", "--no-notify")
    code_one, _, _ = cli("run", "--root", str(one), *argv)

    parent = os.getpid()
    evaluate_one = checks.evaluate

    def dies_in_the_child(*args: object, **kwargs: object) -> object:
        if os.getpid() != parent:
            os._exit(9)
        return evaluate_one(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(evaluate, "FORK_MIN_CHECKS", 1)
    monkeypatch.setattr(checks, "evaluate", dies_in_the_child)
    code_two, _, _ = cli("run", "--root", str(two), *argv)
    assert code_two == code_one
    assert _outputs(two) == _outputs(one)

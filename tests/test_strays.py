"""The stray-write guard: a write outside the test's temporary folder is refused and reported."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from strays import GUARD, StrayWrite

from aeon_evals.fs.write import atomic_write

REPO = Path(__file__).parent.parent


def _forget(expected: int) -> list[str]:
    """Take back the strays this test provoked on purpose (the autouse fixture would fail it)."""
    assert GUARD.strays and len(GUARD.strays) == expected, GUARD.strays
    taken = list(GUARD.strays)
    GUARD.strays.clear()
    return taken


def test_a_write_into_the_repository_is_refused_and_reported() -> None:
    target = REPO / "articles" / "skill-evals-stray.md"
    with pytest.raises(StrayWrite):
        target.write_text("x")
    assert not target.exists()
    assert _forget(1) == [f"open {target}"]


def test_atomic_writes_renames_and_removals_outside_are_refused() -> None:
    with pytest.raises(StrayWrite):
        atomic_write(REPO / "stray.md", "x")  # mkstemp's os.open is seen
    with pytest.raises(StrayWrite):
        os.mkdir(REPO / "stray-folder")
    with pytest.raises(StrayWrite):
        os.remove(REPO / "no-such-file")
    assert len(_forget(3)) == 3
    assert not (REPO / "stray-folder").exists()


def test_writes_inside_the_temporary_folder_and_reads_anywhere_pass(tmp_path: Path) -> None:
    atomic_write(tmp_path / "a" / "b.md", "fine")
    shutil.rmtree(tmp_path / "a")  # removals by dir_fd resolve to the temporary folder
    assert (REPO / "README.md").read_text(encoding="utf-8")
    assert not GUARD.strays

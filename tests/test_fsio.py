"""The shared file rules: writing only what changed, and naming a file relative to the root."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from aeon_evals.fs.confine import rel_path
from aeon_evals.fs.write import atomic_write_parts, encoded, write_if_changed


def test_write_if_changed_keeps_an_identical_file(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "page.html"
    assert write_if_changed(path, "<p>a</p>") is True  # missing: written, folders made
    assert path.read_bytes() == b"<p>a</p>\n"  # text ends with a newline, as atomic_write
    os.utime(path, ns=(1, 1))
    inode = path.stat().st_ino
    assert write_if_changed(path, "<p>a</p>\n") is False
    assert write_if_changed(path, b"<p>a</p>\n") is False
    assert (path.stat().st_ino, path.stat().st_mtime_ns) == (inode, 1)
    assert write_if_changed(path, "<p>b</p>") is True
    assert path.read_bytes() == b"<p>b</p>\n"


@pytest.mark.parametrize(
    ("data", "expected"),
    [("x", b"x\n"), ("x\n", b"x\n"), ("é", "é\n".encode()), (b"raw", b"raw"), ("", b"\n")],
)
def test_encoded_is_what_atomic_write_writes(data: str | bytes, expected: bytes) -> None:
    assert encoded(data) == expected


def test_atomic_write_parts_writes_the_parts_end_to_end_and_keeps_the_mode(
    tmp_path: Path,
) -> None:
    """history.bin is written from its header and a view of the columns' bytes it was read
    from, without joining them in memory first."""
    path = tmp_path / "history.bin"
    path.write_bytes(b"old")
    path.chmod(0o600)
    blob = bytes(range(256)) * 64
    atomic_write_parts(path, [b"AE", memoryview(blob)[10:], b""], sync=False)
    assert path.read_bytes() == b"AE" + blob[10:]
    assert path.stat().st_mode & 0o777 == 0o600
    assert [p.name for p in tmp_path.iterdir()] == ["history.bin"]  # no temporary file left


def test_rel_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "inst"
    (root / "site").mkdir(parents=True)
    (tmp_path / "link").symlink_to(root)
    monkeypatch.chdir(root)
    assert rel_path(root / "articles" / "a.md", root) == "articles/a.md"  # need not exist
    assert rel_path(Path("site"), Path(".")) == "site"
    assert rel_path(root / "site", Path(".")) == "site"  # resolved when the names differ
    assert rel_path(tmp_path / "link" / "site", root) == "site"  # through a symlinked root
    assert rel_path(tmp_path / "elsewhere", root) == (tmp_path / "elsewhere").as_posix()


def test_a_failed_write_named_its_hidden_temp_file(tmp_path: Path) -> None:
    """A site or issues write the system refused printed `[Errno …] '/abs/site/.index.html.x.tmp'`:
    the error names the file being written, and no temp file is left."""
    target = tmp_path / "index.html"
    (target / "taken").mkdir(parents=True)  # a non-empty folder: the rename onto it fails
    with pytest.raises(OSError) as caught:
        atomic_write_parts(target, [b"x"])
    assert caught.value.filename == str(target) and caught.value.filename2 is None
    assert ".tmp" not in str(caught.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["index.html"]

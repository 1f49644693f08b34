"""Hostile cache files: a FIFO, /dev/zero, deep JSON, a cache folder leading out of the root.

Every file under `.aeon-evals/cache/` is read through `fsio.read_cache`: a regular file inside
the root only, size-capped, and anything it cannot use is a miss (the run goes on, rewrites it).
The runs are real subprocesses with a timeout, so that a FIFO that blocks fails the test instead
of hanging it."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from aeon_evals.resources import templates_dir

Cli = Callable[..., tuple[int, str, str]]
NOW = "2026-12-02T08:00:00Z"
DEEP = b"[" * 200_000


def _demo(tmp_path: Path, cli: Cli) -> Path:
    root = tmp_path / "demo"
    code, _out, err = cli("demo", str(root), "--now", "2026-12-01T07:00:00Z")
    assert code == 0, err
    code, _out, err = cli("run", "--root", str(root), "--now", NOW, "--no-notify")
    assert code == 0, err
    return root


def _run(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "aeon_evals", *args, "--root", str(root)],
        capture_output=True,
        text=True,
        timeout=120,
    )


def _cache_file(root: Path, name: str) -> Path:
    cache = root / ".aeon-evals" / "cache"
    if name in ("history.bin", "metrics.json", "contracts.json", "catalog.json"):
        return cache / name
    (folder,) = [p for p in cache.iterdir() if p.is_dir()]
    if name == "templates/*.cache":
        # index.html's compiled template: every run and build renders the index (another
        # template, run.html say, is loaded only when a run page is laid out again). Jinja names
        # the file by the SHA-1 of the template's name and path (FileSystemBytecodeCache).
        key = hashlib.sha1(f"index.html|{templates_dir() / 'index.html'}".encode()).hexdigest()
        path = folder / "templates" / f"__jinja2_{key}.cache"
        assert path.is_file(), sorted(p.name for p in (folder / "templates").iterdir())
        return path
    found = sorted(folder.glob(name))
    assert found, name
    return found[0]


CACHE_FILES = [
    "history.bin",
    "metrics.json",
    "contracts.json",
    "catalog.json",
    "index.json",
    "pages-*.json",
    "rows/*.json",
    "bodies/*.html",
    "templates/*.cache",  # Jinja's compiled templates
]


def _deep(name: str) -> bytes:
    if name == "history.bin":
        return b"AEHIST01" + len(DEEP).to_bytes(8, "little") + DEEP
    return DEEP


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "deep-json"])
@pytest.mark.parametrize("name", CACHE_FILES)
def test_a_fifo_dev_zero_or_deep_json_cache_file_is_a_miss_not_a_hang_or_traceback(
    tmp_path: Path, cli: Cli, name: str, kind: str
) -> None:
    root = _demo(tmp_path, cli)
    path = _cache_file(root, name)
    path.unlink()
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev-zero":
        path.symlink_to("/dev/zero")
    else:
        path.write_bytes(_deep(name))
    done = _run(root, "run", "--now", NOW, "--no-notify")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and "Error" not in done.stdout + done.stderr
    site = _run(root, "site")
    assert site.returncode == 0, site.stderr
    assert "Traceback" not in site.stderr and "Error" not in site.stdout + site.stderr
    # a FIFO or a symlink to a device is never opened; what is not used is written anew (an
    # article's rows or body only when that article is read or rendered again)
    if name not in ("rows/*.json", "bodies/*.html"):
        assert path.is_file() and not path.is_symlink()


@pytest.mark.parametrize("link", [".aeon-evals", ".aeon-evals/cache"])
def test_a_cache_folder_symlinked_out_of_the_root_is_neither_read_nor_written(
    tmp_path: Path, cli: Cli, link: str
) -> None:
    root = _demo(tmp_path, cli)
    outside = tmp_path / "outside"
    (root / link).rename(outside)  # the cache the demo wrote, now outside the root
    (root / link).symlink_to(outside, target_is_directory=True)
    for cached in outside.rglob("*.json"):  # a read through the link would choke on these
        cached.write_bytes(DEEP)
    before = {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in outside.rglob("*") if p.is_file()}
    done = _run(root, "run", "--now", NOW, "--no-notify")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    site = _run(root, "site")
    assert site.returncode == 0, site.stderr
    after = {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in outside.rglob("*") if p.is_file()}
    assert after == before  # nothing written (or removed) through the symlink

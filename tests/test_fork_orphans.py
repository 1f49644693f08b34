"""A run killed with SIGTERM mid-build leaves no forked child behind (skill pages, bodies).

The skill pages of an instance with at least FORK_MIN_SKILLS skills are written by a forked
child; killed, the parent used to die alone while the child went on writing pages for seconds,
re-parented to PID 1 and holding the caller's stdout pipe open."""

from __future__ import annotations

import importlib.util
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"


def _generate(root: Path, skills: int, articles: int = 8) -> None:
    spec = importlib.util.spec_from_file_location("aeon_bench", SCRIPTS / "bench.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    sys.modules["aeon_bench"] = bench  # dataclasses look their module up
    spec.loader.exec_module(bench)
    bench.generate(root, bench.Config(skills=skills, outputs=5, articles=articles, metrics=True))


def _processes_of(root: Path) -> list[int]:
    """The pids whose command line names `root` (the run and any child it forked)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                argv = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if str(root).encode() in argv and int(entry.name) != os.getpid():
                found.append(int(entry.name))
    return found


def _pages(site: Path) -> set[str]:
    return {p.name for p in (site / "skills").glob("*.html")}


def test_a_forked_child_does_not_outlive_its_parent_killed_mid_build(tmp_path: Path) -> None:
    root = tmp_path / "fleet"
    _generate(root, 1000)
    site = root / "site"
    proc = subprocess.Popen(
        [sys.executable, "-m", "aeon_evals", "site", "--root", str(root)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 120
    while not _pages(site) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)  # until the child writes its first skill page
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=60) == 128 + signal.SIGTERM  # killed mid-build, not finished
    at_death = _pages(site)
    # the caller's pipes reach EOF: no child holds them open
    _out, err = proc.communicate(timeout=60)
    deadline = time.monotonic() + 60  # a generous bound: the children are gone at once
    while _processes_of(root) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _processes_of(root) == []
    # nothing was written once the parent had died (its children had ended before it) ...
    assert _pages(site) == at_death
    assert len(at_death) < 1000  # (the build was cut short)
    # ... and no temp file is left behind by a write the signal interrupted
    assert [p for p in site.rglob("*") if p.name.endswith(".tmp")] == []
    assert b"Traceback" not in err


def test_sigterm_stops_the_body_rendering_child_at_once(tmp_path: Path) -> None:
    """Regression: a site build stopped with SIGTERM waited for the child rendering the
    articles' bodies to render every one of them (it stopped only between bodies, and only
    once its parent was gone). Children render and the parent writes, at the end: a run stopped
    while a child renders is stopped with it, and leaves no temp file. (A signal that comes
    only after the build has finished, on a loaded machine, is tried again on a fresh copy.)"""
    source = tmp_path / "source"
    _generate(source, 300, articles=24)
    for attempt in range(3):
        root = tmp_path / f"fleet{attempt}"
        shutil.copytree(source, root, symlinks=True)
        proc = subprocess.Popen(
            [sys.executable, "-m", "aeon_evals", "site", "--root", str(root)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + 120
        while len(_processes_of(root)) < 2 and time.monotonic() < deadline:
            if proc.poll() is not None:
                break
            time.sleep(0.002)  # until a child renders alongside
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=60)
        _out, err = proc.communicate(timeout=60)
        assert _processes_of(root) == []  # no child outlives the run, however it ended
        assert b"Traceback" not in err
        if code == 0:
            continue  # the build had finished before the signal came
        assert code == 128 + signal.SIGTERM
        cache = root / ".aeon-evals" / "cache"
        assert [p for p in cache.rglob("*") if p.name.endswith(".tmp")] == []
        assert [p for p in (root / "site").rglob("*") if p.name.endswith(".tmp")] == []
        return
    pytest.fail("the site build finished before SIGTERM on every attempt")

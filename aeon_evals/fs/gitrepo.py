"""Ask git about the instance root: one runner for every question (commit times, lost articles)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path


def run_git(root: Path, *args: str) -> str | None:
    """`git -C root args…` stdout as text; None when git is missing, fails or takes over 30 s."""
    try:
        proc = subprocess.run(
            ["git", "-C", str(root), *args], capture_output=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return proc.stdout.decode("utf-8", errors="replace") if proc.returncode == 0 else None


def commit_times(root: Path) -> Iterator[tuple[float, str]]:
    """(commit time, path) for every path each commit touched, newest commit first, from one
    `git log` process read as the caller goes: stopping early stops the walk. Nothing when git
    is missing or fails."""
    try:
        proc = subprocess.Popen(
            ["git", "-C", str(root), "log", "--format=%x01%ct", "--name-only", "--relative", "-z"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
    except OSError:
        return
    assert proc.stdout is not None
    try:
        stamp: float | None = None
        carry = b""
        while chunk := proc.stdout.read(1 << 16):
            *fields, carry = (carry + chunk).split(b"\0")
            for field in fields:
                if field.startswith(b"\x01"):
                    stamp = float(field[1:]) if field[1:].isdigit() else None
                elif field and stamp is not None:
                    yield stamp, field.lstrip(b"\n").decode("utf-8", errors="surrogateescape")
    finally:
        proc.stdout.close()
        if proc.poll() is None:
            proc.kill()
        proc.wait()

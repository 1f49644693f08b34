"""Ask git about the instance root: one runner for every question (commit times, lost articles)."""

from __future__ import annotations

import subprocess
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

"""Call the instance's notifier: the body as one argument, never through a shell, with a timeout."""

from __future__ import annotations

import os
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path

TIMEOUT_SECONDS = 30.0


@dataclass(frozen=True)
class NotifyResult:
    sent: bool
    message: str  # for the ledger and the log: "sent via ./notify", "notifier failed (exit 1): …"


def find_notifier(root: Path, override: str | None) -> Path | None:
    """`--notify-cmd PATH`, else `<root>/notify` when it exists and is executable."""
    if override:
        return Path(override)
    candidate = root / "notify"
    return candidate if candidate.is_file() and os.access(candidate, os.X_OK) else None


def send(
    command: Path | None, body: str, *, cwd: Path, timeout: float = TIMEOUT_SECONDS
) -> NotifyResult:
    """Run `command body`; a missing, failing or hanging notifier is reported, never raised."""
    if command is None:
        return NotifyResult(False, "no notifier (no executable ./notify)")
    try:
        proc = subprocess.Popen(
            [str(command), body],
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
    except OSError as exc:
        return NotifyResult(False, f"notifier {command} could not start: {exc.strerror or exc}")
    try:
        _out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return NotifyResult(
            False, f"notifier {command} timed out after {timeout:g}s and was killed"
        )
    if proc.returncode != 0:
        tail = err.decode("utf-8", errors="replace").strip().splitlines()[-1:] or [""]
        detail = f": {tail[0][:200]}" if tail[0] else ""
        return NotifyResult(False, f"notifier {command} failed (exit {proc.returncode}){detail}")
    return NotifyResult(True, f"sent via {command}")

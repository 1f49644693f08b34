"""Call the instance's notifier (the body as one argument, never through a shell, with a timeout)
and remember what was sent, so a rerun neither loses nor repeats a notification."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path

from aeon_evals.fsio import atomic_write

TIMEOUT_SECONDS = 30.0
# What was sent, per article day: committed with the article and the issues (`git add memory`),
# so a rerun on a fresh checkout knows too. Only successful sends are recorded.
STATE_PATH = "memory/skill-evals-notify.json"
STATE_VERSION = 1
KEEP_DAYS = 14  # entries kept: a rerun of an older day is rare, and the file stays small


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


@dataclass(frozen=True)
class Sent:
    """One recorded notification: the body's digest and when it went out."""

    day: str
    body_sha256: str
    at: str


def body_digest(body: str) -> str:
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


def read_state(root: Path) -> tuple[dict[str, Sent], str | None]:
    """The recorded sends by day, and a warning when the file is unreadable (then nothing is
    taken as sent: a repeated notification is better than a lost one)."""
    path = root / STATE_PATH
    try:
        data = json.loads(path.read_bytes().decode("utf-8"))
    except FileNotFoundError:
        return {}, None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        return {}, f"{STATE_PATH}: unreadable ({exc}); taken as nothing sent yet"
    sent = data.get("sent") if isinstance(data, dict) else None
    if not isinstance(sent, dict) or data.get("version") != STATE_VERSION:
        return {}, f"{STATE_PATH}: unknown layout or version; taken as nothing sent yet"
    found: dict[str, Sent] = {}
    for day, row in sent.items():
        if isinstance(row, dict) and isinstance(row.get("body_sha256"), str):
            found[str(day)] = Sent(str(day), row["body_sha256"], str(row.get("at", "")))
    return found, None


def already_sent(state: dict[str, Sent], day: date, body: str) -> Sent | None:
    """The record of this very body sent for `day`, if any."""
    record = state.get(day.isoformat())
    return record if record is not None and record.body_sha256 == body_digest(body) else None


def record_sent(
    root: Path, state: dict[str, Sent], day: date, body: str, now: datetime
) -> dict[str, Sent]:
    """Write the state with this send added (the newest KEEP_DAYS days kept); returns it."""
    updated = dict(state)
    updated[day.isoformat()] = Sent(
        day.isoformat(), body_digest(body), now.isoformat().replace("+00:00", "Z")
    )
    kept = dict(sorted(updated.items())[-KEEP_DAYS:])
    payload = {
        "version": STATE_VERSION,
        "sent": {d: {"body_sha256": s.body_sha256, "at": s.at} for d, s in kept.items()},
    }
    atomic_write(root / STATE_PATH, json.dumps(payload, indent=2, sort_keys=True))
    return kept

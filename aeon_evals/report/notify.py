"""Call the instance's notifier (the body as one argument, never through a shell, with a timeout)
and remember what was sent, so a rerun neither loses nor repeats a notification."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import select
import signal
import subprocess
import time
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path

from aeon_evals.errors import EvalsError
from aeon_evals.fs.confine import inside, read_confined
from aeon_evals.fs.write import atomic_write
from aeon_evals.text.controls import escape_controls, one_line

TIMEOUT_SECONDS = 30.0
# What was sent, per article day: committed with the article and the issues (`git add memory`),
# so a rerun on a fresh checkout knows too. Only successful sends are recorded.
STATE_PATH = "memory/skill-evals-notify.json"
STATE_VERSION = 1
KEEP_DAYS = 14  # entries kept: a rerun of an older day is rare, and the file stays small
# Linux refuses one argument longer than 32 pages (MAX_ARG_STRLEN, 131,072 bytes): a longer body
# is cut well below that, so the ping still goes out.
MAX_BODY_BYTES = 100_000
STDERR_KEPT = 8192  # the notifier's stderr is read as it comes; only its tail is kept
_CUT = "\n… (cut: {n:,} more bytes; see the article)"


@dataclass(frozen=True)
class NotifyResult:
    sent: bool
    message: str  # for the ledger and the log: "sent via ./notify", "notifier … failed (exit 1)"
    # The last line of a failing notifier's stderr (capped, escaped): never in the message, the
    # log or the job summary, which the workflow uploads, since it may hold the notifier's token
    # (`curl: … /bot<token>/sendMessage`); shown on a terminal only.
    stderr: str = ""


def find_notifier(root: Path, override: str | None) -> Path | None:
    """`--notify-cmd PATH`, else `<root>/notify` when it exists, is executable and lies inside
    the root once symlinks are resolved (a `./notify` linked elsewhere is refused with
    PathOutsideRoot naming the link)."""
    if override:
        return Path(override)
    candidate = root / "notify"
    if not (candidate.is_file() and os.access(candidate, os.X_OK)):
        return None
    if not inside(root, candidate):
        raise _Outside(f"is a symlink to {os.readlink(candidate)}, outside the root; not run")
    return candidate


class _Outside(EvalsError):
    def __init__(self, message: str) -> None:
        super().__init__(message, path="notify")


def fit_body(body: str) -> str:
    """The body with control characters escaped (a NUL cannot be passed as an argument) and cut
    below the system's limit for one argument."""
    body = escape_controls(body)
    raw = body.encode("utf-8")
    if len(raw) <= MAX_BODY_BYTES:
        return body
    keep = raw[: MAX_BODY_BYTES - 100].decode("utf-8", errors="ignore")
    return keep + _CUT.format(n=len(raw) - len(keep.encode("utf-8")))


def notify(
    root: Path, override: str | None, body: str, *, timeout: float = TIMEOUT_SECONDS
) -> NotifyResult:
    """Find the notifier and send `body`; a notifier refused for its place is reported."""
    try:
        command = find_notifier(root, override)
    except EvalsError as exc:
        return NotifyResult(False, f"not sent: {exc.line()}")
    return send(command, body, cwd=root, timeout=timeout)


def send(
    command: Path | None, body: str, *, cwd: Path, timeout: float = TIMEOUT_SECONDS
) -> NotifyResult:
    """Run `command body`; a missing, failing or hanging notifier is reported, never raised.

    The notifier runs in a session of its own. Only its own exit is waited for, at most
    `timeout` seconds: a child it leaves behind holding its stderr (`setsid sleep 45 &`) does
    not hold the run. On timeout its process group is killed; whether it delivered before that
    is not known, and the message says so. Its stdout is discarded and the tail of its stderr
    kept for the message."""
    if command is None:
        return NotifyResult(False, "no notifier (no executable ./notify)")
    shown = _shown(command, cwd)
    try:
        proc = subprocess.Popen(
            [str(command), fit_body(body)],
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
    except (OSError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return NotifyResult(False, f"notifier {shown} could not start: {reason}")
    assert proc.stderr is not None
    err = _wait(proc, proc.stderr.fileno(), time.monotonic() + timeout)
    proc.stderr.close()
    if proc.returncode is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        return NotifyResult(
            False,
            f"notifier {shown} timed out after {timeout:g}s and was killed "
            "(whether it delivered is unknown)",
        )
    if proc.returncode != 0:
        tail = err.decode("utf-8", errors="replace").strip().splitlines()[-1:] or [""]
        hidden = (
            "; its error output is not shown here (it may hold the notifier's secrets): run it "
            "by hand to see it"
            if tail[0]
            else ""
        )
        return NotifyResult(
            False,
            f"notifier {shown} failed (exit {proc.returncode}){hidden}",
            one_line(tail[0][:200], tabs=True),
        )
    return NotifyResult(True, f"sent via {shown}")


def _shown(command: Path, root: Path) -> str:
    """The notifier as a line names it: `./notify` for the instance's own, else as given."""
    try:
        rel = command.resolve().relative_to(root.resolve()).as_posix()
    except (ValueError, OSError):
        return one_line(str(command))
    return one_line(f"./{rel}")


def _wait(proc: subprocess.Popen[bytes], fd: int, deadline: float) -> bytes:
    """Read `fd` (keeping its last STDERR_KEPT bytes) until `proc` exits or `deadline` passes;
    returncode stays None on timeout. Output a leftover child writes later is not waited for."""
    os.set_blocking(fd, False)
    tail = bytearray()
    open_fd = True
    while proc.poll() is None:
        left = deadline - time.monotonic()
        if left <= 0:
            return bytes(tail)
        if not open_fd:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=min(left, 0.05))
            continue
        ready, _, _ = select.select([fd], [], [], min(left, 0.05))
        if ready:
            open_fd = _drain(fd, tail)
    if open_fd:
        _drain(fd, tail)  # what the notifier wrote before it exited
    return bytes(tail)


def _drain(fd: int, tail: bytearray) -> bool:
    """Read what is available now; False at end of file."""
    for _ in range(64):  # bounded: a child still writing cannot keep us here
        try:
            chunk = os.read(fd, 65536)
        except BlockingIOError:
            return True
        if not chunk:
            return False
        tail += chunk
        del tail[:-STDERR_KEPT]
    return True


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
    try:
        data = json.loads(read_confined(root, STATE_PATH).decode("utf-8"))
    except FileNotFoundError:
        return {}, None
    except EvalsError as exc:
        return {}, f"{STATE_PATH}: {exc.message}; taken as nothing sent yet"
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
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

"""The `### skill-evals` section of the day's log, written byte for byte: other text untouched."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from aeon_evals.fs.confine import check_writable, read_confined
from aeon_evals.fs.write import append_bytes, atomic_write

LOG_CAP = 64 << 20  # a daily log larger than this is not edited
# The heading of what this tool writes into the day's log (render.log_section); the checks never
# grade it as another skill's output.
SECTION = "### skill-evals"


def write_log_section(root: Path, rel: str, section: str, today: date) -> None:
    """Put the `### skill-evals` section into the day's log, byte for byte: other skills' text
    is never decoded and re-encoded (Latin-1 bytes, CRLF stay as they are). A log without the
    section gets it appended (O_APPEND: a skill appending at the same moment loses nothing);
    one with it gets only that section's bytes replaced (temp file and rename)."""
    path = root / rel
    check_writable(root, path, what="log")
    try:
        existing: bytes | None = read_confined(root, rel, cap=LOG_CAP)
    except FileNotFoundError:
        existing = None
    new = section.encode("utf-8")
    if existing is None:
        atomic_write(path, f"# {today.isoformat()}\n\n".encode() + new)
        return
    replaced = replace_section_bytes(existing, new)
    if replaced is not None:
        if replaced != existing:
            atomic_write(path, replaced)
        return
    sep = b"" if existing.endswith(b"\n\n") else (b"\n" if existing.endswith(b"\n") else b"\n\n")
    append_bytes(path, sep + new)


def replace_section_bytes(log: bytes, section: bytes) -> bytes | None:
    """`log` with its `### skill-evals` section replaced by `section`; None when it has none."""
    lines = log.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if line.rstrip() == SECTION.encode()), None)
    if start is None:
        return None
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith(b"#")), len(lines))
    tail = lines[end:]
    return b"".join(lines[:start]) + section + (b"\n" if tail else b"") + b"".join(tail)

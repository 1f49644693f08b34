"""A failed run changes no issue (issue #35.5): the issue stage's writes are probed before any
is made, and what `apply_plan` changed can be put back. Every file it replaces (a closed issue,
INDEX.md) is first hard-linked to a hidden backup beside it, so putting it back needs no space
on a full disk: a rename; every file it creates is removed. The backups go once the run's
article is written."""

from __future__ import annotations

import contextlib
import errno
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

_FS_IOC_GETFLAGS = 0x80086601  # ioctl(2) on Linux (64-bit): the inode's attribute flags
_IMMUTABLE_OR_APPEND = 0x10 | 0x20  # FS_IMMUTABLE_FL | FS_APPEND_FL (`chattr +i`, `+a`)


def backup_of(path: Path) -> Path:
    """The hidden backup name of `path` (no `ISS-NNN.md` name: never read as an issue)."""
    return path.with_name(f".{path.name}.undo")


@dataclass
class Undo:
    """What the issue stage changed, as it changed it."""

    created: list[Path] = field(default_factory=list)
    backups: list[tuple[Path, Path | None]] = field(default_factory=list)  # (file, its backup)

    def keep(self, path: Path) -> None:
        """Before `path` is replaced: a hard link to its present bytes (None: it did not exist)."""
        if any(p == path for p, _ in self.backups):
            return
        if not path.exists():
            self.backups.append((path, None))
            return
        backup = backup_of(path)
        with contextlib.suppress(FileNotFoundError):
            backup.unlink()  # a leftover of a run killed before it committed
        os.link(path, backup)
        self.backups.append((path, backup))

    def restore(self) -> list[str]:
        """Put every file back as it was; the problems met, one line each (none: all restored)."""
        problems: list[str] = []
        for path, backup in reversed(self.backups):
            try:
                if backup is None:
                    path.unlink(missing_ok=True)
                else:
                    os.replace(backup, path)
            except OSError as exc:
                problems.append(f"{path.name}: {exc.strerror or exc}")
        for path in reversed(self.created):
            try:
                path.unlink(missing_ok=True)
            except OSError as exc:
                problems.append(f"{path.name}: {exc.strerror or exc}")
        self.backups.clear()
        self.created.clear()
        return problems

    def commit(self) -> None:
        """The run's article is written: the backups are no longer needed."""
        for _, backup in self.backups:
            if backup is not None:
                with contextlib.suppress(OSError):
                    backup.unlink()
        self.backups.clear()
        self.created.clear()


def sweep(folder: Path) -> None:
    """Remove the backups a run killed before it committed left behind (the next run plans
    from the files as they are; a backup must not be committed with them)."""
    with contextlib.suppress(OSError), os.scandir(folder) as entries:
        for entry in entries:
            if entry.name.startswith(".") and entry.name.endswith(".undo"):
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)


def probe(folder: Path, replaced: list[Path], size: int) -> str | None:
    """Why writing `size` bytes of new files into `folder` and replacing the files `replaced`
    (closed issues, INDEX.md) would fail, found before anything is written, or None: a folder
    that refuses new files, a full disk, a file that is immutable or append-only (`chattr +i`,
    `+a`: replaced by a rename, which they refuse)."""
    for path in replaced:
        if path.exists() and _locked(path):
            return f"{path.name}: {os.strerror(errno.EPERM)} (immutable or append-only)"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".probe.", dir=folder)
    except OSError as exc:
        return f"{folder.name}: {exc.strerror or exc}"
    try:
        with os.fdopen(fd, "wb") as fh:
            try:
                os.posix_fallocate(fh.fileno(), 0, max(size, 1))
            except (AttributeError, OSError) as exc:
                if isinstance(exc, OSError) and exc.errno not in (
                    errno.EOPNOTSUPP,
                    errno.EINVAL,
                    errno.ENOSYS,
                ):
                    return f"{folder.name}: {exc.strerror or exc}"
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
    return None


def _locked(path: Path) -> bool:
    """Whether the file carries the immutable or append-only attribute (Linux; False elsewhere
    or when it cannot be asked)."""
    try:
        import fcntl
        import struct

        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except (ImportError, OSError):
        return False
    try:
        buf = fcntl.ioctl(fd, _FS_IOC_GETFLAGS, struct.pack("l", 0))
        return bool(struct.unpack("l", buf)[0] & _IMMUTABLE_OR_APPEND)
    except OSError:
        return False
    finally:
        os.close(fd)

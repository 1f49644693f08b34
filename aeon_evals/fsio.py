"""Writing to disk (atomic, if changed, exclusive) and paths under the root (confine, rel_path)."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

from aeon_evals.errors import PathOutsideRoot

# Test hook: when set to a path, every completed write appends that file's name there, and when
# AEON_EVALS_CRASH_AFTER=N is set the process is killed after the N-th write. This lets the
# hardening tests SIGKILL a real run between any two writes without patching code.
_CRASH_AFTER = os.environ.get("AEON_EVALS_CRASH_AFTER")
_writes = 0


def _after_write(path: Path) -> None:
    global _writes
    _writes += 1
    if _CRASH_AFTER is not None and _writes >= int(_CRASH_AFTER):
        import signal

        os.kill(os.getpid(), signal.SIGKILL)


def _tmp_beside(path: Path) -> tuple[int, str]:
    path.parent.mkdir(parents=True, exist_ok=True)
    return tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)


def encoded(data: str | bytes) -> bytes:
    """The bytes `atomic_write` writes for `data`: text as UTF-8 ending with a newline."""
    if isinstance(data, bytes):
        return data
    return (data if data.endswith("\n") else data + "\n").encode("utf-8")


def atomic_write(path: Path, data: str | bytes) -> None:
    """Replace `path` with `data` so that a crash leaves either the old file or the new one.

    Text is written as UTF-8 and always ends with a newline. The file mode of an existing file
    is kept.
    """
    raw = encoded(data)
    fd, tmp = _tmp_beside(path)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(raw)
            fh.flush()
            os.fsync(fh.fileno())
        with contextlib.suppress(FileNotFoundError):
            os.chmod(tmp, path.stat().st_mode & 0o7777)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    _after_write(path)


def write_if_changed(path: Path, data: str | bytes) -> bool:
    """`atomic_write`, only when `path` does not hold exactly those bytes already; True when
    written. An identical file keeps its inode and mtime (for make, rsync and the article cache,
    which trusts an unchanged stamp)."""
    raw = encoded(data)
    try:
        if path.read_bytes() == raw:
            return False
    except OSError:
        pass  # missing or unreadable: write it
    atomic_write(path, raw)
    return True


def rel_path(path: Path, root: Path) -> str:
    """`path` relative to `root` with "/" separators, as messages, articles and cache keys name
    files: from the names as given when `path` lies under `root` as written (no file system
    access), else from both with symlinks resolved (`--root .`, a root reached through a
    symlink); a path outside the root is returned whole, with "/" separators."""
    if path.is_relative_to(root):
        return path.relative_to(root).as_posix()
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except (ValueError, OSError):
        return path.as_posix()


def create_exclusive(path: Path, text: str) -> bool:
    """Create `path` with `text` only if nothing exists there; False if the name was taken.

    The content is complete before the name appears (temp file + hard link), so a reader never
    sees a half-written file and two writers never both win.
    """
    if not text.endswith("\n"):
        text += "\n"
    fd, tmp = _tmp_beside(path)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(text.encode("utf-8"))
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)
        try:
            os.link(tmp, path)
        except FileExistsError:
            return False
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
    _after_write(path)
    return True


def inside(root: Path, candidate: Path) -> bool:
    """True when `candidate`, with symlinks resolved, lies within `root`."""
    try:
        candidate.resolve().relative_to(root.resolve())
    except ValueError:
        return False
    return True


def confine(root: Path, relative: str, *, what: str) -> Path:
    """Resolve `relative` under `root`, refusing absolute paths, `..` and symlinks out of the root."""
    if relative.startswith(("/", "\\")) or (len(relative) > 1 and relative[1] == ":"):
        raise PathOutsideRoot(
            f"{what} {relative!r} is an absolute path; paths must be relative to the root"
        )
    if ".." in Path(relative).parts:
        raise PathOutsideRoot(f"{what} {relative!r} contains '..'; paths must stay inside the root")
    path = root / relative
    if not inside(root, path):
        raise PathOutsideRoot(f"{what} {relative!r} leads outside the root through a symlink")
    return path


def check_writable(root: Path, path: Path, *, what: str) -> None:
    """Refuse to write `path` when it (or a symlinked folder on its way) leads outside the root."""
    if not inside(root, path.parent if not path.exists() else path):
        raise PathOutsideRoot(
            f"{what} {path.relative_to(root).as_posix()} leads outside the root through a symlink; not written"
        )


@contextlib.contextmanager
def instance_lock(root: Path, *, timeout: float) -> Iterator[None]:
    """Hold an exclusive lock on the instance root directory (no lock file is left behind).

    Waits up to `timeout` seconds, then raises LockedError.
    """
    import fcntl
    import time

    from aeon_evals.errors import LockedError

    fd = os.open(root, os.O_RDONLY)
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise LockedError(
                        f"another aeon-evals run is writing this instance (waited {timeout:g}s); "
                        "try again when it finishes",
                        path=root,
                    ) from None
                time.sleep(0.1)
        yield
    finally:
        os.close(fd)

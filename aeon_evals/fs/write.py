"""Writes: atomic (temp file beside, then rename, signals held), only-if-changed,
exclusive creation, append; one clean line for a failed write."""

from __future__ import annotations

import contextlib
import functools
import os
import signal
import stat
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

from aeon_evals.errors import ReadRefused, os_reason

# Test hook: when set to a path, every completed write appends that file's name there, and when
# AEON_EVALS_CRASH_AFTER=N is set the process is killed after the N-th write. This lets the
# hardening tests SIGKILL a real run between any two writes without patching code.
_CRASH_AFTER = os.environ.get("AEON_EVALS_CRASH_AFTER")


_writes = 0


def _after_write(path: str | Path) -> None:
    global _writes
    _writes += 1
    if _CRASH_AFTER is not None and _writes >= int(_CRASH_AFTER):
        import signal

        os.kill(os.getpid(), signal.SIGKILL)


@functools.cache  # process-wide, and only this process sets it: read it once (one per file)
def umask() -> int:
    """The process umask, read without changing it (Linux), else by setting and restoring it."""
    with (
        contextlib.suppress(OSError, ValueError),
        open("/proc/self/status", encoding="ascii", errors="replace") as fh,
    ):
        for line in fh:
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _tmp_beside(path: Path) -> tuple[int, str]:
    """A temp file next to `path`, with the mode `open()` would give a new file (mkstemp's is
    0600: a web server running as another user could not read the site)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, 0o666 & ~umask())
    except BaseException:
        os.close(fd)
        os.unlink(tmp)
        raise
    return fd, tmp


def encoded(data: str | bytes) -> bytes:
    """The bytes `atomic_write` writes for `data`: text as UTF-8 ending with a newline."""
    if isinstance(data, bytes):
        return data
    return (data if data.endswith("\n") else data + "\n").encode("utf-8")


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """SIGTERM and SIGINT held back while one file is replaced: a run stopped mid-write (Ctrl-C,
    a CI timeout's SIGTERM, a parent stopping its child) stops right after the rename, never
    between creating the temp file and the cleanup that removes it, which left temp files."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def atomic_write(path: Path, data: str | bytes, *, sync: bool = True) -> None:
    """Replace `path` with `data` so that a crash leaves either the old file or the new one.

    Text is written as UTF-8 and always ends with a newline. The file mode of an existing file
    is kept; a new file gets the umask's mode, as `open()` would give it. `sync=False` skips the
    file's fsync: for a cache, or one of a batch whose folder the caller syncs once (sync_dir).
    """
    atomic_write_parts(path, [encoded(data)], sync=sync)


def atomic_write_parts(
    path: Path, parts: Sequence[bytes | memoryview], *, sync: bool = True
) -> None:
    """`atomic_write` of the bytes of `parts` end to end, written one after another (a large
    file is not joined in memory first)."""
    with signals_held():
        try:
            fd, tmp = _tmp_beside(path)
        except OSError as exc:
            raise _naming(exc, path) from None
        try:
            with os.fdopen(fd, "wb") as fh:
                for part in parts:
                    fh.write(part)
                if sync:
                    fh.flush()
                    os.fsync(fh.fileno())
            with contextlib.suppress(FileNotFoundError):
                os.chmod(tmp, path.stat().st_mode & 0o7777)
            os.replace(tmp, path)
        except BaseException as exc:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            if isinstance(exc, OSError):
                raise _naming(exc, path) from None
            raise
    _after_write(path)


def _naming(exc: OSError, path: Path) -> OSError:
    """`exc` naming `path`, the file being written, instead of its hidden temp file beside it
    (`[Errno 1] … '/abs/site/.index.html.x1y2.tmp'` told a user nothing)."""
    name = exc.filename
    if isinstance(name, str) and os.path.basename(name).startswith(f".{path.name}."):
        exc.filename = str(path)
        exc.filename2 = None
    return exc


def write_if_changed(path: Path, data: str | bytes, *, sync: bool = True) -> bool:
    """`atomic_write` (with its `sync`), only when `path` does not hold exactly those bytes
    already; True when written. An identical file keeps its inode and mtime (for make, rsync and
    the article cache, which trusts an unchanged stamp)."""
    raw = encoded(data)
    try:  # only a regular file of the same size is read (a FIFO there would block the read)
        if path.is_file() and path.stat().st_size == len(raw) and path.read_bytes() == raw:
            return False
    except OSError:
        pass  # missing or unreadable: write it
    atomic_write(path, raw, sync=sync)
    return True


def append_bytes(path: Path, data: bytes) -> None:
    """Append `data` to the existing regular file `path` (O_APPEND: a writer appending at the
    same moment loses nothing; the file's other bytes are never rewritten)."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    with os.fdopen(fd, "ab") as fh:
        if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
            raise ReadRefused("is not a regular file; not written", path=path.name)
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    _after_write(path)


def create_exclusive(path: Path, text: str, *, sync: bool = True) -> bool:
    """Create `path` with `text` only if nothing exists there; False if the name was taken.

    The content is complete before the name appears (temp file + hard link), so a reader never
    sees a half-written file and two writers never both win. `sync=False`: as atomic_write's.
    """
    if not text.endswith("\n"):
        text += "\n"
    fd, tmp = _tmp_beside(path)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(text.encode("utf-8"))
            if sync:
                fh.flush()
                os.fsync(fh.fileno())
        try:
            os.link(tmp, path)
        except FileExistsError:
            return False
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
    _after_write(path)
    return True


def create_exclusive_run(files: Sequence[tuple[Path, str]]) -> int:
    """`create_exclusive` for each (path, text) in turn, stopping at the first name already
    taken; returns how many were created. Every file's bytes are written to its temp file and
    synced first, the syncs side by side (concurrent fsyncs share the file system's journal
    commits: 65 new issue files wait for about one commit instead of 65 in a row), then the
    names are linked in order, each complete and synced before it appears, as one by one."""
    temps: list[str] = []
    try:
        fds: list[int] = []
        try:
            for path, text in files:
                fd, tmp = _tmp_beside(path)
                temps.append(tmp)
                fds.append(fd)
                data = memoryview(encoded(text))
                while data:
                    data = data[os.write(fd, data) :]
            _fsync_all(fds)
        finally:
            for fd in fds:
                os.close(fd)
        created: list[Path] = []
        for (path, _), tmp in zip(files, temps, strict=True):
            try:
                os.link(tmp, path)
            except FileExistsError:
                break
            created.append(path)
    finally:
        for tmp in temps:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
    for path in created:  # each a whole write, counted once no temp file is left
        _after_write(path)
    return len(created)


def _fsync_all(fds: Sequence[int]) -> None:
    """fsync each of `fds`, several at a time (fsync releases the GIL)."""
    if len(fds) < 2:
        for fd in fds:
            os.fsync(fd)
        return
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=min(16, len(fds))) as pool:
        for _ in pool.map(os.fsync, fds):
            pass


def sync_dir(folder: Path) -> None:
    """One fsync of `folder` after a batch of writes there: the names the batch created or
    replaced are on disk when it returns. The bytes of a file written with `sync=False` are only
    as safe as the file system makes them: ext4 (auto_da_alloc) and XFS write a file renamed over
    another before the rename commits, but a NEW file's bytes may still be lost to a power cut
    (an empty file under its name), so new files that matter keep their own fsync. A folder that
    cannot be opened or synced (another platform) is left as it is."""
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except (OSError, AttributeError):
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_error(exc: OSError, path: Path | str | None = None, *, root: Path | None = None) -> str:
    """One line for a failed write: the file (relative to `root` when given; the error's own
    file name when `path` is None), the operation, the reason (`disk full` …)."""
    return f"{shown_path(exc, path, root=root)}: cannot write: {os_reason(exc)}"


def os_error_line(exc: OSError, *, root: Path | None = None) -> str:
    """One line for an OS error: its file (relative to `root`) and a plain reason, never
    Python's `[Errno 1] Operation not permitted: '/abs/…/INDEX.md' -> None`."""
    if exc.filename is None:
        return os_reason(exc)
    return f"{shown_path(exc, root=root)}: {os_reason(exc)}"


def shown_path(exc: OSError, path: Path | str | None = None, *, root: Path | None = None) -> str:
    """The file an OS error is about, as a line shows it: relative to `root` when inside it."""
    if path is None:
        path = exc.filename if isinstance(exc.filename, str) else "?"
    shown = str(path)
    if root is not None:
        with contextlib.suppress(ValueError, OSError):
            shown = Path(os.path.abspath(path)).relative_to(os.path.abspath(root)).as_posix()
    return shown

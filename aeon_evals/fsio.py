"""Disk I/O: confined reads (open_regular, read_confined, read_cache), writes (atomic, if changed,
exclusive, append), paths under the root (confine, rel_path), the instance lock."""

from __future__ import annotations

import contextlib
import errno
import functools
import hashlib
import json
import os
import signal
import stat
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, BinaryIO

from aeon_evals.errors import EvalsError, PathOutsideRoot, ReadRefused

MB = 1 << 20
CONFIG_CAP = 16 * MB  # aeon.yml, evals.json, cron-state, a skill-health file, SKILL.md
CACHE_CAP = 512 * MB  # one file under .aeon-evals/cache (history.bin of a year of runs: ~10 MB)

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


def rel_path(path: Path, root: Path) -> str:
    """`path` relative to `root` with "/" separators, as messages, articles and cache keys name
    files: from the names as given when `path` lies under `root` as written (no file system
    access), else from both with symlinks resolved (`--root .`, a root reached through a
    symlink); a path outside the root is returned whole, with "/" separators."""
    if os.sep == "/":  # the usual case, by the names' text: a thousand files a run
        text, base = str(path), str(root)
        if text.startswith(base) and base[:1] == text[:1] == "/":
            rest = text[len(base) :]
            if not rest:
                return "."
            if base.endswith("/"):  # the root is `/`
                return rest
            if rest[0] == "/":
                return rest[1:]
    if path.is_relative_to(root):
        return path.relative_to(root).as_posix()
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except (ValueError, OSError):
        return path.as_posix()


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


def inside(root: Path, candidate: Path) -> bool:
    """True when `candidate`, with symlinks resolved, lies within `root`."""
    try:
        candidate.resolve().relative_to(root.resolve())
    except ValueError:
        return False
    return True


class InsideFolders:
    """`inside(root, path)` for the files of a few folders: a file that is no symlink is inside
    exactly when its folder is, and each folder is resolved once (two hundred articles in one
    folder: one resolve, not two hundred)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._folders: dict[Path, bool] = {}

    def __call__(self, path: Path) -> bool:
        if os.path.islink(path):
            return inside(self.root, path)
        folder = path.parent
        known = self._folders.get(folder)
        if known is None:
            known = self._folders[folder] = inside(self.root, folder)
        return known


def confine(root: Path, relative: str, *, what: str) -> Path:
    """Resolve `relative` under `root`, refusing absolute paths, `..` and symlinks out of it."""
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
        link = _first_link(root, path)
        through = f"the symlink {link}" if link else "a symlink"
        raise PathOutsideRoot(
            f"{what} {path.relative_to(root).as_posix()} leads outside the root "
            f"through {through}; not written"
        )


def _first_link(root: Path, path: Path) -> str | None:
    """The first component of `path` under `root` that is a symlink, shown as `name -> target`."""
    try:
        parts = path.relative_to(root).parts
    except ValueError:
        return None
    at = root
    for part in parts:
        at = at / part
        if at.is_symlink():
            with contextlib.suppress(OSError):
                return f"{at.relative_to(root).as_posix()} -> {os.readlink(at)}"
            return at.relative_to(root).as_posix()
    return None


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a special file"


_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC


def _open_plain(root: Path, rel: str) -> int | None:
    """The common case of `open_regular`, without resolving a path: `rel` opened one component
    at a time from the root's folder, never following a symlink (each step is relative to the
    folder opened before, so nothing can lead out of the root in between). None, with nothing
    left open, when anything is out of the ordinary (a symlink, a special file, `.`, `..`):
    `open_regular` then takes the slow path, which says what it is. A missing file raises
    FileNotFoundError, as the slow path would."""
    parts = rel.split("/")
    if rel.startswith("/") or any(p in ("", ".", "..") for p in parts):
        return None
    try:
        fd = os.open(root, _DIR_FLAGS)
    except OSError:
        return None
    try:
        for part in parts[:-1]:
            folder = os.open(part, _DIR_FLAGS | os.O_NOFOLLOW, dir_fd=fd)
            os.close(fd)
            fd = folder
        # stat before open: a device is never opened, a symlink is left to the slow path
        if not stat.S_ISREG(os.stat(parts[-1], dir_fd=fd, follow_symlinks=False).st_mode):
            return None
        found = os.open(
            parts[-1], os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOFOLLOW, dir_fd=fd
        )
    except FileNotFoundError:
        # No symlink on the way to what is missing: the error the slow path raises, cheaper.
        real = os.path.join(os.path.realpath(root), rel)
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), real) from None
    except OSError:
        return None
    finally:
        os.close(fd)
    if not stat.S_ISREG(os.fstat(found).st_mode):  # swapped in between: the slow path refuses it
        os.close(found)
        return None
    return found


def open_regular(root: Path, rel: str) -> BinaryIO:
    """Open the file `rel` under `root` for reading, only if it is a regular file inside the root.

    Symlinks are resolved at every component first: a path leading outside the root raises
    PathOutsideRoot naming the link. Anything but a regular file (a FIFO, /dev/zero, a socket)
    raises ReadRefused before it is opened, and the open itself is non-blocking, so a FIFO
    swapped in between never blocks the run. A folder raises IsADirectoryError and a missing
    file FileNotFoundError, as open() does; other OS errors pass through.
    """
    fd = _open_plain(root, rel)
    if fd is not None:
        return os.fdopen(fd, "rb")
    base = root.resolve()
    path = root / rel
    real = Path(os.path.realpath(path))
    if not real.is_relative_to(base):
        link = _first_link(root, path)
        through = f"the symlink {link}" if link else "a symlink"
        raise PathOutsideRoot(f"leads outside the root through {through}; not read", path=rel)
    mode = os.stat(real).st_mode
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, "Is a directory", rel)
    if not stat.S_ISREG(mode):
        raise ReadRefused(f"is {_kind(mode)}, not a regular file; not read", path=rel)
    fd = os.open(real, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOFOLLOW)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise ReadRefused(f"is {_kind(mode)}, not a regular file; not read", path=rel)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def size_text(size: int) -> str:
    """`52.4 MB`, `140 KB`, `12 bytes`."""
    if size >= MB:
        return f"{size / MB:.1f} MB"
    if size >= 1024:
        return f"{size // 1024} KB"
    return f"{size} bytes"


def read_confined(root: Path, rel: str, *, cap: int = CONFIG_CAP) -> bytes:
    """The bytes of the regular file `rel` under `root` (see `open_regular`), at most `cap` of
    them: a larger file raises ReadRefused saying its size and the limit, without being read."""
    with open_regular(root, rel) as fh:
        size = os.fstat(fh.fileno()).st_size
        if size > cap:
            raise ReadRefused(
                f"is {size_text(size)}, over the {size_text(cap)} limit; not read", path=rel
            )
        data = fh.read(cap + 1)
    if len(data) > cap:  # grew while being read
        raise ReadRefused(f"is over the {size_text(cap)} limit; not read", path=rel)
    return data


def cache_allowed(root: Path) -> bool:
    """False when `.aeon-evals` or `.aeon-evals/cache` leads outside the root through a symlink:
    the caches are then off (nothing is written through it, and reads refuse it anyway)."""
    return inside(root, root / ".aeon-evals" / "cache")


def read_cache(root: Path, path: Path, *, cap: int = CACHE_CAP) -> bytes | None:
    """The bytes of the cache file `path` under `root`, or None (a miss): every cache read goes
    through here. Only a regular file inside the root is opened (`open_regular`: a FIFO, a
    device or a symlink out of the root is refused before it is opened), at most `cap` bytes."""
    try:
        return read_confined(root, rel_path(path, root), cap=cap)
    except (OSError, EvalsError, MemoryError):
        return None


def load_cache_json(root: Path, path: Path, *, cap: int = CACHE_CAP) -> Any:
    """The JSON value of the cache file `path` (see `read_cache`), or None when it is missing,
    refused or cannot be decoded (not UTF-8, not JSON, nested too deep): a miss, never an error."""
    data = read_cache(root, path, cap=cap)
    if data is None:
        return None
    try:
        return json.loads(data)
    except (ValueError, RecursionError, MemoryError):
        return None


def leave_if_orphaned(parent: int) -> None:
    """In a forked child, before each page or body: end the child at once (`os._exit`, nothing
    half-written) when `parent`, the process that forked it, is gone (killed: the child was
    re-parented), so that it never outlives its run nor holds the caller's pipes open."""
    if os.getppid() != parent:
        os._exit(1)


def write_error(exc: OSError, path: Path | str, *, root: Path | None = None) -> str:
    """One line for a failed write: the file, the operation, the reason (`disk full` …)."""
    shown = str(path)
    if root is not None:
        with contextlib.suppress(ValueError):
            shown = Path(path).relative_to(root).as_posix()
    reason = {
        errno.ENOSPC: "no space left on the device",
        errno.EDQUOT: "disk quota exceeded",
        errno.EROFS: "read-only file system",
        errno.EACCES: "permission denied",
        errno.EPERM: "operation not permitted",
        errno.EFBIG: "file too large (a file size limit)",
    }.get(exc.errno or 0, exc.strerror or type(exc).__name__)
    return f"{shown}: cannot write: {reason}"


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


def code_digest(tag: str, names: Iterable[str]) -> hashlib._Hash:
    """A SHA-256 of `tag` and the bytes of the package's modules `names` (one missing is
    skipped): what a cache keyed by the code that wrote it starts from; callers add their own
    inputs to the hash object returned."""
    here = Path(__file__).parent
    digest = hashlib.sha256(tag.encode())
    for name in names:
        with contextlib.suppress(OSError):
            digest.update((here / name).read_bytes())
    return digest

"""Paths under the instance root and confined reads: no symlink out of the root, no FIFO
or device opened, every read bounded."""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path
from typing import BinaryIO

from aeon_evals.errors import PathOutsideRoot, ReadRefused

MB = 1 << 20


CONFIG_CAP = 16 * MB  # aeon.yml, evals.json, cron-state, a skill-health file, SKILL.md


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


def check_writable(root: Path, path: Path, *, what: str = "") -> None:
    """Refuse to write `path` when it (or a symlinked folder on its way) leads outside the root:
    PathOutsideRoot naming the file relative to the root (`site/runs/index.html: leads outside
    the root through the symlink site/runs -> …`). `what` (the article, the site …) is the
    caller's word for it, which the line does not repeat."""
    del what
    if not inside(root, path.parent if not path.exists() else path):
        link = _first_link(root, path)
        through = f"the symlink {link}" if link else "a symlink"
        raise PathOutsideRoot(
            f"leads outside the root through {through}; not written",
            path=path.relative_to(root).as_posix(),
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


def read_plain(root: Path, rel: str, *, cap: int = CONFIG_CAP) -> bytes:
    """The bytes of `rel` under `root` when it is a regular file reached without any symlink
    (not even one inside the root: `.aeon-evals/templates/style.css -> ../../.git/config` would
    publish the checkout's credentials), at most `cap` of them. Raises FileNotFoundError when it
    is missing and ReadRefused for anything else (a symlink, a FIFO, a device, too large)."""
    fd = _open_plain(root, rel)
    if fd is None:
        raise ReadRefused("is a symbolic link or not a regular file; not read", path=rel)
    with os.fdopen(fd, "rb") as fh:
        data = fh.read(cap + 1)
    if len(data) > cap:
        raise ReadRefused(f"is over the {size_text(cap)} limit; not read", path=rel)
    return data


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

"""A guard that fails any test writing outside its temporary folder (as pre-commit's
`dont_write_to_home_directory`): the repository root is itself the demo Aeon instance, so a run
pointed at the wrong root would quietly rewrite the project's own articles, issues and logs.

It watches the interpreter's audit events (PEP 578) for in-process writes: files opened for
writing, renames, removals, new folders and links. A write outside the allowed places is refused
on the spot (the operation raises) and reported when the test ends, even if the code under test
caught the error. Writes by child processes are not seen.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
# event -> ((index of a path argument, index of its dir_fd argument or None), ...)
_PATH_EVENTS: dict[str, tuple[tuple[int, int | None], ...]] = {
    "os.remove": ((0, 1),),
    "os.rmdir": ((0, 1),),
    "os.mkdir": ((0, 2),),
    "os.rename": ((0, 2), (1, 3)),
    "os.symlink": ((1, 2),),
    "os.link": ((1, 3),),
    "os.truncate": ((0, None),),
    "os.chmod": ((0, 2),),
    "shutil.rmtree": ((0, 1),),
    "shutil.copyfile": ((1, None),),
}


class StrayWrite(PermissionError):
    """A test wrote outside its temporary folder."""


class _Guard:
    def __init__(self) -> None:
        self.allowed: tuple[str, ...] | None = None  # None: not inside a test
        self.guarded = ""  # the repository: only its own allowed folders, even under /tmp
        self.guarded_allowed: tuple[str, ...] = ()
        self.strays: list[str] = []

    def hook(self, event: str, args: tuple[object, ...]) -> None:
        if self.allowed is None:
            return
        if event == "open":
            path, mode, flags = args
            if isinstance(mode, str):
                if not any(c in mode for c in "wax+"):
                    return
            elif not isinstance(flags, int) or not flags & _WRITE_FLAGS:
                return
            self._check(event, path, None)
        elif event in _PATH_EVENTS:
            for index, fd_index in _PATH_EVENTS[event]:
                if index < len(args):
                    dir_fd = (
                        args[fd_index] if fd_index is not None and fd_index < len(args) else None
                    )
                    self._check(event, args[index], dir_fd)

    def _check(self, event: str, target: object, dir_fd: object) -> None:
        if isinstance(target, bytes):
            target = os.fsdecode(target)
        if not isinstance(target, str | os.PathLike):
            return  # a file descriptor: opened (and checked) earlier
        name = os.fspath(target)
        if isinstance(dir_fd, int) and dir_fd >= 0 and not os.path.isabs(name):
            name = os.path.join(os.readlink(f"/proc/self/fd/{dir_fd}"), name)  # shutil.rmtree
        path = os.path.abspath(name)
        assert self.allowed is not None
        inside = path + os.sep
        if inside.startswith(self.guarded):  # a clone may itself live under the temp folder
            if inside.startswith(self.guarded_allowed):
                return
        elif inside.startswith(self.allowed) or path.startswith("/dev/"):
            return
        if event == "os.mkdir" and os.path.isdir(path):
            return  # `mkdir(exist_ok=True)` of a folder that is there changes nothing
        name = os.path.basename(path)
        if name.endswith((".actual", ".pyc")) or "__pycache__" in path:
            return  # golden mismatches are saved beside the golden file; bytecode caches
        self.strays.append(f"{event} {path}")
        raise StrayWrite(f"test wrote outside its temporary folder: {event} {path}")

    @contextmanager
    def watching(self, *allowed: Path, guarded: Path) -> Iterator[list[str]]:
        """Watch writes: allowed under `allowed`, except inside `guarded` (the repository),
        where only the `allowed` folders that lie in it are."""
        self.allowed = tuple(os.path.abspath(p) + os.sep for p in allowed)
        self.guarded = os.path.abspath(guarded) + os.sep
        self.guarded_allowed = tuple(a for a in self.allowed if a.startswith(self.guarded))
        self.strays = []
        try:
            yield self.strays
        finally:
            self.allowed = None


GUARD = _Guard()
sys.addaudithook(GUARD.hook)

"""One pure computation on the second core: a forked child works it out while this process goes
on with other work, and hands the result back pickled through a pipe.

The computation must not write anything: when the child cannot give a result (it failed, was
killed, the platform cannot fork) this process works it out itself, so an error is raised here
exactly as it would have been without the child.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import sys
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")

FORK = hasattr(os, "fork")


class Forked(Generic[T]):
    """`work()` computed in a forked child when `fork` (and the platform can), else on `result()`
    here. `result()` must be called, or `abandon()` on the way out of an error."""

    def __init__(self, work: Callable[[], T], *, fork: bool) -> None:
        self._work = work
        self._pid: int | None = None
        self._read: int | None = None
        if fork and FORK:
            self._start()

    def _start(self) -> None:
        read, write = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        try:
            pid = os.fork()
        except OSError:  # no room for a process: worked out here instead
            os.close(read)
            os.close(write)
            return
        if pid == 0:  # the child: compute, hand over, leave without the parent's exit handlers
            code = 1
            try:
                os.close(read)
                try:
                    payload = pickle.dumps(self._work(), protocol=pickle.HIGHEST_PROTOCOL)
                    code = 0
                except BaseException:  # the parent works it out and raises it itself
                    payload = b""
                with os.fdopen(write, "wb") as fh:
                    fh.write(payload)
            finally:
                os._exit(code)
        os.close(write)
        self._pid, self._read = pid, read

    def result(self) -> T:
        """The child's result, or `work()` computed here when the child gave none."""
        if self._pid is None or self._read is None:
            return self._work()
        chunks = []
        try:
            with os.fdopen(self._read, "rb") as fh:
                self._read = None
                while chunk := fh.read(1 << 20):
                    chunks.append(chunk)
        finally:
            _, status = os.waitpid(self._pid, 0)
            self._pid = None
        if os.waitstatus_to_exitcode(status) == 0 and chunks:
            with contextlib.suppress(Exception):
                return pickle.loads(b"".join(chunks))  # type: ignore[no-any-return]
        return self._work()

    def abandon(self) -> None:
        """Stop the child (an error or a signal ends the run): killed and reaped, never left."""
        if self._read is not None:
            with contextlib.suppress(OSError):
                os.close(self._read)
            self._read = None
        if self._pid is not None:
            with contextlib.suppress(OSError):
                os.kill(self._pid, signal.SIGKILL)
            with contextlib.suppress(OSError):
                os.waitpid(self._pid, 0)
            self._pid = None


def leave_if_orphaned(parent: int) -> None:
    """In a forked child, before each page or body: end the child at once (`os._exit`, nothing
    half-written) when `parent`, the process that forked it, is gone (killed: the child was
    re-parented), so that it never outlives its run nor holds the caller's pipes open."""
    if os.getppid() != parent:
        os._exit(1)

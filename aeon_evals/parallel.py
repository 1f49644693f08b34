"""The one way to work alongside: a pure job worked out in a forked child while this process goes
on, its typed result handed back pickled in an anonymous temporary file (not a pipe: a child
whose result is megabytes of pages would wait for the parent to read each 64 KiB of it, after
the parent's own share of the work; it writes the file while the parent works).

A job must only read and compute (it writes nothing: the parent writes what it returns). So
when the child cannot give a result (the platform cannot fork, the fork failed, the job raised,
the child was killed) the parent works the job out itself, and an error is raised there exactly
as it would have been without a child. Orphans and signals are handled here and only here: a
child dies with its parent (Linux's parent-death signal, and `checkpoint()` between items of a
long job elsewhere), takes the default action on SIGTERM and SIGINT, and `abandon()` kills and
reaps it when the parent leaves early (an error, a signal).
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import sys
import tempfile
from collections.abc import Callable
from typing import BinaryIO, Generic, TypeVar

T = TypeVar("T")

FORK = hasattr(os, "fork")
_FAILED = object()  # a child's job that raised
_PR_SET_PDEATHSIG = 1  # prctl(2)
_parent: int | None = None  # in a child: the pid of the process that forked it


class Forked(Generic[T]):
    """`work()` computed in a forked child when `fork` (and the platform can), else on `result()`
    here. `result()` must be called, or `abandon()` on the way out of an error."""

    def __init__(self, work: Callable[[], T], *, fork: bool) -> None:
        self._work = work
        self._pid: int | None = None
        self._file: BinaryIO | None = None
        if fork and FORK:
            self._start()

    @property
    def forked(self) -> bool:
        """Whether a child is working the job out."""
        return self._pid is not None

    def _start(self) -> None:
        try:  # no name in any folder (O_TMPFILE, or unlinked at once): nothing to plant or follow
            result = tempfile.TemporaryFile()  # noqa: SIM115 (closed by result() or abandon())
        except OSError:  # no temporary folder to write in: worked out here instead
            return
        sys.stdout.flush()
        sys.stderr.flush()
        parent = os.getpid()
        # SIGTERM and SIGINT held back over the fork: the parent's handlers raise, and a signal
        # landing in the fork's own handlers (logging's lock release) was printed as an ignored
        # exception with its traceback; it is taken just after, in the parent
        held = _hold()
        try:
            pid = os.fork()
        except OSError:  # no room for a process: worked out here instead
            _release(held)
            result.close()
            return
        if pid == 0:  # the child: compute, hand over, leave without the parent's exit handlers
            code = 1
            try:
                _become_child(parent)
                _release(held)  # the default actions now: a signal ends the child
                found: object = _FAILED
                with contextlib.suppress(BaseException):  # the parent works it out, raises it
                    found = self._work()
                if found is not _FAILED:
                    try:  # pickled straight into the file: no copy of megabytes of pages
                        pickle.dump(found, result, protocol=pickle.HIGHEST_PROTOCOL)
                        result.flush()
                        code = 0
                    except OSError:  # (a full disk: worked out again)
                        pass
                    except Exception as exc:  # a result that cannot travel: a bug, said
                        print(
                            f"aeon-evals: internal: a forked job's result cannot be handed back "
                            f"({type(exc).__name__}: {exc}); it is worked out again",
                            file=sys.stderr,
                        )
            finally:
                os._exit(code)
        self._pid, self._file = pid, result
        _release(held)

    def result(self) -> T:
        """The child's result, or `work()` computed here when the child gave none."""
        if self._pid is None or self._file is None:
            return self._work()
        try:
            _, status = os.waitpid(self._pid, 0)
            self._pid = None
            if os.waitstatus_to_exitcode(status) == 0:
                self._file.seek(0)
                with contextlib.suppress(Exception):
                    return pickle.load(self._file)  # type: ignore[no-any-return]
        finally:
            self._file.close()
            self._file = None
        return self._work()

    def abandon(self) -> None:
        """Stop the child (an error or a signal ends the run): killed and reaped, never left."""
        if self._pid is not None:
            with contextlib.suppress(OSError):
                os.kill(self._pid, signal.SIGKILL)
            with contextlib.suppress(OSError):
                os.waitpid(self._pid, 0)
            self._pid = None
        if self._file is not None:
            self._file.close()
            self._file = None


_SIGNALS = {signal.SIGTERM, signal.SIGINT}


def _hold() -> set[int | signal.Signals] | None:
    """Block SIGTERM and SIGINT; the mask before, to give back to `_release`."""
    if not hasattr(signal, "pthread_sigmask"):
        return None
    return signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNALS)


def _release(held: set[int | signal.Signals] | None) -> None:
    if held is not None:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def _become_child(parent: int) -> None:
    """What a forked child does first: the default action on SIGTERM and SIGINT (the parent's
    handlers would unwind its stack in here), and death with the parent."""
    global _parent
    _parent = parent
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    if sys.platform.startswith("linux"):
        with contextlib.suppress(Exception):
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    checkpoint()  # the parent may have died before the signal was asked for


def checkpoint() -> None:
    """Between the items of a long job: in a child whose parent is gone (killed; the child was
    re-parented), end at once, so that no child outlives its run or holds its pipes open. Does
    nothing in the parent."""
    if _parent is not None and os.getppid() != _parent:
        os._exit(1)

"""The instance lock: one writing run per instance root at a time."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path


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

"""How the `aeon-evals` process ends (cli.leave): its output flushed, its code kept, no teardown.

The console script ends with `os._exit` once stdout and stderr are flushed, so what a command
printed must never be lost, a reader that leaves early is no failure, and an unwritable standard
output is one line and exit 2, never a traceback.
"""

from __future__ import annotations

import os
import subprocess
import sys

LEAVE = "from aeon_evals.cli import leave; import sys; "


# standard output buffered, as a user's shell leaves it (this machine's environment sets
# PYTHONUNBUFFERED, which would hide a missing flush)
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}


def child(code: str, **kwargs: object) -> subprocess.Popen[bytes]:
    argv = [sys.executable, "-c", LEAVE + code]
    return subprocess.Popen(argv, stderr=subprocess.PIPE, env=ENV, **kwargs)  # type: ignore[call-overload]


def test_what_was_printed_arrives_and_the_code_is_kept() -> None:
    # a pipe is block-buffered: without the flush before os._exit the text would be lost
    proc = child("print('the article', end=''); leave(3)", stdout=subprocess.PIPE)
    out, err = proc.communicate(timeout=60)
    assert (proc.returncode, out, err) == (3, b"the article", b"")


def test_a_reader_that_leaves_early_is_no_failure() -> None:
    # the command's last lines wait in the buffer; the reader leaves before they are flushed
    # (`aeon-evals audit | head -1`); the child goes on when told on its stdin
    proc = child(
        "print('last lines'); sys.stdin.readline(); leave(0)",
        stdout=subprocess.PIPE,
        stdin=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stdin is not None
    proc.stdout.close()
    proc.stdin.write(b"go\n")
    proc.stdin.close()
    assert proc.stderr is not None
    err = proc.stderr.read()
    assert proc.wait(timeout=60) == 0
    assert err == b"", err


def test_an_unwritable_standard_output_is_one_line_and_exit_2() -> None:
    # a standard output on a full disk: its bytes reach the device only when flushed (a file's
    # buffer), and the device refuses them, as a full file system does
    full = (
        "import errno, io\n"
        "class Full(io.RawIOBase):\n"
        "    def writable(self): return True\n"
        "    def write(self, b): raise OSError(errno.ENOSPC, 'No space left on device')\n"
        "sys.stdout = io.TextIOWrapper(io.BufferedWriter(Full()))\n"
        "print('a line'); leave(0)\n"
    )
    proc = child(full, stdout=subprocess.DEVNULL)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 2
    assert err.decode().splitlines() == ["aeon-evals: standard output: No space left on device"]


def test_the_console_script_ends_with_the_commands_code() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "aeon_evals", "--version"], capture_output=True, text=True
    )
    assert (done.returncode, done.stdout.strip()) == (0, "aeon-evals 0.1.0")
    done = subprocess.run(
        [sys.executable, "-m", "aeon_evals", "no-such-command"], capture_output=True, text=True
    )
    assert done.returncode == 2 and "invalid choice" in done.stderr

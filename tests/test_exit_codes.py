"""Exit codes are decided in one place (errors.ExitCode) and documented from it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from aeon_evals.cli import build_parser
from aeon_evals.errors import EXIT_MEANINGS, ExitCode

README = Path(__file__).parent.parent / "README.md"


def test_every_exit_code_has_a_meaning_in_help_and_a_row_in_the_readme() -> None:
    assert set(EXIT_MEANINGS) == set(ExitCode), "add the new code's meaning to EXIT_MEANINGS"
    help_text = build_parser().format_help()
    readme_codes = {int(m) for m in re.findall(r"^\| (\d+) \|", README.read_text(), re.M)}
    for code in ExitCode:
        assert re.search(rf"^  {code.value} +\S", help_text, re.M), code
        assert code.value in readme_codes, f"README's exit-code table has no row for {code.value}"
    for command in build_parser()._subparsers._group_actions[0].choices.values():  # type: ignore[union-attr]
        assert "exit codes:" in command.format_help()


def test_readme_exit_code_table_lacked_143_sigterm() -> None:
    """The README's table had no row for 130 (Ctrl-C) or 143 (SIGTERM), which the CLI returns:
    every code of ExitCode is listed exactly once, and the table lists no other."""
    import signal

    from aeon_evals.cli import _terminated

    listed = [int(m) for m in re.findall(r"^\| (\d+) \|", README.read_text(), re.M)]
    assert sorted(listed) == sorted(code.value for code in ExitCode)
    assert ExitCode.TERMINATED == 143 and ExitCode.INTERRUPTED == 130
    with pytest.raises(SystemExit) as stop:
        _terminated(signal.SIGTERM, None)
    assert stop.value.code == ExitCode.TERMINATED

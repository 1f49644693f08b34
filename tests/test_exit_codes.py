"""Exit codes are decided in one place (errors.ExitCode) and documented from it."""

from __future__ import annotations

import re
from pathlib import Path

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

"""Golden files: rendered output against tests/golden/NAME; AEON_EVALS_UPDATE_GOLDEN=1 rewrites."""

from __future__ import annotations

import difflib
import os
from pathlib import Path

GOLDEN = Path(__file__).parent / "golden"


def assert_golden(name: str, actual: str) -> None:
    path = GOLDEN / name
    if os.environ.get("AEON_EVALS_UPDATE_GOLDEN") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(actual, encoding="utf-8")
        return
    expected = path.read_text(encoding="utf-8") if path.exists() else ""
    if actual != expected:
        actual_path = path.with_name(path.name + ".actual")
        actual_path.write_text(actual, encoding="utf-8")
        diff = "".join(
            difflib.unified_diff(
                expected.splitlines(True), actual.splitlines(True), str(path), str(actual_path)
            )
        )
        raise AssertionError(
            f"{name} differs from its golden file (saved {actual_path}; accept with "
            f"AEON_EVALS_UPDATE_GOLDEN=1):\n{diff}"
        )

"""Where the packaged templates and the bundled demo instance live, installed or in a checkout."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent
_BUNDLED = _PACKAGE / "_bundled"  # filled by the wheel build (pyproject force-include)
_CHECKOUT = _PACKAGE.parent  # a source checkout or an editable install


def templates_dir() -> Path:
    """The packaged default templates (`templates/` at the repository root)."""
    bundled = _BUNDLED / "templates"
    return bundled if bundled.is_dir() else _CHECKOUT / "templates"


def demo_instance_dir() -> Path:
    """The small Aeon instance shipped for `aeon-evals demo` (the repository root itself)."""
    bundled = _BUNDLED / "instance"
    return bundled if bundled.is_dir() else _CHECKOUT


DEMO_PARTS = ("aeon.yml", "skills", "memory", "articles")

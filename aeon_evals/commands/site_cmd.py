"""`aeon-evals site`: rebuild the static dashboard from the articles on disk."""

from __future__ import annotations

import argparse
from typing import Any


def add_parser(sub: Any, *, epilog: str) -> None:
    from aeon_evals import site

    p = sub.add_parser(
        "site",
        help="rebuild the static HTML dashboard (default: <root>/site)",
        description="Render index.html and one page per skill-evals article; opens from file://, no network.",
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    site.add_arguments(p)
    p.set_defaults(func=site.run)

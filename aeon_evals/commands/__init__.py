"""One module per subcommand: each has `add_parser(subparsers)` and a `run(args) -> int`."""

from __future__ import annotations

import argparse
from pathlib import Path

CONFIG_HELP = (
    "the skill registry, relative to the root (default: aeon.yml, else the one root "
    "*.yml with a top-level skills: block, e.g. claw.yml)"
)


def add_instance_options(p: argparse.ArgumentParser, *, config: bool = True) -> None:
    """`--root` (and `--config`): where the Aeon instance is, the same for every command."""
    p.add_argument(
        "--root", type=Path, default=Path("."), help="instance root (default: current directory)"
    )
    if config:
        p.add_argument("--config", metavar="FILE", help=CONFIG_HELP)

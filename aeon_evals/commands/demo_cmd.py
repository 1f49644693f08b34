"""`aeon-evals demo`: a bundled instance, its dates made recent, evaluated end to end."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from aeon_evals import clock
from aeon_evals.commands import summary
from aeon_evals.commands.run_cmd import to_json
from aeon_evals.errors import UsageError
from aeon_evals.run import demo, pipeline
from aeon_evals.run.data import RunOptions


def add_parser(sub: Any, *, epilog: str) -> None:
    p = sub.add_parser(
        "demo",
        help=summary("demo"),
        description="Copies the bundled instance to DIR (default: ./aeon-evals-demo), shifts its "
        "dates so they are recent, and runs the nightly job on it: article, issues, log, "
        "dashboard.",
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "dir", nargs="?", type=Path, help="where to create the demo instance (must not exist)"
    )
    p.add_argument("--today", metavar="YYYY-MM-DD", help="pin the run date")
    p.add_argument("--now", metavar="ISO-8601", help="pin the clock")
    p.add_argument("--json", action="store_true", help="print the run's JSON result")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    today, now = clock.resolve(args.today, args.now)
    if args.dir is not None and args.dir.exists():
        raise UsageError(f"{args.dir} already exists; name a new folder")
    target = args.dir or demo.free_folder(Path.cwd() / "aeon-evals-demo")
    demo.make_demo(target, today)
    root = target.resolve()
    outcome = pipeline.run(RunOptions(root=root, today=today, now=now))
    if args.json:
        import json

        print(json.dumps(to_json(outcome), indent=2, ensure_ascii=False))
        return 0
    print(f"demo instance: {root}")
    for line in outcome.ledger():
        print(f"  {line}")
    print(f"\nopen the dashboard: {root / 'site' / 'index.html'}")
    print(f"read the article:   {root / (outcome.article_path or '')}")
    print(f"try it yourself:    aeon-evals run --root {root} --dry-run")
    return 0

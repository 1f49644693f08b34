"""`aeon-evals site`: rebuild the static dashboard from the articles on disk."""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aeon_evals import clock
from aeon_evals.commands import CONFIG_HELP, summary
from aeon_evals.errors import ExitCode, UsageError, WriteFailed
from aeon_evals.fs.write import write_error
from aeon_evals.load import layout
from aeon_evals.model.problems import warning_line

if TYPE_CHECKING:
    from aeon_evals.cache.folder import Cache
    from aeon_evals.catalog.summary import CatalogSummary


def add_parser(sub: Any, *, epilog: str) -> None:
    """Register `aeon-evals site` and its options."""
    p = sub.add_parser(
        "site",
        help=summary("site"),
        description=(
            "Render index.html, one page per skill-evals article, one page per skill "
            "(skills/) and the status badges (badges/); opens from file://, no network."
        ),
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--root", default=".", metavar="DIR", help="instance root (default: .)")
    p.add_argument(
        "--out", default=None, metavar="DIR", help="output folder (default: <root>/site)"
    )
    p.add_argument(
        "--articles-dir",
        metavar="DIR",
        help="the article folder, relative to the root (default: output/articles when it "
        "exists, else articles; articles from the other folder are shown too)",
    )
    p.add_argument("--config", metavar="FILE", help=CONFIG_HELP)
    p.add_argument(
        "--now",
        default=None,
        metavar="ISO-8601",
        help="pin the clock, e.g. 2026-08-16T22:00:00Z (default: now, UTC)",
    )
    p.add_argument(
        "--lock-timeout",
        type=float,
        default=60.0,
        metavar="SECONDS",
        help="wait this long for a run writing the instance to finish (default 60), then exit 4",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Build the site under the instance lock (a run's publish step writes the same pages: run
    alongside a nightly run, the rebuild lost the new run's page); print warnings to stderr and
    one summary line to stdout."""
    from aeon_evals.fs.lock import instance_lock

    root = Path(args.root)
    if not root.is_dir():
        return _build(args)
    if not (math.isfinite(args.lock_timeout) and 0 <= args.lock_timeout <= 86400):
        raise UsageError(
            f"--lock-timeout {args.lock_timeout:g}: expected a number of seconds from 0 to 86400"
        )
    with instance_lock(root, timeout=args.lock_timeout):
        return _build(args)


def _build(args: argparse.Namespace) -> int:
    from aeon_evals.articles.store import ArticleStore
    from aeon_evals.cache.folder import Cache
    from aeon_evals.site import build_site
    from aeon_evals.site.skill_site import site_history
    from aeon_evals.text.controls import one_line

    _today, now = clock.resolve(None, args.now)  # the one `--now` parser: any offset → UTC
    root = Path(args.root)
    # no dashboard, and no folder made, for a folder that is no Aeon instance (exit 2)
    found = layout.instance(root.resolve(), articles=args.articles_dir, config=args.config)
    out = Path(args.out) if args.out else root / "site"
    cache = Cache(root)
    store = ArticleStore(root, dirs=found.article_dirs, cache=cache)
    # The metrics history is read here, not inside build_site, so that a metrics file it
    # skips (truncated, binary, another format version) is named on stderr as a run names it.
    history = site_history(root, store)
    try:  # a folder that cannot be made (`--out /proc/x`) is one line, not a traceback
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise WriteFailed(write_error(exc, out)) from None
    catalog = _catalog(root, cache, found.config)
    outcome = build_site(root, out, now=now, store=store, catalog=catalog, history=history)
    store.save()
    cache.save()
    for warning in (*cache.warnings, *outcome.warnings, *(history.warnings if history else ())):
        print(one_line(warning_line(warning)), file=sys.stderr)  # names in it are data
    for line in outcome.failed:  # index.html was written; these pages were not
        print(f"aeon-evals: {one_line(line)}", file=sys.stderr)
    written = len(outcome.written)
    print(
        f"site: wrote {written} page{'s' * (written != 1)} ({len(outcome.unchanged)} unchanged)"
        f"{outcome.extra()} to {out}{outcome.not_written()}"
    )
    return int(ExitCode.ERROR) if outcome.failed else 0


def _catalog(root: Path, cache: Cache, config: str) -> CatalogSummary | None:
    """The catalog checks for the dashboard's Catalog panel (as the nightly run passes them);
    a failure only leaves the panel out."""
    from aeon_evals.catalog.summary import catalog_summary

    try:
        return catalog_summary(root, cache, config)
    except Exception as exc:  # the panel is a side view: the dashboard must still be built
        print(f"warning: catalog checks skipped: {type(exc).__name__}: {exc}", file=sys.stderr)
        return None

"""`aeon-evals run`: the nightly job."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from aeon_evals import clock, pipeline
from aeon_evals.errors import ExitCode
from aeon_evals.model import Verdict


def add_parser(sub: Any, *, epilog: str) -> None:
    p = sub.add_parser(
        "run",
        help="evaluate every skill, diff against the previous article, write the dated article",
        description="Evaluate an Aeon instance: checks a–g per skill, diff against the newest earlier "
        "articles/skill-evals-*.md, file/close issues, write the article, the log section and the dashboard, "
        "and notify when something changed.",
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_run_arguments(p)
    p.set_defaults(func=run)


def add_run_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--root", type=Path, default=Path("."), help="instance root (default: current directory)")
    p.add_argument("--skill", metavar="NAME", help="evaluate one skill; other rows of today's article are kept")
    p.add_argument("--today", metavar="YYYY-MM-DD", help="pin the run date (default: today, UTC)")
    p.add_argument("--now", metavar="ISO-8601", help="pin the clock, e.g. 2026-05-31T06:00:00Z")
    p.add_argument("--dry-run", action="store_true", help="evaluate and print; write nothing, notify no one")
    p.add_argument("--json", action="store_true", help="print the whole result as JSON on stdout (and nothing else there)")
    p.add_argument("--no-notify", action="store_true", help="never call the notifier")
    p.add_argument("--notify-cmd", metavar="PATH", help="notifier to call instead of <root>/notify")
    p.add_argument("--notify-timeout", type=float, default=30.0, metavar="SECONDS", help="kill a notifier that runs longer (default 30)")
    p.add_argument("--no-site", action="store_true", help="do not rebuild the static dashboard")
    p.add_argument("--site-out", type=Path, metavar="DIR", help="dashboard folder (default: <root>/site)")
    p.add_argument("--lock-timeout", type=float, default=60.0, metavar="SECONDS", help="wait this long for another run to finish (default 60), then exit 4")
    p.add_argument("--retry-delay", type=float, default=5.0, metavar="SECONDS", help="wait before re-reading an evals.json that did not parse (default 5)")


def options(args: argparse.Namespace) -> pipeline.RunOptions:
    today, now = clock.resolve(args.today, args.now)
    return pipeline.RunOptions(
        root=args.root.resolve(),
        today=today,
        now=now,
        skill=args.skill,
        dry_run=args.dry_run,
        notify=not args.no_notify,
        notify_cmd=args.notify_cmd,
        notify_timeout=args.notify_timeout,
        retry_delay=args.retry_delay,
        lock_timeout=args.lock_timeout,
        site=not args.no_site,
        site_out=args.site_out.resolve() if args.site_out else None,
    )


def to_json(outcome: pipeline.RunOutcome) -> dict[str, Any]:
    """The machine-readable result: enough evidence to check a run later."""
    data = outcome.article
    skills = []
    for row in outcome.rows:
        result = row.result
        if result is None:
            continue
        out = result.output
        skills.append(
            {
                "skill": result.skill,
                "status": result.status.value,
                "diff": str(row.label),
                "root_causes": [{"code": c.code, "status": c.status.value, "detail": c.detail} for c in result.causes],
                "words": result.words,
                "quality": result.quality,
                "enabled": result.enabled,
                "registered": result.registered,
                "muted_until": result.muted.until.isoformat() if result.muted else None,
                "flaky": row.flaky,
                "issue": row.issue,
                "failing_since": row.failing_since.since.isoformat() if row.failing_since else None,
                "notes": list(result.notes),
                "output": None
                if out is None
                else {"path": out.path, "size": out.size, "sha256": out.sha256, "age_days": None if out.age_days is None else round(out.age_days, 3), "age_source": out.age_source},
            }
        )
    return {
        "verdict": outcome.verdict.value,
        "date": outcome.day.isoformat(),
        "coverage": None
        if data is None
        else {
            "covered": data.coverage.covered,
            "enabled": data.coverage.enabled,
            "pct": round(data.coverage.pct, 2),
            "previous_pct": data.previous_pct,
        },
        "diff": None
        if data is None
        else {
            "new_fail": data.counts.new_fail,
            "fixed": data.counts.fixed,
            "still_failing": data.counts.still_failing,
            "stable": data.counts.stable,
            **{k.lower(): v for k, v in sorted(data.counts.other.items())},
        },
        "action_queue": data.actions if data else [],
        "skills": skills,
        "issues": {
            "filed": [{"id": i.id, "skill": i.skill, "path": i.path} for i in outcome.issues.filed],
            "closed": [{"id": i.id, "skill": i.skill, "path": i.path} for i in outcome.issues.closed],
        },
        "artifacts": {
            "article": outcome.article_written,
            "log": outcome.log_written,
            "site": outcome.site_written,
            "notification": outcome.notified,
        },
        "prior_article": outcome.prior.path if outcome.prior else None,
        "warnings": outcome.warnings,
    }


def run(args: argparse.Namespace) -> int:
    opts = options(args)
    outcome = pipeline.run(opts)
    human = sys.stderr if args.json else sys.stdout
    if args.json:
        print(json.dumps(to_json(outcome), indent=2, ensure_ascii=False))
    elif args.dry_run and outcome.article is not None:
        from aeon_evals import render

        print(render.render_article(outcome.article), file=human)
    for message in outcome.messages:
        print(message, file=human)
    for warning in outcome.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    for line in outcome.ledger():
        print(line, file=human)
    if outcome.verdict is Verdict.BOOTSTRAP:
        return ExitCode.BOOTSTRAP
    return ExitCode.OK

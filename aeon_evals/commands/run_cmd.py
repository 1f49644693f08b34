"""`aeon-evals run`: the nightly job."""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from collections.abc import Mapping
from datetime import timedelta
from pathlib import Path
from typing import Any, TextIO

from aeon_evals import clock
from aeon_evals.checks import skill as checks
from aeon_evals.ci import gate as ci
from aeon_evals.commands import CONFIG_HELP, summary
from aeon_evals.errors import EvalsError, ExitCode, UsageError, WriteFailed
from aeon_evals.fs.confine import read_confined
from aeon_evals.fs.write import atomic_write, write_error
from aeon_evals.load import layout
from aeon_evals.load.manifest import EVALS_PATH
from aeon_evals.model import ContractsMode
from aeon_evals.model.problems import warning_line
from aeon_evals.run.data import RunOptions, RunOutcome
from aeon_evals.text.controls import one_line

NO_NOTIFIER = (
    "no notifier: no executable ./notify at the instance root, so this run can alert no one "
    "(the workflow provides one from scripts/notify.sh or the instance's aeon workflow; see "
    "docs/scheduling.md)"
)


def add_parser(sub: Any, *, epilog: str) -> None:
    p = sub.add_parser(
        "run",
        help=summary("run"),
        description="Evaluate an Aeon instance: checks a–g per skill, diff against the newest "
        "earlier articles/skill-evals-*.md, file/close issues, write the article, the log section "
        "and the dashboard, and notify when something changed.",
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_run_arguments(p)
    p.set_defaults(func=run)


def add_run_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--root", type=Path, default=Path("."), help="instance root (default: current directory)"
    )
    p.add_argument(
        "--contracts",
        choices=[m.value for m in ContractsMode],
        help="skills without an evals.json entry, evaluated on their SKILL.md's output contract: "
        "report (shown apart, no issues, no verdict; the default), enforce (like evals.json "
        'specs) or off; overrides evals.json\'s "contracts"',
    )
    p.add_argument(
        "--skill", metavar="NAME", help="evaluate one skill; other rows of today's article are kept"
    )
    add_layout_arguments(p)
    p.add_argument(
        "--force",
        action="store_true",
        help="replace today's article even when aeon-evals did not write it (the LLM skill did); "
        "without it such a run stops with exit 6",
    )
    p.add_argument("--today", metavar="YYYY-MM-DD", help="pin the run date (default: today, UTC)")
    p.add_argument("--now", metavar="ISO-8601", help="pin the clock, e.g. 2026-05-31T06:00:00Z")
    p.add_argument(
        "--grace",
        type=parse_grace,
        default=checks.GRACE,
        metavar="DURATION",
        help="a skill whose scheduled run fired this recently (or whose dispatch in cron-state has "
        "no result yet) is judged on its previous output: 2h (default), 90m, 0 to turn off",
    )
    p.add_argument(
        "--dry-run", action="store_true", help="evaluate and print; write nothing, notify no one"
    )
    p.add_argument(
        "--json",
        action="store_true",
        help="print the whole result as JSON on stdout (and nothing else there)",
    )
    p.add_argument("--no-notify", action="store_true", help="never call the notifier")
    p.add_argument("--notify-cmd", metavar="PATH", help="notifier to call instead of <root>/notify")
    p.add_argument(
        "--notify-timeout",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="kill a notifier that runs longer (default 30)",
    )
    p.add_argument("--no-site", action="store_true", help="do not rebuild the static dashboard")
    p.add_argument(
        "--site-out", type=Path, metavar="DIR", help="dashboard folder (default: <root>/site)"
    )
    p.add_argument(
        "--lock-timeout",
        type=float,
        default=60.0,
        metavar="SECONDS",
        help="wait this long for another run to finish (default 60), then exit 4",
    )
    p.add_argument(
        "--retry-delay",
        type=float,
        default=5.0,
        metavar="SECONDS",
        help="wait before re-reading an evals.json that did not parse (default 5)",
    )
    p.add_argument(
        "--fail-on",
        choices=[m.value for m in ci.FailOn],
        default=ci.FailOn.NEVER.value,
        help="exit 1 when the verdict is REGRESSED/QUALITY_DROP (regressed) or any enabled, "
        "unmuted skill is FAIL/QUALITY_DEGRADED/NO_OUTPUT (failing); default never",
    )
    p.add_argument(
        "--junit",
        type=Path,
        metavar="FILE",
        help="write a JUnit XML report (one testcase per skill) to FILE",
    )


MAX_SECONDS = 86_400.0  # a day: any longer wait is a typo (`1e308` would overflow a deadline)


def _seconds(option: str, value: float, *, zero: bool = True) -> float:
    """A number of seconds from the command line: finite, not negative, at most a day."""
    if not math.isfinite(value) or value < 0 or (value == 0 and not zero) or value > MAX_SECONDS:
        span = f"from 0 to {MAX_SECONDS:g}" if zero else f"above 0, at most {MAX_SECONDS:g}"
        raise UsageError(f"{option} {value:g}: expected a number of seconds {span}")
    return value


def check_junit(path: Path | None) -> None:
    """`--junit FILE` names a file in an existing folder (the folder is never created)."""
    if path is None:
        return
    if path.is_dir():
        raise UsageError(f"--junit {path}: is a folder; name the XML file to write")
    if not path.parent.is_dir():
        raise UsageError(f"--junit {path}: folder {path.parent} does not exist")


def add_layout_arguments(p: argparse.ArgumentParser, *, articles: bool = True) -> None:
    """`--config FILE` (and `--articles-dir DIR`): override what `layout.detect` finds."""
    p.add_argument(
        "--config",
        metavar="FILE",
        help=CONFIG_HELP,
    )
    if articles:
        p.add_argument(
            "--articles-dir",
            metavar="DIR",
            help="the article folder, relative to the root (default: output/articles when it "
            "exists, else articles)",
        )


def options(args: argparse.Namespace) -> RunOptions:
    _seconds("--notify-timeout", args.notify_timeout, zero=False)
    _seconds("--lock-timeout", args.lock_timeout)
    _seconds("--retry-delay", args.retry_delay)
    check_junit(getattr(args, "junit", None))
    today, now = clock.resolve(args.today, args.now)
    root = args.root.resolve()
    # a folder with no skill registry is no instance: exit 2 naming what was looked for, never
    # an OK verdict over an empty fleet
    found = layout.instance(root, articles=args.articles_dir, config=args.config)
    return RunOptions(
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
        grace=args.grace,
        contracts=ContractsMode(args.contracts) if args.contracts else None,
        layout=found,
        force=args.force,
    )


def parse_grace(text: str) -> timedelta:
    """`--grace`: `2h`, `90m`, `1.5h` or a number of hours; `0` turns the grace off."""
    raw = text.strip().lower()
    scale = {"h": 60.0, "m": 1.0}.get(raw[-1:])
    number = raw[:-1] if scale is not None else raw
    try:
        value = float(number) * (scale if scale is not None else 60.0)
    except ValueError:
        value = -1.0
    if not 0 <= value < 10_000_000:
        raise argparse.ArgumentTypeError(f"expected a duration such as 2h or 90m, got {text!r}")
    return timedelta(minutes=value)


def to_json(outcome: RunOutcome, *, fail_on: ci.FailOn | None = None) -> dict[str, Any]:
    """The machine-readable result: enough evidence to check a run later.

    With `fail_on`, a "fail_on" key says whether that gate tripped, why, and the exit code.
    """
    data = outcome.article
    n = data.numbers if data is not None else None
    scope = outcome.scope
    mode = scope.mode.value if scope is not None else None
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
                "root_causes": [
                    {
                        "code": c.code,
                        "status": c.status.value,
                        "detail": c.detail,
                        "evidence": None if c.evidence is None else c.evidence.to_json(),
                    }
                    for c in result.causes
                ],
                "words": result.words,
                "quality": result.quality,
                "enabled": result.enabled,
                "registered": result.registered,
                "muted_until": result.muted.until.isoformat() if result.muted else None,
                "flaky": row.flaky,
                "issue": row.issue,
                "failing_since": row.failing_since.since.isoformat() if row.failing_since else None,
                "notes": list(result.notes),
                "run": result.run.to_json() if result.run is not None else None,
                "spec_source": result.spec_source or "evals.json",
                "contracts_mode": None if result.spec_source is None else mode,
                "counts": row.counts,
                "output": None
                if out is None
                else {
                    "path": out.path,
                    "size": out.size,
                    "sha256": out.sha256,
                    "age_days": None if out.age_days is None else round(out.age_days, 3),
                    "age_source": out.age_source,
                },
            }
        )
    payload: dict[str, Any] = {
        "verdict": outcome.verdict.value,
        "date": outcome.day.isoformat(),
        "coverage": None
        if n is None
        else {
            "covered": n.coverage.covered,
            "enabled": n.coverage.enabled,
            "pct": round(n.coverage.pct, 2),
            # the prior run's coverage only when counted the same way; else legacy_pct
            "previous_pct": n.previous_pct,
            "delta_pts": None if n.coverage_delta is None else round(n.coverage_delta, 2),
            "legacy_pct": n.legacy_pct,
        },
        "diff": None
        if n is None
        else {
            "new_fail": n.counts.new_fail,
            "fixed": n.counts.fixed,
            "still_failing": n.counts.still_failing,
            "stable": n.counts.stable,
            **{k.lower(): v for k, v in sorted(n.counts.other.items())},
        },
        "failing": None
        if n is None
        else {
            "count": len(n.failing),
            "of": n.evaluated,
            "skills": list(n.failing),
            "still_failing": list(n.still_failing),
            "regressions": list(n.regressions),
            "disabled_or_muted": list(n.failing_apart),
        },
        # one cause behind many failures (issue #32): one line each, with its issue
        "fleet": list(data.fleet) if data is not None else [],
        "contracts": None
        if scope is None
        else {
            "mode": scope.mode.value,
            "inferred": sorted(scope.inferred),
            "without": [{"skill": s, "reason": why} for s, why in scope.without],
            "not_scorable": list(scope.unscored),
        },
        "action_queue": list(n.actions) if n else [],
        "skills": skills,
        "issues": {
            "filed": [{"id": i.id, "skill": i.skill, "path": i.path} for i in outcome.issues.filed],
            "closed": [
                {"id": i.id, "skill": i.skill, "path": i.path} for i in outcome.issues.closed
            ],
            # the stage wrote nothing (a refused write; nothing changed): why, and what it
            # would have filed and closed
            "not_written": outcome.issues.unwritten or None,
            "would_file": [{"id": i.id, "skill": i.skill} for i in outcome.issues.would_file],
            "would_close": [{"id": i.id, "skill": i.skill} for i in outcome.issues.would_close],
        },
        "artifacts": {
            "article": str(outcome.article_written),
            "log": str(outcome.log_written),
            "site": str(outcome.site_written),
            "dashboard_card": None if outcome.card_written is None else str(outcome.card_written),
            "notification": str(outcome.notified),
        },
        "prior_article": outcome.prior.path if outcome.prior else None,
        "warnings": outcome.warnings,
    }
    if fail_on is not None:
        reason = ci.fail_reason(outcome, fail_on)
        payload["fail_on"] = {
            "mode": fail_on.value,
            "tripped": reason is not None,
            "reason": reason,
            "exit_code": int(ci.exit_code(outcome, fail_on)),
        }
    return payload


def run(args: argparse.Namespace, env: Mapping[str, str] | None = None) -> int:
    """Run the pipeline, print the ledger (or --json), write the CI outputs, return the exit code.

    Under GitHub Actions (`GITHUB_ACTIONS=true`) annotations go to stdout, or to stderr with
    --json; with `GITHUB_STEP_SUMMARY` set a job summary is appended to that file.
    """
    env = os.environ if env is None else env
    fail_on = ci.FailOn(args.fail_on)
    human = sys.stderr if args.json else sys.stdout
    try:
        opts = options(args)
        from aeon_evals.run import pipeline  # here: `run --help` does without the stages

        outcome = pipeline.run(opts)
    except EvalsError as exc:
        _github_error(env, exc, stream=human)
        raise
    code = ci.exit_code(outcome, fail_on)
    if args.junit is not None:  # before --json's result: a refused write is the JSON error
        try:
            atomic_write(args.junit, ci.junit_xml(outcome))
        except OSError as exc:
            raise WriteFailed(write_error(exc, args.junit)) from None
    if args.json:
        print(json.dumps(to_json(outcome, fail_on=fail_on), indent=2, ensure_ascii=False))
    elif args.dry_run and outcome.article is not None:
        from aeon_evals.report import render

        print(render.render_article(outcome.article), file=human)
    # Every line on one line, controls escaped: a name from the instance (a file named
    # `x\n::error::pwned`) never prints a raw workflow command or a forged `verdict:` line.
    for message in outcome.messages:
        print(one_line(message), file=human)
    for notice in outcome.notices:
        print(one_line(warning_line(notice)), file=sys.stderr)
    for warning in outcome.warnings:
        print(one_line(warning_line(warning)), file=sys.stderr)
    for line in outcome.ledger():
        print(one_line(line), file=human)
    if outcome.notify_stderr and sys.stderr.isatty():  # never into a log a workflow uploads
        print(f"notifier's error output: {outcome.notify_stderr}", file=sys.stderr)
    if args.junit is not None:
        print(f"junit: {args.junit}", file=human)
    reason = ci.fail_reason(outcome, fail_on)
    if reason is not None and code == ExitCode.FAILED:
        print(one_line(f"--fail-on {fail_on.value}: {reason} → exit 1"), file=sys.stderr)
    _github_outputs(env, outcome, opts, fail_on, int(code), stream=human, dry_run=args.dry_run)
    return int(code)


def _repo_prefix(env: Mapping[str, str], root: Path) -> str:
    """The instance root relative to the checkout (`$GITHUB_WORKSPACE`): "" when the same."""
    workspace = env.get("GITHUB_WORKSPACE")
    if not workspace:
        return ""
    try:
        rel = root.resolve().relative_to(Path(workspace).resolve()).as_posix()
    except ValueError:
        return ""
    return "" if rel == "." else rel + "/"


def _github_outputs(
    env: Mapping[str, str],
    outcome: RunOutcome,
    opts: RunOptions,
    fail_on: ci.FailOn,
    code: int,
    *,
    stream: TextIO,
    dry_run: bool,
) -> None:
    prefix = _repo_prefix(env, opts.root)
    if env.get("GITHUB_ACTIONS") == "true":
        from aeon_evals.report import (
            notify,  # in a workflow only: the run itself never needs it here
        )

        try:
            raw = read_confined(opts.root, EVALS_PATH)
            lines = ci.spec_line_numbers(raw.decode("utf-8", errors="replace"))
        except (OSError, EvalsError):
            lines = {}
        for line in ci.annotation_lines(outcome, spec_file=prefix + EVALS_PATH, spec_lines=lines):
            print(line, file=stream)
        if opts.notify and not dry_run and notify.find_notifier(opts.root, opts.notify_cmd) is None:
            # In CI nobody reads the ledger: a run that can alert no one says so where it shows.
            print(
                ci.workflow_command("warning", NO_NOTIFIER, [("title", "aeon-evals notify")]),
                file=stream,
            )
        for notice in outcome.notices:
            print(
                ci.workflow_command("warning", notice, [("title", "aeon-evals switch-over")]),
                file=stream,
            )
    summary = env.get("GITHUB_STEP_SUMMARY")
    if summary:
        from aeon_evals.ci import (
            summary as job_summary,  # a GitHub job summary: only when one is asked for
        )

        link = (
            job_summary.article_url(env, prefix + outcome.article_path)
            if outcome.article_path
            else None
        )
        _append(
            Path(summary),
            job_summary.job_summary(
                outcome, fail_on=fail_on, code=code, article_link=link, dry_run=dry_run
            ),
        )


def _github_error(env: Mapping[str, str], exc: EvalsError, *, stream: TextIO) -> None:
    """A run that stopped (exit 2, 4, 5) still says why in the job summary and as an annotation."""
    if env.get("GITHUB_ACTIONS") == "true":
        print(ci.error_annotation(exc.line()), file=stream)
    summary = env.get("GITHUB_STEP_SUMMARY")
    if summary:
        from aeon_evals.ci import summary as job_summary

        _append(Path(summary), job_summary.error_summary(exc.line(), int(exc.exit_code)))


def _append(path: Path, text: str) -> None:
    """Append to GitHub's summary file (other steps append to it too: never replace it)."""
    try:
        with path.open("a", encoding="utf-8") as fh:
            fh.write(text)
    except OSError as exc:
        print(f"warning: cannot write the job summary to {path}: {exc}", file=sys.stderr)

"""No evals.json, or no skills in it: the run writes a starter spec from the audit and stops."""

from __future__ import annotations

import json

from aeon_evals.contracts import audit as audit_stage
from aeon_evals.contracts.stubs import run_branch, starter_manifest
from aeon_evals.fs.confine import check_writable
from aeon_evals.fs.write import create_exclusive
from aeon_evals.load.manifest import EVALS_PATH
from aeon_evals.load.registry import Registry
from aeon_evals.model import Verdict
from aeon_evals.model.artifacts import failed, skipped
from aeon_evals.report import notify as notifier
from aeon_evals.run.data import RunOptions, RunOutcome
from aeon_evals.run.publish import notified


def bootstrap(opts: RunOptions, registry: Registry) -> RunOutcome:
    """No evals.json, or no skills in it: write a starter spec from the audit, notify, stop."""
    root = opts.root
    found = audit_stage.audit(root, set(), registry)
    outcome = RunOutcome(Verdict.BOOTSTRAP, opts.today)
    target = root / EVALS_PATH
    articles = opts.layout.articles if opts.layout is not None else None
    starter = starter_manifest(found, run_branch(root, opts.now), articles=articles)
    count = len(starter["skills"])
    if opts.dry_run:
        outcome.article_written = skipped(
            "--dry-run", note=f"would write {EVALS_PATH} with {count} starter specs"
        )
        return outcome
    if target.exists():
        outcome.messages.append(
            f"{EVALS_PATH} exists but names no skill; it was left as it is — add specs "
            "(see `aeon-evals audit --stubs`)"
        )
        outcome.article_written = failed(f"{EVALS_PATH} has no skills")
    else:
        check_writable(root, target, what="starter spec")
        create_exclusive(target, json.dumps(starter, indent=2, ensure_ascii=False))
        outcome.messages.append(
            f"wrote {EVALS_PATH} with {count} starter specs: review it and commit it"
        )
        outcome.article_written = skipped(note=f"starter {EVALS_PATH} written ({count} specs)")
    body = f"*Skill Evals — {Verdict.BOOTSTRAP.value}*\n{outcome.messages[-1]}"
    if opts.notify:
        outcome.notified = notified(
            notifier.notify(root, opts.notify_cmd, body, timeout=opts.notify_timeout)
        )
    return outcome

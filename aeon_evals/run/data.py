"""The nightly run's options (what a command asks for) and its outcome (what happened)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from aeon_evals.checks import skill as checks
from aeon_evals.issues import IssueOutcome, IssueRef, by_id
from aeon_evals.load.layout import Layout
from aeon_evals.model import ContractsMode, ParsedArticle, SkillResult, Verdict
from aeon_evals.model.artifacts import NOT_SENT, Artifact
from aeon_evals.text.controls import show_name

if TYPE_CHECKING:
    from aeon_evals.contracts.scope import Scope
    from aeon_evals.load.manifest import Manifest
    from aeon_evals.metrics.history import History
    from aeon_evals.report import diff as report
    from aeon_evals.report import render


@dataclass(frozen=True)
class RunOptions:
    root: Path
    today: date
    now: datetime
    skill: str | None = None
    dry_run: bool = False
    notify: bool = True
    notify_cmd: str | None = None
    notify_timeout: float = 30.0  # notify.TIMEOUT_SECONDS (that module loads when a run notifies)
    retry_delay: float = 5.0
    lock_timeout: float = 60.0
    site: bool = True
    site_out: Path | None = None
    grace: timedelta = checks.GRACE
    contracts: ContractsMode | None = None  # --contracts; None: evals.json's, else report
    layout: Layout | None = None  # None: detected from the root when the run starts
    force: bool = False  # replace a same-day article this tool did not write


@dataclass
class RunOutcome:
    """What happened, for the ledger, --json, the job summary and the exit code."""

    verdict: Verdict
    day: date
    results: list[SkillResult] = field(default_factory=list)
    rows: list[report.Row] = field(default_factory=list)
    article: render.ArticleData | None = None
    article_path: str | None = None
    article_written: Artifact = field(default_factory=Artifact)
    log_written: Artifact = field(default_factory=Artifact)
    site_written: Artifact = field(default_factory=Artifact)
    notified: Artifact = NOT_SENT
    notify_stderr: str = ""  # a failing notifier's last stderr line: for a terminal only
    card_written: Artifact | None = None  # None: the instance has no dashboard feed
    issues: IssueOutcome = field(default_factory=IssueOutcome)
    warnings: list[str] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    # Said on stderr, kept out of the article: about the switch-over, not about the skills.
    notices: list[str] = field(default_factory=list)
    prior: ParsedArticle | None = None
    day_issues: tuple[list[IssueRef], list[IssueRef]] = field(default_factory=lambda: ([], []))
    scope: Scope | None = None  # skills evaluated on SKILL.md contracts, and those without one
    metrics: History | None = None  # the metrics history before this run (docs/metrics.md)
    dry_run: bool = False  # --dry-run: the issues were planned, not written
    known: frozenset[str] | None = None  # the skills the instance knows (the site's pages)
    manifest: Manifest | None = None  # evals.json as the run read it (the site's pages)

    def ledger(self) -> list[str]:
        """The lines printed after a run: what was written, filed, closed and sent. A dry run
        writes no issue: it says which it would file and close."""
        filed = ", ".join(f"{i.id} ({show_name(i.skill)})" for i in by_id(self.issues.filed))
        closed = ", ".join(f"{i.id} ({show_name(i.skill)})" for i in by_id(self.issues.closed))
        if self.dry_run:
            filed = f"none (--dry-run; would file {filed})" if filed else "none (--dry-run)"
            closed = f"none (--dry-run; would close {closed})" if closed else "none (--dry-run)"
        elif self.issues.unwritten:  # a refused write: nothing changed, and what was not done
            filed = self.issues.said(self.issues.filed, self.issues.would_file)
            closed = self.issues.said(self.issues.closed, self.issues.would_close)
        return [
            f"verdict: {self.verdict.value}",
            f"article: {self.article_written}",
            f"log: {self.log_written}",
            f"site: {self.site_written}",
            *([f"dashboard card: {self.card_written}"] if self.card_written is not None else []),
            f"issues filed: {filed or 'none'}",
            f"issues closed: {closed or 'none'}",
            f"notification: {self.notified}",
        ]


def article_rel(day: date, layout: Layout | None = None) -> str:
    """This tool's article for `day`, relative to the root (`articles/` without a layout)."""
    return (layout or Layout()).article_rel(day)

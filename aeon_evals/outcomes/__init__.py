"""Did the run do its job (issue #32)? This package owns the answer read from the skills' own
words: the outcome vocabulary each SKILL.md defines (every status token it tells the agent to
log, notify or exit with, classed ok / quiet / noop / partial / error, with the line and the
sentence as evidence), the outcome one run reports in its own log section or article (its
vocabulary token on a status line, else a generic failure signature confined to its status
lines, else healthy), a skill's run history with its streaks and the judgement of its newest
run, and the fleet-level causes that explain many failures at once. Everything here is pure: the
caller reads the files and passes text, bytes and dates in; nothing reads the clock or the disk.
See docs/outcomes.md for the rules."""

from __future__ import annotations

from aeon_evals.outcomes.fleet import fleet_findings, fleet_silent, shared_signatures
from aeon_evals.outcomes.history import history, judge, outcomes, streak
from aeon_evals.outcomes.model import (
    HEALTHY,
    Basis,
    FleetFinding,
    FleetKind,
    History,
    Judgement,
    Outcome,
    OutcomeClass,
    Run,
    RunOutcome,
    Streak,
    TokenUse,
    Verdict,
    VocabToken,
    Vocabulary,
    Why,
    worst,
)
from aeon_evals.outcomes.reader import read_outcome, resolve
from aeon_evals.outcomes.runs import article_run, log_runs, skill_headings
from aeon_evals.outcomes.spec import noop_fail_after, vocabulary_for, with_overrides
from aeon_evals.outcomes.vocabulary import extract_vocabulary

__all__ = [
    "HEALTHY",
    "Basis",
    "FleetFinding",
    "FleetKind",
    "History",
    "Judgement",
    "Outcome",
    "OutcomeClass",
    "Run",
    "RunOutcome",
    "Streak",
    "TokenUse",
    "Verdict",
    "VocabToken",
    "Vocabulary",
    "Why",
    "article_run",
    "extract_vocabulary",
    "fleet_findings",
    "fleet_silent",
    "history",
    "judge",
    "log_runs",
    "noop_fail_after",
    "outcomes",
    "read_outcome",
    "resolve",
    "shared_signatures",
    "skill_headings",
    "streak",
    "vocabulary_for",
    "with_overrides",
    "worst",
]

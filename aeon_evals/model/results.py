"""A run's results, re-exported by `model` (import them from there): what each skill's checks
found, the articles read back, the coverage. Split out of `model` only so that commands that
never see a result (`validate`) do not pay for building these classes at start-up."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import NamedTuple

from aeon_evals.model.status import Mute, Status


@dataclass(frozen=True)
class CronState:
    """The fields of memory/cron-state.json the checks use; anything else is ignored."""

    last_status: str | None = None
    last_success: str | None = None
    last_failed: str | None = None
    last_error: str | None = None
    consecutive_failures: int | None = None
    last_dispatch: str | None = None


@dataclass(frozen=True)
class Evidence:
    """Where a finding was seen, for the reader to go and look (`--json` shows every field;
    the cause's `detail` says the same in words)."""

    path: str | None = None  # the file the finding is about, relative to the root
    line: int | None = None  # 1-based line of the first hit in `path`
    hits: int | None = None  # how many hits in the content checked
    section: str | None = None  # the skill's own section of a shared log (`### heartbeat`)
    inside: int | None = None  # how many of the hits lie inside `section`
    asked_at: str | None = None  # `SKILL.md:41`: the SKILL.md line that asks for what broke
    last_output: date | None = None  # a skill gone quiet: the day its output was last written
    failed_runs: int | None = None  # a skill gone quiet: its runs failing in a row (cron-state)

    def to_json(self) -> dict[str, object]:
        """The fields that are set, by name (`--json`)."""
        return {
            key: value.isoformat() if isinstance(value, date) else value
            for key, value in vars(self).items()
            if value is not None
        }


@dataclass(frozen=True)
class Cause:
    """One finding of one check: `code` is what the article shows, `detail` what a human reads
    (expected vs actual: "412 words, minimum 500"; its first clause, up to "; ", says it in a
    few words), `evidence` where it was seen."""

    status: Status
    code: str  # e.g. "word_count", "missing_pattern:foo|bar", "quality_score:2.1"
    detail: str = ""  # e.g. "412 words, minimum 500"
    evidence: Evidence | None = None

    @property
    def brief(self) -> str:
        """The detail's first clause (what a notification shows), else the code."""
        return self.detail.split("; ", 1)[0] if self.detail else self.code


@dataclass(frozen=True)
class RunReport:
    """What a skill's newest run reported in its own words (issue #32; `aeon_evals.outcomes`
    reads it): its class, the token or signature and the status line quoted, where it stands,
    the streak it ends, and what the skill's SKILL.md says the token means."""

    outcome: str  # ok, quiet, noop, partial, error
    token: str = ""  # the vocabulary token or generic signature (`HTTP 401`), "" for none
    line: str = ""  # the status line, quoted
    source: str = ""  # the run: `memory/logs/2026-07-11.md:187` (its heading) or its article
    streak: str = ""  # "errored on 6 of its last 6 runs, since 2026-05-26"; "" when healthy
    since: date | None = None  # the streak's first day
    evidence: str = ""  # `SKILL.md:43: "…"`: the SKILL.md sentence the token stands in
    cause: str = ""  # the cause it gave the row (`run_error:X_ERROR`), "" for none
    runs: str = ""  # how many runs share the outcome: "6 of 6 runs"

    def to_json(self) -> dict[str, object]:
        return {
            key: value.isoformat() if isinstance(value, date) else value
            for key, value in vars(self).items()
        }


@dataclass(frozen=True)
class OutputFile:
    """The file a skill's checks ran on, with evidence for later verification."""

    path: str  # relative to the root, POSIX separators
    size: int
    sha256: str
    age_days: float | None
    age_source: str  # "filename", "git", "mtime"


@dataclass(frozen=True)
class SkillResult:
    """Everything checked for one skill in this run."""

    skill: str
    status: Status
    causes: tuple[Cause, ...] = ()
    words: int | None = None
    output: OutputFile | None = None
    quality: str = "unknown"  # "unknown", or "avg=3.4"
    quality_score: float | None = None
    enabled: bool = True
    registered: bool = True
    muted: Mute | None = None
    notes: tuple[
        str, ...
    ] = ()  # extra facts for the row: which log was used, cron-state mismatch …
    spec_source: str | None = None  # "SKILL.md:41" for a contract inferred from SKILL.md
    numbers: tuple[tuple[str, float], ...] = ()  # each numeric check's value found, by label
    run: RunReport | None = None  # what its newest run reported (issue #32), when it has runs

    @property
    def root_cause(self) -> str:
        """The article's root-cause cell: every cause code, worst first; "—" when clean."""
        return "; ".join(c.code for c in self.causes) if self.causes else "—"

    @property
    def head(self) -> Cause | None:
        """The first cause of the worst status: the one that names the row."""
        return self.causes[0] if self.causes else None


class ArticleRow(NamedTuple):
    """One row of an article's Full Results table, as written or as parsed back.

    A NamedTuple, not a dataclass: the dashboard loads hundreds of thousands of them.
    """

    skill: str
    status: Status
    diff: str = ""
    root_cause: str = "—"
    quality: str = "unknown"
    words: int | None = None
    last_output: str | None = None
    flags: tuple[str, ...] = ()


@dataclass(frozen=True)
class Coverage:
    """Enabled skills with a spec over enabled skills."""

    covered: int
    enabled: int

    @property
    def pct(self) -> float:
        return 0.0 if self.enabled == 0 else 100.0 * self.covered / self.enabled


@dataclass(frozen=True)
class FailingSince:
    """Carried forward for STILL_FAIL rows."""

    since: date
    issue: str | None = None


@dataclass(frozen=True)
class ParsedArticle:
    """A skill-evals article read back from markdown (this tool's or the old LLM-written ones)."""

    path: str
    day: date
    verdict: str | None
    coverage: Coverage | None
    coverage_pct: float | None
    rows: dict[str, ArticleRow]
    failing_since: dict[str, FailingSince] = field(default_factory=dict)
    issues: dict[str, str] = field(default_factory=dict)  # skill -> ISS-NNN named in the article
    action_queue: tuple[str, ...] = ()
    diff_summary: str = ""
    source: str = "disk"  # "disk", or "git <commit>" when recovered from history
    own: bool = (
        False  # written by aeon-evals (its Full Results has a Notes column), not the old LLM skill
    )
    inferred_rows: dict[str, ArticleRow] = field(
        default_factory=dict
    )  # the Inferred contracts table (report mode), apart from Full Results
    # skill -> the Root cause cell of the Regressions or Still Failing table (cause and detail)
    causes: dict[str, str] = field(default_factory=dict)
    was: dict[str, str] = field(default_factory=dict)  # skill -> the Recovered table's Was cell
    # cells holding a number too large to be one, read as none (`cost-report's Words '999…'`)
    unread: tuple[str, ...] = ()

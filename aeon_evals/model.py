"""Plain typed data shared by every pipeline stage: statuses, diff labels, verdicts, specs."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from datetime import date
from typing import NamedTuple


class Status(enum.StrEnum):
    """Outcome of one skill's checks, worst first (the declaration order is the precedence)."""

    NO_OUTPUT = "NO_OUTPUT"
    FAIL = "FAIL"
    STALE = "STALE"
    QUALITY_DEGRADED = "QUALITY_DEGRADED"
    WARN = "WARN"
    # The spec itself is broken (bad pattern, path outside the root): not the skill's fault.
    ERROR = "ERROR"
    NOT_RUN = "NOT_RUN"  # an on-demand skill nobody dispatched lately: nothing to judge
    PASS = "PASS"

    @property
    def failing(self) -> bool:
        """Failing statuses are the ones that file issues and drive the verdict (SPEC §5)."""
        return self in FAILING

    @property
    def rank(self) -> int:
        """Lower is worse; used to pick the worst of several causes."""
        return _ORDER.index(self)


_ORDER = list(Status)
FAILING = frozenset({Status.FAIL, Status.QUALITY_DEGRADED, Status.NO_OUTPUT})


def worst(statuses: list[Status]) -> Status:
    """The worst status by SPEC §4 precedence; PASS when there is none."""
    return min(statuses, key=lambda s: s.rank, default=Status.PASS)


class DiffLabel(enum.StrEnum):
    """How a skill's status moved since the previous run: one per (previous, current) pair."""

    NEW_FAIL = "NEW_FAIL"
    NEW_QUALITY_DEGRADED = "NEW_QUALITY_DEGRADED"
    FIXED = "FIXED"
    STILL_FAIL = "STILL_FAIL"
    NEW_PASS = "NEW_PASS"
    NEW_ERROR = "NEW_ERROR"
    NEW_NO_COVERAGE = "NEW_NO_COVERAGE"
    WORSE = "WORSE"
    BETTER = "BETTER"
    STABLE = "STABLE"


class ContractsMode(enum.StrEnum):
    """How much weight contracts inferred from SKILL.md carry (`contracts`, `--contracts`)."""

    REPORT = "report"  # shown apart: no issues, no verdict
    ENFORCE = "enforce"  # full citizens, like evals.json specs
    OFF = "off"  # only evals.json skills are evaluated


class Verdict(enum.StrEnum):
    """The run's one-word outcome (SPEC §7), in precedence order."""

    REGRESSED = "SKILL_EVALS_REGRESSED"
    QUALITY_DROP = "SKILL_EVALS_QUALITY_DROP"
    RECOVERED = "SKILL_EVALS_RECOVERED"
    COVERAGE_CLIFF = "SKILL_EVALS_COVERAGE_CLIFF"
    OK = "SKILL_EVALS_OK"
    ERROR = "SKILL_EVALS_ERROR"
    BOOTSTRAP = "SKILL_EVALS_BOOTSTRAP"

    @property
    def notifies(self) -> bool:
        """SPEC §8: silence on OK."""
        return self is not Verdict.OK


class DriftMode(enum.StrEnum):
    """What a detected drift of one metric does to the row (evals.json `drift`)."""

    WARN = "warn"  # the default: WARN with root cause drift:<metric>
    FAIL = "fail"  # FAIL: a new failure, an issue, the verdict
    OFF = "off"  # not looked for


@dataclass(frozen=True)
class NumericCheck:
    """One `numeric_checks` entry."""

    label: str
    pattern: str
    min: float | None = None
    max: float | None = None
    skip_if_not_found: bool = False


@dataclass(frozen=True)
class Mute:
    """A known failure the operator chose to silence until a date."""

    until: date
    reason: str = ""


@dataclass(frozen=True)
class Spec:
    """One skill's entry in evals.json, validated."""

    skill: str
    output_pattern: str
    min_words: int = 0
    required_patterns: tuple[str, ...] = ()
    forbidden_patterns: tuple[str, ...] = ()
    required_headings: tuple[str, ...] = ()
    numeric_checks: tuple[NumericCheck, ...] = ()
    expected_cadence_days: float | None = None
    section: str | None = None
    mute: Mute | None = None
    stale_fail_after: float | None = None  # expected cadences after which STALE counts as failing
    # `drift`: metric -> mode; "*" stands for every metric ("drift": "off"). Empty: the defaults.
    drift: tuple[tuple[str, DriftMode], ...] = ()

    def drift_mode(self, metric: str, default: DriftMode) -> DriftMode:
        """The mode the spec sets for `metric` (its own entry, else "*"), else `default`."""
        modes = dict(self.drift)
        return modes.get(metric, modes.get("*", default))


@dataclass(frozen=True)
class Registration:
    """One skill's entry under `skills:` in aeon.yml."""

    name: str
    enabled: bool = False
    schedule: str | None = None


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
class Cause:
    """One finding of one check: `code` is what the article shows, `detail` what a human reads."""

    status: Status
    code: str  # e.g. "word_count", "missing_pattern:foo|bar", "quality_score:2.1"
    detail: str = ""  # e.g. "412 words, minimum 500"


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

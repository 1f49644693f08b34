"""Plain typed data shared by every pipeline stage: statuses, diff labels, verdicts, specs."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING

from aeon_evals.model.status import FAILING as FAILING
from aeon_evals.model.status import Mute as Mute
from aeon_evals.model.status import Status as Status
from aeon_evals.model.status import worst as worst

# A run's results (SkillResult, ParsedArticle …) live in `model_results` and are loaded the
# first time one is named: `validate` needs only the specs above and starts faster without
# building the rest (issue 20). Import them from here, as before.
if TYPE_CHECKING:
    from aeon_evals.model.results import ArticleRow as ArticleRow
    from aeon_evals.model.results import Cause as Cause
    from aeon_evals.model.results import Coverage as Coverage
    from aeon_evals.model.results import CronState as CronState
    from aeon_evals.model.results import Evidence as Evidence
    from aeon_evals.model.results import FailingSince as FailingSince
    from aeon_evals.model.results import OutputFile as OutputFile
    from aeon_evals.model.results import ParsedArticle as ParsedArticle
    from aeon_evals.model.results import RunReport as RunReport
    from aeon_evals.model.results import SkillResult as SkillResult
else:
    _RESULTS = frozenset(
        {
            "ArticleRow",
            "Cause",
            "Coverage",
            "CronState",
            "Evidence",
            "FailingSince",
            "OutputFile",
            "ParsedArticle",
            "RunReport",
            "SkillResult",
        }
    )

    def __getattr__(name: str) -> object:
        if name not in _RESULTS:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        from aeon_evals.model import results as model_results

        value = getattr(model_results, name)
        globals()[name] = value
        return value


class DiffLabel(enum.StrEnum):
    """How a skill's status moved since the previous run: one per (previous, current) pair."""

    NEW_FAIL = "NEW_FAIL"
    NEW_QUALITY_DEGRADED = "NEW_QUALITY_DEGRADED"
    FIXED = "FIXED"
    STILL_FAIL = "STILL_FAIL"
    NEW_PASS = "NEW_PASS"
    # A move into NOT_RUN: nothing was judged, so it is neither a pass nor an improvement
    NEW_NOT_RUN = "NEW_NOT_RUN"  # new to the article (or the first run) and not run
    NOT_RUN = "NOT_RUN"  # was judged (PASS, WARN, STALE, ERROR), now not run
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


class OutcomeClass(enum.StrEnum):
    """What a run says it did, mildest first (the order `outcomes.worst` compares by); an
    evals.json `outcomes` entry names one by its value."""

    OK = "ok"  # did its job
    QUIET = "quiet"  # a sanctioned "nothing new today"
    NOOP = "noop"  # cannot do its job: missing config, key, lock, secret, data
    PARTIAL = "partial"  # content produced, a step failed (delivery, one source)
    ERROR = "error"  # the run failed

    @property
    def rank(self) -> int:
        return _OUTCOME_RANK[self]


_OUTCOME_RANK = {c: n for n, c in enumerate(OutcomeClass)}


@dataclass(frozen=True)
class NumericCheck:
    """One `numeric_checks` entry."""

    label: str
    pattern: str
    min: float | None = None
    max: float | None = None
    skip_if_not_found: bool = False


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
    # `outcomes`: status token -> class, over what the SKILL.md says (docs/outcomes.md)
    outcomes: tuple[tuple[str, OutcomeClass], ...] = ()
    # `noop_fail_after`: runs in a row of one noop before "never does its job"; None: the default
    noop_fail_after: int | None = None

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


APART_FLAGS = ("disabled", "unregistered", "muted")  # Notes of rows counted apart


def flags_count(flags: tuple[str, ...] | list[str]) -> bool:
    """Whether an article row with these Notes counts (not disabled, unregistered or muted):
    how the dashboard and a scoped run read rows back from an article."""
    return not any(f.startswith(APART_FLAGS) for f in flags)

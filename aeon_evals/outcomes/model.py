"""The outcome vocabulary, a run's outcome, a skill's run history and the judgements drawn from
them, as plain frozen data."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date

# defined with the specs, which name it (evals.json `outcomes`); imported from here as before
from aeon_evals.model import OutcomeClass as OutcomeClass


def worst(classes: list[OutcomeClass]) -> OutcomeClass:
    """The most severe of `classes` (OK for none)."""
    return max(classes, key=lambda c: c.rank, default=OutcomeClass.OK)


class Basis(enum.StrEnum):
    """Which evidence decided a run's outcome."""

    VOCABULARY = "vocabulary"  # a status token the skill's SKILL.md names
    SIGNATURE = "signature"  # a generic failure signature on one of the run's status lines
    NONE = "none"  # nothing found: healthy by default


class Why(enum.StrEnum):
    """Why a vocabulary token has its class."""

    OVERRIDE = "override"  # the operator's map (evals.json "outcomes")
    NAME = "name"  # the token's own ending (`_ERROR`, `_QUIET`, `_NO_CONFIG`)
    SENTENCE = "sentence"  # the SKILL.md sentence it stands in
    DEFAULT = "default"  # neither says: the ending's default, else ok


@dataclass(frozen=True)
class TokenUse:
    """One place in a SKILL.md that tells the agent to emit a token."""

    line: int  # 1-based line of the SKILL.md
    sentence: str  # the sentence, list item, table row or template line, quoted
    detail: str  # the text written right after the token there (`: no picks in … — enable …`)
    outcome: OutcomeClass | None  # what this sentence alone says, when it says something


@dataclass(frozen=True)
class VocabToken:
    """A status token of one skill, its class, and the evidence."""

    token: str
    outcome: OutcomeClass
    why: Why
    uses: tuple[TokenUse, ...]  # in SKILL.md order; never empty

    @property
    def line(self) -> int:
        """The SKILL.md line of the first use."""
        return self.uses[0].line

    @property
    def sentence(self) -> str:
        """The first use's sentence (the evidence quoted with the token)."""
        return self.uses[0].sentence

    @property
    def variants(self) -> frozenset[OutcomeClass]:
        """The classes its uses state: more than one when one token covers several branches
        (`FEAR_DIVERGENCE_SKIP` for "above threshold" and for "no market-context.md")."""
        return frozenset(u.outcome for u in self.uses if u.outcome is not None)


@dataclass(frozen=True)
class Vocabulary:
    """Every status token one skill's SKILL.md names, by token."""

    skill: str
    tokens: Mapping[str, VocabToken] = field(default_factory=dict)
    prefixes: tuple[str, ...] = ()  # the skill's own token prefixes (`PRICE_ALERT_`), longest first
    # names the SKILL.md writes but never as a status (variables, markers, per-item codes): a run
    # that writes them has not reported a status, even with the skill's own prefix
    ignored: frozenset[str] = frozenset()

    def get(self, token: str) -> VocabToken | None:
        return self.tokens.get(token)

    def classes(self) -> dict[str, OutcomeClass]:
        """token → class, sorted by token (what tests and the dashboard show)."""
        return {t: self.tokens[t].outcome for t in sorted(self.tokens)}


@dataclass(frozen=True)
class Outcome:
    """What one run reported, read from its own output text."""

    outcome: OutcomeClass
    basis: Basis
    token: str = ""  # the vocabulary token or the signature (`HTTP 401`, `XAI_API_KEY not set`)
    line: str = ""  # the line it was read from, quoted
    line_no: int = 0  # 1-based within the text read; 0 when nothing was found

    @property
    def key(self) -> str:
        """What two runs must share to count as "the same outcome": the token or signature,
        else the class."""
        return self.token or self.outcome.value


HEALTHY = Outcome(OutcomeClass.OK, Basis.NONE)


@dataclass(frozen=True)
class Run:
    """One run of a skill: a `### <skill>` section of a daily log, or one dated article."""

    skill: str
    day: date
    source: str  # "memory/logs/2026-07-11.md:187" (the heading's line) or the article's path
    text: str
    order: int = 0  # position among the day's runs of this skill (file order)


@dataclass(frozen=True)
class RunOutcome:
    """A run and what it reported."""

    day: date
    source: str
    outcome: Outcome


@dataclass(frozen=True)
class Streak:
    """The newest runs that share one outcome: `count` of the `window` newest runs, since
    `since`, out of `total` runs in the history given. `window` exceeds `count` only by runs
    that showed no status at all inside a noop streak."""

    outcome: OutcomeClass
    key: str  # token or signature they share (for error streaks: the newest run's)
    count: int
    window: int
    total: int
    since: date
    until: date

    @property
    def days(self) -> int:
        """Calendar days the streak spans, both ends counted."""
        return (self.until - self.since).days + 1

    def describe(self) -> str:
        """`FLEET_EMPTY on 28 of 28 runs since 2026-05-20`, `errored on 6 of its last 6 runs,
        since 2026-05-26` (the words the article and issues quote)."""
        if self.outcome is OutcomeClass.ERROR:
            return f"errored on {self.count} of its last {self.window} runs, since {self.since}"
        text = f"{self.key} on {self.count} of {self.window} runs since {self.since}"
        return text if self.window == self.total else f"{text} ({self.total} runs in all)"


@dataclass(frozen=True)
class History:
    """A skill's runs oldest first with their outcomes, and the streak the newest run ends."""

    skill: str
    runs: tuple[RunOutcome, ...]
    streak: Streak | None  # None when there are no runs

    @property
    def newest(self) -> RunOutcome | None:
        return self.runs[-1] if self.runs else None


class Verdict(enum.StrEnum):
    """What the newest run means for the skill."""

    HEALTHY = "healthy"
    NOTE = "note"  # a short noop streak: worth a line, not a failure
    WARN = "warn"  # a partial run
    FAILING = "failing"
    NO_RUNS = "no_runs"  # nothing to judge


@dataclass(frozen=True)
class Judgement:
    """The judgement of a skill's newest run (`judge`): a cause such as `run_error:HTTP 401`
    or `never_does_its_job:FLEET_EMPTY`, the day the state began, and the shared signature
    fleet findings group by."""

    skill: str
    verdict: Verdict
    cause: str = ""
    since: date | None = None
    signature: str = ""
    message: str = ""
    newest: RunOutcome | None = None
    streak: Streak | None = None


class FleetKind(enum.StrEnum):
    """A cause that explains many skills' failures at once."""

    SHARED_SIGNATURE = "shared_signature"  # one expired key, one failing model
    FLEET_SILENT = "fleet_silent"  # every scheduled skill silent since the same day


@dataclass(frozen=True)
class FleetFinding:
    """One fleet-level cause and the skills it explains, sorted."""

    kind: FleetKind
    key: str  # the shared signature, or the last day any scheduled skill ran
    skills: tuple[str, ...]
    since: date | None
    message: str

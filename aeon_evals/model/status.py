"""A skill's status, its precedence and a mute: the few types a run's results and the specs share
(model re-exports them; model_results imports them from here, so the two never import each other).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import date


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


@dataclass(frozen=True)
class Mute:
    """A known failure the operator chose to silence until a date."""

    until: date
    reason: str = ""

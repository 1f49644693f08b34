"""What a run did with each of its artifacts (article, log, site, notification), as typed data.

The ledger, `--json` and the job summary print an `Artifact` with `str()`; the text is decided
here, in one place, from the fate and its parts.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Fate(Enum):
    """What became of one artifact."""

    DONE = "done"  # written, or sent
    UNCHANGED = "unchanged"  # already on disk byte for byte: kept as it was
    SKIPPED = "skipped"  # not attempted, on purpose or because there was nothing to do
    FAILED = "failed"  # attempted and failed; the run went on


@dataclass(frozen=True)
class Artifact:
    """One artifact's fate, and what the ledger says of it:

    DONE       `where (detail)`             articles/skill-evals-2026-05-31.md
    UNCHANGED  `where (unchanged)`          articles/skill-evals-2026-05-31.md (unchanged)
    SKIPPED    `not VERB (reason); note`    not written (--dry-run)
    FAILED     `not VERB: reason`           not written: Permission denied
    A notifier's own words (`said`) are printed as they are, whatever the fate.
    """

    fate: Fate = Fate.SKIPPED
    where: str = ""  # the file written
    detail: str = ""  # what was written there: "### skill-evals", "3 written, 2 unchanged"
    reason: str = ""  # why it was skipped or failed: "--dry-run", "TypeError: …"
    note: str = ""  # what happened instead: "would write … with 12 starter specs"
    verb: str = "written"  # "sent" for the notification
    said: str = ""  # the notifier's report: "sent via ./notify", "notifier … failed (exit 1)"

    def __str__(self) -> str:
        if self.said:
            return self.said
        if self.fate is Fate.DONE:
            return self.where + (f" ({self.detail})" if self.detail else "")
        if self.fate is Fate.UNCHANGED:
            return f"{self.where} (unchanged)"
        if self.fate is Fate.FAILED:
            return f"not {self.verb}: {self.reason}"
        text = f"not {self.verb}" + (f" ({self.reason})" if self.reason else "")
        return text + (f"; {self.note}" if self.note else "")


def skipped(reason: str = "", *, verb: str = "written", note: str = "") -> Artifact:
    """Not attempted: `reason` in brackets (`--dry-run`, `--no-site`), `note` after it."""
    return Artifact(Fate.SKIPPED, reason=reason, note=note, verb=verb)


def failed(reason: str, *, verb: str = "written") -> Artifact:
    """Attempted and failed for `reason`."""
    return Artifact(Fate.FAILED, reason=reason, verb=verb)


NOT_SENT = skipped(verb="sent")

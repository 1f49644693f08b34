"""When a scheduled skill was enabled, for the ones cron-state has never dispatched: a skill
enabled after its last slot has not had a run yet, and is not failing (issue #33).

The evidence, best first: the commit that last changed the skill's entry in the config (the
instance's git history, when the root is a full checkout: the generated workflow fetches it
whole), else the first daily log that names the skill, when that log is not the oldest one
(a skill named from the first log on was there before the logs begin). Neither gives an answer
for most skills, and then nothing is said: the checks judge the skill as usual.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path

from aeon_evals.errors import EvalsError
from aeon_evals.load.outputs import OutputError, Outputs, name_date
from aeon_evals.load.registry import Registry

LOGS = "memory/logs/*.md"
ENTRY_LINES = 12  # the lines of a multi-line entry (`syndicate-article:` then `{ enabled: … }`)


@dataclass(frozen=True)
class Enabled:
    """The earliest moment the skill is known to be enabled, and how that is known."""

    at: datetime
    how: str  # "aeon.yml's git history (2026-08-18)", "first named in memory/logs/2026-08-18.md"


class EnabledSince:
    """When each never-dispatched scheduled skill was enabled, asked by the checks only for a
    skill that has no output either (the few that may be waiting for their first slot), and
    remembered. A commit dated after `now` (a run pinned to an earlier moment) is no evidence:
    the logs are asked instead."""

    def __init__(
        self, root: Path, registry: Registry, outputs: Outputs, now: datetime, skills: set[str]
    ) -> None:
        self.root, self.registry, self.outputs, self.now = root, registry, outputs, now
        self.skills = skills  # enabled, scheduled, never dispatched: the ones asked about
        self._known: dict[str, Enabled | None] = {}

    def get(self, skill: str) -> Enabled | None:
        if skill not in self.skills:
            return None
        if skill not in self._known:
            found = None
            if self.outputs.has_history():
                found = _from_git(self.root, self.registry, [skill]).get(skill)
                if found is not None and found.at > self.now:
                    found = None
            self._known[skill] = found or _from_logs([skill], self.outputs).get(skill)
        return self._known[skill]


_COMMIT_TIME = re.compile(r"^committer-time (\d+)$", re.MULTILINE)


def _from_git(root: Path, registry: Registry, skills: list[str]) -> dict[str, Enabled]:
    """The newest commit among the lines of each skill's entry in the config (`git blame`): the
    change that enabled it, or a later edit of the entry, which makes a never-dispatched skill
    wait one more slot before it is judged."""
    from aeon_evals.fs.gitrepo import run_git

    out: dict[str, Enabled] = {}
    starts = sorted(registry.lines.values())
    for skill in skills:
        line = registry.lines.get(skill)
        if line is None:
            continue
        later = [s for s in starts if s > line]
        last = min([*later[:1], line + ENTRY_LINES]) - 1 if later else line + ENTRY_LINES - 1
        blame = run_git(
            root, "blame", "--porcelain", "-L", f"{line},{max(line, last)}", "--", registry.path
        )
        if blame is None:
            continue
        stamps = [int(t) for t in _COMMIT_TIME.findall(blame)]
        if stamps:
            at = datetime.fromtimestamp(max(stamps), UTC)
            out[skill] = Enabled(at, f"{registry.path}'s git history ({at:%Y-%m-%d})")
    return out


def _from_logs(skills: list[str], outputs: Outputs) -> dict[str, Enabled]:
    """The first daily log naming each skill (as a whole word), when it is not the oldest log."""
    try:
        logs = [(d, rel) for rel in outputs.matches(LOGS).files if (d := name_date(rel))]
    except (OSError, ValueError, OutputError, EvalsError):  # a logs folder leading out: no answer
        return {}
    logs.sort()
    if len(logs) < 2:
        return {}
    wanted = {s: s.encode() for s in skills}
    out: dict[str, Enabled] = {}
    for day, rel in logs:
        if not wanted:
            break
        try:
            data = outputs.read(rel).data
        except OutputError:
            continue
        if data is None:
            continue
        for skill, name in list(wanted.items()):
            if _names(data, name):
                del wanted[skill]
                if day > logs[0][0]:
                    out[skill] = Enabled(_start(day), f"first named in {rel}")
    return out


def _names(data: bytes, name: bytes) -> bool:
    """Whether `data` holds `name` as a whole word (no letter, digit, `_` or `-` either side):
    found by a byte search, each hit's edges looked at (a regular expression with lookarounds
    over a megabyte log was a hundred times slower)."""
    at = data.find(name)
    while at >= 0:
        end = at + len(name)
        if (at == 0 or not _word_byte(data[at - 1])) and (
            end == len(data) or not _word_byte(data[end])
        ):
            return True
        at = data.find(name, at + 1)
    return False


def _word_byte(byte: int) -> bool:
    return chr(byte).isalnum() or byte in b"_-"


def _start(day: date) -> datetime:
    return datetime(day.year, day.month, day.day, tzinfo=UTC)

"""Read memory/cron-state.json and memory/skill-health/<skill>.json; never fatal, explained."""

from __future__ import annotations

import dataclasses
import json
import math
import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from aeon_evals.clock import parse_stamp
from aeon_evals.errors import EvalsError
from aeon_evals.fs.confine import read_confined
from aeon_evals.model import CronState, SkillResult
from aeon_evals.text import jsonio
from aeon_evals.text.numbers import shown_repr

if TYPE_CHECKING:
    from aeon_evals.load.enabled import EnabledSince

CRON_STATE = "memory/cron-state.json"
SKILL_HEALTH = "memory/skill-health"


@dataclass(frozen=True)
class Health:
    """A skill's quality record: `avg_score` 1–5 when usable."""

    avg_score: float | None
    flags: tuple[str, ...] = ()
    history: tuple[tuple[date, float], ...] = ()  # `history[]`: each analysis's score, oldest first


@dataclass(frozen=True)
class StateSources:
    """cron-state per skill, skill-health per skill, and how each source fared for the footer."""

    cron: dict[str, CronState]
    health: dict[str, Health]
    cron_status: str  # ok | none | fail | stale (…)
    health_status: str  # ok | empty | fail
    warnings: tuple[str, ...] = ()
    # skill -> the day of this tool's previous article that listed it (it was enabled by then)
    listed: dict[str, date] = field(default_factory=dict)
    # this tool's own previous article exists, and the skills it judged (a row not NOT_RUN)
    prior_found: bool = False
    judged: frozenset[str] = frozenset()
    # scheduled skills never dispatched: when each was enabled, asked for when it matters
    enabled: EnabledSince | None = None


def _str(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def parse_cron_state(data: object) -> tuple[dict[str, CronState], list[str]]:
    """cron-state rows by skill; rows that are not objects are skipped with a warning."""
    if not isinstance(data, dict):
        kind = "a list" if isinstance(data, list) else type(data).__name__
        return {}, [f"{CRON_STATE}: expected an object of skills, got {kind}; cron-state ignored"]
    rows: dict[str, CronState] = {}
    warnings: list[str] = []
    for skill, row in data.items():
        if not isinstance(row, dict):
            warnings.append(
                f"{CRON_STATE}: {skill}: expected an object, got {type(row).__name__}; row ignored"
            )
            continue
        failures = row.get("consecutive_failures")
        rows[str(skill)] = CronState(
            last_status=_str(row.get("last_status")),
            last_success=_str(row.get("last_success")),
            last_failed=_str(row.get("last_failed")),
            last_error=_str(row.get("last_error")),
            last_dispatch=_str(row.get("last_dispatch")),
            consecutive_failures=failures
            if isinstance(failures, int) and not isinstance(failures, bool)
            else None,
        )
    return rows, warnings


def parse_health(skill: str, data: object) -> tuple[Health | None, str | None]:
    """A skill-health record, or a warning when `avg_score` is unusable."""
    if not isinstance(data, dict):
        return None, f"{SKILL_HEALTH}/{skill}.json: expected an object; quality unknown"
    score = data.get("avg_score")
    if score is None:
        return Health(None, history=health_history(data.get("history"))), None
    if isinstance(score, bool) or not isinstance(score, int | float) or not math.isfinite(score):
        return (
            None,
            f"{SKILL_HEALTH}/{skill}.json: avg_score: expected a number, got {shown_repr(score)}; "
            "quality unknown",
        )
    flags = data.get("flags")
    return Health(
        float(score),
        tuple(str(f) for f in flags) if isinstance(flags, list) else (),
        health_history(data.get("history")),
    ), None


def health_history(entries: object) -> tuple[tuple[date, float], ...]:
    """The usable `{"date": "YYYY-MM-DD", "score": n}` entries of skill-health `history[]`, by
    date (the last entry of a day wins); anything else in the list is skipped."""
    found: dict[date, float] = {}
    for entry in entries if isinstance(entries, list) else ():
        if not isinstance(entry, dict):
            continue
        day, score = entry.get("date"), entry.get("score")
        if not isinstance(day, str) or isinstance(score, bool):
            continue
        if not isinstance(score, int | float) or not math.isfinite(score):
            continue
        try:
            found[date.fromisoformat(day[:10])] = float(score)
        except ValueError:
            continue
    return tuple(sorted(found.items()))


def _read_json(root: Path, rel: str) -> tuple[object, str | None]:
    """(data, None) or (None, why it cannot be used); FileNotFoundError passes through.

    The file is read confined to the root, only when regular and under the size cap; depth and
    integer size are bounded (jsonio)."""
    try:
        raw = read_confined(root, rel)
    except FileNotFoundError:
        raise
    except EvalsError as exc:
        return None, exc.message
    except IsADirectoryError:
        return None, "is a folder, not a file"
    except OSError as exc:
        return None, f"cannot read: {exc.strerror}"
    try:
        loaded = jsonio.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        return None, "not UTF-8 text"
    except json.JSONDecodeError as exc:
        return None, f"invalid JSON at line {exc.lineno}: {exc.msg}"
    except jsonio.JSONTooDeep as exc:
        return None, str(exc)
    return loaded.data, (jsonio.huge_note(loaded.huge_ints) if loaded.huge_ints else "")


def _plain_listing(root: Path, rel: str) -> frozenset[str] | None:
    """The names in the folder `rel` under `root` when every part of its path is a real folder
    (no symlink: a name missing from the listing is then a file that does not exist); None when
    it is not, or cannot be listed (each file is then opened, and judged, on its own). A fleet of
    1,000 skills has skill-health for a few dozen: 950 opens that fail, each path resolved."""
    at = root
    try:
        for part in rel.split("/"):
            at = at / part
            if not stat.S_ISDIR(os.lstat(at).st_mode):
                return None
        if not os.access(at, os.X_OK):  # listed, yet its files cannot be opened
            return None
        return frozenset(os.listdir(at))
    except OSError:
        return None


def _plain_name(name: str) -> bool:
    """A name whose absence from a listing means opening it finds nothing (not one too long to
    open, nor a path)."""
    return "/" not in name and "\0" not in name and len(name.encode("utf-8", "replace")) <= 255


def load_state(root: Path, skills: list[str]) -> StateSources:
    """cron-state for every skill, skill-health for the `skills` asked about."""
    warnings: list[str] = []
    cron: dict[str, CronState] = {}
    cron_status = "ok"
    try:
        data, problem = _read_json(root, CRON_STATE)
    except FileNotFoundError:
        cron_status = "none"
    else:
        if data is None:
            cron_status = "fail"
            warnings.append(f"{CRON_STATE}: {problem}; cron-state ignored")
        else:
            if problem:
                warnings.append(f"{CRON_STATE}: {problem}")
            cron, more = parse_cron_state(data)
            if more and not cron and not isinstance(data, dict):
                cron_status = "fail"
            warnings.extend(more)

    health: dict[str, Health] = {}
    failed = 0
    present = _plain_listing(root, SKILL_HEALTH)
    for skill in skills:
        rel = f"{SKILL_HEALTH}/{skill}.json"
        name = f"{skill}.json"
        if present is not None and name not in present and _plain_name(name):
            continue  # not there: what opening it would have found, without the open
        try:
            data, problem = _read_json(root, rel)
        except FileNotFoundError:
            continue
        if data is None:
            failed += 1
            invalid = problem and problem.startswith(("invalid JSON", "not UTF-8"))
            warnings.append(f"{rel}: {'invalid JSON' if invalid else problem}; quality unknown")
            continue
        if problem:
            warnings.append(f"{rel}: {problem}")
        record, warning = parse_health(skill, data)
        if warning:
            failed += 1
            warnings.append(warning)
        if record is not None:
            health[skill] = record
    health_status = "fail" if failed and not health else ("ok" if health else "empty")
    return StateSources(cron, health, cron_status, health_status, tuple(warnings))


STALE_AFTER = timedelta(days=1)
# Ages that say when an output was written. An mtime does not (a checkout gives every file the
# same one), so outputs aged by mtime say nothing about whether cron-state is behind.
_DATED_SOURCES = ("filename", "git")


def cron_updated(cron: dict[str, CronState]) -> datetime | None:
    """The newest run cron-state records (any skill's last success or failure): when it was
    last brought up to date."""
    stamps = [
        s
        for row in cron.values()
        for s in (parse_stamp(row.last_success), parse_stamp(row.last_failed))
        if s is not None
    ]
    return max(stamps, default=None)


def newest_output(results: Iterable[SkillResult], now: datetime) -> datetime | None:
    """When the newest output the checks found was written, counting only dated ages (a file
    named for a day counts from the start of that day: the earliest it can have been written)."""
    times = []
    for result in results:
        out = result.output
        if out is None or out.age_days is None or out.age_source not in _DATED_SOURCES:
            continue
        extra = 1.0 if out.age_source == "filename" else 0.0  # its age counts from the day's end
        times.append(now - timedelta(days=out.age_days + extra))
    return max(times, default=None)


@dataclass(frozen=True)
class Freshness:
    """How cron-state compares with the outputs: `stale` when it is more than a day behind the
    newest one (Aeon's issues state backend, or a fork that stopped committing it)."""

    updated: datetime | None
    newest_output: datetime | None

    @property
    def stale(self) -> bool:
        return (
            self.updated is not None
            and self.newest_output is not None
            and self.newest_output - self.updated > STALE_AFTER
        )

    def status(self) -> str:
        """What the Sources line says of a stale cron-state (after `cron-state=`)."""
        assert self.updated is not None and self.newest_output is not None
        return (
            f"stale (newest entry {self.updated:%Y-%m-%d %H:%M}Z, newest output "
            f"{self.newest_output:%Y-%m-%d}; cross-check skipped)"
        )


def freshness(state: StateSources, results: Iterable[SkillResult], now: datetime) -> Freshness:
    """Whether cron-state is current enough to cross-check outputs against."""
    return Freshness(cron_updated(state.cron), newest_output(results, now))


def without_cron(state: StateSources, note: str) -> StateSources:
    """The sources with cron-state set aside (`note` goes to the Sources line)."""
    return dataclasses.replace(state, cron={}, cron_status=note)

"""Write the dashboard's skill pages and badges (the I/O edge of skill_pages and badges).

`site/skills/<skill>.html` for every skill in the metrics history, `site/badges/<skill>.svg`
and `.json` for every skill in the newest run and `site/badges/fleet.svg`/`.json`; each file
written only when its bytes changed, and pages and badges of skills no longer known removed.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any

from aeon_evals.errors import EvalsError
from aeon_evals.fsio import _after_write as after_write
from aeon_evals.fsio import encoded, umask
from aeon_evals.issues import IssueFile
from aeon_evals.manifest import read_manifest_data
from aeon_evals.metrics import History, history_for_run
from aeon_evals.model import Status
from aeon_evals.site.badges import fleet_badge, skill_badge
from aeon_evals.site.skill_pages import StripMemo, skill_page
from aeon_evals.site.views import Assets, page_name
from aeon_evals.state import load_state
from aeon_evals.store import ArticleStore


@dataclass(frozen=True)
class SkillSite:
    """What was written: paths relative to the site folder."""

    written: tuple[str, ...]
    unchanged: tuple[str, ...]
    removed: tuple[str, ...]


def _specs(root: Path) -> dict[str, Any]:
    """The raw evals.json entries by skill (none when the file is missing or broken: the run
    reports that)."""
    try:
        data = read_manifest_data(root, retry_delay=0)
    except (EvalsError, OSError, ValueError):
        return {}
    skills = data.get("skills") if isinstance(data, dict) else None
    return skills if isinstance(skills, dict) else {}


def write_page(path: Path, text: str) -> bool:
    """Replace `path` with `text` (temp file and rename) unless it holds exactly that; True
    when written. Unlike the article, not synced to disk: a thousand pages are rewritten each
    night (a new run on every strip), each sync costs milliseconds, and a page a crash left
    behind is rewritten by the next run."""
    raw = encoded(text)
    try:
        if path.is_file() and path.stat().st_size == len(raw) and path.read_bytes() == raw:
            return False
    except OSError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            os.fchmod(fh.fileno(), 0o666 & ~umask())
            fh.write(raw)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    after_write(path)  # counted like every other write (the crash tests kill the run after N)
    return True


def newest_run(history: History) -> tuple[date | None, dict[str, Status | None]]:
    """The newest run's day and the status of every skill it evaluated."""
    newest = max((s[-1].day for s in history.samples.values() if s), default=None)
    statuses = {
        skill: samples[-1].status
        for skill, samples in history.samples.items()
        if samples and samples[-1].day == newest
    }
    return newest, statuses


def write_skill_site(
    root: Path,
    out: Path,
    *,
    history: History,
    issues: Sequence[IssueFile],
    run_days: Sequence[date],
    render: Callable[[str, object], str],
    emit: Callable[[str, str], bool],
    assets: Assets,
    now: datetime,
    generated: str,
) -> SkillSite:
    """Render and write every skill page and badge. `render(template, page)` renders a template;
    `emit(rel, text)` writes a file under `out` when its bytes changed (True when written);
    `run_days`: the days that have a run page."""
    specs = _specs(root)
    runs = {day: f"../runs/skill-evals-{day.isoformat()}.html" for day in run_days}
    written: list[str] = []
    unchanged: list[str] = []
    pages: set[str] = set()
    memo = StripMemo()
    for skill in sorted(history.samples):
        rel = page_name(skill)
        if rel is None:
            continue
        page = skill_page(
            skill,
            history,
            issues=issues,
            spec=specs.get(skill),
            run_pages=runs,
            today=now.date(),
            assets=assets,
            generated=generated,
            skill_md=(root / "skills" / skill / "SKILL.md").is_file(),
            memo=memo,
        )
        pages.add(rel)
        (written if emit(rel, render("skill.html", page)) else unchanged).append(rel)

    _day, statuses = newest_run(history)
    badges: set[str] = set()
    for skill, status in sorted(statuses.items()):
        if page_name(skill) is None:
            continue
        badge = skill_badge(skill, status)
        for rel, text in (
            (f"badges/{skill}.svg", badge.svg()),
            (f"badges/{skill}.json", badge.endpoint()),
        ):
            badges.add(rel)
            (written if emit(rel, text) else unchanged).append(rel)
    fleet = fleet_badge(statuses)
    for rel, text in (("badges/fleet.svg", fleet.svg()), ("badges/fleet.json", fleet.endpoint())):
        badges.add(rel)
        (written if emit(rel, text) else unchanged).append(rel)

    removed: list[str] = []
    for folder, keep, suffixes in (
        ("skills", pages, (".html",)),
        ("badges", badges, (".svg", ".json")),
    ):
        base = out / folder
        if not base.is_dir():
            continue
        for stale in sorted(base.iterdir()):
            rel = f"{folder}/{stale.name}"
            if stale.suffix in suffixes and stale.is_file() and rel not in keep:
                with contextlib.suppress(OSError):
                    stale.unlink()
                    removed.append(rel)
    return SkillSite(tuple(written), tuple(unchanged), tuple(removed))


def site_history(root: Path, store: ArticleStore) -> History:
    """The metrics history of the instance with every run (`aeon-evals site`, a --skill run):
    the files, the articles before them and the skill-health scores of the skills in them."""
    bare = history_for_run(root, store, {}, before=None, writable=store.cache.writable)
    state = load_state(root, sorted(bare.samples))
    return History(
        bare.samples,
        {skill: h.history for skill, h in state.health.items() if h.history},
        bare.warnings,
    )

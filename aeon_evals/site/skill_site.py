"""Write the dashboard's skill pages and badges (the I/O edge of skill_pages and badges).

`site/skills/<skill>.html` for every skill in the metrics history, `site/badges/<skill>.svg`
and `.json` for every skill in the newest run and `site/badges/fleet.svg`/`.json`; each file
written only when its bytes changed, and pages and badges of skills no longer known removed.
What each file held when written is remembered (a digest with the file's size and mtime, in the
site's page-state file), so an unchanged file is recognised without reading it back. With many
skills the pages are rendered and written by a forked child while the parent builds the rest of
the dashboard (`start_skill_site`).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any

from aeon_evals.errors import EvalsError
from aeon_evals.fsio import _after_write as after_write
from aeon_evals.fsio import encoded
from aeon_evals.issues import IssueFile
from aeon_evals.manifest import read_manifest_data
from aeon_evals.metrics import History, history_for_run
from aeon_evals.model import Status
from aeon_evals.site.badges import fleet_badge, skill_badge
from aeon_evals.site.skill_pages import PageMemo, skill_page
from aeon_evals.site.views import Assets, page_name
from aeon_evals.state import load_state
from aeon_evals.store import ArticleStore

FORK = hasattr(os, "fork")
# Fewer skills than this are rendered in-process: a fork costs more than a few pages, and a small
# instance's writes stay in one process (the crash tests count them).
FORK_MIN_SKILLS = 100


@dataclass(frozen=True)
class SkillSite:
    """What was written: paths relative to the site folder; `stamps`, what each page and badge
    holds now (`PageWriter.stamp`), for the site's page-state file."""

    written: tuple[str, ...]
    unchanged: tuple[str, ...]
    removed: tuple[str, ...]
    stamps: Mapping[str, str] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()


def _specs(root: Path) -> dict[str, Any]:
    """The raw evals.json entries by skill (none when the file is missing or broken: the run
    reports that)."""
    try:
        data = read_manifest_data(root, retry_delay=0)
    except (EvalsError, OSError, ValueError):
        return {}
    skills = data.get("skills") if isinstance(data, dict) else None
    return skills if isinstance(skills, dict) else {}


class PageWriter:
    """Writes files under `out` when their bytes changed, remembering what it wrote.

    `before`: {path relative to `out`: stamp} from the last build. A stamp is the SHA-256 of the
    bytes written with the file's size and mtime: a file whose size and mtime still match its
    stamp holds those bytes, so it is neither read back (same digest: unchanged) nor compared
    (another digest: rewritten). A file without a matching stamp is read and compared, as
    `fsio.write_if_changed` does. Unlike the article, pages are not synced to disk: a thousand
    are rewritten each night (a new run on every strip), each sync costs milliseconds, and a page
    a crash left behind is rewritten by the next run. Each write goes to `.<name>.<pid>.tmp`
    beside the page, then is renamed over it."""

    def __init__(self, out: Path, before: Mapping[str, str]) -> None:
        self.out = str(out)
        self.before = before
        self.stamps: dict[str, str] = {}
        self._dirs: set[str] = set()
        self._suffix = f".{os.getpid()}.tmp"

    def write(self, rel: str, text: str) -> bool:
        """Write `text` to `out/rel` unless it holds exactly that already; True when written."""
        raw = encoded(text)
        digest = hashlib.sha256(raw).hexdigest()
        path = f"{self.out}/{rel}"
        try:
            st: os.stat_result | None = os.stat(path)
        except OSError:
            st = None
        if st is not None and stat.S_ISREG(st.st_mode):
            now = f"{st.st_size}:{st.st_mtime_ns}"
            known = self.before.get(rel, "")
            if known == f"{digest}:{now}":
                self.stamps[rel] = known
                return False
            if not known.endswith(f":{now}") and st.st_size == len(raw) and _holds(path, raw):
                self.stamps[rel] = f"{digest}:{now}"
                return False
        self.stamps[rel] = f"{digest}:{self._replace(path, raw)}"
        after_write(Path(path))  # counted like every other write (the crash tests kill after N)
        return True

    def _replace(self, path: str, raw: bytes) -> str:
        """Write `raw` to a temp file beside `path` and rename it over `path`; the new file's
        "size:mtime"."""
        folder, name = os.path.split(path)
        if folder not in self._dirs:
            os.makedirs(folder, exist_ok=True)
            self._dirs.add(folder)
        tmp = f"{folder}/.{name}{self._suffix}"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        try:
            fd = os.open(tmp, flags, 0o666)  # the umask's mode, as open() gives a new file
        except FileExistsError:  # left by a killed run that had this process id
            os.unlink(tmp)
            fd = os.open(tmp, flags, 0o666)
        try:
            try:
                view = memoryview(raw)
                while view:
                    view = view[os.write(fd, view) :]
                st = os.fstat(fd)
            finally:
                os.close(fd)
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            raise
        return f"{st.st_size}:{st.st_mtime_ns}"


def _holds(path: str, raw: bytes) -> bool:
    """Whether the regular file at `path` holds exactly `raw` (False when unreadable)."""
    try:
        with open(path, "rb") as fh:
            return fh.read(len(raw) + 1) == raw
    except OSError:
        return False


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
    assets: Assets,
    now: datetime,
    generated: str,
    counted: Mapping[str, Status | None] | None = None,
    before: Mapping[str, str] | None = None,
) -> SkillSite:
    """Render and write every skill page and badge. `render(template, page)` renders a template;
    `run_days`: the days that have a run page; `counted`: the status of each row the newest
    article counts toward its verdict (the fleet badge; None: no article, the newest run of the
    history is counted); `before`: the stamps of the last build (PageWriter)."""
    specs = _specs(root)
    runs = {day: f"../runs/skill-evals-{day.isoformat()}.html" for day in run_days}
    writer = PageWriter(out, before or {})
    written: list[str] = []
    unchanged: list[str] = []

    def emit(rel: str, text: str) -> None:
        (written if writer.write(rel, text) else unchanged).append(rel)

    memo = PageMemo.for_build(issues)
    skills_dir = f"{root}/skills"
    today = now.date()
    pages: set[str] = set()
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
            today=today,
            assets=assets,
            generated=generated,
            skill_md=os.path.isfile(f"{skills_dir}/{skill}/SKILL.md"),
            memo=memo,
        )
        pages.add(rel)
        emit(rel, render("skill.html", page))

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
            emit(rel, text)
    fleet = fleet_badge(statuses if counted is None else counted)
    for rel, text in (("badges/fleet.svg", fleet.svg()), ("badges/fleet.json", fleet.endpoint())):
        badges.add(rel)
        emit(rel, text)

    removed: list[str] = []
    for folder, keep, suffixes in (
        ("skills", pages, (".html",)),
        ("badges", badges, (".svg", ".json")),
    ):
        base = out / folder
        if not base.is_dir():
            continue
        with os.scandir(base) as entries:
            names = sorted(entry.name for entry in entries if entry.is_file())
        for name in names:
            rel = f"{folder}/{name}"
            if os.path.splitext(name)[1] in suffixes and rel not in keep:
                with contextlib.suppress(OSError):
                    (base / name).unlink()
                    removed.append(rel)
    return SkillSite(tuple(written), tuple(unchanged), tuple(removed), writer.stamps)


# --------------------------------------------------------------------------------------------
# On a second core.


class Pending:
    """A skill site being written: by a forked child (`pid`, its result coming through `pipe`),
    or not yet (`work` runs in-process when the result is asked for)."""

    def __init__(self, work: Callable[[], SkillSite], pid: int | None, pipe: int | None) -> None:
        self._work = work
        self._pid = pid
        self._pipe = pipe

    def abandon(self) -> None:
        """Wait for the child, if any, and drop its result (the build failed meanwhile)."""
        if self._pid is not None and self._pipe is not None:
            os.close(self._pipe)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(self._pid, 0)
        self._pid = self._pipe = None

    def result(self) -> SkillSite:
        """The skill site: the child's, once it has finished; when the child failed (or there
        was none), written here: an error it met is raised here, with its own type."""
        if self._pid is None or self._pipe is None:
            return self._work()
        with os.fdopen(self._pipe, "rb") as fh:
            raw = fh.read()
        _, status = os.waitpid(self._pid, 0)
        self._pid = None
        data: dict[str, Any] = {}
        with contextlib.suppress(ValueError):
            data = json.loads(raw)
        code = os.waitstatus_to_exitcode(status)
        if code == 0 and "written" in data:
            return SkillSite(
                tuple(data["written"]),
                tuple(data["unchanged"]),
                tuple(data["removed"]),
                dict(data["stamps"]),
            )
        # The child failed: do it here (an error it met is met again and raised with its type; a
        # file it wrote is now unchanged and kept). If that succeeds, say what the child met.
        site = self._work()
        why = data.get("error") or (f"exit code {code}" if code >= 0 else f"signal {-code}")
        note = f"site: skill pages written again in-process: the child writing them failed ({why})"
        return SkillSite(site.written, site.unchanged, site.removed, site.stamps, (note,))


def start_skill_site(work: Callable[[], SkillSite], skills: int) -> Pending:
    """Run `work` (write_skill_site with its arguments) in a forked child when the platform can
    fork and there are at least FORK_MIN_SKILLS `skills`; its result comes back through a pipe
    when `Pending.result` is asked for, which the caller must do before it finishes. Without a
    child, `result` runs `work` in-process."""
    if not FORK or skills < FORK_MIN_SKILLS:
        return Pending(work, None, None)
    read, write = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        pid = os.fork()
    except OSError:
        os.close(read)
        os.close(write)
        return Pending(work, None, None)
    if pid == 0:  # the child: write, report, leave without running the parent's exit handlers
        code = 1
        try:
            os.close(read)
            try:
                site = work()
                data: dict[str, object] = {
                    "written": site.written,
                    "unchanged": site.unchanged,
                    "removed": site.removed,
                    "stamps": site.stamps,
                }
                code = 0
            except Exception as exc:  # reported to the parent, which does the work again
                data = {"error": f"{type(exc).__name__}: {exc}"}
            with os.fdopen(write, "wb") as fh:
                fh.write(json.dumps(data).encode("utf-8"))
        finally:
            os._exit(code)
    os.close(write)
    return Pending(work, pid, read)


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

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
import functools
import hashlib
import json
import mmap
import os
import signal
import stat
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any

from aeon_evals.articles.store import ArticleStore
from aeon_evals.errors import EvalsError
from aeon_evals.fs.write import _after_write as after_write
from aeon_evals.fs.write import encoded, signals_held
from aeon_evals.issues import IssueFile
from aeon_evals.load.manifest import read_manifest_data
from aeon_evals.load.state import load_state
from aeon_evals.metrics.history import History, history_for_run
from aeon_evals.model import Status
from aeon_evals.parallel import leave_if_orphaned
from aeon_evals.site.badges import fleet_badge, skill_badge
from aeon_evals.site.skill_pages import PageMemo, SkillPage, skill_page
from aeon_evals.site.views import Assets, page_name

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
        data = read_manifest_data(root, retry_delay=None)
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

    def write(self, rel: str, text: str | bytes) -> bool:
        """Write `text` (bytes: as they are) to `out/rel` unless it holds exactly that already;
        True when written."""
        raw = text if isinstance(text, bytes) else encoded(text)
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
        with signals_held():
            self.stamps[rel] = f"{digest}:{self._replace(path, raw)}"
        after_write(path)  # counted like every other write (the crash tests kill after N)
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
    last = {}
    for skill in history.samples:
        sample = history.last(skill)
        if sample is not None:
            last[skill] = sample
    newest = max((s.day for s in last.values()), default=None)
    return newest, {skill: s.status for skill, s in last.items() if s.day == newest}


@dataclass(frozen=True)
class SkillSiteJob:
    """What write_skill_site renders and writes (see there for each field)."""

    root: Path
    out: Path
    history: History
    issues: Sequence[IssueFile]
    run_days: Sequence[date]
    render: Callable[[str, object], str]
    assets: Assets
    now: datetime
    generated: str
    counted: Mapping[str, Status | None] | None = None
    before: Mapping[str, str] = field(default_factory=dict)

    def pages(self) -> list[tuple[str, str]]:
        """(skill, page) of every skill with a page, by skill."""
        named = ((skill, page_name(skill)) for skill in sorted(self.history.samples))
        return [(skill, rel) for skill, rel in named if rel is not None]

    @functools.cached_property
    def newest(self) -> dict[str, Status | None]:
        """The status of every skill the newest run evaluated (newest_run), worked out once."""
        return newest_run(self.history)[1]

    def badged(self) -> list[tuple[str, Status | None]]:
        """(skill, status) of each skill of the newest run that gets a badge, by skill."""
        statuses = self.newest
        return [(s, status) for s, status in sorted(statuses.items()) if page_name(s) is not None]

    def files(self) -> list[str]:
        """Every page and badge, in the order they are written."""
        badges = [f"badges/{skill}.{ext}" for skill, _ in self.badged() for ext in ("svg", "json")]
        return [rel for _, rel in self.pages()] + badges + ["badges/fleet.svg", "badges/fleet.json"]


class _Share:
    """The pages and badges one process renders and writes, and what became of each."""

    def __init__(self, job: SkillSiteJob, parent: int | None = None) -> None:
        self.job = job
        self.parent = parent  # in a forked child: the pid of the process that forked it
        self.writer = PageWriter(job.out, job.before)
        self.done: dict[str, bool] = {}  # page or badge: written (else unchanged)
        self._specs = _specs(job.root)
        self._runs = {day: f"../runs/skill-evals-{day.isoformat()}.html" for day in job.run_days}
        self._memo = PageMemo.for_build(job.issues)

    def html(self, page: SkillPage) -> bytes:
        """The page's HTML rendered by Jinja, as UTF-8 ending in a newline (as fsio.encoded)."""
        return encoded(self.job.render("skill.html", page))

    def emit(self, rel: str, text: str | bytes) -> None:
        if self.parent is not None:
            leave_if_orphaned(self.parent)
        self.done[rel] = self.writer.write(rel, text)

    def page(self, skill: str, rel: str) -> None:
        """Render and write `skill`'s page at `rel`."""
        job = self.job
        page = skill_page(
            skill,
            job.history,
            issues=job.issues,
            spec=self._specs.get(skill),
            run_pages=self._runs,
            today=job.now.date(),
            assets=job.assets,
            generated=job.generated,
            skill_md=os.path.isfile(f"{job.root}/skills/{skill}/SKILL.md"),
            memo=self._memo,
        )
        self.emit(rel, self.html(page))

    def badge(self, skill: str, status: Status | None) -> None:
        """Write `skill`'s badge and its endpoint JSON."""
        badge = skill_badge(skill, status)
        self.emit(f"badges/{skill}.svg", badge.svg())
        self.emit(f"badges/{skill}.json", badge.endpoint())

    def share(
        self,
        work: _Work,
        order: Iterable[int] | None = None,
        claims: Claims | None = None,
    ) -> None:
        """Write the pages and badges of `work` (all of them, or those at `order`'s positions
        in that order), each unless the other process has taken it (`claims`)."""
        pages, badged = work
        for i in range(len(pages) + len(badged)) if order is None else order:
            if claims is not None and not claims.take(i):
                continue
            if i < len(pages):
                self.page(*pages[i])
            else:
                self.badge(*badged[i - len(pages)])

    def fleet(self) -> None:
        """The fleet's badge."""
        job = self.job
        fleet = fleet_badge(job.newest if job.counted is None else job.counted)
        self.emit("badges/fleet.svg", fleet.svg())
        self.emit("badges/fleet.json", fleet.endpoint())


# The pages (skill, rel) then the badges (skill, status) two processes share: the child takes
# them from the first, the parent from the last, so the parent writes badges while the child
# renders pages and neither waits for the other at the end.
_Work = tuple[list[tuple[str, str]], list[tuple[str, Status | None]]]


def _work(job: SkillSiteJob) -> _Work:
    return job.pages(), job.badged()


def _finish(job: SkillSiteJob, done: Mapping[str, bool], stamps: Mapping[str, str]) -> SkillSite:
    """What was written and left unchanged (in writing order), with the pages and badges of
    skills no longer known removed."""
    files = job.files()
    keep = set(files)
    removed: list[str] = []
    for folder, suffixes in (("skills", (".html",)), ("badges", (".svg", ".json"))):
        base = job.out / folder
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
    return SkillSite(
        tuple(rel for rel in files if done.get(rel)),
        tuple(rel for rel in files if done.get(rel) is False),
        tuple(removed),
        {rel: stamps[rel] for rel in files if rel in stamps},
    )


def write_skill_site(job: SkillSiteJob) -> SkillSite:
    """Render and write every skill page (`site/skills/<skill>.html`, from `job.history`) and
    badge, in this process. `job.render(template, page)` renders a template; `job.run_days`:
    the days that have a run page; `job.counted`: the status of each row the newest article
    counts toward its verdict (the fleet badge; None: no article, the newest run of the history
    is counted); `job.before`: the stamps of the last build (PageWriter)."""
    share = _Share(job)
    share.share(_work(job))
    share.fleet()
    return _finish(job, share.done, share.writer.stamps)


# --------------------------------------------------------------------------------------------
# On two cores.


class Claims:
    """Which of n pages and badges a process has taken, in memory shared across a fork: the
    child takes them from the first, the parent (once its own work is done) from the last, so
    the two meet wherever the work splits evenly. Where they meet both may take one: both write
    the same bytes, each through its own temp file, and the last rename wins."""

    def __init__(self, n: int) -> None:
        self._flags = mmap.mmap(-1, max(n, 1))  # anonymous and shared: seen by a forked child

    def take(self, i: int) -> bool:
        """Take page `i` unless it was taken; True when taken now."""
        if self._flags[i]:
            return False
        self._flags[i] = 1
        return True

    def close(self) -> None:
        self._flags.close()


class Pending:
    """A skill site being written by a forked child (`pid`, its share coming through `pipe`)
    and by this process once it asks for the result; or, without a child, not yet started."""

    def __init__(
        self,
        job: SkillSiteJob,
        pid: int | None = None,
        pipe: int | None = None,
        claims: Claims | None = None,
    ) -> None:
        self.job = job
        self._pid = pid
        self._pipe = pipe
        self._claims = claims

    def abandon(self) -> None:
        """Wait for the child, if any, and drop its result (the build failed meanwhile)."""
        if self._pid is not None and self._pipe is not None:
            os.close(self._pipe)
            with contextlib.suppress(ProcessLookupError):  # it stops after its current page
                os.kill(self._pid, signal.SIGTERM)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(self._pid, 0)
        self._pid = self._pipe = None
        if self._claims is not None:
            self._claims.close()
            self._claims = None

    def result(self) -> SkillSite:
        """The skill site. With a child: this process takes the pages the child has not taken
        yet, from the last, then merges the child's share once it has finished. When the child
        failed, the whole site is written here: an error it met is raised here, with its type."""
        if self._pid is None or self._pipe is None or self._claims is None:
            return write_skill_site(self.job)
        mine = _Share(self.job)
        work = _work(self.job)
        try:
            mine.share(work, reversed(range(len(work[0]) + len(work[1]))), self._claims)
            mine.fleet()
        except BaseException:
            self.abandon()
            raise
        with os.fdopen(self._pipe, "rb") as fh:
            raw = fh.read()
        _, status = os.waitpid(self._pid, 0)
        self._pid = self._pipe = None
        self._claims.close()
        self._claims = None
        data: dict[str, Any] = {}
        with contextlib.suppress(ValueError):
            data = json.loads(raw)
        code = os.waitstatus_to_exitcode(status)
        if code == 0 and "done" in data:
            return _finish(
                self.job,
                {**data["done"], **mine.done},
                {**data["stamps"], **mine.writer.stamps},
            )
        # The child failed: do it all here (an error it met is met again and raised with its
        # type; a file it wrote is now unchanged and kept). If that succeeds, say what it met.
        site = write_skill_site(self.job)
        why = data.get("error") or (f"exit code {code}" if code >= 0 else f"signal {-code}")
        note = f"site: skill pages written again in-process: the child writing them failed ({why})"
        return SkillSite(site.written, site.unchanged, site.removed, site.stamps, (note,))


def start_skill_site(job: SkillSiteJob) -> Pending:
    """Start writing `job`'s pages and badges in a forked child when the platform can fork and
    there are at least FORK_MIN_SKILLS pages; this process takes its share of the pages when it
    asks for `Pending.result`, which it must do before it finishes. Without a child, `result`
    writes them all in-process."""
    work = _work(job)
    if not FORK or len(work[0]) < FORK_MIN_SKILLS:
        return Pending(job)
    claims = Claims(len(work[0]) + len(work[1]))
    read, write = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    parent = os.getpid()
    try:
        pid = os.fork()
    except OSError:
        os.close(read)
        os.close(write)
        claims.close()
        return Pending(job)
    if pid == 0:  # the child: write, report, leave without running the parent's exit handlers
        code = 1
        try:
            # SIGTERM (from `abandon`) unwinds like Ctrl-C: a page being written is removed
            signal.signal(signal.SIGTERM, signal.default_int_handler)
            os.close(read)
            try:
                share = _Share(job, parent)
                share.share(work, None, claims)
                data: dict[str, object] = {"done": share.done, "stamps": share.writer.stamps}
                code = 0
            except Exception as exc:  # reported to the parent, which does the work again
                data = {"error": f"{type(exc).__name__}: {exc}"}
            with os.fdopen(write, "wb") as fh:
                fh.write(json.dumps(data).encode("utf-8"))
        finally:
            os._exit(code)
    os.close(write)
    return Pending(job, pid, read, claims)


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

"""Write the dashboard's skill pages and badges (the I/O edge of skill_pages and badges).

`site/skills/<skill>.html` for every skill in the metrics history, `site/badges/<skill>.svg`
and `.json` for every skill in the newest run and `site/badges/fleet.svg`/`.json`; each file
written only when its bytes changed, and pages and badges of skills no longer known removed.
What each file held when written is remembered (a digest with the file's size and mtime, in the
site's page-state file), so an unchanged file is recognised without reading it back. With many
skills half of the pages are rendered alongside (parallel.Forked) while this process renders the
other half and builds the rest of the dashboard; this process writes every page
(`start_skill_site`).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import stat
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any

from aeon_evals.articles.store import ArticleStore
from aeon_evals.errors import EvalsError
from aeon_evals.fs.write import _after_write as after_write
from aeon_evals.fs.write import encoded, signals_held
from aeon_evals.issues import IssueFile
from aeon_evals.load.known import known_skills
from aeon_evals.load.manifest import Manifest, parse_manifest, read_manifest_data
from aeon_evals.load.state import load_state
from aeon_evals.metrics.history import History
from aeon_evals.metrics.read import history_for_run
from aeon_evals.model import Spec, Status
from aeon_evals.parallel import FORK, Forked, checkpoint
from aeon_evals.site.badges import badge_stem, fleet_badge, skill_badge
from aeon_evals.site.findings import Finding
from aeon_evals.site.skill_pages import PageMemo, skill_page
from aeon_evals.site.views import Assets, page_name

# Fewer skills than this are rendered in-process: a fork costs more than a few pages.
FORK_MIN_SKILLS = 100
# Skills of the history the instance no longer knows lose their page quietly (a skill removed
# from aeon.yml and skills/); this many are no fleet's past but a planted file: said once.
WARN_UNKNOWN = 1000


@dataclass(frozen=True)
class SkillSite:
    """What was written: paths relative to the site folder; `stamps`, what each page and badge
    holds now (`PageWriter.stamp`), for the site's page-state file."""

    written: tuple[str, ...]
    unchanged: tuple[str, ...]
    removed: tuple[str, ...]
    stamps: Mapping[str, str] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()


def _specs(root: Path) -> tuple[Mapping[str, Any], Mapping[str, Spec]]:
    """The evals.json entries by skill, raw (as each page shows them) and validated (the bounds
    its charts draw); none when the file is missing or broken: the run reports that."""
    try:
        data = read_manifest_data(root, retry_delay=None)
        checked = parse_manifest(data).specs
    except (EvalsError, OSError, ValueError):
        return {}, {}
    skills = data.get("skills") if isinstance(data, dict) else None
    return (skills if isinstance(skills, dict) else {}), checked


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
    findings: Mapping[str, Finding] = field(default_factory=dict)  # by skill, newest article
    instance: frozenset[str] | None = None  # the skills the run knows (else read: load.known)
    manifest: Manifest | None = None  # evals.json as the run read it (else read: _specs)

    @functools.cached_property
    def known(self) -> frozenset[str]:
        """The skills the instance knows (load.known) and those of its newest run: only they get
        a page and a badge, however many skills an older, planted metrics file names."""
        found = self.instance if self.instance is not None else known_skills(self.root)
        return found | frozenset(self.newest)

    @functools.cached_property
    def unknown(self) -> int:
        """How many skills of the history the instance does not know (no page for them)."""
        known = self.known
        return sum(1 for skill in self.history.samples if skill not in known)

    def pages(self) -> list[tuple[str, str]]:
        """(skill, page) of every known skill with a history, by skill."""
        known = self.known
        named = (
            (skill, page_name(skill)) for skill in sorted(self.history.samples) if skill in known
        )
        return [(skill, rel) for skill, rel in named if rel is not None]

    @functools.cached_property
    def newest(self) -> dict[str, Status | None]:
        """The status of every skill the newest run evaluated (newest_run), worked out once."""
        return newest_run(self.history)[1]

    def badged(self) -> list[tuple[str, Status | None]]:
        """(skill, status) of each known skill of the newest run that gets a badge, by skill."""
        known = self.known
        return [
            (s, status)
            for s, status in sorted(self.newest.items())
            if s in known and page_name(s) is not None
        ]

    def files(self) -> list[str]:
        """Every page and badge, in the order they are written."""
        badges = [
            f"badges/{badge_stem(skill)}.{ext}"
            for skill, _ in self.badged()
            for ext in ("svg", "json")
        ]
        return [rel for _, rel in self.pages()] + badges + ["badges/fleet.svg", "badges/fleet.json"]


class _Renderer:
    """Renders pages and badges of one job (in this process or a forked child: it writes
    nothing)."""

    def __init__(self, job: SkillSiteJob) -> None:
        self.job = job
        self._specs, self._checked = (
            (job.manifest.entries, job.manifest.specs)
            if job.manifest is not None
            else _specs(job.root)
        )
        self._runs = {day: f"../runs/skill-evals-{day.isoformat()}.html" for day in job.run_days}
        self._memo = PageMemo.for_build(job.issues)

    def page(self, skill: str) -> bytes:
        """`skill`'s page, rendered by Jinja, as UTF-8 ending in a newline (as fsio.encoded)."""
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
            finding=job.findings.get(skill),
            checked=self._checked.get(skill),
        )
        return encoded(job.render("skill.html", page))

    def pages(self, pages: Sequence[tuple[str, str]]) -> list[tuple[str, bytes]]:
        """(rel, bytes) of each (skill, rel) of `pages`."""
        out = []
        for skill, rel in pages:
            checkpoint()
            out.append((rel, self.page(skill)))
        return out


def _files(job: SkillSiteJob, pages: Iterable[tuple[str, bytes]]) -> Iterator[tuple[str, bytes]]:
    """Every file of the skill site in writing order: the pages given, then each badge and its
    endpoint JSON, then the fleet's."""
    yield from pages
    for skill, status in job.badged():
        badge = skill_badge(skill, status)
        yield f"badges/{badge_stem(skill)}.svg", encoded(badge.svg())
        yield f"badges/{badge_stem(skill)}.json", encoded(badge.endpoint())
    fleet = fleet_badge(job.newest if job.counted is None else job.counted)
    yield "badges/fleet.svg", encoded(fleet.svg())
    yield "badges/fleet.json", encoded(fleet.endpoint())


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
    unknown = job.unknown
    return SkillSite(
        tuple(rel for rel in files if done.get(rel)),
        tuple(rel for rel in files if done.get(rel) is False),
        tuple(removed),
        {rel: stamps[rel] for rel in files if rel in stamps},
        (
            f"site: {unknown:,} skill{'s' * (unknown != 1)} of the metrics history "
            f"{'are' if unknown != 1 else 'is'} not this instance's (not in aeon.yml, skills/, "
            "evals.json, memory/cron-state.json or the newest run): no page for "
            f"{'them' if unknown != 1 else 'it'}",
        )
        if unknown >= WARN_UNKNOWN
        else (),
    )


def _write(job: SkillSiteJob, files: Iterable[tuple[str, bytes]]) -> SkillSite:
    writer = PageWriter(job.out, job.before)
    done = {rel: writer.write(rel, raw) for rel, raw in files}
    return _finish(job, done, writer.stamps)


def write_skill_site(job: SkillSiteJob) -> SkillSite:
    """Render and write every skill page (`site/skills/<skill>.html`, from `job.history`) and
    badge, in this process. `job.render(template, page)` renders a template; `job.run_days`:
    the days that have a run page; `job.counted`: the status of each row the newest article
    counts toward its verdict (the fleet badge; None: no article, the newest run of the history
    is counted); `job.before`: the stamps of the last build (PageWriter)."""
    return _write(job, _files(job, _Renderer(job).pages(job.pages())))


class Pending:
    """A skill site being rendered: the first half of its pages alongside (`child`), the rest
    by this process when it asks for the result, which writes them all."""

    def __init__(self, job: SkillSiteJob, child: Forked[list[tuple[str, bytes]]] | None) -> None:
        self.job = job
        self._child = child

    def abandon(self) -> None:
        """Stop the child, if any (the build failed meanwhile)."""
        if self._child is not None:
            self._child.abandon()
            self._child = None

    def result(self) -> SkillSite:
        """Render this process's share, take the child's (rendered here if it failed), write
        every page and badge."""
        if self._child is None:
            return write_skill_site(self.job)
        pages = self.job.pages()
        try:
            mine = _Renderer(self.job).pages(pages[len(pages) // 2 :])
            theirs = self._child.result()
        except BaseException:
            self.abandon()
            raise
        self._child = None
        return _write(self.job, _files(self.job, [*theirs, *mine]))


def start_skill_site(job: SkillSiteJob) -> Pending:
    """Start rendering the first half of `job`'s pages alongside when the platform can fork and
    there are at least FORK_MIN_SKILLS pages; `Pending.result` renders the rest and writes."""
    pages = job.pages()
    if not FORK or len(pages) < FORK_MIN_SKILLS:
        return Pending(job, None)
    first = pages[: len(pages) // 2]
    return Pending(job, Forked(lambda: _Renderer(job).pages(first), fork=True))


def site_history(root: Path, store: ArticleStore) -> History:
    """The metrics history of the instance with every run (`aeon-evals site`, a --skill run):
    the files, the articles before them and the skill-health scores of the skills in them."""
    bare = history_for_run(root, store, {}, before=None)
    state = load_state(root, sorted(bare.samples))
    return History(
        bare.samples,
        {skill: h.history for skill, h in state.health.items() if h.history},
        bare.warnings,
    )

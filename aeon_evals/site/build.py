"""Build the dashboard: read articles and issues, render the views, write the pages.

The I/O edge of the site package: articles (through the article cache, new bodies rendered on a
second core) and issue files in, `index.html` and `runs/skill-evals-DATE.html` out, each written
only when its bytes changed; Jinja2 is set up in `jinja_env`, the skill pages and badges are
written by `skill_site`. Everything is inline (CSS, JS, SVG charts), so it opens from file://.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import hashlib
import os
import re
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from jinja2 import Environment
from markupsafe import Markup

from aeon_evals.articles.store import ArticleStore, StoredArticle
from aeon_evals.errors import WriteFailed
from aeon_evals.fs.confine import check_writable
from aeon_evals.fs.write import write_error, write_if_changed
from aeon_evals.issues import IssueFile, read_issues
from aeon_evals.load.manifest import Manifest
from aeon_evals.metrics.history import History
from aeon_evals.site.findings import findings
from aeon_evals.site.jinja_env import (
    inline_assets,
    make_env,
    render,
    template_errors,
    template_search_path,
    templates_digest,
)
from aeon_evals.site.skill_site import SkillSite, SkillSiteJob, site_history, start_skill_site
from aeon_evals.site.views import (
    Assets,
    DashboardPage,
    RunPage,
    counted_statuses,
    dashboard_page,
    generated_at,
    grid_window,
)

if TYPE_CHECKING:
    from aeon_evals.catalog.summary import CatalogSummary

# The site's stylesheet as a file, for the skill pages (the other pages hold it inline): a
# thousand pages are written every night, 12 KB less each.
STYLESHEET = "style.css"

# Where versions before 0.2 kept their cache, inside the published site; removed on sight.
LEGACY_CACHE = (".aeon-evals-site-cache.json", ".aeon-evals-bodies")


@dataclass(frozen=True)
class SiteOutcome:
    """What build_site did: pages are paths relative to `out`, in write order."""

    out: Path
    written: tuple[str, ...]
    unchanged: tuple[str, ...]
    removed: tuple[str, ...]  # run pages whose article is gone
    warnings: tuple[str, ...]
    skills: SkillSite | None = None  # the skill pages and badges (skill_site.py)
    # what could not be written, one line each, naming the real file and the reason
    # (`site/skills/x.html: cannot write: read-only file system; skill pages and badges not
    # written`): index.html was written, the pages these lines name were not
    failed: tuple[str, ...] = ()

    def extra(self) -> str:
        """What the run and `site` add after the page counts: the skill pages and badges
        (`, 35 skill pages and badges (0 unchanged)`), empty when none were built."""
        if self.skills is None:
            return ""
        done, same = len(self.skills.written), len(self.skills.unchanged)
        return f", {done} skill pages and badges ({same} unchanged)"

    def not_written(self) -> str:
        """What the run and `site` add last: what was not written (`; not written: 12 run
        pages, skill pages and badges`), empty when everything was."""
        if not self.failed:
            return ""
        return "; not written: " + ", ".join(_failed_part(line) for line in self.failed)


def _failed_part(line: str) -> str:
    """What a `failed` line says was not written: the part after its last "; ... not written"."""
    return line.rsplit("; ", 1)[-1].removesuffix(" not written")


# --------------------------------------------------------------------------------------------
# I/O at the edges: reading issues (articles come from the store), writing pages.


def load_issues(root: Path) -> tuple[list[IssueFile], list[str]]:
    """Issue files under memory/issues (none when the folder does not exist)."""
    issues_dir = root / "memory" / "issues"
    if not issues_dir.is_dir():
        return [], []
    return read_issues(issues_dir, root=root)


def _href(target: Path, start: Path) -> str:
    """A relative link from the folder `start` to `target` ("..", "../.."), so the pages work
    from file:// and in a repository browser; a file URI where none exists (another drive)."""
    try:
        return Path(os.path.relpath(target.resolve(), start.resolve())).as_posix()
    except ValueError:  # another drive on Windows
        return target.resolve().as_uri()


def build_site(
    root: Path,
    out: Path,
    *,
    now: datetime,
    template_dirs: list[Path] | None = None,
    store: ArticleStore | None = None,
    catalog: CatalogSummary | None = None,
    history: History | None = None,
    known: frozenset[str] | None = None,
    manifest: Manifest | None = None,
) -> SiteOutcome:
    """Render the dashboard and run pages for the instance at `root` into `out`.

    Reads root/articles/skill-evals-*.md (unparseable ones become warnings) and
    root/memory/issues/. Writes out/index.html and out/runs/skill-evals-DATE.html only where
    the bytes changed and removes run pages whose article is gone. Articles come from `store`
    (a run's, which has read some of them already; by default the instance's own), which parses
    and renders only new or edited articles and keeps each run page's input key; a store made
    here is saved here. `catalog` (the catalog checks, catalog_summary) adds the dashboard's
    Catalog panel. `history`: the metrics history for the skill pages and badges (a run's; by
    default read here). `known`: the skills the run knows (the registry, evals.json,
    cron-state, the skill folders) and `manifest` (evals.json as the run read it); by default
    read here. Output depends only on the files read and `now`.
    """
    own_store = store is None
    store = store or ArticleStore(root)
    refused: list[str] = []
    env = make_env(template_search_path(root, template_dirs), root=root, warnings=refused)
    assets = inline_assets(env)
    try:
        outcome = _build(root, out, now, env, assets, store, catalog, history, known, manifest)
        if refused:
            outcome = dataclasses.replace(outcome, warnings=(*refused, *outcome.warnings))
    except BaseException:  # SIGTERM, Ctrl-C, an error: the bodies' child stops at once
        store.stop()
        raise
    finally:
        store.wait()
    if own_store:
        store.save()
    return outcome


def _build(
    root: Path,
    out: Path,
    now: datetime,
    env: Environment,
    assets: Assets,
    store: ArticleStore,
    catalog: CatalogSummary | None = None,
    history: History | None = None,
    known: frozenset[str] | None = None,
    manifest: Manifest | None = None,
) -> SiteOutcome:
    if out.is_relative_to(root):  # the site inside the instance: not through a symlink out of it
        for rel in ("index.html", "runs/index.html", STYLESHEET):
            check_writable(root, out / rel, what="site")
    loaded, warnings = store.load(latest=now.date())
    issues, issue_warnings = load_issues(root)
    warnings.extend(issue_warnings)

    window = grid_window(max((item.counts[1] for item in loaded), default=0))
    root_href = _href(root, out)  # usually ".."
    root_from_runs = _href(root, out / "runs")  # usually "../.."
    before = store.pages(out)
    # the stylesheet the skill pages link to, before any of them is written
    try:  # (an asset, not a page: not among the pages written or unchanged)
        write_if_changed(out / STYLESHEET, str(assets.style), sync=False)
    except OSError as exc:
        if exc.errno not in REFUSED:
            raise
        raise WriteFailed(_write_failure(exc, root)) from None

    # a page per skill and its badges (skill_site.py): on a second core while this process
    # builds the index and the run pages
    history = history or site_history(root, store)
    for name in ("skill.html", "base.html", "macros.html"):  # compiled once, before the fork
        with template_errors(name):
            env.get_template(name)
    # the newest article whole (its rows count toward the fleet badge); the other rows of the
    # grid's window are read after the fork, by this process only
    newest = (loaded[-1].full() if window >= 1 else loaded[-1].parsed) if loaded else None
    skill_site = start_skill_site(
        SkillSiteJob(
            root,
            out,
            history=history,
            issues=issues,
            run_days=[item.parsed.day for item in loaded],
            render=lambda name, page: render(env, name, page=page),
            assets=assets,
            now=now,
            generated=generated_at(now),
            counted=None if newest is None else counted_statuses(newest),
            before=before,
            findings=findings(newest),
            instance=known,
            manifest=manifest,
        )
    )
    try:
        articles = [
            item.full() if i >= len(loaded) - window else item.parsed
            for i, item in enumerate(loaded)
        ]
        dashboard = dashboard_page(
            articles,
            issues,
            now=now,
            assets=assets,
            root_href=root_href,
            warnings=warnings,
            counts=[item.counts for item in loaded],
            catalog=catalog,
        )
        pages, listed, written, unchanged, problem = _write_dashboard(
            root, out, env, assets, store, dashboard, loaded, before, root_from_runs
        )
    except BaseException:
        skill_site.abandon()
        raise
    failed: list[str] = []
    skills: SkillSite | None = None
    try:
        skills = skill_site.result()
        warnings.extend(skills.warnings)
    except OSError as exc:  # index.html and the run pages are written: say what was not
        if exc.errno not in REFUSED:
            raise
        failed.append(f"{_write_failure(exc, root)}; skill pages and badges not written")
    if problem is not None:
        failed.insert(0, problem)
    removed: list[str] = []
    runs_dir = out / "runs"
    if runs_dir.is_dir():
        for stale in sorted(runs_dir.glob("skill-evals-*.html")):
            if f"runs/{stale.name}" not in listed:
                try:
                    stale.unlink()
                except OSError as exc:
                    warnings.append(f"{write_error(exc, stale, root=root)}; stale run page kept")
                    continue
                removed.append(f"runs/{stale.name}")
    for legacy in LEGACY_CACHE:
        with contextlib.suppress(OSError):
            shutil.rmtree(out / legacy) if (out / legacy).is_dir() else (out / legacy).unlink()

    store.save_pages(out, {**pages, **(skills.stamps if skills is not None else {})})
    return SiteOutcome(
        out=out,
        written=tuple(written),
        unchanged=tuple(unchanged),
        removed=tuple(removed),
        warnings=tuple(warnings),
        skills=skills,
        failed=tuple(failed),
    )


# The machine refused a write (a read-only folder, a full disk, no permission): said in one line
# naming the page, while what else was written stands. Any other OSError (a file where a folder
# goes …) is raised as it is.
REFUSED = frozenset({errno.EROFS, errno.EACCES, errno.EPERM, errno.ENOSPC, errno.EDQUOT})

# The temporary file a page is written to before it replaces the page: `.<name>.<token>.tmp`
# (fsio.atomic_write's, the skill pages' writer's).
_TEMP_NAME = re.compile(r"^\.(?P<name>.+)\.[^.]+\.tmp$")


def _write_failure(exc: OSError, root: Path) -> str:
    """One line for a page that could not be written: the page itself, not the temporary file
    the error names (`site/skills/x.html: cannot write: read-only file system`)."""
    path = Path(os.fsdecode(exc.filename)) if exc.filename is not None else None
    if path is None:
        return write_error(exc, "site", root=root)
    temp = _TEMP_NAME.match(path.name)
    return write_error(exc, path.with_name(temp["name"]) if temp else path, root=root)


def _write_dashboard(
    root: Path,
    out: Path,
    env: Environment,
    assets: Assets,
    store: ArticleStore,
    dashboard: DashboardPage,
    loaded: Sequence[StoredArticle],
    before: Mapping[str, str],
    root_from_runs: str,
) -> tuple[dict[str, str], set[str], list[str], list[str], str | None]:
    """Write index.html and the run pages whose inputs changed: ({run page written or up to
    date: its inputs' key}, every run page, written, unchanged, why the run pages from the first
    that could not be written on were not). index.html that cannot be written raises
    WriteFailed naming it."""
    written: list[str] = []
    unchanged: list[str] = []

    def emit(rel: str, text: str) -> None:
        (written if write_if_changed(out / rel, text) else unchanged).append(rel)

    try:
        emit("index.html", render(env, "index.html", page=dashboard))
    except OSError as exc:
        if exc.errno not in REFUSED:
            raise
        raise WriteFailed(_write_failure(exc, root)) from None
    runs_oldest_first = list(reversed(dashboard.runs))
    listed = {run.href for run in runs_oldest_first}
    templates = templates_digest(env)
    pages: dict[str, str] = {}
    for i, (item, run) in enumerate(zip(loaded, runs_oldest_first, strict=True)):
        newer = runs_oldest_first[i + 1] if i + 1 < len(runs_oldest_first) else None
        older = runs_oldest_first[i - 1] if i else None
        # A run page depends on its article (its bytes and where it is: the page links its
        # markdown source), its neighbours, the templates and this code only: when none changed
        # and the page is there, it is not rendered again.
        key = hashlib.sha256(
            "\0".join(
                [
                    store.code_key,
                    templates,
                    item.sha256,
                    item.parsed.path,
                    repr(run),
                    repr(newer),
                    repr(older),
                    root_from_runs,
                ]
            ).encode()
        ).hexdigest()
        if before.get(run.href) == key and (out / run.href).is_file():
            pages[run.href] = key
            unchanged.append(run.href)
            continue
        page = RunPage(
            assets=assets,
            run=run,
            body=Markup(item.body()),
            newer=newer,
            older=older,
            source_href=f"{root_from_runs}/{item.parsed.path}",
        )
        try:
            emit(run.href, render(env, "run.html", page=page))
        except OSError as exc:  # the folder is read-only, the disk full: the others fail too
            if exc.errno not in REFUSED:
                raise
            left = len(runs_oldest_first) - i
            return (
                pages,
                listed,
                written,
                unchanged,
                f"{_write_failure(exc, root)}; {left} run "
                + ("pages not written" if left != 1 else "page not written"),
            )
        pages[run.href] = key
    return pages, listed, written, unchanged, None

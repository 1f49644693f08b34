"""Build the dashboard: read articles and issues, render the views with Jinja2, write the pages.

The I/O edge of the site package: articles (through the article cache, new bodies rendered on a
second core) and issue files in, `index.html` and `runs/skill-evals-DATE.html` out, each written
only when its bytes changed. Everything is inline (CSS, JS, SVG charts), so it opens from file://.
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import errno
import hashlib
import os
import re
import shutil
import traceback
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from jinja2 import (
    BaseLoader,
    ChoiceLoader,
    Environment,
    FileSystemLoader,
    StrictUndefined,
    TemplateError,
    TemplateNotFound,
    TemplateSyntaxError,
    select_autoescape,
)
from jinja2.loaders import split_template_path
from jinja2.sandbox import SandboxedEnvironment
from markupsafe import Markup

from aeon_evals.articles.store import ArticleStore, StoredArticle
from aeon_evals.errors import ConfigError, EvalsError, WriteFailed
from aeon_evals.fs.confine import check_writable, read_plain, rel_path
from aeon_evals.fs.write import write_error, write_if_changed
from aeon_evals.issues import IssueFile, read_issues
from aeon_evals.metrics.history import History
from aeon_evals.resources import templates_dir
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
    from collections.abc import Callable

    from aeon_evals.catalog.summary import CatalogSummary

OVERRIDE_DIR = Path(".aeon-evals") / "templates"  # per-instance template overrides, searched first

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
# Jinja2, configured once.


def template_search_path(root: Path, template_dirs: Sequence[Path] | None = None) -> list[Path]:
    """Instance overrides first, then `template_dirs`, then the packaged templates (as mkdocs)."""
    return [root / OVERRIDE_DIR, *(template_dirs or ()), templates_dir()]


class InstanceTemplates(BaseLoader):
    """The instance's template overrides (`.aeon-evals/templates/`), which whoever can push to
    the repository can plant: only a regular file reached without any symlink is read (a link to
    `.git/config` or `/proc/self/environ` would publish a secret in the site); anything else is
    left out with a warning, and the next folder's template is used."""

    def __init__(self, root: Path, warnings: list[str]) -> None:
        self.root = root
        self.folder = root / OVERRIDE_DIR
        self.warnings = warnings

    def get_source(
        self, environment: Environment, template: str
    ) -> tuple[str, str | None, Callable[[], bool] | None]:
        rel = "/".join([OVERRIDE_DIR.as_posix(), *split_template_path(template)])
        try:
            raw = read_plain(self.root, rel)
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            raise TemplateNotFound(template) from None
        except (OSError, EvalsError) as exc:
            why = exc.line() if isinstance(exc, EvalsError) else f"{rel}: {exc.strerror or exc}"
            warning = f"{why}; the packaged template is used"
            if warning not in self.warnings:
                self.warnings.append(warning)
            raise TemplateNotFound(template) from None
        try:
            source = raw.decode("utf-8")
        except UnicodeError:
            raise ConfigError("is not UTF-8 text", path=rel) from None
        return source, str(self.root / rel), None

    def list_templates(self) -> list[str]:
        try:
            with os.scandir(self.folder) as entries:
                return sorted(e.name for e in entries if e.is_file(follow_symlinks=False))
        except OSError:
            return []


def make_env(
    search_path: Sequence[Path], *, root: Path | None = None, warnings: list[str] | None = None
) -> Environment:
    """A Jinja2 environment that escapes everything in .html/.svg templates and fails on typos.
    With `root`, the instance's overrides (the first folder of `search_path`) are read by
    InstanceTemplates and, when there are any, every template is rendered in Jinja's sandbox:
    an override may not reach Python (`cycler.__init__.__globals__`)."""
    folders = list(search_path)
    loader: BaseLoader = FileSystemLoader([str(p) for p in folders])
    sandboxed = False
    if root is not None and folders and folders[0] == root / OVERRIDE_DIR:
        own = InstanceTemplates(root, warnings if warnings is not None else [])
        loader = ChoiceLoader([own, FileSystemLoader([str(p) for p in folders[1:]])])
        sandboxed = bool(own.list_templates())
    return (SandboxedEnvironment if sandboxed else Environment)(
        loader=loader,
        # Only the inline CSS/JS assets are unescaped; any other name is escaped by default.
        autoescape=select_autoescape(
            enabled_extensions=("html", "htm", "svg", "xml"),
            disabled_extensions=("css", "js"),
            default_for_string=True,
            default=True,
        ),
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        auto_reload=False,  # one build, one look at each template file
        trim_blocks=True,
        lstrip_blocks=True,
    )


def _render(env: Environment, name: str, **context: object) -> str:
    """Render one template; a broken (usually user-overridden) template becomes a ConfigError
    naming the template file (the instance's override, when it is one) and, for a skill page,
    the skill."""
    page = context.get("page")
    skill = getattr(page, "skill", None) if name == "skill.html" else None
    with _template_errors(name, env, skill=skill if isinstance(skill, str) else None):
        return env.get_template(name).render(**context)


@contextlib.contextmanager
def _template_errors(
    name: str, env: Environment | None = None, *, skill: str | None = None
) -> Iterator[None]:
    """A broken (usually user-overridden) template `name` becomes a ConfigError naming the file
    that broke (`.aeon-evals/templates/run.html`, the line when known) and the skill whose page
    it was rendering."""
    try:
        yield
    except TemplateSyntaxError as exc:
        where = f"line {exc.lineno}" if exc.lineno else None
        raise ConfigError(
            exc.message or "syntax error", path=_shown(exc.filename, name, env), where=where
        ) from None
    except TemplateError as exc:
        filename, line = _failing_template(exc, env)
        what = f"cannot render the page of skill {skill}" if skill else "cannot render"
        at = f" (line {line})" if line else ""
        raise ConfigError(f"{what}: {exc}{at}", path=_shown(filename, name, env)) from None


def _failing_template(exc: BaseException, env: Environment | None) -> tuple[str | None, int]:
    """The template file and line where a render error was raised: Jinja rewrites the
    traceback so that the frames of templates carry their file names and template lines."""
    if env is None or exc.__traceback__ is None:
        return None, 0
    folders = [str(p) for p in _search_path(env)]
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        if any(frame.filename.startswith(folder + os.sep) for folder in folders):
            return frame.filename, frame.lineno or 0
    return None, 0


def _search_path(env: Environment) -> list[str]:
    loader = env.loader
    if isinstance(loader, ChoiceLoader):
        folders: list[str] = []
        for one in loader.loaders:
            if isinstance(one, InstanceTemplates):
                folders.append(str(one.folder))
            elif isinstance(one, FileSystemLoader):
                folders += list(one.searchpath)
        return folders
    return list(loader.searchpath) if isinstance(loader, FileSystemLoader) else []


def _shown(filename: str | None, name: str, env: Environment | None) -> str:
    """The template file as a message names it: an override under the instance relative to
    the instance (`.aeon-evals/templates/run.html`), another template by its path, else `name`
    when the file is not known."""
    if filename is None and env is not None:
        with contextlib.suppress(TemplateError, OSError):
            filename = env.get_template(name).filename
    if filename is None:
        return name
    for folder in _search_path(env) if env is not None else []:
        if Path(folder).parts[-2:] == OVERRIDE_DIR.parts and filename.startswith(folder + os.sep):
            return rel_path(Path(filename), Path(folder).parent.parent)
    return filename


def _assets(env: Environment) -> Assets:
    script = _render(env, "site.js")
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    csp = (
        "default-src 'none'; img-src data:; style-src 'unsafe-inline' 'self'; "
        f"script-src 'sha256-{digest}'; base-uri 'none'; form-action 'none'"
    )
    style = _render(env, "style.css")
    return Assets(style=Markup(style), script=Markup(script), csp=csp)


# --------------------------------------------------------------------------------------------
# I/O at the edges: reading issues (articles come from the store), writing pages.


def load_issues(root: Path) -> tuple[list[IssueFile], list[str]]:
    """Issue files under memory/issues (none when the folder does not exist)."""
    issues_dir = root / "memory" / "issues"
    if not issues_dir.is_dir():
        return [], []
    return read_issues(issues_dir, root=root)


def _templates_digest(env: Environment) -> str:
    """A digest of every template the pages can use, overrides included."""
    digest = hashlib.sha256()
    loader = env.loader
    for name in sorted(env.list_templates()):
        assert loader is not None
        source, _filename, _uptodate = loader.get_source(env, name)
        digest.update(name.encode() + b"\0" + source.encode("utf-8"))
    return digest.hexdigest()


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
) -> SiteOutcome:
    """Render the dashboard and run pages for the instance at `root` into `out`.

    Reads root/articles/skill-evals-*.md (unparseable ones become warnings) and
    root/memory/issues/. Writes out/index.html and out/runs/skill-evals-DATE.html only where
    the bytes changed and removes run pages whose article is gone. Articles come from `store`
    (a run's, which has read some of them already; by default the instance's own), which parses
    and renders only new or edited articles and keeps each run page's input key; a store made
    here is saved here. `catalog` (the catalog checks, catalog_summary) adds the dashboard's
    Catalog panel. `history`: the metrics history for the skill pages and badges (a run's; by
    default read here). Output depends only on the files read and `now`.
    """
    own_store = store is None
    store = store or ArticleStore(root)
    refused: list[str] = []
    env = make_env(template_search_path(root, template_dirs), root=root, warnings=refused)
    assets = _assets(env)
    try:
        outcome = _build(root, out, now, env, assets, store, catalog, history)
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
        with _template_errors(name):
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
            render=lambda name, page: _render(env, name, page=page),
            assets=assets,
            now=now,
            generated=generated_at(now),
            counted=None if newest is None else counted_statuses(newest),
            before=before,
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
        emit("index.html", _render(env, "index.html", page=dashboard))
    except OSError as exc:
        if exc.errno not in REFUSED:
            raise
        raise WriteFailed(_write_failure(exc, root)) from None
    runs_oldest_first = list(reversed(dashboard.runs))
    listed = {run.href for run in runs_oldest_first}
    templates = _templates_digest(env)
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
            emit(run.href, _render(env, "run.html", page=page))
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

"""Build the dashboard: read articles and issues, render the views with Jinja2, write the pages.

The I/O edge of the site package: articles (through the article cache, new bodies rendered on a
second core) and issue files in, `index.html` and `runs/skill-evals-DATE.html` out, each written
only when its bytes changed. Everything is inline (CSS, JS, SVG charts), so it opens from file://.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import os
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from stat import S_ISREG

from jinja2 import (
    Environment,
    FileSystemBytecodeCache,
    FileSystemLoader,
    StrictUndefined,
    TemplateError,
    TemplateSyntaxError,
    select_autoescape,
)
from markupsafe import Markup

from aeon_evals import history
from aeon_evals.cache import ArticleCache, content_key, counts_of
from aeon_evals.errors import ConfigError, EvalsError
from aeon_evals.fsio import atomic_write
from aeon_evals.history import ArticleParseError, article_names, read_article
from aeon_evals.issues import IssueFile, read_issues
from aeon_evals.model import ParsedArticle
from aeon_evals.resources import templates_dir
from aeon_evals.site.views import MD as _MD
from aeon_evals.site.views import Assets, RunPage, dashboard_page, grid_window

OVERRIDE_DIR = Path(".aeon-evals") / "templates"  # per-instance template overrides, searched first

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


@dataclass(frozen=True)
class LoadedArticle:
    """An article parsed once; its markdown is rendered to HTML only when a page needs it, and
    the HTML kept in the article cache for the next build."""

    parsed: ParsedArticle  # rows empty when only the summary was read from the cache
    sha256: str
    source: Path  # the article file
    cache: ArticleCache
    counts: tuple[int, int]  # (failing, skills)
    has_rows: bool = True
    html: str | None = None  # the rendered body, when it was rendered in this build

    def full(self) -> ParsedArticle:
        """The article with its rows (from the cache, or parsed again)."""
        if self.has_rows:
            return self.parsed
        whole = self.cache.full(self.sha256, self.parsed)
        if whole is not None:
            return whole
        return read_article(self.source, root=self.source.parents[1], cache=self.cache)

    def body(self) -> str:
        cached = self.html if self.html is not None else self.cache.body(self.sha256)
        if cached is not None:
            return cached
        body: str = _MD.render(self.source.read_bytes().decode("utf-8", errors="replace"))
        self.cache.put_body(self.sha256, body)
        return body


# --------------------------------------------------------------------------------------------
# Jinja2, configured once.


def template_search_path(root: Path, template_dirs: Sequence[Path] | None = None) -> list[Path]:
    """Instance overrides first, then `template_dirs`, then the packaged templates (mkdocs-style)."""
    return [root / OVERRIDE_DIR, *(template_dirs or ()), templates_dir()]


def make_env(search_path: Sequence[Path], bytecode: Path | None = None) -> Environment:
    """A Jinja2 environment that escapes everything in .html/.svg templates and fails on typos.
    `bytecode`: a folder that keeps the compiled templates between runs (keyed by their source)."""
    return Environment(
        loader=FileSystemLoader([str(p) for p in search_path]),
        bytecode_cache=FileSystemBytecodeCache(str(bytecode)) if bytecode is not None else None,
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
    """Render one template; a broken (usually user-overridden) template becomes a ConfigError."""
    try:
        return env.get_template(name).render(**context)
    except TemplateSyntaxError as exc:
        where = f"line {exc.lineno}" if exc.lineno else None
        raise ConfigError(
            exc.message or "syntax error", path=exc.filename or name, where=where
        ) from None
    except TemplateError as exc:
        raise ConfigError(f"cannot render: {exc}", path=name) from None


def _assets(env: Environment) -> Assets:
    script = _render(env, "site.js")
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    csp = (
        "default-src 'none'; img-src data:; style-src 'unsafe-inline'; "
        f"script-src 'sha256-{digest}'; base-uri 'none'; form-action 'none'"
    )
    style = _render(env, "style.css")
    return Assets(style=Markup(style), script=Markup(script), csp=csp)


# --------------------------------------------------------------------------------------------
# I/O at the edges: reading articles (with a content-addressed cache) and issues, writing pages.


FORK = hasattr(os, "fork")  # render new articles on a second core where the platform can fork


class BodyRenderer:
    """Renders new articles' markdown to HTML into the cache in a forked child process, so this
    process parses the same articles (and builds the dashboard) meanwhile: a 1,000-row article
    costs ~0.1 s to parse and ~0.12 s to render, and each stage wants a core of its own.

    Without fork, or with a cache that cannot be written, `start` says no and the caller renders
    in-process. A child that dies leaves bodies missing, and `LoadedArticle.body` renders those.
    """

    def __init__(self, cache: ArticleCache) -> None:
        self.cache = cache
        self.pid: int | None = None

    def start(self, work: list[tuple[str, bytes]]) -> bool:
        if not work or not FORK or self.cache.folder("bodies") is None:
            return False
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # the child: render, write, leave without running the parent's exit handlers
            code = 1
            try:
                for sha, raw in work:
                    self.cache.put_body(sha, _MD.render(raw.decode("utf-8", errors="replace")))
                code = 0
            finally:
                os._exit(code)
        self.pid = pid
        return True

    def wait(self) -> None:
        if self.pid is not None:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(self.pid, 0)
            self.pid = None


def load_articles(
    root: Path,
    cache: ArticleCache,
    renderer: BodyRenderer | None = None,
    listing: Sequence[str] | None = None,
) -> tuple[list[LoadedArticle], list[str]]:
    """Every readable article, oldest first, parsed once ever (cache hits read only the summary);
    one warning per unreadable article. New articles' bodies are rendered by `renderer` when it
    can fork, else here, from the tokens of the same parse."""
    found: list[tuple[Path, bytes, str]] = []
    warnings: list[str] = []
    for _day, path in article_names(root / "articles", listing):
        try:
            stat = path.stat()
            if not S_ISREG(stat.st_mode):
                continue  # a folder or a device under an article's name
            sha = cache.known_sha(path, stat)  # unchanged since it was last hashed: not read
            raw = b"" if sha is not None else path.read_bytes()
        except OSError as exc:
            warnings.append(f"{path.name}: cannot read ({exc.strerror or exc}); skipped")
            continue
        if sha is None:
            sha = content_key(raw)
            cache.remember_file(path, stat, sha)
        found.append((path, raw, sha))
    hits = {sha: cache.summary(sha) for _path, _raw, sha in found}
    unrendered = []  # new articles, and parsed ones (the one a run just wrote) without a body yet
    for i, (path, raw, sha) in enumerate(found):
        if not _fits(hits[sha], path, root) or not cache.has_body(sha):
            if not raw:  # known bytes, not read above: read them after all
                with contextlib.suppress(OSError):
                    found[i] = (path, raw := path.read_bytes(), sha)
            unrendered.append((sha, raw))
    forked = renderer is not None and renderer.start(unrendered)
    loaded: list[LoadedArticle] = []
    for path, raw, sha in found:
        hit = hits[sha]
        if hit is not None and _fits(hit, path, root):
            loaded.append(LoadedArticle(hit[0], sha, path, cache, hit[1], has_rows=False))
            continue
        try:
            parsed, tokens = history.parse_raw(raw, path, root=root, md=None if forked else _MD)
        except (ArticleParseError, UnicodeError) as exc:
            line = exc.line() if isinstance(exc, EvalsError) else f"{path.name}: {exc}"
            warnings.append(f"{line}; skipped")
            continue
        cache.put(sha, parsed)
        html: str | None = None
        if not forked:  # a new article always needs its page: render it from the same tokens
            html = _MD.renderer.render(tokens, _MD.options, {})
            cache.put_body(sha, html)
        loaded.append(LoadedArticle(parsed, sha, path, cache, counts_of(parsed), html=html))
    return loaded, warnings


def _fits(hit: tuple[ParsedArticle, tuple[int, int]] | None, path: Path, root: Path) -> bool:
    """There is a cached summary, and it stands for the article at `path`."""
    return hit is not None and history.stands_for(hit[0], path, root)


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


def _relative(target: Path, start: Path) -> str:
    try:
        return Path(os.path.relpath(target.resolve(), start.resolve())).as_posix()
    except ValueError:  # another drive on Windows
        return target.resolve().as_uri()


def _write_if_changed(path: Path, text: str) -> bool:
    """Write through atomic_write only when the bytes differ; True when written."""
    if not text.endswith("\n"):
        text += "\n"
    data = text.encode("utf-8")
    try:
        if path.read_bytes() == data:
            return False
    except OSError:
        pass
    atomic_write(path, data)
    return True


def build_site(
    root: Path,
    out: Path,
    *,
    now: datetime,
    template_dirs: list[Path] | None = None,
    cache: ArticleCache | None = None,
    listing: Sequence[str] | None = None,
) -> SiteOutcome:
    """Render the dashboard and run pages for the instance at `root` into `out`.

    Reads root/articles/skill-evals-*.md (unparseable ones become warnings) and
    root/memory/issues/. Writes out/index.html and out/runs/skill-evals-DATE.html only where
    the bytes changed and removes run pages whose article is gone. Parsed articles, rendered
    bodies and page keys live in the article cache (root/.aeon-evals/cache/, see cache.py), so a
    rebuild parses and renders only new or edited articles; `cache` shares a run's cache and
    `listing` its sorted names of root/articles (the run has listed that folder already).
    Output depends only on the files read and `now`.
    """
    own_cache = cache is None
    cache = cache or ArticleCache(root)
    env = make_env(template_search_path(root, template_dirs), cache.folder("templates"))
    assets = _assets(env)
    renderer = BodyRenderer(cache)
    try:
        return _build(root, out, now, env, assets, cache, renderer, own_cache, listing)
    finally:
        renderer.wait()


def _build(
    root: Path,
    out: Path,
    now: datetime,
    env: Environment,
    assets: Assets,
    cache: ArticleCache,
    renderer: BodyRenderer,
    own_cache: bool,
    listing: Sequence[str] | None,
) -> SiteOutcome:
    loaded, warnings = load_articles(root, cache, renderer, listing)
    issues, issue_warnings = load_issues(root)
    warnings.extend(issue_warnings)

    window = grid_window(max((item.counts[1] for item in loaded), default=0))
    articles = [
        item.full() if i >= len(loaded) - window else item.parsed for i, item in enumerate(loaded)
    ]
    root_href = _relative(root, out)  # usually ".."
    root_from_runs = _relative(root, out / "runs")  # usually "../.."
    dashboard = dashboard_page(
        articles,
        issues,
        now=now,
        assets=assets,
        root_href=root_href,
        warnings=warnings,
        counts=[item.counts for item in loaded],
    )

    written: list[str] = []
    unchanged: list[str] = []

    def emit(rel: str, text: str) -> None:
        (written if _write_if_changed(out / rel, text) else unchanged).append(rel)

    emit("index.html", _render(env, "index.html", page=dashboard))
    runs_oldest_first = list(reversed(dashboard.runs))
    templates = _templates_digest(env)
    before = cache.pages(out)
    renderer.wait()  # the new articles' bodies are in the cache now
    pages: dict[str, str] = {}
    for i, (item, run) in enumerate(zip(loaded, runs_oldest_first, strict=True)):
        newer = runs_oldest_first[i + 1] if i + 1 < len(runs_oldest_first) else None
        older = runs_oldest_first[i - 1] if i else None
        # A run page depends on its article, its neighbours, the templates and this code only:
        # when none changed and the page is there, it is not rendered again.
        key = hashlib.sha256(
            "\0".join(
                [
                    cache.dir.name,
                    templates,
                    item.sha256,
                    repr(run),
                    repr(newer),
                    repr(older),
                    root_from_runs,
                ]
            ).encode()
        ).hexdigest()
        pages[run.href] = key
        if before.get(run.href) == key and (out / run.href).is_file():
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
        emit(run.href, _render(env, "run.html", page=page))

    removed: list[str] = []
    runs_dir = out / "runs"
    if runs_dir.is_dir():
        for stale in sorted(runs_dir.glob("skill-evals-*.html")):
            if f"runs/{stale.name}" not in pages:
                stale.unlink()
                removed.append(f"runs/{stale.name}")
    for legacy in LEGACY_CACHE:
        with contextlib.suppress(OSError):
            shutil.rmtree(out / legacy) if (out / legacy).is_dir() else (out / legacy).unlink()

    cache.prune({item.sha256 for item in loaded})
    cache.save_pages(out, pages)
    if own_cache:
        cache.save()
    return SiteOutcome(
        out=out,
        written=tuple(written),
        unchanged=tuple(unchanged),
        removed=tuple(removed),
        warnings=tuple(warnings),
    )

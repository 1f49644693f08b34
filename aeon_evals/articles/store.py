"""The one owner of past skill-evals articles: which exist, what each says, its HTML, git's copy.

A run asks it for the previous article and the last few (flakiness), tells it about the article it
just wrote, and hands it to the dashboard, which asks for every article and their bodies. Behind
this one interface: the names in `articles/` (listed once), an in-process memo, the disk cache
(`cache.ArticleCache`: one status file with a format version and a hash of the code that wrote
it) and a forked renderer for the bodies of new articles. Nothing here is needed for
correctness: a miss anywhere means the file is read and parsed again.
"""

from __future__ import annotations

import bisect
import contextlib
import functools
import itertools
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from pathlib import Path
from stat import S_ISREG

from aeon_evals.articles.cache import ArticleCache, content_key, counts_of
from aeon_evals.articles.cap import capped_text
from aeon_evals.articles.parse import (
    BODY_MD,
    PREFIX,
    ArticleParseError,
    article_day,
    article_names,
    parse_article,
    parse_raw,
    read_article_bytes,
    stands_for,
)
from aeon_evals.cache.fingerprint import fingerprint
from aeon_evals.cache.folder import Cache
from aeon_evals.errors import EvalsError, PathOutsideRoot, os_reason
from aeon_evals.fs.confine import InsideFolders, rel_path
from aeon_evals.model import ParsedArticle
from aeon_evals.parallel import FORK, Forked, checkpoint

# A body to render: the article's content hash, its bytes, and what gives its HTML without
# parsing them (render.article_body; None: BODY_MD renders the bytes).
Work = tuple[str, bytes, Callable[[], str | None] | None]
SHARE_MIN = 8  # bodies per child, at least, when several share the work
MAX_SHARES = 4
_UNREADABLE = (EvalsError, OSError, UnicodeError)  # ArticleParseError, PathOutsideRoot …


def _failure(exc: Exception, path: Path, root: Path) -> str:
    if isinstance(exc, EvalsError):
        return exc.line()
    return f"{rel_path(path, root)}: cannot be read ({os_reason(exc)})"


@dataclass
class StoredArticle:
    """One article as the dashboard loads it: its summary always, its rows when asked (`full`),
    its markdown rendered to HTML when a page needs it (`body`)."""

    parsed: ParsedArticle  # rows empty when only the summary was read from the cache
    sha256: str
    source: Path  # the article file
    counts: tuple[int, int, int]  # (failing, skills, apart): see cache.counts_of
    store: ArticleStore = field(repr=False)
    has_rows: bool = True
    html: str | None = None  # the rendered body, when it was rendered in this process

    def full(self) -> ParsedArticle:
        """The article with its rows (from memory, the cache, or parsed again)."""
        if self.has_rows:
            return self.parsed
        return self.store.full(self.sha256, self.parsed, self.source)

    def body(self) -> str:
        """The article's markdown as HTML (raw HTML and images off); rendered once ever."""
        if self.html is None:
            self.html = self.store.body(self.sha256, self.source)
        return self.html


class ArticleStore:
    """Every past article of the instance at `root`, each read, parsed and rendered once.

    `dirs`: the folders articles are in, relative to the root (`layout.Layout.article_dirs`: the
    instance's own first, where this run's article goes; an instance that moved from `articles/`
    to `output/articles/` keeps its older ones). One article per day, the first folder's on a
    tie. `names`: the sorted names in the first folder when the caller has listed it already (a
    year of outputs is 300,000 names); otherwise it is listed on first use. `writable=False`
    reads the disk cache but never writes it (dry runs). `cache`: the run's cache (a store
    without one opens its own, and writes it when saved). Call `save` at the end.
    """

    def __init__(
        self,
        root: Path,
        *,
        names: Sequence[str] | None = None,
        writable: bool = True,
        dirs: Sequence[str] = ("articles",),
        cache: Cache | None = None,
    ) -> None:
        self.root = root
        self.dirs = tuple(dirs)
        self.folder_path = root / self.dirs[0]
        self._own_cache = cache is None
        self.cache = ArticleCache(cache or Cache(root, writable=writable))
        self._names: list[str] | None = list(names) if names is not None else None
        self._memo: dict[str, tuple[list[int], ParsedArticle]] = {}  # file path → stamp, parse
        self._by_sha: dict[str, ParsedArticle] = {}  # whole articles seen in this process
        self._on_disk: set[str] | None = None  # content hashes of every article, after `load`
        self._children: list[Forked[dict[str, str]]] = []  # rendering bodies alongside
        self._rendering: set[str] = set()  # content hashes whose body a child is rendering
        self._html: dict[str, str] = {}  # bodies rendered in this run

    # -- which articles exist

    def names(self) -> list[str]:
        """The sorted names in the first folder that start like an article's."""
        if self._names is None:
            try:
                with os.scandir(self.folder_path) as entries:
                    self._names = sorted(e.name for e in entries if e.name.startswith(PREFIX))
            except OSError:
                self._names = []
        return self._names

    def articles(self) -> list[tuple[date, Path]]:
        """(date, path) of every name that is a dated article's, oldest first (not stat'ed); on
        a day found in two folders, the first folder's."""
        own = article_names(self.folder_path, self.names())
        if len(self.dirs) == 1:
            return own
        by_day = dict(own)
        for folder in self.dirs[1:]:
            for day, path in article_names(self.root / folder):
                by_day.setdefault(day, path)
        return sorted(by_day.items())

    def newest_before(self, day: date) -> Iterator[tuple[date, Path]]:
        """The article files dated before `day`, newest first, looked at one by one."""
        for found, path in reversed(self.articles()):
            if found < day and path.is_file():
                yield found, path

    # -- what one article says

    def read(self, path: Path) -> ParsedArticle:
        """Parse the article file at `path`: once per process while the file is unchanged, and
        once ever for the same bytes (markdown-it on a 1,000-row table costs ~0.1 s). Raises
        ArticleParseError, OSError or UnicodeError for a file that is no readable article."""
        stat = path.stat()
        stamp = ArticleCache.stamp(stat)
        known = self._memo.get(str(path))
        if known is not None and known[0] == stamp:
            return known[1]
        raw = read_article_bytes(path, self.root)  # confined, regular, capped
        sha = content_key(raw)
        parsed = self._by_sha.get(sha)
        if parsed is None or not stands_for(parsed, path, self.root):
            parsed = self.cache.get(sha)
        if parsed is None or not stands_for(parsed, path, self.root):
            parsed = parse_raw(raw, path, root=self.root)[0]
            self.cache.put(sha, parsed)
        self._by_sha[sha] = parsed
        self._memo[str(path)] = (stamp, parsed)
        return parsed

    def on(self, day: date) -> ParsedArticle | None:
        """The article dated `day`, or None when there is none or it cannot be read."""
        path = self.folder_path / f"{PREFIX}{day.isoformat()}.md"
        if not path.is_file():
            return None
        with contextlib.suppress(*_UNREADABLE):
            return self.read(path)
        return None

    def recent(self, before: date, count: int) -> list[ParsedArticle]:
        """The readable ones of the `count` newest articles dated before `before`, oldest first."""
        parsed: list[ParsedArticle] = []
        for _day, path in reversed(list(itertools.islice(self.newest_before(before), count))):
            with contextlib.suppress(*_UNREADABLE):
                parsed.append(self.read(path))
        return parsed

    def prior(self, today: date) -> tuple[ParsedArticle | None, list[str]]:
        """The newest readable article dated before `today`, and a warning for each one skipped.

        When no article is on disk and the root is a git checkout, the newest one committed in
        history is used instead (an instance whose `articles/` was wiped by a re-sync).
        """
        warnings: list[str] = []
        for _day, path in self.newest_before(today):
            try:
                found = self.read(path)
            except _UNREADABLE as exc:
                warnings.append(
                    f"{_failure(exc, path, self.root)}; falling back to the next older article"
                )
                continue
            if found.unread:  # a number too large to be one, the lines past the cap
                more = f" (and {len(found.unread) - 1} more)" if len(found.unread) > 1 else ""
                warnings.append(f"{found.path}: {found.unread[0]}{more}")
            return found, warnings
        if not warnings:
            from_git = _prior_from_git(self.root, today, self.dirs)
            if from_git is not None:
                return from_git, warnings
        return None, warnings

    def remember(
        self,
        path: Path,
        raw: bytes,
        parse: Callable[[], ParsedArticle | None] | None = None,
        *,
        render: bool = False,
        body: Callable[[], str | None] | None = None,
    ) -> None:
        """The run wrote `raw` to the article file `path`: list it, and keep it parsed. `parse`
        gives the parse without parsing the text (render.parsed_article); None: parsed when read.
        `render` (the dashboard follows): its body is rendered by a forked child from now on,
        while this process goes on with the log, the dashboard's index and the skill pages;
        `body` gives that HTML without parsing the text's tables (render.article_body; None:
        rendered from the text)."""
        if render and not self.cache.has_body(content_key(raw)):
            sha = content_key(raw)
            if self._render_in_child([(sha, raw, body)]):
                self._rendering.add(sha)
        names = self.names()
        at = bisect.bisect_left(names, path.name)
        if at == len(names) or names[at] != path.name:
            names.insert(at, path.name)
        sha = content_key(raw)
        if sha not in self.cache.index and parse is not None:
            parsed = parse()
            if parsed is None:
                return
            self.cache.put(sha, parsed)
            self._by_sha[sha] = parsed
        with contextlib.suppress(OSError):
            self.cache.remember_file(path, path.stat(), sha)

    # -- every article, for the dashboard

    def load(
        self, *, fork: bool = True, latest: date | None = None
    ) -> tuple[list[StoredArticle], list[str]]:
        """Every readable article, oldest first, parsed once ever (cache hits read only the
        summary); one warning per unreadable article, and per article dated after `latest` (left
        out: a future-dated file is not the newest run). Articles are read confined to the root
        and capped (history.read_article_bytes). New articles' bodies are rendered by a forked
        child when `fork` and the platform allow, else here from the same parse's tokens."""
        found: list[tuple[Path, bytes, str]] = []
        warnings: list[str] = []
        within = InsideFolders(self.root)
        for day, path in self.articles():
            if latest is not None and day > latest:
                warnings.append(f"articles/{path.name}: dated after the run ({latest}); left out")
                continue
            try:
                stat = path.stat()
                if not S_ISREG(stat.st_mode):
                    continue  # a folder or a device under an article's name
                if not within(path):
                    raise PathOutsideRoot(
                        "is a symlink leading outside the root; not read",
                        path=f"articles/{path.name}",
                    )
                sha = self.cache.known_sha(path, stat)  # unchanged since last hashed: not read
                raw = b"" if sha is not None else read_article_bytes(path, self.root)
            except EvalsError as exc:
                warnings.append(f"{exc.line()}; skipped")
                continue
            except OSError as exc:
                warnings.append(f"{path.name}: cannot read ({exc.strerror or exc}); skipped")
                continue
            if sha is None:
                sha = content_key(raw)
                self.cache.remember_file(path, stat, sha)
            found.append((path, raw, sha))
        self._on_disk = {sha for _path, _raw, sha in found}
        hits = {sha: self.cache.summary(sha) for _path, _raw, sha in found}

        def fits(path: Path, sha: str) -> bool:
            hit = hits[sha]
            return hit is not None and stands_for(hit[0], path, self.root)

        bodied = {sha for _path, _raw, sha in found if self.cache.has_body(sha)}
        unrendered: list[Work] = []  # new articles, and parsed ones without a body
        for i, (path, raw, sha) in enumerate(found):
            if fits(path, sha) and sha in bodied:
                continue
            if not raw:  # known bytes, not read above: read them after all
                with contextlib.suppress(OSError, EvalsError):
                    found[i] = (path, raw := read_article_bytes(path, self.root), sha)
            # a parse missing (another parser) with its body there is parsed, not rendered
            if sha not in bodied and sha not in self._rendering:  # else a child has it
                unrendered.append((sha, raw, None))
        forked = fork and self._render_in_child(unrendered)
        loaded: list[StoredArticle] = []
        for path, raw, sha in found:
            hit = hits[sha]
            if hit is not None and fits(path, sha):
                loaded.append(StoredArticle(hit[0], sha, path, hit[1], self, has_rows=False))
                continue
            in_child = forked or sha in self._rendering or sha in bodied  # or rendered before
            try:
                parsed, tokens = parse_raw(
                    raw, path, root=self.root, md=None if in_child else BODY_MD
                )
            except (ArticleParseError, UnicodeError) as exc:
                warnings.append(f"{_failure(exc, path, self.root)}; skipped")
                continue
            self.cache.put(sha, parsed)
            self._by_sha[sha] = parsed
            html: str | None = None
            if not in_child:  # a new article always needs its page: render it from the same tokens
                html = BODY_MD.renderer.render(tokens, BODY_MD.options, {})
                self._keep_body(sha, html)
            loaded.append(StoredArticle(parsed, sha, path, counts_of(parsed), self, html=html))
        return loaded, warnings

    def full(self, sha: str, summary: ParsedArticle, source: Path) -> ParsedArticle:
        """The whole article whose summary is `summary`: from memory, the cache, or its file."""
        whole = self._by_sha.get(sha)
        if whole is None or not stands_for(whole, source, self.root):
            whole = self.cache.full(sha, summary) or self.read(source)
        self._by_sha[sha] = whole
        return whole

    def body(self, sha: str, source: Path) -> str:
        """The HTML of the article with content hash `sha`, rendered here if no one has yet."""
        self.wait()  # a child may be rendering it right now
        cached = self._html.get(sha) or self.cache.body(sha)
        if cached is not None:
            return cached
        raw = read_article_bytes(source, self.root)
        html: str = BODY_MD.render(capped_text(raw))
        self._keep_body(sha, html)
        return html

    def _keep_body(self, sha: str, html: str) -> None:
        self._html[sha] = html
        self.cache.put_body(sha, html)

    def _render_in_child(self, work: list[Work]) -> bool:
        """Render `work`'s bodies alongside (parallel.Forked, a child per core for a cold
        build), so this process parses the same articles (and builds the dashboard) meanwhile:
        a 1,000-row article costs ~0.1 s to parse and ~0.12 s to render, and each wants a core
        of its own. False without fork: the caller renders in-process. What a child could not
        render is rendered here when its result is asked for (`wait`)."""
        if not work or not FORK:
            return False
        # a cold build (200 articles: ~20 s of rendering) is shared by a child per core
        shares = max(1, min(len(work) // SHARE_MIN, os.cpu_count() or 1, MAX_SHARES))
        for k in range(shares):
            job = functools.partial(_render_bodies, work[k::shares])
            self._children.append(Forked(job, fork=True))
        return True

    def stop(self) -> None:
        """Stop the children rendering bodies at once (the run is being stopped: SIGTERM,
        Ctrl-C, an error). A body they had not finished is rendered when a page needs it."""
        for child in self._children:
            child.abandon()
        self._children.clear()
        self._rendering.clear()

    def wait(self) -> None:
        """Take the bodies the children rendered (each one's share rendered here if it
        failed)."""
        while self._children:
            for sha, html in self._children.pop(0).result().items():
                self._keep_body(sha, html)
        self._rendering.clear()

    # -- derived files of the dashboard, and saving

    @property
    def code_key(self) -> str:
        """Changes with the code that parses and renders articles and lays out their run pages
        (part of each page's key, with the templates): the package's fingerprint."""
        return fingerprint()

    def pages(self, out: Path) -> dict[str, str]:
        """{run page: the key of the inputs it was last rendered from} for the site at `out`."""
        return self.cache.pages(out)

    def save_pages(self, out: Path, pages: dict[str, str]) -> None:
        """Record the run pages of the site at `out` as rendered from `pages`' keys."""
        self.cache.save_pages(out, pages)

    def save(self) -> None:
        """Store the status file if it changed, in the cache (written now when the store opened
        its own). After `load`, entries of articles that are no longer on disk are dropped
        first. A cache that cannot be written is no error."""
        self.wait()
        if self._on_disk is not None:
            self.cache.prune(self._on_disk)
        self.cache.save()
        if self._own_cache:
            self.cache.cache.save()


def _git_articles(root: Path, dirs: Sequence[str]) -> Iterator[tuple[str, str]]:
    """(commit, path) of every skill-evals article ever committed, newest commit first."""
    from aeon_evals.fs.gitrepo import run_git  # loaded by _prior_from_git already

    out = run_git(
        root,
        "log",
        "--format=@%H",
        "--name-only",
        "--diff-filter=AM",
        "--",
        *(f"{folder}/skill-evals-*.md" for folder in dirs),
    )
    if not out:
        return
    commit = ""
    for line in out.splitlines():
        if line.startswith("@"):
            commit = line[1:]
        elif line.strip():
            yield commit, line.strip()


def _prior_from_git(root: Path, today: date, dirs: Sequence[str]) -> ParsedArticle | None:
    from aeon_evals.fs.gitrepo import run_git  # a fallback: only when articles/ has none at all

    if run_git(root, "rev-parse", "--is-inside-work-tree") is None:
        return None
    best: tuple[date, str, str] | None = None
    for commit, rel in _git_articles(root, dirs):
        day = article_day(Path(rel))
        if day is None or day >= today:
            continue
        if best is None or day > best[0]:
            best = (day, commit, rel)
    if best is None:
        return None
    day, commit, rel = best
    text = run_git(root, "show", f"{commit}:{rel}")
    if text is None:
        return None
    try:
        parsed = parse_article(text, path=rel, day=day)
    except ArticleParseError:
        return None
    return replace(parsed, source=f"git {commit[:12]}")


def _render_bodies(work: Sequence[Work]) -> dict[str, str]:
    """The HTML of each body of `work` (a job for parallel.Forked: it only renders)."""
    bodies: dict[str, str] = {}
    for sha, raw, body in work:
        checkpoint()  # the run was killed: stop, as it did
        html = body() if body is not None else None
        if html is None:
            html = BODY_MD.render(capped_text(raw))
        bodies[sha] = html
    return bodies

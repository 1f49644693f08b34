"""The disk side of the article store: parsed skill-evals articles and their HTML, by content hash.

Parsing a 1,000-row article with markdown-it takes about 0.1 s and rendering it about 0.15 s; a
nightly run reads the last few articles (prior run, flakiness) and the dashboard shows all of
them. Each article is parsed and rendered once, and the result is kept in the cache entry
`articles` (`cache.folder`), keyed by the SHA-256 of the article's bytes:

    articles/index.json          the status file (below)
    articles/rows/<sha>.json     the article's Full Results rows, failing-since dates and issues
    articles/bodies/<sha>.html   the article's markdown rendered to HTML (the run pages)
    articles/pages-<out>.json    which run pages of a site folder are up to date (site.build_site)

The status file, as coverage.py's `IncrementalChecker` keeps its own, holds per content hash what
the dashboard needs of a run (`{"parsed": {path, day, verdict, coverage, …}, "counts": [failing,
skills, apart]}`) and per article file what it held when last hashed (`[inode, size, mtime_ns,
sha256]`). Every file of the entry carries its key (the package's fingerprint and this format's
version): files written by other code are misses and are replaced; rows and bodies of articles
no longer on disk are removed. An entry that cannot be read is a miss, never an error, and
nothing here is needed for correctness.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import os
from datetime import date
from pathlib import Path
from typing import Any

from aeon_evals.cache.folder import Cache, Entry
from aeon_evals.fs.confine import rel_path
from aeon_evals.model import ArticleRow, Coverage, FailingSince, ParsedArticle, Status, flags_count

# 7: one entry on the cache API (its key in every file); bodies keyed like the rest
ENTRY = Entry("articles", 8)
_STATUS = {s.value: s for s in Status}  # a dict lookup, not an Enum call, for 100,000s of rows


def content_key(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()


# ----------------------------------------------------------------------------------------
# ParsedArticle <-> JSON


def _rows_to_json(rows: dict[str, ArticleRow]) -> list[list[Any]]:
    return [
        [
            key,
            r.skill,
            r.status.value,
            r.diff,
            r.root_cause,
            r.quality,
            r.words,
            r.last_output,
            list(r.flags),
        ]
        for key, r in rows.items()
    ]


def _rows_from_json(rows: list[list[Any]]) -> dict[str, ArticleRow]:
    return {
        key: ArticleRow(skill, _STATUS[status], diff, cause, quality, words, output, tuple(flags))
        for key, skill, status, diff, cause, quality, words, output, flags in rows
    }


def detail_to_json(article: ParsedArticle) -> dict[str, Any]:
    """What an article says per skill: its rows, and who is failing since when under which issue."""
    return {
        "rows": _rows_to_json(article.rows),
        "inferred_rows": _rows_to_json(article.inferred_rows),
        "failing_since": [
            [k, v.since.isoformat(), v.issue] for k, v in article.failing_since.items()
        ],
        "issues": [[k, v] for k, v in article.issues.items()],
        "causes": [[k, v] for k, v in article.causes.items()],
        "was": [[k, v] for k, v in article.was.items()],
    }


def summary_to_json(article: ParsedArticle) -> dict[str, Any]:
    """What the dashboard needs of every run: small, so that K in the thousands loads fast."""
    return {
        "path": article.path,
        "day": article.day.isoformat(),
        "verdict": article.verdict,
        "coverage": [article.coverage.covered, article.coverage.enabled]
        if article.coverage
        else None,
        "coverage_pct": article.coverage_pct,
        "action_queue": list(article.action_queue),
        "diff_summary": article.diff_summary,
        "source": article.source,
        "own": article.own,
        "unread": list(article.unread),
    }


def with_detail(summary: ParsedArticle, detail: dict[str, Any]) -> ParsedArticle:
    """`summary` with the rows, failing-since dates and issues of `detail_to_json`."""
    return dataclasses.replace(
        summary,
        rows=_rows_from_json(detail["rows"]),
        inferred_rows=_rows_from_json(detail.get("inferred_rows", [])),
        failing_since={
            k: FailingSince(date.fromisoformat(s), i) for k, s, i in detail["failing_since"]
        },
        issues={k: v for k, v in detail["issues"]},
        causes={str(k): str(v) for k, v in detail["causes"]},
        was={str(k): str(v) for k, v in detail["was"]},
    )


def article_from_json(
    summary: dict[str, Any], detail: dict[str, Any] | None = None
) -> ParsedArticle:
    """The article from its summary, with its rows and failing-since facts given `detail`."""
    coverage = summary["coverage"]
    article = ParsedArticle(
        path=str(summary["path"]),
        day=date.fromisoformat(summary["day"]),
        verdict=summary["verdict"],
        coverage=Coverage(int(coverage[0]), int(coverage[1])) if coverage else None,
        coverage_pct=summary["coverage_pct"],
        rows={},
        action_queue=tuple(summary["action_queue"]),
        diff_summary=str(summary["diff_summary"]),
        source=str(summary["source"]),
        own=bool(summary["own"]),
        unread=tuple(str(u) for u in summary["unread"]),
    )
    return with_detail(article, detail) if detail is not None else article


def counts_of(article: ParsedArticle) -> tuple[int, int, int]:
    """(failing, skills, apart) of an article's rows: failing counts enabled, unmuted skills only,
    as the run that wrote the article did; `apart` is the disabled, unregistered or muted rows."""
    apart = [not flags_count(r.flags) for r in article.rows.values()]
    failing = sum(
        1
        for r, off in zip(article.rows.values(), apart, strict=True)
        if r.status.failing and not off
    )
    return failing, len(article.rows), sum(apart)


_DAMAGED = (OSError, ValueError, KeyError, TypeError, IndexError, RecursionError)


def _body_head(sha: str, html: str) -> str:
    """The first line of a cached body: the source's hash and the HTML's own."""
    return f"<!-- source {sha} html {hashlib.sha256(html.encode('utf-8')).hexdigest()} -->"


class ArticleCache:
    """Parsed articles and rendered bodies by content hash, in the run's `cache` (read only when
    the cache is). Used through store.ArticleStore, which decides when to read, parse, render
    and save."""

    def __init__(self, cache: Cache) -> None:
        self.cache = cache
        self.root = cache.root
        self.key = ENTRY.key()
        self._index: dict[str, Any] | None = None
        # article file name -> [inode, size, mtime_ns, sha256]
        self._files: dict[str, list[int | str]] = {}
        self._dirty = False
        self._bodies: set[str] | None = None  # names in bodies/, once listed

    @property
    def writable(self) -> bool:
        return self.cache.writable

    # -- the summaries index

    @property
    def index(self) -> dict[str, Any]:
        if self._index is None:
            self._index = {}
            data = self.cache.load(ENTRY, self.key, "articles/index.json")
            with contextlib.suppress(*_DAMAGED):
                if isinstance(data, dict) and isinstance(data.get("articles"), dict):
                    self._index = data["articles"]
                    files = data.get("files")
                    self._files = files if isinstance(files, dict) else {}
        return self._index

    # -- which bytes a file holds, without reading it

    @staticmethod
    def stamp(stat: os.stat_result) -> list[int]:
        return [stat.st_ino, stat.st_size, stat.st_mtime_ns]

    def known_sha(self, path: Path, stat: os.stat_result) -> str | None:
        """The SHA-256 recorded for the article `path` when it was read with exactly this inode,
        size and modification time, as rsync and make trust them (this tool and git replace an
        article, never edit it in place); None when it must be read and hashed again."""
        self.index  # noqa: B018 - loads the file records too
        entry = self._files.get(path.name)
        if (
            isinstance(entry, list)
            and len(entry) == 4
            and entry[:3] == self.stamp(stat)
            and isinstance(entry[3], str)
        ):
            return entry[3]
        return None

    def remember_file(self, path: Path, stat: os.stat_result, sha: str) -> None:
        entry: list[int | str] = [*self.stamp(stat), sha]
        if self.writable and self._files.get(path.name) != entry:
            self.index  # noqa: B018
            self._files[path.name] = entry
            self._dirty = True

    def summary(self, sha: str) -> tuple[ParsedArticle, tuple[int, int, int]] | None:
        """The article without its rows and per-skill facts, and its (failing, skills, apart)
        counts (see counts_of)."""
        entry: Any = self.index.get(sha)
        try:
            return article_from_json(entry["parsed"]), (
                int(entry["counts"][0]),
                int(entry["counts"][1]),
                int(entry["counts"][2]),
            )
        except _DAMAGED:
            return None

    def full(self, sha: str, summary: ParsedArticle) -> ParsedArticle | None:
        """`summary` with its rows, failing-since dates and issues, or None on a miss."""
        try:
            detail = self.cache.load(ENTRY, self.key, f"articles/rows/{sha}.json")
            return None if detail is None else with_detail(summary, detail)
        except _DAMAGED:
            return None

    def get(self, sha: str) -> ParsedArticle | None:
        """The whole parsed article, or None on a miss."""
        found = self.summary(sha)
        whole = self.full(sha, found[0]) if found is not None else None
        if found is None or whole is None or len(whole.rows) != found[1][1]:
            return None
        return whole

    def put(self, sha: str, article: ParsedArticle) -> None:
        if not self.writable:
            return
        self.cache.store(ENTRY, self.key, detail_to_json(article), f"articles/rows/{sha}.json")
        self.index[sha] = {"parsed": summary_to_json(article), "counts": list(counts_of(article))}
        self._dirty = True

    # -- rendered bodies and page keys (the dashboard)

    def body(self, sha: str) -> str | None:
        """The body rendered from the article whose bytes hash to `sha`; None when missing, or
        when the file does not say it was rendered from those bytes by this code, or its HTML
        was changed since (a stale or edited cache is never published)."""
        raw = self.cache.read(f"articles/bodies/{sha}.html")
        if raw is None:
            return None
        try:
            text = raw.decode("utf-8")
        except ValueError:
            return None
        head, _, html = text.partition("\n")
        if head == self._body_head(sha, html):
            return html
        return None

    def has_body(self, sha: str) -> bool:
        """Whether a body for `sha` is there (not read: `body` may still find it stale)."""
        if self._bodies is None:
            self._bodies = set(self.cache.listing("articles/bodies"))
        return f"{sha}.html" in self._bodies

    def put_body(self, sha: str, html: str) -> None:
        if self.writable:
            self.cache.put(f"articles/bodies/{sha}.html", f"{self._body_head(sha, html)}\n{html}")
            if self._bodies is not None:
                self._bodies.add(f"{sha}.html")

    def _body_head(self, sha: str, html: str) -> str:
        """The first line of a cached body: the entry's key, the source's hash and the HTML's."""
        digest = hashlib.sha256(html.encode("utf-8")).hexdigest()
        return f"<!-- {self.key} source {sha} html {digest} -->"

    def _pages_rel(self, out: Path) -> str:
        # Named after the site folder relative to the instance (`site`), so a checkout at another
        # path (each CI job, a copy) still finds its pages; an outside folder by its full path.
        name = rel_path(out.resolve(), self.root.resolve())
        return f"articles/pages-{hashlib.sha256(name.encode()).hexdigest()[:12]}.json"

    def pages(self, out: Path) -> dict[str, str]:
        """{run page: the key of the inputs it was last rendered from} for the site at `out`."""
        data = self.cache.load(ENTRY, self.key, self._pages_rel(out))
        if isinstance(data, dict):
            return {str(k): str(v) for k, v in data.items()}
        return {}

    def save_pages(self, out: Path, pages: dict[str, str]) -> None:
        if self.writable and pages != self.pages(out):
            self.cache.store(ENTRY, self.key, dict(sorted(pages.items())), self._pages_rel(out))

    # -- upkeep

    def prune(self, keep: set[str]) -> None:
        """Forget every article whose content hash is not in `keep` (the articles on disk now)."""
        if not self.writable:
            return
        for sha in [s for s in self.index if s not in keep]:
            del self.index[sha]
            self._dirty = True
        for name in [n for n, entry in self._files.items() if entry[-1] not in keep]:
            del self._files[name]
            self._dirty = True
        for folder, suffix in (("rows", ".json"), ("bodies", ".html")):
            for name in self.cache.listing(f"articles/{folder}"):
                if name.endswith(suffix) and name[: -len(suffix)] not in keep:
                    self.cache.remove(f"articles/{folder}/{name}")

    def save(self) -> None:
        """Store the summaries index if it changed."""
        if self.writable and self._dirty and self._index is not None:
            data = {"articles": self._index, "files": self._files}
            self.cache.store(ENTRY, self.key, data, "articles/index.json")
            self._dirty = False

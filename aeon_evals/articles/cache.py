"""The disk side of the article store: parsed skill-evals articles and their HTML, by content hash.

Parsing a 1,000-row article with markdown-it takes about 0.1 s and rendering it about 0.15 s; a
nightly run reads the last few articles (prior run, flakiness) and the dashboard shows all of
them. Each article is parsed and rendered once, and the result is kept under
`<root>/.aeon-evals/cache/<globals>/`, keyed by the SHA-256 of the article's bytes:

    index.json           the status file (below)
    rows/<sha>.json      the article's Full Results rows, failing-since dates and issues
    bodies/<sha>.html    the article's markdown rendered to HTML (the dashboard's run pages)
    pages-<out>.json     which run pages of a site folder are up to date (see site.build_site)

The status file, `index.json`, as coverage.py's `IncrementalChecker` keeps its own:

    {
        "version": <VERSION>,            # the format of these files
        "globals": "<16 hex digits>",    # a hash of every global input (`fingerprint()`)
        "articles": {                    # per content hash: what the dashboard needs of a run
            "<sha256>": {"parsed": {path, day, verdict, coverage, …},
                         "counts": [failing, skills, apart]}
        },
        "files": {                       # per article file: what it held when last hashed
            "skill-evals-2026-05-31.md": [inode, size, mtime_ns, "<sha256>"]
        }
    }

The global inputs are what the parses and bodies depend on, not the whole package: the parser
and this format (this module, history.py, model.py, status.py, report.flags_count for the
counts), the markdown-it version and the bodies' renderer (`history.body_fingerprint`). A status
file of another version or globals is not read, and the folders of other globals are removed:
new code never reads entries written by old code. The one exception is `bodies/`, which records
the renderer that wrote it (`bodies/renderer`): when only the parser changed, the bodies of the
folder being dropped are adopted by the new one (`adopt_bodies`), so an upgrade does not render
every run page's HTML again. What the run pages depend on beyond that (site/views.py,
site/build.py, the templates) is in each page's key (store.ArticleStore.code_key). An entry that
cannot be read is a miss, never an error, and nothing here is needed for correctness: the
folder can be deleted at any time.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import inspect
import json
import os
import shutil
from datetime import date
from pathlib import Path
from typing import Any

import markdown_it

from aeon_evals.articles.parse import body_fingerprint
from aeon_evals.cache.files import cache_allowed, code_digest, load_cache_json, read_cache
from aeon_evals.fs.confine import rel_path
from aeon_evals.fs.write import atomic_write, write_if_changed
from aeon_evals.model import ArticleRow, Coverage, FailingSince, ParsedArticle, Status, flags_count

CACHE_DIR = Path(".aeon-evals") / "cache"
VERSION = 6  # 2: failing-since dates and issues in each rows file; 3: "globals" in the status
# file; 4: counts are [failing enabled and unmuted, skills, disabled/unregistered/muted]
# 5: the rows of the Inferred contracts table, apart from Full Results
# 6: the Regressions/Still Failing cause cells and the Recovered table's Was cells (--skill runs)
_STATUS = {s.value: s for s in Status}  # a dict lookup, not an Enum call, for 100,000s of rows
_TAG = (
    "Signature: 8a477f597d28d172789f06886806bc55\n# aeon-evals article cache; see "
    "https://bford.info/cachedir/\n"
)


PARSER_FILES = (
    "articles/cache.py",
    "articles/parse.py",
    "model/__init__.py",
    "model/status.py",
)  # what a parse depends on
RENDERER_FILE = "renderer"  # in bodies/: the body_fingerprint of the renderer that wrote them


def fingerprint() -> str:
    """The hash of the global inputs: changes whenever the parser, this format, the way counts
    are counted, markdown-it or the bodies' renderer changes (and only then)."""
    digest = code_digest(f"v{VERSION}", PARSER_FILES)
    with contextlib.suppress(OSError, TypeError):
        digest.update(inspect.getsource(flags_count).encode())
    digest.update(markdown_it.__version__.encode())
    digest.update(body_fingerprint().encode())
    return digest.hexdigest()[:16]


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
    """Parsed articles and rendered bodies by content hash, in the folder of the current globals
    (`fp` overrides them, for tests). `writable=False` only reads (dry runs). Used through
    store.ArticleStore, which decides when to read, parse, render and save."""

    def __init__(self, root: Path, *, writable: bool = True, fp: str | None = None) -> None:
        self.root = root
        self.base = root / CACHE_DIR
        # a cache folder leading out of the root (a symlink) is never written: caches are off
        self.writable = writable and cache_allowed(root)
        self.dir = self.base / (fp or fingerprint())
        self._index: dict[str, Any] | None = None
        self._files: dict[
            str, list[int | str]
        ] = {}  # article file name -> [inode, size, mtime_ns, sha256]
        self._dirty = False
        self._ready = False
        self._adopted = False  # adopt_bodies has run
        self._marked = False  # bodies/renderer written by this process

    # -- the summaries index

    @property
    def index(self) -> dict[str, Any]:
        if self._index is None:
            self._index = {}
            with contextlib.suppress(*_DAMAGED):
                data = load_cache_json(self.root, self.dir / "index.json")
                if (
                    isinstance(data, dict)
                    and data.get("version") == VERSION
                    and data.get("globals") == self.dir.name
                    and isinstance(data.get("articles"), dict)
                ):
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
            detail = load_cache_json(self.root, self.dir / "rows" / f"{sha}.json")
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
        self._write(
            self.dir / "rows" / f"{sha}.json",
            json.dumps(detail_to_json(article), ensure_ascii=False, separators=(",", ":")),
        )
        self.index[sha] = {"parsed": summary_to_json(article), "counts": list(counts_of(article))}
        self._dirty = True

    # -- rendered bodies and page keys (the dashboard)

    def body(self, sha: str) -> str | None:
        """The body rendered from the article whose bytes hash to `sha`; None when missing, or
        when the file does not say it was rendered from those bytes or its HTML was changed
        since (a stale or edited cache is never published)."""
        self.adopt_bodies()
        raw = read_cache(self.root, self.dir / "bodies" / f"{sha}.html")
        if raw is None:
            return None
        try:
            text = raw.decode("utf-8")
        except ValueError:
            return None
        head, _, html = text.partition("\n")
        if head == _body_head(sha, html):
            return html
        if html.endswith("\n") and head == _body_head(sha, html[:-1]):  # atomic_write's newline
            return html[:-1]
        return None

    def has_body(self, sha: str) -> bool:
        self.adopt_bodies()
        return (self.dir / "bodies" / f"{sha}.html").is_file()

    def put_body(self, sha: str, html: str) -> None:
        if not self.writable:
            return
        self.adopt_bodies()
        if not self._marked:
            self._write(self.dir / "bodies" / RENDERER_FILE, body_fingerprint())
            self._marked = True
        self._write(self.dir / "bodies" / f"{sha}.html", f"{_body_head(sha, html)}\n{html}")

    def adopt_bodies(self) -> None:
        """Once per process, before the bodies are looked at: when this folder has no bodies
        yet and the folder of other globals has bodies written by the same renderer (its
        `bodies/renderer` file), move them here (the other folder is dropped anyway). A parser
        change thus keeps every run page's rendered HTML. Read-only: nothing is moved."""
        if self._adopted:
            return
        self._adopted = True
        mine = self.dir / "bodies"
        if not self.writable or mine.exists():
            return
        try:
            others = [d for d in self.base.iterdir() if d.is_dir() and d.name != self.dir.name]
        except OSError:
            return
        renderer = body_fingerprint().encode()
        for other in sorted(others):
            if read_cache(self.root, other / "bodies" / RENDERER_FILE) != renderer + b"\n":
                continue
            try:
                self.dir.mkdir(parents=True, exist_ok=True)
                os.rename(other / "bodies", mine)
                self._marked = True
            except OSError:
                continue
            break

    def _pages_path(self, out: Path) -> Path:
        # Named after the site folder relative to the instance (`site`), so a checkout at another
        # path (each CI job, a copy) still finds its pages; an outside folder by its full path.
        name = rel_path(out.resolve(), self.root.resolve())
        return self.dir / f"pages-{hashlib.sha256(name.encode()).hexdigest()[:12]}.json"

    def pages(self, out: Path) -> dict[str, str]:
        """{run page: the key of the inputs it was last rendered from} for the site at `out`."""
        with contextlib.suppress(*_DAMAGED):
            data = load_cache_json(self.root, self._pages_path(out))
            if isinstance(data, dict):
                return {str(k): str(v) for k, v in data.items()}
        return {}

    def save_pages(self, out: Path, pages: dict[str, str]) -> None:
        if self.writable and pages != self.pages(out):
            self._write(self._pages_path(out), json.dumps(pages, sort_keys=True, indent=0))

    def folder(self, name: str) -> Path | None:
        """A sub-folder for other derived files (compiled templates), or None when read-only."""
        if not self.writable:
            return None
        try:
            if not self._ready:
                self._prepare()
            path = self.dir / name
            path.mkdir(exist_ok=True)
        except OSError:
            self.writable = False
            return None
        return path

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
            with contextlib.suppress(OSError):
                for path in (self.dir / folder).iterdir():
                    if path.name.endswith(suffix) and path.name[: -len(suffix)] not in keep:
                        with contextlib.suppress(OSError):
                            path.unlink()

    def save(self) -> None:
        """Write the summaries index if it changed; a cache that cannot be written is no error."""
        if self.writable and self._dirty and self._index is not None:
            self._write(
                self.dir / "index.json",
                json.dumps(
                    {
                        "version": VERSION,
                        "globals": self.dir.name,
                        "articles": self._index,
                        "files": self._files,
                    },
                    sort_keys=True,
                    ensure_ascii=False,
                    separators=(",", ":"),
                ),
            )
            self._dirty = False

    def _write(self, path: Path, text: str) -> None:
        try:
            if not self._ready:
                self._prepare()
            path.parent.mkdir(parents=True, exist_ok=True)
            write_if_changed(path, text, sync=False)  # a cache: a lost write is a miss
        except OSError:
            self.writable = False  # a read-only instance: go on without the cache

    def _prepare(self) -> None:
        """Create the folder (tagged, ignored by git) and drop the folders of other fingerprints
        (their bodies adopted first, when this renderer wrote them)."""
        self.dir.mkdir(parents=True, exist_ok=True)
        self.adopt_bodies()
        for name, text in ((".gitignore", "*\n"), ("CACHEDIR.TAG", _TAG)):
            if not (self.base / name).exists():
                atomic_write(self.base / name, text)
        for other in self.base.iterdir():
            if other.is_dir() and other.name != self.dir.name:
                shutil.rmtree(other, ignore_errors=True)
        self._ready = True

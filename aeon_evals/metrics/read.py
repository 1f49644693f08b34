"""The metric history read back: every metrics file and, for days before the first one,
what the articles say (status, words, quality; kept in the cache entry `metrics`, keyed by
each article's inode, size and mtime, so no article is parsed twice) plus skill-health
`history[]`; incremental through history.bin (metrics.binary).
"""

from __future__ import annotations

import bisect
import contextlib
import hashlib
import itertools
import os
from collections.abc import Mapping, Sequence
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aeon_evals.cache.folder import Cache, Entry
from aeon_evals.errors import EvalsError, os_reason
from aeon_evals.fs.confine import open_regular, rel_path
from aeon_evals.metrics import binary as history_bin
from aeon_evals.metrics.columns import Source
from aeon_evals.metrics.file import (
    FILE_CAP,
    PREFIX,
    STATUS_BY_NAME,
    SUFFIX,
    Sample,
    parse_file,
    read_raw,
    samples_of_article,
)
from aeon_evals.metrics.history import History
from aeon_evals.metrics.samples import SampleMap, SkillColumns

if TYPE_CHECKING:
    from aeon_evals.articles.store import ArticleStore
    from aeon_evals.load.state import Health

ENTRY = Entry("metrics", 2)


# --------------------------------------------------------------------------------------------
# Reading the history back: metrics files, then articles for the days before them.


def _row(skill: str, s: Sample) -> list[Any]:
    return [
        skill,
        s.status.value if s.status else None,
        s.words,
        s.bytes,
        s.age_days,
        s.quality,
        s.output,
        s.sha256,
        s.cause,
        [list(pair) for pair in s.numeric],
    ]


def _from_row(row: list[Any], day: date, source: str) -> tuple[str, Sample]:
    return row[0], Sample(
        day,
        STATUS_BY_NAME.get(row[1]) if row[1] else None,
        row[2],
        row[3],
        row[4],
        row[5],
        row[6],
        row[7],
        row[8],
        tuple((str(a), float(b)) for a, b in row[9]),
        source,
    )


class MetricsCache:
    """What the articles say per skill (the backfill) by article path, valid while the file's
    inode, size and mtime are unchanged: the cache entry `metrics`."""

    def __init__(self, cache: Cache) -> None:
        self.cache = cache
        self.entries: dict[str, Any] = {}
        self.used: set[str] = set()
        self.dirty = False
        data = cache.load(ENTRY, ENTRY.key())
        if isinstance(data, dict):
            self.entries = data

    def get(self, rel: str, stamp: list[int]) -> list[list[Any]] | None:
        """The rows cached for `rel` when read with this stamp."""
        entry = self.entries.get(rel)
        self.used.add(rel)
        if isinstance(entry, dict) and entry.get("stamp") == stamp:
            rows = entry.get("rows")
            return rows if isinstance(rows, list) else None
        return None

    def put(self, rel: str, stamp: list[int], rows: list[list[Any]]) -> None:
        self.entries[rel] = {"stamp": stamp, "rows": rows}
        self.used.add(rel)
        self.dirty = True

    def save(self) -> None:
        """Store the entry when it changed (entries of files gone are dropped)."""
        gone = set(self.entries) - self.used
        if not (self.dirty or gone):
            return
        for rel in gone:
            del self.entries[rel]
        self.cache.store(ENTRY, ENTRY.key(), self.entries)


def _stamp(path: Path) -> tuple[int, int, int, int] | None:
    """inode, size, mtime and ctime: an edit that puts the mtime back (`touch -r`) still moves
    the ctime, which no user call can set."""
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _digest(root: Path, rel: str, cap: int | None = None) -> str | None:
    """A digest of the file's bytes (None when it cannot be read, or holds more than `cap` of
    them: a source is read up to FILE_CAP, the per-article cache up to CACHE_CAP): what decides
    whether a file whose stamp moved still holds what the cache was built from. The bytes are
    hashed as they are read, in blocks: a fresh checkout hashes every past article and
    metrics.json (tens of MB), and one bytes object of each whole file costs more than the
    hashing."""
    cap = FILE_CAP if cap is None else cap
    digest = hashlib.sha256()
    total = 0
    try:
        with open_regular(root, rel) as fh:
            if os.fstat(fh.fileno()).st_size > cap:
                return None
            while block := fh.read(1 << 18):
                total += len(block)
                if total > cap:  # grew while being read
                    return None
                digest.update(block)
    except (OSError, EvalsError):
        return None
    return digest.hexdigest()[:32]


def _digest_of(raw: bytes) -> str:
    # SHA-256 (first 128 bits): with the CPU's SHA instructions 2.5x blake2b's speed here
    return hashlib.sha256(raw).hexdigest()[:32]


def _same_files(
    root: Path, cached: history_bin.Cached, sources: Sequence[Source]
) -> history_bin.Cached:
    """`cached` with the stamps of tonight's files where only their stamps moved and their bytes
    are the ones it was built from (a fresh checkout, a restored cache, a copy: new inodes and
    times, same content). Sources that differ in content are left as they were, for the
    caller's comparison to find."""
    fixed = list(cached.sources)
    for at, (new, old) in enumerate(zip(sources, cached.sources, strict=False)):
        if new == old:
            continue
        if new[:3] != old[:3] or new[4] != old[4]:  # another file, day or size
            break
        known = cached.digests[at]
        if known is None or known != _digest(root, new[0]):
            break
        fixed[at] = new
    return cached.restamped(fixed)


def _metric_files(
    root: Path, dirs: Sequence[str], listed: Sequence[str] | None = None
) -> dict[date, Path]:
    """Every `<dir>/skill-evals-metrics-YYYY-MM-DD.tsv`, by day; the first folder's on a tie.
    `listed`: the sorted names in the first folder when the caller listed it already."""
    found: dict[date, Path] = {}
    for at, folder in enumerate(dirs):
        base = root / folder
        if at == 0 and listed is not None:
            names = _metrics_names(listed)
        else:
            try:
                with os.scandir(base) as entries:
                    names = [
                        e.name
                        for e in entries
                        if e.name.startswith(PREFIX) and e.name.endswith(SUFFIX)
                    ]
            except OSError:
                continue
        for name in names:
            try:
                day = date.fromisoformat(name[len(PREFIX) : -len(SUFFIX)])
            except ValueError:
                continue
            found.setdefault(day, base / name)
    return found


def _metrics_names(names: Sequence[str]) -> list[str]:
    """The metrics files' names among sorted `names` (a folder of 20,000 outputs: only the
    names from the prefix on are looked at)."""
    found = []
    for name in itertools.islice(names, bisect.bisect_left(names, PREFIX), None):
        if not name.startswith(PREFIX):
            break
        if name.endswith(SUFFIX):
            found.append(name)
    return found


def load_history(
    root: Path,
    *,
    dirs: Sequence[str],
    articles: Sequence[tuple[date, Path]],
    read_article: Any,
    health: Mapping[str, Sequence[tuple[date, float]]],
    before: date | None = None,
    cache: Cache,
    names: Sequence[str] | None = None,
) -> History:
    """Every skill's samples from the metrics files under `dirs` and, for days without one, from
    the `articles` ((day, path), read with `read_article(path) -> ParsedArticle`); only runs
    dated before `before` when given; `names`: the sorted names in the first of `dirs`, when
    the caller listed it already. `health`: skill-health `history[]` by skill. A file that
    cannot be read is a warning, never an error; what is learned is stored in `cache`.

    Incremental: `.aeon-evals/cache/history.bin` holds the history of the sources (by path,
    inode, size, mtime, ctime, and a digest of the bytes for when only the stamp moved: a fresh
    checkout) it was built from. When tonight's sources are those plus newer ones,
    only the new ones are read; when they are the first of those, the history is cut; when any
    of them changed or went away, everything is read again (the same result as with no
    cache)."""
    files = _metric_files(root, dirs, names)
    listed: list[tuple[date, Path, str]] = [(d, p, "run") for d, p in files.items()]
    listed += [(d, p, "article") for d, p in articles if d not in files]
    sources: list[Source] = []
    paths: list[Path] = []
    for day, path, kind in sorted(listed, key=lambda item: item[0]):
        if before is not None and day >= before:
            continue
        stamp = _stamp(path)
        if stamp is None:
            continue
        sources.append((rel_path(path, root), kind, day.toordinal(), *stamp))
        paths.append(path)
    cached = history_bin.read_cache(cache)
    if cached is not None:
        restamped = _same_files(root, cached, sources)
        dirty = restamped.sources != cached.sources
        cached = restamped
    else:
        dirty = False
    known = cached.sources if cached is not None else []
    if cached is not None and sources[: len(known)] == known:
        base, start = cached, len(known)  # the cached sources and maybe newer ones
    elif cached is not None and known[: len(sources)] == sources:
        base, start = cached.before_source(len(sources)), len(sources)  # a run of an earlier day
    else:
        base, start = history_bin.Cached([], [], {}), 0  # changed, gone, or no cache
    columns = dict(base.columns)
    found = list(zip(base.sources, base.warnings, strict=True))
    digests = list(base.digests)
    if start < len(sources) or dirty:
        # the per-article cache (metrics.json) saves the markdown parse when all is read again
        article_cache = MetricsCache(cache) if start == 0 else None
        added: dict[str, list[Sample]] = {}
        indices: dict[str, list[int]] = {}
        for at in range(start, len(sources)):
            source = sources[at]
            pairs, warning, digest = _read_source(
                root, source, paths[at], read_article, article_cache
            )
            found.append((source, warning))
            digests.append(digest if digest is not None else _digest(root, source[0]))
            for skill, sample in pairs:
                added.setdefault(skill, []).append(sample)
                indices.setdefault(skill, []).append(at)
        if article_cache is not None:
            article_cache.save()
        for skill, new in added.items():
            more = SkillColumns.of(new, indices[skill])
            columns[skill] = columns[skill].plus(more) if skill in columns else more
        history_bin.write_cache(
            cache,
            history_bin.Cached(
                [s for s, _ in found],
                [w for _, w in found],
                columns,
                digests,
                # no sample added: the columns' bytes as read (a re-stamp, a bad new file)
                base.encoded if not added else None,
            ),
        )
    scores = {
        skill: [(d, v) for d, v in series if before is None or d < before]
        for skill, series in health.items()
        if series
    }
    warnings = tuple(w for _, w in found if w is not None)
    return History(SampleMap(columns), scores, warnings)


def _read_source(
    root: Path,
    source: Source,
    path: Path,
    read_article: Any,
    cache: MetricsCache | None,
) -> tuple[list[tuple[str, Sample]], str | None, str | None]:
    """The samples of one metrics file or article, the warning it gives (or None), and the
    digest of a metrics file's bytes (read once for both; None: not read here)."""
    rel, kind, ordinal, *stamps = source
    stamp = stamps[:3]  # metrics.json's entries are keyed by inode, size and mtime
    day = date.fromordinal(ordinal)
    rows = cache.get(rel, stamp) if cache is not None and kind == "article" else None
    if rows is not None:
        with contextlib.suppress(TypeError, ValueError, IndexError):
            return [_from_row(r, day, kind) for r in rows], None, None
    digest = None
    notes: list[str] = []  # numbers read as not a number, lines past the cap
    try:
        if kind == "run":
            raw = read_raw(root, rel)
            digest = _digest_of(raw)
            samples = parse_file(raw, rel, day=day, notes=notes)
        else:
            samples = samples_of_article(read_article(path))
    except FileNotFoundError:  # removed since it was listed
        return [], None, None
    except (EvalsError, OSError, UnicodeError) as exc:
        if kind == "run":  # an unreadable article is the article store's to report
            warning = exc.line() if isinstance(exc, EvalsError) else f"{rel}: {os_reason(exc)}"
            return [], warning, digest
        return [], None, None
    if kind == "article" and cache is not None:
        cache.put(rel, stamp, [_row(skill, s) for skill, s in samples.items()])
    return list(samples.items()), notes[0] if notes else None, digest


def history_for_run(
    root: Path,
    store: ArticleStore,
    health: Mapping[str, Health],
    *,
    before: date | None,
) -> History:
    """The history a run (or the dashboard) reads: the metrics files and the articles in the
    store's folders, skill-health `history[]` of the skills in `health`; through the store's
    cache."""
    return load_history(
        root,
        dirs=store.dirs,
        articles=store.articles(),
        read_article=store.read,
        health={skill: h.history for skill, h in health.items()},
        before=before,
        cache=store.cache.cache,
        names=store.names(),
    )

"""The catalog checks as the nightly run shows them: one article line, Action Queue items, and the
dashboard's Catalog panel, from a summary cached by the content of every file lint reads.

`catalog_summary(root, cache)` runs `aeon-evals lint`'s checks (catalog_lint) unless nothing they
read changed since the last run: the summary is kept in the cache entry `catalog`, keyed by the
SHA-256 of every SKILL.md, trigger.json, aeon.yml and evals.json.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aeon_evals.cache.folder import Cache, Entry
from aeon_evals.fs.confine import inside
from aeon_evals.load.layout import TRIGGER_FILE
from aeon_evals.load.manifest import EVALS_PATH
from aeon_evals.load.registry import AEON_YML, find_config
from aeon_evals.load.skillmd import READ_LIMIT, SKILL_MD, SKILLS_DIR
from aeon_evals.model.problems import Severity

if TYPE_CHECKING:
    from aeon_evals.catalog.findings import CatalogReport, Finding

ENTRY = Entry("catalog", 2)
MAX_FIX_ACTIONS = 3  # Action Queue items for SKILL.md errors, then one "+N more"
MAX_KEPT = 50  # collisions and failing cases kept for the dashboard (the counts are exact)


@dataclass(frozen=True)
class Pair:
    """A colliding pair as the dashboard lists it."""

    a: str
    b: str
    similarity: float
    terms: str  # the shared terms that drive it, `paper 0.59, find 0.03`


@dataclass(frozen=True)
class FailedCase:
    """A trigger case that failed, as the dashboard lists it."""

    skill: str
    kind: str  # "positive" or "negative"
    prompt: str
    why: str
    where: str  # `file:line`


@dataclass(frozen=True)
class CatalogSummary:
    """What the nightly run shows of `aeon-evals lint`."""

    skills: int
    errors: int
    warnings: int
    error_findings: tuple[Finding, ...]
    collisions: int
    pairs: tuple[Pair, ...]
    cases: int
    failed: tuple[FailedCase, ...]
    failed_count: int
    rank1: tuple[int, int] | None  # (first, positive cases), None without positive cases

    def line(self) -> str:
        """The article's `**Catalog:**` line: `0 errors · 28 warnings · 1 collision · rank-1 …`."""
        parts = [
            f"{self.skills} skill{'s' * (self.skills != 1)}",
            f"{self.errors} error{'s' * (self.errors != 1)}",
            f"{self.warnings} warning{'s' * (self.warnings != 1)}",
            f"{self.collisions} collision{'s' * (self.collisions != 1)}",
        ]
        if self.rank1 is not None:
            first, total = self.rank1
            parts.append(f"rank-1 {first}/{total} ({first / total * 100:.1f}%)")
        if self.cases:
            parts.append(f"{self.failed_count}/{self.cases} trigger cases failing")
        return " · ".join(parts) + " (aeon-evals lint)"

    def actions(self, most: int = MAX_FIX_ACTIONS) -> list[str]:
        """One `Fix SKILL.md:<skill> — <message> (file:line)` Action Queue item per error, the
        first `most` of them, then one `+N more` item (failing skills keep their room)."""
        items = [
            f"Fix SKILL.md:{f.skill or '?'} — {_short(f.message)} ({f.file}:{f.line})"
            for f in self.error_findings
        ]
        if len(items) > most:
            rest = len(items) - most
            items = [*items[:most], f"+{rest} more SKILL.md errors — run `aeon-evals lint`"]
        return items


def _short(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def summarize(report: CatalogReport) -> CatalogSummary:
    """The summary of a lint report (pure)."""
    positives = report.positives
    failed = [r for r in report.results if not r.passed]
    return CatalogSummary(
        skills=len(report.skills),
        errors=report.count(Severity.ERROR),
        warnings=report.count(Severity.WARNING),
        error_findings=tuple(f for f in report.findings if f.severity is Severity.ERROR),
        collisions=len(report.collisions),
        pairs=tuple(Pair(c.a, c.b, c.similarity, c.terms()) for c in report.collisions[:MAX_KEPT]),
        cases=len(report.results),
        failed=tuple(
            FailedCase(
                r.case.skill,
                r.case.kind.value,
                r.case.prompt,
                r.why,
                f"{r.case.file}:{r.case.line}",
            )
            for r in failed[:MAX_KEPT]
        ),
        failed_count=len(failed),
        rank1=(sum(1 for r in positives if r.first), len(positives)) if positives else None,
    )


# --- the cache -------------------------------------------------------------------------------


def _to_json(summary: CatalogSummary) -> dict[str, Any]:
    return {
        "skills": summary.skills,
        "errors": summary.errors,
        "warnings": summary.warnings,
        "error_findings": [f.as_json() for f in summary.error_findings],
        "collisions": summary.collisions,
        "pairs": [[p.a, p.b, p.similarity, p.terms] for p in summary.pairs],
        "cases": summary.cases,
        "failed": [[c.skill, c.kind, c.prompt, c.why, c.where] for c in summary.failed],
        "failed_count": summary.failed_count,
        "rank1": list(summary.rank1) if summary.rank1 is not None else None,
    }


def _from_json(data: Any) -> CatalogSummary:
    """The inverse of _to_json; raises KeyError, TypeError or ValueError on damaged data."""
    rank1 = data["rank1"]
    return CatalogSummary(
        skills=int(data["skills"]),
        errors=int(data["errors"]),
        warnings=int(data["warnings"]),
        error_findings=_findings(data["error_findings"]),
        collisions=int(data["collisions"]),
        pairs=tuple(Pair(str(a), str(b), float(s), str(t)) for a, b, s, t in data["pairs"]),
        cases=int(data["cases"]),
        failed=tuple(FailedCase(*(str(x) for x in c)) for c in data["failed"]),
        failed_count=int(data["failed_count"]),
        rank1=(int(rank1[0]), int(rank1[1])) if rank1 is not None else None,
    )


def _findings(data: Any) -> tuple[Finding, ...]:
    """The error findings of a cached summary (_from_json)."""
    if data == []:
        return ()
    from aeon_evals.catalog.findings import Finding, Rule  # a catalog with SKILL.md errors only

    return tuple(
        Finding(
            str(f["file"]),
            int(f["line"]),
            Severity(f["severity"]),
            Rule(f["rule"]),
            str(f["message"]),
            None if f["skill"] is None else str(f["skill"]),
        )
        for f in data
    )


# What the cache remembers of one input file: inode, size, modification time (ns), and the
# file's key. A file whose first three are unchanged is not read again, as git's index and make
# trust a file's stat; a fresh checkout (new inodes) reads and hashes every file once.
Stamp = list[Any]


def _file_key(root: Path, rel: str, known: Stamp | None) -> tuple[str, Stamp | None]:
    """What identifies one input file: its bytes' SHA-256 (taken from `known` when its stat is
    unchanged), or a marker for what lint does not read as content (absent, a symlink out of the
    root, a FIFO, too large); and the stamp to remember. Never blocks."""
    path = os.path.join(root, rel)
    try:
        info = os.stat(path)
    except OSError:
        return "-", None
    if not stat.S_ISREG(info.st_mode):
        return "special", None
    stamp: Stamp = [info.st_ino, info.st_size, info.st_mtime_ns]
    if isinstance(known, list) and len(known) == 4 and known[:3] == stamp:
        return str(known[3]), known
    if info.st_size > READ_LIMIT or not inside(root, Path(path)):
        return f"skip {info.st_size} {info.st_mtime_ns}", None
    try:
        with open(path, "rb") as fh:
            key = hashlib.sha256(fh.read()).hexdigest()
    except OSError:
        return "unreadable", None
    return key, [*stamp, key]


def inputs_key(
    root: Path, known: Mapping[str, Stamp] | None = None, config: str = AEON_YML
) -> tuple[str, dict[str, Stamp]]:
    """The SHA-256 of everything the checks read (every SKILL.md, trigger.json, the skill
    registry `config` and evals.json, which hold the lint settings too); and the stamps of the
    files it hashed, so that the next call reads only the files whose stat changed (`known`:
    those stamps)."""
    known = known if isinstance(known, Mapping) else {}
    stamps: dict[str, Stamp] = {}
    digest = hashlib.sha256()

    def add(rel: str) -> bytes:
        key, stamp = _file_key(root, rel, known.get(rel))
        if stamp is not None:
            stamps[rel] = stamp
        return key.encode() if len(key) != 64 else bytes.fromhex(key)

    try:
        with os.scandir(root / SKILLS_DIR) as entries:
            folders = sorted(e.name for e in entries if not e.name.startswith("."))
    except OSError:
        folders = []
    for folder in folders:
        digest.update(folder.encode("utf-8", "surrogateescape") + b"\0")
        digest.update(add(f"{SKILLS_DIR}/{folder}/{SKILL_MD}"))
        digest.update(add(f"{SKILLS_DIR}/{folder}/{TRIGGER_FILE}"))
    for rel in (config, EVALS_PATH):
        digest.update(rel.encode() + b"\0" + add(rel))
    return digest.hexdigest(), stamps


def catalog_summary(root: Path, cache: Cache, config: str | None = None) -> CatalogSummary | None:
    """The catalog checks of the instance at `root` (its skill registry `config`, else found),
    as the instance's lint settings select them, or None when it has no SKILL.md at all.

    Served from `cache` (the entry `catalog`) when nothing lint reads has changed; else computed
    and stored there. A damaged entry is a miss.
    """
    found_data = cache.load(ENTRY, ENTRY.key())
    cached: dict[str, Any] = found_data if isinstance(found_data, dict) else {}
    config = config if config is not None else find_config(root)
    key, stamps = inputs_key(root, cached.get("files"), config)
    try:
        if cached.get("inputs") == key:
            summary = cached.get("summary")
            found = None if summary is None else _from_json(summary)
            if stamps != cached.get("files"):  # same files, new stat (a checkout)
                cache.store(ENTRY, ENTRY.key(), {**cached, "files": stamps})
            return found
    except (ValueError, KeyError, TypeError, RecursionError):
        pass
    # the checks (routing model, trigger cases, rules) load on a miss only: a warm run has a hit
    from aeon_evals.catalog.lint import check_catalog, load_catalog

    cat = load_catalog(root, config)
    found = summarize(check_catalog(cat)) if cat.docs else None
    summary_json = _to_json(found) if found else None
    cache.store(ENTRY, ENTRY.key(), {"inputs": key, "summary": summary_json, "files": stamps})
    return found

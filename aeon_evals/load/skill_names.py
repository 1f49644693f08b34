"""Skill names on disk and in evals.json: the folders under skills/, and for an orphan spec (an
evals.json key with no folder and no registry entry) the real skill it most plausibly meant.
Apart from the coverage audit so that `validate` loads no more than its orphan check needs."""

from __future__ import annotations

import difflib
import functools
import os
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from aeon_evals.load.registry import Registry

SKILLS_DIR = "skills"


@dataclass(frozen=True)
class Orphan:
    """An evals.json key with no skills/<name>/ folder and no aeon.yml entry."""

    skill: str
    closest: str | None


def skill_folders(root: Path) -> list[str]:
    """The folders under skills/, sorted (hidden ones skipped)."""
    try:  # scandir knows most entries' type: no stat, no Path, for a thousand skills
        with os.scandir(root / SKILLS_DIR) as entries:
            return sorted(e.name for e in entries if not e.name.startswith(".") and _is_dir(e))
    except OSError:
        return []


def _is_dir(entry: os.DirEntry[str]) -> bool:
    """Path.is_dir of the entry: a folder, or a symlink to one; False when it cannot be told."""
    try:
        return entry.is_dir()
    except OSError:
        return False


def tokens(name: str) -> list[str]:
    """A name's words, lower-cased (`Hacker_News-digest` → hacker, news, digest)."""
    return [t for t in re.split(r"[-_.\s]+", name.lower()) if t]


# --- closest real skill for an orphan spec -----------------------------------------------------


@functools.lru_cache(maxsize=65536)  # a fleet's skill names share their words
def _match(tok: str, part: tuple[str, ...]) -> float:
    """How well one orphan word stands for consecutive candidate words `part` (0 = not at all)."""
    joined = "".join(part)
    if len(part) > 1:
        return 1.0 if tok in (joined, "".join(p[0] for p in part)) else 0.0
    if tok == joined:
        return 1.0
    if min(len(tok), len(joined)) >= 3 and (joined.startswith(tok) or tok.startswith(joined)):
        return 0.8
    if (
        min(len(tok), len(joined)) >= 5
        and difflib.SequenceMatcher(None, tok, joined).ratio() >= 0.8
    ):
        return 0.8
    if 2 <= len(tok) <= 4 < len(joined) and tok[0] == joined[0] and _subsequence(tok, joined):
        return 0.7  # `gh` ~ `github`, `msg` ~ `message`
    return 0.0


def _may_match(tok: str, word: str) -> bool:
    """False when `_match(tok, (word,))` is surely 0, by what each of its ways needs: the same
    word, the same first 3 letters (a prefix), the same first letter with `tok` the shorter
    (an abbreviation), or both of at least 5 letters (a near-typo)."""
    if tok == word:
        return True
    short = min(len(tok), len(word))
    if short >= 5:
        return True
    if short >= 3 and tok[:3] == word[:3]:
        return True
    return 2 <= len(tok) <= 4 < len(word) and tok[0] == word[0]


def _subsequence(short: str, long: str) -> bool:
    rest = iter(long)
    return all(ch in rest for ch in short)


def _align(orphan: list[str], candidate: list[str]) -> tuple[float, set[int], bool]:
    """How much of `orphan` the words of `candidate` explain (0–1), which candidate words were
    used, and whether the orphan's last word explains the candidate's last word (its head).

    A word matches a candidate word exactly, as the initials of consecutive words (`hn` ~
    `hacker-news`), as their concatenation (`autoresearch` ~ `auto-research`), as a prefix of
    at least 3 letters (`repo` ~ `repository`), as a consonant-style abbreviation (`gh` ~
    `github`), or as a near-typo.
    """
    used: set[int] = set()
    credit = 0.0
    head = False
    for n, tok in enumerate(orphan):
        best, span = 0.0, range(0)
        for i in range(len(candidate)):
            for j in range(i + 1, min(len(candidate), i + 4) + 1):
                score = _match(tok, tuple(candidate[i:j]))
                if score > best or (score == best > 0 and j - i > len(span)):
                    best, span = score, range(i, j)
        credit += best
        used.update(span)
        if n == len(orphan) - 1 and len(candidate) - 1 in span:
            head = True
    return credit / len(orphan), used, head


@dataclass(frozen=True)
class _Name:
    """A real skill's name as closest_skill compares it: its words, lower-cased."""

    name: str
    words: list[str]
    lower: str
    spans: frozenset[str]  # the concatenations and initials of 2–4 consecutive words


def _names(known: set[str]) -> list[_Name]:
    """Each name once, for every orphan compared with them."""
    return [_name(n) for n in known]


def _name(name: str) -> _Name:
    words = tokens(name)
    return _Name(name, words, name.lower(), _spans(words))


def _spans(words: list[str]) -> frozenset[str]:
    """What an orphan word must be to match several consecutive `words` (see `_match`): their
    concatenation or their initials, for the spans of 2 to 4 words `_align` tries."""
    found: set[str] = set()
    for i in range(len(words)):
        for j in range(i + 2, min(len(words), i + 4) + 1):
            part = words[i:j]
            found.add("".join(part))
            found.add("".join(p[0] for p in part))
    return frozenset(found)


def _may_cover(orphan: list[str], matching: list[set[str]], known: _Name) -> float:
    """An upper bound of `_align(orphan, known.words)[0]`, without aligning: the share of the
    orphan's words that match something in the name at all. `matching[n]`: the names' single
    words that orphan word `n` matches (`_match` > 0)."""
    words = known.words
    hits = 0
    for tok, single in zip(orphan, matching, strict=True):
        if tok in known.spans or any(w in single for w in words):
            hits += 1
    return hits / len(orphan)


def _typo_bound(a: str, letters: Counter[str], b: _Name) -> float:
    """difflib's real_quick_ratio, then its quick_ratio, of `a` (whose letter counts are
    `letters`) and `b`: upper bounds of their ratio(), without building a SequenceMatcher for
    each of a thousand names."""
    total = len(a) + len(b.lower)
    if 2 * min(len(a), len(b.lower)) / total < 0.85:
        return 2 * min(len(a), len(b.lower)) / total
    theirs = b.lower  # a name's few letters counted where asked: cheaper than a Counter each
    return 2 * sum(min(n, theirs.count(ch)) for ch, n in letters.items()) / total


def closest_skill(
    orphan: str, known: set[str], *, prefer: set[str] | frozenset[str] = frozenset()
) -> str | None:
    """The real skill an orphan spec most plausibly meant, or None when none is plausibly close.

    Word-aware: `hn-digest` → `hacker-news-digest`, `polymarket` → `monitor-polymarket` (the
    last word of a compound name is its head, so matching it counts more than matching a
    modifier, as in `polymarket-comments`). Plausible means at least two thirds of the orphan's
    words are explained, or the whole names are a near-typo. `prefer` (skills without a spec
    of their own: a renamed skill has none) breaks ties; then the name that sorts first.
    """
    return _closest(orphan, _names(known), prefer)


def _closest(orphan: str, names: list[_Name], prefer: set[str] | frozenset[str]) -> str | None:
    """closest_skill over names prepared once (_names)."""
    words = tokens(orphan)
    if not words:
        return None
    lower = orphan.lower()
    letters = Counter(lower)
    # each orphan word against each distinct word of the names once: most names then need no
    # alignment at all (too few of the orphan's words match anything in them)
    vocabulary = {w for known in names for w in known.words}
    matching = [
        {w for w in vocabulary if _may_match(tok, w) and _match(tok, (w,))} for tok in words
    ]
    scored: list[tuple[float, str]] = []
    for known in names:
        name, cand = known.name, known.words
        if not cand or name == orphan:
            continue
        if _may_cover(words, matching, known) < 2 / 3 and _typo_bound(lower, letters, known) < 0.85:
            continue  # neither explained enough nor a near-typo, whatever the alignment
        cover, used, head = _align(words, cand)
        if cover < 2 / 3 and _typo_bound(lower, letters, known) < 0.85:
            continue  # an upper bound of ratio(): no near-typo either
        ratio = difflib.SequenceMatcher(None, lower, known.lower).ratio()
        if cover < 2 / 3 and ratio < 0.85:
            continue
        score = 0.6 * max(cover, ratio) + 0.4 * len(used) / len(cand)
        score += (0.1 if head else 0.0) + (0.05 if name in prefer else 0.0) + 0.01 * ratio
        scored.append((score, name))
    if not scored:
        return None
    return min(scored, key=lambda item: (-item[0], item[1]))[1]


def find_orphans(
    folders: Iterable[str], registry: Registry, spec_skills: Iterable[str]
) -> tuple[Orphan, ...]:
    """The evals.json keys with no skills/<name>/ folder and no registry entry, sorted, each
    with the real skill it most plausibly meant (a skill without a spec of its own first)."""
    known = set(folders) | set(registry.skills)
    specs = set(spec_skills)
    orphans = sorted(specs - known)
    if not orphans:
        return ()
    without_spec = (set(folders) | registry.enabled()) - specs
    names = _names(known)  # prepared once for every orphan
    return tuple(Orphan(s, _closest(s, names, without_spec)) for s in orphans)

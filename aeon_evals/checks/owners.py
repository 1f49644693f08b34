"""Whose output a file is (issue 35.6): a skill is judged only on its own outputs. When a skill's
glob also matches what another skill declares it writes with a more specific pattern
(`repo-pulse`'s `articles/repo-pulse-*.md` and `repo-pulse-weekly`'s
`articles/repo-pulse-weekly-*.md`), those files are the other skill's and are left out of the
first one's checks. Two skills declaring the same pattern (a shared daily log, each with its
own section) share its files. Pure: the declared patterns are given (`Claims`)."""

from __future__ import annotations

import bisect
import fnmatch
import functools
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

_GLOB = re.compile(r"\*\*|\*|\?|\[[^\]/]*\]")
_LAST = chr(0x10FFFF)


def literal_size(pattern: str) -> int:
    """How specific a glob is: two points a character outside wildcards, one a set (`[0-9]`),
    none for `*` and `?`."""
    sets = sum(1 for m in _GLOB.finditer(pattern) if m.group(0).startswith("["))
    return 2 * len(_GLOB.sub("", pattern)) + sets


def sample_path(pattern: str) -> str:
    """A path the glob matches: every wildcard stands for `x` (a set for its first member)."""

    def one(match: re.Match[str]) -> str:
        text = match.group(0)
        if text.startswith("[") and len(text) > 2:
            first = text[1:-1].lstrip("!^")
            return first[:1] or "x"
        return "x"

    return _GLOB.sub(one, pattern)


@functools.lru_cache(maxsize=4096)
def path_matcher(pattern: str) -> Callable[[str], bool]:
    """Whether a path relative to the root matches the glob `pattern` as the outputs' search
    reads it: part by part, `*` within one part, `**` any number of parts."""
    parts = pattern.split("/")
    tests = [None if p == "**" else re.compile(fnmatch.translate(p)).match for p in parts]

    def match(rel: str) -> bool:
        names = rel.split("/")

        @functools.cache
        def at(i: int, j: int) -> bool:
            if i == len(tests):
                return j == len(names)
            test = tests[i]
            if test is None:
                return any(at(i + 1, k) for k in range(j, len(names) + 1))
            return j < len(names) and bool(test(names[j])) and at(i + 1, j + 1)

        return at(0, 0)

    return match


def _split(pattern: str) -> tuple[str, str] | None:
    """(folder, the name's literal prefix) of a glob whose folder has no wildcard; None else."""
    head, _, name = pattern.rpartition("/")
    if _GLOB.search(head) or "**" in name:
        return None
    found = _GLOB.search(name)
    return head, name[: found.start()] if found else name


@dataclass(frozen=True)
class Claim:
    """One declared output pattern of one skill."""

    skill: str
    pattern: str


class Claims:
    """Every skill's declared output patterns ({skill: patterns}), indexed once: which other
    skills' patterns are more specific than a glob and may match the same files."""

    def __init__(self, patterns: Mapping[str, Iterable[str]] | None = None) -> None:
        self.patterns: dict[str, tuple[str, ...]] = {
            skill: tuple(dict.fromkeys(p for p in found if p))
            for skill, found in sorted((patterns or {}).items())
        }
        self._index: dict[str, list[tuple[str, Claim]]] = {}  # folder -> (name prefix, claim)
        self._loose: list[Claim] = []  # wildcards in the folder: compared with every pattern
        for skill, found in self.patterns.items():
            for pattern in found:
                split = _split(pattern)
                if split is None:
                    self._loose.append(Claim(skill, pattern))
                else:
                    self._index.setdefault(split[0], []).append((split[1], Claim(skill, pattern)))
        for entries in self._index.values():
            entries.sort(key=lambda e: (e[0], e[1].skill, e[1].pattern))
        self._prefixes = {h: [prefix for prefix, _ in e] for h, e in self._index.items()}
        self._memo: dict[tuple[str, str], tuple[Claim, ...]] = {}

    def rivals(self, skill: str, pattern: str) -> tuple[Claim, ...]:
        """The other skills' declared patterns more specific than `pattern` that can match a
        file `pattern` matches (a sample of theirs does): those files are theirs."""
        key = (skill, pattern)
        if key not in self._memo:
            self._memo[key] = self._rivals(skill, pattern)
        return self._memo[key]

    def _rivals(self, skill: str, pattern: str) -> tuple[Claim, ...]:
        size = literal_size(pattern)
        candidates: list[Claim] = list(self._loose)
        split = _split(pattern)
        if split is None:
            candidates += [c for entries in self._index.values() for _, c in entries]
        else:
            head, prefix = split
            entries = self._index.get(head, [])
            prefixes = self._prefixes.get(head, [])
            # theirs starts with my prefix: a range of the sorted prefixes
            start = bisect.bisect_left(prefixes, prefix)
            stop = bisect.bisect_left(prefixes, prefix + _LAST, start)
            candidates += [c for _, c in entries[start:stop]]
            # mine starts with theirs (a shorter prefix, a more specific suffix)
            for cut in range(len(prefix)):
                at = bisect.bisect_left(prefixes, prefix[:cut])
                while at < len(prefixes) and prefixes[at] == prefix[:cut]:
                    candidates.append(entries[at][1])
                    at += 1
        near = [
            c
            for c in candidates
            if c.skill != skill and c.pattern != pattern and literal_size(c.pattern) > size
        ]
        if not near:  # (most patterns: no compiled matcher needed)
            return ()
        mine = path_matcher(pattern)
        found = {c for c in near if mine(sample_path(c.pattern))}
        return tuple(sorted(found, key=lambda c: (c.skill, c.pattern)))

    def own(
        self, skill: str, pattern: str, files: tuple[str, ...]
    ) -> tuple[tuple[str, ...], tuple[tuple[Claim, int], ...]]:
        """The files of `files` (matched by `skill`'s `pattern`) that are its own, and how many
        each rival's pattern took."""
        rivals = self.rivals(skill, pattern)
        if not rivals or not files:
            return files, ()
        taken: list[tuple[Claim, int]] = []
        left = files
        for rival in rivals:
            theirs = path_matcher(rival.pattern)
            kept = tuple(f for f in left if not theirs(f))
            if len(kept) != len(left):
                taken.append((rival, len(left) - len(kept)))
                left = kept
        return left, tuple(taken)


def taken_note(taken: tuple[tuple[Claim, int], ...]) -> str:
    """`1 file it matches is repo-pulse-weekly's (articles/repo-pulse-weekly-*.md), not its
    own`."""
    parts = [
        f"{n} file{'s' * (n != 1)} it matches {'is' if n == 1 else 'are'} {c.skill}'s ({c.pattern})"
        for c, n in taken
    ]
    return "; ".join(parts) + ", not its own"


def overlaps(claims: Claims) -> list[tuple[Claim, Claim]]:
    """(a skill's pattern, another skill's more specific pattern it also matches) for every
    such pair, by skill: what `validate` and `lint` warn about."""
    found = []
    for skill, patterns in sorted(claims.patterns.items()):
        for pattern in patterns:
            found += [(Claim(skill, pattern), rival) for rival in claims.rivals(skill, pattern)]
    return found

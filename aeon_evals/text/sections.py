"""Markdown headings and the sections they head, found in raw bytes: one skill's part of a
shared daily log (a spec's `section`), or everything but this tool's own section."""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from aeon_evals.text.patterns import Pattern, compile_pattern

_HEADING = re.compile(rb"(?m)^(#{1,6})[ \t]+([^\r\n]*)")
_SEPARATORS = re.compile(r"[-_\s]+")


def heading_key(title: str) -> str:
    """A heading's title as headings are compared: lower-cased, each run of `-`, `_` and white
    space one space (`Token Pick`, `token-pick` and `token_pick` are one heading)."""
    return _SEPARATORS.sub(" ", title.lower()).strip()


@functools.lru_cache(maxsize=4096)  # a thousand specs name a few hundred headings
def _words(key: str) -> tuple[str, ...]:
    """The words of a `heading_key` (never empty, never holding a separator)."""
    return tuple(key.split(" "))


def _is_separator(char: str) -> bool:
    """`-`, `_` or white space (what `_SEPARATORS` matches)."""
    return char in "-_" or char.isspace()


def title_prefix_end(title: str, key: str) -> int | None:
    """Where the words of `key` end when the lower-cased `title` starts with them, whatever run
    of separators lies between two words (`token-pick`, `token_pick`, `token  pick` all start
    with `token pick`); None when it does not. Plain string steps, no regular expression: a
    run compiled one per wanted heading (300 of them at 1,000 skills, 30 ms)."""
    pos = 0
    for n, word in enumerate(_words(key)):
        if n:
            start = pos
            while pos < len(title) and _is_separator(title[pos]):
                pos += 1
            if pos == start:
                return None
        if not title.startswith(word, pos):
            return None
        pos += len(word)
    return pos


@dataclass(frozen=True)
class Want:
    """What a spec's `section` asks for: a heading title (its `heading_key`, at any level), or a
    pattern tried on every heading line."""

    key: str = ""
    pattern: Pattern | None = None


def want(section: str) -> Want:
    """`### token-alert` → that title; anything not starting with `#` is a pattern."""
    stripped = section.strip()
    if stripped.startswith("#"):
        level = len(stripped) - len(stripped.lstrip("#"))
        return Want(key=heading_key(stripped[level:]))
    return Want(pattern=compile_pattern(stripped))


# (start offset, level, title lower-cased, whole heading line)
Heading = tuple[int, int, str, bytes]


def headings(block: bytes) -> list[Heading]:
    """Every markdown heading of a block, found once (a shared log is read by many specs): a
    line that starts with one to six `#` and a space or tab. Found by byte searches for a line
    break followed by `#` (a regular expression tried at every line start was most of the
    time a 1,000-skill run spends indexing its logs)."""
    found: list[Heading] = []
    size = len(block)
    at = 0 if block.startswith(b"#") else block.find(b"\n#")
    if at > 0:
        at += 1
    while 0 <= at < size:
        level = 0
        while at + level < size and block[at + level] == 0x23 and level < 7:  # "#"
            level += 1
        text = at + level
        if level <= 6 and text < size and block[text] in (0x20, 0x09):  # " ", "\t"
            while text < size and block[text] in (0x20, 0x09):
                text += 1
            end = text
            while end < size and block[end] not in (0x0A, 0x0D):  # "\n", "\r"
                end += 1
            title = block[text:end].decode("utf-8", errors="replace").strip().lower()
            found.append((at, level, title, block[at:end]))
        nxt = block.find(b"\n#", at)
        at = nxt + 1 if nxt >= 0 else -1
    return found


class HeadingIndex:
    """A block's headings, with what makes finding one skill's sections cost O(log H) instead of
    a walk over every heading: a shared log of N skills holds N sections, read by N specs."""

    def __init__(self, block: bytes) -> None:
        self.size = len(block)
        self.items = headings(block)
        count = len(self.items)
        # for each heading, the next one at the same or a higher level (where its section ends)
        self.next_up = [count] * count
        open_: list[int] = []
        for i, (_, level, _, _) in enumerate(self.items):
            while open_ and self.items[open_[-1]][1] >= level:
                self.next_up[open_.pop()] = i
            open_.append(i)
        self.by_title = sorted(
            (heading_key(title), i) for i, (_, _, title, _) in enumerate(self.items)
        )
        self.titles = [key for key, _ in self.by_title]

    def spans(self, wanted: Want) -> list[tuple[int, int]]:
        """(start, end) of each section `wanted` heads, in order, as extract_sections walks them."""
        if wanted.pattern is not None:  # every heading line must be tried
            hits = [
                i
                for i, (_, _, title, line) in enumerate(self.items)
                if starts_section(title, line, wanted)
            ]
        else:  # titles that start with the wanted one are one run of the sorted list
            hits = []
            for k in range(bisect.bisect_left(self.titles, wanted.key), len(self.titles)):
                key, i = self.by_title[k]
                if not key.startswith(wanted.key):
                    break
                _, _, title, line = self.items[i]
                if starts_section(title, line, wanted):
                    hits.append(i)
            hits.sort()
        count = len(self.items)
        found = []
        for k, i in enumerate(hits):
            # a section ends at the next heading of its level or higher, or at the next match
            stop = min(self.next_up[i], hits[k + 1] if k + 1 < len(hits) else count)
            found.append((self.items[i][0], self.items[stop][0] if stop < count else self.size))
        return found

    def may_start(self, key: str) -> bool:
        """Whether a heading of this block can start a section the wanted `key` names (its
        title starts with the key and goes on with no letter, digit, `-` or `_`): a bisect of
        the sorted titles, as `spans` starts."""
        titles = self.titles
        k = bisect.bisect_left(titles, key)
        while k < len(titles) and titles[k].startswith(key):
            title = titles[k]
            if len(title) == len(key) or not (title[len(key)].isalnum() or title[len(key)] in "-_"):
                return True
            k += 1
        return False

    def spans_of(self, wanted: Sequence[Want]) -> list[list[tuple[int, int]]]:
        """`spans(w)` for each of many `wanted` at once: each heading's title is looked up by
        its prefixes that end where a name may end (before a space or a sign: O(headings ×
        their length), not a search per wanted heading); a pattern is tried on every heading
        line as `spans` does."""
        by_key: dict[str, list[int]] = {}
        out: list[list[tuple[int, int]]] = [[] for _ in wanted]
        for n, w in enumerate(wanted):
            if w.pattern is not None:
                out[n] = self.spans(w)
            else:
                by_key.setdefault(w.key, []).append(n)
        if not by_key:
            return out
        hits: dict[int, list[int]] = {}
        for key, i in self.by_title:
            _, _, title, line = self.items[i]
            for prefix in _name_prefixes(key):
                for n in by_key.get(prefix, ()):
                    if starts_section(title, line, wanted[n]):
                        hits.setdefault(n, []).append(i)
        count = len(self.items)
        for n, found in hits.items():
            found.sort()
            for k, i in enumerate(found):
                stop = min(self.next_up[i], found[k + 1] if k + 1 < len(found) else count)
                last = self.items[stop][0] if stop < count else self.size
                out[n].append((self.items[i][0], last))
        return out


@functools.lru_cache(maxsize=16384)  # a fleet's headings recur in every daily log
def _name_prefixes(key: str) -> tuple[str, ...]:
    """The prefixes of a heading key that end where a name may end: before a space or a sign
    (a wanted name never ends inside a word), and the whole key."""
    return tuple(
        key[:end]
        for end in range(1, len(key) + 1)
        if end == len(key) or not (key[end].isalnum() or key[end] in "-_")
    )


def starts_section(title: str, line: bytes, wanted: Want) -> bool:
    """Whether a heading (its lower-cased `title`, its whole `line`) starts a section `wanted`
    names: the pattern finds the line, or the title starts with the wanted words."""
    if wanted.pattern is not None:
        return wanted.pattern.search(line) is not None
    # Real logs mix `##` and `###`, `Token Pick` and `token-pick` for the same skill: the words of
    # the title decide, not the level, the case or the separators. What follows them must not
    # continue the name (`### token-alerts-v2` is not `### token-alert`).
    end = title_prefix_end(title, wanted.key)
    if end is None:
        return False
    return end == len(title) or not (title[end].isalnum() or title[end] in "-_")


def extract_sections(
    blocks: Iterable[bytes], section: str, *, keep: bool = True, index: HeadingIndex | None = None
) -> Iterator[bytes]:
    """Only the lines of the sections headed by `section` (a heading like `### token-alert`, matched
    by its title at any heading level, case-insensitively and with `-`, `_` and space alike, or a
    pattern matched against heading lines), each from its heading to the next heading of the
    same or a higher level. With `keep=False`, everything except those sections. `index` is the
    HeadingIndex of the one block, when the caller already has it."""
    wanted = want(section)
    if index is not None:
        for block in blocks:
            pos = 0
            for start, end in index.spans(wanted):
                if keep:
                    yield block[start:end]
                else:
                    yield block[pos:start]
                pos = end
            if not keep:
                yield block[pos:]
        return
    inside: int | None = None  # level of the section we are in
    for block in blocks:
        pos = 0  # start of the next slice to emit (keep) or of the text outside (drop)
        for start, level, title, line in headings(block):
            if starts_section(title, line, wanted):
                if (inside is not None and keep) or (inside is None and not keep):
                    yield block[pos:start]
                inside, pos = level, start
            elif inside is not None and level <= inside:
                if keep:
                    yield block[pos:start]
                inside, pos = None, start
        if (inside is not None) == keep:
            yield block[pos:]

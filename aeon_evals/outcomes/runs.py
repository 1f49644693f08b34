"""A skill's runs in one daily log (its sections, found as the checks find them) and in its dated
articles, as `Run` values. Pure: the caller reads the files."""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import date

from aeon_evals.outcomes.model import Run
from aeon_evals.text.sections import HeadingIndex, Want, want

# The read-only workflow guard's own marker line under `## <skill> (read-only)`: evidence that a
# run happened, not a run of its own when the skill's section is there too.
_GUARD_BODY = re.compile(rb"^\s*Ran \S+ UTC\.?\s*$")
_GUARD_TITLE = re.compile(rb"\(read-only\)\s*$")
# `### heartbeat (08:04Z)`, `## heartbeat (14:39 UTC, scheduled …)`: a heading that dates its run
_TIMED = re.compile(rb"\b\d{1,2}:\d{2}(?::\d{2})?\s*(?:Z|UTC)?\b")


def skill_headings(skill: str, sections: Iterable[str] = ()) -> tuple[str, ...]:
    """The headings a skill's log entries start with: `### <skill>` and the sections its
    contract names (`## Price Threshold Alert`), each once, in that order."""
    out = [f"### {skill}"]
    for section in sections:
        if section and section not in out:
            out.append(section)
    return tuple(out)


def log_runs(
    log: bytes,
    day: date,
    headings: Mapping[str, Sequence[str]],
    *,
    path: str = "",
    index: HeadingIndex | None = None,
) -> dict[str, tuple[Run, ...]]:
    """The runs each skill of `headings` (skill → the headings its entries start with, see
    `skill_headings`) has in one daily log, in file order; skills without a run are left out.

    A run is a section one of the skill's headings starts (at any heading level, matched as the
    checks match a spec's `section`). It ends where the checks end a section, or earlier at a
    heading another skill's entry starts with, whatever its level (`## vienna-apartments sweep`
    is followed by `### github-trending`, a run of its own). Back-to-back sections of one skill
    are one run (`### price-alert` then `## Price Threshold Alert`; `### defi-overview
    (positions)` then `### defi-overview`), unless both headings carry a time of day (heartbeat
    three times a day). A guard marker (`## x (read-only)` over `Ran … UTC.`) is dropped when
    the log holds a section of the skill's own. `index` is the log's HeadingIndex when the
    caller has one; the log's bytes are never decoded but for each run's text."""
    split = LogRuns(log, day, headings, path=path, index=index)
    return {skill: split.of(skill) for skill in split.skills}


class LogRuns:
    """One daily log split into every skill's sections (where one ends depends on the others'
    headings), each skill's runs made (and their text decoded) only when asked for: a run asks
    a few skills' runs of most logs."""

    def __init__(
        self,
        log: bytes,
        day: date,
        headings: Mapping[str, Sequence[str]],
        *,
        path: str = "",
        index: HeadingIndex | None = None,
    ) -> None:
        self.log, self.day, self.path = log, day, path
        self._spans: dict[str, list[tuple[int, int]]] = {}
        self._owners: dict[int, set[str]] = {}  # heading offset → the skills starting there
        self._made: dict[str, tuple[Run, ...]] = {}
        self._starts: list[int] = []
        self._newlines: list[int] | None = None  # found when a run first needs its line
        if not log:
            return
        index = index or HeadingIndex(log)
        pairs = [(skill, h) for skill, wanted in headings.items() for h in wanted]
        wants = [cached_want(h) for _, h in pairs]
        per_want = index.spans_of(wants)
        by_skill: dict[str, set[tuple[int, int]]] = {}
        # a heading two skills' names start (`## Polymarket Comments`: `polymarket` and
        # `polymarket-comments`) starts the entry of the one it names the most of
        best: dict[int, int] = {}
        claims: list[tuple[str, int, tuple[int, int]]] = []
        for (skill, _), w, found_spans in zip(pairs, wants, per_want, strict=True):
            named = len(w.key) if w.pattern is None else 0
            for span in found_spans:
                claims.append((skill, named, span))
                best[span[0]] = max(best.get(span[0], 0), named)
        for skill, named, span in claims:
            if named >= best[span[0]]:
                by_skill.setdefault(skill, set()).add(span)
        for skill, found_set in by_skill.items():
            found = sorted(found_set)
            self._spans[skill] = found
            for start, _ in found:
                self._owners.setdefault(start, set()).add(skill)
        self._starts = sorted(self._owners)

    @property
    def skills(self) -> list[str]:
        """The skills with a run in this log, in the order `headings` gave them."""
        return list(self._spans)

    def of(self, skill: str) -> tuple[Run, ...]:
        """`skill`'s runs in this log, in file order (none when it has no section here)."""
        made = self._made.get(skill)
        if made is not None:
            return made
        found = self._spans.get(skill, [])
        if not found:
            self._made[skill] = ()
            return ()
        if self._newlines is None:
            self._newlines = _newlines(self.log)
        newlines = self._newlines
        cut = [(start, _cut(start, end, skill, self._starts, self._owners)) for start, end in found]
        log = self.log
        made = self._made[skill] = tuple(
            Run(
                skill,
                self.day,
                f"{self.path}:{_line_at(newlines, start)}",
                _text(log, start, end),
                n,
            )
            for n, (start, end) in enumerate(_merge(log, cut))
        )
        return made


def _cut(start: int, end: int, skill: str, starts: list[int], owners: dict[int, set[str]]) -> int:
    """A section's end, moved up to the first heading inside it that starts another skill's
    entry."""
    k = bisect.bisect_right(starts, start)
    while k < len(starts) and starts[k] < end:
        if skill not in owners[starts[k]]:
            return starts[k]
        k += 1
    return end


def _merge(log: bytes, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """One skill's sections as runs: nested ones dropped, back-to-back ones joined, guard markers
    dropped when a real section is there."""
    by_start: dict[int, int] = {}
    for start, end in spans:
        by_start[start] = max(end, by_start.get(start, end))
    merged: list[tuple[int, int]] = []
    for start, end in sorted(by_start.items()):
        if merged and start < merged[-1][1]:
            continue  # inside the previous section (a heading matched under two names)
        if (
            merged
            and _adjacent(log, merged[-1][1], start)
            and _same_run(log, merged[-1], (start, end))
        ):
            merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    guards = [span for span in merged if _guard(log, span)]
    if guards and len(guards) < len(merged):
        merged = [span for span in merged if span not in guards]
    return merged


def _adjacent(log: bytes, end: int, start: int) -> bool:
    """Nothing but blank lines between one section's end and the next one's start."""
    return end <= start and not log[end:start].strip()


def _newlines(log: bytes) -> list[int]:
    """The offset of every line break of `log` (found once: a line number a run is a bisect)."""
    return [m.start() for m in _NEWLINE.finditer(log)]


def _line_at(newlines: list[int], offset: int) -> int:
    return bisect.bisect_left(newlines, offset) + 1


_NEWLINE = re.compile(rb"\n")


@functools.lru_cache(maxsize=8192)  # a fleet's headings, met again in every log
def cached_want(heading: str) -> Want:
    return want(heading)


def _text(log: bytes, start: int, end: int) -> str:
    return log[start:end].decode("utf-8", errors="replace")


def _heading(log: bytes, span: tuple[int, int]) -> bytes:
    end = log.find(b"\n", span[0], span[1])
    return log[span[0] : end if end >= 0 else span[1]]


def _body(log: bytes, span: tuple[int, int]) -> bytes:
    end = log.find(b"\n", span[0], span[1])
    return log[end + 1 : span[1]] if end >= 0 else b""


def _same_run(log: bytes, first: tuple[int, int], second: tuple[int, int]) -> bool:
    """Whether two back-to-back sections are one run: not both timed, not two guard markers."""
    a, b = _heading(log, first), _heading(log, second)
    if _TIMED.search(a) and _TIMED.search(b):
        return False
    return not (_guard(log, first) or _guard(log, second))


def _guard(log: bytes, span: tuple[int, int]) -> bool:
    return bool(_GUARD_TITLE.search(_heading(log, span).rstrip())) and bool(
        _GUARD_BODY.match(_body(log, span))
    )


def article_run(skill: str, path: str, day: date, text: str | bytes) -> Run:
    """One dated article as one run of `skill`."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    return Run(skill, day, path, text, 0)

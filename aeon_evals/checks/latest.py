"""A skill's latest output: its files in date order, the daily log that holds its entry, and the
bytes of an output its spec is checked against."""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from datetime import date, datetime

from aeon_evals.fs.daylog import SECTION
from aeon_evals.load import cadence
from aeon_evals.load.outputs import Body, OutputError, Outputs, name_date
from aeon_evals.model import Spec
from aeon_evals.text.patterns import compile_pattern
from aeon_evals.text.sections import HeadingIndex, extract_sections, want


def pick_log(
    spec: Spec, files: tuple[str, ...], outputs: Outputs, schedule: str | None, now: datetime
) -> tuple[str, str | None]:
    """The file to check: the newest, except that a shared-log spec looks back for the newest log
    holding its entry: since the skill's previous expected run (it runs later in the day than
    the eval), and for a spec naming its section, at any age. A skill that missed its runs is
    then judged on its last entry, whose age makes it STALE as an article's would; a section
    found in no log at all is judged on the newest log (missing_section)."""
    if not spec.output_pattern.startswith("memory/logs/"):
        return files[-1], None
    # A log holding nothing but the section this tool wrote (its first run today) is no output.
    cut = len(files)
    while cut > 1 and _only_own_section(outputs, files[cut - 1]):
        cut -= 1
    others = tuple(files[:cut])
    newest = others[-1]
    fired = cadence.previous_fire(schedule, now) if schedule else None
    rel = newest_entry(spec, others, outputs, fired.date()) if fired is not None else None
    if rel is None and spec.section:
        rel = newest_entry(spec, others, outputs, date.min)
        if rel is not None and rel != newest:
            since = f" since its last expected run ({fired:%Y-%m-%d %H:%M} UTC)" if fired else ""
            return rel, f"used {rel}: the newest log with an entry; none{since}"
    if rel is None or rel == newest:
        return newest, None
    assert fired is not None
    return (
        rel,
        f"used {rel}: the newest log has no entry yet "
        f"(last expected run {fired:%Y-%m-%d %H:%M} UTC)",
    )


def newest_entry(spec: Spec, files: tuple[str, ...], outputs: Outputs, since: date) -> str | None:
    """The newest log dated `since` or later that holds the skill's entry, if any."""
    candidates = [f for f in files if (d := name_date(f)) is not None and d >= since]
    for rel in reversed(candidates):
        try:
            body = outputs.read(rel)
        except OutputError:
            continue
        if holds_entry(spec, body, outputs):
            return rel
    return None


def by_date(files: tuple[str, ...], outputs: Outputs, pattern: str) -> tuple[str, ...]:
    """A pattern's files oldest first by the date in their names, files without one first by name:
    a slug before the date must not decide (`research-brief-insider-…-2026-04-27.md` is older
    than `research-brief-ceasefire-…-2026-05-02.md`)."""
    key = ("by-date", pattern)
    if key not in outputs.memo:
        dates = [name_date(f) for f in files]
        if all(a is None or (b is not None and a <= b) for a, b in itertools.pairwise(dates)):
            outputs.memo[key] = files  # already in date order (logs, `<skill>-<date>.md` names)
        else:
            order = sorted(range(len(files)), key=lambda i: (dates[i] or date.min, files[i]))
            outputs.memo[key] = tuple(files[i] for i in order)
    ordered: tuple[str, ...] = outputs.memo[key]  # type: ignore[assignment]
    return ordered


def _only_own_section(outputs: Outputs, rel: str) -> bool:
    key = ("only-own", rel)
    if key not in outputs.memo:
        try:
            body = outputs.read(rel)
        except OutputError:
            outputs.memo[key] = False
            return False
        own = body.data is not None and SECTION.encode() in body.data
        if own:
            assert body.data is not None
            rest = b"".join(
                extract_sections(
                    [body.data], SECTION, keep=False, index=heading_index(outputs, body)
                )
            )
            own = all(not line.strip() or line.startswith(b"# ") for line in rest.splitlines())
        outputs.memo[key] = own
    return bool(outputs.memo[key])


def heading_index(outputs: Outputs, body: Body) -> HeadingIndex | None:
    """The headings of a file read whole, indexed once per run and shared by every spec."""
    if body.data is None:
        return None
    key = ("headings", body.path)
    if key not in outputs.memo:
        outputs.memo[key] = HeadingIndex(body.data)
    index: HeadingIndex = outputs.memo[key]  # type: ignore[assignment]
    return index


def content_of(spec: Spec, body: Body, outputs: Outputs) -> Iterable[bytes]:
    """The bytes a spec is checked against: its section(s) when it names one; on a shared log,
    everything but the section this tool writes there itself."""
    blocks: Iterable[bytes] = body.blocks(outputs.root)
    if spec.section:
        return extract_sections(blocks, spec.section, index=heading_index(outputs, body))
    if spec.output_pattern.startswith("memory/logs/") and spec.skill != "skill-evals":
        return extract_sections(blocks, SECTION, keep=False, index=heading_index(outputs, body))
    return blocks


def checked_spans(spec: Spec, body: Body, outputs: Outputs) -> list[tuple[int, int]] | None:
    """(start, end) in the file of what `content_of` yields, for a file read whole; None for a
    streamed one."""
    index = heading_index(outputs, body)
    if index is None:
        return None
    if spec.section:
        return index.spans(want(spec.section))
    if spec.output_pattern.startswith("memory/logs/") and spec.skill != "skill-evals":
        spans, at = [], 0
        for start, end in index.spans(want(SECTION)):
            spans.append((at, start))
            at = end
        return [*spans, (at, index.size)]
    return [(0, index.size)]


def own_spans(body: Body, outputs: Outputs, heading: str) -> list[tuple[int, int]] | None:
    """(start, end) in the file of each section `heading` heads, for a file read whole."""
    index = heading_index(outputs, body)
    return None if index is None else index.spans(want(heading))


def holds_entry(spec: Spec, body: Body, outputs: Outputs) -> bool:
    """Whether an output holds the skill's entry: its section with some text, or else every
    required pattern."""
    if spec.section:
        return any(chunk.strip() for chunk in content_of(spec, body, outputs))
    rxs = [compile_pattern(p) for p in spec.required_patterns]
    if not rxs:
        return True
    return all(any(rx.search(b) for b in content_of(spec, body, outputs)) for rx in rxs)

"""Checks c–f of SPEC §4 over an output's content, streamed once: words, required and forbidden
patterns, required headings, numeric bounds."""

from __future__ import annotations

import re
from collections.abc import Iterable

from aeon_evals.checks import findings
from aeon_evals.checks.findings import Where
from aeon_evals.model import Cause, Spec, Status
from aeon_evals.text.patterns import compile_pattern
from aeon_evals.text.sections import Want, heading_key, headings, starts_section

_NUMBER = re.compile(r"[-+]?\d[\d,]*(?:\.\d+)?|[-+]?\.\d+")
# `wc -w`: a word is a run of bytes that are not ASCII white space. Map white space to b" " and
# everything else to b"x", then count word starts: no per-word objects, whatever the file size.
_WORD_TABLE = bytes(0x20 if b in b" \t\n\v\f\r" else 0x78 for b in range(256))
NOWHERE = Where()


def count_words(block: bytes) -> int:
    """Words in a block that starts at a line start (blocks and sections are cut at line breaks)."""
    marks = block.translate(_WORD_TABLE)
    return marks.count(b" x") + (1 if marks[:1] == b"x" else 0)


def _parse_number(text: str) -> float | None:
    found = _NUMBER.search(text)
    if not found:
        return None
    try:
        return float(found.group(0).replace(",", ""))
    except ValueError:
        return None


def check_content(
    spec: Spec,
    blocks: Iterable[bytes],
    values: dict[str, float] | None = None,
    where: Where = NOWHERE,
) -> tuple[list[Cause], int, int]:
    """Checks c–f over the content, streamed once. Returns (causes, words, bytes seen); each
    numeric check's value found goes into `values` by label (the metrics history records it).
    `where` says which file it is and how to locate a hit in it, for the causes' evidence."""
    words = 0
    seen = 0
    required = {p: compile_pattern(p) for p in spec.required_patterns}
    missing = dict(required)
    forbidden = [(p, compile_pattern(p)) for p in spec.forbidden_patterns]
    hits: dict[str, bytes] = {}
    numeric: dict[str, bytes | None] = {c.label: None for c in spec.numeric_checks}
    numeric_rx = {c.label: compile_pattern(c.pattern) for c in spec.numeric_checks}
    # a required heading matches at any level, like a section: `## Summary` is `### summary`
    wanted = {h: Want(key=heading_key(h.lstrip("#"))) for h in spec.required_headings}
    for block in blocks:
        seen += len(block)
        words += count_words(block)
        if wanted:
            for _, _, title, line in headings(block):
                for heading, title_wanted in list(wanted.items()):
                    if starts_section(title, line, title_wanted):
                        del wanted[heading]
        for source, rx in list(missing.items()):
            if rx.search(block):
                del missing[source]
        for source, rx in forbidden:
            if source not in hits and (m := rx.search(block)):
                # what was found: the first group when the pattern has one (a contract's
                # placeholder pattern frames `${var}` with the characters around it)
                groups = m.groups()
                found = groups[0] if groups and groups[0] is not None else m.group(0)
                hits[source] = found[:80]
        for label, rx in numeric_rx.items():
            if numeric[label] is None and (m := rx.search(block)):
                groups = m.groups()
                numeric[label] = groups[0] if groups and groups[0] is not None else m.group(0)

    causes: list[Cause] = []
    if words < spec.min_words:
        causes.append(findings.word_count(words, spec.min_words, where))
    causes += [findings.missing_pattern(s, where) for s in spec.required_patterns if s in missing]
    causes += [findings.missing_heading(h, where) for h in spec.required_headings if h in wanted]
    for source, _rx in forbidden:
        if source in hits:
            found = hits[source].decode("utf-8", errors="replace")
            causes.append(findings.forbidden(source, found, where))
    for check in spec.numeric_checks:
        raw = numeric[check.label]
        if raw is None:
            if not check.skip_if_not_found:
                causes.append(
                    Cause(
                        Status.WARN,
                        f"numeric_missing:{check.label}",
                        f"{check.label}: pattern `{check.pattern}` not found",
                    )
                )
            continue
        text = raw.decode("utf-8", errors="replace")
        value = _parse_number(text)
        if value is not None and values is not None:
            values[check.label] = value
        low = check.min if check.min is not None else float("-inf")
        high = check.max if check.max is not None else float("inf")
        if value is None:
            causes.append(
                Cause(
                    Status.FAIL,
                    f"numeric_oob:{check.label}",
                    f"{check.label}: {text!r} is not a number",
                )
            )
        elif not low <= value <= high:
            causes.append(
                Cause(
                    Status.FAIL,
                    f"numeric_oob:{check.label}",
                    f"{check.label} = {_num(value)}, expected {_bounds(check.min, check.max)}",
                )
            )
    return causes, words, seen


def _num(value: float) -> str:
    """1,234 or 1,234.5: how an operator writes numbers, never 5e+06."""
    if value == int(value) and abs(value) < 1e15:
        return f"{int(value):,}"
    return f"{value:,.6f}".rstrip("0").rstrip(".")


def _bounds(low: float | None, high: float | None) -> str:
    if low is not None and high is not None:
        return f"{_num(low)}–{_num(high)}"
    return f"≥ {_num(low)}" if low is not None else f"≤ {_num(high)}"  # type: ignore[arg-type]


def order_causes(causes: list[Cause]) -> tuple[Cause, ...]:
    """Worst status first; checks' own order kept within a status."""
    return tuple(sorted(causes, key=lambda c: c.status.rank))

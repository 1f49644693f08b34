"""Checks a–g of SPEC §4 for one skill: latest output, empty/stale, words, patterns, numbers."""

from __future__ import annotations

import bisect
import dataclasses
import functools
import itertools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from aeon_evals import cadence
from aeon_evals.clock import parse_stamp
from aeon_evals.daylog import SECTION
from aeon_evals.errors import PathOutsideRoot
from aeon_evals.model import (
    Cause,
    CronState,
    Mute,
    OutputFile,
    Registration,
    SkillResult,
    Spec,
    Status,
)
from aeon_evals.outputs import Body, OutputError, Outputs, name_date
from aeon_evals.patterns import PatternError, compile_pattern
from aeon_evals.problems import Problem
from aeon_evals.state import Health

QUALITY_FAIL = 2.5
STALE_AFTER = 2  # expected cadences without a new output before a skill is STALE
STALE_FAIL_AFTER = 3.0  # … and before STALE counts as failing (per spec: `stale_fail_after`)
FAILED_RUNS_FAIL = 2  # a STALE skill whose cron-state shows this many failed runs in a row fails
GRACE = timedelta(hours=2)  # `--grace`: a run scheduled this recently may still be writing
# A dispatch with no result after this long is a run that died, not one in progress (GitHub
# Actions cancels a job after 6 hours).
IN_PROGRESS_LIMIT = timedelta(hours=6)
_HEADING = re.compile(rb"(?m)^(#{1,6})[ \t]+([^\r\n]*)")
_NUMBER = re.compile(r"[-+]?\d[\d,]*(?:\.\d+)?|[-+]?\.\d+")
# `wc -w`: a word is a run of bytes that are not ASCII white space. Map white space to b" " and
# everything else to b"x", then count word starts: no per-word objects, whatever the file size.
_WORD_TABLE = bytes(0x20 if b in b" \t\n\v\f\r" else 0x78 for b in range(256))


def count_words(block: bytes) -> int:
    """Words in a block that starts at a line start (blocks and sections are cut at line breaks)."""
    marks = block.translate(_WORD_TABLE)
    return marks.count(b" x") + (1 if marks[:1] == b"x" else 0)


@dataclass(frozen=True)
class Context:
    """What the checks know about a skill besides its spec."""

    registration: Registration | None
    cron: CronState | None
    health: Health | None
    now: datetime
    today: date
    grace: timedelta = GRACE


# --- pure content checks -------------------------------------------------------------------


_SEPARATORS = re.compile(r"[-_\s]+")


def heading_key(title: str) -> str:
    """A heading's title as headings are compared: lower-cased, each run of `-`, `_` and white
    space one space (`Token Pick`, `token-pick` and `token_pick` are one heading)."""
    return _SEPARATORS.sub(" ", title.lower()).strip()


@functools.lru_cache(maxsize=4096)  # a thousand specs name a few hundred headings
def _title_rx(key: str) -> re.Pattern[str]:
    """Matches a lower-cased title that starts with the words of `key`, whatever separates them."""
    return re.compile("[-_\\s]+".join(re.escape(w) for w in key.split(" ")) if key else "")


def _section_matcher(section: str) -> tuple[int | None, object]:
    stripped = section.strip()
    if stripped.startswith("#"):
        level = len(stripped) - len(stripped.lstrip("#"))
        return level, heading_key(stripped[level:])
    return None, compile_pattern(stripped)


# (start offset, level, title lower-cased, whole heading line)
Heading = tuple[int, int, str, bytes]


def headings(block: bytes) -> list[Heading]:
    """Every markdown heading of a block, found once (a shared log is read by many specs)."""
    return [
        (
            m.start(),
            len(m.group(1)),
            m.group(2).decode("utf-8", errors="replace").strip().lower(),
            block[m.start() : m.end()],
        )
        for m in _HEADING.finditer(block)
    ]


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

    def spans(self, want_level: int | None, want: object) -> list[tuple[int, int]]:
        """(start, end) of each section `want` heads, in order, as extract_sections walks them."""
        if want_level is None:  # a pattern: every heading line must be tried
            hits = [
                i
                for i, (_, level, title, line) in enumerate(self.items)
                if _starts_section(level, title, line, want_level, want)
            ]
        else:  # titles that start with `want` are one run of the sorted list
            assert isinstance(want, str)
            hits = []
            for k in range(bisect.bisect_left(self.titles, want), len(self.titles)):
                key, i = self.by_title[k]
                if not key.startswith(want):
                    break
                _, level, title, line = self.items[i]
                if _starts_section(level, title, line, want_level, want):
                    hits.append(i)
            hits.sort()
        count = len(self.items)
        found = []
        for k, i in enumerate(hits):
            # a section ends at the next heading of its level or higher, or at the next match
            stop = min(self.next_up[i], hits[k + 1] if k + 1 < len(hits) else count)
            found.append((self.items[i][0], self.items[stop][0] if stop < count else self.size))
        return found


def _starts_section(
    level: int, title: str, line: bytes, want_level: int | None, want: object
) -> bool:
    if want_level is None:
        return want.search(line) is not None  # type: ignore[attr-defined]
    # Real logs mix `##` and `###`, `Token Pick` and `token-pick` for the same skill: the words of
    # the title decide, not the level, the case or the separators. What follows them must not
    # continue the name (`### token-alerts-v2` is not `### token-alert`).
    assert isinstance(want, str)
    found = _title_rx(want).match(title)
    if found is None:
        return False
    rest = title[found.end() :]
    return not rest or not (rest[0].isalnum() or rest[0] in "-_")


def extract_sections(
    blocks: Iterable[bytes], section: str, *, keep: bool = True, index: HeadingIndex | None = None
) -> Iterator[bytes]:
    """Only the lines of the sections headed by `section` (a heading like `### token-alert`, matched
    by its title at any heading level, case-insensitively and with `-`, `_` and space alike, or a
    pattern matched against heading lines), each from its heading to the next heading of the
    same or a higher level. With `keep=False`, everything except those sections. `index` is the
    HeadingIndex of the one block, when the caller already has it."""
    want_level, want = _section_matcher(section)
    if index is not None:
        for block in blocks:
            pos = 0
            for start, end in index.spans(want_level, want):
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
            if _starts_section(level, title, line, want_level, want):
                if (inside is not None and keep) or (inside is None and not keep):
                    yield block[pos:start]
                inside, pos = level, start
            elif inside is not None and level <= inside:
                if keep:
                    yield block[pos:start]
                inside, pos = None, start
        if (inside is not None) == keep:
            yield block[pos:]


def _parse_number(text: str) -> float | None:
    found = _NUMBER.search(text)
    if not found:
        return None
    try:
        return float(found.group(0).replace(",", ""))
    except ValueError:
        return None


def check_content(
    spec: Spec, blocks: Iterable[bytes], values: dict[str, float] | None = None
) -> tuple[list[Cause], int, int]:
    """Checks c–f over the content, streamed once. Returns (causes, words, bytes seen); each
    numeric check's value found goes into `values` by label (the metrics history records it)."""
    words = 0
    seen = 0
    required = {p: compile_pattern(p) for p in spec.required_patterns}
    missing = dict(required)
    forbidden = [(p, compile_pattern(p)) for p in spec.forbidden_patterns]
    hits: dict[str, bytes] = {}
    numeric: dict[str, bytes | None] = {c.label: None for c in spec.numeric_checks}
    numeric_rx = {c.label: compile_pattern(c.pattern) for c in spec.numeric_checks}
    # a required heading matches at any level, like a section: `## Summary` is `### summary`
    wanted = {h: heading_key(h.lstrip("#")) for h in spec.required_headings}
    for block in blocks:
        seen += len(block)
        words += count_words(block)
        if wanted:
            for _, level, title, line in headings(block):
                for heading, key in list(wanted.items()):
                    if _starts_section(level, title, line, level, key):
                        del wanted[heading]
        for source, rx in list(missing.items()):
            if rx.search(block):
                del missing[source]
        for source, rx in forbidden:
            if source not in hits and (m := rx.search(block)):
                hits[source] = m.group(0)[:80]
        for label, rx in numeric_rx.items():
            if numeric[label] is None and (m := rx.search(block)):
                groups = m.groups()
                numeric[label] = groups[0] if groups and groups[0] is not None else m.group(0)

    causes: list[Cause] = []
    if words < spec.min_words:
        causes.append(
            Cause(Status.FAIL, "word_count", f"{words:,} words, minimum {spec.min_words:,}")
        )
    for source in spec.required_patterns:
        if source in missing:
            causes.append(
                Cause(
                    Status.FAIL,
                    f"missing_pattern:{source}",
                    f"required pattern `{source}` not found",
                )
            )
    for heading in spec.required_headings:
        if heading in wanted:
            causes.append(
                Cause(
                    Status.FAIL,
                    f"missing_heading:{heading}",
                    f"required heading `{heading}` not found (at any level)",
                )
            )
    for source, _rx in forbidden:
        if source in hits:
            found = hits[source].decode("utf-8", errors="replace")
            causes.append(
                Cause(
                    Status.FAIL,
                    f"forbidden_pattern:{source}",
                    f"forbidden pattern `{source}` found: {found!r}",
                )
            )
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


# --- one skill ------------------------------------------------------------------------------


def error_result(skill: str, problems: tuple[Problem, ...], ctx: Context) -> SkillResult:
    """A spec that failed validation: the skill is reported as ERROR, not as failing."""
    causes = tuple(
        Cause(Status.ERROR, f"spec_error:{p.where.split('.', 2)[-1]}", p.message) for p in problems
    )
    return _finish(skill, Status.ERROR, causes, ctx)


def _finish(
    skill: str, status: Status, causes: tuple[Cause, ...], ctx: Context, **extra: object
) -> SkillResult:
    reg = ctx.registration
    return SkillResult(
        skill=skill,
        status=status,
        causes=causes,
        enabled=bool(reg and reg.enabled),
        registered=reg is not None,
        **extra,  # type: ignore[arg-type]
    )


def _pick_log(
    spec: Spec, files: tuple[str, ...], outputs: Outputs, ctx: Context
) -> tuple[str, str | None]:
    """The file to check: the newest, except that a shared-log spec looks back across the logs
    written since the skill's previous expected run for the newest one holding its entry."""
    if not spec.output_pattern.startswith("memory/logs/"):
        return files[-1], None
    # A log holding nothing but the section this tool wrote (its first run today) is no output.
    cut = len(files)
    while cut > 1 and _only_own_section(outputs, files[cut - 1]):
        cut -= 1
    others = list(files[:cut])
    newest = others[-1]
    schedule = ctx.registration.schedule if ctx.registration else None
    if not schedule:
        return newest, None
    files = tuple(others)
    fired = cadence.previous_fire(schedule, ctx.now)
    if fired is None:
        return newest, None
    rel = _newest_entry(spec, files, outputs, fired.date())
    if rel is None or rel == newest:
        return newest, None
    return (
        rel,
        f"used {rel}: the newest log has no entry yet "
        f"(last expected run {fired:%Y-%m-%d %H:%M} UTC)",
    )


def _newest_entry(spec: Spec, files: tuple[str, ...], outputs: Outputs, since: date) -> str | None:
    """The newest log dated `since` or later that holds the skill's entry, if any."""
    candidates = [f for f in files if (d := name_date(f)) is not None and d >= since]
    for rel in reversed(candidates):
        try:
            body = outputs.read(rel)
        except OutputError:
            continue
        if _holds_entry(spec, body, outputs):
            return rel
    return None


ON_DEMAND = frozenset({"workflow_dispatch", "reactive"})


def on_demand(spec: Spec, ctx: Context) -> bool:
    """A skill that runs only when dispatched (`workflow_dispatch`, `reactive`) and whose spec sets
    no `expected_cadence` (an operator who sets one expects a run that often)."""
    schedule = ctx.registration.schedule if ctx.registration else None
    return (
        schedule is not None
        and schedule.strip() in ON_DEMAND
        and spec.expected_cadence_days is None
    )


@dataclass(frozen=True)
class _Run:
    """What shows that an on-demand skill ran inside the lookback."""

    dispatched: datetime | None  # the newest dispatch, success or failure cron-state records
    output: str | None  # the newest output dated inside the lookback (a log holding its entry)
    since: datetime


def _on_demand_run(spec: Spec, files: tuple[str, ...], outputs: Outputs, ctx: Context) -> _Run:
    """An on-demand skill's evidence of a run within twice its cadence (14 days unless set)."""
    days, _ = cadence.expected_cadence_days(None, None)
    since = ctx.now - timedelta(days=STALE_AFTER * days)
    cron = ctx.cron
    stamps = [
        t
        for t in (
            parse_stamp(cron.last_dispatch if cron else None),
            parse_stamp(cron.last_success if cron else None),
            parse_stamp(cron.last_failed if cron else None),
        )
        if t is not None and t >= since
    ]
    dispatched = max(stamps, default=None)
    output: str | None = None
    if spec.output_pattern.startswith("memory/logs/"):
        output = _newest_entry(spec, files, outputs, since.date())
    else:
        for rel in reversed(files):
            age, source = outputs.age(rel, ctx.now)
            if source in ("filename", "git") and age is not None and age <= STALE_AFTER * days:
                output = rel
                break
    return _Run(dispatched, output, since)


def _by_date(files: tuple[str, ...], outputs: Outputs, pattern: str) -> tuple[str, ...]:
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
                extract_sections([body.data], SECTION, keep=False, index=_index(outputs, body))
            )
            own = all(not line.strip() or line.startswith(b"# ") for line in rest.splitlines())
        outputs.memo[key] = own
    return bool(outputs.memo[key])


def _index(outputs: Outputs, body: Body) -> HeadingIndex | None:
    """The headings of a file read whole, indexed once per run and shared by every spec."""
    if body.data is None:
        return None
    key = ("headings", body.path)
    if key not in outputs.memo:
        outputs.memo[key] = HeadingIndex(body.data)
    index: HeadingIndex = outputs.memo[key]  # type: ignore[assignment]
    return index


def _content(spec: Spec, body: Body, outputs: Outputs) -> Iterable[bytes]:
    """The bytes a spec is checked against: its section(s) when it names one; on a shared log,
    everything but the section this tool writes there itself."""
    blocks: Iterable[bytes] = body.blocks(outputs.root)
    if spec.section:
        return extract_sections(blocks, spec.section, index=_index(outputs, body))
    if spec.output_pattern.startswith("memory/logs/") and spec.skill != "skill-evals":
        return extract_sections(blocks, SECTION, keep=False, index=_index(outputs, body))
    return blocks


def _holds_entry(spec: Spec, body: Body, outputs: Outputs) -> bool:
    if spec.section:
        return any(chunk.strip() for chunk in _content(spec, body, outputs))
    rxs = [compile_pattern(p) for p in spec.required_patterns]
    if not rxs:
        return True
    return all(any(rx.search(b) for b in _content(spec, body, outputs)) for rx in rxs)


def run_due(
    schedule: str | None, cron: CronState | None, now: datetime, grace: timedelta
) -> tuple[datetime, str] | None:
    """When the skill's run is in progress (cron-state shows a dispatch after its last result,
    within IN_PROGRESS_LIMIT) or just due (its last scheduled fire is within `grace`): the moment
    to judge it at instead (just before that run started) and the row's note. Else None."""
    if cron is not None and (dispatched := parse_stamp(cron.last_dispatch)) is not None:
        results = [t for t in (parse_stamp(cron.last_success), parse_stamp(cron.last_failed)) if t]
        if (
            dispatched <= now
            and now - dispatched <= IN_PROGRESS_LIMIT
            and all(dispatched > t for t in results)
        ):
            # a scheduled run is dispatched a little after its fire: judge as before the fire
            fired = cadence.previous_fire(schedule, dispatched) if schedule else None
            return min(dispatched, fired or dispatched) - timedelta(seconds=1), (
                f"run due/in progress: dispatched {dispatched:%Y-%m-%d %H:%M} UTC with no result "
                "in cron-state yet; the previous output is judged"
            )
    if schedule and grace > timedelta(0):
        fired = cadence.previous_fire(schedule, now)
        if fired is not None and now - fired <= grace:
            return fired - timedelta(seconds=1), (
                f"run due/in progress: scheduled {fired:%Y-%m-%d %H:%M} UTC, within the "
                f"{_hours(grace)} grace; the previous output is judged"
            )
    return None


def _hours(value: timedelta) -> str:
    minutes = value.total_seconds() / 60
    return f"{minutes / 60:g} h" if minutes >= 60 else f"{minutes:g} min"


def evaluate(spec: Spec, outputs: Outputs, ctx: Context) -> SkillResult:
    """Run checks a–g for one skill (reads through the shared, caching `outputs`).

    A skill that would be failing or STALE while its run is in progress or just due is judged as
    it stood just before that run (the previous output) when that was better, and the row says
    so."""
    result = _evaluate(spec, outputs, ctx)
    if not (result.status.failing or result.status is Status.STALE):
        return result
    due = run_due(
        ctx.registration.schedule if ctx.registration else None, ctx.cron, ctx.now, ctx.grace
    )
    if due is None:
        return result
    at, note = due
    earlier = _evaluate(spec, outputs, dataclasses.replace(ctx, now=at))
    if earlier.status.rank <= result.status.rank:  # as bad before the run: nothing to wait for
        return result
    return dataclasses.replace(earlier, notes=(note, *earlier.notes))


def _evaluate(spec: Spec, outputs: Outputs, ctx: Context) -> SkillResult:
    notes: list[str] = []
    muted = spec.mute if spec.mute is not None and spec.mute.until >= ctx.today else None
    if spec.mute is not None and muted is None:
        notes.append(f"mute expired on {spec.mute.until.isoformat()}")
    try:
        match = outputs.matches(spec.output_pattern)
    except PathOutsideRoot as exc:
        return _finish(
            spec.skill,
            Status.ERROR,
            (Cause(Status.ERROR, "path_outside_root", exc.message),),
            ctx,
            muted=muted,
        )
    except (OSError, ValueError) as exc:
        return _finish(
            spec.skill,
            Status.ERROR,
            (Cause(Status.ERROR, "bad_output_pattern", str(exc)),),
            ctx,
            muted=muted,
        )

    # a file dated after the run (a clock gone wrong, a typo) is not the newest
    files = match.files
    future = [f for f in files if (d := name_date(f)) is not None and d > ctx.now.date()]
    if future:
        files = tuple(f for f in files if f not in future)
        what = future[-1] if len(future) == 1 else f"{len(future)} files, the newest {future[-1]}"
        notes.append(f"ignored {what}: dated after the run ({ctx.now:%Y-%m-%d})")
        for rel in future:
            outputs.warn(f"{rel}: dated after the run ({ctx.now:%Y-%m-%d}); ignored")
    files = _by_date(files, outputs, spec.output_pattern)
    run: _Run | None = None
    if on_demand(spec, ctx):
        run = _on_demand_run(spec, files, outputs, ctx)
        if run.dispatched is None and run.output is None:
            return _not_run(spec, files, run, ctx, muted, notes)

    # a. latest output
    if not files:
        detail = f"no file matches {spec.output_pattern}"
        skipped = [*match.skipped, *(f"{f} is dated after the run" for f in future[-3:])]
        if skipped:
            detail += " (" + "; ".join(skipped) + ")"
        cron = ctx.cron
        if cron and cron.last_status == "success":
            notes.append(
                f"cron-state says the last run succeeded ({cron.last_success or 'time unknown'}) "
                "but there is no output"
            )
        causes: tuple[Cause, ...] = (Cause(Status.NO_OUTPUT, "no_file_match", detail),)
        return _finish(
            spec.skill,
            Status.NO_OUTPUT,
            causes,
            ctx,
            muted=muted,
            notes=tuple(notes),
            **_quality(spec, ctx)[1],
        )

    if run is not None and run.output is not None:
        rel, lookback_note = run.output, None
        if spec.output_pattern.startswith("memory/logs/") and rel != files[-1]:
            lookback_note = f"used {rel}: the newest log with an entry of this on-demand skill"
    else:
        rel, lookback_note = _pick_log(spec, files, outputs, ctx)
    if lookback_note:
        notes.append(lookback_note)
    try:
        body = outputs.read(rel)
    except OutputError as exc:
        status = Status.NO_OUTPUT if exc.code == "no_file_match" else Status.ERROR
        return _finish(
            spec.skill,
            status,
            (Cause(status, exc.code, exc.detail),),
            ctx,
            muted=muted,
            notes=tuple(notes),
        )
    age, age_source = outputs.age(rel, ctx.now)
    output = OutputFile(rel, body.size, body.sha256, age, age_source)
    found: list[Cause] = []
    words: int | None = None
    values: dict[str, float] = {}

    # b. empty / stale
    cadence_days, cadence_how = cadence.expected_cadence_days(
        ctx.registration.schedule if ctx.registration else None, spec.expected_cadence_days
    )
    if body.size == 0:
        found.append(Cause(Status.FAIL, "empty_file", f"{rel} is empty (0 bytes)"))
    elif body.binary:
        found.append(
            Cause(Status.FAIL, "binary_file", f"{rel} holds binary data (NUL bytes), not text")
        )
    if age is not None and age > STALE_AFTER * cadence_days:
        found.append(_stale(spec, ctx, rel, age, cadence_days, cadence_how))

    # c–f. content
    if body.size and not body.binary:
        blocks = _content(spec, body, outputs)
        try:
            content_causes, words, seen = check_content(spec, blocks, values)
        except PatternError as exc:  # validated at load time; kept for safety
            content_causes, words, seen = [Cause(Status.ERROR, "bad_pattern", str(exc))], 0, 1
        if spec.section and seen == 0:
            found.append(
                Cause(
                    Status.FAIL, "missing_section", f"no section headed {spec.section!r} in {rel}"
                )
            )
            content_causes = [c for c in content_causes if c.code != "word_count"]
        found.extend(content_causes)

    # g. quality
    quality_causes, quality_extra = _quality(spec, ctx)
    found.extend(quality_causes)
    if ctx.cron and ctx.cron.last_status == "failed" and not any(c.status.failing for c in found):
        err = f" ({ctx.cron.last_error[:120]})" if ctx.cron.last_error else ""
        notes.append(
            f"cron-state says the last run failed ({ctx.cron.last_failed or 'time unknown'}){err}"
        )
    causes = order_causes(found)
    status = causes[0].status if causes else Status.PASS
    return _finish(
        spec.skill,
        status,
        causes,
        ctx,
        words=words,
        output=output,
        muted=muted,
        notes=tuple(notes),
        numbers=tuple(sorted(values.items())),
        **quality_extra,
    )


def _stale(spec: Spec, ctx: Context, rel: str, age: float, cadence_days: float, how: str) -> Cause:
    """STALE, or FAIL when the output is older than `stale_fail_after` expected cadences or
    cron-state shows the runs failing: a skill gone quiet (an expired key) must alert."""
    detail = (
        f"{rel} is {age:.1f} days old; expected every {_days(cadence_days)} ({how}), "
        f"stale after {_days(STALE_AFTER * cadence_days)}"
    )
    limit = spec.stale_fail_after if spec.stale_fail_after is not None else STALE_FAIL_AFTER
    if age > limit * cadence_days:
        return Cause(
            Status.FAIL,
            "stale_file",
            f"{detail}, failing after {_days(limit * cadence_days)} ({limit:g} cadences)",
        )
    failures = ctx.cron.consecutive_failures if ctx.cron is not None else None
    if failures is not None and failures >= FAILED_RUNS_FAIL:
        assert ctx.cron is not None
        err = f": {ctx.cron.last_error[:120]}" if ctx.cron.last_error else ""
        return Cause(
            Status.FAIL,
            "stale_file",
            f"{detail}, and cron-state shows {failures} failed runs in a row{err}",
        )
    return Cause(Status.STALE, "stale_file", detail)


def _not_run(
    spec: Spec,
    files: tuple[str, ...],
    run: _Run,
    ctx: Context,
    muted: Mute | None,
    notes: list[str],
) -> SkillResult:
    """An on-demand skill with no run inside the lookback: listed, judged on nothing."""
    schedule = ctx.registration.schedule if ctx.registration else "on demand"
    last = f"; last output {files[-1]}" if files else ""
    detail = (
        f"{schedule}: no dispatch in cron-state and no dated output since "
        f"{run.since:%Y-%m-%d}{last}"
    )
    return _finish(
        spec.skill,
        Status.NOT_RUN,
        (Cause(Status.NOT_RUN, "not_run", detail),),
        ctx,
        muted=muted,
        notes=("on demand, not run", *notes),
    )


def _quality(spec: Spec, ctx: Context) -> tuple[list[Cause], dict[str, object]]:
    health = ctx.health
    if health is None or health.avg_score is None:
        return [], {}
    score = health.avg_score
    extra: dict[str, object] = {
        "quality": f"avg={score:.2f}".rstrip("0").rstrip("."),
        "quality_score": score,
    }
    if score < QUALITY_FAIL:
        return [
            Cause(
                Status.QUALITY_DEGRADED,
                f"quality_score:{score:g}",
                f"skill-health avg_score {score:g} < {QUALITY_FAIL}",
            )
        ], extra
    return [], extra


def _days(value: float) -> str:
    if value >= 1:
        return f"{value:g} day{'s' if value != 1 else ''}"
    return f"{value * 24:g} hours"


def newest_output_age(spec: Spec, outputs: Outputs, now: datetime) -> float | None:
    """Age in days of the newest file `spec` would check (for a shared-log section, the newest of
    the last 14 logs that holds it), None when there is none: how a contract with several
    outputs picks the one the skill wrote last."""
    try:
        files = _by_date(outputs.matches(spec.output_pattern).files, outputs, spec.output_pattern)
    except (PathOutsideRoot, OSError, ValueError):
        return None
    if spec.section:
        for rel in reversed(files[-14:]):
            try:
                body = outputs.read(rel)
            except OutputError:
                continue
            if _holds_entry(spec, body, outputs):
                return outputs.age(rel, now)[0]
        return None
    return outputs.age(files[-1], now)[0] if files else None

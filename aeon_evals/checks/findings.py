"""What the checks found, in the words an operator reads: each cause's expected vs actual, with
its evidence (the file and line of the first hit, how many, whether they lie inside the skill's
own section of a shared log, the SKILL.md line that asks for what broke, the day a quiet skill
last wrote). Every surface (article, issue, `--json`, job summary, notification) shows these."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date

from aeon_evals.checks.latest import checked_spans, own_spans
from aeon_evals.load.outputs import Body, Outputs
from aeon_evals.model import Cause, CronState, Evidence, Spec, Status
from aeon_evals.text.controls import one_line
from aeon_evals.text.mdspan import code_span
from aeon_evals.text.patterns import compile_pattern

QUALITY_FAIL = 2.5
STALE_AFTER = 2  # expected cadences without a new output before a skill is STALE
STALE_FAIL_AFTER = 3.0  # … and before STALE counts as failing (per spec: `stale_fail_after`)
FAILED_RUNS_FAIL = 2  # a STALE skill whose cron-state shows this many failed runs in a row fails
MAX_HITS = 10_000  # hits counted in one output; past it, "10,000+"


@dataclass(frozen=True)
class Where:
    """What the content checks know of the output they read, to say where a finding is: its
    path, the SKILL.md lines of an inferred contract's elements (`heading:## Summary` → 41), and
    how to find a forbidden pattern's hits in it."""

    path: str | None = None
    asks: tuple[tuple[str, int], ...] = ()
    locate: Callable[[str], Evidence] | None = field(default=None, compare=False)

    def asked(self, element: str) -> str | None:
        """`SKILL.md:41` when the contract's SKILL.md asks for `element` there, else None."""
        for name, line in self.asks:
            if name == element:
                return f"SKILL.md:{line}"
        return None


def asking(asked: str | None, default: str = "") -> str:
    """` (SKILL.md:41 asks for it)`, or `default` when no SKILL.md line asks for it."""
    return f" ({asked} asks for it)" if asked else default


def word_count(words: int, minimum: int, where: Where) -> Cause:
    asked = where.asked("min_words")
    return Cause(
        Status.FAIL,
        "word_count",
        f"{words:,} words, minimum {minimum:,}{asking(asked)}",
        Evidence(path=where.path, asked_at=asked),
    )


def missing_pattern(source: str, where: Where) -> Cause:
    found_in = f" in {where.path}" if where.path else ""
    return Cause(
        Status.FAIL,
        f"missing_pattern:{source}",
        f"required pattern {code_span(one_line(source))} not found{found_in}",
        Evidence(path=where.path),
    )


def missing_heading(heading: str, where: Where) -> Cause:
    asked = where.asked(f"heading:{heading}")
    return Cause(
        Status.FAIL,
        f"missing_heading:{heading}",
        f"{code_span(one_line(heading))} missing{asking(asked, ' (any heading level)')}",
        Evidence(path=where.path, asked_at=asked),
    )


def missing_section(section: str, where: Where) -> Cause:
    asked = where.asked("section")
    return Cause(
        Status.FAIL,
        "missing_section",
        f"{code_span(one_line(section))} section missing from {where.path}{asking(asked)}",
        Evidence(path=where.path, asked_at=asked),
    )


def forbidden(source: str, found: str, where: Where) -> Cause:
    """A forbidden pattern's hit: `forbidden `${var}` at memory/logs/2026-05-03.md:652 (3 hits,
    outside `### heartbeat`)`."""
    asked = where.asked(f"forbidden:{source}")
    ev = where.locate(source) if where.locate is not None else Evidence(path=where.path)
    ev = Evidence(ev.path, ev.line, ev.hits, ev.section, ev.inside, asked)
    text = f"forbidden {code_span(one_line(found))}"
    if ev.line is not None:
        text += f" at {ev.path}:{ev.line}"
    elif ev.path:
        text += f" in {ev.path}"
    parts = []
    if ev.hits:
        more = "+" if ev.hits >= MAX_HITS else ""
        parts.append(f"{ev.hits:,}{more} hit{'s' if ev.hits != 1 else ''}")
        parts += _inside(ev)
    if asked:
        parts.append(f"{asked} forbids it")
    if parts:
        text += f" ({', '.join(parts)})"
    return Cause(Status.FAIL, f"forbidden_pattern:{source}", text, ev)


def _inside(ev: Evidence) -> list[str]:
    """Whether the hits lie inside the skill's own section, in words."""
    if ev.section is None or ev.inside is None or not ev.hits:
        return []
    section = code_span(one_line(ev.section))
    if ev.inside == 0:
        return [f"outside {section}"]
    if ev.inside >= ev.hits:
        return [f"inside {section}"]
    return [f"{ev.inside:,} inside {section}", f"{ev.hits - ev.inside:,} outside"]


def own_section(spec: Spec) -> str | None:
    """The skill's own section of its output: the spec's, or on a shared daily log read whole,
    `### <skill>` (the heading a log entry has, and the section the Action Queue's patch adds)."""
    if spec.section:
        return spec.section
    return f"### {spec.skill}" if spec.output_pattern.startswith("memory/logs/") else None


def locate(spec: Spec, body: Body, outputs: Outputs, source: str) -> Evidence:
    """Where `source`'s hits are in the content `spec` checks of `body`: the first one's line, how
    many (at most MAX_HITS) and how many lie inside the skill's own section. Only the path for a
    streamed file (too large to index)."""
    own = own_section(spec)
    checked = checked_spans(spec, body, outputs)
    data = body.data
    if checked is None or data is None:
        return Evidence(path=body.path, section=own)
    # with a spec's section only that section is checked: every hit is inside it
    mine = own_spans(body, outputs, own) if own and not spec.section else None
    rx = compile_pattern(source)
    first: int | None = None
    hits = inside = 0
    for start, end in checked:
        for m in rx.finditer(data[start:end]):
            at = start + m.start()
            first = at if first is None else first
            hits += 1
            inside += mine is None or any(a <= at < b for a, b in mine)
            if hits >= MAX_HITS:
                break
        if hits >= MAX_HITS:
            break
    line = None if first is None else data.count(b"\n", 0, first) + 1
    return Evidence(
        path=body.path, line=line, hits=hits, section=own, inside=inside if own else None
    )


def cadence_words(days: float) -> str:
    """`daily`, `weekly`, `hourly`, `every 3 days`, `every 6 hours`."""
    named = {1.0: "daily", 7.0: "weekly", 1 / 24: "hourly"}
    for value, name in named.items():
        if abs(days - value) < 1e-9:
            return name
    if days >= 1:
        return f"every {days:g} days"
    hours = days * 24
    return f"every {hours:g} hours" if hours >= 1 else f"every {hours * 60:g} minutes"


def _how(how: str) -> str:
    """Where the cadence comes from, in words."""
    if how.startswith("cron "):
        return f" (cron {code_span(how.removeprefix('cron '))})"
    if how == "expected_cadence":
        return " (`expected_cadence` in its spec)"
    return " (no schedule: the 14-day fallback)"


def days(value: float) -> str:
    if value >= 1:
        return f"{value:g} day{'s' if value != 1 else ''}"
    return f"{value * 24:g} hours"


def failing_runs(cron: CronState | None) -> int | None:
    """cron-state's failed runs in a row when there are FAILED_RUNS_FAIL or more (the scheduler
    runs the skill and each run fails), else None."""
    failures = cron.consecutive_failures if cron is not None else None
    return failures if failures is not None and failures >= FAILED_RUNS_FAIL else None


def stale(
    spec: Spec,
    cron: CronState | None,
    rel: str,
    age: float,
    cadence: tuple[float, str],
    last_output: date,
) -> Cause:
    """STALE, or FAIL when the output is older than `stale_fail_after` expected cadences or
    cron-state shows the runs failing: a skill gone quiet (an expired key) must alert. The
    evidence carries the day of the last output: a quiet skill fails since then, not today."""
    every, how = cadence
    expected = f"output {age:.1f} days old, expected {cadence_words(every)}{_how(how)}"
    bounds = f"stale after {days(STALE_AFTER * every)}"
    limit = spec.stale_fail_after if spec.stale_fail_after is not None else STALE_FAIL_AFTER
    # the scheduler runs it and each run fails (an expired key): said, whatever the age
    failures = failing_runs(cron)
    said = ""
    if cron is not None and failures is not None:
        err = f": {_last_error(cron.last_error)}" if cron.last_error else ""
        said = f"cron-state shows {failures} failed runs in a row{err}"
    evidence = Evidence(path=rel, last_output=last_output, failed_runs=failures)
    if age > limit * every:
        over = f"{expected}; {bounds}, failing after {days(limit * every)} ({limit:g} cadences)"
        return Cause(Status.FAIL, "stale_file", f"{over}; {said}" if said else over, evidence)
    if said:
        return Cause(Status.FAIL, "stale_file", f"{expected}; {said}", evidence)
    return Cause(
        Status.STALE,
        "stale_file",
        f"{expected}; {bounds}, failing after {days(limit * every)}",
        evidence,
    )


def quality(score: float) -> Cause | None:
    """Check g's cause: skill-health's average score below the bar, else None."""
    if score >= QUALITY_FAIL:
        return None
    return Cause(
        Status.QUALITY_DEGRADED,
        f"quality_score:{score:g}",
        f"quality {score:g} (skill-health avg_score), minimum {QUALITY_FAIL}",
    )


def _last_error(text: str) -> str:
    """cron-state's last error as a row can quote it: words as written (120 characters at most),
    machine output (a fragment of the harness's JSON) as a code span of 60."""
    text = one_line(text)
    if not any(c in text for c in '{}"\\'):
        return text[:120]
    return code_span(text if len(text) <= 60 else text[:59] + "…")

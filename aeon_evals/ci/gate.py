"""CI glue (issue #9): the --fail-on decision, JUnit XML and the GitHub annotations.

Every function here is pure: it takes the run's outcome (and the few environment facts it
needs, passed in) and returns text or a number. `commands/run_cmd.py` does the writing;
`job_summary.py` composes the job summary.
"""

from __future__ import annotations

import enum
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from aeon_evals.errors import ExitCode
from aeon_evals.model import DiffLabel, SkillResult, Status, Verdict
from aeon_evals.report.diff import Row, failing_counted
from aeon_evals.run.data import RunOutcome

if TYPE_CHECKING:
    import xml.etree.ElementTree as ET

SUITE_NAME = "skill-evals"
# GitHub shows at most 10 annotations of each level per step: past that they are dropped silently,
# so the 10th becomes a "+N more" pointer to the summary.
MAX_ANNOTATIONS_PER_LEVEL = 10


class FailOn(enum.StrEnum):
    """`--fail-on`: when a completed run exits 1 instead of 0."""

    NEVER = "never"
    REGRESSED = "regressed"  # verdict REGRESSED or QUALITY_DROP
    FAILING = "failing"  # any enabled, unmuted skill is FAIL, QUALITY_DEGRADED or NO_OUTPUT


REGRESSED_VERDICTS = frozenset({Verdict.REGRESSED, Verdict.QUALITY_DROP})


def failing_skills(outcome: RunOutcome) -> list[str]:
    """Enabled, unmuted skills that are failing in today's article, sorted.

    A scoped run (`--skill`) judges the whole day's article, like its verdict does: rows kept
    from an earlier run today count too.
    """
    if outcome.article is not None:
        return list(outcome.article.numbers.failing)
    return sorted(set(failing_counted(outcome.rows)))


def fail_reason(outcome: RunOutcome, mode: FailOn) -> str | None:
    """Why `--fail-on mode` trips for this outcome, or None when it does not."""
    if mode is FailOn.REGRESSED and outcome.verdict in REGRESSED_VERDICTS:
        return f"verdict {outcome.verdict.value}"
    if mode is FailOn.FAILING:
        failing = failing_skills(outcome)
        if failing:
            shown = ", ".join(failing[:5]) + (
                f" (+{len(failing) - 5} more)" if len(failing) > 5 else ""
            )
            return f"{len(failing)} failing skill{'s' if len(failing) != 1 else ''}: {shown}"
    return None


def exit_code(outcome: RunOutcome, mode: FailOn) -> ExitCode:
    """The exit code of a completed run: 3 bootstrap, 1 --fail-on tripped, else 0 (a run with
    nothing to evaluate raises NothingEvaluated, exit 5, before there is an outcome)."""
    if outcome.verdict is Verdict.BOOTSTRAP:
        return ExitCode.BOOTSTRAP
    if fail_reason(outcome, mode) is not None:
        return ExitCode.FAILED
    return ExitCode.OK


# --- JUnit XML ---------------------------------------------------------------------------------

# XML 1.0 forbids most C0 controls even as character references; LLM-written text can hold them.
_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def _xml_text(text: str) -> str:
    return _XML_INVALID.sub("\ufffd", text)


def _result_lines(row: Row, result: SkillResult) -> list[str]:
    lines = [f"status: {result.status.value}", f"diff: {row.label}"]
    lines += [f"cause: {c.code}" + (f" — {c.detail}" if c.detail else "") for c in result.causes]
    if result.output is not None:
        lines.append(f"output: {result.output.path}")
    if result.words is not None:
        lines.append(f"words: {result.words}")
    lines.append(f"quality: {result.quality}")
    if row.issue:
        lines.append(f"issue: {row.issue}")
    if row.failing_since is not None:
        lines.append(f"failing since: {row.failing_since.since.isoformat()}")
    if row.flaky:
        lines.append("flaky: flipped between failing and passing in recent runs")
    lines += [f"note: {n}" for n in result.notes]
    return lines


def _skip_reason(result: SkillResult) -> str | None:
    if result.muted is not None:
        reason = f": {result.muted.reason}" if result.muted.reason else ""
        return (
            f"muted until {result.muted.until.isoformat()}{reason} (status {result.status.value}, "
            f"{result.root_cause})"
        )
    if result.status is Status.NOT_RUN:
        return (
            f"on demand, not run ({result.root_cause}: {result.head.detail if result.head else ''})"
        )
    if not result.registered:
        return f"not registered in aeon.yml (status {result.status.value}, {result.root_cause})"
    if not result.enabled:
        return f"disabled in aeon.yml (status {result.status.value}, {result.root_cause})"
    return None


def junit_xml(outcome: RunOutcome) -> str:
    """JUnit XML for the run: one testsuite "skill-evals", one testcase per evaluated skill.

    FAIL, NO_OUTPUT and QUALITY_DEGRADED are <failure>, ERROR (a broken spec) is <error>, muted,
    disabled and unregistered skills are <skipped>; STALE and WARN pass with a note in
    <system-out>. Rows kept from an earlier run today are not testcases: they were not
    evaluated by this invocation.
    """
    import xml.etree.ElementTree as ET  # only for --junit: not on every run's start-up

    evaluated = sorted(
        ((r, r.result) for r in outcome.rows if r.result is not None), key=lambda p: p[1].skill
    )
    counts = {"failures": 0, "errors": 0, "skipped": 0}
    cases: list[ET.Element] = []
    for row, result in evaluated:
        case = ET.Element(
            "testcase", {"name": result.skill, "classname": result.skill, "time": "0"}
        )
        skip = _skip_reason(result)
        if skip is None and row.reported_only:
            skip = (
                f"inferred contract ({result.spec_source}), report only "
                f"(status {result.status.value}, {result.root_cause})"
            )
        if skip is not None:
            counts["skipped"] += 1
            ET.SubElement(case, "skipped", {"message": _xml_text(skip)})
        elif result.status is Status.ERROR:
            counts["errors"] += 1
            error = ET.SubElement(
                case,
                "error",
                {"message": _xml_text(result.root_cause), "type": result.status.value},
            )
            error.text = _xml_text("\n".join(_result_lines(row, result)))
        elif result.status.failing:
            counts["failures"] += 1
            failure = ET.SubElement(
                case,
                "failure",
                {"message": _xml_text(result.root_cause), "type": result.status.value},
            )
            failure.text = _xml_text("\n".join(_result_lines(row, result)))
        else:  # PASS, or STALE/WARN: a pass whose note says what to look at
            out = ET.SubElement(case, "system-out")
            out.text = _xml_text("\n".join(_result_lines(row, result)))
        cases.append(case)
    totals = {"tests": str(len(cases)), **{k: str(v) for k, v in counts.items()}, "time": "0"}
    root = ET.Element("testsuites", {"name": "aeon-evals", **totals})
    suite = ET.SubElement(
        root,
        "testsuite",
        {"name": SUITE_NAME, **totals, "timestamp": f"{outcome.day.isoformat()}T00:00:00"},
    )
    props = ET.SubElement(suite, "properties")
    facts = [("verdict", outcome.verdict.value), ("date", outcome.day.isoformat())]
    if outcome.article_path:
        facts.append(("article", outcome.article_path))
    if outcome.article is not None:
        n = outcome.article.numbers
        facts.append(("coverage", f"{n.coverage.covered}/{n.coverage.enabled}"))
        facts.append(("failing", str(len(n.failing))))
        facts.append(("failing_disabled_or_muted", str(len(n.failing_apart))))
    for name, value in facts:
        ET.SubElement(props, "property", {"name": name, "value": _xml_text(value)})
    suite.extend(cases)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


# --- GitHub workflow commands (annotations) ----------------------------------------------------


def escape_data(text: str) -> str:
    """A workflow command's message, escaped as @actions/core does (`%`, CR, LF)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A workflow command's property value: the message escapes plus `:` and `,`."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def workflow_command(level: str, message: str, properties: Iterable[tuple[str, str]] = ()) -> str:
    """One `::level key=value,…::message` line, every part escaped."""
    props = ",".join(f"{key}={escape_property(value)}" for key, value in properties)
    return f"::{level}{' ' + props if props else ''}::{escape_data(message)}"


_SPEC_KEY = re.compile(r'^\s*("(?:[^"\\]|\\.)*")\s*:\s*\{')


def spec_line_numbers(evals_text: str) -> dict[str, int]:
    """1-based line of each `"<skill>": {` key in evals.json text, so an annotation lands on it."""
    lines: dict[str, int] = {}
    for number, line in enumerate(evals_text.splitlines(), 1):
        match = _SPEC_KEY.match(line)
        if match:
            try:
                key = json.loads(match.group(1))
            except ValueError:
                continue
            lines.setdefault(key, number)
    return lines


@dataclass(frozen=True)
class _Note:
    skill: str
    title: str
    message: str


def _capped(
    level: str, notes: list[_Note], spec_file: str, spec_lines: Mapping[str, int], what: str
) -> list[str]:
    out: list[str] = []
    shown = (
        notes if len(notes) <= MAX_ANNOTATIONS_PER_LEVEL else notes[: MAX_ANNOTATIONS_PER_LEVEL - 1]
    )
    for note in shown:
        props = [("file", spec_file)]
        if note.skill in spec_lines:
            props.append(("line", str(spec_lines[note.skill])))
        props.append(("title", note.title))
        out.append(workflow_command(level, note.message, props))
    if len(shown) < len(notes):
        rest = len(notes) - len(shown)
        out.append(
            workflow_command(
                level,
                f"+{rest} more {what} — see the job summary and the article",
                [("file", spec_file), ("title", f"{rest} more {what}")],
            )
        )
    return out


def annotation_lines(
    outcome: RunOutcome, *, spec_file: str, spec_lines: Mapping[str, int] | None = None
) -> list[str]:
    """`::error` lines for new failures and `::warning` lines for stale skills and broken specs.

    They point at the skill's entry in `spec_file` (evals.json, relative to the repository);
    only enabled, unmuted skills are annotated. At most 10 of each level (GitHub's per-step cap).
    """
    lines_of = spec_lines or {}
    article = outcome.article_path or "the article"
    errors: list[_Note] = []
    warnings: list[_Note] = []
    for row in sorted(
        (r for r in outcome.rows if r.result is not None and r.counts), key=lambda r: r.skill
    ):
        result = row.result
        assert result is not None
        head = result.head
        cause = (
            (f"{head.code} — {head.detail}" if head.detail else head.code)
            if head
            else result.status.value
        )
        if row.label in (DiffLabel.NEW_FAIL, DiffLabel.NEW_QUALITY_DEGRADED):
            issue = f" ({row.issue})" if row.issue else ""
            output = f"; output {result.output.path}" if result.output else ""
            errors.append(
                _Note(
                    result.skill,
                    f"{row.label} {result.skill}",
                    f"{result.skill}: {result.status.value}: {cause}{issue}{output}. See {article}",
                )
            )
        elif result.status is Status.STALE:
            warnings.append(
                _Note(
                    result.skill,
                    f"STALE {result.skill}",
                    f"{result.skill}: {cause}. Dispatch it or check its schedule; see {article}",
                )
            )
        elif result.status is Status.ERROR:
            warnings.append(
                _Note(
                    result.skill,
                    f"Invalid spec {result.skill}",
                    f"{result.skill}: the spec cannot be used: {cause}",
                )
            )
    return [
        *_capped("error", errors, spec_file, lines_of, "new failures"),
        *_capped("warning", warnings, spec_file, lines_of, "stale skills or invalid specs"),
    ]


def error_annotation(message: str) -> str:
    """A run that stopped with an expected error (exit 2, 4, 5), as one `::error` line."""
    return workflow_command("error", message, [("title", "aeon-evals")])

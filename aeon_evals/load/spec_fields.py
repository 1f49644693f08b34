"""What one evals.json entry may hold, validated field by field: each problem collected with its
exact location (`skills.heartbeat.min_words: expected an integer, got "20"`), a bad entry costing
only its own skill. `manifest` reads the file and validates the whole of it with these."""

from __future__ import annotations

import json
import math
import re
from datetime import date

from aeon_evals.load import cadence
from aeon_evals.load.evals_json import EVALS_PATH
from aeon_evals.model import DriftMode, Mute, NumericCheck, OutcomeClass, Spec
from aeon_evals.model.problems import Problem, Severity
from aeon_evals.text.patterns import PatternError, compile_pattern

SPEC_KEYS = {
    "output_pattern",
    "min_words",
    "required_patterns",
    "forbidden_patterns",
    "required_headings",
    "numeric_checks",
    "expected_cadence",
    "section",
    "mute",
    "stale_fail_after",
    "drift",  # per-metric drift modes (docs/metrics.md)
    "outcomes",  # status token -> outcome class, over the SKILL.md's (docs/outcomes.md)
    "noop_fail_after",  # runs of one noop before "never does its job" (docs/outcomes.md)
    "description",
    "notes",
    "trigger",  # routing cases, read by `aeon-evals lint` (catalog_cases.py)
    "_from",  # where a drafted spec came from ("SKILL.md:41"); any key starting with _ is a comment
}
NUMERIC_KEYS = {"label", "pattern", "min", "max", "skip_if_not_found"}
MUTE_KEYS = {"until", "reason"}
# A skill name becomes a path (memory/skill-health/<skill>.json): plain names only.
SKILL_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
# The Agent Skills limit on a skill's name (and so its folder); `lint` applies it to SKILL.md.
SKILL_NAME_MAX = 64


class Collector:
    def __init__(self) -> None:
        self.problems: list[Problem] = []

    def error(self, where: str, message: str) -> None:
        self.problems.append(Problem(EVALS_PATH, where, message))

    def warn(self, where: str, message: str) -> None:
        self.problems.append(Problem(EVALS_PATH, where, message, Severity.WARNING))


def type_name(value: object) -> str:
    """`an integer`, `a string` … as a problem names a JSON value's type."""
    if value is None:
        return "null"
    return {
        bool: "a boolean",
        int: "an integer",
        float: "a number",
        str: "a string",
        list: "a list",
        dict: "an object",
    }.get(type(value), type(value).__name__)


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def show(value: object) -> str:
    """A value as it is written in JSON (`"20"`, `-5`, `[1]`), cut short."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def got(value: object) -> str:
    """What was found instead: the type, with the value when it is a scalar."""
    return (
        type_name(value)
        if isinstance(value, dict | list) or value is None
        else f"{type_name(value)} {show(value)}"
    )


def _patterns(value: object, where: str, out: Collector) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        out.warn(where, "expected a list of patterns; the single string was read as a list of one")
        value = [value]
    if not isinstance(value, list):
        out.error(where, f"expected a list of patterns, got {got(value)}")
        return ()
    found: list[str] = []
    for i, item in enumerate(value):
        if not isinstance(item, str):
            out.error(f"{where}[{i}]", f"expected a pattern string, got {got(item)}")
            continue
        try:
            compile_pattern(item)
        except PatternError as exc:
            out.error(f"{where}[{i}]", str(exc))
            continue
        if not item:
            out.warn(f"{where}[{i}]", "an empty pattern matches every output")
        found.append(item)
    return tuple(found)


def _headings(value: object, where: str, out: Collector) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        out.error(where, f'expected a list of headings such as ["## Summary"], got {got(value)}')
        return ()
    found: list[str] = []
    for i, item in enumerate(value):
        if not isinstance(item, str) or not item.strip().lstrip("#").strip():
            out.error(f"{where}[{i}]", f"expected a heading such as '## Summary', got {got(item)}")
        else:
            found.append(item.strip())
    return tuple(found)


def _glob_problem(pattern: str) -> str | None:
    if not pattern.strip():
        return "is empty"
    if pattern.startswith(("/", "\\")) or (len(pattern) > 1 and pattern[1] == ":"):
        return f"{pattern!r} is an absolute path; patterns are relative to the instance root"
    if ".." in pattern.replace("\\", "/").split("/"):
        return f"{pattern!r} contains '..'; patterns must stay inside the instance root"
    if pattern.count("[") != pattern.count("]"):
        return f"{pattern!r} has an unbalanced '['"
    return None


def _numeric(value: object, where: str, out: Collector) -> tuple[NumericCheck, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        out.error(where, f"expected a list of checks, got {type_name(value)}")
        return ()
    checks: list[NumericCheck] = []
    for i, item in enumerate(value):
        at = f"{where}[{i}]"
        if not isinstance(item, dict):
            out.error(at, f"expected an object with label, pattern, min, max, got {got(item)}")
            continue
        ok = True
        for key in sorted(set(item) - NUMERIC_KEYS):
            out.warn(f"{at}.{key}", "unknown key (ignored)")
        label = item.get("label", f"check {i}")
        if not isinstance(label, str):
            out.error(f"{at}.label", f"expected a string, got {got(label)}")
            ok = False
        pattern = item.get("pattern")
        if not isinstance(pattern, str):
            out.error(
                f"{at}.pattern",
                "is required (a regex whose group 1 is the number)"
                if pattern is None
                else f"expected a string, got {got(pattern)}",
            )
            ok = False
        else:
            try:
                compile_pattern(pattern)
            except PatternError as exc:
                out.error(f"{at}.pattern", str(exc))
                ok = False
        bounds: dict[str, float | None] = {}
        for key in ("min", "max"):
            bound = item.get(key)
            if bound is not None and not _is_number(bound):
                out.error(f"{at}.{key}", f"expected a finite number, got {got(bound)}")
                ok = False
                bound = None
            bounds[key] = float(bound) if bound is not None else None
        lo, hi = bounds["min"], bounds["max"]
        if lo is not None and hi is not None and lo > hi:
            out.error(f"{at}.max", f"max {hi:g} is below min {lo:g}")
            ok = False
        if lo is None and hi is None and ok:
            out.warn(at, "no min and no max: this check can never fail")
        skip = item.get("skip_if_not_found", False)
        if not isinstance(skip, bool):
            out.error(f"{at}.skip_if_not_found", f"expected true or false, got {got(skip)}")
            ok = False
        if ok:
            checks.append(NumericCheck(str(label), str(pattern), lo, hi, bool(skip)))
    return tuple(checks)


def _mute(value: object, where: str, out: Collector) -> Mute | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        out.error(where, f'expected {{"until": "YYYY-MM-DD", "reason": "…"}}, got {got(value)}')
        return None
    for key in sorted(set(value) - MUTE_KEYS):
        out.warn(f"{where}.{key}", "unknown key (ignored)")
    until = value.get("until")
    if until is None:
        out.error(f"{where}.until", "is required (a date YYYY-MM-DD)")
        return None
    try:
        if not isinstance(until, str) or len(until) != 10:
            raise ValueError
        day = date.fromisoformat(until)
    except ValueError:
        out.error(f"{where}.until", f"expected a date YYYY-MM-DD, got {got(until)}")
        return None
    reason = value.get("reason", "")
    if reason is not None and not isinstance(reason, str):
        out.warn(f"{where}.reason", f"expected a string, got {got(reason)}")
    return Mute(day, str(reason) if reason is not None else "")


# An outcome token as a SKILL.md writes it: UPPER_SNAKE, two parts or more (`FLEET_EMPTY`).
OUTCOME_TOKEN = re.compile(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$")
_CLASSES = ", ".join(f'"{c.value}"' for c in OutcomeClass)


def _outcomes(value: object, where: str, out: Collector) -> tuple[tuple[str, OutcomeClass], ...]:
    """`{"FLEET_EMPTY": "noop"}`: the class of each named token, sorted by token."""
    if value is None:
        return ()
    if not isinstance(value, dict):
        out.error(where, f'expected an object such as {{"FLEET_EMPTY": "noop"}}, got {got(value)}')
        return ()
    found: list[tuple[str, OutcomeClass]] = []
    for token in sorted(value):
        cls = value[token]
        if not OUTCOME_TOKEN.match(token):
            out.error(
                f"{where}.{token}",
                f"{show(token)} is not a status token (UPPER_SNAKE_CASE, two parts or more, "
                "as the SKILL.md writes it: FLEET_EMPTY)",
            )
        elif not isinstance(cls, str) or cls not in OutcomeClass.__members__.values():
            out.error(f"{where}.{token}", f"expected one of {_CLASSES}, got {got(cls)}")
        else:
            found.append((token, OutcomeClass(cls)))
    return tuple(found)


def _noop_fail_after(value: object, where: str, out: Collector) -> int | None:
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        out.error(where, f"expected a number of runs, an integer 1 or more, got {got(value)}")
        return None
    return value


def spec_entry(skill: str, raw: object, out: Collector) -> Spec | None:
    """The validated spec of `skills.<skill>`, None when an error makes it unusable; every
    problem (warnings included) is added to `out` with its location."""
    at = f"skills.{skill}"
    before = len([p for p in out.problems if p.severity is Severity.ERROR])
    if not SKILL_NAME.match(skill):
        out.error(
            at,
            f"{show(skill)} is not a skill name (letters, digits, '-', '_', '.'; it names the "
            "skills/<name>/ folder)",
        )
    elif len(skill) > SKILL_NAME_MAX:
        out.warn(
            at,
            f"{show(skill)} is {len(skill)} characters: an Agent Skills name is at most "
            f"{SKILL_NAME_MAX} (lowercase letters, digits, hyphens), and it names the "
            "skills/<name>/ folder",
        )
    if not isinstance(raw, dict):
        out.error(at, f"expected an object with at least output_pattern, got {got(raw)}")
        return None
    for key in sorted(set(raw) - SPEC_KEYS):
        if not str(key).startswith("_"):  # `_from`, `_note`…: comments, never warned about
            out.warn(f"{at}.{key}", "unknown key (ignored)")
    pattern = raw.get("output_pattern")
    if not isinstance(pattern, str):
        out.error(
            f"{at}.output_pattern",
            "is required (a glob relative to the root)"
            if pattern is None
            else f"expected a string, got {got(pattern)}",
        )
        pattern = ""
    elif (bad := _glob_problem(pattern)) is not None:
        out.error(f"{at}.output_pattern", bad)
    min_words = raw.get("min_words", 0)
    if not isinstance(min_words, int) or isinstance(min_words, bool):
        out.error(f"{at}.min_words", f"expected an integer, got {got(min_words)}")
        min_words = 0
    elif min_words < 0:
        out.error(f"{at}.min_words", f"must be 0 or more, got {min_words}")
        min_words = 0
    required = _patterns(raw.get("required_patterns"), f"{at}.required_patterns", out)
    forbidden = _patterns(raw.get("forbidden_patterns"), f"{at}.forbidden_patterns", out)
    headings = _headings(raw.get("required_headings"), f"{at}.required_headings", out)
    numeric = _numeric(raw.get("numeric_checks"), f"{at}.numeric_checks", out)
    cadence_days = None
    if raw.get("expected_cadence") is not None:
        cadence_days = cadence.parse_cadence(raw["expected_cadence"])
        if cadence_days is None:
            out.error(
                f"{at}.expected_cadence",
                "expected days (7), '7d', 'daily', 'weekly' or a 5-field cron, got "
                f"{got(raw['expected_cadence'])}",
            )
    section = raw.get("section")
    if section is not None and (not isinstance(section, str) or not section.strip()):
        out.error(f"{at}.section", f"expected a heading such as '### {skill}', got {got(section)}")
        section = None
    elif isinstance(section, str) and not section.strip().startswith("#"):
        # Not a heading: the run matches it as a pattern against heading lines.
        try:
            compile_pattern(section.strip())
        except PatternError as exc:
            out.error(
                f"{at}.section", f"not a heading such as '### {skill}', and as a pattern: {exc}"
            )
            section = None
    mute = _mute(raw.get("mute"), f"{at}.mute", out)
    stale_fail_after = raw.get("stale_fail_after")
    if stale_fail_after is not None and (not _is_number(stale_fail_after) or stale_fail_after < 2):
        out.error(
            f"{at}.stale_fail_after",
            "expected a number of expected cadences, 2 or more (a skill is STALE after 2), "
            f"got {got(stale_fail_after)}",
        )
        stale_fail_after = None
    drift: tuple[tuple[str, DriftMode], ...] = ()
    if raw.get("drift") is not None:
        from aeon_evals.model.drift import parse_drift_spec  # the metric history: only when asked

        found: list[tuple[str, str, str]] = []
        drift = parse_drift_spec(raw["drift"], [c.label for c in numeric], f"{at}.drift", found)
        for where, message, severity in found:
            (out.warn if severity == Severity.WARNING else out.error)(where, message)
    outcomes = _outcomes(raw.get("outcomes"), f"{at}.outcomes", out)
    noop_fail_after = _noop_fail_after(raw.get("noop_fail_after"), f"{at}.noop_fail_after", out)
    if len([p for p in out.problems if p.severity is Severity.ERROR]) > before:
        return None
    return Spec(
        skill=skill,
        output_pattern=pattern,
        min_words=min_words,
        required_patterns=required,
        forbidden_patterns=forbidden,
        required_headings=headings,
        numeric_checks=numeric,
        expected_cadence_days=cadence_days,
        section=section,
        mute=mute,
        stale_fail_after=None if stale_fail_after is None else float(stale_fail_after),
        drift=drift,
        outcomes=outcomes,
        noop_fail_after=noop_fail_after,
    )

"""The next step the tool knows for one failing skill, worded once: the Action Queue lists it and
the skill's issue carries it (a skill gone quiet: dispatch it; a forbidden pattern found only in
other skills' lines of a shared log: give the spec its section; a drift: look at the numbers)."""

from __future__ import annotations

from aeon_evals.model import Cause, SkillResult
from aeon_evals.model.drift import drift_action
from aeon_evals.report.patches import section_patch
from aeon_evals.text.mdspan import code_span


def dispatch(result: SkillResult, ref: str = "") -> str | None:
    """`Dispatch <skill> — no output in N days (ISS-NNN)` for a skill whose output has an age;
    `Fix <skill> — its runs fail (198 in a row, cron-state); no output in N days` when the
    scheduler does run it (dispatching it again would only fail again)."""
    age = result.output.age_days if result.output else None
    if age is None:
        return None
    # rounded as the cause's "3.96 days old" is shown ("4.0"): never "no output in 3 days" beside it
    quiet = f"no output in {round(age)} days{ref}"
    head = result.head
    failed = head.evidence.failed_runs if head is not None and head.evidence else None
    if failed:
        return f"Fix {result.skill} — its runs fail ({failed} in a row, cron-state); {quiet}"
    return f"Dispatch {result.skill} — {quiet}"


def next_step(result: SkillResult, ref: str = "") -> str | None:
    """The Action Queue item of a failing skill: dispatch one gone quiet, look at a drift, else
    investigate its worst cause (the code shown as code: a pattern's backslashes stay)."""
    head = result.head
    if head is None:
        return None
    if head.code == "stale_file" and (quiet := dispatch(result, ref)) is not None:
        return quiet  # gone quiet: run it, then look
    if (told := run_fix(result)) is not None:
        return told + ref
    drifted = drift_action(result)
    return (drifted or f"Investigate {result.skill} — {code_span(head.code)}") + ref


def run_fix(result: SkillResult) -> str | None:
    """`Fix <skill> — its runs report X_ERROR: 'all 3 reddit endpoints failed' (6 of 6 runs)` for
    a skill whose runs say they failed, `Fix <skill> — it never does its job: FLEET_EMPTY 'no
    managed instances' (28 of 28 runs): give it what it lacks` for a permanent no-op (#32)."""
    run = result.run
    head = result.head
    if run is None or head is None or not run.cause or head.code != run.cause:
        return None
    said = _after_token(run.line, run.token)
    quoted = f" '{said}'" if said else ""
    runs = f" ({run.runs})" if run.runs else ""
    if run.cause.startswith("never_does_its_job:"):
        return (
            f"Fix {result.skill} — it never does its job: {run.token}{quoted}{runs}; give it the "
            "config, key or data it says it lacks, or disable it"
        )
    return f"Fix {result.skill} — its runs report {run.token}:{quoted or ' (see its log)'}{runs}"


def _after_token(line: str, token: str, limit: int = 80) -> str:
    """What a status line says after its token (`VIBECODING_DIGEST_ERROR — all 3 reddit
    endpoints failed` → `all 3 reddit endpoints failed`), clipped; the line itself when the
    token is not in it."""
    at = line.find(token) if token else -1
    text = line[at + len(token) :] if at >= 0 else line
    text = text.strip(" \t`*_:—–-|·")
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def outside_own_section(cause: Cause) -> bool:
    """A forbidden pattern whose hits are not all inside the skill's own section of a shared log
    read whole (with a spec's `section`, every hit is inside it)."""
    ev = cause.evidence
    return (
        cause.code.startswith("forbidden_pattern:")
        and ev is not None
        and ev.hits is not None
        and ev.inside is not None
        and ev.inside < ev.hits
    )


def known_fixes(result: SkillResult) -> tuple[str, ...]:
    """What the tool knows to do about a failing skill, for its issue: the section patch when a
    forbidden pattern's hits lie outside its own section of the shared log (other skills'
    lines), and its Action Queue step when that is more than "investigate"."""
    fixes: list[str] = []
    for cause in result.causes:
        if outside_own_section(cause):
            assert cause.evidence is not None
            others = (
                "every hit is in other skills' lines"
                if cause.evidence.inside == 0
                else "some hits are in other skills' lines"
            )
            fixes.append(
                f"{others} of the shared log: Patch evals.json:{result.skill} — "
                f"{section_patch(result.skill)}"
            )
            break
    head = result.head
    quiet = dispatch(result) if head is not None and head.code == "stale_file" else None
    step = quiet or run_fix(result) or drift_action(result)  # more than "investigate"
    return (*fixes, *([step] if step else []))

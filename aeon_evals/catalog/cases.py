"""Trigger cases: prompts that must (positive) or must not (negative) route to a skill.

Read from a skill's evals.json entry (`"trigger": {...}`) or `skills/<name>/evals/trigger.json`,
both holding `{"positive": [{"prompt", "top_k"}], "negative": [{"prompt", "owner"}]}` (a bare
string stands for `{"prompt": string}`). `parse_trigger` validates one such value and
`evaluate` runs one case against the routing model. Pure: the caller reads the files.
"""

from __future__ import annotations

import enum
import json
import re
from collections.abc import Callable
from dataclasses import dataclass

from aeon_evals.catalog.routing import DIGITS, Model, Ranked, ranked, raw_scores, score

DEFAULT_TOP_K = 1
ABOVE_SHOWN = 5
# A raw score at or below _ROUNDS_DOWN rounds to 0 at DIGITS decimals; one at or above
# _ROUNDS_UP does not (the half-way point, 5e-7, lies between).
_ROUNDS_DOWN = 0.4 * 10.0**-DIGITS
_ROUNDS_UP = 0.6 * 10.0**-DIGITS
TRIGGER_KEYS = frozenset({"positive", "negative"})
POSITIVE_KEYS = frozenset({"prompt", "top_k"})
NEGATIVE_KEYS = frozenset({"prompt", "owner"})


class CaseKind(enum.StrEnum):
    """Whether a prompt must route to its skill or must not."""

    POSITIVE = "positive"
    NEGATIVE = "negative"


@dataclass(frozen=True)
class Case:
    """One trigger case as written, with where it was written."""

    skill: str
    kind: CaseKind
    prompt: str
    file: str
    line: int
    top_k: int = DEFAULT_TOP_K  # positive cases: the skill must rank in the first top_k
    owner: str | None = None  # negative cases: the skill that should win instead


@dataclass(frozen=True)
class CaseProblem:
    """A trigger value that cannot be used as written."""

    file: str
    line: int
    message: str


@dataclass(frozen=True)
class CaseResult:
    """A case run against the model: the skill's rank and score, and the skills above it."""

    case: Case
    rank: int
    score: float
    above: tuple[Ranked, ...]
    passed: bool
    why: str  # one line: what happened, for a failure what to look at

    @property
    def first(self) -> bool:
        """The skill ranks first (and matches at all): what the rank-1 rate counts."""
        return self.rank == 1 and self.score > 0


def _show(value: object, limit: int = 60) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")


def _case(
    skill: str,
    kind: CaseKind,
    item: object,
    where: str,
    file: str,
    line_of: Callable[[str], int],
    problems: list[CaseProblem],
) -> Case | None:
    base = line_of("")
    if isinstance(item, str):
        item = {"prompt": item}
    if not isinstance(item, dict):
        problems.append(
            CaseProblem(file, base, f"{where}: expected a prompt or an object, got {_show(item)}")
        )
        return None
    prompt = item.get("prompt")
    if not isinstance(prompt, str) or not prompt.strip():
        problems.append(CaseProblem(file, base, f"{where}.prompt: expected a non-empty string"))
        return None
    line = line_of(prompt)
    known = POSITIVE_KEYS if kind is CaseKind.POSITIVE else NEGATIVE_KEYS
    for key in sorted(set(item) - known):
        problems.append(CaseProblem(file, line, f"{where}: unknown key {_show(key)} (ignored)"))
    top_k = item.get("top_k", DEFAULT_TOP_K)
    if isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 1:
        problems.append(
            CaseProblem(file, line, f"{where}.top_k: expected an integer ≥ 1, got {_show(top_k)}")
        )
        return None
    owner = item.get("owner")
    if owner is not None and not isinstance(owner, str):
        problems.append(
            CaseProblem(file, line, f"{where}.owner: expected a skill name, got {_show(owner)}")
        )
        return None
    return Case(skill, kind, prompt, file, line, top_k=top_k, owner=owner)


def parse_trigger(
    skill: str, value: object, *, file: str, where: str, line_of: Callable[[str], int]
) -> tuple[list[Case], list[CaseProblem]]:
    """The cases of one trigger value, and what is wrong with it.

    `where` names the value in its file (`skills.digest.trigger`); `line_of(prompt)` gives the
    line a prompt is written on (`line_of("")`: the value's own line).
    """
    problems: list[CaseProblem] = []
    cases: list[Case] = []
    if not isinstance(value, dict):
        problems.append(
            CaseProblem(
                file,
                line_of(""),
                f'{where}: expected {{"positive": [...], "negative": [...]}}, got {_show(value)}',
            )
        )
        return cases, problems
    for key in sorted(set(value) - TRIGGER_KEYS):
        problems.append(CaseProblem(file, line_of(""), f"{where}: unknown key {_show(key)}"))
    for kind in CaseKind:
        items = value.get(kind.value, [])
        if not isinstance(items, list):
            problems.append(
                CaseProblem(file, line_of(""), f"{where}.{kind.value}: expected a list")
            )
            continue
        for i, item in enumerate(items):
            case = _case(skill, kind, item, f"{where}.{kind.value}[{i}]", file, line_of, problems)
            if case is not None:
                cases.append(case)
    return cases, problems


def line_finder(text: str, start: int = 1) -> Callable[[str], int]:
    """`line_of(prompt)` for JSON `text`: the first line at or after `start` holding the prompt
    as a JSON string (`start` itself for "" or a prompt not found)."""
    lines = text.splitlines()

    def line_of(prompt: str) -> int:
        if prompt:
            needles = {json.dumps(prompt), json.dumps(prompt, ensure_ascii=False)}
            for number in range(max(start, 1), len(lines) + 1):
                if any(n in lines[number - 1] for n in needles):
                    return number
        return start

    return line_of


_KEY = re.compile(r'^\s*("(?:[^"\\]|\\.)*")\s*:')


def key_line(text: str, key: str, start: int = 1) -> int:
    """The first line at or after `start` where JSON `text` opens the key `key` (else `start`)."""
    for number, line in enumerate(text.splitlines()[start - 1 :], start):
        match = _KEY.match(line)
        if match:
            try:
                if json.loads(match.group(1)) == key:
                    return number
            except ValueError:
                continue
    return start


def _above_text(above: tuple[Ranked, ...], own: float) -> str:
    shown = [f"{r.skill} {'=' if r.score == own else ''}{r.score:.3f}" for r in above[:ABOVE_SHOWN]]
    more = f" (+{len(above) - ABOVE_SHOWN} more)" if len(above) > ABOVE_SHOWN else ""
    return ", ".join(shown) + more


def evaluate(model: Model, case: Case) -> CaseResult:
    """Run one case. Ties count against it: a positive case's skill tied with another is ranked
    below it; a negative case's skill tied for first is ranked first."""
    raw = raw_scores(model, case.prompt)
    own = score(raw.get(case.skill, 0.0))
    if case.kind is CaseKind.NEGATIVE and own == 0:
        # below 4e-7 a score rounds to 0 and from 6e-7 it does not: round only in between
        reached = sum(
            1
            for s, t in raw.items()
            if t >= _ROUNDS_UP or (t > _ROUNDS_DOWN and s != case.skill and score(t) > 0)
        )  # the case's own skill scores 0, so below _ROUNDS_UP
        why = "no term of the prompt is in the skill's name or description"
        return CaseResult(case, 1 + reached, own, (), True, why)
    # Only skills within rounding reach of the case's own score can rank above or tie with it:
    # the rest are never rounded (a prompt of common words reaches most of the catalog).
    near = own - 2 * 10.0**-DIGITS
    found = {s: v for s, t in raw.items() if t >= near and t > _ROUNDS_DOWN and (v := score(t)) > 0}
    if case.kind is CaseKind.POSITIVE:
        above = tuple(ranked({s: v for s, v in found.items() if s != case.skill and v >= own}))
        # A skill the prompt does not reach ties with every other one at 0: last.
        rank = 1 + len(above) if own > 0 else len(model.skills)
        passed = own > 0 and rank <= case.top_k
        if own == 0:
            why = "no term of the prompt is in the skill's name or description"
        else:
            why = f"rank {rank} (score {own:.3f}), wanted top {case.top_k}"
            if above:
                why += f"; above it: {_above_text(above, own)}"
        return CaseResult(case, rank, own, above, passed, why)
    above = tuple(ranked({s: v for s, v in found.items() if s != case.skill and v > own}))
    rank = 1 + len(above)
    owner_score = score(raw.get(case.owner, 0.0)) if case.owner else None
    if owner_score is not None and owner_score <= own:
        passed = False
        why = (
            f"owner {case.owner} ({owner_score:.3f}) does not rank above it "
            f"({own:.3f}, rank {rank})"
        )
    elif rank == 1:
        passed, why = False, f"ranks first (score {own:.3f}); nothing scores above it"
    else:
        passed = True
        why = f"rank {rank} (score {own:.3f}); above it: {_above_text(above, own)}"
    return CaseResult(case, rank, own, above, passed, why)

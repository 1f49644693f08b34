"""What a skill's evals.json entry changes in the reading of its outcomes: the `outcomes` map
over the SKILL.md's vocabulary, and `noop_fail_after`, the runs of one noop after which a skill
never does its job. The one entry point a run calls per skill. Pure."""

from __future__ import annotations

from aeon_evals.model import Spec
from aeon_evals.outcomes.history import PERMANENT_RUNS
from aeon_evals.outcomes.model import Vocabulary
from aeon_evals.outcomes.vocabulary import extract_vocabulary


def vocabulary_for(skill: str, skill_md_text: str, spec: Spec | None) -> Vocabulary:
    """The outcome vocabulary of `skill`: every status token its SKILL.md text (the whole file,
    frontmatter included, so that lines are the file's) tells the agent to write, classed; the
    tokens of `spec.outcomes` (its evals.json entry, None for a skill evaluated on its SKILL.md
    contract) take the class the operator gave them, and one the text never names is added.
    Pure and never raises; a few milliseconds for a long SKILL.md, linear in its length."""
    overrides = dict(spec.outcomes) if spec is not None else None
    return extract_vocabulary(skill, skill_md_text, overrides or None)


def noop_fail_after(spec: Spec | None) -> int:
    """How many runs in a row of one noop outcome (spanning the days `history.judge` asks for)
    make a skill fail as "never does its job": the entry's `noop_fail_after`, else 7."""
    if spec is not None and spec.noop_fail_after is not None:
        return spec.noop_fail_after
    return PERMANENT_RUNS

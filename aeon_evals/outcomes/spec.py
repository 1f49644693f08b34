"""What a skill's evals.json entry changes in the reading of its outcomes: the `outcomes` map
over the SKILL.md's vocabulary, and `noop_fail_after`, the runs of one noop after which a skill
never does its job. The entry points a run calls per skill. Pure."""

from __future__ import annotations

from collections.abc import Iterable

from aeon_evals.model import OutcomeClass, Spec
from aeon_evals.outcomes.history import PERMANENT_RUNS
from aeon_evals.outcomes.model import TokenUse, VocabToken, Vocabulary, Why
from aeon_evals.outcomes.vocabulary import extract_vocabulary, own_prefixes

OVERRIDE_USE = "evals.json outcomes"  # the sentence of a token only the entry names


def vocabulary_for(skill: str, skill_md_text: str, spec: Spec | None) -> Vocabulary:
    """The outcome vocabulary of `skill`: every status token its SKILL.md text (the whole file,
    frontmatter included, so that lines are the file's) tells the agent to write, classed; the
    tokens of `spec.outcomes` (its evals.json entry; None for a skill evaluated on its SKILL.md
    contract) take the class the operator gave them, and one the text never names is added.
    Pure and never raises; about 1.5 ms for a real SKILL.md, linear in its length: a run over
    many skills keeps `extract_vocabulary(skill, text)` by the SKILL.md's hash and calls
    `with_overrides` on it, which gives the same vocabulary."""
    return with_overrides(
        extract_vocabulary(skill, skill_md_text), spec.outcomes if spec is not None else ()
    )


def with_overrides(
    vocabulary: Vocabulary, overrides: Iterable[tuple[str, OutcomeClass]]
) -> Vocabulary:
    """`vocabulary` (a SKILL.md's, read without overrides) with an evals.json `outcomes` map
    applied: a named token keeps its uses and takes the given class (`why` override); a token
    the SKILL.md never names as a status is added with no use of its own (even a name the text
    uses as a variable: the operator says it is a status). Cheap: no text is read."""
    forced = dict(overrides)
    if not forced:
        return vocabulary
    tokens = dict(vocabulary.tokens)
    for token, cls in forced.items():
        found = tokens.get(token)
        uses = found.uses if found is not None else (TokenUse(0, OVERRIDE_USE, "", cls),)
        tokens[token] = VocabToken(token, cls, Why.OVERRIDE, uses)
    ordered = {t: tokens[t] for t in sorted(tokens)}
    return Vocabulary(
        vocabulary.skill,
        ordered,
        own_prefixes(vocabulary.skill, list(ordered)),
        vocabulary.ignored - set(forced),
    )


def noop_fail_after(spec: Spec | None) -> int:
    """How many runs in a row of one noop outcome (spanning the days `history.judge` asks for)
    make a skill fail as "never does its job": the entry's `noop_fail_after`, else 7."""
    if spec is not None and spec.noop_fail_after is not None:
        return spec.noop_fail_after
    return PERMANENT_RUNS

"""Each skill's outcome vocabulary (issue #32), read from its SKILL.md and kept in the cache as
its contract is: one item per skill with the SKILL.md's SHA-256 and stat signature, so that an
unchanged SKILL.md is not even read on a warm run. evals.json's `outcomes` map is applied on top
of the cached reading (`outcomes.with_overrides`: the same as reading with it)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from aeon_evals.cache.folder import Cache, Entry
from aeon_evals.contracts.instance import per_skill_md
from aeon_evals.outcomes import OutcomeClass, TokenUse, VocabToken, Vocabulary, Why
from aeon_evals.outcomes.spec import with_overrides
from aeon_evals.outcomes.vocabulary import extract_vocabulary

ENTRY = Entry("vocabulary", 1)


def load_vocabularies(
    root: Path,
    skills: Iterable[str],
    cache: Cache,
    overrides: Mapping[str, Iterable[tuple[str, OutcomeClass]]] | None = None,
) -> dict[str, Vocabulary]:
    """The vocabulary of each skill of `skills` (empty for a skill without a readable SKILL.md),
    with `overrides` (skill → evals.json's `outcomes`) applied."""
    result = per_skill_md(
        root,
        skills,
        cache,
        ENTRY,
        make=lambda skill, raw: (
            extract_vocabulary(skill, raw.decode("utf-8", errors="replace")),
            True,
        ),
        unusable=lambda skill, _doc: extract_vocabulary(skill, ""),
        to_row=_to_row,
        from_row=_from_row,
    )
    overrides = overrides or {}
    return {s: with_overrides(v, overrides.get(s, ())) for s, v in result.items()}


def _to_row(vocab: Vocabulary) -> dict[str, Any]:
    """A vocabulary as JSON data (enums by name)."""
    return {
        "tokens": [
            [
                t.token,
                t.outcome.value,
                t.why.value,
                [
                    [u.line, u.sentence, u.detail, u.outcome.value if u.outcome else None]
                    for u in t.uses
                ],
            ]
            for t in vocab.tokens.values()
        ],
        "prefixes": list(vocab.prefixes),
        "ignored": sorted(vocab.ignored),
    }


def _from_row(skill: str, row: object) -> Vocabulary | None:
    """The vocabulary of a cached row; None when the row is damaged (a miss)."""
    try:
        assert isinstance(row, dict)
        tokens: dict[str, VocabToken] = {}
        for token, outcome, why, uses in row["tokens"]:
            tokens[str(token)] = VocabToken(
                str(token),
                OutcomeClass(outcome),
                Why(why),
                tuple(
                    TokenUse(
                        int(line),
                        str(sentence),
                        str(detail),
                        OutcomeClass(cls) if cls is not None else None,
                    )
                    for line, sentence, detail, cls in uses
                ),
            )
        prefixes = tuple(str(p) for p in row["prefixes"])
        ignored = frozenset(str(i) for i in row["ignored"])
    except (AssertionError, KeyError, TypeError, ValueError):
        return None
    return Vocabulary(skill, tokens, prefixes, ignored)

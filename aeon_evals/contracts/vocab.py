"""Each skill's outcome vocabulary (issue #32), read from its SKILL.md and kept in the cache as
its contract is: one item per skill with the SKILL.md's SHA-256 and stat signature, so that an
unchanged SKILL.md is not even read on a warm run. evals.json's `outcomes` map is applied on top
of the cached reading (`outcomes.with_overrides`: the same as reading with it)."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from aeon_evals.cache.folder import Cache, Entry
from aeon_evals.contracts.instance import RACY_NS, _plain_folders, _signature
from aeon_evals.load.skillmd import read_skill_bytes
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
    plain = _plain_folders(root)
    found = cache.load(ENTRY, ENTRY.key())
    entries: dict[str, Any] = found if isinstance(found, dict) else {}
    result: dict[str, Vocabulary] = {}
    changed = False
    now = time.time_ns()
    overrides = overrides or {}
    for skill in sorted(set(skills)):
        entry = entries.get(skill)
        if not (isinstance(entry, list) and len(entry) == 3):
            entry = None  # [SHA-256, signature, vocabulary as a row]
        signature = _signature(plain.get(skill))
        if entry is not None and signature is not None and entry[1] == signature:
            vocab = _from_row(skill, entry[2])
            if vocab is not None:
                result[skill] = vocab
                continue
        raw = read_skill_bytes(root, skill)
        if not isinstance(raw, bytes):  # none, or unusable (the contract says why)
            result[skill] = extract_vocabulary(skill, "")
            changed |= entries.pop(skill, None) is not None
            continue
        text = raw.decode("utf-8", errors="replace")
        digest = hashlib.sha256(raw).hexdigest()
        vocab = _from_row(skill, entry[2]) if entry is not None and entry[0] == digest else None
        if vocab is None:
            vocab = extract_vocabulary(skill, text)
        if signature is not None and now - signature[1] < RACY_NS:
            signature = None
        if entry is None or entry[0] != digest or entry[1] != signature:
            entries[skill] = [digest, signature, _to_row(vocab)]
            changed = True
        result[skill] = vocab
    if changed:
        cache.store(ENTRY, ENTRY.key(), dict(sorted(entries.items())))
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

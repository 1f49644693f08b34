"""Each artifact's fate is typed; the ledger text is made from it in one place."""

from __future__ import annotations

import pytest

from aeon_evals.model.artifacts import NOT_SENT, Artifact, Fate, failed, skipped


@pytest.mark.parametrize(
    ("artifact", "text"),
    [
        (Artifact(), "not written"),
        (NOT_SENT, "not sent"),
        (
            Artifact(Fate.DONE, "articles/skill-evals-2026-05-31.md"),
            "articles/skill-evals-2026-05-31.md",
        ),
        (
            Artifact(Fate.UNCHANGED, "articles/skill-evals-2026-05-31.md"),
            "articles/skill-evals-2026-05-31.md (unchanged)",
        ),
        (
            Artifact(Fate.DONE, "memory/logs/2026-05-31.md", "### skill-evals"),
            "memory/logs/2026-05-31.md (### skill-evals)",
        ),
        (skipped("--dry-run"), "not written (--dry-run)"),
        (skipped("--no-notify", verb="sent"), "not sent (--no-notify)"),
        (
            skipped("--dry-run", note="would write x.json with 3 starter specs"),
            "not written (--dry-run); would write x.json with 3 starter specs",
        ),
        (
            skipped(note="starter x.json written (3 specs)"),
            "not written; starter x.json written (3 specs)",
        ),
        (failed("Permission denied"), "not written: Permission denied"),
        (
            Artifact(Fate.FAILED, verb="sent", said="notifier ./notify failed (exit 1)"),
            "notifier ./notify failed (exit 1)",
        ),
    ],
)
def test_the_ledger_text_of_each_fate(artifact: Artifact, text: str) -> None:
    assert str(artifact) == text

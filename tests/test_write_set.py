"""What the run says it wrote is what is on disk (issue #35.5): the issues' writes are probed
before any is made, a refused one changes no issue and is said on every surface, and a run that
fails after the issues were written (its article refused) puts them back."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import Instance

Cli = Callable[..., tuple[int, str, str]]
NOW = "2026-06-01T12:00:00Z"
INDEX = "memory/issues/INDEX.md"


def _fleet(inst: Instance, *, words: int) -> None:
    """One skill with an evals.json spec; its article has `words` words (minimum 50), and an
    open issue of this tool's for another skill that now passes (so a run closes it)."""
    inst.aeon_yml({"alpha": (True, "0 6 * * *"), "beta": (True, "0 6 * * *")})
    for skill in ("alpha", "beta"):
        inst.write(f"skills/{skill}/SKILL.md", f"Write `articles/{skill}-${{today}}.md`.\n")
    inst.evals(
        {
            "alpha": {"output_pattern": "articles/alpha-*.md", "min_words": 50},
            "beta": {"output_pattern": "articles/beta-*.md", "min_words": 5},
        }
    )
    inst.write("articles/alpha-2026-06-01.md", "# alpha\n\n" + "word " * words + "\n")
    inst.write("articles/beta-2026-06-01.md", "# beta\n\n" + "word " * 20 + "\n")
    inst.write(
        "memory/issues/ISS-001.md",
        "---\nid: ISS-001\ntitle: 'beta: word_count'\nstatus: open\nseverity: high\n"
        "category: quality-regression\ndetected_by: skill-evals\n"
        "detected_at: '2026-05-25T06:00:00Z'\nresolved_at: null\naffected_skills: [beta]\n"
        "root_cause: word_count\n---\n\nbeta was short.\n",
    )
    inst.write(
        INDEX,
        "# Issues\n\n## Open\n\n| ID | Title | Severity | Category | Detected | Affected Skills |\n"
        "|---|---|---|---|---|---|\n| ISS-001 | beta: word_count | high | quality-regression | "
        "2026-05-25 | beta |\n\n## Resolved\n\n| ID | Title | Severity | Fix PR | Resolved |\n"
        "|---|---|---|---|---|\n",
    )
    inst.write(
        "articles/skill-evals-2026-05-25.md",
        "# Skill Evals — 2026-05-25\n\n**Verdict:** SKILL_EVALS_REGRESSED\n\n"
        "**Coverage:** 2/2 (100%)\n\n**Diff:** 1 new fail\n\n## Full Results\n"
        "| Skill | Status | Diff | Root cause | Quality | Words | Last output | Notes |\n"
        "|---|---|---|---|---|---|---|---|\n"
        "| alpha | PASS | NEW_PASS | — | unknown | 60 | articles/alpha-2026-05-25.md | — |\n"
        "| beta | FAIL | NEW_FAIL | word_count | unknown | 2 | articles/beta-2026-05-25.md | — |\n",
    )


@pytest.fixture
def chattr() -> Iterator[Callable[[Path], None]]:
    """`chattr +i PATH` (undone afterwards); skips where the file system has no such flag."""
    locked: list[Path] = []

    def lock(path: Path) -> None:
        proc = subprocess.run(["chattr", "+i", str(path)], capture_output=True, text=True)
        if proc.returncode != 0:
            pytest.skip(f"chattr +i is not available here: {proc.stderr.strip()}")
        locked.append(path)

    yield lock
    for path in locked:
        subprocess.run(["chattr", "-i", str(path)], capture_output=True, check=False)


def _issues(inst: Instance) -> dict[str, bytes]:
    folder = inst.root / "memory/issues"
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_an_immutable_index_said_none_filed_while_issues_changed(
    instance: Instance, cli: Cli, chattr: Callable[[Path], None]
) -> None:
    """Regression: with INDEX.md immutable the run exited 0 and the ledger, the article and
    --json said "issues filed: none / closed: none" while ISS-002 was created and ISS-001
    resolved on disk. Now nothing changes in memory/issues, and every surface says what was not
    written and what would have been."""
    _fleet(instance, words=10)
    before = _issues(instance)
    chattr(instance.root / INDEX)
    code, out, err = cli("run", "--root", str(instance.root), "--now", NOW, "--no-notify", "--json")
    assert code == 0, err
    assert _issues(instance) == before
    data = json.loads(out)
    assert data["issues"]["filed"] == [] and data["issues"]["closed"] == []
    assert "INDEX.md" in data["issues"]["not_written"]
    assert data["issues"]["would_file"] == [{"id": "ISS-002", "skill": "alpha"}]
    assert data["issues"]["would_close"] == [{"id": "ISS-001", "skill": "beta"}]
    article = (instance.root / "articles/skill-evals-2026-06-01.md").read_text()
    assert "- issues filed: none (not written: INDEX.md: Operation not permitted" in article
    assert "would file ISS-002 (alpha))" in article
    assert "would close ISS-001 (beta))" in article
    code, out, _ = cli("run", "--root", str(instance.root), "--now", NOW, "--no-notify")
    assert "issues filed: none (not written: INDEX.md" in out


def test_a_run_whose_article_is_refused_changed_the_issues(
    instance: Instance, cli: Cli, chattr: Callable[[Path], None]
) -> None:
    """Regression: a run that stopped at its article (exit 2 "cannot write articles/…") had
    already created ISS-002 and resolved ISS-001 and rewritten INDEX.md. A failed run changes
    no issue: what the issue stage wrote is put back (by renames: no space needed)."""
    _fleet(instance, words=60)  # alpha passes today: nothing to file, the article is written
    code, _, err = cli("run", "--root", str(instance.root), "--now", NOW, "--no-notify")
    assert code == 0, err
    before = _issues(instance)
    assert b"status: resolved" in before["ISS-001.md"]  # beta's issue was closed
    # the same day again, alpha now short (a new failure) and today's article immutable
    instance.write("articles/alpha-2026-06-01.md", "# alpha\n\nshort\n")
    chattr(instance.root / "articles/skill-evals-2026-06-01.md")
    code, out, err = cli("run", "--root", str(instance.root), "--now", NOW, "--no-notify")
    assert code == 2, out + err
    assert "skill-evals-2026-06-01.md" in err
    assert _issues(instance) == before  # ISS-002 removed again, INDEX.md as it was
    assert not [p for p in (instance.root / "memory/issues").iterdir() if p.name.startswith(".")]

"""Articles read back: every real LLM-written article, and this tool's own output round-tripped."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from realdata import realdata

from aeon_evals.articles.parse import (
    ArticleParseError,
    parse_article,
    parse_status,
    parse_words,
    read_article,
    unescape_cell,
)
from aeon_evals.articles.store import ArticleStore
from aeon_evals.model import Cause, Coverage, DiffLabel, SkillResult, Status, Verdict
from aeon_evals.report.diff import DiffCounts, Row
from aeon_evals.report.render import ArticleData, render_article
from aeon_evals.text.mdtable import escape_cell


def _real_articles() -> list[Path]:
    return sorted(realdata().glob("*/articles/skill-evals-*.md"))


def test_every_real_article_parses_as_a_prior_run() -> None:
    articles = _real_articles()
    assert len(articles) == 14
    for path in articles:
        parsed = read_article(path, root=path.parents[1])
        assert parsed.rows, path
        assert parsed.verdict and parsed.verdict.startswith("SKILL_EVALS_"), path
        assert parsed.coverage is not None and parsed.coverage_pct is not None, path


@pytest.mark.parametrize(
    ("name", "skill", "status", "words"),
    [
        (
            "anajuliabit__aeon/articles/skill-evals-2026-05-24.md",
            "heartbeat",
            Status.PASS,
            3300,
        ),  # ~3,300
        (
            "anajuliabit__aeon/articles/skill-evals-2026-05-24.md",
            "cost-report",
            Status.NO_OUTPUT,
            None,
        ),
        (
            "anajuliabit__aeon/articles/skill-evals-2026-05-31.md",
            "heartbeat",
            Status.PASS,
            7000,
        ),  # >7,000
        (
            "anajuliabit__aeon/articles/skill-evals-2026-06-21.md",
            "cost-report",
            Status.STALE,
            689,
        ),  # Diff: PASS→STALE
        (
            "anajuliabit__aeon/articles/skill-evals-2026-07-26.md",
            "heartbeat",
            Status.PASS,
            18115,
        ),  # 18,115+
        (
            "anajuliabit__aeon/articles/skill-evals-2026-08-02.md",
            "heartbeat",
            Status.PASS,
            None,
        ),  # "large"
        (
            "anajuliabit__aeon/articles/skill-evals-2026-08-16.md",
            "heartbeat",
            Status.PASS,
            15513,
        ),  # 15,513 (log)
        (
            "aeonfun__aeon/articles/skill-evals-2026-05-03.md",
            "heartbeat",
            Status.FAIL,
            13000,
        ),  # ~13k+
        ("aeonfun__aeon/articles/skill-evals-2026-05-03.md", "repo-pulse", Status.NO_OUTPUT, None),
    ],
)
def test_real_article_cells(name: str, skill: str, status: Status, words: int | None) -> None:
    path = realdata() / name
    row = read_article(path, root=path.parents[1]).rows[skill]
    assert row.status is status
    assert row.words == words


def test_real_article_escaped_pipes_and_failing_since() -> None:
    earlier = realdata() / "anajuliabit__aeon/articles/skill-evals-2026-06-21.md"
    assert (
        read_article(earlier, root=earlier.parents[1]).rows["skill-health"].root_cause
        == "missing_pattern:### skill-health|SKILL_HEALTH|HEALTH:"
    )
    path = realdata() / "anajuliabit__aeon/articles/skill-evals-2026-06-28.md"
    parsed = read_article(path, root=path.parents[1])
    assert parsed.failing_since["token-alert"].since == date(2026, 6, 21)
    assert parsed.failing_since["token-alert"].issue == "ISS-023"
    assert parsed.issues["heartbeat"] == "ISS-026"
    assert parsed.coverage == Coverage(12, 44)
    assert parsed.coverage_pct == 27.0


def test_old_bootstrap_article_has_its_coverage_and_queue() -> None:
    path = realdata() / "aeonfun__aeon/articles/skill-evals-2026-04-26.md"
    parsed = read_article(path, root=path.parents[1])
    assert parsed.coverage == Coverage(14, 97)
    assert len(parsed.action_queue) == 8


@pytest.mark.parametrize(
    ("cell", "status"),
    [
        ("PASS", Status.PASS),
        ("PASS→STALE", Status.STALE),
        ("NEW_FAIL", Status.FAIL),
        ("FAIL (missing_pattern)", Status.FAIL),
        ("NEW_QUALITY_DEGRADED", Status.QUALITY_DEGRADED),
        ("STILL_FAIL", Status.FAIL),
        ("bootstrap", None),
    ],
)
def test_status_cells(cell: str, status: Status | None) -> None:
    assert parse_status(cell) is status


@pytest.mark.parametrize(
    ("cell", "words"),
    [("~9,000", 9000), ("—", None), ("510+", 510), ("1.2k", 1200), ("large", None)],
)
def test_word_cells(cell: str, words: int | None) -> None:
    assert parse_words(cell) == words


@pytest.mark.parametrize("text", ["", "  \n", "# Skill Evals\n\nno table here\n", "\x00\x01binary"])
def test_unreadable_article_is_a_parse_error(text: str) -> None:
    with pytest.raises(ArticleParseError):
        parse_article(text, path="articles/skill-evals-2026-01-01.md", day=date(2026, 1, 1))


def test_prior_falls_back_past_an_unreadable_article(tmp_path: Path) -> None:
    good = realdata() / "anajuliabit__aeon/articles/skill-evals-2026-05-24.md"
    (tmp_path / "articles").mkdir()
    (tmp_path / "articles/skill-evals-2026-05-24.md").write_bytes(good.read_bytes())
    (tmp_path / "articles/skill-evals-2026-05-30.md").write_bytes(b"\x00\x00 not an article")
    (tmp_path / "articles/skill-evals-2026-05-31.md").write_text("today's, ignored")
    prior, warnings = ArticleStore(tmp_path).prior(date(2026, 5, 31))
    assert prior is not None and prior.day == date(2026, 5, 24)
    assert warnings == [
        "articles/skill-evals-2026-05-30.md: binary content, not a skill-evals article; falling "
        "back to the next older article"
    ]


# --- round trip -----------------------------------------------------------------------------

_text = (
    st.text(st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), min_size=1, max_size=60)
    .map(str.strip)
    .filter(bool)
)
_skill = st.from_regex(r"[a-z][a-z0-9-]{0,20}", fullmatch=True)


def _article(results: list[SkillResult]) -> str:
    rows = [Row(r, DiffLabel.STABLE, None) for r in results]
    data = ArticleData(
        date(2026, 5, 31),
        Verdict.OK,
        Coverage(3, 4),
        75.0,
        DiffCounts(stable=len(rows)),
        [],
        rows,
        [],
        ["evals.json=ok"],
    )
    return render_article(data)


@settings(max_examples=150, deadline=None)
@given(
    st.dictionaries(_skill, st.tuples(st.sampled_from(list(Status)), _text), min_size=1, max_size=8)
)
def test_written_articles_parse_back_exactly(cases: dict[str, tuple[Status, str]]) -> None:
    results = [
        SkillResult(skill, status, (Cause(status, cause),))
        for skill, (status, cause) in cases.items()
    ]
    parsed = parse_article(_article(results), path="a", day=date(2026, 5, 31))
    assert {s: r.status for s, r in parsed.rows.items()} == {
        s: st_ for s, (st_, _c) in cases.items()
    }
    assert {s: r.root_cause for s, r in parsed.rows.items()} == {
        s: c for s, (_s, c) in cases.items()
    }
    assert parsed.coverage == Coverage(3, 4)


@pytest.mark.parametrize(
    "cause",
    [
        "missing_pattern:a|b",
        "forbidden_pattern:\\$\\{var\\}",
        "x `code|pipe` *bold* $5",
        "ends with \\",
        "\\|",
    ],
)
def test_root_causes_with_markdown_specials_survive(cause: str) -> None:
    parsed = parse_article(
        _article([SkillResult("s", Status.FAIL, (Cause(Status.FAIL, cause),))]),
        path="a",
        day=date(2026, 5, 31),
    )
    assert parsed.rows["s"].root_cause == cause


@given(_text)
def test_cell_escaping_round_trips(text: str) -> None:
    assert unescape_cell(escape_cell(text).replace("\\|", "|")) == text


def test_notes_parse_back_as_flags() -> None:
    from aeon_evals.model import Mute

    result = SkillResult(
        "s",
        Status.FAIL,
        (Cause(Status.FAIL, "word_count"),),
        enabled=False,
        muted=Mute(date(2026, 6, 30), "upstream down"),
        notes=("used memory/logs/2026-05-30.md",),
    )
    parsed = parse_article(_article([result]), path="a", day=date(2026, 5, 31))
    assert parsed.rows["s"].flags == (
        "disabled",
        "muted until 2026-06-30: upstream down",
        "used memory/logs/2026-05-30.md",
    )


def test_a_listing_taken_earlier_finds_the_same_articles(tmp_path: Path) -> None:
    """The run lists articles/ once for its globs and hands that listing to the history."""
    names = [
        "skill-evals-2026-05-24.md",
        "skill-evals-2026-05-31.md",
        "skill-evals.md",
        "skill-evals-x.md",
        "skill-evalsz-2026-05-24.md",
        "skill-evals-2026-02-30.md",
        "skill-eval-2026-05-24.md",
        "a.md",
        "zz.md",
        "skill-evals-2026-06-07.md.tmp",
    ]
    folder = tmp_path / "articles"
    folder.mkdir()
    for name in names:
        (folder / name).write_text("x", encoding="utf-8")
    (folder / "skill-evals-2026-06-07.md").mkdir()  # a folder is no article
    listing = sorted(p.name for p in folder.iterdir())
    found = list(ArticleStore(tmp_path, names=listing).newest_before(date.max))
    assert found == list(ArticleStore(tmp_path).newest_before(date.max))
    assert [p.name for _d, p in found] == ["skill-evals-2026-05-31.md", "skill-evals-2026-05-24.md"]

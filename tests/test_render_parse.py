"""A run hands its dashboard the article it just wrote already parsed (render.parsed_article):
that must be exactly what parsing the written text gives, whatever the cells hold."""

from __future__ import annotations

from datetime import date

from hypothesis import given, settings
from hypothesis import strategies as st

from aeon_evals.articles.parse import parse_article
from aeon_evals.model import (
    ArticleRow,
    Cause,
    Coverage,
    DiffLabel,
    FailingSince,
    Mute,
    OutputFile,
    SkillResult,
    Status,
    Verdict,
)
from aeon_evals.report.diff import DiffCounts, Row
from aeon_evals.report.render import ArticleData, parsed_article, render_article

# Any text a cause, note, path or action can hold, markdown specials and odd whitespace included.
_ANY = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00\r"), max_size=40
)
_SPECIAL = st.sampled_from(
    [
        "a|b",
        "\\",
        "\\|",
        "`x|y`",
        "*b*",
        "  padded  ",
        "line\nbreak",
        "#",
        "---",
        "1. item",
        "—",
        "",
        "x\u2028y",
        "\t",
        "| |",
    ]
)
_TEXT = st.one_of(_ANY, _SPECIAL)
_SKILL = st.from_regex(r"[a-z][a-z0-9-]{0,12}", fullmatch=True)
_DAY = date(2026, 5, 31)


@st.composite
def _row(draw: st.DrawFn) -> Row:
    skill = draw(_SKILL)
    kind = draw(st.sampled_from(["result", "result", "result", "kept", "removed"]))
    label = draw(st.sampled_from(list(DiffLabel)))
    previous = ArticleRow(
        skill, draw(st.sampled_from(list(Status))), "STABLE", draw(_TEXT), "unknown", None, None, ()
    )
    if kind == "removed":
        return Row(None, DiffLabel.NEW_NO_COVERAGE, previous)
    if kind == "kept":
        kept = ArticleRow(
            skill,
            draw(st.sampled_from(list(Status))),
            draw(_TEXT),
            draw(_TEXT),
            draw(_TEXT),
            draw(st.none() | st.integers(0, 10**7)),
            draw(st.none() | _TEXT),
            tuple(draw(st.lists(_TEXT, max_size=3))),
        )
        return Row(None, draw(st.sampled_from(list(DiffLabel))), None, kept=kept)
    status = draw(st.sampled_from(list(Status)))
    causes = tuple(Cause(status, draw(_TEXT), draw(_TEXT)) for _ in range(draw(st.integers(0, 2))))
    output = draw(st.none() | _TEXT.map(lambda p: OutputFile(p, 1, "0" * 64, 1.0, "filename")))
    muted = draw(st.none() | _TEXT.map(lambda r: Mute(date(2026, 6, 30), r)))
    result = SkillResult(
        skill,
        status,
        causes,
        draw(st.none() | st.integers(0, 10**7)),
        output,
        draw(_TEXT),
        None,
        draw(st.booleans()),
        draw(st.booleans()),
        muted,
        tuple(draw(st.lists(_TEXT, max_size=3))),
    )
    since = draw(st.none() | st.dates(date(2025, 1, 1), _DAY).map(lambda d: FailingSince(d, None)))
    return Row(
        result,
        label,
        previous,
        since,
        draw(st.none() | st.from_regex(r"ISS-\d{3}", fullmatch=True)),
        draw(st.booleans()),
    )


@st.composite
def _data(draw: st.DrawFn) -> ArticleData:
    enabled = draw(st.integers(0, 2000))
    coverage = Coverage(draw(st.integers(0, enabled)), enabled)
    return ArticleData(
        _DAY,
        draw(st.sampled_from(list(Verdict))),
        coverage,
        draw(st.none() | st.floats(0, 100)),
        DiffCounts(*draw(st.tuples(*[st.integers(0, 50)] * 4))),
        draw(st.lists(_TEXT, max_size=4)),
        draw(st.lists(_row(), max_size=12)),
        draw(st.lists(st.tuples(_SKILL, _TEXT), max_size=3)),
        draw(st.lists(_TEXT, max_size=3)),
        draw(st.none() | st.floats(0, 100)),
    )


@settings(max_examples=300, deadline=None)
@given(_data())
def test_the_article_a_run_hands_over_is_the_article_parsed(data: ArticleData) -> None:
    path = "articles/skill-evals-2026-05-31.md"
    fast = parsed_article(data, path=path)
    if fast is None:  # the text holds what the parser treats specially: it is parsed instead
        return
    assert fast == parse_article(render_article(data), path=path, day=_DAY)

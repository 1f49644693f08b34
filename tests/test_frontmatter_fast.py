"""Issue frontmatter read without the YAML parser when it is simple: the very dict the safe
loader gives, or no answer (the parser decides). Every run reads a few hundred issue files."""

from __future__ import annotations

from typing import Any

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from aeon_evals.issues import frontmatter as fm

KEYS = ["id", "title", "status", "on", "yes", "null", "No", "k-1", "_x", "affected_skills", "1a"]
VALUES = [
    "",
    "open",
    "ISS-001",
    "'skill-0001: word_count'",
    "'it''s'",
    "''",
    '"a: b # c"',
    '"back\\\\slash"',
    '"tab\there"',
    "2026-05-31",
    "2026-05-31T06:00:00Z",
    "'2026-05-31T06:00:00Z'",
    "2026-05-31 06:00:00",
    "2026-02-30",
    "0012",
    "0x1f",
    "1:20",
    "1e3",
    "1.5",
    ".inf",
    "yes",
    "Off",
    "~",
    "null",
    "Null",
    "true",
    "[a, b]",
    "[]",
    "[ ]",
    "[skill-0001, yes]",
    "[1, 2.5, null]",
    "[a, ]",
    "[a, [b]]",
    "a: b",
    "a #c",
    "a#c",
    "é-ß",
    "a|b (c)",
    "missing_pattern:foo|bar",
    "missing_pattern:x\\|y",
    "'x\\|y'",
    '"x\\|y"',
    "http://x.y/z",
    "foo:",
    "x:y",
    "a  b",
    "- a",
    "&a x",
    "*a",
    "!!str 1",
    "'unterminated",
    "\u2028",
    "a\x85b",
    "{a: b}",
    ">",
    "|",
    "%x",
    "@x",
    "`x`",
]
ITEMS = ["- a", "  - b", "- 'q'", "- 2026-05-31", "- yes", "- a: b", "-  c  ", "- ", "    - d"]


def _loaded(text: str) -> Any:
    try:
        return yaml.load(text, Loader=fm._FAST_LOADER)
    except (yaml.YAMLError, ValueError, TypeError):
        return fm.INVALID


lines = st.one_of(
    st.builds(
        lambda k, v, sp: f"{k}:{sp}{v}",
        st.sampled_from(KEYS),
        st.sampled_from(VALUES),
        st.sampled_from([" ", "  ", ""]),
    ),
    st.sampled_from(ITEMS),
)


@settings(max_examples=3000, deadline=None)
@given(st.lists(lines, min_size=1, max_size=6), st.sampled_from(["\n", "\r\n"]))
def test_the_fast_read_is_the_yaml_read_or_no_answer(body: list[str], eol: str) -> None:
    fm_lines = [line + eol for line in body]
    fast = fm._simple(fm_lines)
    if fast is None:
        return
    loaded = _loaded("".join(fm_lines))
    assert isinstance(loaded, dict), (body, fast)
    assert repr(fast) == repr({str(k): v for k, v in loaded.items()}), body


def test_the_files_this_tool_writes_take_the_fast_read() -> None:
    """What files.render_issue writes (and the bench's older block-list layout) is read fast."""
    ours = [
        "id: ISS-259\n",
        "title: 'skill-0966: no_file_match'\n",
        "status: open\n",
        "detected_at: '2026-06-01T06:00:00Z'\n",
        "resolved_at: null\n",
        "affected_skills: [skill-0966]\n",
        "root_cause: missing_pattern:skill-0056 (complete|done)\n",
    ]
    block = ["affected_skills:\n", "- skill-0010\n", "- skill-0011\n", "root_cause: word_count\n"]
    for fm_lines in (ours, block):
        fast = fm._simple(fm_lines)
        assert fast is not None
        assert repr(fast) == repr(yaml.load("".join(fm_lines), Loader=fm._FAST_LOADER))

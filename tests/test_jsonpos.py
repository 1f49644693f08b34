"""jsonpos: the line each JSON member starts on, as validate names it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from aeon_evals.load.evals_json import decode_json
from aeon_evals.load.manifest import read_manifest
from aeon_evals.text import jsonpos
from aeon_evals.text.jsonpos import duplicate_members, line_of, member_lines

DOC = """{
  "version": "1",
  "skills": {
    "cost-report": {
      "output_pattern": "articles/{x}[y]:,\\"z\\"-*.md",
      "numeric_checks": [
        {"label": "total", "max": 5},
        {
          "label": "n",
          "min": 0
        }
      ],
      "empty": [], "nothing": {}
    },
    "heartbeat": {"section": "### heartbeat"}
  }
}
"""


def test_every_member_is_located_at_its_key_and_every_item_at_its_value() -> None:
    json.loads(DOC)  # the fixture is valid JSON
    lines = member_lines(DOC)
    assert lines == {
        "version": 2,
        "skills": 3,
        "skills.cost-report": 4,
        "skills.cost-report.output_pattern": 5,
        "skills.cost-report.numeric_checks": 6,
        "skills.cost-report.numeric_checks[0]": 7,
        "skills.cost-report.numeric_checks[0].label": 7,
        "skills.cost-report.numeric_checks[0].max": 7,
        "skills.cost-report.numeric_checks[1]": 8,
        "skills.cost-report.numeric_checks[1].label": 9,
        "skills.cost-report.numeric_checks[1].min": 10,
        "skills.cost-report.empty": 13,
        "skills.cost-report.nothing": 13,
        "skills.heartbeat": 15,
        "skills.heartbeat.section": 15,
    }


def test_a_member_that_is_not_there_is_located_at_the_object_that_lacks_it() -> None:
    lines = member_lines(DOC)
    assert line_of(lines, "skills.heartbeat.output_pattern") == 15
    assert line_of(lines, "skills.cost-report.numeric_checks[1].pattern") == 8
    assert line_of(lines, "skills.cost-report.numeric_checks[7]") == 6
    assert line_of(lines, "nowhere") is None
    assert line_of(lines, "") is None


def test_a_key_written_twice_keeps_its_last_line_as_json_loads_keeps_its_last_value() -> None:
    assert member_lines('{"a": 1,\n"b": 2,\n"a": 3}') == {"a": 3, "b": 2}


def test_deep_nesting_does_not_exhaust_the_stack() -> None:
    # five times Python's recursion limit: a recursive scan would fail. (Each level's path holds
    # the levels above it, so the paths alone grow with depth²: 50,000 levels took 3.6 GB, and a
    # pytest worker's peak is what a child it starts reports as its own ru_maxrss on Linux,
    # which failed the alias-bomb memory bounds of tests/test_issues_hostile.py run after it.)
    depth = 5 * sys.getrecursionlimit()
    lines = member_lines("[" * depth + "]" * depth)
    assert lines["[0]"] == 1 and len(lines) == depth - 1


def test_text_that_is_not_json_returns_what_was_read_so_far() -> None:
    assert member_lines('{"a": 1,\n"b": {"c"') == {"a": 1, "b": 2, "b.c": 2}
    assert member_lines('{"bad\\x": 1}') == {}


def test_a_key_written_twice_is_reported_at_its_path_and_the_line_of_the_repeat() -> None:
    text = '{"skills": {\n  "a": {"x": 1,\n    "x": 2},\n  "b": {}, "a": {"x": 3}\n}, "v": 1}'
    assert duplicate_members(text) == [("skills.a.x", 3), ("skills.a", 4)]
    assert duplicate_members(DOC) == []


def test_a_repeated_key_anywhere_is_found_by_the_cheap_check_that_spares_clean_files_the_scan(
    tmp_path: Path,
) -> None:
    """read_manifest locates lines only when something must be located (a clean 1,000-skill
    evals.json paid two member scans, 0.4 s, on every run); the cheap check must still find a
    key written twice at any depth, also when it is the file's only problem."""
    evals = tmp_path / "skills" / "skill-evals" / "evals.json"
    evals.parent.mkdir(parents=True)
    clean = {"skills": {"a": {"output_pattern": "articles/a-*.md", "min_words": 5}}}
    evals.write_text(json.dumps(clean, indent=2), encoding="utf-8")
    manifest = read_manifest(tmp_path)
    assert manifest is not None and manifest.problems == ()
    for repeated, line in (
        (
            '{\n "skills": {\n  "a": {\n   "output_pattern": "articles/a-*.md",\n'
            '   "min_words": 5,\n   "min_words": 6\n  }\n }\n}\n',
            6,
        ),
        (
            '{\n "skills": {"a": {"output_pattern": "articles/a-*.md"}},\n'
            ' "skills": {"a": {"output_pattern": "articles/a-*.md"}}\n}\n',
            3,
        ),
    ):
        evals.write_text(repeated, encoding="utf-8")
        manifest = read_manifest(tmp_path)
        assert manifest is not None
        assert [(p.line, p.message) for p in manifest.problems] == [
            (line, "written twice in the same object; the last one wins")
        ]


DECODE_ERRORS = [
    # (text, the message): the offending token's line, not the line the parser stopped at
    (
        '{\n  "a": 1,\n  "b": [1, 2],\n}\n',
        "invalid JSON: trailing comma at line 3 column 14 (JSON allows none before '}')",
    ),
    (
        "[1,\n 2,\n\n]",
        "invalid JSON: trailing comma at line 2 column 3 (JSON allows none before ']')",
    ),
    (
        '{"a": [1,\r\n]}',
        "invalid JSON: trailing comma at line 1 column 9 (JSON allows none before ']')",
    ),
    (
        '{\n  "a": 1\n  "b": 2\n}',
        "invalid JSON: missing comma at line 2 column 9 (before the next member at line 3 "
        "column 3)",
    ),
    (
        "[1 2]",
        "invalid JSON: missing comma at line 1 column 3 (before the next member at line 1 "
        "column 4)",
    ),
    # anything else as the parser says it
    ('{"skills": {"a": ', "invalid JSON at line 1 column 18: Expecting value"),
    ("", "invalid JSON at line 1 column 1: Expecting value"),
    ("{,}", "invalid JSON at line 1 column 2: Expecting property name enclosed in double quotes"),
    ('{"a" 1}', "invalid JSON at line 1 column 6: Expecting ':' delimiter"),
    ('{"a": 1}\n{}', "invalid JSON at line 2 column 1: Extra data"),
    ('{"a": "b', "invalid JSON at line 1 column 7: Unterminated string starting at"),
]


@pytest.mark.parametrize(("text", "message"), DECODE_ERRORS)
def test_a_json_error_names_the_offending_tokens_line(text: str, message: str) -> None:
    """Issue 33: a trailing comma was reported at the line after it (where the parser stops)."""
    with pytest.raises(json.JSONDecodeError) as failed:
        json.loads(text)
    assert jsonpos.decode_error(text, failed.value) == message
    with pytest.raises(ValueError) as refused:
        decode_json(text.encode())
    assert str(refused.value) == message

"""Round trips for any text: issue frontmatter is strict YAML, INDEX rows keep their shape."""

from __future__ import annotations

import os
import tempfile
from datetime import UTC, date, datetime
from pathlib import Path

import frontmatter
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from realdata import REALDATA, realdata

from aeon_evals import issues
from aeon_evals.issues import IssueRequest, files, keep_issues, read_issues
from aeon_evals.issues import frontmatter as issue_yaml
from aeon_evals.issues.index import Index, cells
from aeon_evals.model import DiffLabel, Status

NOW = datetime(2026, 5, 31, 6, 0, tzinfo=UTC)

# Control-free unicode with line breaks and tabs, and (to be sure) anything st.text() makes.
TEXT = st.one_of(
    st.text(st.characters(blacklist_categories=("Cs", "Cc"), whitelist_characters="\n\t")),
    st.text(),
)
# The YAML-hostile shapes, mixed in so that they are not left to chance.
HOSTILE = st.sampled_from(
    [
        "",
        ": ",
        "a: b",
        "|",
        ">",
        "*x",
        "&x",
        "!x",
        "${var}",
        "#c",
        " - ",
        "'",
        '"',
        "---",
        "...",
        "\n",
        "null",
        "2026-05-31",
    ]
)
CAUSE = st.lists(st.one_of(TEXT, HOSTILE), max_size=4).map("".join)


def _frontmatter(text: str) -> dict[str, object]:
    assert text.startswith("---\n") and text.endswith("\n")
    head, _ = text[4:].split("\n---\n", 1)
    data = yaml.safe_load(head)
    assert isinstance(data, dict)
    return data


@settings(max_examples=150, deadline=None, database=None)
@given(cause=CAUSE, detail=TEXT)
def test_any_root_cause_round_trips(cause: str, detail: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        req = IssueRequest("some-skill", DiffLabel.NEW_FAIL, Status.FAIL, cause, detail, "out/a.md")
        outcome = keep_issues(
            root, [req], [], now=NOW, today=date(2026, 5, 31), article_path="a.md"
        )
        text = (root / outcome.filed[0].path).read_text(encoding="utf-8")
        data = _frontmatter(text)
        assert data["root_cause"] == cause
        assert data["title"] == files._title("some-skill", cause)
        assert frontmatter.loads(text).metadata["root_cause"] == cause
        [issue], warnings = read_issues(root / "memory" / "issues", root=root)
        assert warnings == []
        assert (issue.root_cause, issue.title, issue.affected_skills) == (
            cause,
            data["title"],
            ("some-skill",),
        )
        assert issue.valid_yaml


@settings(max_examples=150, deadline=None, database=None)
@given(title=CAUSE, cause=CAUSE)
def test_any_title_round_trips(title: str, cause: str) -> None:
    issue = issues.IssueFile(
        id="ISS-001",
        path="memory/issues/ISS-001.md",
        title=title,
        status="open",
        severity="high",
        category="unknown",
        detected_by="skill-evals",
        detected_at="2026-05-31T06:00:00Z",
        resolved_at=None,
        affected_skills=("s",),
        root_cause=cause,
    )
    text = files.render_issue(issue, "body\n")
    data = _frontmatter(text)
    assert (data["title"], data["root_cause"]) == (title, cause)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "memory" / "issues").mkdir(parents=True)
        (root / "memory" / "issues" / "ISS-001.md").write_text(text, encoding="utf-8")
        [back], _ = read_issues(root / "memory" / "issues", root=root)
        assert back == issue
        # Closing edits two lines and leaves the frontmatter strict YAML with everything else equal.
        closed = issue_yaml.resolve_text(text, "2026-06-01T06:00:00Z")
        assert closed is not None
        after = _frontmatter(closed)
        assert after == {**data, "status": "resolved", "resolved_at": "2026-06-01T06:00:00Z"}


@settings(max_examples=150, deadline=None, database=None)
@given(title=CAUSE)
def test_index_rows_keep_their_cell_count(title: str) -> None:
    index = Index(None)
    issue = issues.IssueFile(
        "ISS-001", "memory/issues/ISS-001.md", title, "open", "high", "unknown", "skill-evals",
        "2026-05-31T06:00:00Z", None, ("a|b", "c"), "x",
    )  # fmt: skip
    index.add_open(issue)
    rows = [ln for ln in index.text.split("\n") if ln.startswith("| [ISS-001]")]
    assert len(rows) == 1
    assert len(cells(rows[0])) == 6
    index.close(issue, "2026-06-01")
    rows = [ln for ln in index.text.split("\n") if ln.startswith("| [ISS-001]")]
    assert len(rows) == 1 and len(cells(rows[0])) == 5


@given(
    st.lists(
        st.tuples(
            st.text(alphabet="ab-: _x1", max_size=24),
            st.lists(st.text(alphabet="ab-x:", min_size=1, max_size=6), max_size=3),
        ),
        max_size=8,
    ),
    st.text(alphabet="ab-x:_1", min_size=1, max_size=6),
)
def test_naming_index_agrees_with_a_scan_of_every_issue(
    issues: list[tuple[str, list[str]]], skill: str
) -> None:
    """The index that made issue keeping linear finds exactly what scanning each issue finds."""
    from aeon_evals.issues import IssueFile
    from aeon_evals.issues.plan import Naming

    files = [
        IssueFile(
            f"ISS-{n:03d}",
            f"memory/issues/ISS-{n:03d}.md",
            title,
            "open",
            "high",
            "x",
            "skill-evals",
            "",
            None,
            tuple(affected),
            "",
        )
        for n, (title, affected) in enumerate(issues, 1)
    ]
    expected = next((f for f in files if f.names(skill)), None)
    assert Naming(reversed(files)).first(skill) == expected


class _Reparsed(Index):
    """The index parsed again from its own text before every edit."""

    def add_open(self, issue: issues.IssueFile) -> None:
        self._parse(issue_yaml.lines_of(self.text))
        super().add_open(issue)

    def close(self, issue: issues.IssueFile, resolved_on: str) -> None:
        self._parse(issue_yaml.lines_of(self.text))
        super().close(issue, resolved_on)


_INDEXES = sorted(REALDATA.glob("*/memory/issues/INDEX.md@*"))  # all nine real versions
_LAYOUTS = [p.read_text(encoding="utf-8") for p in _INDEXES] + [
    "",
    "# Issues\n",
    "# Issues\n\n## Resolved\n\nNone yet.\n",
    "## Open\n\n_none_\n",
    # structure: sections inside code and comments are not sections; any heading level is
    "```md\n## Open\n| ID |\n|---|\n```\n<!--\n## Resolved\n-->\n### Open\n\n_None_\n",
    "# Issues\n### Resolved\n| ID | Title |\n|---|---|\n| ISS-002 | x |\n#### Notes\n~~~\n# x\n",
]


def test_the_real_indexes_are_among_the_layouts() -> None:
    """Without the real data the round trips below would run on the made-up layouts alone."""
    assert sorted(realdata().glob("*/memory/issues/INDEX.md@*")) == _INDEXES
    assert len(_INDEXES) == 9


@settings(max_examples=200, deadline=None, database=None)
@given(
    layout=st.sampled_from(_LAYOUTS),
    ops=st.lists(st.tuples(st.booleans(), st.integers(1, 40)), max_size=25),
)
def test_edits_that_track_the_sections_give_the_same_index_as_rescanning(
    layout: str, ops: list[tuple[bool, int]]
) -> None:
    """INDEX.md is parsed once into blocks and rows are edited in their table block: the text
    must be exactly what parsing the file again before every edit gives, on every real layout."""
    assert len(_INDEXES) >= 9 or os.environ.get("CI") != "true"
    fast, slow = Index(layout), _Reparsed(layout)
    for add, number in ops:
        issue = issues.IssueFile(
            id=f"ISS-{number:03d}",
            path=f"memory/issues/ISS-{number:03d}.md",
            title=f"t{number}",
            status="open",
            severity="high",
            category="output",
            detected_by="skill-evals",
            detected_at="2026-05-31T06:00:00Z",
            resolved_at=None,
            affected_skills=(f"s{number}",),
            root_cause="word_count",
        )
        for index in (fast, slow):
            index.add_open(issue) if add else index.close(issue, "2026-05-31")
    assert fast.text == slow.text

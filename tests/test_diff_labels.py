"""The diff-label table: every (previous, current) pair maps to exactly one label, as documented."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from aeon_evals.model import DiffLabel, Status
from aeon_evals.report.diff import diff_label

DOC = Path(__file__).resolve().parents[1] / "docs" / "diff-labels.md"


def _doc_table() -> dict[tuple[str, str], str]:
    lines = [line for line in DOC.read_text().splitlines() if line.startswith("| ")]
    header = [c.strip() for c in lines[0].strip("|").split("|")][1:]
    cells: dict[tuple[str, str], str] = {}
    for line in lines[1:]:
        row = [c.strip() for c in line.strip("|").split("|")]
        if not row[0].startswith(("(absent)", "BOOTSTRAP")) and row[0] not in Status.__members__:
            continue
        for current, label in zip(header, row[1:], strict=True):
            cells[(row[0], current)] = label
    return cells


def _name(status: Status | None) -> str:
    return "(absent)" if status is None else status.value


PAIRS = [(p, c) for p in [None, *Status] for c in [*Status, None] if not (p is None and c is None)]
DOC_CELLS = _doc_table()


@pytest.mark.parametrize(
    ("previous", "current"), PAIRS, ids=[f"{_name(p)}->{_name(c)}" for p, c in PAIRS]
)
def test_every_pair_has_the_documented_label(
    previous: Status | None, current: Status | None
) -> None:
    label = diff_label(previous, current)
    assert isinstance(label, DiffLabel)
    assert DOC_CELLS[(_name(previous), _name(current))] == label.value


@pytest.mark.parametrize("current", list(Status))
def test_bootstrap_labels_everything_new(current: Status) -> None:
    label = diff_label(Status.PASS, current, bootstrap=True)
    assert label.value.startswith("NEW_")
    assert DOC_CELLS[("BOOTSTRAP (no previous article)", current.value)] == label.value


def test_table_covers_every_pair() -> None:
    assert len([k for k in DOC_CELLS if not k[0].startswith("BOOTSTRAP")]) == (len(Status) + 1) ** 2


@pytest.mark.parametrize(
    ("previous", "current", "expected"),
    [
        (Status.PASS, Status.STALE, DiffLabel.WORSE),  # the old check's PASS→STALE, now a label
        (Status.STALE, Status.PASS, DiffLabel.BETTER),
        (Status.FAIL, Status.ERROR, DiffLabel.NEW_ERROR),  # a broken spec never closes an issue
        (Status.NO_OUTPUT, Status.FAIL, DiffLabel.STILL_FAIL),
        (Status.PASS, Status.QUALITY_DEGRADED, DiffLabel.NEW_QUALITY_DEGRADED),
        (Status.QUALITY_DEGRADED, Status.PASS, DiffLabel.FIXED),
    ],
)
def test_named_transitions(previous: Status, current: Status, expected: DiffLabel) -> None:
    assert diff_label(previous, current) is expected


def test_absent_from_both_runs_is_refused() -> None:
    with pytest.raises(ValueError, match="absent from both"):
        diff_label(None, None)


def test_doc_mentions_every_label() -> None:
    text = DOC.read_text()
    for label in DiffLabel:
        assert re.search(rf"\b{label.value}\b", text), label


_statuses = st.sampled_from([None, *Status])


@given(_statuses, _statuses)
def test_labels_follow_the_failing_rules(previous: Status | None, current: Status | None) -> None:
    """Property: whatever the pair, the label agrees with SPEC §5's definitions."""
    if previous is None and current is None:
        return
    label = diff_label(previous, current)
    if current is None:
        assert label is DiffLabel.NEW_NO_COVERAGE
    elif current is Status.ERROR:
        assert label in (DiffLabel.NEW_ERROR, DiffLabel.STABLE)
    elif previous is None:
        assert label.value.startswith("NEW_")
    else:
        assert (label is DiffLabel.STILL_FAIL) == (previous.failing and current.failing)
        assert (label is DiffLabel.FIXED) == (previous.failing and not current.failing)
        assert (label in (DiffLabel.NEW_FAIL, DiffLabel.NEW_QUALITY_DEGRADED)) == (
            not previous.failing and current.failing
        )
        assert (label is DiffLabel.STABLE) == (previous is current and not current.failing)

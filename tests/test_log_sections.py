"""A skill that writes a section of the shared daily log is judged on its newest entry, at any age:
one that missed its runs is STALE (then FAIL stale_file) as an article skill is, not FAIL
missing_section on a log it had no reason to be in."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from conftest import Instance
from hypothesis import given, settings
from hypothesis import strategies as st

from aeon_evals.text.sections import HeadingIndex, headings, want

Cli = Callable[..., tuple[int, str, str]]

LOG_SPEC = {"output_pattern": "memory/logs/*.md", "section": "### digest", "min_words": 3}
ARTICLE_SPEC = {"output_pattern": "articles/report-*.md", "min_words": 3}


def _fleet(instance: Instance, *, digest_days: list[str], log_days: list[str]) -> None:
    """`digest` (daily at 05:00) writes `### digest` into the logs of `digest_days`; `other` writes
    its own section into every log of `log_days`; `report` (daily at 05:00) writes an article."""
    instance.aeon_yml({"digest": (True, "0 5 * * *"), "report": (True, "0 5 * * *")})
    instance.evals({"digest": LOG_SPEC, "report": ARTICLE_SPEC})
    for day in sorted({*digest_days, *log_days}):
        text = f"# {day}\n\n### other\nother skill wrote its lines here today\n"
        if day in digest_days:
            text += "\n### digest\nfive fresh words for today\n"
        instance.write(f"memory/logs/{day}.md", text)


def _rows(cli: Cli, instance: Instance, now: str) -> dict[str, dict[str, Any]]:
    code, out, err = cli(
        "run", "--root", str(instance.root), "--now", now, "--json", "--no-notify", "--no-site"
    )
    assert code == 0, err
    return {s["skill"]: s for s in json.loads(out)["skills"]}


def test_log_section_skill_that_missed_its_runs_is_stale_not_missing_section(
    instance: Instance, cli: Cli
) -> None:
    """The acceptance finding: last entry three days old, the logs since then written by others.
    Before, the newest log was read (FAIL missing_section); now the row is STALE exactly as the
    article skill whose last article is as old."""
    _fleet(
        instance,
        digest_days=["2026-05-28"],
        log_days=["2026-05-28", "2026-05-29", "2026-05-30", "2026-05-31"],
    )
    instance.write("articles/report-2026-05-28.md", "# report\n\nfive fresh words for today\n")
    rows = _rows(cli, instance, "2026-05-31T08:00:00Z")
    for skill in ("digest", "report"):
        assert rows[skill]["status"] == "STALE", rows[skill]
        assert [c["code"] for c in rows[skill]["root_causes"]] == ["stale_file"]
    assert rows["digest"]["output"]["path"] == "memory/logs/2026-05-28.md"
    assert rows["digest"]["notes"] == [
        "used memory/logs/2026-05-28.md: the newest log with an entry; none since its last "
        "expected run (2026-05-31 05:00 UTC)"
    ]
    assert rows["digest"]["root_causes"][0]["detail"].startswith(
        "output 2.3 days old, expected daily (cron `0 5 * * *`); stale after 2 days"
    )


def test_log_section_skill_silent_past_three_cadences_fails_stale_file(
    instance: Instance, cli: Cli
) -> None:
    """Older still: FAIL stale_file (a skill gone quiet alerts), as for an article."""
    _fleet(instance, digest_days=["2026-05-25"], log_days=["2026-05-25", "2026-05-30"])
    instance.write("articles/report-2026-05-25.md", "# report\n\nfive fresh words for today\n")
    rows = _rows(cli, instance, "2026-05-31T08:00:00Z")
    for skill in ("digest", "report"):
        assert rows[skill]["status"] == "FAIL", rows[skill]
        assert [c["code"] for c in rows[skill]["root_causes"]] == ["stale_file"]


def test_log_section_skill_that_missed_todays_run_is_judged_on_yesterdays_entry(
    instance: Instance, cli: Cli
) -> None:
    """Today's log exists (others wrote) without the section although the skill was due at
    05:00: one missed run is not an alarm for an article skill either; yesterday's entry is
    judged, and the row says which log was read."""
    _fleet(instance, digest_days=["2026-05-30"], log_days=["2026-05-30", "2026-05-31"])
    instance.write("articles/report-2026-05-30.md", "# report\n\nfive fresh words for today\n")
    rows = _rows(cli, instance, "2026-05-31T08:00:00Z")
    assert rows["report"]["status"] == "PASS"
    assert rows["digest"]["status"] == "PASS", rows["digest"]
    assert rows["digest"]["output"]["path"] == "memory/logs/2026-05-30.md"
    assert rows["digest"]["notes"] == [
        "used memory/logs/2026-05-30.md: the newest log with an entry; none since its last "
        "expected run (2026-05-31 05:00 UTC)"
    ]


def test_a_section_found_in_no_log_is_still_missing_section(instance: Instance, cli: Cli) -> None:
    """No log holds the section at all (a wrong heading, or a skill that never ran): the newest
    log is judged and the row says the section is missing, as before."""
    _fleet(instance, digest_days=[], log_days=["2026-05-29", "2026-05-30", "2026-05-31"])
    instance.write("articles/report-2026-05-30.md", "# report\n\nfive fresh words for today\n")
    rows = _rows(cli, instance, "2026-05-31T08:00:00Z")
    assert rows["digest"]["status"] == "FAIL"
    assert rows["digest"]["root_causes"][0]["code"] == "missing_section"
    assert rows["digest"]["output"]["path"] == "memory/logs/2026-05-31.md"
    assert rows["digest"]["notes"] == []


def test_todays_entry_is_used_when_there_is_one(instance: Instance, cli: Cli) -> None:
    """The skill ran today: its entry in today's log is judged, no note."""
    _fleet(instance, digest_days=["2026-05-30", "2026-05-31"], log_days=["2026-05-30"])
    instance.write("articles/report-2026-05-31.md", "# report\n\nfive fresh words for today\n")
    rows = _rows(cli, instance, "2026-05-31T08:00:00Z")
    assert rows["digest"]["status"] == "PASS"
    assert rows["digest"]["output"]["path"] == "memory/logs/2026-05-31.md"
    assert rows["digest"]["notes"] == []


_HEADING_RE = re.compile(rb"(?m)^(#{1,6})[ \t]+([^\r\n]*)")


@settings(max_examples=2000, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [b"#", b"##", b" ", b"\t", b"\n", b"\r", b"\r\n", b"a", b"B", b"\xc3\xa9", b"-"]
        ),
        max_size=40,
    ).map(b"".join)
)
def test_headings_found_by_byte_search_are_the_regular_expressions(block: bytes) -> None:
    """text.sections.headings finds headings by byte searches for a line break and `#` (the
    regular expression it replaced was most of the indexing time of a 1,000-skill run's logs):
    the same headings, offsets, levels, titles and lines as `^(#{1,6})[ \\t]+([^\\r\\n]*)`."""
    expected = [
        (
            m.start(),
            len(m.group(1)),
            m.group(2).decode("utf-8", errors="replace").strip().lower(),
            block[m.start() : m.end()],
        )
        for m in _HEADING_RE.finditer(block)
    ]
    assert headings(block) == expected


@settings(max_examples=500, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(1, 4),
            st.sampled_from(
                [
                    "heartbeat",
                    "token-alert",
                    "token: daily",
                    "Token_Alert v2",
                    "heartbeat (08:04Z)",
                    "price threshold alert",
                    "x",
                    "x.y",
                    "other",
                ]
            ),
        ),
        max_size=20,
    ),
    st.lists(
        st.sampled_from(["heartbeat", "token-alert", "token", "Price Threshold Alert", "x"]),
        min_size=1,
        max_size=5,
    ),
)
def test_spans_of_many_wanted_headings_are_each_ones_spans(
    found: list[tuple[int, str]], wanted: list[str]
) -> None:
    """HeadingIndex.spans_of (each heading looked up by its name prefixes) gives what `spans`
    gives for each wanted heading, one search each."""
    block = "\n".join(f"{'#' * level} {title}\ntext" for level, title in found).encode()
    index = HeadingIndex(block)
    wants = [want(f"### {w}") for w in wanted]
    assert index.spans_of(wants) == [index.spans(w) for w in wants]

"""Checks a–g on real outputs and on small crafted files."""

from __future__ import annotations

import fnmatch
import itertools
import re
import signal
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from conftest import Instance
from hypothesis import given, settings
from hypothesis import strategies as st
from realdata import put, realdata

from aeon_evals.checks.content import check_content
from aeon_evals.checks.skill import Context, evaluate
from aeon_evals.load.cadence import (
    CronError,
    cron_gap_days,
    expected_cadence_days,
    next_fire,
    previous_fire,
)
from aeon_evals.load.outputs import Outputs, name_matcher
from aeon_evals.load.state import Health
from aeon_evals.model import NumericCheck, Registration, Spec, Status
from aeon_evals.text.patterns import PatternError, compile_pattern
from aeon_evals.text.sections import (
    HeadingIndex,
    Want,
    extract_sections,
    heading_key,
    starts_section,
)

NOW = datetime(2026, 5, 3, 6, 0, tzinfo=UTC)


def ctx(
    schedule: str | None = "0 7 * * *",
    *,
    health: float | None = None,
    now: datetime = NOW,
    enabled: bool = True,
) -> Context:
    return Context(
        Registration("s", enabled, schedule),
        None,
        Health(health) if health is not None else None,
        now,
        now.date(),
    )


@pytest.fixture
def hang_guard() -> Iterator[None]:
    """Not a timing assertion: a hard stop so a catastrophic pattern can never hang the suite."""
    signal.signal(signal.SIGALRM, lambda *_: pytest.fail("pattern matching did not finish"))
    signal.alarm(20)
    yield
    signal.alarm(0)


@pytest.mark.parametrize(
    ("cron", "days"),
    [
        ("0 8 * * 1,3", 5.0),
        ("0 7 * * *", 1.0),
        ("0 9,21 * * *", 0.5),
        ("0 10 * * 1", 7.0),
        ("25 7 2/2 * *", 3.0),
        ("*/30 * * * *", 1 / 48),
        ("0 0 1 * *", 31.0),
    ],
)
def test_cadence_is_the_longest_gap_between_fires(cron: str, days: float) -> None:
    assert cron_gap_days(cron) == pytest.approx(days)


def _croniter_longest_gap(cron: str, years: int = 8) -> float:
    """The longest gap between consecutive fire times, by plain croniter iteration."""
    from croniter import croniter

    it = croniter(cron, datetime(2024, 1, 1))
    fires = [it.get_next(datetime)]
    while fires[-1] < datetime(2024 + years, 1, 1):
        fires.append(it.get_next(datetime))
    return max((b - a).total_seconds() for a, b in itertools.pairwise(fires)) / 86400


@pytest.mark.parametrize(
    ("cron", "days"),
    [
        ("0 0 */20 * *", 20.0),
        ("0 0 */25 * *", 25.0),
        ("0 0 1,21 * *", 20.0),
        ("0 6 5/10 * *", 11.0),
    ],
)
def test_cron_gap_days_day_of_month_step_was_15_days(cron: str, days: float) -> None:
    """`*/20` counted as an unrestricted day of month: two weeks were scanned, 15 days came out."""
    assert cron_gap_days(cron) == pytest.approx(days)
    assert cron_gap_days(cron) == pytest.approx(_croniter_longest_gap(cron))


_CRON_FIELDS = (
    ["*", "0", "30", "59", "*/15", "5,35", "0-10/5", "10-20"],
    ["*", "0", "6", "23", "*/6", "8-18", "6,18", "22-23"],
    ["*", "1", "15", "29", "31", "1-7", "1,15", "*/2", "*/10", "5/10", "1-31", "30,31"],
    ["*", "1", "2", "2,8", "*/3", "jan", "DEC", "feb-apr", "1-12"],
    ["*", "0", "1", "7", "1-5", "mon", "sat,sun", "*/2", "0-6", "2/3"],
)


@settings(max_examples=500, deadline=None)
@given(
    fields=st.tuples(*(st.sampled_from(choices) for choices in _CRON_FIELDS)),
    now=st.datetimes(datetime(2019, 1, 1), datetime(2031, 12, 31)),
)
def test_previous_fire_is_croniters_get_prev(fields: tuple[str, ...], now: datetime) -> None:
    """previous_fire walks back over the expanded fields instead of building a croniter per
    schedule (0.3 ms each, every schedule of the fleet each run): the same time croniter gives,
    whatever the day-of-month and weekday fields and the seconds of `now`."""
    from croniter import croniter

    expr = " ".join(fields)
    now = now.replace(tzinfo=UTC)
    try:
        expected = croniter(expr, now + timedelta(seconds=1)).get_prev(datetime)
    except Exception:  # never fires (the 31st of February): croniter answers as before
        return
    previous_fire.cache_clear()
    assert previous_fire(expr, now) == expected


@settings(max_examples=500, deadline=None)
@given(
    fields=st.tuples(*(st.sampled_from(choices) for choices in _CRON_FIELDS)),
    now=st.datetimes(datetime(2019, 1, 1), datetime(2031, 12, 31)),
)
def test_next_fire_is_croniters_get_next(fields: tuple[str, ...], now: datetime) -> None:
    """next_fire (the "first slot" of a skill not run yet) walks forward over the expanded fields,
    with no croniter on a warm run: the same time croniter gives."""
    from croniter import croniter

    expr = " ".join(fields)
    now = now.replace(tzinfo=UTC)
    try:
        expected = croniter(expr, now).get_next(datetime)
    except Exception:  # never fires (the 31st of February)
        return
    assert next_fire(expr, now) == expected


@pytest.mark.parametrize(
    "schedule", ["workflow_dispatch", "reactive", None, "@daily", "0 7 * * * *", "not a cron"]
)
def test_cadence_falls_back_to_14_days(schedule: str | None) -> None:
    assert expected_cadence_days(schedule, None) == (14.0, "fallback")


def test_six_fields_is_not_a_cron() -> None:
    with pytest.raises(CronError, match="6 fields"):
        cron_gap_days("0 0 7 * * *")


def _spec(**kw: object) -> Spec:
    kw.setdefault("output_pattern", "x")
    return Spec(skill="s", **kw)  # type: ignore[arg-type]


def test_word_count_is_wc_w() -> None:
    causes, words, _ = check_content(
        _spec(min_words=6), [b"one  two\tthree\nfour \xff\xfe five-six"]
    )
    assert words == 6 and causes == []  # like `wc -w`: invalid UTF-8 bytes are a word too
    causes, words, _ = check_content(_spec(min_words=500), [b"a b c"])
    assert [c.code for c in causes] == ["word_count"] and causes[0].detail == "3 words, minimum 500"


def test_patterns_grep_semantics() -> None:
    spec = _spec(
        required_patterns=("^## Summary$", "[[:digit:]]{3}", r"alpha\|beta"),
        forbidden_patterns=(r"\$\{var\}",),
    )
    causes, _, _ = check_content(spec, [b"intro\n## Summary\nbeta 123\n"])
    assert causes == []
    causes, _, _ = check_content(spec, [b"## Summary trailing\n12 ${var}\n"])
    assert [c.code for c in causes] == [
        "missing_pattern:^## Summary$",
        "missing_pattern:[[:digit:]]{3}",
        r"missing_pattern:alpha\|beta",
        r"forbidden_pattern:\$\{var\}",
    ]


@pytest.mark.parametrize(
    ("text", "code", "status"),
    [
        (b"Spend: $1,234.50 this week", None, None),
        (b"Spend: $250,000 this week", "numeric_oob:usd", Status.FAIL),
        (b"no numbers here", "numeric_missing:usd", Status.WARN),
    ],
)
def test_numeric_checks(text: bytes, code: str | None, status: Status | None) -> None:
    spec = _spec(numeric_checks=(NumericCheck("usd", r"\$([\d,.]+)", 0, 100000),))
    causes, _, _ = check_content(spec, [text])
    assert [(c.code, c.status) for c in causes] == ([] if code is None else [(code, status)])


def test_numeric_missing_can_be_skipped() -> None:
    spec = _spec(numeric_checks=(NumericCheck("usd", r"\$([\d.]+)", 0, 1, skip_if_not_found=True),))
    assert check_content(spec, [b"nothing"])[0] == []


@pytest.mark.parametrize("pattern", ["(a)\\1", "(?<=a)b", "(?=x)", "[unclosed"])
def test_patterns_re2_cannot_run_are_refused(pattern: str) -> None:
    with pytest.raises(PatternError, match="does not compile"):
        compile_pattern(pattern)


@pytest.mark.parametrize(
    ("pattern", "matches"),
    [
        ("(a+)+$", False),
        ("(x|x)*y", False),
        ("(a|aa)*c", False),
        ("(.*a){20}", True),
        ("^(a|a?)+$", False),
    ],
)
def test_catastrophic_patterns_finish_on_a_megabyte(
    pattern: str, matches: bool, hang_guard: None
) -> None:
    text = b"a" * 1_000_000 + b"!"
    causes, words, _ = check_content(_spec(required_patterns=(pattern,)), [text])
    assert words == 1 and len(causes) == (0 if matches else 1)


def test_sections_of_a_shared_log() -> None:
    log = (
        b"# 2026-05-02\n### token-alert\nTOKEN_ALERT one\n## Token Pick\nother\n### heartbeat "
        b"(08:00)\nok\n### token-alert (2nd run)\nTOKEN_ALERT two\n### token-alerts-v2\nnot ours\n"
    )
    assert (
        b"".join(extract_sections([log], "### token-alert"))
        == b"### token-alert\nTOKEN_ALERT one\n### token-alert (2nd run)\nTOKEN_ALERT two\n"
    )
    assert b"".join(extract_sections([log], "### Heartbeat")) == b"### heartbeat (08:00)\nok\n"
    assert (
        b"".join(extract_sections([log], "## heartbeat")) == b"### heartbeat (08:00)\nok\n"
    )  # any level
    assert (
        b"".join(extract_sections([log], r"^#+ Token Pick"))
        == b"## Token Pick\nother\n### heartbeat (08:00)\nok\n### token-alert (2nd "
        b"run)\nTOKEN_ALERT two\n### token-alerts-v2\nnot ours\n"
    )


def test_heartbeat_section_ignores_other_skills_var_lines(tmp_path: Path) -> None:
    """aeonfun 2026-05-02: three `${var}` lines from other skills failed heartbeat (ISS-018)."""
    inst = Instance(tmp_path)
    put(
        realdata() / "aeonfun__aeon/memory/logs/2026-05-02.md",
        inst.root / "memory/logs/2026-05-02.md",
    )
    log = (inst.root / "memory/logs/2026-05-02.md").read_bytes()
    assert log.count(b"${var}") >= 3
    base = {
        "output_pattern": "memory/logs/*.md",
        "min_words": 20,
        "required_patterns": ("heartbeat|Heartbeat|HEARTBEAT",),
        "forbidden_patterns": (r"\$\{var\}",),
    }
    whole = evaluate(Spec(skill="heartbeat", **base), Outputs(inst.root), ctx("0 8,14,20 * * *"))  # type: ignore[arg-type]
    assert (
        whole.status is Status.FAIL
        and whole.head
        and whole.head.code == r"forbidden_pattern:\$\{var\}"
    )
    scoped = evaluate(
        Spec(skill="heartbeat", section="### heartbeat", **base),
        Outputs(inst.root),
        ctx("0 8,14,20 * * *"),
    )  # type: ignore[arg-type]
    assert scoped.status is Status.PASS, scoped.causes


def test_precedence_and_every_cause_kept(tmp_path: Path) -> None:
    inst = Instance(tmp_path)
    inst.write("articles/r-2026-04-01.md", "tiny ${var}\n")
    spec = Spec(
        skill="r",
        output_pattern="articles/r-*.md",
        min_words=100,
        required_patterns=("Aeon",),
        forbidden_patterns=(r"\$\{var\}",),
    )
    result = evaluate(spec, Outputs(inst.root), ctx("0 7 * * 1", health=2.0))
    assert result.status is Status.FAIL
    # The output is more than 3 weekly cadences old: stale_file is a failure (issue 15) and,
    # found first (check b), heads the row.
    assert [(c.status, c.code) for c in result.causes] == [
        (Status.FAIL, "stale_file"),
        (Status.FAIL, "word_count"),
        (Status.FAIL, "missing_pattern:Aeon"),
        (Status.FAIL, r"forbidden_pattern:\$\{var\}"),
        (Status.QUALITY_DEGRADED, "quality_score:2"),
    ]


def test_newest_output_sorts_last_by_name_and_age_comes_from_the_name(tmp_path: Path) -> None:
    inst = Instance(tmp_path)
    for day in ("2026-04-20", "2026-05-01", "2026-04-30"):
        inst.write(f"articles/c-{day}.md", "cost report " * 20)
    result = evaluate(
        Spec(skill="c", output_pattern="articles/c-*.md", min_words=10),
        Outputs(inst.root),
        ctx("0 7 * * 1"),
    )
    assert result.output and result.output.path == "articles/c-2026-05-01.md"
    assert result.output.age_source == "filename" and result.output.age_days == pytest.approx(1.25)
    assert result.status is Status.PASS


def test_stale_against_the_cron_cadence(tmp_path: Path) -> None:
    inst = Instance(tmp_path)
    inst.write("articles/c-2026-04-18.md", "cost report " * 20)
    result = evaluate(
        Spec(skill="c", output_pattern="articles/c-*.md"), Outputs(inst.root), ctx("0 7 * * 1")
    )
    assert result.status is Status.STALE
    assert result.head and "stale after 14 days" in result.head.detail


def test_no_output_and_empty_file(tmp_path: Path) -> None:
    inst = Instance(tmp_path)
    assert (
        evaluate(
            Spec(skill="x", output_pattern="articles/x-*.md"), Outputs(inst.root), ctx()
        ).status
        is Status.NO_OUTPUT
    )
    inst.write("articles/x-2026-05-02.md", "")
    result = evaluate(
        Spec(skill="x", output_pattern="articles/x-*.md", min_words=5), Outputs(inst.root), ctx()
    )
    assert result.status is Status.FAIL and [c.code for c in result.causes] == ["empty_file"]


def test_quality_from_skill_health(tmp_path: Path) -> None:
    inst = Instance(tmp_path)
    inst.write("articles/q-2026-05-02.md", "fine words here")
    spec = Spec(skill="q", output_pattern="articles/q-*.md")
    assert evaluate(spec, Outputs(inst.root), ctx(health=2.4)).status is Status.QUALITY_DEGRADED
    ok = evaluate(spec, Outputs(inst.root), ctx(health=3.0))
    assert ok.status is Status.PASS and ok.quality == "avg=3"


def test_real_outputs_pass_their_real_specs(tmp_path: Path) -> None:
    inst = Instance(tmp_path)
    src = realdata() / "aeonfun__aeon/articles"
    for f in src.iterdir():
        put(f, inst.root / "articles" / f.name)
    import json

    specs = json.loads(
        (realdata() / "aeonfun__aeon/skills/skill-evals/evals.json@2026-04-09_9c0184c5").read_text()
    )["skills"]
    now = datetime(2026, 5, 3, 6, 41, tzinfo=UTC)
    outputs = Outputs(inst.root)
    got = {}
    for skill in (
        "changelog",
        "repo-article",
        "repo-actions",
        "cost-report",
        "push-recap",
        "deep-research",
    ):
        raw = specs[skill]
        spec = Spec(
            skill=skill,
            output_pattern=raw["output_pattern"],
            min_words=raw["min_words"],
            required_patterns=tuple(raw["required_patterns"]),
            forbidden_patterns=tuple(raw["forbidden_patterns"]),
        )
        got[skill] = evaluate(spec, outputs, ctx("workflow_dispatch", now=now)).status
    # the real 2026-05-03 article: repo-article FAIL (missing Aeon|aeon), the rest PASS
    assert got == {
        "changelog": Status.PASS,
        "repo-article": Status.FAIL,
        "repo-actions": Status.PASS,
        "cost-report": Status.PASS,
        "push-recap": Status.PASS,
        "deep-research": Status.PASS,
    }
    assert date(2026, 5, 3) == now.date()


@settings(max_examples=400, deadline=None)
@given(
    prefix=st.text(alphabet="ab.-_é", max_size=4),
    suffix=st.text(alphabet="ab.-_é", max_size=4),
    name=st.text(alphabet="ab.-_é\n", max_size=10),
)
def test_one_star_names_match_exactly_as_fnmatch(prefix: str, suffix: str, name: str) -> None:
    pattern = f"{prefix}*{suffix}"
    assert bool(name_matcher(pattern)(name)) == fnmatch.fnmatchcase(name, pattern)


@pytest.mark.parametrize("pattern", ["a?b*.md", "[ab]*x", "*a*b", "exact.md", "**"])
def test_other_names_still_go_through_fnmatch(pattern: str) -> None:
    for name in ("a1b-x.md", "ax", "bbx", "zab", "exact.md", "", "xaxb"):
        assert bool(name_matcher(pattern)(name)) == fnmatch.fnmatchcase(name, pattern), (
            pattern,
            name,
        )


_TITLES = st.sampled_from(
    ["a", "A", "a-b", "ab", "a (12:00)", "a:ok", "a_b", "b", "skill-evals", "a b", "A  B", "a-b-c"]
)
_LINES = st.one_of(
    st.tuples(st.integers(1, 4), _TITLES).map(lambda h: f"{'#' * h[0]} {h[1]}"),
    st.sampled_from(["text", "", "  - item", "#nospace", "a"]),
)


@settings(max_examples=400, deadline=None)
@given(
    lines=st.lists(_LINES, max_size=25),
    section=st.sampled_from(
        ["### a", "## a-b", "# ab", "a", "### skill-evals", "#### A B", "a-b|b", "## a_b c"]
    ),
    keep=st.booleans(),
)
def test_indexed_sections_are_the_walked_sections(
    lines: list[str], section: str, keep: bool
) -> None:
    """The heading index (used for shared logs) cuts exactly what a walk over every heading cuts."""
    block = ("\n".join(lines) + "\n").encode()
    walked = [c for c in extract_sections([block], section, keep=keep) if c]
    indexed = [
        c for c in extract_sections([block], section, keep=keep, index=HeadingIndex(block)) if c
    ]
    assert indexed == walked


def test_a_log_heading_matches_whatever_its_level_case_and_separators() -> None:
    """aeonfun's logs: `## Token Pick`, `## daily-routine`, `### Mention Radar` are the skills
    `token-pick`, `daily-routine`, `mention-radar` (25 of 32 stub failures were missing_section)."""
    log = (
        b"# 2026-05-02\n## Token Pick\npick one\n## mention_radar\nradar\n"
        b"## Daily Routine (08:00)\nroutine\n## token-pick-v2\nnot ours\n## token picks\nnor this\n"
    )
    assert b"".join(extract_sections([log], "### token-pick")) == b"## Token Pick\npick one\n"
    assert b"".join(extract_sections([log], "### Mention Radar")) == b"## mention_radar\nradar\n"
    assert (
        b"".join(extract_sections([log], "## daily-routine"))
        == b"## Daily Routine (08:00)\nroutine\n"
    )
    indexed = extract_sections([log], "### token_pick", index=HeadingIndex(log))
    assert b"".join(indexed) == b"## Token Pick\npick one\n"


_TITLE_CHARS = st.sampled_from(list("ab-_ .:()\t\u00a0\u2003\x1cé1"))


@settings(max_examples=600, deadline=None)
@given(
    title=st.text(_TITLE_CHARS, max_size=14),
    heading=st.text(_TITLE_CHARS, max_size=10),
)
def test_a_heading_title_starts_a_section_as_the_regular_expression_said(
    title: str, heading: str
) -> None:
    """`starts_section` once compiled a regular expression per wanted heading (the words of its
    key joined by `[-_\\s]+`, 300 compiles at 1,000 skills); the string walk that replaced it
    decides exactly as that expression did, separators and Unicode white space included."""
    title = title.strip().lower()
    key = heading_key(heading)
    rx = re.compile("[-_\\s]+".join(re.escape(w) for w in key.split(" ")) if key else "")
    found = rx.match(title)
    rest = title[found.end() :] if found is not None else None
    expected = rest is not None and (not rest or not (rest[0].isalnum() or rest[0] in "-_"))
    assert starts_section(title, title.encode(), Want(key=key)) is expected


def test_required_headings_match_at_any_level_case_and_separator() -> None:
    spec = _spec(required_headings=("## Summary", "## PRs included", "### Next-Steps"))
    text = b"# Title\n### summary\nx\n## prs_included (3)\ny\n## Next steps\nz\n"
    causes, _, _ = check_content(spec, [text])
    assert causes == []
    causes, _, _ = check_content(spec, [b"# Title\n## Summaryish\nSummary in prose\n"])
    assert [c.code for c in causes] == [
        "missing_heading:## Summary",
        "missing_heading:## PRs included",
        "missing_heading:### Next-Steps",
    ]
    assert all(c.status is Status.FAIL for c in causes)


def test_newest_output_is_chosen_by_the_date_in_its_name(tmp_path: Path) -> None:
    """A slug before the date must not decide: `insider-trading-…-04-27` sorts after
    `ceasefire-…-05-02`."""
    inst = Instance(tmp_path)
    inst.write("articles/research-brief-ceasefire-2026-05-02.md", "new " * 50)
    inst.write("articles/research-brief-insider-trading-2026-04-27.md", "old " * 50)
    spec = _spec(output_pattern="articles/research-brief-*.md")
    result = evaluate(spec, Outputs(inst.root), ctx())
    assert result.output and result.output.path == "articles/research-brief-ceasefire-2026-05-02.md"
    # files without a date keep the name order; a dated file is newer than an undated one
    inst.write("articles/notes-b.md", "b " * 50)
    inst.write("articles/notes-a.md", "a " * 50)
    result = evaluate(_spec(output_pattern="articles/notes-*.md"), Outputs(inst.root), ctx())
    assert result.output and result.output.path == "articles/notes-b.md"
    inst.write("articles/notes-2026-01-01.md", "c " * 50)
    result = evaluate(_spec(output_pattern="articles/notes-*.md"), Outputs(inst.root), ctx())
    assert result.output and result.output.path == "articles/notes-2026-01-01.md"


def test_a_schedule_that_never_fires_crashed_the_run_when_its_skill_failed(
    instance: Instance,
) -> None:
    """`0 0 31 2 *` (the 31st of February) is refused by validate, yet the run asked croniter for
    its previous fire to judge the failing skill and died with an internal error
    (CroniterBadDateError). It has no previous fire: the skill is judged as it stands."""
    from aeon_evals.cli import main

    instance.aeon_yml({"feb": (True, "0 0 31 2 *")})
    instance.evals({"feb": {"output_pattern": "articles/feb-*.md", "min_words": 100}})
    instance.write("articles/feb-2026-05-28.md", "few words\n")
    argv = ["run", "--root", str(instance.root), "--now", "2026-05-31T06:00:00Z", "--no-notify"]
    assert main([*argv, "--no-site", "--dry-run"]) == 0


def test_outputs_released_after_the_checks_answer_as_before(tmp_path: Path) -> None:
    """The run releases what the checks read before its dashboard (boot pass: ~10 MB at 1,000
    skills); anything asked afterwards is listed and read again, with the same answers, and a
    list of names handed out before is left whole."""
    for day in ("2026-05-01", "2026-05-02"):
        (tmp_path / "articles").mkdir(exist_ok=True)
        (tmp_path / f"articles/a-{day}.md").write_text(f"# a {day}\nwords here\n")
    outputs = Outputs(tmp_path)
    names = outputs.names("articles")
    match = outputs.matches("articles/a-*.md")
    body = outputs.read(match.files[-1])
    outputs.release()
    assert names == ["a-2026-05-01.md", "a-2026-05-02.md"]
    assert outputs.matches("articles/a-*.md") == match
    assert outputs.read(match.files[-1]) == body
    assert outputs.names("articles") == names

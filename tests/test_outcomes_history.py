"""Runs split out of real daily logs, a skill's history and streaks, the judgement of its newest
run (the permanent-noop rule included), and the fleet-level causes."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
import yaml
from realdata import realdata
from test_outcomes_realdata import AEONFUN, DA6HKIN, MIROSHARK, SKOPOS, load, log_text

from aeon_evals.outcomes import (
    Basis,
    FleetKind,
    Judgement,
    Outcome,
    OutcomeClass,
    Run,
    RunOutcome,
    Verdict,
    extract_vocabulary,
    fleet_findings,
    fleet_silent,
    history,
    judge,
    log_runs,
    shared_signatures,
    skill_headings,
    streak,
)
from aeon_evals.outcomes.model import History

# --- runs in a daily log ---------------------------------------------------------------------


def runs_of(name: str, skill: str, day: str) -> list[Run]:
    return [r for r in load(name).runs[skill] if r.day.isoformat() == day]


def test_heartbeat_three_times_a_day_is_three_runs() -> None:
    runs = runs_of(DA6HKIN, "heartbeat", "2026-07-11")
    assert [(r.source, r.order, r.text.splitlines()[0]) for r in runs] == [
        ("memory/logs/2026-07-11.md:187", 0, "### heartbeat (08:06Z)"),
        ("memory/logs/2026-07-11.md:282", 1, "### heartbeat (14:00Z)"),
        ("memory/logs/2026-07-11.md:420", 2, "### heartbeat (20:02Z)"),
    ]


def test_a_heading_then_the_contract_section_is_one_run() -> None:
    """skopos 07-20: `### price-alert`, then two `## Price Threshold Alert` blocks (the
    contract's log section) back to back: one run, read from its Status line."""
    (run,) = runs_of(SKOPOS, "price-alert", "2026-07-20")
    assert run.text.count("## Price Threshold Alert") == 2
    assert "### narrative-tracker" not in run.text
    assert len(runs_of(SKOPOS, "price-alert", "2026-07-19")) == 3  # three runs, apart


def test_a_facet_section_and_the_main_section_are_one_run() -> None:
    """`### defi-overview (positions)` then `### defi-overview`: the two facets of one run."""
    runs = runs_of(SKOPOS, "defi-overview", "2026-07-11")
    assert [r.source.rsplit(":", 1)[1] for r in runs] == ["25", "52", "84"]
    assert all("- Status: DEFI_MONITOR_NO_CONFIG" in r.text and "- Take:" in r.text for r in runs)


def test_a_section_ends_where_another_skill_starts_whatever_the_level() -> None:
    """Da6hkin 07-11: `## vienna-apartments sweep` is followed by `### github-trending`; the
    checks' own rule (same or higher level) would hand vienna-apartments github-trending's
    text and its `GITHUB_TRENDING_OK`."""
    (run,) = runs_of(DA6HKIN, "vienna-apartments", "2026-07-11")
    assert "github-trending" not in run.text
    assert run.text.rstrip().endswith("committed file is the record")


def test_a_heading_two_skills_names_start_is_the_run_of_the_one_it_names_most() -> None:
    """Regression: Da6hkin 06-28's `## Polymarket Comments` (polymarket-comments's entry) was
    also a run of the unregistered `polymarket` (its `### polymarket` starts the title): one
    skill's outcome read from another's section. The heading names polymarket-comments more."""
    log = (realdata() / "instances" / DA6HKIN / "memory/logs/2026-06-28.md").read_bytes()
    both = {"polymarket": ("### polymarket",), "polymarket-comments": ("### polymarket-comments",)}
    runs = log_runs(log, date(2026, 6, 28), both)
    assert "polymarket" not in runs
    (run,) = runs["polymarket-comments"]
    assert run.text.startswith("## Polymarket Comments")
    # alone, a heading that starts with its name is still the skill's (`### x (positions)`)
    assert list(log_runs(log, date(2026, 6, 28), {"polymarket": ("### polymarket",)})) == [
        "polymarket"
    ]


def test_the_read_only_guard_marker_is_not_a_second_run() -> None:
    (run,) = runs_of(SKOPOS, "narrative-tracker", "2026-07-19")
    assert run.text.startswith("### narrative-tracker") and "#### Transitions" in run.text
    assert "(read-only)" not in run.text
    # alone in a log, the marker is the only trace of the run, and is kept
    (marker,) = runs_of(SKOPOS, "narrative-tracker", "2026-07-06")
    assert marker.text.startswith("## narrative-tracker (read-only)")


def test_a_section_and_its_under_the_hood_block_are_one_run() -> None:
    (run,) = runs_of(MIROSHARK, "heartbeat", "2026-08-21")
    assert "### heartbeat — under the hood" in run.text


def test_log_runs_on_raw_bytes_and_nothing() -> None:
    data = log_text(SKOPOS, "2026-07-19")
    found = log_runs(data, date(2026, 7, 19), {"picks-tracker": skill_headings("picks-tracker")})
    assert list(found) == ["picks-tracker"]
    assert found["picks-tracker"][0].source == ":39"
    assert log_runs(b"", date(2026, 7, 19), {"x": ("### x",)}) == {}
    assert log_runs(b"# Log\n\nnothing\n", date(2026, 7, 19), {"x": ("### x",)}) == {}
    assert skill_headings("price-alert", ["## Price Threshold Alert", "### price-alert"]) == (
        "### price-alert",
        "## Price Threshold Alert",
    )


# --- streaks and judgements ------------------------------------------------------------------

D0 = date(2026, 5, 20)


def outcome(cls: str, token: str = "", basis: Basis | None = None) -> Outcome:
    if basis is None:
        basis = Basis.VOCABULARY if token else Basis.NONE
    return Outcome(
        OutcomeClass(cls), basis, token, f"- {token}" if token else "", 2 if token else 0
    )


def made(*items: tuple[int, Outcome]) -> History:
    runs = tuple(RunOutcome(D0 + timedelta(days=d), f"memory/logs/{d}.md:1", o) for d, o in items)
    return History("skill", runs, streak(runs))


def test_error_streak() -> None:
    h = made(
        (0, outcome("ok", "X_OK")),
        *((d, outcome("error", "X_ERROR")) for d in range(6, 10)),
        (10, outcome("error", "HTTP 401", Basis.SIGNATURE)),
        (11, outcome("error", "X_ERROR")),
    )
    assert h.streak is not None
    assert (h.streak.count, h.streak.window, h.streak.total) == (6, 6, 7)
    assert h.streak.describe() == "errored on 6 of its last 6 runs, since 2026-05-26"
    j = judge(h)
    assert (j.verdict, j.cause, j.since, j.signature) == (
        Verdict.FAILING,
        "run_error:X_ERROR",
        date(2026, 5, 26),
        "X_ERROR",
    )
    assert "errored on 6 of its last 6 runs, since 2026-05-26" in j.message


def test_never_does_its_job() -> None:
    """The same noop on every run for at least 7 runs spanning at least 7 days."""
    h = made(*((d, outcome("noop", "FLEET_EMPTY")) for d in range(0, 28)))
    j = judge(h)
    assert (j.verdict, j.cause, j.since) == (
        Verdict.FAILING,
        "never_does_its_job:FLEET_EMPTY",
        D0,
    )
    assert "FLEET_EMPTY on 28 of 28 runs since 2026-05-20" in j.message


@pytest.mark.parametrize(
    ("days", "verdict"),
    [
        (list(range(7)), Verdict.FAILING),  # 7 runs over 7 days
        (list(range(6)), Verdict.NOTE),  # 6 runs
        ([0, 0, 0, 1, 1, 2, 2, 3], Verdict.NOTE),  # 8 runs over 4 days
        ([0, 3, 6, 9, 12, 15], Verdict.NOTE),  # 6 runs over 16 days
        ([0], Verdict.NOTE),  # a single noop is a note
    ],
)
def test_permanent_noop_needs_both_runs_and_days(days: list[int], verdict: Verdict) -> None:
    h = made(*((d, outcome("noop", "X_NO_CONFIG")) for d in days))
    j = judge(h)
    assert j.verdict is verdict
    assert j.cause == (
        "never_does_its_job:X_NO_CONFIG" if verdict is Verdict.FAILING else ("noop:X_NO_CONFIG")
    )


def test_the_noop_rule_takes_parameters() -> None:
    h = made(*((d, outcome("noop", "X_NO_CONFIG")) for d in range(3)))
    assert judge(h, permanent_runs=3, permanent_days=3).verdict is Verdict.FAILING
    assert judge(h, permanent_runs=3, permanent_days=4).verdict is Verdict.NOTE


def test_a_different_noop_or_an_ok_run_breaks_the_streak() -> None:
    h = made(
        *((d, outcome("noop", "FLEET_EMPTY")) for d in range(0, 10)),
        (10, outcome("noop", "FLEET_NO_AUTH")),
        *((d, outcome("noop", "FLEET_EMPTY")) for d in range(11, 14)),
    )
    assert h.streak is not None and h.streak.count == 3
    assert judge(h).verdict is Verdict.NOTE
    h = made(*((d, outcome("noop", "FLEET_EMPTY")) for d in range(10)), (10, outcome("ok", "X_OK")))
    assert judge(h).verdict is Verdict.HEALTHY


def test_a_run_that_shows_nothing_neither_extends_nor_breaks_a_noop_streak() -> None:
    h = made(
        *((d, outcome("noop", "FLEET_EMPTY")) for d in range(0, 4)),
        (4, outcome("ok")),  # wrote no status at all
        *((d, outcome("noop", "FLEET_EMPTY")) for d in range(5, 9)),
    )
    assert h.streak is not None
    assert (h.streak.count, h.streak.window, h.streak.total) == (8, 9, 9)
    assert h.streak.describe() == "FLEET_EMPTY on 8 of 9 runs since 2026-05-20"
    assert judge(h).cause == "never_does_its_job:FLEET_EMPTY"


@pytest.mark.parametrize(
    ("cls", "verdict", "cause"),
    [
        ("partial", Verdict.WARN, "run_partial"),
        ("quiet", Verdict.HEALTHY, ""),
        ("ok", Verdict.HEALTHY, ""),
    ],
)
def test_judgement_of_the_newest_run(cls: str, verdict: Verdict, cause: str) -> None:
    j = judge(made((0, outcome("error", "X_ERROR")), (1, outcome(cls, "X_" + cls.upper()))))
    assert (j.verdict, j.cause) == (verdict, cause)


def test_no_runs() -> None:
    j = judge(History("skill", (), None))
    assert (j.verdict, j.cause, j.newest) == (Verdict.NO_RUNS, "", None)


def test_runs_are_ordered_by_day_then_order_in_the_day() -> None:
    vocabulary = extract_vocabulary("x", "Log `X_OK` when done; on failure log `X_ERROR`.\n")
    runs = [
        Run("x", date(2026, 7, 2), "b.md:9", "### x\nX_OK\n", 1),
        Run("x", date(2026, 7, 2), "b.md:1", "### x\nX_ERROR\n", 0),
        Run("x", date(2026, 7, 1), "a.md:1", "### x\nX_ERROR\n", 0),
    ]
    h = history("x", runs, vocabulary)
    assert [r.source for r in h.runs] == ["a.md:1", "b.md:1", "b.md:9"]
    assert judge(h).verdict is Verdict.HEALTHY


# --- real histories --------------------------------------------------------------------------


def test_real_fleet_control_never_does_its_job() -> None:
    j = judge(load(AEONFUN).history("fleet-control"))
    assert (j.verdict, j.cause, j.since) == (
        Verdict.FAILING,
        "never_does_its_job:FLEET_EMPTY",
        date(2026, 4, 25),
    )
    assert "FLEET_EMPTY on 13 of 13 runs since 2026-04-25" in j.message


@pytest.mark.parametrize(
    ("name", "skill", "verdict", "cause", "since"),
    [
        (DA6HKIN, "vibecoding-digest", Verdict.FAILING, "run_error:VIBECODING_DIGEST_ERROR", 709),
        (DA6HKIN, "skill-health", Verdict.WARN, "run_partial", 709),
        (DA6HKIN, "heartbeat", Verdict.HEALTHY, "", 711),
        (SKOPOS, "price-alert", Verdict.NOTE, "noop:PRICE_ALERT_NO_TOKEN", 719),
        (SKOPOS, "defi-overview", Verdict.NOTE, "noop:DEFI_MONITOR_NO_CONFIG", 706),  # 5 days
        (SKOPOS, "picks-tracker", Verdict.NOTE, "noop:PICKS_TRACKER_SKIP", 711),
        (SKOPOS, "fear-divergence", Verdict.HEALTHY, "", 708),
        (AEONFUN, "list-digest", Verdict.FAILING, "never_does_its_job:LIST_DIGEST_NO_CONFIG", 425),
        (
            AEONFUN,
            "on-chain-monitor",
            Verdict.FAILING,
            "never_does_its_job:ON_CHAIN_NO_CONFIG",
            425,
        ),
        (AEONFUN, "refresh-x", Verdict.FAILING, "never_does_its_job:REFRESH_X_NO_VAR", 425),
        (AEONFUN, "telegram-digest", Verdict.NOTE, "noop:TELEGRAM_DIGEST_NO_CONFIG", 426),  # 4
        (AEONFUN, "remix-tweets", Verdict.FAILING, "run_error:REMIX_TWEETS_ERROR", 425),
        (AEONFUN, "defi-monitor", Verdict.HEALTHY, "", 425),
    ],
)
def test_real_judgements(name: str, skill: str, verdict: Verdict, cause: str, since: int) -> None:
    j = judge(load(name).history(skill))
    assert (j.verdict, j.cause) == (verdict, cause)
    assert j.since == date(2026, since // 100, since % 100)


# --- fleet -----------------------------------------------------------------------------------


def failing(
    skill: str, signature: str, day: int = 1, verdict: Verdict = Verdict.FAILING
) -> Judgement:
    return Judgement(skill, verdict, f"run_error:{signature}", date(2026, 7, day), signature)


def test_one_signature_in_three_skills_is_one_cause() -> None:
    found = shared_signatures(
        [
            failing("digest", "HTTP 401", 3),
            failing("tweet-digest", "http 401", 2),
            failing("refresh-x", "HTTP 401", 4),
            failing("heartbeat", "HTTP 429"),
            failing("token-report", "HTTP 429"),
            Judgement("reddit-digest", Verdict.HEALTHY, signature="HTTP 401"),
        ]
    )
    assert len(found) == 1
    (f,) = found
    assert (f.kind, f.key, f.skills, f.since) == (
        FleetKind.SHARED_SIGNATURE,
        "HTTP 401",
        ("digest", "refresh-x", "tweet-digest"),
        date(2026, 7, 2),
    )
    assert f.message.startswith("HTTP 401 in 3 skills since 2026-07-02: digest, refresh-x")


def test_warned_skills_share_a_cause_too_and_the_threshold_is_a_parameter() -> None:
    js = [failing("a", "rate limit"), failing("b", "rate limit", verdict=Verdict.WARN)]
    assert shared_signatures(js) == ()
    assert [f.skills for f in shared_signatures(js, min_skills=2)] == [("a", "b")]


def test_a_stopped_scheduler() -> None:
    last = {"heartbeat": date(2026, 7, 20), "digest": date(2026, 7, 19), "token-pick": None}
    found = fleet_silent(last, date(2026, 7, 24))
    assert found is not None
    assert (found.kind, found.key, found.skills, found.since) == (
        FleetKind.FLEET_SILENT,
        "2026-07-20",
        ("digest", "heartbeat", "token-pick"),
        date(2026, 7, 20),
    )
    assert fleet_silent(last, date(2026, 7, 21)) is None  # one day is a late run, not a stop
    assert fleet_silent({**last, "x": date(2026, 7, 23)}, date(2026, 7, 24)) is None
    assert fleet_silent({"a": date(2026, 7, 1), "b": date(2026, 7, 1)}, date(2026, 7, 24)) is None
    assert fleet_silent({"a": None, "b": None, "c": None}, date(2026, 7, 24)) is None


def test_skopos_every_scheduled_skill_silent_since_07_20() -> None:
    """skopos: cron-state has heartbeat failing until 2026-07-24, yet no enabled skill wrote
    a log entry after 2026-07-20 (the zero-token harness failure of ISS-001)."""
    loaded = load(SKOPOS)
    config = yaml.safe_load((loaded.root / "aeon.yml").read_text(encoding="utf-8"))
    enabled = sorted(s for s, v in config["skills"].items() if v.get("enabled"))
    assert len(enabled) == 11
    last = {s: max((r.day for r in loaded.runs.get(s, ())), default=None) for s in enabled}
    judgements = [judge(loaded.history(s)) for s in enabled if loaded.runs.get(s)]
    found = fleet_findings(judgements, last, date(2026, 7, 24))
    assert [(f.kind, f.key, len(f.skills)) for f in found] == [
        (FleetKind.FLEET_SILENT, "2026-07-20", 11)
    ]
    assert "every scheduled skill silent since 2026-07-20 (4 days)" in found[0].message

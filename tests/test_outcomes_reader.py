"""A run's outcome read from its own text: text that must not read as a failure (quoted,
fenced, prose about errors, another skill's token, a tally), text that must, and the newest run
of real skills in the four instances."""

from __future__ import annotations

import pytest
from test_outcomes_realdata import AEONFUN, DA6HKIN, MIROSHARK, SKOPOS, load, skill_text

from aeon_evals.outcomes import (
    HEALTHY,
    Basis,
    Outcome,
    OutcomeClass,
    Vocabulary,
    extract_vocabulary,
    read_outcome,
)

VIBE = "\n".join(
    [
        "- `VIBECODING_DIGEST_OK` — normal run, ≥5 posts after dedup.",
        "- `VIBECODING_DIGEST_QUIET` — <5 posts after dedup but ≥1 source succeeded.",
        "- `VIBECODING_DIGEST_ERROR` — all sources failed or 0 posts total.",
    ]
)
HEARTBEAT = 'If nothing needs attention, log "HEARTBEAT_OK" and end your response.\n'
FLEET = (
    "- `FLEET_CONTROL_OK` — health check completed normally\n"
    "Log `FLEET_EMPTY: no managed instances` to `memory/logs/${today}.md`. Stop.\n"
)


def vocab(skill: str, text: str = "") -> Vocabulary:
    return extract_vocabulary(skill, text)


# Text that must read healthy: (skill, SKILL.md text, the run's section)
NOT_FAILURES = [
    pytest.param(
        "digest", "", "### digest\n> error: HTTP 500 from upstream\n- 5 stories sent\n", id="quoted"
    ),
    pytest.param(
        "digest",
        "",
        "### digest\n- Status: ok\n```\nError: failed to connect (HTTP 502)\n```\n",
        id="fenced code",
    ),
    pytest.param(
        "security-digest",
        "",
        "### security-digest\n- CVE-2026-1234: the exploit failed to drain the pool; attackers"
        " were blocked by the guard after HTTP 500 errors on the bridge.\n"
        "- Rate limits on the API were discussed at length.\n- 6 items, sent.\n",
        id="prose about failures",
    ),
    pytest.param(
        "digest",
        "",
        "### digest\n#### Errors\n- none today\n#### Outages\n- AWS us-east-1 outage, 3h\n- sent",
        id="headings called Errors and Outages",
    ),
    pytest.param(
        "heartbeat",
        HEARTBEAT,
        "### heartbeat\n- P0: vibecoding-digest — VIBECODING_DIGEST_ERROR since 07-10\n"
        "VIBECODING_DIGEST_ERROR: reddit blocked (ISS-003)\nHEARTBEAT_OK\n",
        id="another skill's token",
    ),
    pytest.param(
        "heartbeat",
        HEARTBEAT,
        "### heartbeat\n- Open issues: ISS-003 (api-change, Reddit blocked) — unchanged\n"
        "- Fix for #123 (error handling) merged\n",
        id="issue references",
    ),
    pytest.param(
        "token-report",
        "",
        "### token-report\n- Token: n/a\n- Price: $0.0031\n- Volume: 3.2M\n- Holders: 812\n",
        id="n/a in one field among many",
    ),
    pytest.param(
        "goal-tracker",
        "",
        "### goal-tracker\n- Status: 0 at risk, 0 needs attention, 6 on track, 3 blocked, 0 done\n",
        id="a tally of blocked goals",
    ),
    pytest.param(
        "morning-brief",
        "",
        "### morning-brief\n- **Delivery:** `.pending-notify/morning-brief-20260711.md` (965"
        ' chars). `./notify "$(cat …)"` blocked by sandbox (established pattern); post-run step'
        " delivers.",
        id="a staged delivery after a blocked direct call",
    ),
    pytest.param(
        "pr-review",
        "",
        "### pr-review\n- Verdict: **blocked: untested logic (operator-stated block criterion)**.",
        id="a verdict about the content",
    ),
    pytest.param("digest", "", "### digest\n- Errors: none\n- Failures: 0\n", id="no errors"),
    pytest.param(
        "reddit-digest",
        "",
        '### reddit-digest\n- 10 posts\n- Notification sent: `./notify "Reddit digest: all 10 '
        'sources errored — curl 403 (Reddit IP block)"`\n- sent fine\n- all ok\n',
        id="a quoted notification message",
    ),
    pytest.param(
        "defi-overview",
        "",
        "### defi-overview\n- Sources: tvl=ok dex=ok fees=ok websearch=fail\n- Verdict: Mixed\n",
        id="one source of many failed",
    ),
    pytest.param("digest", "", "### digest\n- Status: no errors, 5 items\n", id="negated"),
    pytest.param(
        "digest",
        "",
        "### digest\n| step | status |\n|---|---|\n| fetch | ERROR: HTTP 500 |\n- 4 items sent\n",
        id="a table row",
    ),
    pytest.param(
        "digest", "", "### digest\n<!-- error: HTTP 401 -->\n- sent\n", id="an HTML comment"
    ),
    pytest.param(
        "vibecoding-digest",
        VIBE,
        "### vibecoding-digest\n> VIBECODING_DIGEST_ERROR\n```\nVIBECODING_DIGEST_ERROR\n```\n"
        "- the tool prints VIBECODING_DIGEST_ERROR when reddit is down\n",
        id="the skill's own error token quoted, fenced or in prose",
    ),
    pytest.param(
        "heartbeat",
        HEARTBEAT,
        "### heartbeat\nHEARTBEAT_OK · STATUS_PAGE=DEGRADED — wrote docs/status.md\n",
        id="a variable's value is not a status",
    ),
    pytest.param(
        "paper-digest",
        "",
        "### paper-digest\n- Verdict: 3 solid results, 1 benchmark showing a 55%-failure gap\n",
        id="failure as a subject in a verdict",
    ),
]


@pytest.mark.parametrize(("skill", "skill_md", "section"), NOT_FAILURES)
def test_precision_not_a_failure(skill: str, skill_md: str, section: str) -> None:
    outcome = read_outcome(section, vocab(skill, skill_md))
    assert outcome.outcome in (OutcomeClass.OK, OutcomeClass.QUIET), outcome


# Text that must read as a failure: (skill, SKILL.md, section, class, token or signature)
FAILURES = [
    pytest.param(
        "vibecoding-digest",
        VIBE,
        "### vibecoding-digest\n- **Sources:** top=fail hot=fail rising=fail\n\n"
        "VIBECODING_DIGEST_ERROR\n",
        "error",
        "VIBECODING_DIGEST_ERROR",
        id="the skill's own error token on a bare line",
    ),
    pytest.param(
        "fleet-control",
        FLEET,
        "## fleet-control\n- FLEET_EMPTY · FLEET_CONTROL_OK\n",
        "noop",
        "FLEET_EMPTY",
        id="two tokens on one line: the more severe",
    ),
    pytest.param(
        "digest",
        "",
        "### digest\n- Status: ERROR — xAI returned HTTP 401\n",
        "error",
        "HTTP 401",
        id="HTTP status on the Status line",
    ),
    pytest.param(
        "digest",
        "",
        "### digest\n- Error: XAI_API_KEY not set\n",
        "noop",
        "XAI_API_KEY not set",
        id="a key not set",
    ),
    pytest.param(
        "digest",
        "",
        "### digest\n- 5 items\n- Notification: failed (HTTP 403 from Telegram)\n",
        "partial",
        "HTTP 403",
        id="delivery failed after the content was written",
    ),
    pytest.param(
        "digest",
        "",
        "### digest\n- 5 items\n- Delivery: not sent — rate limit\n",
        "partial",
        "rate limit",
        id="delivery rate-limited",
    ),
    pytest.param(
        "github-trending",
        "",
        "### github-trending\nFailed to fetch the trending page (HTTP 429).\n",
        "error",
        "HTTP 429",
        id="a one-line section is all status",
    ),
    pytest.param(
        "token-report",
        "",
        "### token-report\n- Token: n/a\n- Price: n/a\n- Volume: n/a\n- ATH: n/a\n",
        "noop",
        "every field n/a",
        id="every field n/a",
    ),
    pytest.param(
        "vibecoding-digest",
        "",
        "### vibecoding-digest\n- Window: day\n- Sources: top=fail hot=fail rising=fail\n",
        "error",
        "every source failed",
        id="every source failed",
    ),
    pytest.param(
        "unlock-monitor",
        "",
        "### unlock-monitor\n- Status: PARTIAL — 3 of 5 sources failed\n",
        "partial",
        "partial",
        id="a partial status",
    ),
    pytest.param(
        "rss-feed",
        "",
        "### rss-feed\n- Result: requires approval: bash scripts/generate-feed.sh\n",
        "error",
        "requires approval",
        id="requires approval",
    ),
    pytest.param(
        "digest",
        "",
        "### digest\n- Status: permission denied writing memory/topics/x.md\n",
        "error",
        "permission denied",
        id="permission denied",
    ),
    pytest.param(
        "token-report",
        "",
        "### token-report\n- Aborted: no `Tracked Token` section in `memory/MEMORY.md`\n",
        "noop",
        "not configured",
        id="aborted for want of configuration",
    ),
    pytest.param(
        "channel-recap",
        "",
        "### channel-recap\n- Verdict: ABORTED — `channel-recap.var` is empty in `aeon.yml`\n",
        "noop",
        "not configured",
        id="a verdict that starts with a failure word",
    ),
    pytest.param(
        "price-alert",
        "",
        "### price-alert\n- PRICE_ALERT_FETCH_FAIL\n",
        "error",
        "PRICE_ALERT_FETCH_FAIL",
        id="a token of the skill's own prefix its SKILL.md never names",
    ),
]


@pytest.mark.parametrize(("skill", "skill_md", "section", "cls", "token"), FAILURES)
def test_failures_are_read(skill: str, skill_md: str, section: str, cls: str, token: str) -> None:
    outcome = read_outcome(section, vocab(skill, skill_md))
    assert (outcome.outcome.value, outcome.token) == (cls, token)
    assert outcome.line and outcome.line_no >= 1
    assert outcome.line in " ".join(section.splitlines()[outcome.line_no - 1].split())


def test_a_status_line_beats_a_bare_token_line() -> None:
    text = "Log `FOO_BAD_TARGET: x` — continue with the rest.\n- **Status**: ${FOO_OK | FOO_ERR}\n"
    section = "### foo\n- FOO_BAD_TARGET: 0\n- **Status**: FOO_OK\n"
    assert read_outcome(section, vocab("foo", text)).token == "FOO_OK"


def test_the_outcome_quotes_its_line_and_its_number() -> None:
    section = "### vibecoding-digest\n\n- **Window:** day\n\nVIBECODING_DIGEST_ERROR\n"
    assert read_outcome(section, vocab("vibecoding-digest", VIBE)) == Outcome(
        OutcomeClass.ERROR,
        Basis.VOCABULARY,
        "VIBECODING_DIGEST_ERROR",
        "VIBECODING_DIGEST_ERROR",
        5,
    )


def test_nothing_found_is_healthy() -> None:
    assert read_outcome("### digest\n- 5 stories\n- sent\n", vocab("digest")) == HEALTHY
    assert read_outcome(b"", vocab("digest")) == HEALTHY


def test_bytes_that_are_not_utf8_are_read() -> None:
    section = b"### digest\n- caf\xe9\n- Status: ERROR \xff HTTP 503\n"
    assert read_outcome(section, vocab("digest")).token == "HTTP 503"


@pytest.mark.parametrize(
    ("line", "cls"),
    [
        ("- FEAR_DIVERGENCE_SKIP: no market-context.md — enable market-context first", "noop"),
        ("- FEAR_DIVERGENCE_SKIP: F&G 26 (Fear) — above threshold", "quiet"),
        ("- FEAR_DIVERGENCE_SKIP: F&G 22 — no assets diverging significantly from BTC", "quiet"),
        ("- FEAR_DIVERGENCE_SKIP", "quiet"),  # no reason: the token's class
    ],
)
def test_a_token_with_several_branches_is_read_by_the_reason_it_gives(line: str, cls: str) -> None:
    vocabulary = extract_vocabulary("fear-divergence", skill_text(SKOPOS, "fear-divergence"))
    outcome = read_outcome(f"## Fear Divergence Scout\n{line}\n", vocabulary)
    assert (outcome.outcome.value, outcome.token) == (cls, "FEAR_DIVERGENCE_SKIP")


# The newest run of real skills: (instance, skill) → (class, evidence, token or signature, where
# the run is). Each read by hand in the log and checked against the SKILL.md.
NEWEST = {
    (DA6HKIN, "vibecoding-digest"): (
        "error",
        "vocabulary",
        "VIBECODING_DIGEST_ERROR",
        "07-11.md:348",
    ),
    (DA6HKIN, "heartbeat"): ("ok", "vocabulary", "HEARTBEAT_OK", "07-11.md:420"),
    (DA6HKIN, "skill-health"): ("partial", "vocabulary", "SKILL_HEALTH_PARTIAL", "07-11.md:366"),
    (DA6HKIN, "github-trending"): ("ok", "vocabulary", "GITHUB_TRENDING_OK", "07-11.md:19"),
    (DA6HKIN, "monitor-kalshi"): ("noop", "vocabulary", "MONITOR_KALSHI_NO_CONFIG", "07-11.md:299"),
    (DA6HKIN, "repo-scanner"): ("ok", "vocabulary", "REPO_SCANNER_OK", "07-11.md:69"),
    (DA6HKIN, "defi-overview"): ("ok", "vocabulary", "DEFI_OVERVIEW_OK", "07-11.md:257"),
    (DA6HKIN, "money-radar"): ("ok", "vocabulary", "MONEY_RADAR_EVENING_OK", "07-11.md:392"),
    (DA6HKIN, "paper-digest"): ("ok", "none", "", "07-11.md:227"),
    # `## vienna-apartments sweep` ends where `### github-trending` starts
    (DA6HKIN, "vienna-apartments"): ("ok", "none", "", "07-11.md:11"),
    (DA6HKIN, "morning-brief"): ("ok", "none", "", "07-11.md:163"),  # staged delivery
    (SKOPOS, "price-alert"): ("noop", "vocabulary", "PRICE_ALERT_NO_TOKEN", "07-20.md:7"),
    (SKOPOS, "defi-overview"): ("noop", "vocabulary", "DEFI_MONITOR_NO_CONFIG", "07-11.md:84"),
    (SKOPOS, "fear-divergence"): ("quiet", "vocabulary", "FEAR_DIVERGENCE_SKIP", "07-19.md:37"),
    (SKOPOS, "picks-tracker"): ("noop", "vocabulary", "PICKS_TRACKER_SKIP", "07-19.md:39"),
    (SKOPOS, "narrative-tracker"): ("partial", "vocabulary", "NARRATIVE_CACHE_MISS", "07-20.md:27"),
    (SKOPOS, "skill-health"): ("partial", "vocabulary", "SKILL_HEALTH_PARTIAL", "07-19.md:86"),
    (SKOPOS, "token-pick"): ("ok", "none", "", "07-19.md:97"),  # TOKEN_PICK_DEDUP is a marker
    (SKOPOS, "heartbeat"): ("ok", "none", "", "07-19.md:7"),  # it reports the fleet's P0s
    (SKOPOS, "x402-monitor"): ("ok", "vocabulary", "PROTOCOL_MONITOR_OK", "07-08.md:9"),
    (MIROSHARK, "heartbeat"): ("ok", "vocabulary", "HEARTBEAT_OK", "08-21.md:24"),
    (MIROSHARK, "fetch-tweets"): ("ok", "vocabulary", "TWEET_DIGEST_OK", "08-22.md:12"),
    (MIROSHARK, "token-movers"): ("ok", "none", "", "08-22.md:1"),
    (MIROSHARK, "changelog"): ("ok", "vocabulary", "DOCS_SYNC_OK", "08-17.md:22"),
    (MIROSHARK, "shiplog"): ("ok", "none", "", "output/articles/shiplog-2026-08-18.md"),
    (AEONFUN, "fleet-control"): ("noop", "vocabulary", "FLEET_EMPTY", "05-02.md:824"),
    (AEONFUN, "list-digest"): ("noop", "vocabulary", "LIST_DIGEST_NO_CONFIG", "05-02.md:900"),
    (AEONFUN, "on-chain-monitor"): ("noop", "vocabulary", "ON_CHAIN_NO_CONFIG", "05-02.md:312"),
    (AEONFUN, "refresh-x"): ("noop", "vocabulary", "REFRESH_X_NO_VAR", "05-02.md:898"),
    (AEONFUN, "remix-tweets"): ("error", "vocabulary", "REMIX_TWEETS_ERROR", "05-02.md:1013"),
    (AEONFUN, "defi-monitor"): ("ok", "vocabulary", "DEFI_MONITOR_OK", "05-02.md:288"),
    (AEONFUN, "treasury-info"): ("ok", "vocabulary", "TREASURY_INFO_OK", "05-02.md:299"),
    (AEONFUN, "token-report"): ("noop", "vocabulary", "TOKEN_REPORT_NO_DATA", "05-02.md:340"),
    (AEONFUN, "rss-feed"): ("error", "vocabulary", "RSS_FEED_BLOCKED", "05-02.md:1070"),
    (AEONFUN, "issue-triage"): ("ok", "vocabulary", "ISSUE_TRIAGE_OK", "05-02.md:145"),
    (AEONFUN, "github-issues"): ("ok", "vocabulary", "GITHUB_ISSUES_OK", "05-02.md:187"),
    (AEONFUN, "token-alert"): ("ok", "vocabulary", "TOKEN_ALERT_OK", "05-02.md:323"),
    (AEONFUN, "star-milestone"): ("quiet", "vocabulary", "STAR_MILESTONE_QUIET", "05-02.md:830"),
    (AEONFUN, "search-skill"): ("quiet", "vocabulary", "SEARCH_SKILL_NO_GAP", "05-02.md:671"),
    (AEONFUN, "agent-buzz"): ("quiet", "vocabulary", "AGENT_BUZZ_EMPTY", "05-02.md:1054"),
    (AEONFUN, "reddit-digest"): ("error", "vocabulary", "REDDIT_DIGEST_ERROR", "05-02.md:14"),
    (AEONFUN, "farcaster-digest"): (
        "error",
        "vocabulary",
        "FARCASTER_DIGEST_ERROR",
        "05-02.md:907",
    ),
    (AEONFUN, "skill-update-check"): (
        "noop",
        "vocabulary",
        "SKILL_UPDATE_CHECK_NO_LOCK",
        "04-27.md:547",
    ),
    (AEONFUN, "rss-digest"): ("noop", "vocabulary", "RSS_DIGEST_SKIPPED", "05-02.md:9"),
    (AEONFUN, "vuln-scanner"): ("error", "vocabulary", "VULN_SCANNER_ERROR", "05-02.md:874"),
    (AEONFUN, "github-releases"): ("ok", "vocabulary", "GITHUB_RELEASES_OK", "05-02.md:266"),
    (AEONFUN, "pr-review"): ("ok", "none", "", "05-02.md:196"),
    (AEONFUN, "channel-recap"): ("noop", "signature", "not configured", "04-27.md:377"),
}


@pytest.mark.parametrize(("instance", "skill"), sorted(NEWEST))
def test_real_newest_outcome(instance: str, skill: str) -> None:
    found = load(instance).history(skill).newest
    assert found is not None
    cls, basis, token, where = NEWEST[(instance, skill)]
    assert (found.outcome.outcome.value, found.outcome.basis.value, found.outcome.token) == (
        cls,
        basis,
        token,
    )
    assert found.source.endswith(where)


def test_vibecoding_digest_errored_on_07_10_and_07_11() -> None:
    """Da6hkin's vibecoding-digest: ERROR on 07-09 (its Verdict line, before the token
    existed in its log), VIBECODING_DIGEST_ERROR on 07-10 and 07-11, while cron-state counts
    it 3/3 success."""
    runs = load(DA6HKIN).history("vibecoding-digest").runs
    assert [(r.day.isoformat(), r.outcome.outcome.value, r.outcome.token) for r in runs] == [
        ("2026-07-09", "error", "HTTP 403"),
        ("2026-07-10", "error", "VIBECODING_DIGEST_ERROR"),
        ("2026-07-11", "error", "VIBECODING_DIGEST_ERROR"),
    ]
    assert runs[1].outcome.line == "VIBECODING_DIGEST_ERROR"

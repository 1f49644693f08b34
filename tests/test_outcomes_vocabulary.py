"""The outcome vocabulary read from real SKILL.md files: every status token, its class and its
evidence (pinned after reading each SKILL.md), environment variables never tokens, the override
map, and the extraction rules on small texts."""

from __future__ import annotations

import pytest
from test_outcomes_realdata import (
    AEONFUN,
    DA6HKIN,
    INSTANCES,
    MIROSHARK,
    SKOPOS,
    load,
    skill_text,
)

from aeon_evals.outcomes import OutcomeClass, Why, extract_vocabulary
from aeon_evals.outcomes.classify import strong_class, token_class, weak_class

OK, QUIET, NOOP, PARTIAL, ERROR = "ok", "quiet", "noop", "partial", "error"

# Each skill's whole vocabulary, token → class, read from its SKILL.md by hand.
VOCABULARIES = {
    (DA6HKIN, "vibecoding-digest"): {
        "VIBECODING_DIGEST_ERROR": ERROR,  # "If all three are fail … notify …_ERROR"
        "VIBECODING_DIGEST_OK": OK,
        "VIBECODING_DIGEST_QUIET": QUIET,  # "<5 posts after dedup but ≥1 source succeeded"
    },
    (DA6HKIN, "heartbeat"): {"HEARTBEAT_OK": OK},  # STATUS_PAGE=OK is a variable, not a token
    (DA6HKIN, "ai-framework-watch"): {
        "AI_FRAMEWORK_WATCH_BAD_VAR": NOOP,
        # "| `…_ERROR` | <3 frameworks reachable |"; "Persistent rate-limit … → `…_ERROR` and the
        # run skips state mutation (so next week's deltas aren't poisoned by the partial
        # sample)": a word, not a run that goes on (it was read partial: a WARN for a failure)
        "AI_FRAMEWORK_WATCH_ERROR": ERROR,
        "AI_FRAMEWORK_WATCH_OK": OK,
        "AI_FRAMEWORK_WATCH_PARTIAL": PARTIAL,
        "AI_FRAMEWORK_WATCH_QUIET": QUIET,
    },
    (MIROSHARK, "heartbeat"): {"HEARTBEAT_OK": OK},
    (SKOPOS, "heartbeat"): {"HEARTBEAT_OK": OK},
    (DA6HKIN, "skill-health"): {
        # "the operator has not opted into the issue-tracker contract yet — … skip this step"
        "SKILL_HEALTH_ISSUE_TRACKER_MISSING": OK,
        "SKILL_HEALTH_NOOP": QUIET,  # "state unchanged since <prev_run_at>": nothing to do
        "SKILL_HEALTH_PARTIAL": PARTIAL,  # "log … and continue with cron-state only"
    },
    (SKOPOS, "skill-health"): {
        "SKILL_ANALYTICS_NO_DATA": NOOP,
        "SKILL_ANALYTICS_OK": OK,
        "SKILL_ANALYTICS_QUIET": QUIET,
        "SKILL_HEALTH_ISSUE_TRACKER_MISSING": OK,
        "SKILL_HEALTH_NOOP": QUIET,
        "SKILL_HEALTH_PARTIAL": PARTIAL,
        # `SKIP_UNCHANGED` → skip-unchanged, `_OK_SILENT` …: the taxonomy it mines from *other*
        # skills' logs, never its own status
    },
    (DA6HKIN, "skill-update-check"): {
        "SKILL_UPDATE_CHECK_ACCEPTED": OK,
        "SKILL_UPDATE_CHECK_ACCEPT_BLOCKED": ERROR,  # "If verdict is FAIL, abort with …"
        "SKILL_UPDATE_CHECK_ACCEPT_FAIL": ERROR,
        "SKILL_UPDATE_CHECK_ACCEPT_NO_MATCH": NOOP,
        "SKILL_UPDATE_CHECK_LOW_ONLY": OK,  # "| Only LOW | **Silent.** Log `…_LOW_ONLY: …` |"
        "SKILL_UPDATE_CHECK_NO_LOCK": NOOP,  # "skills.lock not found — no imported skills tracked"
        "SKILL_UPDATE_CHECK_NO_MATCH": QUIET,
        "SKILL_UPDATE_CHECK_OK": OK,
        # MISSING_UPSTREAM, FRONTMATTER_CHANGE, SECURITY_SCANNER_MISSING: per-entry flags
    },
    (DA6HKIN, "github-trending"): {"GITHUB_TRENDING_ERROR": ERROR, "GITHUB_TRENDING_OK": OK},
    (DA6HKIN, "monitor-kalshi"): {
        "MONITOR_KALSHI_DEGRADED": PARTIAL,
        "MONITOR_KALSHI_ERROR": ERROR,
        "MONITOR_KALSHI_NO_CONFIG": NOOP,
        "MONITOR_KALSHI_OK": OK,
    },
    (DA6HKIN, "repo-scanner"): {
        "REPO_SCANNER_API_FAIL": ERROR,
        "REPO_SCANNER_EMPTY": NOOP,  # "owner=${OWNER} has no active non-archived repos"
        "REPO_SCANNER_NO_USERNAME": NOOP,
        "REPO_SCANNER_OK": OK,
        # MISSING_CI, README_STUB, STALE_PRS: the opportunity codes of its report, not statuses
    },
    (DA6HKIN, "paper-digest"): {"PAPER_DIGEST_ERROR": ERROR, "PAPER_DIGEST_NO_TOPICS": NOOP},
    (DA6HKIN, "hacker-news-digest"): {"HN_DIGEST_EMPTY": QUIET},  # a prefix not its name
    (SKOPOS, "price-alert"): {
        "ATH_BASELINE": OK,
        "PRICE_ALERT_ATH": OK,
        "PRICE_ALERT_BAD_PRICE": ERROR,  # "… → log PRICE_ALERT_BAD_PRICE and exit `ERROR`"
        "PRICE_ALERT_BAD_TARGET": PARTIAL,  # "— continue with the surviving targets"
        "PRICE_ALERT_BAD_VAR": NOOP,
        "PRICE_ALERT_DRY_RUN": QUIET,
        "PRICE_ALERT_FETCH_FAIL": ERROR,
        "PRICE_ALERT_NO_TOKEN": NOOP,
        "PRICE_ALERT_OK": OK,  # only in `- **Status**: ${PRICE_ALERT_OK | PRICE_ALERT_ATH | …}`
        "PRICE_ALERT_SHARP_MOVE": OK,
        "PRICE_ALERT_STATE_CORRUPT": ERROR,
        "PRICE_ALERT_TARGET_HIT": OK,
        "PRICE_ALERT_TOKEN_CHANGED": OK,
        "SHARP_MOVE": OK,  # per-gate verdicts it records for the log
        "SHARP_MOVE_DEDUPED": QUIET,
        "TARGET_HIT": OK,
    },
    (SKOPOS, "defi-overview"): {
        "DEFI_MONITOR_NO_CONFIG": NOOP,  # its positions facet: "If the file is missing …"
        "DEFI_MONITOR_OK": OK,
        "DEFI_OVERVIEW_ERROR": ERROR,
    },
    (SKOPOS, "fear-divergence"): {"FEAR_DIVERGENCE_SCOUT_OK": OK, "FEAR_DIVERGENCE_SKIP": QUIET},
    (SKOPOS, "picks-tracker"): {"PICKS_TRACKER_OK": OK, "PICKS_TRACKER_SKIP": NOOP},
    (SKOPOS, "narrative-tracker"): {"NARRATIVE_CACHE_MISS": PARTIAL, "NARRATIVE_TRACKER_OK": OK},
    (SKOPOS, "inbox-triage"): {"INBOX_TRIAGE_OK": OK, "INBOX_TRIAGE_SKIP": NOOP},
    # TOKEN_PICK_DEDUP is the line "for easy grep next-day dedup": a marker, not a status
    (SKOPOS, "token-pick"): {"TOKEN_PICK_NO_DATA": NOOP},
    (MIROSHARK, "shiplog"): {
        "SHIPLOG_LIGHT": QUIET,
        "SHIPLOG_NOTHING_NEW": QUIET,
        "SHIPLOG_NO_MATCH": QUIET,
        "SHIPLOG_NO_REPOS": NOOP,
        "SHIPLOG_OK": OK,
    },
    (MIROSHARK, "memory-flush"): {"MEMORY_FLUSH_OK": OK},
    (MIROSHARK, "repo-pulse"): {"REPO_PULSE_QUIET": QUIET},
    (AEONFUN, "fleet-control"): {
        "FLEET_CONTROL_OK": OK,
        "FLEET_DISPATCH_FAILED": ERROR,
        "FLEET_DISPATCH_OK": OK,
        "FLEET_EMPTY": NOOP,  # "Log `FLEET_EMPTY: no managed instances`" — no skill prefix
        "FLEET_NO_AUTH": NOOP,
        "FLEET_OK": OK,
        "FLEET_RATE_LIMITED": ERROR,  # "abandoned to preserve quota"
        "NEEDS_ATTENTION": OK,  # "Verdict: [FLEET_OK | NEEDS_ATTENTION:N]": about the fleet
    },
    (AEONFUN, "list-digest"): {
        "LIST_DIGEST_EMPTY": QUIET,
        "LIST_DIGEST_NO_CONFIG": NOOP,
        "LIST_DIGEST_OK": OK,
        "LIST_DIGEST_PARTIAL": PARTIAL,
    },
    (AEONFUN, "on-chain-monitor"): {
        "ON_CHAIN_DEGRADED": PARTIAL,
        "ON_CHAIN_ERROR": ERROR,
        "ON_CHAIN_NO_CONFIG": NOOP,
        "ON_CHAIN_OK": OK,
    },
    (AEONFUN, "refresh-x"): {
        "REFRESH_X_EMPTY": QUIET,
        "REFRESH_X_ERROR": ERROR,
        "REFRESH_X_NO_API_KEY": NOOP,
        "REFRESH_X_NO_NEW": QUIET,
        "REFRESH_X_NO_VAR": NOOP,
    },
    (AEONFUN, "remix-tweets"): {
        "REMIX_TWEETS_DEGRADED": PARTIAL,
        "REMIX_TWEETS_EMPTY": QUIET,
        "REMIX_TWEETS_ERROR": ERROR,
        "REMIX_TWEETS_OK": OK,
    },
    # "If no DeFi positions configured, log DEFI_MONITOR_OK and end": the author calls it ok
    (AEONFUN, "defi-monitor"): {"DEFI_MONITOR_OK": OK},
    (AEONFUN, "treasury-info"): {
        "TREASURY_INFO_ERROR": ERROR,
        "TREASURY_INFO_NO_CONFIG": NOOP,
        "TREASURY_INFO_OK": OK,
    },
    # TOKEN_REPORT_STATE: "the `TOKEN_REPORT_STATE:` line is a contract — the next run parses it"
    (AEONFUN, "token-report"): {"TOKEN_REPORT_NO_DATA": NOOP},
    (AEONFUN, "rss-feed"): {
        "RSS_FEED_ERROR": ERROR,
        "RSS_FEED_METADATA_ONLY": OK,
        "RSS_FEED_NO_CHANGE": QUIET,
        "RSS_FEED_OK": OK,
    },
    (AEONFUN, "issue-triage"): {"ISSUE_TRIAGE_ERROR": ERROR, "ISSUE_TRIAGE_OK": OK},
    (AEONFUN, "token-alert"): {"TOKEN_ALERT_OK": OK},
    (AEONFUN, "push-recap"): {
        "PUSH_RECAP_ERROR": ERROR,
        "PUSH_RECAP_LOW_SIGNAL": QUIET,
        "PUSH_RECAP_QUIET": QUIET,
    },
    (AEONFUN, "search-skill"): {
        "SEARCH_SKILL_EMPTY": QUIET,
        "SEARCH_SKILL_ERROR": ERROR,
        "SEARCH_SKILL_NO_GAP": QUIET,
        # `SEARCH_SKILL_<OK_INSTALLED|OK_CANDIDATES|NO_GAP|EMPTY|ERROR>`: one prefix, five endings
        "SEARCH_SKILL_OK_CANDIDATES": OK,
        "SEARCH_SKILL_OK_INSTALLED": OK,
    },
    (AEONFUN, "agent-buzz"): {
        "AGENT_BUZZ_EMPTY": QUIET,  # "fetch succeeded but nothing survived skip-gates"
        "AGENT_BUZZ_ERROR": ERROR,
        "AGENT_BUZZ_OK": OK,
    },
    (AEONFUN, "reddit-digest"): {"REDDIT_DIGEST_ERROR": ERROR, "REDDIT_DIGEST_OK": OK},
    # "- **Error run (`FARCASTER_DIGEST_ERROR`):** every source returned fail/empty …"
    (AEONFUN, "farcaster-digest"): {"FARCASTER_DIGEST_ERROR": ERROR, "FARCASTER_DIGEST_OK": OK},
    (AEONFUN, "telegram-digest"): {
        "TELEGRAM_DIGEST_ERROR": ERROR,
        "TELEGRAM_DIGEST_NO_CONFIG": NOOP,
        "TELEGRAM_DIGEST_OK": OK,
    },
    (AEONFUN, "goal-tracker"): {"NO_GOALS": NOOP},  # "exit with NO_GOALS and tell the user …"
    (AEONFUN, "pr-review"): {"PR_REVIEW_NO_REPOS": NOOP, "PR_REVIEW_OK": OK},
}


@pytest.mark.parametrize(("instance", "skill"), sorted(VOCABULARIES))
def test_real_vocabulary(instance: str, skill: str) -> None:
    vocabulary = extract_vocabulary(skill, skill_text(instance, skill))
    assert {t: c.value for t, c in vocabulary.classes().items()} == VOCABULARIES[(instance, skill)]


# (instance, skill, token): the SKILL.md line of its first use, and words of that sentence
EVIDENCE = [
    (DA6HKIN, "vibecoding-digest", "VIBECODING_DIGEST_ERROR", 43, "If **all three** are `fail`"),
    (SKOPOS, "price-alert", "PRICE_ALERT_NO_TOKEN", 89, "the table is empty"),
    (SKOPOS, "fear-divergence", "FEAR_DIVERGENCE_SKIP", 33, "doesn't exist, log"),
    (SKOPOS, "picks-tracker", "PICKS_TRACKER_SKIP", 41, "If zero picks are found"),
    (SKOPOS, "defi-overview", "DEFI_MONITOR_NO_CONFIG", 48, "an empty config is not an error"),
    (SKOPOS, "skill-health", "SKILL_HEALTH_PARTIAL", 524, "continue with cron-state only"),
    (DA6HKIN, "skill-update-check", "SKILL_UPDATE_CHECK_NO_LOCK", 19, "skills.lock not found"),
    (DA6HKIN, "heartbeat", "HEARTBEAT_OK", 164, "e.g. `HEARTBEAT_OK · STATUS_PAGE=OK`"),
    (AEONFUN, "fleet-control", "FLEET_EMPTY", 21, "Log `FLEET_EMPTY: no managed instances`"),
]


@pytest.mark.parametrize(("instance", "skill", "token", "line", "words"), EVIDENCE)
def test_each_token_carries_its_line_and_sentence(
    instance: str, skill: str, token: str, line: int, words: str
) -> None:
    entry = extract_vocabulary(skill, skill_text(instance, skill)).tokens[token]
    assert entry.line == line
    assert words in entry.sentence
    assert skill_text(instance, skill).splitlines()[line - 1].count(token) >= 1


def test_one_token_several_branches_keeps_each_branch_class() -> None:
    """FEAR_DIVERGENCE_SKIP stands for "no market-context.md — enable market-context first"
    (cannot do its job) and for "above threshold" (a sanctioned quiet day): both uses are kept
    with their own class, the token's class is the more frequent one."""
    entry = extract_vocabulary("fear-divergence", skill_text(SKOPOS, "fear-divergence")).tokens[
        "FEAR_DIVERGENCE_SKIP"
    ]
    assert [(u.line, u.outcome) for u in entry.uses if u.outcome] == [
        (33, OutcomeClass.NOOP),
        (38, OutcomeClass.QUIET),
        (62, OutcomeClass.QUIET),
    ]
    assert entry.variants == {OutcomeClass.NOOP, OutcomeClass.QUIET}
    assert (entry.outcome, entry.why) == (OutcomeClass.QUIET, Why.SENTENCE)
    assert "enable market-context first" in entry.uses[0].detail


ENVIRONMENT = {
    "XAI_API_KEY",
    "GITHUB_TOKEN",
    "GH_TOKEN",
    "GH_GLOBAL",
    "DRY_RUN",
    "FROM_DATE",
    "TO_DATE",
    "COINGECKO_API_KEY",
    "ETHERSCAN_API_KEY",
    "BANKR_API_KEY",
    "VERCEL_TOKEN",
    "RESEND_API_KEY",
    "ALCHEMY_API_KEY",
    "GITHUB_REPOSITORY",
    "ANTHROPIC_API_KEY",
    "TELEGRAM_BOT_TOKEN",
    "REPO_NAME",
    "TARGET_WEEK",
    "STATUS_PAGE",
    "TOKEN_REPORT_STATE",
    "WINDOW_HOURS",
    "AUTO_MERGE_DRY_RUN",
    "KEY_UNSET",
    "KEY_PRESENT",
}


def test_no_environment_variable_is_a_status_token_in_any_real_skill() -> None:
    """Over all 381 SKILL.md of the four instances, no variable, secret or data name is a
    status token."""
    seen = 0
    for instance in INSTANCES:
        for skill in load(instance).skills:
            seen += 1
            tokens = set(extract_vocabulary(skill, skill_text(instance, skill)).tokens)
            assert not tokens & ENVIRONMENT, (instance, skill, tokens & ENVIRONMENT)
    assert seen == 381


def test_override_map() -> None:
    text = "If the registry is empty, log `FLEET_EMPTY: no managed instances` and stop.\n"
    plain = extract_vocabulary("fleet-control", text)
    assert plain.tokens["FLEET_EMPTY"].outcome is OutcomeClass.NOOP
    forced = extract_vocabulary("fleet-control", text, {"FLEET_EMPTY": "quiet", "X_GONE": "noop"})
    assert (forced.tokens["FLEET_EMPTY"].outcome, forced.tokens["FLEET_EMPTY"].why) == (
        OutcomeClass.QUIET,
        Why.OVERRIDE,
    )
    assert forced.tokens["FLEET_EMPTY"].line == 1  # its evidence stays
    assert forced.tokens["X_GONE"].outcome is OutcomeClass.NOOP  # named only by the map
    with pytest.raises(ValueError):
        extract_vocabulary("fleet-control", text, {"FLEET_EMPTY": "broken"})


def test_an_override_makes_a_variable_name_a_token() -> None:
    text = "Run with `FOO_DONE=1`, then log `FOO_DONE`.\n"
    assert "FOO_DONE" not in extract_vocabulary("foo", text).tokens
    assert "FOO_DONE" in extract_vocabulary("foo", text, {"FOO_DONE": "ok"}).tokens


# Small SKILL.md texts: (text, skill, the vocabulary wanted)
RULES = [
    pytest.param(
        "If `XAI_API_KEY` is not set, log `TWEET_DIGEST_NO_KEY` and stop.\n",
        "tweet-digest",
        {"TWEET_DIGEST_NO_KEY": NOOP},
        id="the variable before the verb is not a token; the one after it is",
    ),
    pytest.param(
        "```bash\nSTATUS_TOP=fail\n[ -s top.json ] && STATUS_TOP=ok\n```\n",
        "vibecoding-digest",
        {},
        id="an assignment in a shell block is a variable",
    ),
    pytest.param(
        "Flag `FRONTMATTER_CHANGE` if any key changed.\n",
        "skill-update-check",
        {},
        id="flag is not a verb that writes the run's status",
    ),
    pytest.param(
        "## Output codes\n\n| Status | Meaning |\n|---|---|\n| `X_OK` | fine |\n"
        "| `NO_CHANGE` | nothing new since yesterday |\n",
        "x",
        {"X_OK": OK, "NO_CHANGE": QUIET},
        id="a table column headed Status",
    ),
    pytest.param(
        "| Code | Trigger |\n|---|---|\n| `MISSING_CI` | no workflows |\n",
        "repo-scanner",
        {},
        id="a table of report codes is not a status table",
    ),
    pytest.param(
        "- `FOO_OK` — normal run\n- `FOO_QUIET` — nothing new\n- `GH_TOKEN` — auth\n",
        "foo",
        {"FOO_OK": OK, "FOO_QUIET": QUIET},
        id="a list of the skill's own codes; an environment name in the list is not one",
    ),
    pytest.param(
        "Append to `memory/logs/${today}.md`:\n```markdown\n## Foo Scout\n- FOO_SKIP: {reason}\n"
        "- **Status**: ${FOO_OK | FOO_ERROR}\n```\n",
        "foo",
        {"FOO_SKIP": QUIET, "FOO_OK": OK, "FOO_ERROR": ERROR},
        id="a fenced log template",
    ),
    pytest.param(
        '```bash\necho "FOO_ERROR: all endpoints failed" >> memory/logs/${today}.md\n'
        'echo "KEY_PRESENT"\n```\n',
        "foo",
        {"FOO_ERROR": ERROR},
        id="echo into the log counts, a probe's echo does not",
    ),
    pytest.param(
        "- Exit: {EXIT_CODE}\n- status: <STATUS_CODE for the branch that ran>\n",
        "foo",
        {},
        id="a name alone in a placeholder",
    ),
    pytest.param(
        "- **Mode:** BAR_SKILL_<OK_INSTALLED|NO_GAP|ERROR>\n",
        "bar-skill",
        {"BAR_SKILL_OK_INSTALLED": OK, "BAR_SKILL_NO_GAP": QUIET, "BAR_SKILL_ERROR": ERROR},
        id="one prefix, several endings",
    ),
    pytest.param(
        "Append one line for easy grep next-day dedup:\n```\nFOO_DEDUP: SYMBOL | question\n```\n",
        "foo",
        {},
        id="a marker line the next run greps for",
    ),
    pytest.param(
        "---\nname: foo\nrequires: [FOO_API_TOKEN, BAR_SECRET]\n---\nLog `FOO_OK` when done.\n",
        "foo",
        {"FOO_OK": OK},
        id="frontmatter names are configuration",
    ),
    pytest.param(
        "If the cache is missing, log `FOO_SKIP: no cache — enable bar first` and stop.\n"
        "If nothing is new, log `FOO_SKIP: nothing new` and stop.\n"
        "If fewer than 3 items survive, log `FOO_SKIP: thin day` and stop.\n",
        "foo",
        {"FOO_SKIP": QUIET},
        id="a weak ending takes its sentences' class, the majority",
    ),
    pytest.param(
        "On a thin day log `DIGEST_FETCH_EMPTY` (or `DIGEST_THIN` if 1–2 items survived).\n",
        "digest",
        {"DIGEST_FETCH_EMPTY": QUIET, "DIGEST_THIN": QUIET},
        id="(or `X`) goes with the token before it",
    ),
    pytest.param(
        "End-states: `CTRL_OK`, `CTRL_NO_INTENT`, `CTRL_CREATE_FAILED`.\n",
        "ctrl",
        {"CTRL_OK": OK, "CTRL_NO_INTENT": NOOP, "CTRL_CREATE_FAILED": ERROR},
        id="an end-states list",
    ),
]


@pytest.mark.parametrize(("text", "skill", "wanted"), RULES)
def test_extraction_rules(text: str, skill: str, wanted: dict[str, str]) -> None:
    vocabulary = extract_vocabulary(skill, text)
    assert {t: c.value for t, c in vocabulary.classes().items()} == dict(sorted(wanted.items()))


@pytest.mark.parametrize(
    ("token", "strong", "weak"),
    [
        ("VIBECODING_DIGEST_ERROR", ERROR, None),
        ("PRICE_ALERT_NO_TOKEN", NOOP, None),
        ("SKILL_UPDATE_CHECK_NO_LOCK", NOOP, None),
        ("DEFI_MONITOR_NO_CONFIG", NOOP, None),
        ("SKILL_ANALYTICS_NO_DATA", NOOP, None),
        ("OPERATOR_SCORECARD_INSUFFICIENT_DATA", NOOP, None),
        ("UNLOCK_MONITOR_QUIET", QUIET, None),
        ("DIGEST_THIN", QUIET, None),
        ("SKILL_HEALTH_PARTIAL", PARTIAL, None),
        ("HEARTBEAT_OK", OK, None),
        ("REPAIR_OK_FIXED", OK, None),
        ("FEAR_DIVERGENCE_SKIP", None, QUIET),
        ("FLEET_EMPTY", None, QUIET),
        ("SKILL_HEALTH_NOOP", None, QUIET),
        ("NO_GOALS", None, NOOP),
        ("RSS_FEED_BLOCKED", None, ERROR),
        ("TARGET_HIT", None, None),
    ],
)
def test_endings(token: str, strong: str | None, weak: str | None) -> None:
    """A strong ending decides; a weak one (only looked at without a strong one) leaves it to
    the sentence; a name with neither is a finding."""
    assert strong_class(token) == (OutcomeClass(strong) if strong else None)
    if strong is None:
        assert weak_class(token) == (OutcomeClass(weak) if weak else None)


def test_an_error_token_is_partial_only_when_its_sentence_says_the_run_goes_on() -> None:
    said = "`X_ERROR` and the run skips the write (so the partial sample is not kept)."
    assert extract_vocabulary("x", f"On failure, log {said}\n").classes() == {
        "X_ERROR": OutcomeClass.ERROR
    }
    goes_on = "On a failed merge, log `X_MERGE_FAIL #N` and continue with the next one.\n"
    assert extract_vocabulary("x", goes_on.replace(" #N", "")).classes() == {
        "X_MERGE_FAIL": OutcomeClass.PARTIAL
    }


def test_a_finding_name_is_never_made_a_failure_by_its_sentence() -> None:
    """`FRESHNESS_STALE` — "at least one dep past 2× threshold OR a canonical-pattern dep
    MISSING": the sentence describes what the skill found, not the run."""
    assert token_class("FRESHNESS_STALE", [OutcomeClass.NOOP]) == (OutcomeClass.OK, Why.DEFAULT)
    assert token_class("FRESHNESS_STALE", [OutcomeClass.QUIET]) == (
        OutcomeClass.QUIET,
        Why.SENTENCE,
    )

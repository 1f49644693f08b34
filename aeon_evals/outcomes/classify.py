"""How a status token's class is decided: from its own ending first (`_ERROR`, `_QUIET`,
`_NO_CONFIG`), then from the sentence it stands in ("if all endpoints fail, log …"), else a
default. Also which UPPER_SNAKE names are data or environment variables, never statuses."""

from __future__ import annotations

import re

from aeon_evals.outcomes.model import OutcomeClass, Why

OK, QUIET, NOOP, PARTIAL, ERROR = (
    OutcomeClass.OK,
    OutcomeClass.QUIET,
    OutcomeClass.NOOP,
    OutcomeClass.PARTIAL,
    OutcomeClass.ERROR,
)

# An UPPER_SNAKE name: at least two parts, letters first (`HEARTBEAT_OK`, `NO_CHANGE`, `V4_OK`).
TOKEN = re.compile(r"(?<![A-Za-z0-9_$])([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)(?![A-Za-z0-9_])")

# Endings that decide the class whatever the sentence says ("strong"): the author chose the word.
# Checked longest first, on whole `_`-separated parts.
_STRONG: tuple[tuple[str, OutcomeClass], ...] = (
    # delivery failed, the content exists
    ("NOTIFY_FAIL", PARTIAL),
    ("NOTIFY_FAILED", PARTIAL),
    ("NOTIFICATION_FAILED", PARTIAL),
    ("DELIVERY_FAILED", PARTIAL),
    ("SEND_FAILED", PARTIAL),
    ("FETCH_FAILED_PARTIAL", PARTIAL),
    ("PARTIAL", PARTIAL),
    ("DEGRADED", PARTIAL),
    ("SOURCE_MISS", PARTIAL),
    ("CACHE_MISS", PARTIAL),
    ("INCOMPLETE", PARTIAL),
    # failures
    ("ERROR", ERROR),
    ("ERR", ERROR),
    ("ERRORS", ERROR),
    ("FAIL", ERROR),
    ("FAILED", ERROR),
    ("FAILURE", ERROR),
    ("CORRUPT", ERROR),
    ("CRASH", ERROR),
    ("CRASHED", ERROR),
    ("TIMEOUT", ERROR),
    ("RATE_LIMITED", ERROR),
    ("RATE_LIMIT", ERROR),
    ("TIMED_OUT", ERROR),
    ("UNREACHABLE", ERROR),
    ("EXCEPTION", ERROR),
    # cannot do its job
    ("NO_CONFIG", NOOP),
    ("NOT_CONFIGURED", NOOP),
    ("UNCONFIGURED", NOOP),
    ("EMPTY_CONFIG", NOOP),
    ("NO_TOKEN", NOOP),
    ("NO_KEY", NOOP),
    ("NO_API_KEY", NOOP),
    ("NO_SECRET", NOOP),
    ("NO_LOCK", NOOP),
    ("NO_DATA", NOOP),
    ("INSUFFICIENT_DATA", NOOP),
    ("INVALID_VAR", NOOP),
    ("API_DOWN", ERROR),
    ("NO_AUTH", NOOP),
    ("NO_ACCESS", NOOP),
    ("NO_PERMISSION", NOOP),
    ("NOT_CONNECTED", NOOP),
    ("AUTH_STALE", NOOP),
    ("MISSING_CLI", NOOP),
    ("NO_VAR", NOOP),
    ("NO_INPUT", NOOP),
    ("BAD_VAR", NOOP),
    ("NO_TARGET", NOOP),
    ("NO_TARGETS", NOOP),
    ("NO_REPOS", NOOP),
    ("NO_FORKS", NOOP),
    ("NO_USERNAME", NOOP),
    ("NO_SOURCES", NOOP),
    ("NO_TOPICS", NOOP),
    # a sanctioned nothing-new
    ("QUIET", QUIET),
    ("QUIET_WEEK", QUIET),
    ("NO_CHANGE", QUIET),
    ("NOCHANGE", QUIET),
    ("UNCHANGED", QUIET),
    ("NOTHING_NEW", QUIET),
    ("NOTHING_TODAY", QUIET),
    ("NOTHING_TO_SEND", QUIET),
    ("NO_NEW", QUIET),
    ("NO_ALERTS", QUIET),
    ("NO_SIGNAL", QUIET),
    ("NO_GAP", QUIET),
    ("NO_ELIGIBLE", QUIET),
    ("NO_CANDIDATES", QUIET),
    ("NO_MERGED_PRS", QUIET),
    ("OK_SILENT", QUIET),
    ("LOW_SIGNAL", QUIET),
    ("LIGHT_WEEK", QUIET),
    ("LIGHT", QUIET),
    ("THIN", QUIET),
    ("DEDUP", QUIET),
    ("DEDUPED", QUIET),
    ("OFF_DAY", QUIET),
    ("OUT_OF_WINDOW", QUIET),
    ("BELOW_THRESHOLD", QUIET),
    ("ALREADY_RAN_TODAY", QUIET),
    ("ALREADY_PROCESSED", QUIET),
    ("ALREADY_ENABLED", QUIET),
    ("ALL_EXIST", QUIET),
    ("SKIP_UNCHANGED", QUIET),
    ("DRY_RUN", QUIET),
    # did its job
    ("OK", OK),
    ("COMPLETE", OK),
    ("DONE", OK),
    ("SUCCESS", OK),
    ("CLEAN", OK),
    ("ACCEPTED", OK),
    ("BOOTSTRAP", OK),
    ("BOOTSTRAPPED", OK),
    ("RECOVERED", OK),
)

# Endings whose meaning the sentence decides ("weak"), with the class when it says nothing.
_WEAK: tuple[tuple[str, OutcomeClass], ...] = (
    ("SKIP", QUIET),
    ("SKIPPED", QUIET),
    ("EMPTY", QUIET),  # FLEET_EMPTY "no instances in registry" → noop by its sentence
    ("NONE", QUIET),
    ("NOOP", QUIET),  # SKILL_HEALTH_NOOP "state unchanged": nothing to do, not unable
    ("NO_MATCH", QUIET),
    ("DEFERRED", QUIET),
    ("EMPTY_VAR", NOOP),  # research-brief "if var is empty, … fall back to the top hot-topic"
    ("BLOCKED", ERROR),
    ("REFUSED", NOOP),
    ("MISSING", NOOP),
    ("UNSUPPORTED", NOOP),
    ("UNKNOWN_SELECTOR", NOOP),
    ("APPROVAL_PENDING", NOOP),
    ("INVALID", ERROR),
    ("BAD", NOOP),
    ("NO", NOOP),  # any other NO_<thing>: usually the thing is missing
)

_STRONG_BY_PARTS = sorted(
    ((tuple(end.split("_")), cls) for end, cls in _STRONG), key=lambda e: -len(e[0])
)
_WEAK_BY_PARTS = sorted(
    ((tuple(end.split("_")), cls) for end, cls in _WEAK), key=lambda e: -len(e[0])
)

# Names of data, files and environment variables, never a run's status.
_DATA_ENDINGS = frozenset(
    {
        "KEY",
        "API_KEY",
        "SECRET",
        "TOKEN",
        "PAT",
        "URL",
        "URI",
        "ID",
        "IDS",
        "DIR",
        "PATH",
        "FILE",
        "SHA",
        "HASH",
        "TS",
        "DATE",
        "AT",
        "NAME",
        "CSV",
        "JSON",
        "LIST",
        "COUNT",
        "PCT",
        "STATE",
        "HANDLE",
        "REPO",
        "REPOS",
        "OWNER",
        "BRANCH",
        "ENV",
        "EMAIL",
        "VERSION",
        "HOURS",
        "DAYS",
        "SIZE",
        "CAP",
        "ADDRESS",
        "WALLET",
        "CHAT_ID",
        "RPC_URL",
        "WEBHOOK_URL",
    }
)


def _parts(token: str) -> tuple[str, ...]:
    return tuple(token.split("_"))


def _ending(
    parts: tuple[str, ...], table: list[tuple[tuple[str, ...], OutcomeClass]]
) -> OutcomeClass | None:
    for end, cls in table:
        if len(parts) >= len(end) and parts[-len(end) :] == end:
            return cls
    return None


# weak words that count anywhere after the first part (`FOO_NO_PICKS_TODAY`, `BAR_BAD_SLUG_FORMAT`)
_WEAK_INSIDE = {"NO": NOOP, "NOT": NOOP, "BAD": NOOP, "SKIP": QUIET}


def strong_class(token: str) -> OutcomeClass | None:
    """The class a token's own ending states outright, if any; an `OK` part before a qualifier
    counts too (`REPAIR_OK_FIXED`, `SEARCH_SKILL_OK_CANDIDATES`)."""
    parts = _parts(token)
    found = _ending(parts, _STRONG_BY_PARTS)
    if found is None and "OK" in parts[1:-1] and "NOT" not in parts:
        return OK
    return found


def weak_class(token: str) -> OutcomeClass | None:
    """The class of an ending whose meaning the sentence decides, if any."""
    parts = _parts(token)
    found = _ending(parts, _WEAK_BY_PARTS)
    if found is not None:
        return found
    inside = parts if parts[0] in ("NO", "BAD") else parts[1:]  # `NO_GOALS`: the thing is missing
    return next((_WEAK_INSIDE[p] for p in inside if p in _WEAK_INSIDE), None)


def status_like(token: str) -> bool:
    """Whether a token's name reads as a run status (a strong or weak ending)."""
    return strong_class(token) is not None or weak_class(token) is not None


def looks_like_data(token: str) -> bool:
    """A name of data or configuration (`XAI_API_KEY`, `TOKEN_REPORT_STATE`, `GH_TOKEN`), unless
    it says the thing is missing (`PRICE_ALERT_NO_TOKEN`)."""
    parts = _parts(token)
    if parts[0] in ("KEY", "ENV", "VAR"):  # `KEY_PRESENT`, `KEY_UNSET`: a probe's answer
        return True
    if "NO" in parts or "MISSING" in parts:
        return False
    return parts[-1] in _DATA_ENDINGS or "_".join(parts[-2:]) in _DATA_ENDINGS


# What a sentence says, tried in this order. Each is about the condition or the description that
# goes with a token, never about the token's name.
_SENTENCE: tuple[tuple[OutcomeClass, re.Pattern[str]], ...] = (
    # the author's own word for the run's end: "… and exit `ERROR`"
    (ERROR, re.compile(r"\b(?:[Ee]xit|[Ss]top|[Ee]nd|[Aa]bort)s?\b[^.;]{0,20}?\bERROR\b")),
    (OK, re.compile(r"(?i)\b(?:and|then) falls? back to\b|\bnot (?:yet )?opted in")),
    (
        PARTIAL,
        _GOES_ON := re.compile(
            r"(?i)\bnon-fatal\b|\b(?:and|then) (?:proceed|continue)\b|\bproceed without\b"
            r"|\bcontinue (?:with(?:out)?|the run)\b"
        ),
    ),
    (
        NOOP,
        re.compile(
            r"(?i)\bnot (?:configured|set|found|present|connected|installed|tracked)\b"
            r"|\b(?:missing|absent|unset|unconfigured)\b"
            r"|\b(?:does ?n[o']t|does not|doesn't) exist\b"
            r"|\bno (?:[\w`.-]+ ){0,3}?(?:config\w*|token|key|api key|secret|credentials?|lock"
            r"|lockfile|registry|instances?|repos?|repositories|wallets?|positions?|watches"
            r"|watchlist|var|input|username|handle|access|auth\w*|permissions?|data|picks"
            r"|sources?|topics?|projects?|goals|file|context|forks?|leaderboard|contract)\b"
            r"|\b(?:enable|configure|populate|add|set up) [\w`./-]+(?: [\w`./-]+){0,3} first\b"
            r"|\bneeds? [\w`-]+ enabled\b|[—–-] enable [\w`-]+"
            r"|\binsufficient (?:data|history)\b|\bnot enough (?:data|history)\b"
            r"|\bvar`? is empty\b|\bempty var\b|\bis empty in `?aeon\.yml"
        ),
    ),
    (
        ERROR,
        re.compile(
            r"(?i)\b(?:if|when)\b[^.;]{0,80}?\b(?:fail|fails|failed|errors?|errored|unreachable"
            r"|times? out|timed out)\b"
            r"|\b(?:all|every|both)\b[^.;]{0,40}?\bfail(?:ed|s)?\b"
            r"|\bmalformed\b|\bcorrupt\w*\b|\bcannot (?:reach|fetch|connect|parse)\b"
        ),
    ),
    (
        PARTIAL,
        re.compile(
            r"(?i)\bpartial\w*|\bdegraded\b|\bcontinue with\b|\bsome (?:sources?|steps?|fetch\w*)"
            r" fail|\b(?:notify|notification|delivery) fail"
        ),
    ),
    (
        QUIET,
        re.compile(
            r"(?i)\bnothing (?:new|to \w+|changed|qualif\w*|found|survived|left|remains|armed)\b"
            r"|\bno (?:new|change|changes|alerts?|movers|updates|signal|activity|gate|news)\b"
            r"|\bunchanged\b|\bquiet\b|\bskip silently\b|\bbelow (?:the )?threshold\b"
            r"|\babove (?:the )?threshold\b|\balready\b|\bidle\b"
            r"|\b(?:zero|no) [\w-]+ (?:qualif\w*|diverg\w*|crossed|fired|moved|passed)\b"
            r"|\bfewer than\b|\bthin\b|\bnone (?:qualif\w*|found|fired)\b"
        ),
    ),
    (OK, re.compile(r"(?i)\bnormal run\b|\bcompleted\b|\bsucce(?:ss|eded)\w*|\bran cleanly\b")),
)


def use_class(token: str, said: OutcomeClass | None, sentence: str) -> OutcomeClass | None:
    """What one use of `token` says (`said`, its sentence's class) as `token_class` counts it:
    a token that names a failure is partial only where the run goes on ("… and continue with
    the next one", "non-fatal"), not where "partial" is merely a word of the sentence."""
    if said is PARTIAL and strong_class(token) is ERROR and _GOES_ON.search(sentence) is None:
        return None
    return said


def sentence_class(text: str) -> OutcomeClass | None:
    """What a sentence alone says about the run it describes, if anything."""
    for cls, pattern in _SENTENCE:
        if pattern.search(text):
            return cls
    return None


def token_class(token: str, use_classes: list[OutcomeClass | None]) -> tuple[OutcomeClass, Why]:
    """A token's class: its ending when that is decisive; else what its sentences say (the most
    frequent, ties to the milder); else the ending's default; else ok."""
    strong = strong_class(token)
    if strong is ERROR and PARTIAL in use_classes:
        # "log `X_FAIL` — continue with the next one": the author says the run goes on
        return PARTIAL, Why.SENTENCE
    if strong is not None:
        return strong, Why.NAME
    weak = weak_class(token)
    said = [c for c in use_classes if c is not None]
    if weak is QUIET:
        # a skip, an empty, a none the author named so: never "ok", never an outright error
        said = [NOOP if c is ERROR else c for c in said if c is not OK]
    elif weak is None:
        # a name with no status ending is mostly a finding (`FRESHNESS_STALE`, `SHARP_MOVE`):
        # "missing" or "fails" in its sentence describes what was found, not the run
        said = [c for c in said if c not in (NOOP, ERROR)]
    if said:
        counts = {c: said.count(c) for c in said}
        best = max(counts.values())
        return min((c for c, n in counts.items() if n == best), key=lambda c: c.rank), Why.SENTENCE
    if weak is not None:
        return weak, Why.DEFAULT
    return OK, Why.DEFAULT

"""One run's outcome read from its own output text (a log section or an article): the status
token of its vocabulary that it reports, else a generic failure signature on one of its status
lines, else healthy. Quoted lines, fenced blocks, tables and prose never count. Pure."""

from __future__ import annotations

import re
from dataclasses import dataclass

from aeon_evals.outcomes.classify import (
    TOKEN,
    sentence_class,
    strong_class,
    token_class,
    weak_class,
)
from aeon_evals.outcomes.model import (
    HEALTHY,
    Basis,
    Outcome,
    OutcomeClass,
    VocabToken,
    Vocabulary,
    Why,
)

QUOTE_LIMIT = 200
SHORT_SECTION = 3  # a section of at most this many content lines is all status lines

_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})")
_LEAD = re.compile(r"^[ \t]*(?:(?:[-*+]|\d+[.)])[ \t]+)?(?:\[[ xX]\][ \t]+)?[^\w\n]*")
_KEY = re.compile(r"^([A-Za-z][A-Za-z0-9 /()_-]{0,40}?)[ \t]*[*_]*[ \t]*:(?!//)[*_]*[ \t]*(.*)$")
_STATUS_KEYS = frozenset(
    {
        "status",
        "result",
        "outcome",
        "exit",
        "exit status",
        "exit code",
        "exit mode",
        "terminal",
        "verdict",
        "run status",
        "run result",
        "mode",
        "final status",
        "overall status",
    }
)
_ABORT_KEYS = frozenset({"aborted", "skipped", "abort", "skip"})
# keys that also carry the verdict of the content (`Verdict: blocked: untested logic` on a PR,
# `Verdict: CONSOLIDATING` on a chart): only a value that starts with a failure word counts
_CONTENT_KEYS = frozenset({"verdict", "mode"})
_DELIVERY_KEYS = frozenset(
    {
        "notification",
        "notifications",
        "notification sent",
        "notifications sent",
        "notify",
        "notified",
        "delivery",
        "delivered",
        "sent",
        "telegram",
        "discord",
        "slack",
        "email",
        "push",
        "publish",
        "published",
        "commit",
        "committed",
        "pushed",
    }
)
_TOKEN_KEYS = _STATUS_KEYS | _DELIVERY_KEYS  # lines whose value's tokens are the run's status
_ERROR_KEYS = frozenset(
    {
        "error",
        "errors",
        "failure",
        "failures",
        "fatal",
        "exception",
        "failed",
    }
)
_SOURCE_KEYS = frozenset(
    {
        "sources",
        "source",
        "source status",
        "sources status",
        "fetch",
        "fetches",
    }
)
_IDENTITY_KEYS = frozenset(
    {
        "skill",
        "name",
        "date",
        "run",
        "window",
        "mode",
        "var",
        "time",
        "ran",
        "trigger",
        "branch",
    }
)
_NONE_VALUE = re.compile(
    r"(?i)^[\s*_`]*(?:none|no|0|zero|n/?a|-|—|–|null|nil|false|ok|clean|nothing|\(none\))"
    r"[\s*_`.]*(?:$|\()"
)
_NA_VALUE = re.compile(r"(?i)^[\s*_`(]*(?:n/?a|none|—|–|-|null|unknown|\?)[\s*_`)]*(?:[|·,;].*)?$")
_GOOD_START = re.compile(
    r"(?i)^[\s*_`]*(?:ok\b|okay\b|success\w*|succeeded|sent\b|yes\b|delivered|queued|staged"
    r"|written|done\b|complete\w*|clean\b|healthy|green|pass\w*|✅|🟢|no errors?\b)"
)
_CODE_OR_QUOTE = re.compile(r"`[^`]*`|\"[^\"]*\"|“[^”]*”|'[^'\n]{12,}'")
# a message that exists and is on its way (the sandbox's post-run delivery queue included)
_DELIVERED = re.compile(r"(?i)pending-notify|\b(?:queued|staged|written|wrote|sent|delivered)\b")
_NOT_DELIVERED = re.compile(r"(?i)\b(?:not|never|un)[ -]?(?:sent|delivered|queued|staged)\b")
_TALLY = re.compile(r"(?i)\b\d+\s+(?:\w+\s+)?(?:blocked|failed|errors?|failures?|errored)\b")
_NEGATED = re.compile(r"(?i)\b(?:no|zero|without|never|not)\s+(?:\w+\s+)?$")


@dataclass(frozen=True)
class _Signature:
    name: str  # how it is reported; `{0}` takes the matched group when there is one
    outcome: OutcomeClass
    pattern: re.Pattern[str]


_SIGNATURES = (
    _Signature(
        "HTTP {0}",
        OutcomeClass.ERROR,
        re.compile(
            r"(?i)\b(?:HTTP|status(?: code)?|code|curl|returned|got)[ /:=]*([45]\d\d)\b"
            r"|\b([45]\d\d) (?:"
            r"Forbidden|Unauthori[sz]ed|Not Found|Too Many Requests|Internal Server Error"
            r"|Bad Gateway|Service Unavailable|Gateway Time-?out|Bad Request)\b"
        ),
    ),
    _Signature(
        "rate limit", OutcomeClass.ERROR, re.compile(r"(?i)\brate[- ]?limit(?:ed|s|ing)?\b")
    ),
    _Signature(
        "requires approval",
        OutcomeClass.ERROR,
        re.compile(r"(?i)\brequires? (?:\w+ )?approval\b|\bawaiting (?:\w+ )?approval\b"),
    ),
    _Signature(
        "permission denied",
        OutcomeClass.ERROR,
        re.compile(r"(?i)\bpermission denied\b|\bunauthori[sz]ed\b|\bforbidden\b"),
    ),
    _Signature(
        "{0} not set",
        OutcomeClass.NOOP,
        re.compile(
            r"(?i)(?:\b([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)`?\s+(?:is\s+)?)?\b(?:not set|unset)\b"
        ),
    ),
    _Signature(
        "not configured",
        OutcomeClass.NOOP,
        re.compile(r"(?i)\bnot configured\b|\bno [\w-]+(?: [\w-]+){0,4} configured\b"),
    ),
    _Signature("blocked", OutcomeClass.ERROR, re.compile(r"(?i)\bblocked\b")),
    _Signature(
        "failed to",
        OutcomeClass.ERROR,
        re.compile(r"(?i)\bfailed to\b|\bcould not\b|\bcouldn't\b|\bunable to\b"),
    ),
    _Signature("timeout", OutcomeClass.ERROR, re.compile(r"(?i)\btimed? ?out\b")),
    _Signature(
        "error",
        OutcomeClass.ERROR,
        re.compile(
            r"(?i)^[\s*_`]*(?:error|failed|failure|fail|fatal|aborted|crash(?:ed)?)\b|\berror:"
        ),
    ),
)
_LEADING_FAILURE = re.compile(
    r"(?i)^[\s*_`]*(?:error|errored|failed|failure|fail|fatal|aborted|crash(?:ed)?"
    r"|timed? ?out|rate[- ]?limited)\b"
)
# a line that starts with a failure: `Failed to fetch the trending page (HTTP 429).`
_LEADING_ANY = re.compile(
    r"(?i)^[\s*_`]*(?:(?:error|failure|fail|fatal|timeout|blocked|aborted)\b[\s*_`]*(?:[:—–(]|-\s|$)"
    r"|failed\b|errored\b|crash(?:ed)?\b|could not\b|couldn't\b|unable to\b|timed out\b"
    r"|rate[- ]?limited\b|blocked by\b|permission denied\b|requires? (?:\w+ )?approval\b"
    r"|HTTP [45]\d\d\b|not (?:set|configured)\b)"
)
_PARTIAL_STATUS = re.compile(r"(?i)^[\s*_`]*(?:partial\w*|degraded)\b")
_SOURCE_FAIL = re.compile(r"(?i)^(?:fail\w*|error\w*|blocked|timeout|down|403|429|5\d\d)$")


@dataclass(frozen=True)
class _Line:
    no: int  # 1-based within the text
    text: str  # as written
    body: str  # without list markers, emphasis and leading symbols
    heading: bool


def _content_lines(text: str) -> list[_Line]:
    """The lines a status may stand on: outside fences, not quoted, not table rows, not HTML
    comments; headings kept (flagged) for tokens only."""
    out: list[_Line] = []
    fence: str | None = None
    comment = False
    for no, line in enumerate(text.splitlines(), 1):
        # (a fence opens with three backticks or tildes: the pattern tried on those lines only)
        if ("```" in line or "~~~" in line) and (m := _FENCE.match(line)) is not None:
            marker = m.group(1)
            if fence is None:
                fence = marker
            elif marker[0] == fence[0] and len(marker) >= len(fence):
                fence = None
            continue
        if fence is not None:
            continue
        stripped = line.strip()
        if comment or stripped.startswith("<!--"):
            comment = "-->" not in stripped
            continue
        if not stripped or stripped.startswith((">", "|")):
            continue
        heading = stripped.startswith("#")
        body = stripped.lstrip("#").strip() if heading else _LEAD.sub("", line).strip()
        out.append(_Line(no, line, body, heading))
    return out


def _own(vocabulary: Vocabulary, token: str) -> VocabToken | None:
    """The vocabulary entry of a token this run may report: the skill's own (its SKILL.md names
    it), or an unnamed token carrying the skill's own prefix, classed by its ending."""
    found = vocabulary.get(token)
    if found is not None:
        return found
    if token in vocabulary.ignored or not vocabulary.prefixes:
        return None
    if not token.startswith(vocabulary.prefixes):
        return None
    strong = strong_class(token)
    if strong is not None:
        return VocabToken(token, strong, Why.NAME, ())
    weak = weak_class(token)
    if weak is None:
        return None
    return VocabToken(token, weak, Why.DEFAULT, ())


def _words(text: str) -> set[str]:
    text = re.sub(r"\$\{[^}]*\}|\{[^}]*\}|<[^>]*>|\[[^\]]*\]", " ", text)
    return {w for w in re.findall(r"[a-z][a-z0-9-]{2,}", text.lower())}


def resolve(entry: VocabToken, detail: str) -> OutcomeClass:
    """The class of one report of a token: its class, except that a token whose SKILL.md uses
    state different classes (`FEAR_DIVERGENCE_SKIP` for "above threshold" and for "no
    market-context.md") takes the class of the use whose written text the report's `detail`
    matches best, else what the detail itself says, else the token's class."""
    if entry.why in (Why.OVERRIDE, Why.NAME):
        return entry.outcome
    if entry.why is Why.DEFAULT:
        # the SKILL.md said nothing about this token: what the run wrote after it decides, by
        # the same rules (`RSS_DIGEST_SKIPPED — memory/feeds.yml does not exist` → noop)
        return token_class(entry.token, [sentence_class(detail)])[0]
    if len(entry.variants) < 2:
        return entry.outcome
    said = _words(detail)
    best: tuple[float, int, OutcomeClass] | None = None
    for use in entry.uses:
        if use.outcome is None:
            continue
        wanted = _words(use.detail) or _words(use.sentence)
        if not wanted or not said:
            continue
        score = len(wanted & said) / len(wanted)
        if score >= 0.5 and (best is None or (score, -use.outcome.rank) > best[:2]):
            best = (score, -use.outcome.rank, use.outcome)
    if best is not None:
        return best[2]
    return sentence_class(detail) or entry.outcome


def _detail(text: str, end: int) -> str:
    """What a run wrote right after a token: to the end of its code span or parenthesis, else
    of its clause (`FEAR_DIVERGENCE_SKIP: F&G 26 (Fear) — above threshold`)."""
    before = text[:end]
    rest = text[end:]
    if before.count("`") % 2 == 1:
        rest = rest.split("`", 1)[0]
    elif before.count("(") > before.count(")"):
        rest = rest.split(")", 1)[0]
    else:
        rest = re.split(r"(?<=[.!?])\s+(?=[A-Z])|\s+\|\s+", rest, maxsplit=1)[0]
    return rest.strip(" :—–-*`")[:200]


def _quote(text: str) -> str:
    text = " ".join(text.strip().split())
    return text if len(text) <= QUOTE_LIMIT else text[: QUOTE_LIMIT - 1] + "…"


def _key(body: str) -> tuple[str, str] | None:
    if ":" not in body:  # (most lines: no key, no pattern tried)
        return None
    m = _KEY.match(body)
    if m is None:
        return None
    key = re.sub(r"\s*\([^)]*\)$", "", m.group(1)).strip(" *_`").lower()
    return key, m.group(2).strip()


def _vocabulary_outcome(lines: list[_Line], vocabulary: Vocabulary) -> Outcome | None:
    """The token of the vocabulary the run reports on its status lines: a `Status:` line's value
    first, else a line (or heading) that starts with a token; the most severe on that tier, the
    later line on a tie."""
    tiers: tuple[list[Outcome], list[Outcome]] = ([], [])
    for line in lines:
        if "_" not in line.body:
            continue
        kv = None if line.heading else _key(line.body)
        status_line = kv is not None and kv[0] in _TOKEN_KEYS
        matches = list(TOKEN.finditer(line.body))
        if not matches:
            continue
        bare = matches[0].start() == 0 or line.heading
        if not (status_line or bare):
            continue
        scope = kv[1] if status_line and kv is not None else line.body
        for m in TOKEN.finditer(scope):
            if scope[m.end() : m.end() + 1] == "=":
                continue
            entry = _own(vocabulary, m.group(1))
            if entry is None:
                continue
            detail = _detail(scope, m.end())
            cls = resolve(entry, detail)
            tier = (
                tiers[0] if status_line and kv is not None and kv[0] in _STATUS_KEYS else tiers[1]
            )
            tier.append(Outcome(cls, Basis.VOCABULARY, entry.token, _quote(line.text), line.no))
    for found in tiers:
        if found:
            return max(found, key=lambda o: (o.outcome.rank, o.line_no))
    return None


def _signature_in(
    value: str, *, delivery: bool, leading: bool = False
) -> tuple[str, OutcomeClass] | None:
    """The first generic failure signature in a status value, unless the value says all is well,
    the words are a tally (`3 blocked`), negated (`no errors`) or inside quotes or code (a
    message quoted, a command shown)."""
    if _GOOD_START.match(value):
        return None
    if delivery and _DELIVERED.search(value) and not _NOT_DELIVERED.search(value):
        return None
    plain = _TALLY.sub(" ", _CODE_OR_QUOTE.sub(" ", value))
    if _PARTIAL_STATUS.match(plain) and not delivery:
        return "partial", OutcomeClass.PARTIAL
    if leading and not _LEADING_FAILURE.match(plain):
        # a content verdict: only "not set" / "not configured" count anywhere in it
        sigs = tuple(sig for sig in _SIGNATURES if sig.outcome is OutcomeClass.NOOP)
    else:
        sigs = _SIGNATURES
    for sig in sigs:
        m = sig.pattern.search(plain)
        if m is None or _NEGATED.search(plain[: m.start()]):
            continue
        if sig.name == "error" and sentence_class(value) is OutcomeClass.NOOP:
            return "not configured", OutcomeClass.NOOP  # `ABORTED — var is empty in aeon.yml`
        group = next((g for g in m.groups() if g), "") if m.groups() else ""
        name = sig.name.format(group).strip() if "{0}" in sig.name else sig.name
        if sig.name == "{0} not set" and not group:
            name = "not set"
        cls = (
            OutcomeClass.PARTIAL if delivery and sig.outcome is OutcomeClass.ERROR else sig.outcome
        )
        return name, cls
    return None


def _all_sources_failed(value: str) -> bool:
    """`top=fail hot=fail rising=fail`: every source named, and every one failed."""
    pairs = re.findall(r"([\w.-]+)\s*[=:]\s*([\w-]+)", _CODE_OR_QUOTE.sub(" ", value))
    return len(pairs) >= 2 and all(_SOURCE_FAIL.match(v) for _, v in pairs)


def _signature_outcome(lines: list[_Line]) -> Outcome | None:
    """A generic failure signature on one of the run's status lines (see docs/outcomes.md)."""
    content = [line for line in lines if not line.heading]
    short = len(content) <= SHORT_SECTION
    found: list[Outcome] = []
    fields: list[tuple[str, str]] = []
    for line in content:
        kv = _key(line.body)
        hit: tuple[str, OutcomeClass] | None = None
        if kv is not None:
            key, value = kv
            fields.append((key, value))
            if key in _ABORT_KEYS:
                if value and not _NONE_VALUE.match(value):
                    noop = sentence_class(value) is OutcomeClass.NOOP
                    if noop:
                        hit = ("not configured", OutcomeClass.NOOP)
                    elif key == "aborted":
                        hit = ("aborted", OutcomeClass.ERROR)
            elif key in _CONTENT_KEYS:
                hit = _signature_in(value, delivery=False, leading=True)
            elif key in _STATUS_KEYS:
                hit = _signature_in(value, delivery=False)
            elif key in _DELIVERY_KEYS:
                hit = _signature_in(value, delivery=True)
            elif key in _ERROR_KEYS:
                if value and not _NONE_VALUE.match(value):
                    # `Error: XAI_API_KEY not set` names its cause; else the line is the error
                    found_in = _signature_in(value, delivery=False)
                    hit = found_in if found_in is not None else ("error", OutcomeClass.ERROR)
            elif key in _SOURCE_KEYS and _all_sources_failed(value):
                hit = ("every source failed", OutcomeClass.ERROR)
            elif short and _LEADING_FAILURE.match(line.body):
                hit = _signature_in(line.body, delivery=False)  # `Error: …`, `Failed: …`
        elif short and _LEADING_ANY.match(line.body):
            # a section of a line or three is all status, when a line starts with the failure
            hit = _signature_in(line.body, delivery=False)
        if hit is not None:
            found.append(Outcome(hit[1], Basis.SIGNATURE, hit[0], _quote(line.text), line.no))
    if found:
        return max(found, key=lambda o: (o.outcome.rank, -o.line_no))
    judged = [(k, v) for k, v in fields if k not in _IDENTITY_KEYS]
    if len(judged) >= 3 and all(_NA_VALUE.match(v) for _, v in judged):
        first = next(line for line in content if _key(line.body) is not None)
        return Outcome(
            OutcomeClass.NOOP, Basis.SIGNATURE, "every field n/a", _quote(first.text), first.no
        )
    return None


def read_outcome(text: str | bytes, vocabulary: Vocabulary) -> Outcome:
    """The outcome one run reports in `text` (one log section, heading included, or one article):
    a token of `vocabulary` on its status lines, else a generic failure signature on them, else
    healthy (`HEALTHY`, basis NONE). Pure; bytes are read as UTF-8 with replacement."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    lines = _content_lines(text)
    return _vocabulary_outcome(lines, vocabulary) or _signature_outcome(lines) or HEALTHY

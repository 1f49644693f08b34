"""A skill's outcome vocabulary read from its SKILL.md: every status token the text tells the
agent to log, print, notify, emit or exit with, or lists as an output code, each classified and
quoted with its line. Environment variables and data names are never tokens. Pure."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from aeon_evals.outcomes.classify import (
    TOKEN,
    looks_like_data,
    sentence_class,
    status_like,
    strong_class,
    token_class,
    use_class,
)
from aeon_evals.outcomes.model import OutcomeClass, TokenUse, VocabToken, Vocabulary, Why

QUOTE_LIMIT = 240
DETAIL_LIMIT = 120

_FENCE = re.compile(r"^[ \t>]*(`{3,}|~{3,})[ \t]*([^\s`]*)")
_HEADING = re.compile(r"^#{1,6}[ \t]+(.*)")
_SHELL = frozenset({"bash", "sh", "shell", "zsh", "console", "shell-session"})
_DATA = frozenset({"json", "jsonc", "yaml", "yml", "toml", "python", "py", "js", "javascript"})
_DATA |= frozenset({"ts", "typescript", "graphql", "sql", "html", "css", "xml", "mjs", "diff"})

# A name used as a variable anywhere in the file: `$NAME`, `${NAME`, `NAME=value`, `NAME:-x`,
# `process.env.NAME`, `secrets.NAME`. Such a name is configuration, not a status.
_VARIABLE = re.compile(
    r"\$\{?([A-Z][A-Z0-9_]*)(?![A-Z0-9_])(?![ \t]*\|)"  # `${A | B}` lists alternatives
    r"|(?<![A-Za-z0-9_])([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)(?:=(?!=)|:-)"
    r"|(?:env|secrets|environ)\.\[?['\"]?([A-Z][A-Z0-9_]*)"
)
# The verb that makes a token something the agent writes: the words right before it.
_VERB = re.compile(
    r"(?i)(?:\b(?:log|logs|logged|logging|print|prints|emit|emits|emitting|notify|notifies"
    r"|exit|exits|exiting|output|outputs|report|reports|return|returns|record|records"
    r"|send|sends|sending|post|posts"
    r"|write|writes|append|appends|end|ends|stop|stops|abort|aborts|finish|finishes|bail"
    r"|verdict|verdicts|signal|fall(?:s)? through to|go(?:es)? to step [\w.]+)"
    r"(?: (?:with|as|the|a|an|one|line|status|code|verdict|result|out|only|silently|immediately"
    r"|early|cleanly|and|then|exit|mode|to|of|single)){0,4}"
    r"|\bstatus(?: (?:is|line|code|of))?|\bexit code|\bresult(?: is)?|\bmark (?:it|the run) as)"
    r"[ \t]*[:=]?[ \t]*[\"'`*(\[{$]*[ \t]*$"
)
# A heading or table header that introduces output codes, not configuration.
_STATUS_HEADER = re.compile(
    r"(?i)\b(?:status(?:es)?|exit|exits|outcomes?|results?|verdicts?|log(?:ging)?|output"
    r"|report(?:ing)?|terminal|exit codes?|status codes?|output codes?)\b"
)
# the header cell over a table column of statuses
_STATUS_COLUMN = re.compile(
    r"(?i)^(?:status|exit|exit code|exit mode|outcome|verdict|result|log(?: line)?|status code"
    r"|exit status)$"
)
_CONFIG_HEADER = re.compile(
    r"(?i)\b(?:env(?:ironment)?|variables?|secrets?|requires?|required|config(?:uration)?"
    r"|setup|keys?|inputs?|vars?|parameters?|credentials?)\b"
)
_LIST_ITEM = re.compile(r"^[ \t]*(?:[-*+]|\d+[.)])[ \t]+")
_LEAD = re.compile(r"^[ \t>]*(?:(?:[-*+]|\d+[.)])[ \t]+)?(?:\[[ xX]\][ \t]+)?[\W_]*?(?=[A-Z])")
_KEY_VALUE = re.compile(r"^[\W_]*([A-Za-z][A-Za-z /-]{1,30}?)[*_`]*[ \t]*[:=][*_`]*[ \t]*(.*)$")
_STATUS_KEY = re.compile(
    r"(?i)^(?:status|result|outcome|exit(?: status| code| mode)?|terminal|verdict|run status|mode"
    r"|log|end[- ]states?|exit states?|status codes?|exit codes?|outcomes|statuses)$"
)
_ECHO = re.compile(r"\b(?:echo|printf)\b")
_ECHO_TO_LOG = re.compile(r"memory/logs|\bnotify\b|>>?\s*\"?\$\{?(?:LOG|log)")
# a line the next run greps or parses back (`TOKEN_PICK_DEDUP: SYMBOL | …` "for easy grep
# next-day dedup"): data, not a status
_MARKER = re.compile(r"(?i)\bgrep\b|\bmarkers?\b|\bkey=value\b")
_PER_ITEM = re.compile(r"^[:\w-]*\s*#(?:N\b|\d|<|\$|\{)")
# `add `X_DEGRADED` to the notification subject line`
_ADD_TO = re.compile(
    r"(?i)[`*\"]*\s+(?:to|in|into) the (?:notify|notification|log|subject|message|status)"
)
# `Status codes: `VIDEO_SCRIPT_OK` on success, `VIDEO_SCRIPT_NO_SOURCE` when …`
_INLINE_LABEL = re.compile(
    r"(?i)\b(?:status(?:es| codes?)?|end[- ]states?|exit (?:codes?|states?|modes?)|outcomes)"
    r"\s*\**:"
)
_ADD = re.compile(r"(?i)\b(?:add|flag|include|append|put)\W*$")
_OR = re.compile(r"(?i)\(?\bor\s*[`*\"]*$")
# `If all repo calls errored: `GITHUB_MONITOR_ERROR sources=...``
_CONDITION = re.compile(
    r"(?i)^[ \t>]*(?:[-*+][ \t]+)?(?:if|when|on)\b[^`]{0,120}[:→][ \t]*[`*\"]+$"
)
# a list item's bold label naming its token: `- **Empty run (`FARCASTER_DIGEST_OK`):**`
_LABEL = re.compile(r"^[ \t]*(?:[-*+]|\d+[.)])[ \t]+\*\*[^:*]{0,40}\([`*\"]*$")
_PROSE_PLACEHOLDER = re.compile(r"\{[^{}]*[a-z]{3,}[^{}]*\}")
# a name alone in a placeholder (`{EXIT_CODE}`, `<STATUS_CODE for …>`, `[QUESTION_SNIPPET]`)
_IN_PLACEHOLDER = re.compile(r"[{<\[][ \t]*$")
# `SEARCH_SKILL_<OK_INSTALLED|OK_CANDIDATES|NO_GAP>`: one prefix, several endings
_ALTERNATIVES = re.compile(
    r"\b([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_)[<{\[(]([A-Z0-9_]+(?:[ \t]*\|[ \t]*[A-Z0-9_]+)+)[>}\])]"
)
_SENTENCE_END = re.compile(
    r"(?<=[.!?;])(?<!e\.g\.)(?<!i\.e\.)[ \t]+(?=[A-Z*`(\[\"'])|[ \t]+→[ \t]+(?=[Ii]f )"
)
_PLACEHOLDER = re.compile(r"\$\{[^}]*\}|\{[^}]*\}|<[^>]*>|\[[^\]]*\]")


@dataclass
class _Line:
    no: int
    text: str
    fence: str | None  # the fence's info string ("" for a bare fence); None in prose
    heading: str  # the heading the line is under
    table_header: str  # the header row of the table the line belongs to, if any
    marker_fence: bool  # in a fence the prose before calls a marker to grep or parse back


def _lines(text: str) -> tuple[list[_Line], set[str]]:
    """The SKILL.md's lines with their fence, heading and table context; and the names its
    frontmatter declares (`requires: [COINGECKO_API_KEY?]`), which are configuration."""
    raw = text.splitlines()
    declared: set[str] = set()
    start = 0
    if raw and raw[0].strip() == "---":
        for i in range(1, len(raw)):
            if raw[i].strip() in ("---", "..."):
                for line in raw[1:i]:
                    declared.update(m.group(1) for m in TOKEN.finditer(line))
                start = i + 1
                break
    out: list[_Line] = []
    fence: tuple[str, int, str] | None = None  # marker char, marker length, info
    heading = ""
    table_header = ""
    recent_prose: list[str] = []
    greps = False  # the open fence is a marker line the next run greps for
    for i in range(start, len(raw)):
        line = raw[i]
        m = _FENCE.match(line) if ("```" in line or "~~~" in line) else None
        if m is not None:
            marker, info = m.group(1), m.group(2).lower()
            if fence is None:
                fence = (marker[0], len(marker), info)
                greps = bool(_MARKER.search(" ".join(recent_prose[-2:])))
                continue
            if marker[0] == fence[0] and len(marker) >= fence[1] and not info:
                fence = None
                continue
        if fence is None:
            h = _HEADING.match(line)
            if h:
                heading = h.group(1)
            stripped = line.strip()
            if stripped.startswith("|"):
                if not table_header:
                    table_header = stripped
            else:
                table_header = ""
            if stripped:
                recent_prose.append(stripped)
                del recent_prose[:-3]
        out.append(_Line(i + 1, line, fence[2] if fence else None, heading, table_header, greps))
    return out, declared


def _variables(text: str) -> set[str]:
    return {name for m in _VARIABLE.finditer(text) for name in m.groups() if name}


def _sentence(line: str, start: int, end: int) -> str:
    """The sentence of `line` around [start, end), clipped."""
    cut = 0
    for m in _SENTENCE_END.finditer(line):
        if m.start() >= start:
            stop = m.start()
            break
        cut = m.end()
    else:
        stop = len(line)
    text = line[cut:stop]
    if cut == 0:
        text = _LIST_ITEM.sub("", text, count=1)
    return _clip(text, QUOTE_LIMIT)


def _sentence_before(line: str, start: int) -> str:
    """The part of `line`'s sentence that comes before `start`."""
    cut = 0
    for m in _SENTENCE_END.finditer(line, 0, start):
        cut = m.end()
    return line[cut:start]


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _detail(line: str, end: int) -> str:
    """What is written right after the token: up to the end of its code span or sentence."""
    rest = line[end:]
    before = line[:end]
    if before.count("`") % 2 == 1:  # inside a code span: up to its closing backtick
        rest = rest.split("`", 1)[0]
    elif before.count('"') % 2 == 1:
        rest = rest.split('"', 1)[0]
    else:
        rest = _SENTENCE_END.split(rest, maxsplit=1)[0]
    return _clip(rest.strip(" *_"), DETAIL_LIMIT)


def _detail_after_label(line: str) -> str:
    """The description after a list item's `**label:**`."""
    parts = re.split(r":\*\*|\*\*:", line, maxsplit=1)
    return _clip(parts[1].strip() if len(parts) > 1 else "", DETAIL_LIMIT)


def _classify_use(sentence: str) -> OutcomeClass | None:
    """What a use's sentence says, its tokens and placeholders taken out first."""
    return sentence_class(_PLACEHOLDER.sub(" ", TOKEN.sub(" ", sentence)))


def own_prefixes(skill: str, tokens: list[str]) -> tuple[str, ...]:
    """The skill's own token prefixes, longest first: its name (`price-alert` → `PRICE_ALERT_`)
    and any prefix of two or more parts that two of its tokens share (`SKILL_ANALYTICS_` in
    skill-health)."""
    found = {re.sub(r"[^A-Z0-9]+", "_", skill.upper()).strip("_") + "_"}
    counts: dict[str, int] = {}
    for token in set(tokens):
        parts = token.split("_")
        for k in range(2, len(parts)):
            prefix = "_".join(parts[:k]) + "_"
            counts[prefix] = counts.get(prefix, 0) + 1
    found.update(p for p, n in counts.items() if n >= 2)
    return tuple(sorted(found, key=lambda p: (-len(p), p)))


def _expand(text: str) -> str:
    """`X_<A|B>` written out as `X_A | X_B`, so each alternative is a token of its own."""
    if "|" not in text:
        return text
    return _ALTERNATIVES.sub(
        lambda m: " | ".join(m.group(1) + alt.strip() for alt in m.group(2).split("|")), text
    )


def _placeholder(text: str, start: int, end: int) -> bool:
    """A name standing alone in a placeholder (`{EXIT_CODE}`, `<STATUS_CODE for …>`)."""
    return bool(_IN_PLACEHOLDER.search(text[:start])) and bool(
        re.match(r"[ \t]*(?:[}>\]]|[a-z])", text[end:])
    )


class _Collector:
    """The uses found so far, by token."""

    def __init__(self, excluded: set[str]) -> None:
        self.excluded = excluded
        self.found: dict[str, list[TokenUse]] = {}
        self.rejected: set[str] = set()  # names seen as data, markers or variables

    def add(
        self,
        token: str,
        line: _Line,
        sentence: str,
        detail: str,
        classify: bool,
        about: str | None = None,
    ) -> None:
        """Record one use; `about` is the text its class is read from when not the sentence
        (the description of one code in a line listing several)."""
        if token in self.excluded or looks_like_data(token) or _PER_ITEM.match(detail):
            # `MERGE_FAIL #N: <stderr>`, `DRY_RUN:would-merge #N`: one item's line, not the run's
            self.rejected.add(token)
            return
        cls = _classify_use(sentence if about is None else about) if classify else None
        self.found.setdefault(token, []).append(TokenUse(line.no, sentence, detail, cls))


def _uses(skill: str, lines: list[_Line], excluded: set[str]) -> _Collector:
    """Every place a token is something the agent emits, by token, in file order; and the
    names seen only as data, markers or variables."""
    own = _prefixes(skill, lines)
    out = _Collector(excluded)
    for line in lines:
        if "_" not in line.text or line.fence in _DATA:
            continue
        text = _expand(line.text)
        # placeholders written in prose (`{lead with the stronger of …}`) hide their words
        seen = _PROSE_PLACEHOLDER.sub(lambda m: " " * len(m.group()), text)
        matches = [
            m
            for m in TOKEN.finditer(seen)
            if not _placeholder(seen, m.start(), m.end())
            and not (seen[m.end() : m.end() + 1] == "=" and seen[m.end() : m.end() + 2] != "==")
        ]
        if not matches:
            continue
        if line.fence in _SHELL:
            _shell_uses(out, line, text, matches)
        elif line.fence is not None:
            if line.marker_fence:
                out.rejected.update(m.group(1) for m in matches)
            else:
                _template_uses(out, line, text, matches, own)
        elif text.lstrip().startswith("|"):
            _table_uses(out, line, text, matches, own)
        else:
            _prose_uses(out, line, text, matches, own)
        if len(matches) > 1:
            _alternatives(out, line, text, matches)
    return out


def _alternatives(out: _Collector, line: _Line, text: str, matches: list[re.Match[str]]) -> None:
    """`${A | B | C}`, `A / B`: once one of a run of alternatives is a status, all are."""
    taken = {t for t, uses in out.found.items() if uses[-1].line == line.no}
    run: list[re.Match[str]] = []
    runs: list[list[re.Match[str]]] = []
    for m in matches:
        if run and re.fullmatch(r"[ \t`*]*[|/][ \t`*]*", text[run[-1].end() : m.start()]):
            run.append(m)
        else:
            run = [m]
            runs.append(run)
    for group in runs:
        names = [m.group(1) for m in group]
        if len(group) > 1 and any(n in taken for n in names):
            for m in group:
                if m.group(1) not in taken:
                    out.add(m.group(1), line, _clip(text.strip(), QUOTE_LIMIT), "", False)


def _prefixes(skill: str, lines: list[_Line]) -> tuple[str, ...]:
    """The prefixes a token may carry to count in a template, a list or a table without a verb:
    the skill's name, and any prefix of two or more parts that two names with a status ending
    share (`PRICE_ALERT_` in price-threshold-alert, `SKILL_ANALYTICS_` in skill-health)."""
    strong = {
        m.group(1)
        for line in lines
        if "_" in line.text
        for m in TOKEN.finditer(line.text)
        if strong_class(m.group(1)) is not None
    }
    return own_prefixes(skill, sorted(strong))


def _status_value(text: str) -> bool:
    """A `Status:` / `Exit:` / `Verdict:` line: every token in its value is a status."""
    kv = _KEY_VALUE.match(text)
    return kv is not None and _STATUS_KEY.match(kv.group(1).strip(" *_`")) is not None


def _first_at(text: str) -> int:
    lead = _LEAD.match(text)
    return lead.end() if lead else -1


def _shell_uses(out: _Collector, line: _Line, text: str, matches: list[re.Match[str]]) -> None:
    """`echo "X_ERROR: …" >> memory/logs/…`: only what a command writes to the log or notify."""
    if "<<" in text or not _ECHO_TO_LOG.search(text):
        return
    for m in matches:
        if _ECHO.search(text[: m.start()]):
            out.add(m.group(1), line, _clip(text, QUOTE_LIMIT), _detail(text, m.end()), True)


def _template_uses(
    out: _Collector, line: _Line, text: str, matches: list[re.Match[str]], own: tuple[str, ...]
) -> None:
    """A fenced skeleton of what is written: a token that starts a line (`- X_SKIP: {reason}`),
    or stands in a status line's value (`- **Status**: ${A | B}`)."""
    status_value = _status_value(text)
    first_at = _first_at(text)
    for m in matches:
        token = m.group(1)
        at_start = m.start() == first_at
        if status_value or (at_start and token.startswith(own)):
            sentence = _clip(text, QUOTE_LIMIT)
            out.add(token, line, sentence, _detail(text, m.end()), at_start and not status_value)


def _table_uses(
    out: _Collector, line: _Line, text: str, matches: list[re.Match[str]], own: tuple[str, ...]
) -> None:
    """A table row whose cell is the token, in a column headed `Status`, `Exit`, `Outcome` …;
    a token of the skill's own prefix with a status ending in any column; or a token after a
    verb in its cell."""
    stripped = text.strip()
    if line.table_header == stripped or re.fullmatch(r"[|:\- \t]+", stripped):
        return
    cells = [c.strip(" `*") for c in stripped.strip("|").split("|")]
    heads = [c.strip(" `*") for c in line.table_header.strip("|").split("|")]
    for m in matches:
        token = m.group(1)
        column = next((k for k, c in enumerate(cells) if token in c), -1)
        if column < 0:
            continue
        cell = cells[column]
        before = cell[: cell.find(token)]
        if _VERB.search(before):  # `| Only LOW | **Silent.** Log `X_LOW_ONLY: N drifts` |`
            sentence = _clip(" | ".join(cells), QUOTE_LIMIT)
            out.add(token, line, sentence, _detail(text, m.end()), True)
            continue
        if not (re.sub(r"^[\W_]+|[\W_]+$", "", cell) == token or cell.startswith(token)):
            continue
        head = heads[column] if column < len(heads) else ""
        if _STATUS_COLUMN.match(head) or (token.startswith(own) and status_like(token)):
            others = " | ".join(c for k, c in enumerate(cells) if k != column)
            out.add(token, line, _clip(" | ".join(cells), QUOTE_LIMIT), _clip(others, 120), True)


def _prose_uses(
    out: _Collector, line: _Line, text: str, matches: list[re.Match[str]], own: tuple[str, ...]
) -> None:
    """Prose: a token right after a verb that writes it (`log`, `notify`, `exit with` …) or a
    `Status codes:` label; in a status line's value; in a list item's label; or starting a list
    item (outside a configuration section) with the skill's own prefix and a status ending."""
    status_value = _status_value(text)
    first_at = _first_at(text)
    list_item = _LIST_ITEM.match(text) is not None
    added = False  # a token of this line was taken: `(or `X_THIN` if …)` goes with it
    in_config = bool(_CONFIG_HEADER.search(line.heading)) and not _STATUS_HEADER.search(
        line.heading
    )
    for k, m in enumerate(matches):
        token = m.group(1)
        before = text[: m.start()]
        sentence = _sentence(text, m.start(), m.end())
        detail = _detail(text, m.end())
        # a line listing several codes: each one's class is read from its own description
        about = None
        if len(matches) > 1 and _INLINE_LABEL.search(text[: matches[0].start()] or " "):
            stop = matches[k + 1].start() if k + 1 < len(matches) else len(text)
            about = text[m.end() : stop]
        near = text[max(0, m.start() - 12) : m.end() + 12]
        if re.search(r"(?i)\bmarker\b", near):
            out.rejected.add(token)  # `a FORCE_REPLY_OFFERED marker`: for the next run to find
            continue
        if (
            _VERB.search(before[-80:])
            or _INLINE_LABEL.search(_sentence_before(text, m.start()))
            or (_ADD_TO.match(text[m.end() :]) and _ADD.search(before))
            or (added and _OR.search(before))
            or (_CONDITION.search(before) and token.startswith(own) and status_like(token))
        ):
            out.add(token, line, sentence, detail, True, about)
            added = True
        elif list_item and _LABEL.match(text[: m.start()]) and status_like(token):
            # `- **Error run (`FARCASTER_DIGEST_ERROR`):** every source returned fail …`
            out.add(token, line, _clip(text.strip(), QUOTE_LIMIT), _detail_after_label(text), True)
        elif status_value:
            out.add(token, line, sentence, detail, False)
        elif (
            list_item
            and m.start() == first_at
            and not in_config
            and status_like(token)
            and token.startswith(own)
        ) or (
            re.search(r"→[ \t]*[`*\"]*$", before) and token.startswith(own) and status_like(token)
        ):
            out.add(token, line, sentence, detail, True)


def extract_vocabulary(
    skill: str, text: str, overrides: Mapping[str, str | OutcomeClass] | None = None
) -> Vocabulary:
    """The outcome vocabulary of `skill` from its SKILL.md `text` (the whole file, so that line
    numbers are the file's). `overrides` maps a token to a class name (`{"FLEET_EMPTY":
    "noop"}`, evals.json's `"outcomes"`); an overridden token the text never names is added with
    no use of its own. Pure; never raises on any text (an unknown class name in `overrides` is a
    ValueError, raised before any work)."""
    forced = {t: OutcomeClass(c) for t, c in (overrides or {}).items()}
    lines, declared = _lines(text)
    excluded = (declared | _variables(text)) - set(forced)
    collected = _uses(skill, lines, excluded)
    uses = collected.found
    tokens: dict[str, VocabToken] = {}
    for token, found in uses.items():
        if token in forced:
            tokens[token] = VocabToken(token, forced[token], Why.OVERRIDE, tuple(found))
            continue
        said = [use_class(token, u.outcome, u.sentence) for u in found]
        cls, why = token_class(token, said)
        tokens[token] = VocabToken(token, cls, why, tuple(found))
    for token, cls in forced.items():
        if token not in tokens:
            tokens[token] = VocabToken(
                token, cls, Why.OVERRIDE, (TokenUse(0, "evals.json outcomes", "", cls),)
            )
    ordered = {t: tokens[t] for t in sorted(tokens)}
    ignored = (collected.rejected | excluded) - set(ordered)
    return Vocabulary(skill, ordered, own_prefixes(skill, list(ordered)), frozenset(ignored))

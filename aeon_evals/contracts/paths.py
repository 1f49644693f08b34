"""The paths a SKILL.md names (as globs), and whether the clause leading up to one writes it or
only reads it: the vocabulary the contract inference and the audit share."""

from __future__ import annotations

import enum
import re

LOG_PATTERN = "memory/logs/*.md"
# A date in words where a placeholder goes (`memory/logs/today's date.md`, an older SKILL.md's)
_WORDS_DATE = r"today['’]s[ _-]date"
# One path character, or one placeholder: ${today}, $(date +%F), $VAR, <date>, {date}.
_SEG = (
    rf"(?:{_WORDS_DATE}|[A-Za-z0-9_.*/-]|\$\{{[^}}\s]{{1,40}}\}}|\$\([^)\n]{{1,60}}\)"
    r"|\$[A-Za-z_]\w*|<[A-Za-z0-9_ |-]{1,24}>|\{[A-Za-z_]\w{0,24}\})"
)
REF = re.compile(rf"(?<![\w/.$-])((?:\./)?(?:output/)?articles/{_SEG}*|(?:\./)?memory/{_SEG}*)")
# A path that leaves the root: absolute (but not scratch space) or through `..`.
OUTSIDE = re.compile(
    r"(?:^|(?<=[\s`\"'(=]))((?:\.\./|~/|/(?!tmp/|dev/|proc/|var/tmp/))[A-Za-z0-9_.${}/-]*\.(?:md|json|txt|csv|html))\b"
)
MAY_LEAVE = re.compile(r"\.\./|~/|(?:^|[\s`\"'(=])/")
_PLACEHOLDER = re.compile(
    rf"{_WORDS_DATE}|\$\{{[^}}]*\}}|\$\([^)]*\)|\$[A-Za-z_]\w*|<[^>]*>|\{{[^}}]*\}}"
    r"|\d{4}-\d{2}-\d{2}(?:T[\d:-]+Z?)?|YYYY-MM-DD|YYYY-MM|YYYYMMDD|HH-?MM(?:-?SS)?|\bN+\b"
)
_STARS = re.compile(r"\*(?:[-_.]*\*)+")
_NAME = re.compile(r"^[A-Za-z0-9*?][A-Za-z0-9_.*?-]*\.md$")
_MALFORMED = re.compile(r"--|-\.|\.\.|\*\*|[-_]$|^[-_.]")
_DATE_ONLY = re.compile(
    rf"^(?:\$\{{(?:today|date|TODAY|DATE|today_utc)\}}|YYYY-MM-DD|\{{date\}}|<date>|{_WORDS_DATE})$"
)
DATE_GLOB = "[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]"

WORD = re.compile(r"[A-Za-z]+|→|>>?")
_SENTENCE_END = re.compile(r"(?:[.!?](?=\s)|\n\s*\n|\n\s*[-*\d]|\n#|;|\|)")
CODE_SPAN = re.compile(r"`[^`\n]*`")
WRITE_WORDS = frozenset(
    [
        "write",
        "writes",
        "writing",
        "rewrite",
        "rewrites",
        "overwrite",
        "overwrites",
        "save",
        "saves",
        "saving",
        "append",
        "appends",
        "appending",
        "create",
        "creates",
        "output",
        "outputs",
        "publish",
        "publishes",
        "log",
        "logs",
        "store",
        "stores",
        "emit",
        "emits",
        "produce",
        "produces",
        "generate",
        "generates",
        "→",
        ">",
        ">>",
    ]
)
READ_WORDS = frozenset(
    [
        "read",
        "reads",
        "reading",
        "scan",
        "scans",
        "scanning",
        "load",
        "loads",
        "check",
        "checks",
        "compare",
        "compared",
        "comparing",
        "against",
        "parse",
        "parses",
        "find",
        "finds",
        "look",
        "looks",
        "fetch",
        "grep",
        "list",
        "from",
        "prior",
        "previous",
        "last",
        "latest",
        "newest",
        "existing",
        "exists",
        "consult",
        "review",
        "reviews",
        "skip",
        "since",
        "recent",
        "pick",
        "picks",
        "in",
        "of",
        "see",
        "format",
        "formatted",
        "like",
        "mirrors",
        "mirror",
        "same",
        "open",
        "opens",
        "via",
    ]
)


class Clause(enum.IntEnum):
    """What the clause leading up to a path does with it; a higher value is nearer to written."""

    READ = 0
    UNKNOWN = 1
    WRITE = 2


def normalize_ref(ref: str) -> str | None:
    """A path as a SKILL.md writes it → a glob, or None when it names no evaluable output.

    `articles/fleet-status-${var}-${today}.md` → `articles/fleet-status-*.md`; any daily-log path
    → `memory/logs/*.md`; `memory/topics/x.md` stays as it is; `articles/${today}.md` → a glob of
    date-named files only. State files (JSON) and MEMORY.md are not outputs.
    """
    ref = ref.removeprefix("./").rstrip(".,:)*")
    if ref.startswith("memory/logs/"):
        return LOG_PATTERN if ref.endswith(".md") or ref == "memory/logs/" else None
    directory, _, raw_name = ref.rpartition("/")
    if directory in ("articles", "output/articles") and _DATE_ONLY.match(
        raw_name.removesuffix(".md")
    ):
        return f"{directory}/{DATE_GLOB}.md"
    glob = _PLACEHOLDER.sub("*", ref)
    glob = re.sub(r"-{2,}", "-", _STARS.sub("*", glob))
    directory, _, name = glob.rpartition("/")
    if directory not in ("articles", "output/articles", "memory/topics", "memory"):
        return None
    if (
        name in ("", "MEMORY.md")
        or not _NAME.match(name)
        or _MALFORMED.search(name.removesuffix(".md"))
    ):
        return None
    if not re.search(r"[A-Za-z]", name.removesuffix(".md")):
        return None  # `articles/*.md` would match every article
    return f"{directory}/{name}"


def clause_class(before: str) -> Clause:
    """Clause.WRITE, READ or UNKNOWN from the clause that leads up to a path: the nearest verb
    decides, except that a destination (`… to <path>`) in a clause with a writing verb is
    written (`Summarise what came from X to <path>`)."""
    before = CODE_SPAN.sub("x", before)  # `SKIP: no config` is a value, not a clause
    cut = 0
    for m in _SENTENCE_END.finditer(before):
        cut = m.end()
    words = [w.lower() for w in WORD.findall(before[cut:])]
    if words and words[-1] in ("to", "into", "as") and any(w in WRITE_WORDS for w in words):
        return Clause.WRITE
    if words and words[-1] in ("to", "into") and "from" in words[:-1]:
        return Clause.WRITE  # `… from X to <path>`: the path is where it goes
    for word in reversed(words):
        if word in WRITE_WORDS:
            return Clause.WRITE
        if word in READ_WORDS:
            return Clause.READ
    return Clause.UNKNOWN


def nearest_write_word(before: str) -> str:
    """The writing verb nearest before a path in its clause ("" when there is none)."""
    before = CODE_SPAN.sub("x", before)
    cut = 0
    for m in _SENTENCE_END.finditer(before):
        cut = m.end()
    for word in reversed(WORD.findall(before[cut:])):
        lowered = str(word).lower()
        if lowered in WRITE_WORDS:
            return lowered
    return ""


def weak_read(before: str) -> bool:
    """The clause reads a path only through "in"/"of" (`… one heading in memory/logs/x.md`)."""
    words = [w.lower() for w in WORD.findall(CODE_SPAN.sub("x", before)[-120:])]
    for word in reversed(words):
        if word in READ_WORDS:
            return word in ("in", "of")
        if word in WRITE_WORDS:
            return False
    return False

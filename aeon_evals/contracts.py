"""Output contracts inferred from a skill's SKILL.md: what it writes, the structure, the bounds.

A contract is read from the body's own words, each element with its evidence (the SKILL.md line
and the quoted words): the paths after "Save to / Write to / Append to / Log to / Output: /
Create" (paths only read — "Read", "Latest …", "from" — are inputs, never outputs), the headings
of the fenced template that follows the instruction, a whole-output word floor, and the
placeholders of the skeleton that must not survive into a real output. `infer_contract` is pure;
`load_contracts` reads the SKILL.md files and keeps the results in a small versioned cache keyed
by each file's SHA-256. See docs/contracts.md.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aeon_evals.fsio import atomic_write
from aeon_evals.model import Spec
from aeon_evals.patterns import PatternError, compile_pattern
from aeon_evals.skillmd import (
    SkillDoc,
    parse_skill_doc,
    read_skill_bytes,
    skill_md_path,
)

LOG_PATTERN = "memory/logs/*.md"
CACHE_FILE = Path(".aeon-evals") / "cache" / "contracts.json"
CACHE_VERSION = 1
QUOTE_LIMIT = 120

# --- plain data ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Evidence:
    """Where in the SKILL.md an element of a contract comes from."""

    line: int  # 1-based, counted in the whole file
    quote: str


@dataclass(frozen=True)
class ContractOutput:
    """One output the skill writes, as a spec, with the branch it belongs to and the evidence."""

    spec: Spec
    condition: str | None  # e.g. "mode=single-token"; None when every run writes it
    evidence: tuple[tuple[str, Evidence], ...]

    @property
    def source(self) -> str:
        """`SKILL.md:41`: the line of the write instruction."""
        for element, ev in self.evidence:
            if element == "output":
                return f"SKILL.md:{ev.line}"
        return "SKILL.md"


@dataclass(frozen=True)
class Contract:
    """Everything inferred for one skill; `outputs` is empty when there is no usable contract."""

    skill: str
    outputs: tuple[ContractOutput, ...]
    reason: str | None  # why there is none ("SKILL.md names no output it writes")
    source: str  # "SKILL.md:41": where the first write instruction is
    scorable: bool
    warnings: tuple[str, ...] = ()
    sha256: str = ""

    @property
    def usable(self) -> bool:
        return bool(self.outputs)


# --- reading the body --------------------------------------------------------------------------

_FENCE = re.compile(r"^[ \t>]*(`{3,}|~{3,})[ \t]*([^\s`]*)[^`]*$")
_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$")
_SHELL = frozenset({"bash", "sh", "shell", "zsh", "console"})
_DATA = frozenset(
    {"json", "jsonc", "yaml", "yml", "toml", "python", "py", "js", "javascript", "ts", "graphql"}
)


@dataclass(frozen=True)
class _Fence:
    open_line: int  # file line of the opening fence
    close_line: int
    info: str
    lines: tuple[tuple[int, str], ...]  # (file line, text) of the content

    @property
    def template(self) -> bool:
        """A skeleton of written text (markdown or plain), not a command or a data file."""
        return self.info.lower() not in _SHELL | _DATA


@dataclass(frozen=True)
class _Doc:
    path: str
    lines: tuple[tuple[int, str], ...]  # every body line: (file line, text)
    texts: tuple[str, ...]  # the same lines' texts alone
    fences: tuple[_Fence, ...]
    fence_at: dict[int, int]  # file line → index of the fence it belongs to (markers included)
    branch_at: dict[int, str]  # prose file line → branch condition in force there (if any)

    def index(self, line: int) -> int:
        """The body index of file line `line`."""
        return line - self.lines[0][0] if self.lines else 0


class _Unusable(Exception):
    """The SKILL.md cannot yield a contract; the message is the one-line warning."""


def _fence_spans(
    lines: tuple[tuple[int, str], ...], *, nested: bool
) -> list[tuple[int, int, str]] | int:
    """(first, last, info) body indexes of each fence, or the file line of one never closed.

    `nested=True` reads fences the way SKILL.md authors write them: inside a fence, a marker
    with an info string (```diff) opens an inner fence that the next bare marker closes.
    `nested=False` is CommonMark: only a bare marker at least as long closes.
    """
    # only lines holding ``` or ~~~ can be markers: the regex runs on those alone
    markers = [
        (i, m)
        for i, (_, text) in enumerate(lines)
        if ("```" in text or "~~~" in text) and (m := _FENCE.match(text))
    ]
    spans: list[tuple[int, int, str]] = []
    k = 0
    while k < len(markers):
        i, m = markers[k]
        marker, info = m.group(1), m.group(2)
        depth = 0
        k += 1
        while k < len(markers):
            inner = markers[k][1]
            if inner.group(1)[0] == marker[0]:
                if inner.group(2):
                    depth += 1 if nested else 0
                elif depth:
                    depth -= 1
                elif len(inner.group(1)) >= len(marker):
                    break
            k += 1
        if k >= len(markers):
            return lines[i][0]
        spans.append((i, markers[k][0], info))
        k += 1
    return spans


def _scan(doc: SkillDoc) -> _Doc:
    """Split the body into prose and fences, and note the branch heading over each line."""
    texts = tuple(doc.body.splitlines())
    lines = tuple(zip(range(doc.body_line, doc.body_line + len(texts)), texts, strict=True))
    spans = _fence_spans(lines, nested=True) if "```" in doc.body or "~~~" in doc.body else []
    if isinstance(spans, int):
        spans = _fence_spans(lines, nested=False)
    if isinstance(spans, int):
        raise _Unusable(f"{doc.path}:{spans}: code fence opened here is never closed")
    fences: list[_Fence] = []
    fence_at: dict[int, int] = {}
    for first, last, info in spans:
        for k in range(first, last + 1):
            fence_at[lines[k][0]] = len(fences)
        fences.append(_Fence(lines[first][0], lines[last][0], info, lines[first + 1 : last]))
    branch_at: dict[int, str] = {}
    stack: list[tuple[int, str | None]] = []  # (heading level, condition) of open headings
    heads = [
        (k, h)
        for k, text in enumerate(texts)
        if text[:1] == "#" and lines[k][0] not in fence_at and (h := _HEADING.match(text))
    ]
    for n, (k, h) in enumerate(heads):
        level = len(h.group(1))
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, _branch(h.group(2))))
        # the outermost branch heading names the branch (`# Mode: movers` over `## Source: …`)
        branch = next((c for _, c in stack if c), None)
        if branch is not None:
            end = heads[n + 1][0] if n + 1 < len(heads) else len(lines)
            for no, _ in lines[k:end]:
                if no not in fence_at:
                    branch_at[no] = branch
    return _Doc(doc.path, lines, texts, tuple(fences), fence_at, branch_at)


_BRANCH_KEY = re.compile(
    r"(?i)^[\W\d]*(?:[A-Z]\d*\.\s*)?(mode|branch|var|source|sub-?command)\s*[:=]\s*`?([^`()\s,;—–]+)"
)
_BRANCH_PAREN = re.compile(r"(?i)\((?:var|mode)\s*[:=]\s*`?([^`)\s]+)`?\)")
_BRANCH_ARM = re.compile(r"(?i)^\W*((?:arm|branch)\s+[a-z0-9])\b(?!\.)")
_BRANCH_MODE = re.compile(r"(?i)^[\W\d]*([a-z][\w-]*(?: [a-z][\w-]*)?) mode\b")


def _branch(title: str) -> str | None:
    """A heading that selects a branch (`# Mode: single-token`, `## Source: geckoterminal`,
    `### Releases (var=releases)`) → its condition, else None."""
    plain = title.replace("*", "").strip()
    m = _BRANCH_KEY.match(plain)
    if m:
        return f"{m.group(1).lower()}={m.group(2).lower()}"
    m = _BRANCH_PAREN.search(plain)
    if m:
        return f"var={m.group(1).lower()}"
    m = _BRANCH_ARM.match(plain)
    if m:
        return m.group(1).lower().replace(" ", "=", 1)
    m = _BRANCH_MODE.match(plain)
    if m and m.group(1).lower() not in ("exit", "failure", "error", "security", "sandbox"):
        return f"mode={m.group(1).lower().replace(' ', '-')}"
    return None


# --- paths and verbs -------------------------------------------------------------------------

# One path character, or one placeholder: ${today}, $(date +%F), $VAR, <date>, {date}.
_SEG = r"(?:[A-Za-z0-9_.*/-]|\$\{[^}\s]{1,40}\}|\$\([^)\n]{1,60}\)|\$[A-Za-z_]\w*|<[A-Za-z0-9_ |-]{1,24}>|\{[A-Za-z_]\w{0,24}\})"
_REF = re.compile(rf"(?<![\w/.$-])((?:\./)?(?:output/)?articles/{_SEG}*|(?:\./)?memory/{_SEG}*)")
# A path that leaves the root: absolute (but not scratch space) or through `..`.
_OUTSIDE = re.compile(
    r"(?:^|(?<=[\s`\"'(=]))((?:\.\./|~/|/(?!tmp/|dev/|proc/|var/tmp/))[A-Za-z0-9_.${}/-]*\.(?:md|json|txt|csv|html))\b"
)
_MAY_LEAVE = re.compile(r"\.\./|~/|(?:^|[\s`\"'(=])/")
_PLACEHOLDER = re.compile(
    r"\$\{[^}]*\}|\$\([^)]*\)|\$[A-Za-z_]\w*|<[^>]*>|\{[^}]*\}"
    r"|\d{4}-\d{2}-\d{2}(?:T[\d:-]+Z?)?|YYYY-MM-DD|YYYY-MM|YYYYMMDD|HH-?MM(?:-?SS)?|\bN+\b"
)
_STARS = re.compile(r"\*(?:[-_.]*\*)+")
_NAME = re.compile(r"^[A-Za-z0-9*?][A-Za-z0-9_.*?-]*\.md$")
_MALFORMED = re.compile(r"--|-\.|\.\.|\*\*|[-_]$|^[-_.]")
_DATE_ONLY = re.compile(
    r"^(?:\$\{(?:today|date|TODAY|DATE|today_utc)\}|YYYY-MM-DD|\{date\}|<date>)$"
)
DATE_GLOB = "[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]"

_WORD = re.compile(r"[A-Za-z]+|→|>>?")
_SENTENCE_END = re.compile(r"(?:[.!?](?=\s)|\n\s*\n|\n\s*[-*\d]|\n#|;|\|)")
_CODE_SPAN = re.compile(r"`[^`\n]*`")
_WRITE_WORDS = frozenset(
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
_READ_WORDS = frozenset(
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
    ]
)
_WRITE, _UNKNOWN, _READ = 2, 1, 0


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


def _clause_class(before: str) -> int:
    """_WRITE, _READ or _UNKNOWN from the clause that leads up to a path: the nearest verb
    decides, except that a destination (`… to <path>`) in a clause with a writing verb is
    written (`Summarise what came from X to <path>`)."""
    before = _CODE_SPAN.sub("x", before)  # `SKIP: no config` is a value, not a clause
    cut = 0
    for m in _SENTENCE_END.finditer(before):
        cut = m.end()
    words = [w.lower() for w in _WORD.findall(before[cut:])]
    if words and words[-1] in ("to", "into", "as") and any(w in _WRITE_WORDS for w in words):
        return _WRITE
    for word in reversed(words):
        if word in _WRITE_WORDS:
            return _WRITE
        if word in _READ_WORDS:
            return _READ
    return _UNKNOWN


def _nearest_write_word(before: str) -> str:
    """The writing verb nearest before a path in its clause ("" when there is none)."""
    before = _CODE_SPAN.sub("x", before)
    cut = 0
    for m in _SENTENCE_END.finditer(before):
        cut = m.end()
    for word in reversed(_WORD.findall(before[cut:])):
        lowered = str(word).lower()
        if lowered in _WRITE_WORDS:
            return lowered
    return ""


# --- the inference -----------------------------------------------------------------------------


@dataclass
class _Write:
    """One write instruction met in the text."""

    glob: str
    line: int
    quote: str
    condition: str | None
    template: _Fence | None
    heading: tuple[int, str] | None = None  # a log heading named on the instruction line
    appends: bool = False  # "Append to …": an accumulating file, not the run's product


@dataclass
class _Draft:
    glob: str
    section: str | None
    conditions: list[str | None] = field(default_factory=list)
    writes: list[_Write] = field(default_factory=list)


def _quote(text: str) -> str:
    text = " ".join(text.strip().split())
    return text if len(text) <= QUOTE_LIMIT else text[: QUOTE_LIMIT - 1] + "…"


def _template_after(doc: _Doc, index: int) -> _Fence | None:
    """The fenced skeleton that follows the instruction on body line `index`: only blank lines,
    or short lead-in lines ending with ':' ("Format:"), may stand between them."""
    gap = 0
    for k in range(index + 1, min(len(doc.lines), index + 8)):
        no, text = doc.lines[k]
        if no in doc.fence_at:
            fence = doc.fences[doc.fence_at[no]]
            return fence if fence.open_line == no and fence.template else None
        stripped = text.strip()
        if not stripped:
            continue
        if _HEADING.match(stripped):
            return None
        gap += 1
        if gap > 2 or not stripped.endswith(":") or _ITEMISH.match(stripped):
            return None  # a new step ("2. Log to …:") has a template of its own
    return None


_LABEL = re.compile(
    r"(?i)^\s*(?:[-*]\s*)?\**(?:path|file|filename|output file|location)\**\s*:\**\s*`?$"
)


def _weak_read(before: str) -> bool:
    """The clause reads a path only through "in"/"of" (`… one heading in memory/logs/x.md`)."""
    words = [w.lower() for w in _WORD.findall(_CODE_SPAN.sub("x", before)[-120:])]
    for word in reversed(words):
        if word in _READ_WORDS:
            return word in ("in", "of")
        if word in _WRITE_WORDS:
            return False
    return False


def _under_write_heading(doc: _Doc, index: int) -> bool:
    """`Path: articles/x.md` under a heading such as `### 6. Write the full report`, or the
    first paragraph under `## Log` ("Consolidate both branches under one heading in …")."""
    prose_lines = 0
    for k in range(index - 1, max(-1, index - 8), -1):
        no, text = doc.lines[k]
        h = _HEADING.match(text) if no not in doc.fence_at else None
        if h:
            return any(w.lower() in _WRITE_WORDS for w in _WORD.findall(h.group(2)))
        if text.strip() and no not in doc.fence_at:
            prose_lines += 1
            if prose_lines > 2:
                return False
    return False


_PROSE_CONDITION = re.compile(
    r"(?i)\b(?:if|when|unless|otherwise|fallback|on (?:failure|error)|not present|missing|"
    r"absent|unavailable|fails?|failed)\b"
)
_INLINE_HEADING = re.compile(r"`(#{1,4}[ \t]+[^`]+)`")


def _writes(doc: _Doc) -> tuple[list[_Write], list[str]]:
    """Every write instruction of the body, and the warnings for paths outside the root."""
    # Shell fences may redirect into an output (`> articles/x.md`): their lines count as prose.
    shell_lines = {
        no
        for fence in doc.fences
        if not fence.template and fence.info.lower() in _SHELL
        for no, _ in fence.lines
    }
    texts = (
        [text if (no not in doc.fence_at or no in shell_lines) else "" for no, text in doc.lines]
        if doc.fences
        else doc.texts
    )
    prose = "\n".join(texts)
    found: list[_Write] = []
    warnings: list[str] = []
    # offset of line k in `prose`: the lengths of the lines before it, plus their newlines
    lengths = list(itertools.accumulate(map(len, texts), initial=0))
    for index in [k for k, text in enumerate(texts) if "/" in text]:  # few lines name a path
        no, text = doc.lines[index][0], texts[index]
        base = lengths[index] + index
        for m in _OUTSIDE.finditer(text) if _MAY_LEAVE.search(text) else ():
            start = base + m.start()
            if _clause_class(prose[max(0, start - 300) : start]) == _WRITE:
                warnings.append(
                    f"{doc.path}:{no}: writes outside the instance root ({m.group(1)}); no contract"
                )
        for m in _REF.finditer(text) if ("articles/" in text or "memory/" in text) else ():
            raw = m.group(1)
            start = base + m.start()
            if ".." in raw.split("/"):
                if _clause_class(prose[max(0, start - 300) : start]) == _WRITE:
                    warnings.append(
                        f"{doc.path}:{no}: writes outside the instance root ({raw}); no contract"
                    )
                continue
            glob = normalize_ref(raw)
            if glob is None:
                continue
            clause = prose[max(0, start - 300) : start]
            cls = _clause_class(clause)
            if cls != _WRITE and not (
                (_LABEL.match(text[: m.start()]) or cls == _UNKNOWN or _weak_read(clause))
                and _under_write_heading(doc, index)
            ):
                continue
            heading = None
            hm = _INLINE_HEADING.search(text, m.end()) or _INLINE_HEADING.search(text, 0, m.start())
            if hm:
                heading = (no, hm.group(1).strip())
            clause = prose[max(0, start - 300) : start]
            condition: str | None = doc.branch_at.get(no)
            lead = _CODE_SPAN.sub("x", text[: m.start()])
            if _PROSE_CONDITION.search(lead):
                # "If X, write …" / "`./notify` not present — write …": a fallback, not the product
                words = " ".join(_CODE_SPAN.sub("…", text[: m.start()]).replace("*", "").split())
                condition = f"if: {words[:60]}" if condition is None else condition
            found.append(
                _Write(
                    appends=_nearest_write_word(clause).startswith("append")
                    or bool(re.match(r"[`*\s]*\(?\s*append", text[m.end() : m.end() + 20], re.I)),
                    glob=glob,
                    line=no,
                    quote=_quote(text),
                    condition=condition,
                    template=_template_after(doc, index),
                    heading=heading,
                )
            )
    return found, warnings


_PH_IN_HEADING = re.compile(r"\$\{[^}]*\}|\$[A-Z_]{2,}\w*|\{[^}]*\}|<[^>]*>|\[[^\]]*\]|YYYY|\bN\b")


_SECTION_CUT = re.compile(r"\s+[—–|(]|\s+-\s|:\s")


def _log_section(write: _Write, skill: str) -> tuple[str, Evidence | None]:
    """The heading of the skill's entry in the daily log: named on the instruction line, else
    the first heading of the template, else `### <skill>`."""
    candidates: list[tuple[int, str]] = []
    if write.heading:
        candidates.append(write.heading)
    if write.template:
        for no, text in write.template.lines:
            if _HEADING.match(text.strip()):
                candidates.append((no, text.strip()))
                break
    for no, heading in candidates:
        h = _HEADING.match(heading)
        if not h:
            continue
        # Sections are matched by the start of their title: what follows a dash, a colon or a
        # parenthesis varies from run to run (`## fleet-control (health check, 15 UTC slot)`).
        title = _PH_IN_HEADING.split(h.group(2))[0]
        title = _SECTION_CUT.split(title)[0]
        title = re.sub(r"[\s—–:(|-]+$", "", title).strip().strip("*_`").strip()
        if len(title) >= 3 and re.search(r"[A-Za-z]", title):
            return f"{h.group(1)} {title}", Evidence(no, heading)
    return f"### {skill}", None


_OPTIONAL = re.compile(
    r"(?i)\b(?:only (?:include|if|when|add|show)|include (?:only|if|when)|omit|optional|"
    r"if (?:any|none|present|applicable|relevant|there (?:are|is))|when (?:present|relevant|applicable)|"
    r"skip|drop|otherwise|conditional|may be empty|if it )"
)
_OMIT_EMPTY = re.compile(
    r"(?i)\b(?:omit|drop|skip|leave out)\b[^.]{0,40}\b(?:categor|section|heading|block)\w*"
    r"[^.]{0,40}\b(?:empty|nothing|no (?:real )?(?:content|data|items|entries))"
    r"|\b(?:omit|drop|skip)\b (?:any |all )?empty (?:categor|section|heading|block)"
)
_GENERIC_HEADING = re.compile(
    r"(?i)(?:repo|project|skill|token|owner|item|topic|product|protocol|instance|account|"
    r"handle|source|category|theme|wallet|chain|market)(?:[-_ ](?:name|title|slug|id))?"
    r"|(?:name|title|slug)"
)
_ITEMISH = re.compile(r"(?i)^(?:\d+[.)]|[-*+]|step\b)")


def _template_headings(template: _Fence, after: list[str]) -> list[tuple[int, str]]:
    """Headings of a skeleton that every real output must have: no placeholder in the title,
    not marked optional (in the heading, under it, or in the prose right after the fence)."""
    items = template.lines
    heads = [
        (k, len(h.group(1)), h.group(2), no)
        for k, (no, text) in enumerate(items)
        if (h := _HEADING.match(text.strip()))
    ]
    required: list[tuple[int, str]] = []
    omit_all = any(_OMIT_EMPTY.search(line) for line in after)
    for n, (k, level, title, no) in enumerate(heads):
        end = next((kk for kk, lv, _, _ in heads[n + 1 :] if lv <= level), len(items))
        under = " ".join(text for _, text in items[k + 1 : end])
        if level == 1 or _PH_IN_HEADING.search(title) or re.search(r"[/@$]|\.\.\.|…", title):
            continue
        if _OPTIONAL.search(title) or _OPTIONAL.search(under[:400]):
            continue
        clean = _SECTION_CUT.split(title.replace("*", "").replace("`", ""))[0].strip()
        if not re.search(r"[A-Za-z]", clean) or re.fullmatch(r"(?i)[A-Z0-9 _-]{1,3}", clean):
            continue
        if _GENERIC_HEADING.fullmatch(clean):
            continue  # `## repo-name`: one heading per item, named by the item
        if omit_all or any(
            clean.lower() in line.lower() and _OPTIONAL.search(line) for line in after
        ):
            continue
        required.append((no, f"{'#' * level} {clean}"))
    return required


_WORD_BOUND = re.compile(
    r"(?i)(?:at least|minimum(?: of)?|no fewer than|no less than|≥|>=)\s*~?(\d[\d,]*)\s*words?"
    r"|(\d[\d,]*)\s*(?:–|—|-|to)\s*(\d[\d,]*)\s*words?"
    r"|(\d[\d,]*)\+\s*words?"
)
_WHOLE = re.compile(
    r"(?i)\b(?:article|report|post|essay|piece|brief|digest|explainer|review|recap|deep.dive|"
    r"output|body|total|whole|overall|entire|length|newsletter|write-?up|document)\b"
)
_PART = re.compile(
    r"(?i)\b(?:bullets?|sentences?|lines?|items?|paragraphs?|sections?|titles?|headlines?|tweets?|"
    r"repl(?:y|ies)|captions?|descriptions?|each|per|every|takes?|hooks?|comments?|tl;?dr|lede|"
    r"intro|blurbs?|entry|entries|summary|notes?|messages?|notification|thread|cast|subject|"
    r"reasons?|why|rationale|verdict|angle|one-liner)\b"
)


def _word_floor(doc: _Doc, lo: int, hi: int) -> tuple[int, Evidence] | None:
    """The first whole-output word floor stated in prose between body lines lo and hi."""
    if "word" not in "\n".join(doc.texts[lo:hi]).lower():
        return None  # one look at the whole span instead of one a line
    for no, text in doc.lines[lo:hi]:
        if no in doc.fence_at or "word" not in text.lower():
            continue
        for m in _WORD_BOUND.finditer(text):
            value = next(g for g in (m.group(1), m.group(2), m.group(4)) if g)
            sentence = text[max(0, m.start() - 120) : m.end() + 60]
            if _PART.search(sentence) or not _WHOLE.search(sentence):
                continue
            words = int(value.replace(",", ""))
            if 0 < words < 20000:
                return words, Evidence(no, _quote(m.group(0)))
    return None


_DOLLAR_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_CURLY_VAR = re.compile(r"(?<![$\w{])\{([a-z][a-z0-9]*(?:_[a-z0-9]+)+)\}(?!\})")
_BRACKET = re.compile(r"(?<![\]\w!\\])\[([^\[\]\n]{2,80})\](?![(\[:])")
_CAPS_PLACEHOLDER = frozenset(
    [
        "LABEL",
        "TAGS",
        "TAG",
        "ITEM",
        "ITEMS",
        "TODO",
        "TBD",
        "NAME",
        "TITLE",
        "LINK",
        "URL",
        "VALUE",
        "TEXT",
        "DATE",
        "SUMMARY",
        "TOPIC",
        "VERDICT",
        "REASON",
        "NOTE",
        "NOTES",
        "DETAILS",
        "DESCRIPTION",
        "SOURCE",
        "SOURCES",
        "PLACEHOLDER",
        "X",
        "Y",
        "N",
    ]
)
_RE_META = re.compile(r"([\\.^$|?*+()\[\]{}])")


def _literal(text: str) -> str:
    """`text` as a literal in an evals.json pattern (`\\|` is grep's alternative there, so a
    literal bar is written `[|]`)."""
    return _RE_META.sub(lambda m: "[|]" if m.group(1) == "|" else "\\" + m.group(1), text)


def _is_placeholder(content: str, prose: str) -> bool:
    """A bracketed span of a skeleton that stands for text to be filled in (`[item]`,
    `[LABEL]`, `[one-sentence market pulse]`), not literal text the output keeps (`[BREAKOUT]`
    defined in the prose, a checkbox, a footnote)."""
    stripped = content.strip()
    if stripped in ("", "x", "X", " ") or stripped.isdigit() or stripped.startswith(("!", "^")):
        return False
    if f"[{content}]" in prose:
        return False  # the prose names it as literal text (a tag the output shows)
    if stripped.upper() == stripped and re.fullmatch(r"[A-Z0-9 _+-]+", stripped):
        return stripped in _CAPS_PLACEHOLDER
    return bool(re.search(r"[a-z]{2,}", stripped)) and (
        " " in stripped or "|" in stripped or "…" in stripped or "..." in stripped
    )


def _forbidden(
    templates: list[_Fence], prose: str, always: tuple[tuple[str, Evidence | None], ...]
) -> list[tuple[str, Evidence | None]]:
    """Literal patterns for what a skeleton leaves to be filled in: `${var}`-style variables,
    `{snake_case}` slots and bracketed placeholders, each exactly as written."""
    found: dict[str, Evidence | None] = dict(always)
    for fence in templates:
        for no, text in fence.lines:
            for m in _DOLLAR_VAR.finditer(text):
                found.setdefault(_unquoted(m.group(0)), Evidence(no, m.group(0)))
            for m in _CURLY_VAR.finditer(text):
                found.setdefault(_literal(m.group(0)), Evidence(no, m.group(0)))
            for m in _BRACKET.finditer(text):
                if _is_placeholder(m.group(1), prose):
                    found.setdefault(_literal(m.group(0)), Evidence(no, m.group(0)))
    ok: list[tuple[str, Evidence | None]] = []
    for pattern, ev in found.items():
        try:
            compile_pattern(pattern)
        except PatternError:
            continue
        ok.append((pattern, ev))
    return ok[:40]


def _no_contract(doc: SkillDoc, reason: str, warnings: Iterable[str] = ()) -> Contract:
    return Contract(
        skill=doc.skill,
        outputs=(),
        reason=reason,
        source=doc.path.rpartition("/")[2],
        scorable=doc.scorable,
        warnings=(*doc.warnings, *warnings),
        sha256=doc.sha256,
    )


def _rank(draft: _Draft) -> int:
    """0: the run's product (an article, a rewritten topic file); 1: the daily log entry;
    2: a file the skill only appends to."""
    if draft.glob == LOG_PATTERN:
        return 1
    if draft.glob.startswith("memory/") and all(w.appends for w in draft.writes):
        return 2
    return 0


def _unquoted(variable: str) -> str:
    """A pattern for `${var}` left unexpanded, not for `${var}` quoted as code (a log that
    says "`${var}` was empty" names the variable; it did not forget to fill it in)."""
    return f"(?:^|[^`\\\\])({_literal(variable)})(?:[^`]|$)"


ALWAYS_FORBIDDEN = (_unquoted("${var}"), "\\[TODO\\]")


def infer_contract(doc: SkillDoc) -> Contract:
    """The output contract `doc`'s body states. Pure; never raises for any text.

    No usable contract (empty `outputs`, with `reason`) when the file could not be read, has an
    unterminated code fence, writes outside the root, or names no output it writes.
    """
    if doc.error is not None:
        return Contract(
            doc.skill, (), doc.error, "SKILL.md", doc.scorable, doc.warnings, doc.sha256
        )
    try:
        scanned = _scan(doc)
    except _Unusable as exc:
        return _no_contract(doc, "a code fence is never closed", [str(exc)])
    writes, outside = _writes(scanned)
    if outside:
        return _no_contract(doc, "SKILL.md writes outside the instance root", outside[:1])
    if not writes:
        return _no_contract(doc, "SKILL.md names no output it writes")
    if any(not (w.condition or "").startswith("if:") for w in writes):
        # a fallback ("if X is missing, write …") is not the product when the skill has one
        writes = [w for w in writes if not (w.condition or "").startswith("if:")]
    drafts: dict[str, _Draft] = {}
    for write in writes:
        draft = drafts.setdefault(write.glob, _Draft(write.glob, None))
        draft.writes.append(write)
        draft.conditions.append(write.condition)
    if LOG_PATTERN in drafts:
        log = drafts[LOG_PATTERN]
        sections = [_log_section(w, doc.skill) for w in log.writes]
        log.section = next((sec for sec, ev in sections if ev is not None), sections[0][0])
    # One product per branch: a dated article or a rewritten topic file, else the log entry,
    # else a file the skill only appends to.
    rank = {g: _rank(d) for g, d in drafts.items()}
    best: dict[str | None, int] = {}
    for g, d in drafts.items():
        for c in d.conditions:
            best[c] = min(best.get(c, 9), rank[g])
    floor_all = best.get(None, 9)
    kept: list[tuple[_Draft, list[str | None]]] = []
    for g, d in drafts.items():
        conds = [c for c in dict.fromkeys(d.conditions) if rank[g] <= min(best[c], floor_all)]
        if conds:
            kept.append((d, conds))
    kept.sort(key=lambda item: (rank[item[0].glob], item[0].writes[0].line))
    prose = (
        "\n".join(t for no, t in scanned.lines if no not in scanned.fence_at)
        if scanned.fences
        else "\n".join(scanned.texts)
    )
    always = tuple((p, None) for p in ALWAYS_FORBIDDEN)
    outputs: list[ContractOutput] = []
    for draft, conds in kept:
        first = draft.writes[0]
        condition = None if None in conds else " | ".join(c for c in conds if c)
        evidence: list[tuple[str, Evidence]] = [("output", Evidence(first.line, first.quote))]
        templates = [w.template for w in draft.writes if w.template is not None]
        headings: list[str] = []
        section = draft.section
        if section is not None:
            sev = next((ev for w in draft.writes if (ev := _log_section(w, doc.skill)[1])), None)
            if sev is not None:
                evidence.append(("section", sev))
        else:
            template = templates[0] if templates else None
            if template is not None:
                k = scanned.index(template.close_line)
                after = list(scanned.texts[k + 1 : k + 12])
                for no, heading in _template_headings(template, after):
                    if heading not in headings:
                        headings.append(heading)
                        evidence.append((f"heading:{heading}", Evidence(no, heading)))
        min_words = 0
        if section is None:
            lo = scanned.index(first.line)
            branch_lines = (
                [0, len(scanned.lines) - 1]  # no branch heading: the whole body
                if first.condition is None and not scanned.branch_at and scanned.lines
                else [
                    k
                    for k, (no, _) in enumerate(scanned.lines)
                    if no in scanned.fence_at or scanned.branch_at.get(no) == first.condition
                ]
            )
            hi = max(branch_lines, default=lo) + 1
            start = min(branch_lines, default=0)
            floor = _word_floor(scanned, start, hi)
            if floor is not None:
                min_words = floor[0]
                evidence.append(("min_words", floor[1]))
        forbidden = _forbidden(templates, prose, always)
        for pattern, ev in forbidden:
            if ev is not None:
                evidence.append((f"forbidden:{pattern}", ev))
        spec = Spec(
            skill=doc.skill,
            output_pattern=draft.glob,
            min_words=min_words,
            forbidden_patterns=tuple(p for p, _ in forbidden),
            section=section,
            required_headings=tuple(headings),
        )
        outputs.append(ContractOutput(spec, condition, tuple(evidence)))
    return Contract(
        skill=doc.skill,
        outputs=tuple(outputs),
        reason=None,
        source=outputs[0].source,
        scorable=doc.scorable,
        warnings=doc.warnings,
        sha256=doc.sha256,
    )


# --- cache ------------------------------------------------------------------------------------


def _fingerprint() -> str:
    here = Path(__file__).parent
    digest = hashlib.sha256(f"v{CACHE_VERSION}".encode())
    for name in ("contracts.py", "skillmd.py", "model.py"):
        with contextlib.suppress(OSError):
            digest.update((here / name).read_bytes())
    return digest.hexdigest()[:16]


def contract_to_json(contract: Contract) -> dict[str, Any]:
    """A contract as plain JSON data (the cache and `contracts --json`)."""
    return {
        "skill": contract.skill,
        "sha256": contract.sha256,
        "source": contract.source,
        "scorable": contract.scorable,
        "reason": contract.reason,
        "warnings": list(contract.warnings),
        "outputs": [
            {
                "condition": o.condition,
                "spec": spec_to_json(o.spec),
                "evidence": [[el, ev.line, ev.quote] for el, ev in o.evidence],
            }
            for o in contract.outputs
        ],
    }


def spec_to_json(spec: Spec) -> dict[str, Any]:
    """The evals.json entry a spec stands for (only the fields a contract sets)."""
    out: dict[str, Any] = {"output_pattern": spec.output_pattern}
    if spec.section:
        out["section"] = spec.section
    if spec.min_words:
        out["min_words"] = spec.min_words
    if spec.required_patterns:
        out["required_patterns"] = list(spec.required_patterns)
    if spec.required_headings:
        out["required_headings"] = list(spec.required_headings)
    out["forbidden_patterns"] = list(spec.forbidden_patterns)
    return out


def contract_from_json(data: Any) -> Contract:
    """The inverse of contract_to_json; raises KeyError/TypeError/ValueError on damaged data."""
    outputs = []
    for o in data["outputs"]:
        s = o["spec"]
        spec = Spec(
            skill=str(data["skill"]),
            output_pattern=str(s["output_pattern"]),
            min_words=int(s.get("min_words", 0)),
            required_patterns=tuple(str(p) for p in s.get("required_patterns", ())),
            forbidden_patterns=tuple(str(p) for p in s.get("forbidden_patterns", ())),
            section=s.get("section"),
            required_headings=tuple(str(h) for h in s.get("required_headings", ())),
        )
        evidence = tuple((str(el), Evidence(int(line), str(q))) for el, line, q in o["evidence"])
        outputs.append(ContractOutput(spec, o["condition"], evidence))
    return Contract(
        skill=str(data["skill"]),
        outputs=tuple(outputs),
        reason=data["reason"],
        source=str(data["source"]),
        scorable=bool(data["scorable"]),
        warnings=tuple(str(w) for w in data["warnings"]),
        sha256=str(data["sha256"]),
    )


def _read_cache(root: Path) -> dict[str, Any]:
    try:
        raw = json.loads((root / CACHE_FILE).read_bytes())
    except (OSError, ValueError, RecursionError):
        return {}
    if (
        not isinstance(raw, dict)
        or raw.get("version") != CACHE_VERSION
        or raw.get("fingerprint") != _fingerprint()
    ):
        return {}
    entries = raw.get("entries")
    return entries if isinstance(entries, dict) else {}


def load_contracts(root: Path, skills: Iterable[str], *, cache: bool = True) -> dict[str, Contract]:
    """The contract of each skill that has a SKILL.md under `root` (skills without one are left
    out). Inferences are kept in `.aeon-evals/cache/contracts.json`, keyed by skill and the
    SKILL.md's SHA-256; a damaged or outdated cache is a miss, and a cache that cannot be
    written is only slower. `cache=False` reads and writes no cache (nothing is written)."""
    cached = _read_cache(root) if cache else {}
    result: dict[str, Contract] = {}
    fresh: dict[str, Any] = {}
    changed = False
    for skill in sorted(set(skills)):
        raw = read_skill_bytes(root, skill)
        if raw is None:
            continue
        if isinstance(raw, SkillDoc):  # unusable: the doc says why
            result[skill] = infer_contract(raw)
            continue
        # the hash first: a cached contract needs no parse of the frontmatter and body
        key = f"{skill}\x00{hashlib.sha256(raw).hexdigest()}"
        entry = cached.get(key)
        contract = None
        if entry is not None:
            try:
                contract = contract_from_json(entry)
            except (KeyError, TypeError, ValueError, AttributeError):
                contract = None
        if contract is None:
            doc = parse_skill_doc(skill, skill_md_path(skill), raw)
            if doc.error is not None:
                result[skill] = infer_contract(doc)
                continue
            contract = infer_contract(doc)
            entry = contract_to_json(contract)
            changed = True
        fresh[key] = entry
        result[skill] = contract
    if cache and (changed or set(fresh) - set(cached)):
        merged = {**cached, **fresh}
        with contextlib.suppress(OSError):
            if (root / ".aeon-evals").is_symlink() or not _inside_root(root, root / CACHE_FILE):
                return result
            atomic_write(
                root / CACHE_FILE,
                json.dumps(
                    {"version": CACHE_VERSION, "fingerprint": _fingerprint(), "entries": merged},
                    ensure_ascii=False,
                    sort_keys=True,
                ),
            )
    return result


def _inside_root(root: Path, path: Path) -> bool:
    from aeon_evals.fsio import inside

    return inside(root, path.parent if not path.exists() else path)

"""The parts of a contract that a write instruction's surroundings state: the daily log's entry
heading, the template's required headings, a whole-output word floor, and the placeholders a
real output must not keep."""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable

from aeon_evals.contracts.body import HEADING, Body, Fence
from aeon_evals.contracts.data import Evidence, quoted
from aeon_evals.text.numbers import digits_int
from aeon_evals.text.patterns import PatternError, compile_pattern

_PH_IN_HEADING = re.compile(r"\$\{[^}]*\}|\$[A-Z_]{2,}\w*|\{[^}]*\}|<[^>]*>|\[[^\]]*\]|YYYY|\bN\b")


_SECTION_CUT = re.compile(r"\s+[—–|(]|\s+-\s|:\s")


def log_section(
    heading: tuple[int, str] | None, template: Fence | None, skill: str
) -> tuple[str, Evidence | None]:
    """The heading of the skill's entry in the daily log: the one named on the instruction line
    (`heading`: its line and text), else the first heading of the `template`, else
    `### <skill>`."""
    candidates: list[tuple[int, str]] = []
    if heading:
        candidates.append(heading)
    if template:
        for no, text in template.lines:
            if HEADING.match(text.strip()):
                candidates.append((no, text.strip()))
                break
    for no, text in candidates:
        h = HEADING.match(text)
        if not h:
            continue
        # Sections are matched by the start of their title: what follows a dash, a colon or a
        # parenthesis varies from run to run (`## fleet-control (health check, 15 UTC slot)`).
        title = _PH_IN_HEADING.split(h.group(2))[0]
        title = _SECTION_CUT.split(title)[0]
        title = re.sub(r"[\s—–:(|-]+$", "", title).strip().strip("*_`").strip()
        if len(title) >= 3 and re.search(r"[A-Za-z]", title):
            return f"{h.group(1)} {title}", Evidence(no, text)
    return f"### {skill}", None


_OPTIONAL = re.compile(
    r"(?i)\b(?:only (?:include|if|when|add|show)|include (?:only|if|when)|omit|optional|"
    r"if (?:any|none|present|applicable|relevant|there (?:are|is))|"
    r"when (?:present|relevant|applicable)|"
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
ITEMISH = re.compile(r"(?i)^(?:\d+[.)]|[-*+]|step\b)")


def template_headings(template: Fence, after: list[str]) -> list[tuple[int, str]]:
    """Headings of a skeleton that every real output must have: no placeholder in the title,
    not marked optional (in the heading, under it, or in the prose right after the fence)."""
    items = template.lines
    heads = [
        (k, len(h.group(1)), h.group(2), no)
        for k, (no, text) in enumerate(items)
        if (h := HEADING.match(text.strip()))
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


class WordFloors:
    """Every whole-output word floor stated in a body's prose, found in one pass: the first in
    any span of lines is then a bisect (a SKILL.md naming 16,000 outputs asks 16,000 times, and
    joining the span's text for each was quadratic)."""

    def __init__(self, doc: Body) -> None:
        self.at: list[int] = []  # body indexes of the lines that state one, in order
        self.found: list[tuple[int, Evidence]] = []
        for k, (no, text) in enumerate(doc.lines):
            if no in doc.fence_at or "word" not in text.lower():
                continue
            floor = _line_floor(no, text)
            if floor is not None:
                self.at.append(k)
                self.found.append(floor)

    def first(self, lo: int, hi: int) -> tuple[int, Evidence] | None:
        """The first floor stated between body lines lo and hi."""
        i = bisect.bisect_left(self.at, lo)
        return self.found[i] if i < len(self.at) and self.at[i] < hi else None


def _line_floor(no: int, text: str) -> tuple[int, Evidence] | None:
    """The whole-output word floor one prose line states, if any."""
    for m in _WORD_BOUND.finditer(text):
        value = next(g for g in (m.group(1), m.group(2), m.group(4)) if g)
        sentence = text[max(0, m.start() - 120) : m.end() + 60]
        if _PART.search(sentence) or not _WHOLE.search(sentence):
            continue
        words = digits_int(value)
        if words is not None and 0 < words < 20000:
            return words, Evidence(no, quoted(m.group(0)))
    return None


def branch_spans(doc: Body) -> Callable[[str | None, int], tuple[int, int]]:
    """The span of body lines a word floor of an output under branch `condition` may come from
    (the first and one past the last line of that branch's prose and of every fence; (0,
    lo + 1) when there is none), each branch's worked out once for the whole body."""
    fences: list[int] = []
    spans: dict[str | None, list[int]] = {}
    for k, (no, _) in enumerate(doc.lines):
        if no in doc.fence_at:
            fences.append(k)
        found = spans.setdefault(doc.branch_at.get(no), [k, k])
        found[1] = k
    fence = (fences[0], fences[-1]) if fences else None

    def span(condition: str | None, lo: int) -> tuple[int, int]:
        ends = [*(spans.get(condition) or ()), *(fence or ())]
        return (min(ends), max(ends) + 1) if ends else (0, lo + 1)

    return span


def word_floor(doc: Body, lo: int, hi: int) -> tuple[int, Evidence] | None:
    """The first whole-output word floor stated in prose between body lines lo and hi."""
    return WordFloors(doc).first(lo, hi)


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


def forbidden_patterns(
    templates: list[Fence], prose: str, always: tuple[tuple[str, Evidence | None], ...]
) -> list[tuple[str, Evidence | None]]:
    """Literal patterns for what a skeleton leaves to be filled in: `${var}`-style variables,
    `{snake_case}` slots and bracketed placeholders, each exactly as written."""
    found: dict[str, Evidence | None] = dict(always)
    for fence in templates:
        for no, text in fence.lines:
            for m in _DOLLAR_VAR.finditer(text):
                found.setdefault(unquoted(m.group(0)), Evidence(no, m.group(0)))
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


def unquoted(variable: str) -> str:
    """A pattern for `${var}` left unexpanded, not for `${var}` quoted as code (a log that
    says "`${var}` was empty" names the variable; it did not forget to fill it in)."""
    return f"(?:^|[^`\\\\])({_literal(variable)})(?:[^`]|$)"


ALWAYS_FORBIDDEN = (unquoted("${var}"), "\\[TODO\\]")

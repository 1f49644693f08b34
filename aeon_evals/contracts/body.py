"""A SKILL.md body split into prose and fenced blocks, with the branch heading (`# Mode: …`,
`### Releases (var=releases)`) each prose line is under."""

from __future__ import annotations

import re
from dataclasses import dataclass

from aeon_evals.load.skillmd import SkillDoc

_FENCE = re.compile(r"^[ \t>]*(`{3,}|~{3,})[ \t]*([^\s`]*)[^`]*$")
HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$")
SHELL = frozenset({"bash", "sh", "shell", "zsh", "console"})
_DATA = frozenset(
    {"json", "jsonc", "yaml", "yml", "toml", "python", "py", "js", "javascript", "ts", "graphql"}
)


@dataclass(frozen=True)
class Fence:
    """One fenced block of the body: its marker lines, info string and content lines."""

    open_line: int  # file line of the opening fence
    close_line: int
    info: str
    lines: tuple[tuple[int, str], ...]  # (file line, text) of the content

    @property
    def template(self) -> bool:
        """A skeleton of written text (markdown or plain), not a command or a data file."""
        return self.info.lower() not in SHELL | _DATA


@dataclass(frozen=True)
class Body:
    """A SKILL.md body as the inference reads it (`scan`)."""

    path: str
    lines: tuple[tuple[int, str], ...]  # every body line: (file line, text)
    texts: tuple[str, ...]  # the same lines' texts alone
    fences: tuple[Fence, ...]
    fence_at: dict[int, int]  # file line → index of the fence it belongs to (markers included)
    branch_at: dict[int, str]  # prose file line → branch condition in force there (if any)
    # the `${var}` documentation (`> **${var}** — …` and its quoted lines): what each value
    # selects, never an instruction of the run (`> - `add-repo:<r>` → append to …`)
    var_doc: frozenset[int] = frozenset()
    # branch condition → (file line, title) of each heading that opens it
    branch_heads: tuple[tuple[str, int, str], ...] = ()

    def index(self, line: int) -> int:
        """The body index of file line `line`."""
        return line - self.lines[0][0] if self.lines else 0


class Unusable(Exception):
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


def scan(doc: SkillDoc) -> Body:
    """Split the body into prose and fences, and note the branch heading over each line."""
    texts = tuple(doc.body.splitlines())
    lines = tuple(zip(range(doc.body_line, doc.body_line + len(texts)), texts, strict=True))
    spans = _fence_spans(lines, nested=True) if "```" in doc.body or "~~~" in doc.body else []
    if isinstance(spans, int):
        spans = _fence_spans(lines, nested=False)
    if isinstance(spans, int):
        raise Unusable(f"{doc.path}:{spans}: code fence opened here is never closed")
    fences: list[Fence] = []
    fence_at: dict[int, int] = {}
    for first, last, info in spans:
        for k in range(first, last + 1):
            fence_at[lines[k][0]] = len(fences)
        fences.append(Fence(lines[first][0], lines[last][0], info, lines[first + 1 : last]))
    branch_at: dict[int, str] = {}
    branch_heads: list[tuple[str, int, str]] = []
    stack: list[tuple[int, str | None]] = []  # (heading level, condition) of open headings
    heads = [
        (k, h)
        for k, text in enumerate(texts)
        if text[:1] == "#" and lines[k][0] not in fence_at and (h := HEADING.match(text))
    ]
    for n, (k, h) in enumerate(heads):
        level = len(h.group(1))
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, _branch(h.group(2))))
        if stack[-1][1] is not None and all(c is None for _, c in stack[:-1]):
            branch_heads.append((str(stack[-1][1]), lines[k][0], h.group(2)))
        # the outermost branch heading names the branch (`# Mode: movers` over `## Source: …`)
        branch = next((c for _, c in stack if c), None)
        if branch is not None:
            end = heads[n + 1][0] if n + 1 < len(heads) else len(lines)
            for no, _ in lines[k:end]:
                if no not in fence_at:
                    branch_at[no] = branch
    return Body(
        doc.path,
        lines,
        texts,
        tuple(fences),
        fence_at,
        branch_at,
        _var_doc(lines, fence_at) if "${var}" in doc.body else frozenset(),
        tuple(branch_heads),
    )


def _var_doc(lines: tuple[tuple[int, str], ...], fence_at: dict[int, int]) -> frozenset[int]:
    """The file lines of each blockquote that documents `${var}` (its first line names it)."""
    found: set[int] = set()
    block: list[int] = []
    documents = False
    for no, text in (*lines, (-1, "")):
        if no not in fence_at and text.lstrip().startswith(">"):
            documents = documents or (not block and "${var}" in text)
            block.append(no)
            continue
        if documents:
            found.update(block)
        block, documents = [], False
    return frozenset(found)


_BRANCH_KEY = re.compile(
    r"(?i)^[\W\d]*(?:[A-Z]\d*\.\s*)?(mode|branch|var|view|source|sub-?command)\s*[:=]\s*`?([^`()\s,;—–]+)"
)
_BRANCH_PAREN = re.compile(r"(?i)\((?:var|mode)\s*[:=]\s*`?([^`)\s]+)`?\)")
_BRANCH_ARM = re.compile(r"(?i)^\W*((?:arm|branch)\s+[a-z0-9])\b(?!\.)")
_BRANCH_MODE = re.compile(r"(?i)^[\W\d]*([a-z][\w-]*(?: [a-z][\w-]*)?) (mode|view)\b")


def _branch(title: str) -> str | None:
    """A heading that selects a branch (`# Mode: single-token`, `## Source: geckoterminal`,
    `### Releases (var=releases)`, `# Analytics view`) → its condition, else None."""
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
        return f"{m.group(2).lower()}={m.group(1).lower().replace(' ', '-')}"
    return None

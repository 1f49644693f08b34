"""Which branch of a SKILL.md a configured `var` runs: the values that select each branch, read
from its heading (`# Mode: movers (default)`, `## Branch B — RWA Pulse (`${var}` = `rwa`)`) and
from the lines that map values to branches (`> - **empty** → health check (default)`,
`7. equals `token` or `single-token` → **single-token**`, a `| `${var}` | Branch |` table), each
with its evidence; and the branch a given `var` selects. Pure."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

from aeon_evals.contracts.data import Contract, ContractOutput, Evidence, quoted

if TYPE_CHECKING:  # a warm run chooses branches without loading the inference (test_startup)
    from aeon_evals.contracts.body import Body

DEFAULT = ""  # the selector of the branch an empty `var` runs
ANY = "*"  # the selector of the branch any other value runs ("any other string → A")

_CODE = re.compile(r"`([^`\n]+)`")
_EMPTY = re.compile(
    r"(?i)\bempty\b|\(empty\)|``|\"\"|\bno var\b|\bunset\b|\bnot set\b|\bblank\b|\bdefault\b"
)
_OTHER = re.compile(
    r"(?i)\b(?:any other|anything else|otherwise|else|unrecognized|other values?)\b"
)
_DEFAULT_MARK = re.compile(r"(?i)\(\s*default\b|\bdefault\s*\)|[—–-]\s*default\b|\bdefault\s*;")
_HEADING_VALUE = re.compile(r"(?i)`?\$\{var\}`?\s*(?:=|==|is)\s*`([^`]+)`")
_HEADING_EMPTY = re.compile(r"(?i)`?\$\{var\}`?\s+(?:is\s+)?empty")
_ARROW = re.compile(r"\s(?:→|->|=>)\s")
_MAPS = re.compile(r"→|->|=>|\||(?i:default)")
_SEGMENT = re.compile(r"(?<=[.;])\s+(?=\S)|\s+[·|]\s+(?=`)")
_MARKUP = re.compile(r"[*_`]+")
_NEGATED = re.compile(r"(?i)\b(?:no|not|without|except|unless)\s*$")
_VAR_COLUMN = re.compile(r"(?i)\bvar\b|\bvalue\b|\bselector\b|\binput\b|\bscope\b|\bmode\b")
_PLACEHOLDER_START = re.compile(r"[<\[{(]")


def _norm(text: str) -> str:
    """Lowercase, markup gone, `-`/`_` read as spaces: how branch names are compared."""
    return " ".join(re.sub(r"[-_/]+", " ", _MARKUP.sub(" ", text.lower())).split())


def _names(condition: str, title: str) -> list[re.Pattern[str]]:
    """Patterns that find the branch `condition` (`mode=single-token`, `branch=b`) named in a
    line: its value (`single-token`), for a letter `Branch B` / `**B ·` / `**B —`, and the
    label its heading gives it (`RWA Pulse`)."""
    value = condition.partition("=")[2]
    found: list[re.Pattern[str]] = []
    if len(value) >= 3:
        found.append(re.compile(rf"(?<![\w-]){re.escape(_norm(value))}(?![\w-])"))
    else:
        letter = re.escape(value)
        found.append(re.compile(rf"(?:branch|arm)\s+{letter}\b|(?:^|\s){letter}\s*[·—–:]\s"))
    parts = re.split(r"\s[—–-]\s|[(:·]", _MARKUP.sub("", _HEADING_VALUE.sub("", title)), maxsplit=2)
    words = _norm(parts[1] if len(parts) > 1 and len(value) < 3 else "").split()[:2]
    if len(" ".join(words)) >= 4:
        found.append(re.compile(rf"(?<![\w-]){re.escape(' '.join(words))}(?![\w-])"))
    return found


def _values(lhs: str) -> list[str]:
    """The `var` values a line's left-hand side names: each code span (`token`, `a|b`,
    `geckoterminal:<chain>` → the prefix `geckoterminal:`), lowercased."""
    found: list[str] = []
    for m in _CODE.finditer(lhs):
        if _NEGATED.search(lhs[max(0, m.start() - 12) : m.start()]):
            continue  # `owner/repo` (no `push-to:`): the value that does not select it
        for raw in m.group(1).split("|"):
            value = raw.strip().strip("\"'").lower()
            if "${var}" in value or not value:
                continue
            if ":" in value:
                value = value[: value.index(":") + 1]
            cut = _PLACEHOLDER_START.search(value)
            if cut is not None:
                value = value[: cut.start()]
            if len(value.strip(":-_./")) >= 2 and value not in found:
                found.append(value)
    return found


def branch_selectors(doc: Body) -> tuple[tuple[str, str, Evidence], ...]:
    """(branch condition, selector, evidence) for each branch of `doc` some line says a `var`
    value selects: DEFAULT for the branch an empty var runs, ANY for the one any other value
    runs, else a value (`status`) or a prefix (`push-to:`). Only top-level branches (the
    outermost branch headings) are named."""
    heads = {cond: (line, title) for cond, line, title in reversed(doc.branch_heads)}
    if len(heads) < 2:
        return ()
    names = {cond: _names(cond, title) for cond, (_, title) in heads.items()}
    found: dict[tuple[str, str], Evidence] = {}
    for cond, (line, title) in heads.items():
        if _DEFAULT_MARK.search(title) or _HEADING_EMPTY.search(title):
            found.setdefault((cond, DEFAULT), Evidence(line, quoted(title)))
        for m in _HEADING_VALUE.finditer(title):
            for value in _values(f"`{m.group(1)}`"):
                found.setdefault((cond, value), Evidence(line, quoted(title)))
        value = cond.partition("=")[2]
        if len(value) >= 3:  # `# Status Mode`: var `status` runs it
            found.setdefault((cond, value), Evidence(line, quoted(title)))
    lines = doc.lines
    row, top = -2, -1  # the last table row met, and the first row of its table
    for k, (no, text) in enumerate(lines):
        if not _MAPS.search(text):
            continue  # most lines map nothing: no arrow, no table, no "default"
        if _row(text):
            top = top if row == k - 1 else k  # every row holds `|`: none is skipped
            row = k
        if no in doc.fence_at or no in doc.branch_at or text.startswith("#"):
            continue
        if row == k:
            header = lines[top][1].strip().lstrip(">").strip().split("|")
            if top == k or len(header) < 2 or not _VAR_COLUMN.search(header[1]):
                continue  # a table maps values to branches only under a `${var}` / value column
        for lhs, rhs in _mappings(text):
            plain = _norm(rhs)
            targets = [c for c, pats in names.items() if any(p.search(plain) for p in pats)]
            if len(targets) != 1:
                continue
            selectors = _values(lhs)
            if not selectors and _OTHER.search(lhs):
                selectors = [ANY]
            elif not selectors and _EMPTY.search(lhs):
                selectors = [DEFAULT]
            for selector in selectors:
                found.setdefault((targets[0], selector), Evidence(no, quoted(text)))
    return tuple((cond, sel, ev) for (cond, sel), ev in found.items())


def _row(text: str) -> bool:
    return text.strip().lstrip(">").strip().startswith("|")


def _mappings(text: str) -> Iterable[tuple[str, str]]:
    """The (value side, branch side) pairs of a line: `lhs → rhs` in each sentence or list
    segment, a table row's first cell and the rest, a `**health** (default)` label."""
    stripped = text.strip().lstrip(">").strip()
    if stripped.startswith("|") and stripped.count("|") >= 3:
        cells = [c.strip() for c in stripped.strip("|").split("|")]
        if len(cells) >= 2 and not set(cells[0]) <= set("-: "):
            yield cells[0], " ".join(cells[1:])
        return
    for segment in _SEGMENT.split(stripped):
        m = _ARROW.search(segment)
        if m is not None:
            yield segment[: m.start()], segment[m.end() :]
        elif (d := _DEFAULT_MARK.search(segment)) is not None:
            yield "empty", segment[: d.start()]


def selected_branch(contract: Contract, var: str) -> str | None:
    """The branch condition `var` (aeon.yml's, "" when unset) selects in `contract`, None when
    its SKILL.md does not say (or says it of several branches)."""
    if not contract.selectors:
        return None
    value = " ".join(var.split()).lower()
    if value:
        hits = {
            cond
            for cond, sel, _ in contract.selectors
            if sel not in (DEFAULT, ANY)
            and (value == sel or value.startswith(sel if sel.endswith(":") else sel + ":"))
        }
        if not hits:
            hits = {cond for cond, sel, _ in contract.selectors if sel == ANY}
    else:
        hits = {cond for cond, sel, _ in contract.selectors if sel == DEFAULT}
    return hits.pop() if len(hits) == 1 else None


def is_branch(condition: str | None) -> bool:
    """A condition that names branches (`mode=status`, `branch=a | branch=b`), not one checked
    while running (`if: …`) nor none."""
    return condition is not None and re.match(r"[\w-]+=", condition) is not None


def holds(output: ContractOutput, branch: str) -> bool:
    """Whether `output` is written by a run of `branch`: it belongs to no branch (every run, or
    a condition checked while running), or to that one."""
    if not is_branch(output.condition):
        return True
    return branch in [c.strip() for c in str(output.condition).split("|")]

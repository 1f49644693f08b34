"""INDEX.md: parsed once into blocks by markdown structure, edited row by row, written back.

Only the rows the issue stage adds or moves (and a missing section or table) change; every other
byte, line endings included, is written back as it was read.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field
from pathlib import Path

from aeon_evals.fs.confine import inside
from aeon_evals.issues.files import ID_RE, IssueFile, one_line, rel
from aeon_evals.issues.frontmatter import bare, lines_of
from aeon_evals.text import mdtable

INDEX_NAME = "INDEX.md"
DASH = "—"

# INDEX.md column headers (lower-cased, punctuation folded to spaces) -> the value that fills them.
_COLUMNS = {
    "id": "id",
    "issue": "id",
    "title": "title",
    "summary": "title",
    "severity": "severity",
    "category": "category",
    "detected": "detected",
    "detected at": "detected",
    "opened": "detected",
    "filed": "detected",
    "detected by": "detected_by",
    "detector": "detected_by",
    "affected skills": "skills",
    "affected skill": "skills",
    "affected": "skills",
    "skills": "skills",
    "skill": "skills",
    "status": "status",
    "fix pr": "fix_pr",
    "fix": "fix_pr",
    "pr": "fix_pr",
    "resolved": "resolved",
    "resolved at": "resolved",
    "closed": "resolved",
}
_CANONICAL = {
    "open": ("ID", "Title", "Severity", "Category", "Detected", "Affected Skills"),
    "resolved": ("ID", "Title", "Severity", "Fix PR", "Resolved"),
}
# Cells of an Open row carried over as written into its Resolved row (the rest are recomputed).
_KEPT_ON_CLOSE = frozenset(
    {"id", "title", "severity", "category", "detected", "detected_by", "skills"}
)
_HEADINGS = {"open": "## Open", "resolved": "## Resolved"}

# Markdown structure (CommonMark block starts, as far as INDEX.md needs them).
_HEADING_RE = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*")
_SECTION_NAME_RE = re.compile(r"(open|resolved)\b", re.IGNORECASE)
_FENCE_RE = re.compile(r" {0,3}(`{3,}|~{3,})(.*)")
_COMMENT_RE = re.compile(r" {0,3}<!--")
_SEPARATOR_RE = re.compile(r"\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*")
_PLACEHOLDER_RE = re.compile(
    r"(none|nothing|n/?a|empty|no (open |resolved |closed )?issues)( yet)?", re.IGNORECASE
)
_CELL_SPLIT = re.compile(r"(?<!\\)\|")


class Kind(enum.Enum):
    TEXT = "text"  # paragraphs, blank lines, lists: kept as they are
    OPAQUE = "opaque"  # frontmatter, fenced code, HTML comments: nothing inside is structure
    HEADING = "heading"
    TABLE = "table"  # header, separator, rows


@dataclass
class Block:
    """Consecutive lines of one kind; a table's rows are its lines after the first two."""

    kind: Kind
    lines: list[str]
    level: int = 0  # a heading's number of `#`
    title: str = ""  # a heading's text
    columns: tuple[str, ...] = field(default=())  # a table's header cells


def cells(line: str) -> list[str]:
    """The cells of a table row, unescaped `|` splitting them, stripped."""
    parts = _CELL_SPLIT.split(bare(line).strip())
    if parts and not parts[0].strip():
        parts = parts[1:]
    if parts and not parts[-1].strip():
        parts = parts[:-1]
    return [c.strip() for c in parts]


def _table_line(line: str) -> bool:
    return line.lstrip().startswith("|")


def parse(lines: list[str]) -> list[Block]:
    """`lines` as blocks; joining every block's lines gives `lines` back."""
    blocks: list[Block] = []
    text: list[str] = []

    def add(block: Block) -> None:
        if text:
            blocks.append(Block(Kind.TEXT, text.copy()))
            text.clear()
        blocks.append(block)

    n, i = len(lines), 0
    if n and bare(lines[0]).lstrip("\ufeff").rstrip() == "---":
        end = next((j for j in range(1, n) if bare(lines[j]).rstrip() in ("---", "...")), None)
        if end is not None:
            add(Block(Kind.OPAQUE, lines[: end + 1]))
            i = end + 1
    while i < n:
        line = bare(lines[i])
        fence = _FENCE_RE.fullmatch(line)
        if fence and not (fence.group(1)[0] == "`" and "`" in fence.group(2)):
            mark = fence.group(1)
            closing = re.compile(rf" {{0,3}}{re.escape(mark[0])}{{{len(mark)},}}[ \t]*")
            j = next((j for j in range(i + 1, n) if closing.fullmatch(bare(lines[j]))), n - 1)
            add(Block(Kind.OPAQUE, lines[i : j + 1]))
            i = j + 1
        elif _COMMENT_RE.match(line):
            after = line.index("<!--") + 4
            j = (
                i
                if "-->" in line[after:]
                else next((j for j in range(i + 1, n) if "-->" in lines[j]), n - 1)
            )
            add(Block(Kind.OPAQUE, lines[i : j + 1]))
            i = j + 1
        elif heading := _HEADING_RE.fullmatch(line):
            title = re.sub(r"(^|[ \t]+)#+$", "", heading.group(2) or "").strip()
            add(Block(Kind.HEADING, [lines[i]], level=len(heading.group(1)), title=title))
            i += 1
        elif _table_line(line) and i + 1 < n and _SEPARATOR_RE.fullmatch(bare(lines[i + 1])):
            j = i + 2
            while j < n and _table_line(lines[j]):
                j += 1
            add(Block(Kind.TABLE, lines[i:j], columns=tuple(cells(lines[i]))))
            i = j
        else:
            text.append(lines[i])
            i += 1
    if text:
        blocks.append(Block(Kind.TEXT, text))
    return blocks


@dataclass(frozen=True)
class _Section:
    head: int  # block index of the heading
    end: int  # block index of the next heading of the same or a higher level (or len(blocks))
    table: Block | None  # its first table


def _layout(blocks: list[Block]) -> dict[str, _Section]:
    """The first `Open` and `Resolved` headings, at any level, and their first tables."""
    found: dict[str, _Section] = {}
    for h, block in enumerate(blocks):
        if block.kind is not Kind.HEADING:
            continue
        m = _SECTION_NAME_RE.match(block.title)
        if not m or m.group(1).lower() in found:
            continue
        end = next(
            (
                e
                for e in range(h + 1, len(blocks))
                if blocks[e].kind is Kind.HEADING and blocks[e].level <= block.level
            ),
            len(blocks),
        )
        table = next((b for b in blocks[h + 1 : end] if b.kind is Kind.TABLE), None)
        found[m.group(1).lower()] = _Section(h, end, table)
    return found


def _column_key(name: str) -> str | None:
    return _COLUMNS.get(re.sub(r"[^a-z]+", " ", name.lower()).strip())


def _escape(cell: str) -> str:
    return one_line(cell).replace("|", "\\|") or DASH


def _row_number(line: str) -> int | None:
    """The ISS number in a row's first cell (the row is split no further than that cell)."""
    parts = _CELL_SPLIT.split(bare(line).strip(), maxsplit=2)
    first = parts[1] if len(parts) > 1 and not parts[0].strip() else parts[0]
    m = ID_RE.search(first)
    return int(m.group(1)) if m else None


def _is_row_of(line: str, number: int) -> bool:
    """`_row_number(line) == number`, with a substring test first: closing a hundred issues looks
    at every row of a long table a hundred times."""
    return str(number) in line and _row_number(line) == number


def _values(issue: IssueFile, *, status: str, resolved: str) -> dict[str, str]:
    """What fills each known column of the issue's row."""
    return {
        "title": issue.title,
        "severity": issue.severity,
        "category": issue.category,
        "detected": issue.detected_at[:10],
        "detected_by": issue.detected_by,
        "skills": ", ".join(issue.affected_skills),
        "status": status,
        "fix_pr": issue.fix_pr or DASH,
        "resolved": resolved,
    }


def _row(columns: tuple[str, ...], values: dict[str, str], kept: dict[str, str]) -> str:
    """A row for `columns`: cells kept as written, else the escaped value, `—` when unknown."""
    out = []
    for col in columns:
        key = _column_key(col)
        if key in kept:
            out.append(kept[key])
        elif key is None:
            out.append(DASH)
        else:
            out.append(_escape(values.get(key, "")))
    return mdtable.row(out)


# Adding a missing section or table: edits of the text as lines, in the canonical layout.


def _insert(lines: list[str], at: int, new: list[str], eol: str) -> None:
    """Insert lines before line `at`, first ending the line above if it lacks a newline."""
    if at > 0 and not lines[at - 1].endswith("\n"):
        lines[at - 1] += eol
    lines[at:at] = new


def _blank_before(lines: list[str], at: int, eol: str) -> list[str]:
    return [] if at == 0 or not lines[at - 1].strip() else [eol]


def _table_lines(name: str, eol: str) -> list[str]:
    return [line + eol for line in mdtable.header(_CANONICAL[name])]


def _section_lines(name: str, eol: str) -> list[str]:
    return [_HEADINGS[name] + eol, eol, *_table_lines(name, eol)]


def _with_sections(lines: list[str], spans: dict[str, tuple[int, int]], eol: str) -> list[str]:
    """`lines` with a missing Open (just before Resolved) or Resolved (right after Open)
    section, or both at the end; `spans` are the sections found, as line ranges."""
    lines = lines or ["# Issues" + eol]
    if "resolved" in spans:
        at = spans["resolved"][0]
        new = [*_blank_before(lines, at, eol), *_section_lines("open", eol), eol]
    elif "open" in spans:
        at = spans["open"][1]
        tail = [eol] if at < len(lines) else []
        new = [*_blank_before(lines, at, eol), *_section_lines("resolved", eol), *tail]
    else:
        at = len(lines)
        opened = [*_blank_before(lines, at, eol), *_section_lines("open", eol)]
        new = [*opened, eol, *_section_lines("resolved", eol)]
    _insert(lines, at, new, eol)
    return lines


def _with_table(lines: list[str], head: int, end: int, name: str, eol: str) -> list[str]:
    """`lines` with a table in the section from line `head` to `end`: in place of a placeholder
    (`_None_`, `(none)`, `No issues yet.`), else under the heading."""
    content = next((i for i in range(head + 1, end) if lines[i].strip()), None)
    placeholder = content is not None and _PLACEHOLDER_RE.fullmatch(
        lines[content].strip().strip("_*()[]-.:").strip()
    )
    if content is not None and placeholder:
        lines[content : content + 1] = _table_lines(name, eol)
        return lines
    at = head + 1
    if at < len(lines) and not lines[at].strip():
        at += 1
    tail = [eol] if at < len(lines) and lines[at].strip() else []
    _insert(lines, at, [*_blank_before(lines, at, eol), *_table_lines(name, eol), *tail], eol)
    return lines


class Index:
    """INDEX.md as blocks. Rows are added to and removed from their table block in place; a
    missing section or table (at most three a run) is added to the text, which is parsed again."""

    def __init__(self, text: str | None) -> None:
        self.original = text
        lines = lines_of(text) if text is not None else []
        self.eol = "\r\n" if lines and lines[0].endswith("\r\n") else "\n"
        self._parse(lines)
        rows = [row for s in self._sections.values() if s.table for row in s.table.lines[2:]]
        firsts = [c[0] for c in (cells(r) for r in rows) if c]
        self.linked = not firsts or any(c.startswith("[") for c in firsts)
        self._mentioned = {int(m.group(1)) for m in ID_RE.finditer(text or "")}

    def _parse(self, lines: list[str]) -> None:
        self.blocks = parse(lines)
        self._sections = _layout(self.blocks)

    @property
    def text(self) -> str:
        return "".join(line for block in self.blocks for line in block.lines)

    @property
    def changed(self) -> bool:
        return self.text != (self.original or "")

    def mentions(self, number: int) -> bool:
        """Whether `number` appears anywhere in INDEX.md (as read, or in a row added since)."""
        return number in self._mentioned

    def _spans(self) -> tuple[list[str], dict[str, tuple[int, int]]]:
        """Every line, and each section's first line and the line after it."""
        lines: list[str] = []
        starts: list[int] = []
        for block in self.blocks:
            starts.append(len(lines))
            lines.extend(block.lines)
        starts.append(len(lines))
        return lines, {k: (starts[s.head], starts[s.end]) for k, s in self._sections.items()}

    def _table(self, name: str) -> Block:
        """The section's table, the section and the table added first when missing."""
        if not ("open" in self._sections and "resolved" in self._sections):
            lines, spans = self._spans()
            self._parse(_with_sections(lines, spans, self.eol))
        if self._sections[name].table is None:
            lines, spans = self._spans()
            self._parse(_with_table(lines, *spans[name], name, self.eol))
        table = self._sections[name].table
        assert table is not None
        return table

    def _append_row(self, table: Block, row: str) -> None:
        eol = "\r\n" if table.lines[0].endswith("\r\n") else "\n"
        if not table.lines[-1].endswith("\n"):
            table.lines[-1] += self.eol
        table.lines.append(row + eol)
        self._mentioned.update(int(m.group(1)) for m in ID_RE.finditer(row))

    def _id_cell(self, issue: IssueFile) -> str:
        return f"[{issue.id}]({issue.id}.md)" if self.linked else issue.id

    def add_open(self, issue: IssueFile) -> None:
        """Append the issue's row to the Open table (added, with its section, when missing)."""
        table = self._table("open")
        values = _values(issue, status="open", resolved=DASH)
        self._append_row(table, _row(table.columns, values, {"id": self._id_cell(issue)}))

    def open_row(self, number: int) -> bool:
        """Whether the Open table has a row for ISS-`number`."""
        sec = self._sections.get("open")
        table = sec.table if sec else None
        return table is not None and any(_is_row_of(ln, number) for ln in table.lines[2:])

    def close(self, issue: IssueFile, resolved_on: str) -> None:
        """Move the issue's Open row (if any) to the end of Resolved, rebuilt to its columns."""
        kept: dict[str, str] = {"id": self._id_cell(issue)}
        number = issue.number  # a regex search each time it is asked for
        sec = self._sections.get("open")
        if sec and sec.table:
            table = sec.table
            for j in range(len(table.lines) - 1, 1, -1):
                if not _is_row_of(table.lines[j], number):
                    continue
                found = cells(table.lines[j])
                if len(found) == len(table.columns):  # else an unescaped `|` split a cell
                    for col, cell in zip(table.columns, found, strict=True):
                        key = _column_key(col)
                        if key in _KEPT_ON_CLOSE:
                            kept[key] = cell
                else:
                    kept["id"] = found[0]
                del table.lines[j]
        resolved = self._table("resolved")
        if any(_is_row_of(ln, number) for ln in resolved.lines[2:]):
            return
        values = _values(issue, status="resolved", resolved=resolved_on)
        self._append_row(resolved, _row(resolved.columns, values, kept))


def read_index(path: Path, root: Path) -> tuple[str | None, str | None]:
    """(text or None when missing, a warning when it exists but cannot be used)."""
    name = rel(path, root)
    if not path.exists() and not path.is_symlink():
        return None, None
    if not inside(root, path) or not path.is_file():
        return None, f"{name}: not a regular file inside the root; left untouched"
    try:
        return path.read_bytes().decode("utf-8"), None
    except UnicodeDecodeError:
        return None, f"{name}: not UTF-8 text; left untouched"
    except OSError as exc:
        return None, f"{name}: cannot be read ({exc.strerror}); left untouched"

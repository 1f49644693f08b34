"""Issue keeping (SPEC §6): file ISS-NNN issues for new failures, resolve them on recovery, keep INDEX.md in step."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import yaml

from aeon_evals import fsio
from aeon_evals.model import DiffLabel, Status

ISSUES_DIR = "memory/issues"
INDEX_NAME = "INDEX.md"
DETECTOR = "skill-evals"
DASH = "—"

_NAME_RE = re.compile(r"ISS-(\d+)\.md")  # fullmatch: only these names are issue files
_ID_RE = re.compile(r"ISS-(\d+)")
_KEY_LINE = re.compile(r"([A-Za-z_][\w.-]*)[ \t]*:(?=[ \t]|$)(.*)")
_TITLE_MAX = 120
_WIDE = 1_000_000  # yaml width: never fold a line
_MAX_TRIES = 1000  # exclusive-create attempts before giving up on one request

_CATEGORIES = {
    "missing_pattern": "prompt-bug",
    "forbidden_pattern": "prompt-bug",
    "numeric_oob": "quality-regression",
    "word_count": "quality-regression",
    "empty_file": "quality-regression",
    "quality_score": "quality-regression",
    "stale_file": "missing-secret-or-cron",
    "no_file_match": "missing-secret-or-cron",
}

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
_SECTION_RE = re.compile(r"##[ \t]+(open|resolved)\b", re.IGNORECASE)
_ANY_HEADING_RE = re.compile(r"#{1,2}[ \t]")
_SEPARATOR_RE = re.compile(r"\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*")
_PLACEHOLDER_RE = re.compile(
    r"(none|nothing|n/?a|empty|no (open |resolved |closed )?issues)( yet)?", re.IGNORECASE
)


@dataclass(frozen=True)
class IssueFile:
    """One memory/issues/ISS-NNN.md as read from disk (tolerant of the real, messy files)."""

    id: str  # "ISS-023"
    path: str  # relative to the root, e.g. "memory/issues/ISS-023.md"
    title: str
    status: str  # "open", "resolved", "fixing", … as written
    severity: str
    category: str
    detected_by: str
    detected_at: str  # as written (date or datetime, normalised to ISO text)
    resolved_at: str | None
    affected_skills: tuple[str, ...]
    root_cause: str
    fix_pr: str | None = None  # "#8", a URL or free text, as the INDEX shows it
    flaky: bool = False
    valid_yaml: bool = True  # False when the frontmatter was read line by line

    @property
    def is_open(self) -> bool:
        return self.status.lower() not in {"resolved", "closed", "wontfix", "done"}

    @property
    def number(self) -> int:
        m = _ID_RE.search(self.id)
        return int(m.group(1)) if m else 0

    def names(self, skill: str) -> bool:
        """True when this issue names `skill`: in affected_skills, or as a whole word of the title."""
        return bool(skill) and (skill in self.affected_skills or _names_in(self.title, skill))


@dataclass(frozen=True)
class IssueRequest:
    """A NEW_FAIL / NEW_QUALITY_DEGRADED of an enabled, unmuted skill: file unless one is open."""

    skill: str
    label: DiffLabel
    status: Status
    root_cause: str  # the head cause code, e.g. "word_count" or "missing_pattern:foo|bar"
    detail: str  # expected vs actual, e.g. "412 words, minimum 500"
    output_path: str | None  # relative to the root
    flaky: bool = False


@dataclass(frozen=True)
class IssueRef:
    id: str
    skill: str
    path: str


@dataclass(frozen=True)
class IssueOutcome:
    """What the issue stage did (or, with dry_run, would do)."""

    filed: tuple[IssueRef, ...] = ()
    closed: tuple[IssueRef, ...] = ()
    existing: dict[str, str] = field(
        default_factory=dict
    )  # skill -> open issue id that already names it
    open_by_skill: dict[str, str] = field(
        default_factory=dict
    )  # skill -> an open issue id naming it, after this run
    warnings: tuple[str, ...] = ()  # unreadable files, INDEX.md problems, … one line each
    known: tuple[
        IssueFile, ...
    ] = ()  # every readable issue as it was before this run (no second read needed)


# ---------------------------------------------------------------------------------------------
# Reading


@dataclass(frozen=True)
class _Loaded:
    issue: IssueFile
    file: Path
    text: str


def read_issues(issues_dir: Path, *, root: Path) -> tuple[list[IssueFile], list[str]]:
    """Every ISS-*.md under `issues_dir`, sorted by number, plus a warning per unreadable file.

    Reads only; files without frontmatter, with bytes that are not UTF-8 text, or outside the
    root are skipped and named in a warning. Frontmatter that is not valid YAML is read line by
    line.
    """
    loaded, warnings, _ = _load(issues_dir, root)
    return [d.issue for d in loaded], warnings


def _scan(issues_dir: Path) -> list[tuple[int, Path]]:
    """Every name in `issues_dir` that looks like ISS-<digits>.md, whatever it is, by number."""
    if not issues_dir.is_dir():
        return []
    found = []
    for entry in issues_dir.iterdir():
        m = _NAME_RE.fullmatch(entry.name)
        if m:
            found.append((int(m.group(1)), entry))
    return sorted(found, key=lambda t: (t[0], t[1].name))


def _load(issues_dir: Path, root: Path) -> tuple[list[_Loaded], list[str], set[int]]:
    """The readable issues, the warnings, and the number of every ISS file (readable or not).

    Other things under an ISS name (a directory, a dangling link) are not counted: creating
    over them fails, and the filing loop then moves on to the next number.
    """
    loaded: list[_Loaded] = []
    warnings: list[str] = []
    taken: set[int] = set()
    for number, path in _scan(issues_dir):
        if not path.is_file():
            continue
        taken.add(number)
        rel = _rel(path, root)
        if path.is_symlink() and not fsio.inside(root, path):
            warnings.append(f"{rel}: leads outside the root; left untouched")
            continue
        try:
            stat = path.stat()
            key = (str(path), stat.st_ino, stat.st_size, stat.st_mtime_ns)
        except OSError:
            key = None
        if key is not None and key in _MEMO:  # read already in this process, and unchanged since
            loaded.append(_MEMO[key])
            continue
        try:
            raw = path.read_bytes()
        except OSError as exc:
            warnings.append(f"{rel}: cannot be read ({exc.strerror}); left untouched")
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            warnings.append(f"{rel}: not UTF-8 text; left untouched")
            continue
        if "\x00" in text:
            warnings.append(f"{rel}: binary content; left untouched")
            continue
        lines = _lines(text)
        bounds = _frontmatter_bounds(lines)
        if bounds is None:
            warnings.append(f"{rel}: no YAML frontmatter; left untouched")
            continue
        data, valid = _parse_frontmatter(lines[bounds[0] : bounds[1]])
        if not data:
            warnings.append(f"{rel}: empty YAML frontmatter; left untouched")
            continue
        issue = _issue_from(data, fallback_id=f"ISS-{number:03d}", rel=rel, valid=valid)
        loaded.append(_Loaded(issue, path, text))
        if key is not None:
            if len(_MEMO) > 50_000:
                _MEMO.clear()
            _MEMO[key] = loaded[-1]
    return loaded, warnings, taken


# (path, inode, size, mtime): a run reads the issues, files and closes some, and its dashboard
# reads them again; only the files written in between are parsed twice.
_MEMO: dict[tuple[str, int, int, int], _Loaded] = {}


def _rel(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def _lines(text: str) -> list[str]:
    """Split on "\\n" only, keeping the endings (str.splitlines also splits on \\x85, \\u2028)."""
    parts = text.split("\n")
    out = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        out.append(parts[-1])
    return out


def _bare(line: str) -> str:
    return line.rstrip("\r\n")


def _frontmatter_bounds(lines: list[str]) -> tuple[int, int] | None:
    """(first frontmatter line, index of the closing `---`), or None without frontmatter."""
    if not lines or _bare(lines[0]).lstrip("\ufeff").rstrip() != "---":
        return None
    for i in range(1, len(lines)):
        if _bare(lines[i]).rstrip() in ("---", "..."):
            return 1, i
    return None


_INVALID = object()


_FAST_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_FAST_DUMPER: Any = getattr(
    yaml, "CSafeDumper", yaml.SafeDumper
)  # libyaml emitter: 5x faster, checked by loading back


def _safe_load(text: str) -> Any:
    """yaml.safe_load, or _INVALID when it fails (PyYAML raises ValueError on bad dates too)."""
    try:
        return yaml.load(
            text, Loader=_FAST_LOADER
        )  # a safe loader; libyaml's C parser when present
    except (yaml.YAMLError, ValueError, TypeError, RecursionError):
        return _INVALID


def _parse_frontmatter(fm_lines: list[str]) -> tuple[dict[str, Any], bool]:
    """The frontmatter as a dict, and whether it was valid YAML (else read key by key)."""
    data = _safe_load("".join(fm_lines))
    if isinstance(data, dict):
        return {str(k): v for k, v in data.items()}, True
    return _lenient(fm_lines), False


def _lenient(fm_lines: list[str]) -> dict[str, Any]:
    """Read `key: value` chunks one by one, so a bad line (an unquoted `: `) spoils only itself."""
    chunks: list[tuple[str, list[str]]] = []
    for raw in fm_lines:
        line = _bare(raw)
        m = _KEY_LINE.match(line)
        if m:
            chunks.append((m.group(1), [m.group(2)]))
        elif chunks:
            chunks[-1][1].append(line)
    out: dict[str, Any] = {}
    for key, parts in chunks:
        value = _safe_load("_:" + "\n".join(parts) + "\n")
        if isinstance(value, dict) and list(value) == ["_"]:
            out[key] = value["_"]
            continue
        first, rest = parts[0].strip(), [p.strip() for p in parts[1:]]
        if first[:1] in ("|", ">") and len(first) <= 3:
            first = ""
        out[key] = "\n".join(p for p in [first, *rest] if p) if rest else first
    return out


def _iso(value: datetime) -> str:
    if value.tzinfo is not None and value.utcoffset() == timedelta(0):
        fmt = "%Y-%m-%dT%H:%M:%S.%fZ" if value.microsecond else "%Y-%m-%dT%H:%M:%SZ"
        return value.strftime(fmt)
    return value.isoformat()


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime):
        return _iso(value)
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, list | tuple):
        return ", ".join(_text(v) for v in value)
    return str(value)


def _skills(value: Any) -> tuple[str, ...]:
    items = value if isinstance(value, list | tuple) else _text(value).split(",")
    return tuple(s for s in (_text(v).strip() for v in items) if s)


def _fix_pr(value: Any) -> str | None:
    text = _text(value).strip()
    if not text or text.lower() in {"null", "none", "~"}:
        return None
    return f"#{text}" if text.isdigit() else text


def _issue_from(data: dict[str, Any], *, fallback_id: str, rel: str, valid: bool) -> IssueFile:
    resolved = _text(data.get("resolved_at")).strip()
    return IssueFile(
        id=_text(data.get("id")).strip() or fallback_id,
        path=rel,
        title=_text(data.get("title")),
        status=_text(data.get("status")).strip(),
        severity=_text(data.get("severity")).strip(),
        category=_text(data.get("category")).strip(),
        detected_by=_text(data.get("detected_by")).strip(),
        detected_at=_text(data.get("detected_at")).strip(),
        resolved_at=resolved or None,
        affected_skills=_skills(data.get("affected_skills")),
        root_cause=_text(data.get("root_cause")),
        fix_pr=_fix_pr(data.get("fix_pr")),
        flaky=data.get("flaky") is True or _text(data.get("flaky")).lower() in {"true", "yes"},
        valid_yaml=valid,
    )


def _names_in(title: str, skill: str) -> bool:
    # Whole word where hyphens count as word characters: token-alert is not in token-alert-v2.
    return re.search(rf"(?<![\w-]){re.escape(skill)}(?![\w-])", title) is not None


# ---------------------------------------------------------------------------------------------
# Writing one issue file


def _utc(now: datetime) -> str:
    moment = now.replace(tzinfo=UTC) if now.tzinfo is None else now.astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _one_line(text: str) -> str:
    """Whitespace runs to one space; other control characters dropped (a NUL makes a file binary)."""
    return "".join(ch for ch in " ".join(text.split()) if unicodedata.category(ch) != "Cc")


def _title(skill: str, root_cause: str) -> str:
    """`<skill>: <root_cause>` on one line, cut at a word boundary past _TITLE_MAX characters."""
    title = _one_line(f"{skill}: {root_cause}")
    if len(title) <= _TITLE_MAX:
        return title
    cut = title[: _TITLE_MAX - 1]
    space = cut.rfind(" ")
    if space > _TITLE_MAX // 2:
        cut = cut[:space]
    return cut.rstrip() + "…"


def _category(root_cause: str) -> str:
    return _CATEGORIES.get(root_cause.split(":", 1)[0].strip(), "unknown")


def _severity(req: IssueRequest) -> str:
    quality = req.label is DiffLabel.NEW_QUALITY_DEGRADED or (
        req.label is not DiffLabel.NEW_FAIL and req.status is Status.QUALITY_DEGRADED
    )
    return "medium" if quality else "high"


def _dump_pair(key: str, value: object, *, check: bool = True) -> str:
    """`key: value` as YAML that loads back to exactly `value` (with `check`: checked, and
    escaped ASCII if not)."""
    pair = {key: value}
    flow = None if isinstance(value, list) else False  # lists inline, the mapping itself in block
    options: dict[str, Any] = {"sort_keys": False, "width": _WIDE, "default_flow_style": flow}
    out = str(yaml.dump(pair, Dumper=_FAST_DUMPER, allow_unicode=True, **options))
    if check and _safe_load(out) != pair:
        out = str(
            yaml.dump(pair, Dumper=_FAST_DUMPER, allow_unicode=False, default_style='"', **options)
        )
    return out


def _render_frontmatter(fields: dict[str, object]) -> str:
    # One check for the whole usual issue; pair by pair (escaping what needs it) otherwise.
    text = "".join(_dump_pair(k, v, check=False) for k, v in fields.items())
    if _safe_load(text) != fields:
        text = "".join(_dump_pair(k, v) for k, v in fields.items())
    return "---\n" + text + "---\n"


def _body(req: IssueRequest, today: date, article_path: str) -> str:
    if req.label is DiffLabel.NEW_QUALITY_DEGRADED:
        what = f"dropped below its quality bar ({req.status.value})"
    else:
        what = f"started failing its eval ({req.status.value})"
    where = (
        f"on `{_one_line(req.output_path)}`" if req.output_path else "with no output file matching"
    )
    detail = _one_line(req.detail).rstrip(".") or "no detail recorded"
    parts = [
        f"`{_one_line(req.skill)}` {what} in the skill-evals run of {today.isoformat()}, {where}.",
        f"Expected vs actual: {detail}.",
    ]
    if req.flaky:
        parts.append(
            "This skill is flaky (it has alternated between passing and failing recently): "
            "confirm the failure on the next run before acting on it."
        )
    parts.append(f"Article: {_one_line(article_path)}")
    return " ".join(parts) + "\n"


def _render_issue(issue: IssueFile, body: str) -> str:
    fields: dict[str, object] = {
        "id": issue.id,
        "title": issue.title,
        "status": issue.status,
        "severity": issue.severity,
        "category": issue.category,
        "detected_by": issue.detected_by,
        "detected_at": issue.detected_at,
        "resolved_at": issue.resolved_at,
        "affected_skills": list(issue.affected_skills),
        "root_cause": issue.root_cause,
    }
    if issue.flaky:
        fields["flaky"] = True
    return _render_frontmatter(fields) + "\n" + body


def _new_issue(number: int, req: IssueRequest, now: datetime) -> IssueFile:
    iid = f"ISS-{number:03d}"
    return IssueFile(
        id=iid,
        path=f"{ISSUES_DIR}/{iid}.md",
        title=_title(req.skill, req.root_cause),
        status="open",
        severity=_severity(req),
        category=_category(req.root_cause),
        detected_by=DETECTOR,
        detected_at=_utc(now),
        resolved_at=None,
        affected_skills=(req.skill,),
        root_cause=req.root_cause,
        flaky=req.flaky,
    )


def _resolve_text(text: str, when: str) -> str | None:
    """`text` with only its frontmatter `status:` and `resolved_at:` lines rewritten (or added)."""
    lines = _lines(text)
    bounds = _frontmatter_bounds(lines)
    if bounds is None:
        return None
    start, end = bounds
    chunks: list[tuple[str, int, int]] = []  # key, first line, end (exclusive)
    i = start
    while i < end:
        m = _KEY_LINE.match(_bare(lines[i]))
        if not m:
            i += 1
            continue
        j = i + 1
        while j < end and lines[j][:1] in (" ", "\t", "-") and _bare(lines[j]).strip():
            j += 1
        chunks.append((m.group(1), i, j))
        i = j
    status_line = next((lines[a] for k, a, _ in chunks if k == "status"), lines[0])
    eol = "\r\n" if status_line.endswith("\r\n") else "\n"
    new = {"status": f"status: resolved{eol}", "resolved_at": f'resolved_at: "{when}"{eol}'}
    present = {k for k, _, _ in chunks}
    out: list[str] = list(lines[:start])
    pos = start
    inserts: dict[str, str] = {}
    if "resolved_at" not in present:
        anchor = "detected_at" if "detected_at" in present else "status"
        inserts[anchor] = new["resolved_at"]
    for key, a, b in chunks:
        out.extend(lines[pos:a])
        out.append(new[key] if key in new else "".join(lines[a:b]))
        if key in inserts:
            out.append(inserts.pop(key))
        pos = b
    out.extend(lines[pos:end])
    if "status" not in present:
        out.append(new["status"])
    out.extend(inserts.values())
    out.extend(lines[end:])
    return "".join(out)


# ---------------------------------------------------------------------------------------------
# INDEX.md


@dataclass(frozen=True)
class _Table:
    header: int  # line index of the header row
    rows_start: int  # first line after the separator
    rows_end: int  # first line after the last row
    columns: tuple[str, ...]


_CELL_SPLIT = re.compile(r"(?<!\\)\|")


def _cells(line: str) -> list[str]:
    cells = _CELL_SPLIT.split(_bare(line).strip())
    if cells and not cells[0].strip():
        cells = cells[1:]
    if cells and not cells[-1].strip():
        cells = cells[:-1]
    return [c.strip() for c in cells]


def _column_key(name: str) -> str | None:
    return _COLUMNS.get(re.sub(r"[^a-z]+", " ", name.lower()).strip())


def _escape(cell: str) -> str:
    return _one_line(cell).replace("|", "\\|") or DASH


def _row_number(line: str) -> int | None:
    """The ISS number in a row's first cell (the row is split no further than that cell)."""
    cells = _CELL_SPLIT.split(_bare(line).strip(), maxsplit=2)
    first = cells[1] if len(cells) > 1 and not cells[0].strip() else cells[0]
    m = _ID_RE.search(first)
    return int(m.group(1)) if m else None


def _is_row_of(line: str, number: int) -> bool:
    """`_row_number(line) == number`, with a substring test first: closing a hundred issues looks
    at every row of a long table a hundred times."""
    return str(number) in line and _row_number(line) == number


class _Index:
    """INDEX.md as lines, edited in place: only rows (and missing sections) it adds or moves change."""

    def __init__(self, text: str | None) -> None:
        self.original = text
        self.lines = _lines(text) if text is not None else []
        self._sections: dict[str, tuple[int, int] | None] = {}  # kept in step with every edit below
        self._tables_of: dict[str, _Table | None] = {}  # the table of each section, likewise
        first = self.lines[0] if self.lines else ""
        self.eol = "\r\n" if first.endswith("\r\n") else "\n"
        rows = [ln for t in self._tables() for ln in self.lines[t.rows_start : t.rows_end]]
        firsts = [c[0] for c in (_cells(r) for r in rows) if c]
        self.linked = not firsts or any(c.startswith("[") for c in firsts)
        self._mentioned = {
            int(m.group(1)) for m in _ID_RE.finditer(text or "")
        }  # rows only move or get added

    @property
    def text(self) -> str:
        return "".join(self.lines)

    @property
    def changed(self) -> bool:
        return self.text != (self.original or "")

    def mentions(self, number: int) -> bool:
        return number in self._mentioned

    # -- structure

    def _section(self, name: str) -> tuple[int, int] | None:
        """(heading line, first line after the section), found once and then moved with each edit:
        filing 200 issues must not scan INDEX.md 600 times."""
        if name not in self._sections:
            self._sections[name] = self._find_section(name)
        return self._sections[name]

    def _table(self, name: str) -> _Table | None:
        """The first table of a section, found once and then moved with each edit."""
        if name not in self._tables_of:
            sec = self._section(name)
            self._tables_of[name] = self._table_in(sec[0] + 1, sec[1]) if sec else None
        return self._tables_of[name]

    def _forget(self) -> None:
        """The layout changed (a section or a table was added): find everything again."""
        self._sections.clear()
        self._tables_of.clear()

    def _shift(self, at: int, count: int) -> None:
        """Lines were inserted (count > 0) or deleted (count < 0) at index `at`; rows are only
        ever inserted at a table's end or deleted from inside it."""
        for name, sec in self._sections.items():
            if sec is None:
                continue
            start, end = sec
            if start >= at:
                self._sections[name] = (start + count, end + count)
            elif end >= at:  # inside the section, or at its end (before the next heading)
                self._sections[name] = (start, end + count)
        for name, table in self._tables_of.items():
            if table is None:
                continue
            if table.header >= at:
                self._tables_of[name] = _Table(
                    table.header + count,
                    table.rows_start + count,
                    table.rows_end + count,
                    table.columns,
                )
            elif table.rows_end >= at:  # a row added at its end, or one deleted from it
                self._tables_of[name] = _Table(
                    table.header, table.rows_start, table.rows_end + count, table.columns
                )

    def _find_section(self, name: str) -> tuple[int, int] | None:
        for i, line in enumerate(self.lines):
            m = _SECTION_RE.match(_bare(line))
            if m and m.group(1).lower() == name:
                end = i + 1
                while end < len(self.lines) and not _ANY_HEADING_RE.match(self.lines[end]):
                    end += 1
                return i, end
        return None

    def _table_in(self, start: int, end: int) -> _Table | None:
        for i in range(start, end - 1):
            separator = _SEPARATOR_RE.fullmatch(_bare(self.lines[i + 1]))
            if self.lines[i].lstrip().startswith("|") and separator:
                j = i + 2
                while j < end and self.lines[j].lstrip().startswith("|"):
                    j += 1
                return _Table(i, i + 2, j, tuple(_cells(self.lines[i])))
        return None

    def _tables(self) -> list[_Table]:
        found = []
        for name in ("open", "resolved"):
            table = self._table(name)
            if table:
                found.append(table)
        return found

    def _table_lines(self, name: str) -> list[str]:
        cols = _CANONICAL[name]
        return [
            "| " + " | ".join(cols) + " |" + self.eol,
            "|" + "|".join("-" * (len(c) + 2) for c in cols) + "|" + self.eol,
        ]

    def _insert(self, at: int, new: list[str]) -> None:
        """Insert lines before line `at`, first ending the line above if it lacks a newline."""
        if at > 0 and not self.lines[at - 1].endswith("\n"):
            self.lines[at - 1] += self.eol
        self.lines[at:at] = new
        self._shift(at, len(new))

    def _blank_before(self, at: int) -> list[str]:
        return [] if at == 0 or not self.lines[at - 1].strip() else [self.eol]

    def _section_lines(self, name: str) -> list[str]:
        return [_HEADINGS[name] + self.eol, self.eol, *self._table_lines(name)]

    def _ensure_sections(self) -> None:
        """Add a missing `## Open` / `## Resolved` section in the canonical layout."""
        has_open, has_resolved = self._section("open"), self._section("resolved")
        if has_open and has_resolved:
            return
        if not self.lines:
            self.lines = ["# Issues" + self.eol]
            self._forget()
        if has_resolved:  # Open goes just before Resolved
            at = has_resolved[0]
            self._insert(at, [*self._blank_before(at), *self._section_lines("open"), self.eol])
        elif has_open:  # Resolved goes right after Open
            at = has_open[1]
            tail = [self.eol] if at < len(self.lines) else []
            self._insert(at, [*self._blank_before(at), *self._section_lines("resolved"), *tail])
        else:
            at = len(self.lines)
            opened = [*self._blank_before(at), *self._section_lines("open")]
            self._insert(at, [*opened, self.eol, *self._section_lines("resolved")])
        self._forget()  # new sections: find them again

    def _ensure_table(self, name: str) -> _Table:
        self._ensure_sections()
        sec = self._section(name)
        assert sec is not None
        table = self._table(name)
        if table:
            return table
        head, end = sec
        content = next((i for i in range(head + 1, end) if self.lines[i].strip()), None)
        placeholder = content is not None and _PLACEHOLDER_RE.fullmatch(
            self.lines[content].strip().strip("_*()[]-.:").strip()
        )
        if content is not None and placeholder:
            self.lines[content : content + 1] = self._table_lines(name)
        else:
            at = head + 1
            if at < len(self.lines) and not self.lines[at].strip():
                at += 1
            tail = [self.eol] if at < len(self.lines) and self.lines[at].strip() else []
            self._insert(at, [*self._blank_before(at), *self._table_lines(name), *tail])
        self._forget()  # a new table: find it
        table = self._table(name)
        assert table is not None
        return table

    def _insert_row(self, table: _Table, row: str) -> None:
        eol = "\r\n" if self.lines[table.header].endswith("\r\n") else "\n"
        self._insert(table.rows_end, [row + eol])

    # -- rows

    def _id_cell(self, issue: IssueFile) -> str:
        return f"[{issue.id}]({issue.id}.md)" if self.linked else issue.id

    def _row(self, columns: tuple[str, ...], values: dict[str, str], kept: dict[str, str]) -> str:
        cells = []
        for col in columns:
            key = _column_key(col)
            if key in kept:
                cells.append(kept[key])
            elif key is None:
                cells.append(DASH)
            else:
                cells.append(_escape(values.get(key, "")))
        return "| " + " | ".join(cells) + " |"

    @staticmethod
    def _values(issue: IssueFile, *, status: str, resolved: str) -> dict[str, str]:
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

    def add_open(self, issue: IssueFile) -> None:
        table = self._ensure_table("open")
        values = self._values(issue, status="open", resolved=DASH)
        self._insert_row(table, self._row(table.columns, values, {"id": self._id_cell(issue)}))
        self._mentioned.update(int(m.group(1)) for m in _ID_RE.finditer(self.lines[table.rows_end]))

    def open_row(self, number: int) -> bool:
        table = self._table("open")
        return table is not None and any(
            _is_row_of(ln, number) for ln in self.lines[table.rows_start : table.rows_end]
        )

    def close(self, issue: IssueFile, resolved_on: str) -> None:
        """Move the issue's Open row (if any) to the end of Resolved, rebuilt to its columns."""
        kept: dict[str, str] = {"id": self._id_cell(issue)}
        table = self._table("open")
        if table:
            for j in range(table.rows_end - 1, table.rows_start - 1, -1):
                if not _is_row_of(self.lines[j], issue.number):
                    continue
                cells = _cells(self.lines[j])
                if len(cells) == len(table.columns):  # else an unescaped `|` split a cell
                    for col, cell in zip(table.columns, cells, strict=True):
                        key = _column_key(col)
                        if key in _KEPT_ON_CLOSE:
                            kept[key] = cell
                else:
                    kept["id"] = cells[0]
                del self.lines[j]
                self._shift(j, -1)
        resolved = self._ensure_table("resolved")
        listed = self.lines[resolved.rows_start : resolved.rows_end]
        if any(_is_row_of(ln, issue.number) for ln in listed):
            return
        values = self._values(issue, status="resolved", resolved=resolved_on)
        self._insert_row(resolved, self._row(resolved.columns, values, kept))
        self._mentioned.update(
            int(m.group(1)) for m in _ID_RE.finditer(self.lines[resolved.rows_end])
        )


def _read_index(path: Path, root: Path) -> tuple[str | None, str | None]:
    """(text or None when missing, a warning when it exists but cannot be used)."""
    rel = _rel(path, root)
    if not path.exists() and not path.is_symlink():
        return None, None
    if not fsio.inside(root, path) or not path.is_file():
        return None, f"{rel}: not a regular file inside the root; left untouched"
    try:
        return path.read_bytes().decode("utf-8"), None
    except UnicodeDecodeError:
        return None, f"{rel}: not UTF-8 text; left untouched"
    except OSError as exc:
        return None, f"{rel}: cannot be read ({exc.strerror}); left untouched"


# ---------------------------------------------------------------------------------------------
# The stage


_PLAIN_NAME = re.compile(r"[\w-]+")


class _Naming:
    """Which open issue names a skill first (lowest number), built once: a per-skill scan of
    every issue made keeping issues quadratic in the number of failing skills."""

    def __init__(self, issues: Iterable[IssueFile]):
        self._issues: list[IssueFile] = []
        self._first: dict[str, IssueFile] = {}
        for issue in sorted(issues, key=lambda i: i.number):
            self.add(issue)

    def add(self, issue: IssueFile) -> None:
        """Index one more issue (a newly filed one has the highest number so far)."""
        self._issues.append(issue)
        # A plain skill name is named by a title exactly when it is one of the title's maximal
        # runs of word characters and hyphens (see _names_in).
        for name in (*issue.affected_skills, *_PLAIN_NAME.findall(issue.title)):
            current = self._first.get(name)
            if current is None or issue.number < current.number:
                self._first[name] = issue

    def first(self, skill: str) -> IssueFile | None:
        if _PLAIN_NAME.fullmatch(skill):
            return self._first.get(skill)
        return next(
            (i for i in sorted(self._issues, key=lambda i: i.number) if i.names(skill)), None
        )


def _ours(issue: IssueFile) -> bool:
    return issue.detected_by.lower() == DETECTOR


def keep_issues(
    root: Path,
    to_file: list[IssueRequest],
    to_close: list[str],
    *,
    now: datetime,
    today: date,
    article_path: str,
    dry_run: bool = False,
    skills: Collection[str] = (),
) -> IssueOutcome:
    """File, skip or close issues under `root/memory/issues` and keep INDEX.md in step.

    Files one ISS-NNN.md per request unless an open issue (any detector) already names the skill;
    resolves open skill-evals issues of the `to_close` skills; moves their INDEX.md rows. Issue
    files are written first (new ones exclusively, never overwriting), INDEX.md last, so a rerun
    after a crash repairs the index. `skills` adds names to look up in `open_by_skill`.
    With `dry_run` nothing is written and the outcome shows what would happen.
    """
    issues_dir = fsio.confine(root, ISSUES_DIR, what="issues folder")
    loaded, warnings, taken = _load(issues_dir, root)
    index_path = issues_dir / INDEX_NAME
    index_text, index_problem = _read_index(index_path, root)
    if index_problem:
        warnings.append(index_problem)
    index = None if index_problem else _Index(index_text)
    index_rel = _rel(index_path, root)

    in_index = {int(m.group(1)) for m in _ID_RE.finditer(index_text or "")}
    next_number = max(taken | in_index, default=0) + 1
    open_issues = [d.issue for d in loaded if d.issue.is_open]
    naming = _Naming(open_issues)
    filed: list[IssueRef] = []
    existing: dict[str, str] = {}

    for req in to_file:
        hit = naming.first(req.skill)
        if hit is not None:
            existing.setdefault(req.skill, hit.id)
            if index is not None and _ours(hit) and not index.mentions(hit.number):
                index.add_open(hit)  # filed by a run that stopped before its INDEX.md write
                warnings.append(f"{index_rel}: open {hit.id} was not listed; added to Open")
            continue
        number = next_number
        for _ in range(_MAX_TRIES):
            issue = _new_issue(number, req, now)
            text = _render_issue(issue, _body(req, today, article_path))
            target = issues_dir / f"{issue.id}.md"
            if dry_run:
                free = not (target.exists() or target.is_symlink())
            else:
                free = fsio.create_exclusive(target, text)
            if free:
                break
            number += 1
        else:
            warnings.append(
                f"{ISSUES_DIR}: no free number in {_MAX_TRIES} tries; {req.skill} not filed"
            )
            continue
        next_number = number + 1
        open_issues.append(issue)
        naming.add(issue)
        filed.append(IssueRef(issue.id, req.skill, issue.path))
        if index is not None:
            index.add_open(issue)

    closed: list[IssueRef] = []
    rewrites: list[tuple[Path, str]] = []
    closed_ids: set[str] = set()
    ours_by_skill: dict[str, list[_Loaded]] = {}
    for doc in loaded:
        if _ours(doc.issue):
            for named in dict.fromkeys(doc.issue.affected_skills):
                ours_by_skill.setdefault(named, []).append(doc)
    for skill in dict.fromkeys(to_close):
        for doc in ours_by_skill.get(skill, ()):
            issue = doc.issue
            if issue.is_open and issue.path not in closed_ids:
                new_text = _resolve_text(doc.text, _utc(now))
                if new_text is None:  # pragma: no cover - _load only keeps files with frontmatter
                    continue
                rewrites.append((doc.file, new_text))
                closed_ids.add(issue.path)
                closed.append(IssueRef(issue.id, skill, issue.path))
                if index is not None:
                    index.close(issue, today.isoformat())
            elif (
                not issue.is_open
                and index is not None
                and (index.open_row(issue.number) or not index.mentions(issue.number))
            ):
                # Resolved by a run that stopped before its INDEX.md write.
                index.close(issue, (issue.resolved_at or today.isoformat())[:10])
                warnings.append(
                    f"{index_rel}: resolved {issue.id} was listed as open; moved to Resolved"
                )

    if not dry_run:
        for path, text in rewrites:
            fsio.atomic_write(path, text.encode("utf-8"))  # bytes: keep the file's own last byte
        if index is not None and index.changed:
            fsio.atomic_write(index_path, index.text.encode("utf-8"))

    still_open = [i for i in open_issues if i.path not in closed_ids]
    candidates = {s for i in still_open for s in i.affected_skills}
    candidates |= {r.skill for r in to_file} | set(to_close) | set(skills)
    open_by_skill: dict[str, str] = {}
    still_naming = _Naming(still_open)
    for skill in sorted(candidates):
        hit = still_naming.first(skill)
        if hit is not None:
            open_by_skill[skill] = hit.id
    return IssueOutcome(
        filed=tuple(filed),
        closed=tuple(closed),
        existing=dict(sorted(existing.items())),
        open_by_skill=open_by_skill,
        warnings=tuple(warnings),
        known=tuple(d.issue for d in loaded),
    )

"""Read skill-evals articles back: this tool's own and the old LLM-written ones, quirks and all."""

from __future__ import annotations

import bisect
import dataclasses
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from markdown_it import MarkdownIt
from markdown_it.token import Token

from aeon_evals.articles.body import BODY_MD as BODY_MD
from aeon_evals.articles.body import body_html as body_html
from aeon_evals.articles.cap import capped_tables
from aeon_evals.errors import EvalsError
from aeon_evals.fs.confine import read_confined, rel_path
from aeon_evals.model import ArticleRow, Coverage, FailingSince, ParsedArticle, Status
from aeon_evals.text import mdspan
from aeon_evals.text.mdtable import escape_cell
from aeon_evals.text.numbers import bounded_float, digits_int, iso_day, shown_cell
from aeon_evals.text.numbers import parse_words as parse_words

ARTICLE_RE = re.compile(r"^skill-evals-(\d{4}-\d{2}-\d{2})\.md$")
_STATUS_RE = re.compile(r"\b(NO_OUTPUT|QUALITY_DEGRADED|FAIL|STALE|WARN|ERROR|NOT_RUN|PASS)\b")
# Old articles sometimes put a diff label where the status belongs.
_LABEL_AS_STATUS = {
    "NEW_QUALITY_DEGRADED": Status.QUALITY_DEGRADED,
    "NEW_FAIL": Status.FAIL,
    "STILL_FAIL": Status.FAIL,
    "FIXED": Status.PASS,
    "NEW_PASS": Status.PASS,
}
_ISSUE_RE = re.compile(r"\bISS-\d{3,}\b")
_DATE_RE = re.compile(r"\b(\d{4}-\d{2}-\d{2})\b")
_PUNCT = set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")

# Only block structure and raw cell text are needed: skipping the inline pass halves the cost.
# Raw HTML is off, as in BODY_MD, so both see the same blocks and the dashboard can take an
# article's rows from the tokens it renders (one parse, not two).
_md = MarkdownIt("commonmark", {"html": False}).enable("table").disable("inline")


class ArticleParseError(EvalsError):
    """An article exists but holds no readable Full Results table."""


def cell_as_parsed(text: str) -> str:
    """What `parse_article` reads back from a cell this tool wrote as `escape_cell(text)`: the
    table rule of markdown-it drops the backslash before an escaped pipe and trims the cell."""
    return unescape_cell(escape_cell(text).replace("\\|", "|").strip())


def unescape_cell(text: str) -> str:
    """CommonMark backslash escapes (markdown-it has already turned `\\|` into `|`), outside code
    spans only: inside one a backslash is text (mdtable.escape_cell leaves it single there)."""
    if "\\" not in text:
        return text
    if "`" in text:
        return "".join(
            piece if code else _unescape(piece) for code, piece in mdspan.split(text, escapes=True)
        )
    return _unescape(text)


def _unescape(text: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text) and text[i + 1] in _PUNCT:
            out.append(text[i + 1])
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def parse_status(cell: str) -> Status | None:
    """The status a cell states, tolerating `PASS→STALE`, `FAIL (missing_pattern)`, `NEW_FAIL`."""
    cell = cell.strip()
    if "→" in cell:
        cell = cell.rsplit("→", 1)[1]
    match = _STATUS_RE.search(cell)
    if match:
        return Status(match.group(1))
    for label, status in _LABEL_AS_STATUS.items():
        if label in cell:
            return status
    return None


@dataclass
class _Table:
    header: list[str]
    rows: list[list[str]]

    def column(self, *names: str) -> int | None:
        wanted = [n.lower() for n in names]
        for i, head in enumerate(self.header):
            if head.strip().lower() in wanted:
                return i
        return None


def _sections(
    tokens: Sequence[Token],
) -> tuple[list[str], dict[str, list[_Table]], dict[str, list[str]]]:
    """Paragraph lines before the first h2, tables and list items per h2 heading."""
    preamble: list[str] = []
    tables: dict[str, list[_Table]] = {}
    items: dict[str, list[str]] = {}
    heading: str | None = None
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok.type == "heading_open" and tok.tag == "h2":
            heading = tokens[i + 1].content.strip().lower()
            i += 3
            continue
        if tok.type == "table_open":
            table = _Table([], [])
            row: list[str] = []
            in_head = False
            while tokens[i].type != "table_close":
                t = tokens[i]
                if t.type == "thead_open":
                    in_head = True
                elif t.type == "thead_close":
                    in_head = False
                elif t.type == "tr_open":
                    row = []
                elif t.type == "inline":
                    row.append(unescape_cell(t.content.strip()))
                elif t.type == "tr_close":
                    if in_head:
                        table.header = row
                    else:
                        table.rows.append(row)
                i += 1
            tables.setdefault(heading or "", []).append(table)
        elif tok.type == "inline":
            if heading is None:
                preamble.extend(tok.content.splitlines())
            elif tokens[i - 1].type == "paragraph_open" and tok.level >= 2:
                items.setdefault(heading, []).append(tok.content)
        i += 1
    return preamble, tables, items


def _first_table(tables: dict[str, list[_Table]], prefix: str) -> _Table | None:
    for name, found in tables.items():
        if name.startswith(prefix) and found:
            return found[0]
    return None


def _cell(row: list[str], index: int | None) -> str:
    return row[index] if index is not None and index < len(row) else ""


def _result_rows(full: _Table, unread: list[str]) -> dict[str, ArticleRow]:
    """The rows of a Full Results (or Inferred contracts) table, by skill; a Words cell whose
    number is too large to be one is added to `unread`."""
    col = {
        "skill": full.column("skill"),
        "status": full.column("status"),
        "diff": full.column("diff"),
        "cause": full.column("root cause", "root_cause", "cause"),
        "quality": full.column("quality"),
        "words": full.column("words"),
        "output": full.column("last output", "output"),
        "flags": full.column("notes", "flags"),
    }
    rows: dict[str, ArticleRow] = {}
    for raw in full.rows:
        skill = _cell(raw, col["skill"]).strip().strip("`*")
        status = parse_status(_cell(raw, col["status"]))
        if not skill or status is None:
            continue
        output = _cell(raw, col["output"]).strip().strip("`")
        flags = _cell(raw, col["flags"]).strip()
        words = parse_words(cell := _cell(raw, col["words"]))
        if words is None and any(c.isdigit() for c in cell):
            unread.append(f"{skill}'s Words {shown_cell(cell)} read as not a number")
        rows[skill] = ArticleRow(
            skill=skill,
            status=status,
            diff=_cell(raw, col["diff"]).strip(),
            root_cause=_cell(raw, col["cause"]).strip() or "—",
            quality=_cell(raw, col["quality"]).strip() or "unknown",
            words=words,
            last_output=None if output in ("", "—", "-") else output,
            flags=tuple(f.strip() for f in flags.split(";") if f.strip() and flags != "—"),
        )
    return rows


def parse_article(
    text: str,
    *,
    path: str,
    day: date,
    tokens: Sequence[Token] | None = None,
    full_rows: list[list[str]] | None = None,
    inferred_full_rows: list[list[str]] | None = None,
) -> ParsedArticle:
    """Parse one article; raise ArticleParseError when it has no Full Results table.

    `tokens`: the article already parsed by a markdown-it with the same block rules (HTML off,
    tables on), such as the dashboard's renderer; the inline pass may have run or not.
    `full_rows`: the Full Results rows as their cells would be parsed, for an article whose
    text holds that table's header only (render.parsed_article: the run that writes an article
    knows its cells, and a 1,000-row table is most of the parsing)."""
    if "\x00" in text:
        raise ArticleParseError("binary content, not a skill-evals article", path=path)
    preamble, tables, items = _sections(_md.parse(text) if tokens is None else tokens)
    full = _first_table(tables, "full results")
    if full is None or full.column("skill") is None or full.column("status") is None:
        raise ArticleParseError("no Full Results table with Skill and Status columns", path=path)
    if full_rows is not None:
        full = _Table(full.header, full_rows)

    unread: list[str] = []  # cells holding a number too large to be one
    rows = _result_rows(full, unread)
    inferred = _first_table(tables, "inferred contracts")
    inferred_rows: dict[str, ArticleRow] = {}
    if inferred is not None and inferred.column("skill") is not None:
        inferred_rows = _result_rows(
            _Table(inferred.header, inferred_full_rows)
            if inferred_full_rows is not None
            else inferred,
            unread,
        )
    flags_col = full.column("notes", "flags")

    verdict = coverage = pct = None
    diff_summary = ""
    for line in preamble:
        if line.startswith("**Verdict:**"):
            found = re.search(r"SKILL_EVALS_[A-Z_]+", line)
            verdict = found.group(0) if found else None
        elif line.startswith("**Coverage:**"):
            ratio = re.search(r"(\d+)\s*/\s*(\d+)", line)
            if ratio:
                covered, enabled = digits_int(ratio.group(1)), digits_int(ratio.group(2))
                if covered is None or enabled is None:
                    unread.append(f"Coverage {shown_cell(ratio.group(0))} read as not a number")
                else:
                    coverage = Coverage(covered, enabled)
            pct_match = re.search(r"\((\d+(?:\.\d+)?)\s*%\)", line)
            if pct_match:
                pct = bounded_float(pct_match.group(1))
            elif coverage is not None:
                pct = coverage.pct
        elif line.startswith("**Diff:**"):
            diff_summary = line.removeprefix("**Diff:**").strip()

    failing_since: dict[str, FailingSince] = {}
    issues: dict[str, str] = {}
    causes: dict[str, str] = {}
    for prefix in ("regressions", "still failing", "counted apart"):
        table = _first_table(tables, prefix)
        if table is None:
            continue
        s_col, i_col, f_col, c_col = (
            table.column("skill"),
            table.column("issue"),
            table.column("failing since"),
            table.column("root cause"),
        )
        for raw in table.rows:
            skill = _cell(raw, s_col).strip().strip("`*")
            if cause := _cell(raw, c_col).strip():
                causes[skill] = cause
            issue = _ISSUE_RE.search(_cell(raw, i_col))
            if issue:
                issues[skill] = issue.group(0)
            # this tool's Regressions table has the column too (a skill gone quiet fails since
            # its last output); older ones did not: failing since the article's day
            since = _DATE_RE.search(_cell(raw, f_col))
            since_day = (iso_day(since.group(1)) if since else None) or day
            failing_since[skill] = FailingSince(since_day, issue.group(0) if issue else None)
    was: dict[str, str] = {}
    recovered = _first_table(tables, "recovered")
    if recovered is not None:
        s_col, w_col = recovered.column("skill"), recovered.column("was")
        for raw in recovered.rows:
            if cell := _cell(raw, w_col).strip():
                was[_cell(raw, s_col).strip().strip("`*")] = cell

    return ParsedArticle(
        path=path,
        day=day,
        verdict=verdict,
        coverage=coverage,
        coverage_pct=pct,
        rows=rows,
        failing_since=failing_since,
        issues=issues,
        action_queue=tuple(items.get("action queue", ())),
        own=flags_col is not None and full.header[flags_col].strip().lower() == "notes",
        diff_summary=diff_summary,
        inferred_rows=inferred_rows,
        causes=causes,
        was=was,
        unread=tuple(unread),
    )


def article_day(path: Path) -> date | None:
    """The date in a `skill-evals-YYYY-MM-DD.md` name, or None for any other file."""
    match = ARTICLE_RE.match(path.name)
    if not match:
        return None
    try:
        return date.fromisoformat(match.group(1))
    except ValueError:
        return None


PREFIX = "skill-evals-"


def article_names(
    articles_dir: Path, listing: Sequence[str] | None = None
) -> list[tuple[date, Path]]:
    """(date, path) of every name that is a dated article's, oldest first; what each one is (a
    file, a folder …) is not looked at."""
    if listing is not None:
        start = bisect.bisect_left(listing, PREFIX)
        end = bisect.bisect_left(listing, PREFIX[:-1] + chr(ord(PREFIX[-1]) + 1), start)
        names: Sequence[str] = listing[start:end]
    else:
        try:
            with os.scandir(articles_dir) as entries:
                names = [e.name for e in entries if e.name.startswith(PREFIX)]
        except OSError:
            return []
    found = [(d, p) for p in map(articles_dir.joinpath, names) if (d := article_day(p)) is not None]
    return sorted(found)


def read_article(path: Path, *, root: Path) -> ParsedArticle:
    """Read and parse one article file, every time (store.ArticleStore.read reads each once);
    raise ArticleParseError, OSError or UnicodeError when it is no readable article."""
    return parse_raw(read_article_bytes(path, root), path, root=root)[0]


ARTICLE_CAP = 8 << 20  # a 1,000-skill article is about 0.3 MB; 50 MB would take 45 s to parse


def read_article_bytes(path: Path, root: Path) -> bytes:
    """The bytes of an article file under `root`: confined to the root (PathOutsideRoot for a
    symlink leading out), a regular file (ReadRefused), at most ARTICLE_CAP bytes (ReadRefused
    with its size). OS errors pass through."""
    try:
        rel = path.relative_to(root).as_posix()
    except ValueError:
        rel = None
    if rel is None:
        return path.read_bytes()
    return read_confined(root, rel, cap=ARTICLE_CAP)


def stands_for(cached: ParsedArticle, path: Path, root: Path) -> bool:
    """A cached parse stands for the article file at `path`: the same bytes under another name
    were parsed with another date (failing-since defaults to the article's own day)."""
    return cached.day == article_day(path) and cached.path == rel_path(path, root)


def parse_raw(
    raw: bytes, path: Path, *, root: Path, md: MarkdownIt | None = None
) -> tuple[ParsedArticle, list[Token]]:
    """Parse the bytes of the article file at `path` (with `md` when given, so its tokens can be
    rendered too); raise ArticleParseError when the file is no readable article."""
    day = article_day(path)
    rel = rel_path(path, root)
    if day is None:
        raise ArticleParseError("file name has no skill-evals-YYYY-MM-DD date", path=rel)
    if not raw.strip():
        raise ArticleParseError("empty file", path=rel)
    text, cut = capped_tables(raw.decode("utf-8", errors="replace"))
    tokens = (md or _md).parse(text)
    parsed = parse_article(text, path=rel, day=day, tokens=tokens)
    if cut:
        parsed = dataclasses.replace(parsed, unread=(*parsed.unread, cut))
    return parsed, tokens

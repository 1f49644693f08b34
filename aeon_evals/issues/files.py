"""memory/issues/ISS-NNN.md files: read tolerantly (the real, messy ones), written strictly."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from aeon_evals.fs.confine import inside, rel_path
from aeon_evals.issues import frontmatter as fm
from aeon_evals.model import DiffLabel, Status
from aeon_evals.text.numbers import shown_cell

ISSUES_DIR = "memory/issues"
DETECTOR = "skill-evals"
MAX_FILE_BYTES = 1024 * 1024  # an issue file is a few KiB; a bigger one is not read
MAX_FRONTMATTER_BYTES = 64 * 1024

_NAME_RE = re.compile(r"ISS-(\d+)\.md")  # fullmatch: only these names are issue files
# An id of more than 30 digits is no issue's (int() of 5,000 digits raises ValueError).
ID_RE = re.compile(r"ISS-(\d{1,30})(?!\d)")
_TITLE_MAX = 120

_CATEGORIES = {
    "missing_pattern": "prompt-bug",
    "forbidden_pattern": "prompt-bug",
    "missing_heading": "prompt-bug",
    "numeric_oob": "quality-regression",
    "word_count": "quality-regression",
    "empty_file": "quality-regression",
    "quality_score": "quality-regression",
    "stale_file": "missing-secret-or-cron",
    "no_file_match": "missing-secret-or-cron",
    "run_error": "api-failure",  # the run reports an error (issue #32)
    "never_does_its_job": "missing-secret-or-cron",  # a permanent no-op: config, key, data
}


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
        m = ID_RE.search(self.id)
        return int(m.group(1)) if m else 0

    @property
    def ours(self) -> bool:
        """Filed by this tool (`detected_by: skill-evals`)."""
        return self.detected_by.lower() == DETECTOR

    def names(self, skill: str) -> bool:
        """True when this issue names `skill`: in affected_skills or as a word of the title."""
        return bool(skill) and (skill in self.affected_skills or names_in(self.title, skill))

    def covers(self, skill: str) -> bool:
        """True when this open issue stands for `skill`'s failure, so that no other is filed: it is
        this tool's own and names the skill, or it is about that one skill alone (its only
        affected skill, or no affected skills and a title naming it). A broad issue of another
        detector (skill-health's "53 skills failed") names the skill but does not cover it."""
        if not self.names(skill):
            return False
        return self.ours or set(self.affected_skills) <= {skill}


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
    # what the tool knows to do about it (its Action Queue step, the section patch …)
    fixes: tuple[str, ...] = ()
    # a fleet finding (issue #32): the skills one cause explains; `skill` and `root_cause` are
    # then `fleet:<kind>:<key>`, and the title is the finding's words
    affected: tuple[str, ...] = ()
    title: str = ""
    category: str = ""

    @property
    def fleet(self) -> bool:
        return bool(self.affected)


FLEET = "fleet:"  # the root cause of a fleet finding's issue starts so


def names_in(title: str, skill: str) -> bool:
    """Whether `title` holds `skill` as a whole word, hyphens counting as word characters
    (token-alert is not in token-alert-v2)."""
    return re.search(rf"(?<![\w-]){re.escape(skill)}(?![\w-])", title) is not None


# ---------------------------------------------------------------------------------------------
# Reading


@dataclass(frozen=True)
class Loaded:
    """A readable issue file: what it says, where it is, its text, and what was wrong with it."""

    issue: IssueFile
    file: Path
    text: str
    warnings: tuple[str, ...] = ()


def scan(issues_dir: Path) -> list[tuple[int, Path]]:
    """Every name in `issues_dir` that looks like ISS-<digits>.md, whatever it is, by number."""
    if not issues_dir.is_dir():
        return []
    found = []
    for entry in issues_dir.iterdir():
        m = _NAME_RE.fullmatch(entry.name)
        if m:
            found.append((int(m.group(1)), entry))
    return sorted(found, key=lambda t: (t[0], t[1].name))


rel = rel_path  # the one rule for naming a file relative to the root (fsio)


# Each issue file read by this process, by where it is and its bytes: the run reads memory/issues
# before filing and closing, and its dashboard reads it again; a file whose bytes did not change
# is not decoded and parsed twice (Loaded is frozen). Emptied past _READ_MAX files.
_READ: dict[tuple[Path, int, str, bytes], Loaded] = {}
_READ_MAX = 10_000


def load_one(path: Path, number: int, root: Path) -> Loaded | str:
    """The issue file at `path`, or the one-line reason it is left untouched."""
    name = rel(path, root)
    if path.is_symlink() and not inside(root, path):
        return f"{name}: leads outside the root; left untouched"
    try:
        size: int | None = path.stat().st_size
    except OSError:
        size = None
    try:
        with path.open("rb") as fh:
            # a buffer the size of the file, not of the cap; a file that grew is read to the cap
            first = min(MAX_FILE_BYTES if size is None else size, MAX_FILE_BYTES) + 1
            raw = fh.read(first)
            if len(raw) == first <= MAX_FILE_BYTES:
                raw += fh.read(MAX_FILE_BYTES + 1 - first)
    except OSError as exc:
        return f"{name}: cannot be read ({exc.strerror}); left untouched"
    if len(raw) > MAX_FILE_BYTES:
        return f"{name}: larger than {MAX_FILE_BYTES // 1024} KiB; left untouched"
    key = (path, number, name, raw)
    seen = _READ.get(key)
    if seen is not None:  # the same bytes read earlier in this process (the run, then its site)
        return seen
    loaded = _parse(path, number, name, raw)
    if isinstance(loaded, Loaded):
        if len(_READ) >= _READ_MAX:
            _READ.clear()
        _READ[key] = loaded
    return loaded


def _parse(path: Path, number: int, name: str, raw: bytes) -> Loaded | str:
    """load_one's reading of the bytes `raw` of the issue file at `path`."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return f"{name}: not UTF-8 text; left untouched"
    if "\x00" in text:
        return f"{name}: binary content; left untouched"
    lines = fm.lines_of(text)
    found = fm.bounds(lines)
    if found is None:
        return f"{name}: no YAML frontmatter; left untouched"
    head = lines[found[0] : found[1]]
    if sum(len(line) for line in head) > MAX_FRONTMATTER_BYTES:
        return (
            f"{name}: frontmatter larger than {MAX_FRONTMATTER_BYTES // 1024} KiB; left untouched"
        )
    data, valid, note = fm.parse(head)
    if not data:
        return f"{name}: empty YAML frontmatter; left untouched"
    warnings = [f"{name}: {note}"] if note else []
    said = fm.text(data.get("id")).strip()
    own = path.name[: -len(".md")]
    if said and _number(said) != number:
        warnings.append(
            f"{name}: frontmatter id {shown_cell(said)} disagrees with the file name; read as {own}"
        )
        said = ""
    return Loaded(
        _issue_from(data, iid=said or own, rel=name, valid=valid), path, text, tuple(warnings)
    )


def _number(iid: str) -> int | None:
    m = ID_RE.search(iid)
    return int(m.group(1)) if m else None


def _skills(value: Any) -> tuple[str, ...]:
    items = value if isinstance(value, list | tuple) else fm.text(value).split(",")
    return tuple(s for s in (fm.text(v).strip() for v in items) if s)


def _fix_pr(value: Any) -> str | None:
    found = fm.text(value).strip()
    if not found or found.lower() in {"null", "none", "~"}:
        return None
    return f"#{found}" if found.isdigit() else found


def _issue_from(data: dict[str, Any], *, iid: str, rel: str, valid: bool) -> IssueFile:
    def get(key: str) -> str:
        return fm.text(data.get(key))

    resolved = get("resolved_at").strip()
    return IssueFile(
        id=iid,
        path=rel,
        title=get("title"),
        status=get("status").strip(),
        severity=get("severity").strip(),
        category=get("category").strip(),
        detected_by=get("detected_by").strip(),
        detected_at=get("detected_at").strip(),
        resolved_at=resolved or None,
        affected_skills=_skills(data.get("affected_skills")),
        root_cause=get("root_cause"),
        fix_pr=_fix_pr(data.get("fix_pr")),
        flaky=data.get("flaky") is True or get("flaky").lower() in {"true", "yes"},
        valid_yaml=valid,
    )


# ---------------------------------------------------------------------------------------------
# Composing and writing one new issue file


def utc(now: datetime) -> str:
    """`now` in UTC as `2026-05-31T06:00:00Z`."""
    moment = now.replace(tzinfo=UTC) if now.tzinfo is None else now.astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def one_line(text: str) -> str:
    """Whitespace runs to one space; other control characters dropped (a NUL makes it binary)."""
    return "".join(ch for ch in " ".join(text.split()) if unicodedata.category(ch) != "Cc")


def _title(skill: str, root_cause: str) -> str:
    """`<skill>: <root_cause>` on one line, cut at a word boundary past _TITLE_MAX characters."""
    title = one_line(f"{skill}: {root_cause}")
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


def body(req: IssueRequest, today: date, article_path: str, see_also: tuple[str, ...] = ()) -> str:
    """The issue's one paragraph: output, expected vs actual (with the evidence: file:line, how
    many hits, inside or outside the skill's own section), the fix the tool knows, flakiness,
    related issues, article."""
    if req.fleet:
        return _fleet_body(req, today, article_path)
    if req.label is DiffLabel.NEW_QUALITY_DEGRADED:
        what = f"dropped below its quality bar ({req.status.value})"
    else:
        what = f"started failing its eval ({req.status.value})"
    where = (
        f"on `{one_line(req.output_path)}`" if req.output_path else "with no output file matching"
    )
    detail = one_line(req.detail).rstrip(".") or "no detail recorded"
    parts = [
        f"`{one_line(req.skill)}` {what} in the skill-evals run of {today.isoformat()}, {where}.",
        f"Expected vs actual: {detail}.",
    ]
    if req.fixes:
        parts.append(f"Known fix: {'; and '.join(one_line(f).rstrip('.') for f in req.fixes)}.")
    if req.flaky:
        parts.append(
            "This skill is flaky (it has alternated between passing and failing recently): "
            "confirm the failure on the next run before acting on it."
        )
    if see_also:
        parts.append(f"See also {', '.join(see_also)} (other open issues naming this skill).")
    parts.append(f"Article: {one_line(article_path)}")
    return " ".join(parts) + "\n"


def _fleet_body(req: IssueRequest, today: date, article_path: str) -> str:
    """A fleet finding's paragraph: one cause, the skills it explains, what to do."""
    skills = ", ".join(f"`{one_line(s)}`" for s in req.affected)
    parts = [
        f"One cause explains {len(req.affected)} skills' failures in the skill-evals run of "
        f"{today.isoformat()}: {one_line(req.detail).rstrip('.')}.",
        f"Affected skills: {skills}. No issue is filed per skill for this cause; this one is "
        "resolved when the cause is gone.",
    ]
    if req.fixes:
        parts.append(f"Known fix: {'; and '.join(one_line(f).rstrip('.') for f in req.fixes)}.")
    parts.append(f"Article: {one_line(article_path)}")
    return " ".join(parts) + "\n"


def render_issue(issue: IssueFile, text: str) -> str:
    """The whole file: strict YAML frontmatter in the documented key order, a blank line, `text`."""
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
    return fm.render(fields) + "\n" + text


def new_issue(number: int, req: IssueRequest, now: datetime) -> IssueFile:
    """The issue this tool files for `req` under `number`."""
    iid = f"ISS-{number:03d}"
    return IssueFile(
        id=iid,
        path=f"{ISSUES_DIR}/{iid}.md",
        title=_title("fleet", req.title) if req.fleet else _title(req.skill, req.root_cause),
        status="open",
        severity=_severity(req),
        category=req.category or _category(req.root_cause),
        detected_by=DETECTOR,
        detected_at=utc(now),
        resolved_at=None,
        affected_skills=req.affected or (req.skill,),
        root_cause=req.root_cause,
        flaky=req.flaky,
    )

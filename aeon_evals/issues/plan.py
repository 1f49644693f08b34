"""The issue stage as a decision and its application: what to file, close and link, then the writes.

`read_state` reads memory/issues once; `plan_issues` decides without touching the disk and
returns an `IssuePlan` whose `outcome` is what applying it gives; `apply_plan` writes it (issue
files first, INDEX.md last). A dry run reads and plans, and does not apply.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path

from aeon_evals.fs.confine import confine
from aeon_evals.issues import files
from aeon_evals.issues.files import ID_RE, ISSUES_DIR, IssueFile, IssueRequest, Loaded
from aeon_evals.issues.frontmatter import resolve_text
from aeon_evals.issues.index import INDEX_NAME, Index, read_index
from aeon_evals.issues.rollback import probe
from aeon_evals.text.controls import show_name

_MAX_TRIES = 1000  # exclusive-create attempts before giving up on one request
_PLAIN_NAME = re.compile(r"[\w-]+")


@dataclass(frozen=True)
class IssueRef:
    id: str
    skill: str
    path: str


def by_id(refs: Iterable[IssueRef]) -> list[IssueRef]:
    """Issues in the order of their ids (`ISS-9` before `ISS-10`), as the ledger and the
    article's Sources list them."""

    def key(ref: IssueRef) -> tuple[int, str]:
        digits = ref.id.rpartition("-")[2]
        return (int(digits) if digits.isdigit() and len(digits) <= 30 else -1, ref.id)

    return sorted(refs, key=key)


@dataclass(frozen=True)
class IssueOutcome:
    """What the issue stage did (or, for a plan not applied, would do)."""

    filed: tuple[IssueRef, ...] = ()
    closed: tuple[IssueRef, ...] = ()
    existing: dict[str, str] = field(default_factory=dict)  # skill -> open issue covering it
    # skill -> the open issue covering it after the run (IssueFile.covers), never a broad one
    open_by_skill: dict[str, str] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()  # unreadable files, INDEX.md problems, … one line each
    known: tuple[IssueFile, ...] = ()  # every readable issue as it was before this run
    # skill of a request -> other open issues naming it that do not cover it ("see also")
    see_also: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # the stage wrote nothing (why: a refused write, found by the probe or met and put back),
    # and what it would have filed and closed
    unwritten: str = ""
    would_file: tuple[IssueRef, ...] = ()
    would_close: tuple[IssueRef, ...] = ()

    def said(self, refs: tuple[IssueRef, ...], would: tuple[IssueRef, ...]) -> str:
        """`ISS-004 (x), ISS-005 (y)`, `none`, or `none (not written: …; would file …)`."""
        listed = ", ".join(f"{i.id} ({show_name(i.skill)})" for i in by_id(refs))
        if not self.unwritten:
            return listed or "none"
        also = ", ".join(f"{i.id} ({show_name(i.skill)})" for i in by_id(would))
        verb = "file" if would is self.would_file else "close"
        return f"none (not written: {self.unwritten}" + (f"; would {verb} {also})" if also else ")")


@dataclass(frozen=True)
class IssueState:
    """memory/issues as read: the readable issues, every ISS number taken, INDEX.md."""

    root: Path
    issues_dir: Path
    loaded: tuple[Loaded, ...]
    warnings: tuple[str, ...]
    taken: frozenset[int]  # numbers of ISS files, readable or not
    occupied: frozenset[int]  # numbers whose name is held by something else (a folder, a link)
    index_text: str | None
    index_problem: str | None

    @property
    def index_path(self) -> Path:
        return self.issues_dir / INDEX_NAME


@dataclass(frozen=True)
class NewIssue:
    issue: IssueFile
    text: str  # the whole file
    request: IssueRequest
    body: str


@dataclass(frozen=True)
class Closing:
    ref: IssueRef
    file: Path
    text: str  # the file with `status: resolved` and `resolved_at`


@dataclass(frozen=True)
class IssuePlan:
    """What the stage decided: the files to create and rewrite and INDEX.md's new text."""

    state: IssueState
    new: tuple[NewIssue, ...] = ()
    closing: tuple[Closing, ...] = ()
    index_text: str | None = None  # None: INDEX.md is not written
    # INDEX.md edits in order ("open"/"close", issue, resolved on), replayed if a number moves
    index_edits: tuple[tuple[str, IssueFile, str], ...] = ()
    outcome: IssueOutcome = field(default_factory=IssueOutcome)

    @property
    def writes(self) -> bool:
        return bool(self.new or self.closing or self.index_text is not None)

    def probe(self) -> str | None:
        """Why the plan's writes would fail, found before any is made (rollback.probe)."""
        if not self.writes:
            return None
        replaced = [c.file for c in self.closing]
        if self.index_text is not None:
            replaced.append(self.state.index_path)
        size = sum(len(n.text.encode("utf-8")) + 4096 for n in self.new)
        size += len((self.index_text or "").encode("utf-8")) + 4096
        return probe(self.state.issues_dir, replaced, size)


def _read_files(issues_dir: Path, root: Path) -> tuple[list[Loaded], list[str], set[int], set[int]]:
    """The readable issues, the warnings, the numbers of ISS files and of other ISS names."""
    loaded: list[Loaded] = []
    warnings: list[str] = []
    taken: set[int] = set()
    occupied: set[int] = set()
    for number, path in files.scan(issues_dir):
        if not path.is_file():
            occupied.add(number)
            continue
        taken.add(number)
        found = files.load_one(path, number, root)
        if isinstance(found, str):
            warnings.append(found)
        else:
            loaded.append(found)
            warnings.extend(found.warnings)
    return loaded, warnings, taken, occupied


def read_state(root: Path) -> IssueState:
    """Read memory/issues under `root`: every ISS-<digits>.md (tolerantly) and INDEX.md.

    Raises PathOutsideRoot when memory/issues leads outside the root.
    """
    issues_dir = confine(root, ISSUES_DIR, what="issues folder")
    loaded, warnings, taken, occupied = _read_files(issues_dir, root)
    text, problem = read_index(issues_dir / INDEX_NAME, root)
    if problem:
        warnings.append(problem)
    return IssueState(
        root,
        issues_dir,
        tuple(loaded),
        tuple(warnings),
        frozenset(taken),
        frozenset(occupied),
        text,
        problem,
    )


def read_issues(issues_dir: Path, *, root: Path) -> tuple[list[IssueFile], list[str]]:
    """Every ISS-*.md under `issues_dir`, sorted by number, plus a warning per file that is
    unreadable (left untouched) or read only in part.

    Reads only; frontmatter that is not valid YAML is read line by line.
    """
    loaded, warnings, _, _ = _read_files(issues_dir, root)
    return [d.issue for d in loaded], warnings


class Naming:
    """The open issues naming each skill, lowest number first, built once: a per-skill scan of
    every issue made keeping issues quadratic in the number of failing skills."""

    def __init__(self, issues: Iterable[IssueFile]):
        self._issues: list[IssueFile] = []
        self._named: dict[str, list[IssueFile]] = {}
        for issue in sorted(issues, key=lambda i: i.number):
            self.add(issue)

    def add(self, issue: IssueFile) -> None:
        """Index one more issue (a newly filed one has the highest number so far)."""
        self._issues.append(issue)
        # A plain skill name is named by a title exactly when it is one of the title's maximal
        # runs of word characters and hyphens (see files.names_in).
        for name in (*issue.affected_skills, *_PLAIN_NAME.findall(issue.title)):
            named = self._named.setdefault(name, [])
            if not named or named[-1] is not issue:
                named.append(issue)

    def all(self, skill: str) -> list[IssueFile]:
        """Every issue naming `skill`, by number."""
        if _PLAIN_NAME.fullmatch(skill):
            return list(self._named.get(skill, ()))  # added in number order
        return [i for i in self._issues if i.names(skill)]

    def first(self, skill: str) -> IssueFile | None:
        """The lowest-numbered issue naming `skill`."""
        return next(iter(self.all(skill)), None)

    def covering(self, skill: str) -> IssueFile | None:
        """The lowest-numbered issue that covers `skill` (IssueFile.covers)."""
        return next((i for i in self.all(skill) if i.covers(skill)), None)


class _IndexEdits:
    """INDEX.md edited while planning (None when it cannot be used), each edit remembered to be
    replayed if a new issue is filed under another number than planned."""

    def __init__(self, state: IssueState, warnings: list[str]) -> None:
        self.index = None if state.index_problem else Index(state.index_text)
        self.name = files.rel(state.index_path, state.root)
        self.edits: list[tuple[str, IssueFile, str]] = []
        self.warnings = warnings

    def add_open(self, issue: IssueFile) -> None:
        if self.index is not None:
            self.index.add_open(issue)
            self.edits.append(("open", issue, ""))

    def close(self, issue: IssueFile, resolved_on: str) -> None:
        if self.index is not None:
            self.index.close(issue, resolved_on)
            self.edits.append(("close", issue, resolved_on))

    def repair_open(self, issue: IssueFile) -> None:
        """This tool's open issue missing from INDEX.md (a run stopped before writing it)."""
        if self.index is not None and not self.index.mentions(issue.number):
            self.add_open(issue)
            self.warnings.append(f"{self.name}: open {issue.id} was not listed; added to Open")

    def repair_resolved(self, issue: IssueFile, today: date) -> None:
        """A resolved issue still listed as open, or not at all (a run stopped before writing)."""
        index = self.index
        if index is not None and (index.open_row(issue.number) or not index.mentions(issue.number)):
            self.close(issue, (issue.resolved_at or today.isoformat())[:10])
            self.warnings.append(
                f"{self.name}: resolved {issue.id} was listed as open; moved to Resolved"
            )

    @property
    def text(self) -> str | None:
        """INDEX.md's new text, or None when it does not change."""
        return self.index.text if self.index is not None and self.index.changed else None


def plan_issues(
    state: IssueState,
    to_file: list[IssueRequest],
    to_close: list[str],
    *,
    now: datetime,
    today: date,
    article_path: str,
    skills: Collection[str] = (),
    fleet_keep: Collection[str] | None = None,
) -> IssuePlan:
    """Decide the issue stage on `state` (pure: nothing is read or written).

    Files one ISS-NNN.md per request unless an open issue covers the skill (this tool's own
    naming it, or any detector's about that skill alone); other open issues naming the skill are
    linked (`see_also`). Resolves open skill-evals issues of the `to_close` skills and moves their
    INDEX.md rows; repairs INDEX.md left behind by a run that stopped before writing it. `skills`
    adds names to look up in `open_by_skill`.
    """
    warnings = list(state.warnings)
    index = _IndexEdits(state, warnings)
    open_issues = [d.issue for d in state.loaded if d.issue.is_open]
    naming = Naming(open_issues)
    in_index = {int(m.group(1)) for m in ID_RE.finditer(state.index_text or "")}
    number = max(state.taken | state.occupied | in_index, default=0) + 1
    new: list[NewIssue] = []
    existing: dict[str, str] = {}
    see_also: dict[str, tuple[str, ...]] = {}
    for req in to_file:
        hit = (
            next((i for i in open_issues if i.ours and i.root_cause == req.root_cause), None)
            if req.fleet
            else naming.covering(req.skill)
        )
        linked = tuple(
            i.id for i in naming.all(req.skill) if i is not hit and not i.covers(req.skill)
        )
        if linked:
            see_also.setdefault(req.skill, linked)
        if hit is not None:
            existing.setdefault(req.skill, hit.id)
            if hit.ours:
                index.repair_open(hit)
            continue
        while number in state.occupied:
            number += 1
        issue = files.new_issue(number, req, now)
        body = files.body(req, today, article_path, linked)
        new.append(NewIssue(issue, files.render_issue(issue, body), req, body))
        number += 1
        open_issues.append(issue)
        naming.add(issue)
        index.add_open(issue)

    closing = _closing(state.loaded, to_close, index, now=now, today=today, fleet_keep=fleet_keep)
    closed = {c.ref.path for c in closing}
    still_open = Naming(i for i in open_issues if i.path not in closed)
    candidates = {s for i in open_issues if i.path not in closed for s in i.affected_skills}
    candidates |= {r.skill for r in to_file} | set(to_close) | set(skills)
    # a row's issue is the one standing for its failure; a broad issue that only names the
    # skill (skill-health's "53 skills failed") is linked as "see also", never the row's issue
    shown = {skill: still_open.covering(skill) for skill in sorted(candidates)}
    outcome = IssueOutcome(
        filed=tuple(IssueRef(n.issue.id, n.request.skill, n.issue.path) for n in new),
        closed=tuple(c.ref for c in closing),
        existing=dict(sorted(existing.items())),
        open_by_skill={skill: i.id for skill, i in shown.items() if i is not None},
        warnings=tuple(warnings),
        known=tuple(d.issue for d in state.loaded),
        see_also=dict(sorted(see_also.items())),
    )
    return IssuePlan(state, tuple(new), tuple(closing), index.text, tuple(index.edits), outcome)


def _closing(
    loaded: Iterable[Loaded],
    to_close: list[str],
    index: _IndexEdits,
    *,
    now: datetime,
    today: date,
    fleet_keep: Collection[str] | None = None,
) -> list[Closing]:
    """The open skill-evals issues of the `to_close` skills, resolved; their INDEX.md rows moved.
    A fleet finding's issue is not closed by one of its skills recovering: it is closed when
    `fleet_keep` (the root causes of today's findings; None: leave them, a scoped run) no longer
    holds its root cause."""
    ours: dict[str, list[Loaded]] = {}
    fleet: list[Loaded] = []
    for doc in loaded:
        if doc.issue.ours and doc.issue.root_cause.startswith(files.FLEET):
            fleet.append(doc)
        elif doc.issue.ours:
            for named in dict.fromkeys(doc.issue.affected_skills):
                ours.setdefault(named, []).append(doc)
    gone = [
        doc
        for doc in fleet
        if fleet_keep is not None and doc.issue.is_open and doc.issue.root_cause not in fleet_keep
    ]
    closing: list[Closing] = []
    done: set[str] = set()
    plan = [(skill, doc) for skill in dict.fromkeys(to_close) for doc in ours.get(skill, ())]
    plan += [("fleet", doc) for doc in gone]
    for skill, doc in plan:
        issue = doc.issue
        if not issue.is_open:
            index.repair_resolved(issue, today)
            continue
        if issue.path in done:
            continue
        text = resolve_text(doc.text, files.utc(now))
        if text is None:  # pragma: no cover - only files with frontmatter are loaded
            continue
        done.add(issue.path)
        closing.append(Closing(IssueRef(issue.id, skill, issue.path), doc.file, text))
        index.close(issue, today.isoformat())
    return closing

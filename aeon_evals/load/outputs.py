"""Find and read skill outputs: each directory listed once, each file read at most once per run."""

from __future__ import annotations

import bisect
import fnmatch
import functools
import hashlib
import operator
import os
import re
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path

from aeon_evals.errors import EvalsError, PathOutsideRoot
from aeon_evals.fs.confine import confine, open_regular
from aeon_evals.load.layout import article_twin

_GLOB_CHARS = re.compile(r"[*?\[]")
_NAME = operator.attrgetter("name")  # a folder of 20,000 outputs is sorted by it
_NAME_DATE = re.compile(r"(\d{4}-\d{2}-\d{2})")
BLOCK = 4 << 20  # large files are streamed in blocks of about this size, cut at a newline
LARGE = 32 << 20  # files above this size are streamed, never held whole in memory


@dataclass(frozen=True)
class Match:
    """The files a pattern matched (sorted by name; the checks order them by the date in their
    names) and why some were passed over."""

    files: tuple[str, ...]
    skipped: tuple[str, ...] = ()  # one line per ignored candidate: directory, outside the root …


@dataclass(frozen=True)
class Body:
    """What was read from one output: whole bytes, or a path to stream for a very large file."""

    path: str
    size: int
    sha256: str
    data: bytes | None  # None when the file is streamed
    binary: bool

    def blocks(self, root: Path) -> Iterator[bytes]:
        """The content in blocks that end at a line break (one block for a normal file)."""
        if self.data is not None:
            yield self.data
            return
        with open_regular(root, self.path) as fh:
            carry = b""
            while chunk := fh.read(BLOCK):
                chunk = carry + chunk
                cut = chunk.rfind(b"\n")
                if cut < 0:
                    carry = chunk
                    continue
                carry = chunk[cut + 1 :]
                yield chunk[: cut + 1]
            if carry:
                yield carry


class OutputError(Exception):
    """An output file that matched cannot be read: the message is the row's detail."""

    def __init__(self, code: str, detail: str):
        super().__init__(detail)
        self.code = code
        self.detail = detail


class Outputs:
    """The instance's files as the checks see them, with per-run caches."""

    def __init__(self, root: Path):
        self.root = root.resolve()
        self._listing: dict[str, list[os.DirEntry[str]] | None] = {}
        self._names: dict[str, list[str]] = {}
        self.memo: dict[
            tuple[str, str], object
        ] = {}  # derived per-file data shared by specs (headings …)
        self._matches: dict[str, Match] = {}
        self._safe_heads: set[str] = set()
        self._bodies: dict[str, Body] = {}
        self._git_checkout: bool | None = None
        self._git_times: dict[str, float] = {}
        self._git_walk: Iterator[tuple[float, str]] | None = None
        self.shallow = False  # a shallow clone: commit times of undated outputs are unknown
        self.warnings: list[str] = []  # one line per file refused (outside the root, future)
        self._warned: set[str] = set()

    def warn(self, line: str) -> None:
        """Add a warning for the run, once however many specs meet the same file."""
        if line not in self._warned:
            self._warned.add(line)
            self.warnings.append(line)

    def _list(self, rel_dir: str) -> list[os.DirEntry[str]] | None:
        if rel_dir not in self._listing:
            try:
                with os.scandir(self.root / rel_dir if rel_dir else self.root) as it:
                    entries = sorted(it, key=_NAME)
            except OSError:
                self._listing[rel_dir] = None
            else:
                self._listing[rel_dir] = entries
                self._names[rel_dir] = [e.name for e in entries]
        return self._listing[rel_dir]

    def release(self) -> None:
        """Forget what the checks read (the outputs' bytes, their headings, the matches, the
        folders' listings) once they are done: about 10 MB at 1,000 skills that the dashboard
        stage, the run's peak of memory, can use instead. Anything asked afterwards is listed
        and read again; a list `names` gave earlier is not touched."""
        self._bodies.clear()
        self.memo.clear()
        self._matches.clear()
        self._listing.clear()
        self._names.clear()

    def names(self, rel_dir: str) -> list[str] | None:
        """The sorted names in a folder (listed once per run), or None when it cannot be listed."""
        return None if self._list(rel_dir) is None else self._names[rel_dir]

    def matches(self, pattern: str) -> Match:
        """Files matching the glob `pattern`, sorted by path; confinement enforced per candidate.
        A pattern in one article folder matches in the other too (`article_twin`)."""
        found = self._matches.get(pattern)
        if found is None:
            found = self._match(pattern)
            twin = article_twin(pattern)
            other = self._match(twin) if twin is not None else None
            if other is not None and (other.files or other.skipped):
                found = Match(
                    tuple(sorted({*found.files, *other.files})), (*found.skipped, *other.skipped)
                )
            self._matches[pattern] = found
        return found

    def _match(self, pattern: str) -> Match:
        head, _, name = pattern.rpartition("/")
        self._confine(pattern, head)
        files: list[str] = []
        skipped: list[str] = []
        if _GLOB_CHARS.search(head) or "**" in pattern:
            for rel in sorted(self._glob(pattern, skipped)):
                path = self.root / rel
                self._admit(rel, path, path.is_dir(), files, skipped)
        else:
            listing = self._list(head)
            if listing is not None:
                # The listing is sorted by name: jump to the pattern's literal prefix instead of
                # matching every entry, so N skills × M outputs in one folder is not N × N·M work.
                prefix = _GLOB_CHARS.split(name, 1)[0]
                names = self._names[head]
                start = bisect.bisect_left(names, prefix)
                stop = bisect.bisect_left(names, prefix + _LAST, start)
                while stop < len(names) and names[stop].startswith(prefix):
                    stop += 1  # a name with U+10FFFF right after the prefix
                for index in _matching(names, start, stop, name, len(prefix)):
                    entry = listing[index]
                    rel = f"{head}/{entry.name}" if head else entry.name
                    try:  # scandir knows the type of a plain entry: no stat call
                        if entry.is_file(follow_symlinks=False):
                            files.append(rel)
                            continue
                        is_dir = entry.is_dir()
                    except OSError:
                        is_dir = False
                    self._admit(rel, Path(entry.path), is_dir, files, skipped)
        return Match(tuple(files), tuple(skipped))

    def _glob(self, pattern: str, skipped: list[str]) -> set[str]:
        """The paths under the root that match `pattern` (wildcards in its folders, `**`), part
        by part. A folder reached through a symlink leading outside the root is not searched
        (one line in `skipped`, one warning): a wildcard through a link to `/` listed the whole
        /etc tree. A folder met twice through links (a loop) is searched once."""
        parts = pattern.split("/")
        found: set[str] = set()
        seen: set[tuple[str, int]] = set()  # (real folder, part of the pattern) searched

        def folder(rel: str, at: int) -> bool:
            """Whether `rel` is a folder to search for part `at`: inside the root, not searched
            for it yet."""
            path = self.root / rel
            try:
                if not path.is_dir():
                    return False
                real = os.path.realpath(path)
            except OSError:
                return False
            if not Path(real).is_relative_to(self.root):
                link = _first_link(self.root, rel)
                why = (
                    f"{rel} is reached through the symlink {link[0]} -> {link[1]}, leading "
                    "outside the root"
                    if link is not None and link[0] != rel
                    else f"{rel} is a symlink leading outside the root"
                    + (f" (-> {link[1]})" if link is not None else "")
                )
                if why not in skipped:
                    skipped.append(why)
                    self.warn(f"{why}; not searched")
                return False
            if (real, at) in seen:
                return False
            seen.add((real, at))
            return True

        def walk(rel: str, at: int) -> None:
            if at == len(parts):
                found.add(rel)
                return
            part, last = parts[at], at == len(parts) - 1
            if part == "**":
                walk(rel, at + 1)  # no folder at all
                for name in self.names(rel) or ():
                    child = f"{rel}/{name}" if rel else name
                    if folder(child, at):
                        walk(child, at)
                return
            if not _GLOB_CHARS.search(part):
                names = [part] if os.path.lexists(self.root / rel / part) else []
            else:
                matcher = name_matcher(part)
                names = [n for n in self.names(rel) or () if matcher(n)]
            for name in names:
                child = f"{rel}/{name}" if rel else name
                if last:
                    found.add(child)
                elif folder(child, at + 1):
                    walk(child, at + 1)

        if self.root.is_dir():
            walk("", 0)
        return found

    def _confine(self, pattern: str, head: str) -> None:
        """Refuse patterns that leave the root; a folder's symlinks are resolved once per run."""
        plain = (
            not pattern.startswith(("/", "\\"))
            and ".." not in pattern.split("/")
            and pattern[1:2] != ":"
        )
        if plain and head in self._safe_heads:
            return
        confine(self.root, pattern.replace("*", "x").replace("?", "x"), what="output_pattern")
        self._safe_heads.add(head)

    def _admit(
        self, rel: str, path: Path, is_dir: bool, files: list[str], skipped: list[str]
    ) -> None:
        if is_dir:
            skipped.append(f"{rel} is a directory")
            return
        # Every component is resolved: a wildcard folder part (`reports/*/etc/host*`) may pass
        # through a symlinked folder (`reports/rootfs -> /`) as well as the file itself.
        real = Path(os.path.realpath(path))
        if not real.is_relative_to(self.root):
            if path.is_symlink() and not path.exists():
                skipped.append(f"{rel} is a dangling symlink")
                return
            link = _first_link(self.root, rel)
            why = (
                f"{rel} is a symlink leading outside the root (refused)"
                if link is None or link[0] == rel
                else f"{rel} is reached through the symlink {link[0]} -> {link[1]}, "
                "leading outside the root (refused)"
            )
            skipped.append(why)
            self.warn(f"{why.replace(' (refused)', '')}; not read")
            return
        if path.is_symlink() and not path.exists():
            skipped.append(f"{rel} is a dangling symlink")
            return
        try:
            regular = stat.S_ISREG(path.stat().st_mode)
        except OSError:
            regular = True  # vanished or unreadable: reported when it is read
        if not regular:  # a FIFO would block the reader; devices and sockets are not outputs
            skipped.append(f"{rel} is not a regular file")
            return
        files.append(rel)

    def read(self, rel: str) -> Body:
        """Read one matched file once; raises OutputError when it cannot be read."""
        if rel in self._bodies:
            return self._bodies[rel]
        try:
            with open_regular(self.root, rel) as fh:
                size = os.fstat(fh.fileno()).st_size
                digest = hashlib.sha256()
                if size <= LARGE:
                    data: bytes | None = fh.read()
                    assert data is not None
                    digest.update(data)
                    head = data[:8192]
                else:
                    data = None
                    head = fh.read(8192)
                    digest.update(head)
                    while chunk := fh.read(1 << 20):
                        digest.update(chunk)
        except FileNotFoundError:
            raise OutputError(
                "no_file_match", f"{rel} vanished between listing and reading"
            ) from None
        except IsADirectoryError:
            raise OutputError("no_file_match", f"{rel} is a directory") from None
        except PermissionError:
            raise OutputError("unreadable", f"{rel} cannot be read (permission denied)") from None
        except OSError as exc:
            raise OutputError("unreadable", f"{rel} cannot be read ({exc.strerror})") from None
        except PathOutsideRoot as exc:
            raise OutputError("path_outside_root", f"{rel} {exc.message}") from None
        except EvalsError as exc:
            raise OutputError("no_file_match", f"{rel} {exc.message}") from None
        body = Body(rel, size, digest.hexdigest(), data, b"\x00" in head)
        self._bodies[rel] = body
        return body

    def age(self, rel: str, now: datetime) -> tuple[float | None, str]:
        """Age in days: the date in the file name, else last commit time, else mtime.

        In a shallow clone the last commit time of a file is not known (the one commit there
        is the clone's): an undated file's age is then unknown, never a made-up one."""
        day = name_date(rel)
        if day is not None:
            # A file named for a day may have been written at any time that day: count from its end,
            # so a log dated yesterday is not older than the skill's 12-hour cadence at 06:00.
            start = datetime(day.year, day.month, day.day, tzinfo=UTC)
            return max(0.0, (now - start).total_seconds() / 86400.0 - 1.0), "filename"
        if self._is_checkout():
            if self._is_shallow():
                return None, "unknown (shallow clone)"
            stamp = self._git_time(rel)
            if stamp is not None:
                return (now.timestamp() - stamp) / 86400.0, "git"
        try:
            return (now.timestamp() - (self.root / rel).stat().st_mtime) / 86400.0, "mtime"
        except OSError:
            return None, "unknown"

    def has_history(self) -> bool:
        """Whether the root is a git checkout with its whole history (not shallow)."""
        return self._is_checkout() and not self._is_shallow()

    def _is_checkout(self) -> bool:
        if self._git_checkout is None:
            self._git_checkout = False
            if (self.root / ".git").exists():
                from aeon_evals.fs.gitrepo import (
                    run_git,  # only a checkout is asked (undated files)
                )

                inside = run_git(self.root, "rev-parse", "--is-inside-work-tree")
                self._git_checkout = inside is not None
        return self._git_checkout

    def _is_shallow(self) -> bool:
        if self._git_walk is None and not self.shallow:
            from aeon_evals.fs.gitrepo import commit_times, run_git  # loaded by _is_checkout

            answer = run_git(self.root, "rev-parse", "--is-shallow-repository")
            self.shallow = (answer or "").strip() == "true"
            if not self.shallow:
                self._git_walk = commit_times(self.root)
        return self.shallow

    def _git_time(self, rel: str) -> float | None:
        """The newest commit time of `rel`: one `git log` walk for the whole run, read only as
        far as needed (newest commits first, so each path's first sighting is its last change)."""
        if rel in self._git_times:
            return self._git_times[rel]
        if self._git_walk is None:
            return None
        for stamp, path in self._git_walk:
            self._git_times.setdefault(path, stamp)
            if path == rel:
                return stamp
        self._git_walk = iter(())  # the walk is over: every other path was never committed
        return None


def _first_link(root: Path, rel: str) -> tuple[str, str] | None:
    """The first component of `rel` that is a symlink, and where it points."""
    at = root
    for part in Path(rel).parts:
        at = at / part
        if at.is_symlink():
            try:
                target = os.readlink(at)
            except OSError:
                target = "?"
            return at.relative_to(root).as_posix(), target
    return None


_LAST = chr(0x10FFFF)  # sorts after every character a file name can hold


def _matching(names: list[str], start: int, stop: int, name: str, fixed: int) -> list[int]:
    """The indexes in names[start:stop] (every one of them starts with `name`'s first `fixed`
    characters, its literal prefix) whose names match the glob `name`."""
    if name.count("*") == 1 and "?" not in name and "[" not in name:
        suffix = name.split("*")[1]
        least = fixed + len(suffix)
        return [i for i in range(start, stop) if len(n := names[i]) >= least and n.endswith(suffix)]
    matcher = name_matcher(name)
    return [i for i in range(start, stop) if matcher(names[i])]


def name_matcher(name: str) -> Callable[[str], object]:
    """fnmatch for one file name (case-sensitive, `*` also matches dots), without a regex for the
    usual one-star name (`cost-report-*.md`): a thousand specs would compile a thousand regexes."""
    if name.count("*") == 1 and "?" not in name and "[" not in name:
        prefix, suffix = name.split("*")
        least = len(prefix) + len(suffix)
        return lambda text: len(text) >= least and text.startswith(prefix) and text.endswith(suffix)
    return re.compile(fnmatch.translate(name)).match


@functools.cache  # every log-based spec asks about the same logs; a plain dict: 20,000 names
def name_date(rel: str) -> date | None:
    """The last YYYY-MM-DD in a file name, if any."""
    for text in reversed(_NAME_DATE.findall(rel[rel.rfind("/") + 1 :])):
        try:
            return date.fromisoformat(text)
        except ValueError:
            continue
    return None

"""Find and read skill outputs: each directory listed once, each file read at most once per run."""

from __future__ import annotations

import bisect
import fnmatch
import functools
import hashlib
import os
import re
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from aeon_evals.fsio import confine
from aeon_evals.gitrepo import run_git

_GLOB_CHARS = re.compile(r"[*?\[]")
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
        with open(root / self.path, "rb") as fh:
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
        self._git_times: dict[str, float | None] = {}

    def _list(self, rel_dir: str) -> list[os.DirEntry[str]] | None:
        if rel_dir not in self._listing:
            try:
                with os.scandir(self.root / rel_dir if rel_dir else self.root) as it:
                    entries = sorted(it, key=lambda e: e.name)
            except OSError:
                self._listing[rel_dir] = None
            else:
                self._listing[rel_dir] = entries
                self._names[rel_dir] = [e.name for e in entries]
        return self._listing[rel_dir]

    def names(self, rel_dir: str) -> list[str] | None:
        """The sorted names in a folder (listed once per run), or None when it cannot be listed."""
        return None if self._list(rel_dir) is None else self._names[rel_dir]

    def matches(self, pattern: str) -> Match:
        """Files matching the glob `pattern`, sorted by path; confinement enforced per candidate."""
        if pattern in self._matches:
            return self._matches[pattern]
        head, _, name = pattern.rpartition("/")
        self._confine(pattern, head)
        files: list[str] = []
        skipped: list[str] = []
        if _GLOB_CHARS.search(head) or "**" in pattern:
            candidates = sorted(
                p.relative_to(self.root).as_posix() for p in self.root.glob(pattern)
            )
            entries = [(c, self.root / c) for c in candidates]
            for rel, path in entries:
                self._admit(rel, path, path.is_dir(), files, skipped)
        else:
            listing = self._list(head)
            if listing is not None:
                # The listing is sorted by name: jump to the pattern's literal prefix instead of
                # matching every entry, so N skills × M outputs in one folder is not N × N·M work.
                matcher = name_matcher(name)
                prefix = _GLOB_CHARS.split(name, 1)[0]
                names = self._names[head]
                start = bisect.bisect_left(names, prefix)
                for index in range(start, len(names)):
                    if not names[index].startswith(prefix):
                        break
                    entry = listing[index]
                    if matcher(entry.name):
                        rel = f"{head}/{entry.name}" if head else entry.name
                        try:  # scandir knows the type of a plain entry: no stat call
                            if entry.is_file(follow_symlinks=False):
                                files.append(rel)
                                continue
                            is_dir = entry.is_dir()
                        except OSError:
                            is_dir = False
                        self._admit(rel, Path(entry.path), is_dir, files, skipped)
        result = Match(tuple(files), tuple(skipped))
        self._matches[pattern] = result
        return result

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
        if path.is_symlink():
            try:
                path.resolve(strict=True).relative_to(self.root)
            except FileNotFoundError:
                skipped.append(f"{rel} is a dangling symlink")
                return
            except (ValueError, OSError, RuntimeError):
                skipped.append(f"{rel} is a symlink leading outside the root (refused)")
                return
        try:
            regular = stat.S_ISREG(path.stat().st_mode)
        except OSError:
            regular = True  # vanished or unreadable: reported when it is read
        if (
            not regular
        ):  # a FIFO would block the reader forever; devices and sockets are not outputs
            skipped.append(f"{rel} is not a regular file")
            return
        files.append(rel)

    def read(self, rel: str) -> Body:
        """Read one matched file once; raises OutputError when it cannot be read."""
        if rel in self._bodies:
            return self._bodies[rel]
        path = self.root / rel
        try:
            with open(path, "rb") as fh:
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
        body = Body(rel, size, digest.hexdigest(), data, b"\x00" in head)
        self._bodies[rel] = body
        return body

    def age(self, rel: str, now: datetime) -> tuple[float | None, str]:
        """Age in days: the date in the file name, else last commit time, else mtime."""
        found = _NAME_DATE.findall(Path(rel).name)
        for text in reversed(found):
            try:
                day = date.fromisoformat(text)
            except ValueError:
                continue
            # A file named for a day may have been written at any time that day: count from its end,
            # so a log dated yesterday is not older than the skill's 12-hour cadence at 06:00.
            end = datetime(day.year, day.month, day.day, tzinfo=UTC) + timedelta(days=1)
            return max(0.0, (now - end).total_seconds() / 86400.0), "filename"
        stamp = self._git_time(rel)
        if stamp is not None:
            return (now.timestamp() - stamp) / 86400.0, "git"
        try:
            return (now.timestamp() - (self.root / rel).stat().st_mtime) / 86400.0, "mtime"
        except OSError:
            return None, "unknown"

    def _git_time(self, rel: str) -> float | None:
        if self._git_checkout is None:
            self._git_checkout = (self.root / ".git").exists() and run_git(
                self.root, "rev-parse", "--is-inside-work-tree"
            ) is not None
        if not self._git_checkout:
            return None
        if rel not in self._git_times:
            out = run_git(self.root, "log", "-1", "--format=%ct", "--", rel)
            self._git_times[rel] = float(out.strip()) if out and out.strip().isdigit() else None
        return self._git_times[rel]


def name_matcher(name: str) -> Callable[[str], object]:
    """fnmatch for one file name (case-sensitive, `*` also matches dots), without a regex for the
    usual one-star name (`cost-report-*.md`): a thousand specs compile a thousand regexes otherwise."""
    if name.count("*") == 1 and "?" not in name and "[" not in name:
        prefix, suffix = name.split("*")
        least = len(prefix) + len(suffix)
        return lambda text: len(text) >= least and text.startswith(prefix) and text.endswith(suffix)
    return re.compile(fnmatch.translate(name)).match


@functools.lru_cache(maxsize=65536)  # every log-based spec asks about the same logs
def name_date(rel: str) -> date | None:
    """The last YYYY-MM-DD in a file name, if any."""
    for text in reversed(_NAME_DATE.findall(Path(rel).name)):
        try:
            return date.fromisoformat(text)
        except ValueError:
            continue
    return None

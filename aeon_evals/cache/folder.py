"""The cache folder `.aeon-evals/cache/`: one API for every store in it.

An entry is a name, a format version and a key (`Entry`): the key hashes the package's
fingerprint with the entry's own inputs, so an entry written by other code, of another format,
or from other inputs is a miss. The folder is trusted only when it is this instance's own:
`.aeon-evals` and the folder are real folders inside the root, nothing in it is a symlink, a
FIFO, a socket or a device, and git does not track it (a cache committed to the repository, or
planted by whoever can push there, is input, not ours). An untrusted folder is ignored whole,
with one warning, and never written through. What a run stores is kept in memory and written
once, by `save`, at the end of a run that writes; every write goes to a temp file beside its
target and is renamed over it, in folders checked to be real ones. A miss costs time, never
correctness: the folder can be deleted at any time.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aeon_evals.cache.fingerprint import fingerprint
from aeon_evals.errors import EvalsError
from aeon_evals.fs.confine import MB, read_confined
from aeon_evals.fs.write import atomic_write

CACHE_DIR = Path(".aeon-evals") / "cache"
# One file of the cache (history.bin of a year of runs: ~13 MB; metrics.json of 4,000 skills
# and 200 runs: 70 MB), and all that one run reads from it: a planted cache of six 300 MB files
# made a run take 47 s and 1.8 GB. Past either, a file is a miss (time, never a result).
CACHE_CAP = 128 * MB
READ_BUDGET = 256 * MB
_HEAD = 1024  # the bytes of an entry's file before its data: the entry's name, version and key
MAX_FILES = 200_000  # a cache folder holding more than this is not ours (a run makes ~2 per run)
# What versions before the cache API left in the folder: a folder per code fingerprint (the
# article cache, Jinja's bytecode) and the validated-evals.json cache. Removed when a run saves.
_LEGACY = re.compile(r"^(?:[0-9a-f]{16}|manifest\.json)$")
_TAG = (
    "Signature: 8a477f597d28d172789f06886806bc55\n# aeon-evals cache; see "
    "https://bford.info/cachedir/\n"
)


@dataclass(frozen=True)
class Entry:
    """One store of the cache folder: `name` (its file or folder under .aeon-evals/cache/) and
    the `version` of its format."""

    name: str
    version: int

    def key(self, *inputs: str | bytes) -> str:
        """32 hex digits for this entry's value computed from `inputs` by this code."""
        digest = hashlib.sha256(f"{self.name}\0{self.version}\0{fingerprint()}".encode())
        for item in inputs:
            digest.update(
                b"\0" + (item.encode("utf-8", "surrogateescape") if isinstance(item, str) else item)
            )
        return digest.hexdigest()[:32]


class Cache:
    """The cache folder of the instance at `root`. `writable=False` (a dry run, `audit`,
    `contracts`, `validate`) reads it but `save` writes nothing."""

    def __init__(self, root: Path, *, writable: bool = True) -> None:
        self.root = root
        self.writable = writable
        self.warnings: list[str] = []
        self._trusted: bool | None = None
        self._staged: dict[str, bytes | None] = {}  # path under the folder → bytes (None: removed)
        self._budget = READ_BUDGET  # bytes this run may still read from the folder

    # -- trust

    @property
    def trusted(self) -> bool:
        """Whether the folder is this instance's own (decided once, on first use)."""
        if self._trusted is None:
            why = untrusted(self.root)
            self._trusted = why is None
            if why is not None:
                self.warnings.append(
                    f"{CACHE_DIR.as_posix()}: {why}; the cache is ignored (it is not written "
                    "either: delete the folder to have it rebuilt)"
                )
        return self._trusted

    # -- reads

    def read(self, rel: str, *, cap: int = CACHE_CAP) -> bytes | None:
        """The bytes of the cache file `rel` (relative to the folder), or None (a miss): what this
        run stored there, else the file when the folder is trusted and it is a regular file of at
        most `cap` bytes."""
        if rel in self._staged:
            return self._staged[rel]
        if not self.trusted or self._budget <= 0:
            return None
        try:
            data = read_confined(
                self.root, f"{CACHE_DIR.as_posix()}/{rel}", cap=min(cap, self._budget)
            )
        except (OSError, EvalsError, MemoryError, ValueError):  # refused, too large: a miss
            return None
        self._budget -= len(data)
        if self._budget <= 0:
            self.warnings.append(
                f"{CACHE_DIR.as_posix()}: more than {READ_BUDGET // MB} MB read from it this "
                "run; the rest is not read (a miss costs time, never a result)"
            )
        return data

    def read_json(self, rel: str, *, cap: int = CACHE_CAP) -> Any:
        """The JSON value of the cache file `rel`, or None when missing, refused or undecodable."""
        data = self.read(rel, cap=cap)
        if data is None:
            return None
        try:
            return json.loads(data)
        except (ValueError, RecursionError, MemoryError):
            return None

    def load(self, entry: Entry, key: str, rel: str | None = None) -> Any:
        """The value stored for `entry` under `key` (`store`), or None: a missing or damaged
        file, or one stored by other code, in another format or from other inputs."""
        raw = self.read(rel or f"{entry.name}.json")
        # `store` writes the key before the data: a file of other code, inputs or format (or
        # a planted one) is a miss before its JSON, which may be hundreds of MB, is parsed
        if raw is None or f'"{key}"'.encode() not in raw[:_HEAD]:
            return None
        try:
            found = json.loads(raw)
        except (ValueError, RecursionError, MemoryError):
            return None
        if (
            isinstance(found, dict)
            and found.get("entry") == entry.name
            and found.get("version") == entry.version
            and found.get("key") == key
        ):
            return found.get("data")
        return None

    def listing(self, folder: str) -> list[str]:
        """The names of the regular files in the cache's sub-folder `folder` (none when the
        folder is untrusted or missing), what this run stored there included."""
        names: set[str] = set()
        if self.trusted:
            with contextlib.suppress(OSError), os.scandir(self.root / CACHE_DIR / folder) as it:
                names = {e.name for e in it if e.is_file(follow_symlinks=False)}
        prefix = f"{folder}/"
        for rel, data in self._staged.items():
            if rel.startswith(prefix) and "/" not in rel[len(prefix) :]:
                (names.add if data is not None else names.discard)(rel[len(prefix) :])
        return sorted(names)

    # -- writes, staged until save

    def put(self, rel: str, data: bytes | str) -> None:
        """Store `data` as the cache file `rel`; written by `save`."""
        if self.writable:
            self._staged[rel] = data.encode("utf-8") if isinstance(data, str) else data

    def store(self, entry: Entry, key: str, data: Any, rel: str | None = None) -> None:
        """Store `data` (JSON) for `entry` under `key`, as `load` reads it back."""
        payload = {"entry": entry.name, "version": entry.version, "key": key, "data": data}
        self.put(
            rel or f"{entry.name}.json",
            json.dumps(payload, ensure_ascii=False, separators=(",", ":")),
        )

    def remove(self, rel: str) -> None:
        """Remove the cache file `rel` at `save` (a stale entry)."""
        if self.writable:
            self._staged[rel] = None

    def save(self) -> None:
        """Write what this run stored, each file atomically, in real folders inside a trusted
        cache folder; nothing when the cache is read-only or untrusted. A write that fails turns
        the cache off for the rest of the run (it costs the next run time, nothing else)."""
        staged, self._staged = self._staged, {}
        if not (self.writable and staged and self.trusted):
            return
        base = self.root / CACHE_DIR
        try:
            _real_folder(self.root, base)
            for name, text in (("CACHEDIR.TAG", _TAG), (".gitignore", "*\n")):
                if not os.path.lexists(base / name):
                    atomic_write(base / name, text, sync=False)
            with os.scandir(base) as entries:
                legacy = [e for e in entries if _LEGACY.match(e.name)]
            for entry in legacy:  # the folder is trusted: no link in it to lead elsewhere
                if entry.is_dir(follow_symlinks=False):
                    shutil.rmtree(entry.path, ignore_errors=True)
                elif entry.is_file(follow_symlinks=False):
                    os.unlink(entry.path)
            for rel, data in sorted(staged.items()):
                path = base / rel
                if data is None:
                    if path.parent == base or _is_real_folder(path.parent):
                        with contextlib.suppress(FileNotFoundError):
                            if stat.S_ISREG(os.lstat(path).st_mode):
                                os.unlink(path)
                    continue
                _real_folder(self.root, path.parent)
                atomic_write(path, data, sync=False)
        except OSError:
            self.writable = False


def _is_real_folder(path: Path) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def _real_folder(root: Path, folder: Path) -> None:
    """Make `folder` (under `root`) and every folder between, each a real folder: one that is a
    symlink or not a folder raises OSError, so nothing is ever written through a link."""
    current = root
    for part in folder.relative_to(root).parts:
        current = current / part
        try:
            mode = os.lstat(current).st_mode
        except FileNotFoundError:
            os.mkdir(current)
            continue
        if not stat.S_ISDIR(mode):
            raise NotADirectoryError(f"{current}: not a real folder")


def untrusted(root: Path) -> str | None:
    """Why the cache folder of `root` is not this instance's own, or None when it is (or does
    not exist yet): `.aeon-evals` or the folder is a symlink or no folder, something inside is
    a symlink, a FIFO, a socket or a device, there are too many files, or git tracks a file in
    it."""
    for path in (root / ".aeon-evals", root / CACHE_DIR):
        try:
            mode = os.lstat(path).st_mode
        except FileNotFoundError:
            return None
        except OSError as exc:
            return f"cannot be read ({exc.strerror or exc})"
        if stat.S_ISLNK(mode):
            return f"{path.relative_to(root).as_posix()} is a symbolic link"
        if not stat.S_ISDIR(mode):
            return f"{path.relative_to(root).as_posix()} is not a folder"
    count = 0
    pending = [root / CACHE_DIR]
    while pending:
        folder = pending.pop()
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    count += 1
                    if count > MAX_FILES:
                        return f"holds more than {MAX_FILES:,} files"
                    if entry.is_symlink():
                        return f"holds a symbolic link ({_shown(root, entry.path)})"
                    if entry.is_dir(follow_symlinks=False):
                        pending.append(Path(entry.path))
                    elif not entry.is_file(follow_symlinks=False):
                        return f"holds a special file ({_shown(root, entry.path)})"
        except OSError as exc:
            return f"cannot be read ({exc.strerror or exc})"
    if _tracked(root):
        return "is tracked by git (committed to the repository: not this run's own)"
    return None


def _shown(root: Path, path: str) -> str:
    with contextlib.suppress(ValueError):
        return Path(path).relative_to(root).as_posix()
    return path


def _tracked(root: Path) -> bool:
    """Whether git tracks a file under `.aeon-evals/`. Git's index is read first: only when it
    names the folder at all (or cannot be read) is git asked."""
    dot_git = root / ".git"
    if not os.path.lexists(dot_git):
        return False
    index = dot_git / "index"
    if dot_git.is_dir():
        try:
            size = index.stat().st_size
            if size <= 256 * MB:
                with open(index, "rb") as fh:
                    if b"aeon-evals" not in fh.read():
                        return False
        except FileNotFoundError:
            return False  # a repository with nothing staged or committed yet
        except OSError:
            pass
    import subprocess  # only for a repository whose index names the folder

    try:
        done = subprocess.run(
            ["git", "-C", str(root), "ls-files", "-z", "--", ".aeon-evals"],
            capture_output=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0 and bool(done.stdout)

"""Output contracts of an instance's skills, inferred from their SKILL.md files, and their cache.

A contract is read from the body's own words, each element with its evidence (the SKILL.md line
and the quoted words): the paths after "Save to / Write to / Append to / Log to / Output: /
Create" (paths only read — "Read", "Latest …", "from" — are inputs, never outputs), the headings
of the fenced template that follows the instruction, a whole-output word floor, and the
placeholders of the skeleton that must not survive into a real output. See docs/contracts.md.

The modules, lowest first: `contract_data` (the plain data and its JSON), `contract_paths`
(paths and the verbs before them), `contract_body` (fences, headings, branches),
`contract_parts` (log heading, template headings, word floor, placeholders), `contract_infer`
(`infer_contract`, pure). This one reads the SKILL.md files and keeps the inferences in
`.aeon-evals/cache/contracts.json` (`load_contracts`), and is where the rest of the tool imports
them from.
"""

from __future__ import annotations

import hashlib
import os
import stat
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

from aeon_evals.cache.folder import Cache, Entry
from aeon_evals.contracts.data import (
    Contract,
    ContractOutput,
    Evidence,
    contract_from_row,
    contract_to_json,
    contract_to_row,
    spec_to_json,
)
from aeon_evals.contracts.paths import LOG_PATTERN, normalize_ref
from aeon_evals.load.skillmd import (
    SKILLS_DIR,
    SkillDoc,
    parse_skill_doc,
    read_skill_bytes,
    skill_md_path,
)

__all__ = [
    "ENTRY",
    "LOG_PATTERN",
    "Contract",
    "ContractOutput",
    "Evidence",
    "contract_to_json",
    "infer_contract",
    "load_contracts",
    "normalize_ref",
    "spec_to_json",
]

# 3: one item per skill: the SKILL.md's hash and stat signature, and its contract as a row
# 4: the row ends with the branch selectors (which `var` value runs which branch)
ENTRY = Entry("contracts", 4)
T = TypeVar("T")
# A file changed less than this long before it was read may change again within the same
# mtime tick (whole seconds on some filesystems, 2 s on FAT) without its signature showing it:
# its signature is not kept, and the next run hashes it.
RACY_NS = 2_000_000_000


def infer_contract(doc: SkillDoc) -> Contract:
    """`contract_infer.infer_contract`, imported on first use: a warm run reads every contract
    from the cache and never loads the inference (its modules and their patterns)."""
    from aeon_evals.contracts.infer import infer_contract as infer

    return infer(doc)


def _plain_folders(root: Path) -> dict[str, str]:
    """Skill name → path of its SKILL.md, for the folders under skills/ that are real folders
    (not symlinks), skills/ itself being a real folder: only their SKILL.md can be trusted by
    its stat signature; every other one is read (and judged) by skillmd."""
    base = root / SKILLS_DIR
    try:
        if base.is_symlink():
            return {}
        with os.scandir(base) as found:
            return {
                entry.name: os.path.join(entry.path, "SKILL.md")
                for entry in found
                if entry.is_dir(follow_symlinks=False)
            }
    except OSError:
        return {}


def _signature(path: str | None) -> list[int] | None:
    """[size, mtime in ns, inode] of the file at `path` when it is a regular file (not a
    symlink); None otherwise."""
    if path is None:
        return None
    try:
        info = os.lstat(path)
    except OSError:
        return None
    return [info.st_size, info.st_mtime_ns, info.st_ino] if stat.S_ISREG(info.st_mode) else None


def _contract_of_row(_skill: str, row: object) -> Contract | None:
    """The contract of a cached row; None when the row is damaged (a miss)."""
    try:
        return contract_from_row(row)
    except (IndexError, TypeError, ValueError):
        return None


def _infer(skill: str, raw: bytes) -> tuple[Contract, bool]:
    """The contract a SKILL.md's bytes state, and whether it may be kept (its frontmatter
    parsed: a broken one is read again, to be said again)."""
    doc = parse_skill_doc(skill, skill_md_path(skill), raw)
    return infer_contract(doc), doc.error is None


def load_contracts(root: Path, skills: Iterable[str], cache: Cache) -> dict[str, Contract]:
    """The contract of each skill that has a SKILL.md under `root` (skills without one are left
    out), kept in `cache` (the entry `contracts`) by `per_skill_md`."""
    return per_skill_md(
        root,
        skills,
        cache,
        ENTRY,
        make=_infer,
        unusable=lambda _skill, doc: infer_contract(doc) if doc is not None else None,
        to_row=contract_to_row,
        from_row=_contract_of_row,
    )


def per_skill_md(
    root: Path,
    skills: Iterable[str],
    cache: Cache,
    entry: Entry,
    *,
    make: Callable[[str, bytes], tuple[T, bool]],
    unusable: Callable[[str, SkillDoc | None], T | None],
    to_row: Callable[[T], Any],
    from_row: Callable[[str, object], T | None],
) -> dict[str, T]:
    """What `make(skill, SKILL.md bytes)` reads from each skill's SKILL.md (the contract, the
    outcome vocabulary), kept in `cache` under `entry`: one item per skill with the SKILL.md's
    SHA-256 and stat signature (size, mtime, inode). A SKILL.md whose signature is unchanged is
    not even read, one whose hash is unchanged is not read again by `make`. `make` also says
    whether its value may be kept; a skill without a usable SKILL.md gets `unusable(skill, the
    doc saying why, or None)` (left out when None) and no item. A damaged or outdated item is a
    miss (`from_row` gives None); a read-only cache (`--dry-run`, `audit`, `contracts`) stores
    nothing."""
    plain = _plain_folders(root)
    found = cache.load(entry, entry.key())
    entries: dict[str, Any] = found if isinstance(found, dict) else {}
    result: dict[str, T] = {}
    changed = False
    now = time.time_ns()
    for skill in sorted(set(skills)):
        item = entries.get(skill)
        if not (isinstance(item, list) and len(item) == 3):
            item = None  # [SHA-256, signature, to_row(value)]
        signature = _signature(plain.get(skill))
        if item is not None and signature is not None and item[1] == signature:
            value = from_row(skill, item[2])
            if value is not None:
                result[skill] = value
                continue
        raw = read_skill_bytes(root, skill)
        if not isinstance(raw, bytes):  # none, or unusable: the doc says why
            changed |= entries.pop(skill, None) is not None
            fallback = unusable(skill, raw)
            if fallback is not None:
                result[skill] = fallback
            continue
        digest = hashlib.sha256(raw).hexdigest()
        # the hash before `make`: an unchanged SKILL.md needs no parse of its frontmatter
        value = from_row(skill, item[2]) if item is not None and item[0] == digest else None
        if value is None:
            value, keep = make(skill, raw)
            if not keep:
                changed |= entries.pop(skill, None) is not None
                result[skill] = value
                continue
        if signature is not None and now - signature[1] < RACY_NS:
            signature = None
        if item is None or item[0] != digest or item[1] != signature:
            entries[skill] = [digest, signature, to_row(value)]
            changed = True
        result[skill] = value
    if changed:
        cache.store(entry, entry.key(), dict(sorted(entries.items())))
    return result

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
from collections.abc import Iterable
from pathlib import Path
from typing import Any

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


def _cached(entry: list[Any]) -> Contract | None:
    """The contract of a cache entry; None when the entry is damaged."""
    try:
        return contract_from_row(entry[2])
    except (IndexError, TypeError, ValueError):
        return None


def load_contracts(root: Path, skills: Iterable[str], cache: Cache) -> dict[str, Contract]:
    """The contract of each skill that has a SKILL.md under `root` (skills without one are left
    out).

    Inferences are kept in `cache` (the entry `contracts`), one item per skill with the
    SKILL.md's SHA-256 and stat signature (size, mtime, inode): a SKILL.md whose signature is
    unchanged is not even read, one whose hash is unchanged is not parsed. A damaged or outdated
    entry is a miss; a read-only cache (`--dry-run`, `audit`, `contracts`) stores nothing.
    """
    plain = _plain_folders(root)
    found = cache.load(ENTRY, ENTRY.key())
    entries: dict[str, Any] = found if isinstance(found, dict) else {}
    result: dict[str, Contract] = {}
    changed = False
    now = time.time_ns()
    for skill in sorted(set(skills)):
        entry = entries.get(skill)
        if not (isinstance(entry, list) and len(entry) == 3):
            entry = None  # [SHA-256, signature, contract_to_row(contract)]
        signature = _signature(plain.get(skill))
        if entry is not None and signature is not None and entry[1] == signature:
            contract = _cached(entry)
            if contract is not None:
                result[skill] = contract
                continue
        raw = read_skill_bytes(root, skill)
        if raw is None or isinstance(raw, SkillDoc):  # none, or unusable: the doc says why
            changed |= entries.pop(skill, None) is not None
            if raw is not None:
                result[skill] = infer_contract(raw)
            continue
        digest = hashlib.sha256(raw).hexdigest()
        # the hash before the parse: an unchanged SKILL.md needs no parse of its frontmatter
        contract = _cached(entry) if entry is not None and entry[0] == digest else None
        if contract is None:
            doc = parse_skill_doc(skill, skill_md_path(skill), raw)
            contract = infer_contract(doc)
            if doc.error is not None:
                changed |= entries.pop(skill, None) is not None
                result[skill] = contract
                continue
        if signature is not None and now - signature[1] < RACY_NS:
            signature = None
        if entry is None or entry[0] != digest or entry[1] != signature:
            entries[skill] = [digest, signature, contract_to_row(contract)]
            changed = True
        result[skill] = contract
    if changed:
        cache.store(ENTRY, ENTRY.key(), dict(sorted(entries.items())))
    return result

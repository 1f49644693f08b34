"""SKILL.md reader: frontmatter (flat or Agent Skills form) and body, read safely from the root."""

from __future__ import annotations

import contextlib
import enum
import hashlib
import os
import re
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from frontmatter.default_handlers import YAMLHandler

from aeon_evals.fsio import inside

SKILLS_DIR = "skills"
SKILL_MD = "SKILL.md"
READ_LIMIT = 1 << 20  # a SKILL.md is a prompt; anything past 1 MiB is not a SKILL.md
_BOUNDARY = re.compile(r"^-{3,}[ \t]*$")
_FALSE = frozenset({"false", "no", "off", "0"})


class Form(enum.StrEnum):
    """How a SKILL.md carries its metadata."""

    FLAT = "flat"  # name, description, var, tags … at the top level
    AGENT_SKILLS = "agent-skills"  # name and description at the top, the rest under `metadata:`
    NONE = "none"  # no frontmatter at all
    BROKEN = "broken"  # a frontmatter block that is not a YAML mapping


@dataclass(frozen=True)
class SkillDoc:
    """One skill's SKILL.md, read and split; `error` says why its text cannot be used at all."""

    skill: str
    path: str  # "skills/<skill>/SKILL.md", relative, POSIX
    sha256: str
    name: str | None
    description: str | None
    meta: Mapping[str, Any]
    scorable: bool
    body: str
    body_line: int  # 1-based line of the body's first line in the file
    form: Form
    warnings: tuple[str, ...] = ()
    error: str | None = None  # binary, too large, not a regular file, outside the root …
    meta_line: Mapping[str, int] = field(default_factory=dict)  # top-level key → its line


def skill_md_path(skill: str) -> str:
    """The SKILL.md of `skill`, relative to the root."""
    return f"{SKILLS_DIR}/{skill}/{SKILL_MD}"


def _unusable(skill: str, path: str, raw: bytes, problem: str) -> SkillDoc:
    return SkillDoc(
        skill=skill,
        path=path,
        sha256=hashlib.sha256(raw).hexdigest(),
        name=None,
        description=None,
        meta={},
        scorable=True,
        body="",
        body_line=1,
        form=Form.NONE,
        warnings=(f"{path}: {problem}",),
        error=problem,
    )


def _is_false(value: object) -> bool:
    if isinstance(value, bool):
        return value is False
    return isinstance(value, str) and value.strip().lower() in _FALSE


def _split(lines: list[str]) -> tuple[int, int] | None:
    """(index of the first frontmatter line, index of the closing boundary), or None."""
    if not lines or not _BOUNDARY.match(lines[0].rstrip("\r\n")):
        return None
    for i in range(1, len(lines)):
        if _BOUNDARY.match(lines[i].rstrip("\r\n")):
            return 1, i
    return None


def _yaml_problem(exc: yaml.YAMLError, first_line: int) -> tuple[int, str]:
    """The file line and the message of a YAML error in a frontmatter starting at `first_line`."""
    mark = getattr(exc, "problem_mark", None)
    line = first_line + (mark.line if mark is not None else 0)
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    return line, str(problem)


def parse_skill_doc(skill: str, path: str, raw: bytes) -> SkillDoc:
    """Split `raw` (a SKILL.md's bytes) into frontmatter and body. Pure; never raises.

    The flat form keeps its top-level keys as `meta`; the Agent Skills form (a `metadata:`
    mapping) has it merged over the top level. No frontmatter, or one that is not valid YAML,
    leaves the whole text (or what follows the block) as the body, with a warning naming the
    file and the line. Binary text (a NUL byte, or not UTF-8) gives a doc with `error` set.
    """
    if b"\x00" in raw[:8192]:
        return _unusable(skill, path, raw, "binary file (NUL bytes); not read as a SKILL.md")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return _unusable(
            skill,
            path,
            raw,
            f"not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset {exc.start}); not read",
        )
    digest = hashlib.sha256(raw).hexdigest()
    lines = text.splitlines(keepends=True)
    bounds = _split(lines)
    warnings: list[str] = []
    meta: dict[str, Any] = {}
    meta_line: dict[str, int] = {}
    form = Form.NONE
    body_start = 0
    if bounds is None:
        if lines and _BOUNDARY.match(lines[0].rstrip("\r\n")):
            warnings.append(f"{path}:1: frontmatter has no closing '---'; read as body text")
    else:
        first, close = bounds
        body_start = close + 1
        block = "".join(lines[first:close])
        try:
            data = YAMLHandler().load(block) if block.strip() else {}
        except yaml.YAMLError as exc:
            line, problem = _yaml_problem(exc, first + 1)
            warnings.append(f"{path}:{line}: frontmatter is not valid YAML: {problem}")
            form = Form.BROKEN
        else:
            if isinstance(data, dict):
                top = {str(k): v for k, v in data.items()}
                nested = top.get("metadata")
                if isinstance(nested, dict):
                    form = Form.AGENT_SKILLS
                    meta = {**top, **{str(k): v for k, v in nested.items()}}
                else:
                    form = Form.FLAT
                    meta = top
                for i in range(first, close):
                    m = re.match(r"([A-Za-z_][\w-]*)\s*:", lines[i])
                    if m and m.group(1) not in meta_line:
                        meta_line[m.group(1)] = i + 1
            else:
                warnings.append(
                    f"{path}:{first + 1}: frontmatter is not a mapping of keys; ignored"
                )
                form = Form.BROKEN
    name = meta.get("name")
    description = meta.get("description")
    scorable = not (_is_false(meta.get("scorable", True)))
    nested = meta.get("metadata")
    if isinstance(nested, dict) and _is_false(nested.get("scorable", True)):
        scorable = False
    return SkillDoc(
        skill=skill,
        path=path,
        sha256=digest,
        name=str(name) if name is not None else None,
        description=str(description) if description is not None else None,
        meta=meta,
        scorable=scorable,
        body="".join(lines[body_start:]),
        body_line=body_start + 1,
        form=form,
        warnings=tuple(warnings),
        meta_line=meta_line,
    )


def read_bounded(root: Path, rel: str) -> bytes | str | None:
    """The bytes of the regular file `rel` under `root` (None when it does not exist), or the
    problem that kept it from being read: never blocks (a FIFO is refused, the file is opened
    non-blocking), never reads more than READ_LIMIT bytes, never follows a symlink out of the
    root."""
    path = root / rel
    try:
        info = path.lstat()
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"cannot read: {exc.strerror}"
    if stat.S_ISLNK(info.st_mode) and not inside(root, path):
        return "symlink leading outside the root; not read"
    # no symlink on the way (skills/, the skill's folder): inside the root without resolving
    on_the_way = [root / p for p in Path(rel).parents if p != Path(".")]
    if any(p.is_symlink() for p in on_the_way) and not inside(root, path.parent):
        return "its folder leads outside the root; not read"
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except FileNotFoundError:
        return "dangling symlink; not read"
    except OSError as exc:
        return f"cannot read: {exc.strerror}"
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return "not a regular file; not read"
        chunks: list[bytes] = []
        size = 0
        while size <= READ_LIMIT:
            chunk = os.read(fd, READ_LIMIT + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        return f"cannot read: {exc.strerror}"
    finally:
        with contextlib.suppress(OSError):
            os.close(fd)
    if size > READ_LIMIT:
        return f"larger than {READ_LIMIT >> 20} MiB; not read as a SKILL.md"
    return b"".join(chunks)


def read_skill_bytes(root: Path, skill: str) -> bytes | SkillDoc | None:
    """The bytes of `skills/<skill>/SKILL.md` as `read_skill_doc` reads them (unparsed: a cached
    contract needs only their hash); a doc with `error` when the file cannot be used; None when
    there is none."""
    rel = skill_md_path(skill)
    raw = read_bounded(root, rel)
    if isinstance(raw, str):
        return _unusable(skill, rel, b"", raw)
    return raw


def read_skill_doc(root: Path, skill: str) -> SkillDoc | None:
    """Read `skills/<skill>/SKILL.md` under `root` (see read_bounded); None when there is none.

    A file that cannot be used gives a doc with `error` and a one-line warning instead of
    raising.
    """
    rel = skill_md_path(skill)
    raw = read_bounded(root, rel)
    if raw is None:
        return None
    if isinstance(raw, str):
        return _unusable(skill, rel, b"", raw)
    return parse_skill_doc(skill, rel, raw)

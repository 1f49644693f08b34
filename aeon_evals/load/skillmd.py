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

from aeon_evals.fs.confine import inside

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


def _yaml_problem(exc: yaml.YAMLError, first_line: int, count: int) -> tuple[int, str]:
    """The file line and the message of a YAML error in a frontmatter of `count` lines starting
    at `first_line`. A construct left open (a quote, a `[`) is found at the end of the
    frontmatter, past its last line (the closing `---`): it is located where it was opened."""
    mark = getattr(exc, "problem_mark", None)
    if mark is not None and mark.line >= count:
        mark = getattr(exc, "context_mark", None) or mark
    line = first_line + (min(mark.line, max(count - 1, 0)) if mark is not None else 0)
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    return line, str(problem)


# The frontmatter most SKILL.md files have: `key: value` lines, and one `metadata:` block of
# them. Read without YAML (a YAML load costs 40 µs a file; lint reads 2,000): only lines whose
# value YAML would read as that very string qualify, anything else goes to the YAML parser.
# tests/test_skillmd.py checks that both readings agree.
_SIMPLE_LINE = re.compile(r"( *)([A-Za-z_][A-Za-z0-9_-]*):(?: +(.*?))? *")
# A plain scalar that cannot be a number, a date, a null or an indicator: it starts with a
# letter; no comment (` #`), no mapping inside (`: `, a trailing `:`), no character YAML treats
# as a break or refuses as non-printable.
_PLAIN = re.compile(
    r"[A-Za-z](?:[^\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff:#]|:(?! )|(?<! )#)*"
)
_QUOTED = re.compile(
    r'"([^"\\\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]*)"'
    r"|'([^'\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]*)'"
)
# `[a, b]`: a flow list of plain words (no comma, colon, bracket or quote inside)
_FLOW_LIST = re.compile(
    r"\[ *((?:[A-Za-z][A-Za-z0-9 _./-]*?)(?: *, *[A-Za-z][A-Za-z0-9 _./-]*?)*)? *\]"
)
# YAML 1.1 reads these plain words as booleans or null, not strings.
_NOT_STRINGS = frozenset(
    form
    for word in ("yes", "no", "true", "false", "on", "off", "null")
    for form in (word, word.title(), word.upper())
)


def _simple_scalar(value: str) -> str | list[str] | None:
    """`value` as YAML reads it when that is the same string (plain or quoted) or a flow list of
    plain words, else None."""
    if value.startswith("["):
        m = _FLOW_LIST.fullmatch(value)
        if m is None:
            return None
        items = [item.strip() for item in m.group(1).split(",")] if m.group(1) else []
        return None if any(item in _NOT_STRINGS for item in items) else items
    if _PLAIN.fullmatch(value):
        return None if value in _NOT_STRINGS or value.endswith(":") else value
    m = _QUOTED.fullmatch(value)
    if m:
        return m.group(1) if m.group(1) is not None else m.group(2)
    return None


def _simple_frontmatter(lines: list[str]) -> dict[str, Any] | None:
    """The mapping of a frontmatter made only of `key: value` lines and at most one level of
    nested `key:` blocks, exactly as YAML reads it; None for anything else."""
    if not lines:
        return None  # YAML reads nothing as null
    top: dict[str, Any] = {}
    nested: dict[str, Any] | None = None
    indent = ""
    for raw in lines:
        line = raw[:-2] if raw.endswith("\r\n") else raw[:-1] if raw.endswith("\n") else raw
        m = _SIMPLE_LINE.fullmatch(line)
        if m is None:
            return None
        spaces, key, value = m.groups()
        if key in _NOT_STRINGS:
            return None
        if spaces:
            if nested is None or (indent and spaces != indent) or key in nested:
                return None
            indent = spaces
            target = nested
        else:
            if nested is not None and not nested:
                return None  # `key:` with nothing under it is null
            nested = None
            if key in top:
                return None
            target = top
        if value is None:
            if spaces:
                return None
            nested, indent = {}, ""
            top[key] = nested
            continue
        text = _simple_scalar(value)
        if text is None:
            return None
        target[key] = text
    if nested is not None and not nested:
        return None
    return top


def _load_frontmatter(block: str, lines: list[str]) -> Any:
    """The frontmatter's data: the simple form read directly, anything else by YAML."""
    simple = _simple_frontmatter(lines)
    if simple is not None:
        return simple
    from frontmatter.default_handlers import YAMLHandler  # python-frontmatter: the other forms

    return YAMLHandler().load(block)


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
            data = _load_frontmatter(block, lines[first:close]) if block.strip() else {}
        except yaml.YAMLError as exc:
            line, problem = _yaml_problem(exc, first + 1, close - first)
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
    # os.path on strings, not pathlib: lint reads 2,000 of these (docs/catalog.md, Speed)
    base = os.fspath(root)
    path = os.path.join(base, rel)
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"cannot read: {exc.strerror}"
    if stat.S_ISLNK(info.st_mode) and not inside(root, Path(path)):
        return "symlink leading outside the root; not read"
    # no symlink on the way (skills/, the skill's folder): inside the root without resolving
    parts = rel.split("/")[:-1]
    on_the_way = (os.path.join(base, *parts[:k]) for k in range(len(parts), 0, -1))
    if any(os.path.islink(p) for p in on_the_way) and not inside(root, Path(path).parent):
        return "its folder leads outside the root; not read"
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except FileNotFoundError:
        return "dangling symlink; not read"
    except OSError as exc:
        return f"cannot read: {exc.strerror}"
    try:
        opened = os.fstat(fd)
        if not stat.S_ISREG(opened.st_mode):
            return "not a regular file; not read"
        chunks: list[bytes] = []
        size = 0
        # one read of the size fstat gives (+1 to see the end), more only if the file grew
        want = min(opened.st_size, READ_LIMIT) + 1
        while size <= READ_LIMIT:
            chunk = os.read(fd, min(want, READ_LIMIT + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            want = 1 << 16
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

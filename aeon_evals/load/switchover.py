"""Switching over from Aeon's LLM-run skill-evals: whether the registry still enables it, and
the one-line edit of aeon.yml that turns it off."""

from __future__ import annotations

import re
from dataclasses import dataclass

from aeon_evals.load.registry import AEON_YML, LLM_SKILL, Registry, parse_registry

_ENABLED_ON = re.compile(r"(\benabled\s*:\s*)([\"']?)(true|yes|on)\2(?![\w-])", re.IGNORECASE)


@dataclass(frozen=True)
class LineEdit:
    """One line of a file to replace: its 1-based number, and its text before and after."""

    path: str
    line: int
    before: str
    after: str


@dataclass(frozen=True)
class LlmSkill:
    """The registry enables the LLM-run skill-evals: where, and the edit that disables it (None
    when its entry is written in a way no one-line edit can safely change)."""

    path: str
    line: int
    edit: LineEdit | None

    def warning(self) -> str:
        """One line: the file, the line, and the exact edit."""
        if self.edit is None:
            fix = "set `enabled: false` in its entry"
        else:
            fix = (
                f"change `enabled: true` to `enabled: false` there, so the line reads "
                f"`{_code(self.edit.after).strip()}`"
            )
        return (
            f"{self.path}:{self.line}: the LLM-run {LLM_SKILL} skill is still enabled: it and "
            f"aeon-evals would both write the day's article, issues and log section; {fix} "
            "(`aeon-evals init --disable-llm-skill` makes that one edit)"
        )


def _code(line: str) -> str:
    """A line without its trailing YAML comment (a `#` after a space, or at the start)."""
    cut = line.find(" #")
    code = line if cut < 0 else line[:cut]
    return "" if code.lstrip().startswith("#") else code


def llm_skill(
    text: str, *, path: str = AEON_YML, registry: Registry | None = None
) -> LlmSkill | None:
    """Whether the registry text enables the LLM-run skill-evals, and the one-line edit that turns
    it off (`enabled: true` → `enabled: false` on the entry's line, or the line below it that
    holds `enabled:` in a multi-line entry). None when it is not enabled. `registry`: the text
    already parsed (a run has it), so a large aeon.yml is not parsed twice."""
    registry = registry if registry is not None else parse_registry(text, path=path)
    reg = registry.skills.get(LLM_SKILL)
    line = registry.lines.get(LLM_SKILL)
    if reg is None or not reg.enabled or line is None:
        return None
    lines = text.lstrip("\ufeff").splitlines()
    head = lines[line - 1]
    width = len(head) - len(head.lstrip(" \t"))
    end = line
    while end < len(lines):
        following = lines[end]
        stripped = following.strip()
        indent = len(following) - len(following.lstrip(" \t"))
        if stripped and not stripped.startswith("#") and indent <= width:
            break
        end += 1
    for index in range(line - 1, end):
        code = _code(lines[index])
        found = list(_ENABLED_ON.finditer(code))
        if len(found) == 1:
            m = found[0]
            before = lines[index]
            after = before[: m.start()] + m.group(1) + "false" + before[m.end() :]
            return LlmSkill(path, index + 1, LineEdit(path, index + 1, before, after))
    return LlmSkill(path, line, None)


def apply_edit(raw: bytes, edit: LineEdit) -> bytes:
    """`raw` with line `edit.line` replaced by `edit.after`; every other byte (line endings, the
    BOM, the last line's missing newline) kept as it is. Raises ValueError when that line no
    longer reads `edit.before`."""
    lines = raw.splitlines(keepends=True)
    index = edit.line - 1
    if index >= len(lines):
        raise ValueError(f"line {edit.line} is past the end of the file")
    current = lines[index]
    body = current.rstrip(b"\r\n")
    ending = current[len(body) :]
    prefix = b"\xef\xbb\xbf" if index == 0 and body.startswith(b"\xef\xbb\xbf") else b""
    if body[len(prefix) :].decode("utf-8") != edit.before:
        raise ValueError(f"line {edit.line} changed since it was read")
    lines[index] = prefix + edit.after.encode("utf-8") + ending
    return b"".join(lines)

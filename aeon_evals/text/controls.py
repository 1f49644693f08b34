"""Control characters out of everything the tool writes: shown escaped (`\\x00`), never raw."""

from __future__ import annotations

import re

# C0 controls but tab and newline, DEL, C1 controls, and the Unicode line/paragraph separators
# that some viewers break lines on.
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]")
_LINE_BREAKS = re.compile("\r\n|[\n\r\u2028\u2029]")


def _show(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escape_controls(text: str) -> str:
    """`text` with every control character but tab and newline written as `\\xNN`."""
    return _CONTROLS.sub(_show, text) if _CONTROLS.search(text) else text


def one_line(text: str, *, tabs: bool = False) -> str:
    """`text` on one line: line breaks shown as `\\n` (a pattern with a newline cannot start a
    heading of its own in a log or a list), other controls escaped; with `tabs`, a tab shown as
    `\\t` too (a line that names skills: see show_name)."""
    if _LINE_BREAKS.search(text):
        text = _LINE_BREAKS.sub(lambda m: "\\r\\n" if m.group(0) == "\r\n" else "\\n", text)
    text = escape_controls(text)
    return text.replace("\t", "\\t") if tabs and "\t" in text else text


def has_controls(text: str) -> bool:
    """True when `escape_controls` would change `text`."""
    return _CONTROLS.search(text) is not None


def has_breaks(text: str) -> bool:
    """True when `one_line` would change `text` (a line break or a control character)."""
    return _CONTROLS.search(text) is not None or _LINE_BREAKS.search(text) is not None


def show_name(name: str) -> str:
    """A name (a skill's folder, an aeon.yml key) as printed: on one line, every control
    character shown escaped, a tab as `\\t` too (in a name it is never layout, and raw it
    shifts the columns of a table or a listing). The article's parser reads the shown name
    back, so a run matches a skill to its previous row by it."""
    return name if name.isprintable() else one_line(name, tabs=True)

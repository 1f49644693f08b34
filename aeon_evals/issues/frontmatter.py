"""Issue frontmatter: read tolerantly (bounded aliases), written as strict YAML, edited by line."""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta
from typing import Any

import yaml

KEY_LINE = re.compile(r"([A-Za-z_][\w.-]*)[ \t]*:(?=[ \t]|$)(.*)")
# Values a frontmatter may expand to: YAML aliases share one node however often they are used, so
# nine levels of `&a [*a × 9]` are a few lines of text and 9⁹ values once walked.
MAX_VALUES = 10_000
_WIDE = 1_000_000  # yaml width: never fold a line

# libyaml's C parser and emitter when present (the emitter is 5x faster; its output is checked)
_FAST_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_FAST_DUMPER: Any = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


class _Invalid:
    """Marks YAML that does not load."""


class _TooBig:
    """Marks YAML whose aliases expand past MAX_VALUES values."""


INVALID = _Invalid()
TOO_BIG = _TooBig()


def lines_of(text: str) -> list[str]:
    """Split on "\\n" only, keeping the endings (str.splitlines also splits on \\x85, \\u2028)."""
    parts = text.split("\n")
    out = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        out.append(parts[-1])
    return out


def bare(line: str) -> str:
    return line.rstrip("\r\n")


def bounds(lines: list[str]) -> tuple[int, int] | None:
    """(first frontmatter line, index of the closing `---`), or None without frontmatter."""
    if not lines or bare(lines[0]).lstrip("\ufeff").rstrip() != "---":
        return None
    for i in range(1, len(lines)):
        if bare(lines[i]).rstrip() in ("---", "..."):
            return 1, i
    return None


def _expands_past(value: dict[Any, Any] | list[Any], limit: int) -> bool:
    """Whether walking `value` (aliases walked as often as they are used) visits over `limit`
    values. Mapping keys are scalars: a list or mapping as a key does not load."""
    stack: list[dict[Any, Any] | list[Any]] = [value]
    seen = 0
    while stack:
        item = stack.pop()
        children = item.values() if isinstance(item, dict) else item
        seen += len(children)
        if seen > limit:
            return True
        stack.extend(child for child in children if isinstance(child, dict | list))
    return False


def safe_load(text: str) -> Any:
    """The YAML value of `text` (a safe loader), INVALID when it does not load (PyYAML raises
    ValueError on bad dates too), TOO_BIG when its aliases (`*name`) expand past MAX_VALUES
    values."""
    try:
        value = yaml.load(text, Loader=_FAST_LOADER)
    except (yaml.YAMLError, ValueError, TypeError, RecursionError):
        return INVALID
    if "*" in text and isinstance(value, dict | list) and _expands_past(value, MAX_VALUES):
        return TOO_BIG
    return value


# The frontmatter this tool writes, and most others: one `key: value` a line (or a key over a
# block list of `- item` lines), each value a plain word run, a quoted string without escapes,
# or an inline list of plain words.
_SIMPLE_LINE = re.compile(r"([A-Za-z_][\w-]*):(?:[ ]+(.*?))?[ ]*")
_ITEM_LINE = re.compile(r"([ ]*)-[ ]+(.*?)[ ]*")
_PLAIN = re.compile(r"[A-Za-z0-9_][\w./+|():\\-]*(?:[ ]+[\w./+|():\\-]+)*")
_SINGLE = re.compile(r"'((?:[^'\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]|'')*)'")
_DOUBLE = re.compile(r'"([^"\\\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]*)"')
_WORD = re.compile(r"[A-Za-z0-9_][\w./+()-]*")
_STR_TAG = "tag:yaml.org,2002:str"
_RESOLVER = yaml.resolver.Resolver()
_CONSTRUCTOR = yaml.constructor.SafeConstructor()


def _plain(word: str) -> object:
    """What the safe loader makes of a plain scalar: the text, or the null, bool, number or date
    its implicit tag gives (the loader's own constructor builds it); INVALID when that fails."""
    tag = _RESOLVER.resolve(yaml.ScalarNode, word, (True, False))  # type: ignore[no-untyped-call]
    if tag == _STR_TAG:
        return word
    try:
        build = _CONSTRUCTOR.yaml_constructors[tag]
        return build(_CONSTRUCTOR, yaml.ScalarNode(tag, word))
    except Exception:  # a bad date is ValueError, others raise what they raise: YAML decides
        return INVALID


def _scalar(raw: str) -> object:
    """A one-line scalar as the safe loader reads it, or INVALID when it is not a simple one."""
    if m := _SINGLE.fullmatch(raw):
        return m.group(1).replace("''", "'")
    if m := _DOUBLE.fullmatch(raw):
        return m.group(1)
    if _PLAIN.fullmatch(raw) and ": " not in raw and not raw.endswith(":"):
        return _plain(raw)
    return INVALID


def _simple_value(raw: str) -> object:
    """The value of one `key: value` line as yaml.safe_load reads it, or INVALID when it is not
    one of the simple forms (the whole frontmatter then goes to the YAML parser)."""
    if not raw:
        return None
    if raw[0] == "[" and raw[-1] == "]":
        inner = raw[1:-1].strip()
        if not inner:
            return []
        items = [item.strip() for item in inner.split(",")]
        if not all(_WORD.fullmatch(item) for item in items):
            return INVALID
        values = [_plain(item) for item in items]
        return INVALID if any(v is INVALID for v in values) else values
    return _scalar(raw)


def _simple(fm_lines: list[str]) -> dict[str, Any] | None:
    """The frontmatter read without the YAML parser when every line is a simple `key: value` or
    an item of a key's block list: the very dict yaml.safe_load gives; None for anything else.
    A few hundred issue files are read by every run and again by its dashboard."""
    out: dict[str, Any] = {}
    listing: list[object] | None = None  # the block list the last key opened, if any
    indent: str | None = None  # its items' indentation
    last = ""
    for line in fm_lines:
        text = bare(line)
        if (m := _ITEM_LINE.fullmatch(text)) is not None:
            if listing is None or (indent is not None and m.group(1) != indent):
                return None
            if indent is None:
                listing, indent = [], m.group(1)
                out[last] = listing
            value = _scalar(m.group(2))
            if value is INVALID:
                return None
            listing.append(value)
            continue
        m = _SIMPLE_LINE.fullmatch(text)
        if m is None or _plain(m.group(1)) != m.group(1):
            return None
        last, value = m.group(1), _simple_value(m.group(2) or "")
        if value is INVALID:
            return None
        out[last] = value
        listing, indent = ([], None) if not m.group(2) else (None, None)  # `key:` opens a list
    return out or None


def parse(fm_lines: list[str]) -> tuple[dict[str, Any], bool, str | None]:
    """The frontmatter as a dict, whether it was valid YAML (else read key by key), and what
    was wrong with it, if anything worth a warning."""
    simple = _simple(fm_lines)
    if simple is not None:
        return simple, True, None
    data = safe_load("".join(fm_lines))
    if isinstance(data, dict):
        return {str(k): v for k, v in data.items()}, True, None
    values, dropped = _lenient(fm_lines)
    if data is not TOO_BIG:
        return values, False, None
    note = f"YAML aliases expand past {MAX_VALUES:,} values; read key by key"
    if dropped:
        note += ", " + ", ".join(repr(k) for k in dropped) + " ignored"
    return values, False, note


def _lenient(fm_lines: list[str]) -> tuple[dict[str, Any], tuple[str, ...]]:
    """Read `key: value` chunks one by one, so a bad line (an unquoted `: `) spoils only itself."""
    chunks: list[tuple[str, list[str]]] = []
    for raw in fm_lines:
        line = bare(raw)
        m = KEY_LINE.match(line)
        if m:
            chunks.append((m.group(1), [m.group(2)]))
        elif chunks:
            chunks[-1][1].append(line)
    out: dict[str, Any] = {}
    dropped: list[str] = []
    for key, parts in chunks:
        value = safe_load("_:" + "\n".join(parts) + "\n")
        if value is TOO_BIG:
            dropped.append(key)
            continue
        if isinstance(value, dict) and list(value) == ["_"]:
            out[key] = value["_"]
            continue
        first, rest = parts[0].strip(), [p.strip() for p in parts[1:]]
        if first[:1] in ("|", ">") and len(first) <= 3:
            first = ""
        out[key] = "\n".join(p for p in [first, *rest] if p) if rest else first
    return out, tuple(dropped)


def _iso(value: datetime) -> str:
    if value.tzinfo is not None and value.utcoffset() == timedelta(0):
        fmt = "%Y-%m-%dT%H:%M:%S.%fZ" if value.microsecond else "%Y-%m-%dT%H:%M:%SZ"
        return value.strftime(fmt)
    return value.isoformat()


def text(value: Any) -> str:
    """A frontmatter value as text: dates in ISO form, lists joined with commas, null empty."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime):
        return _iso(value)
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, list | tuple):
        return ", ".join(text(v) for v in value)
    return str(value)


def _dump_pair(key: str, value: object, *, check: bool = True) -> str:
    """`key: value` as YAML that loads back to exactly `value` (with `check`: checked, and
    escaped ASCII if not)."""
    pair = {key: value}
    flow = None if isinstance(value, list) else False  # lists inline, the mapping itself in block
    options: dict[str, Any] = {"sort_keys": False, "width": _WIDE, "default_flow_style": flow}
    out = str(yaml.dump(pair, Dumper=_FAST_DUMPER, allow_unicode=True, **options))
    if check and safe_load(out) != pair:
        out = str(
            yaml.dump(pair, Dumper=_FAST_DUMPER, allow_unicode=False, default_style='"', **options)
        )
    return out


def render(fields: dict[str, object]) -> str:
    """`---`, the fields as strict YAML in their order, `---`."""
    # One check for the whole usual issue; pair by pair (escaping what needs it) otherwise.
    if any(isinstance(v, list) for v in fields.values()):
        # One dump: a block mapping whose lists are inline, as the pairs dumped one by one
        # (a mapping of scalars alone would come out inline).
        options: dict[str, Any] = {"sort_keys": False, "width": _WIDE, "default_flow_style": None}
        out = str(yaml.dump(fields, Dumper=_FAST_DUMPER, allow_unicode=True, **options))
    else:
        out = "".join(_dump_pair(k, v, check=False) for k, v in fields.items())
    if _loads(out) != fields:
        out = "".join(_dump_pair(k, v) for k, v in fields.items())
    return "---\n" + out + "---\n"


def _loads(text: str) -> Any:
    """safe_load(text) of a frontmatter's lines: without the parser when they are simple."""
    simple = _simple(lines_of(text))
    return simple if simple is not None else safe_load(text)


def resolve_text(text: str, when: str) -> str | None:
    """`text` with only its frontmatter `status:` and `resolved_at:` lines rewritten (or added)."""
    lines = lines_of(text)
    found = bounds(lines)
    if found is None:
        return None
    start, end = found
    chunks: list[tuple[str, int, int]] = []  # key, first line, end (exclusive)
    i = start
    while i < end:
        m = KEY_LINE.match(bare(lines[i]))
        if not m:
            i += 1
            continue
        j = i + 1
        while j < end and lines[j][:1] in (" ", "\t", "-") and bare(lines[j]).strip():
            j += 1
        chunks.append((m.group(1), i, j))
        i = j
    status_line = next((lines[a] for k, a, _ in chunks if k == "status"), lines[0])
    eol = "\r\n" if status_line.endswith("\r\n") else "\n"
    new = {"status": f"status: resolved{eol}", "resolved_at": f'resolved_at: "{when}"{eol}'}
    present = {k for k, _, _ in chunks}
    out: list[str] = list(lines[:start])
    pos = start
    inserts: dict[str, str] = {}
    if "resolved_at" not in present:
        anchor = "detected_at" if "detected_at" in present else "status"
        inserts[anchor] = new["resolved_at"]
    for key, a, b in chunks:
        out.extend(lines[pos:a])
        out.append(new[key] if key in new else "".join(lines[a:b]))
        if key in inserts:
            out.append(inserts.pop(key))
        pos = b
    out.extend(lines[pos:end])
    if "status" not in present:
        out.append(new["status"])
    out.extend(inserts.values())
    out.extend(lines[end:])
    return "".join(out)

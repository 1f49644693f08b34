"""YAML read safely: YAML 1.1's yes/no/on/off stay strings, aliases and nesting are bounded
before anything is built, libyaml's parser when present."""

from __future__ import annotations

import re
from typing import Any

import yaml


def _loader(base: Any) -> Any:
    """`base` with YAML 1.1's surprise removed: `on`, `off`, `yes`, `no` stay strings.

    A skill may be named `off`."""
    loader: Any = type(f"_{base.__name__}", (base,), {})
    loader.yaml_implicit_resolvers = {
        key: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:bool"]
        for key, resolvers in base.yaml_implicit_resolvers.items()
    }
    loader.add_implicit_resolver(
        "tag:yaml.org,2002:bool",
        re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
        list("tTfF"),
    )
    return loader


_PyLoader = _loader(yaml.SafeLoader)
# libyaml's C parser when present: about 10× faster on a 1,000-skill aeon.yml.
_FastLoader = _loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader))


MAX_NODES = 200_000  # nodes after alias expansion: a 1,000-skill aeon.yml has about 5,000
MAX_DEPTH = 100  # nesting levels: an entry needs three


class ShapeError(yaml.YAMLError):
    """A document that would expand past MAX_NODES through aliases, or nest past MAX_DEPTH."""

    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem


def _check_shape(text: str, loader: Any) -> None:
    """Walk the parser's events (no recursion, no objects built) and refuse a document whose
    aliases expand to more than MAX_NODES nodes (`&a [*a, *a, …]` nine levels deep is 387
    million) or that nests deeper than MAX_DEPTH (the composer recurses once per level)."""
    sizes: dict[str, int] = {}
    stack: list[tuple[str | None, int]] = []  # (anchor, nodes counted before the collection)
    total = 0
    for event in yaml.parse(text, Loader=loader):
        if isinstance(event, yaml.CollectionStartEvent):
            stack.append((event.anchor, total))
            total += 1
            if len(stack) > MAX_DEPTH:
                raise ShapeError(f"nested more than {MAX_DEPTH} levels deep")
        elif isinstance(event, yaml.CollectionEndEvent):
            anchor, before = stack.pop()
            if anchor is not None:
                sizes[anchor] = total - before
        elif isinstance(event, yaml.ScalarEvent):
            total += 1
            if event.anchor is not None:
                sizes[event.anchor] = 1
        elif isinstance(event, yaml.AliasEvent):
            total += sizes.get(event.anchor or "", 1)
        if total > MAX_NODES:
            raise ShapeError(
                f"its aliases expand to more than {MAX_NODES:,} values (an alias bomb)"
            )


def load(text: str, *, precise: bool = False, checked: bool = False) -> object:
    """Parse with libyaml; with `precise`, a failure is re-parsed by the pure-Python parser,
    which words its errors more clearly (used for one entry's text, never the whole file).
    Alias expansion and depth are bounded first (ShapeError, a YAMLError), unless `checked`:
    the caller walked a text holding this one already (checked_past)."""
    try:
        if not checked:
            _check_shape(text, _FastLoader)
        return yaml.load(text, Loader=_FastLoader)  # SafeLoader subclasses: safe
    except ShapeError:
        raise
    except yaml.YAMLError:
        if not precise:
            raise
        _check_shape(text, _PyLoader)
        return yaml.load(text, Loader=_PyLoader)


def checked_past(exc: yaml.YAMLError) -> int:
    """After `load(text)` raised `exc`: the lines of `text` before this index were walked by the
    shape check and passed it (libyaml's parser reports an error only once the lines before it
    were turned into events); -1 when nothing is known."""
    mark = getattr(exc, "problem_mark", None)
    if isinstance(exc, ShapeError) or mark is None:
        return -1
    return int(mark.line)

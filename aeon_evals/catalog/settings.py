"""Where an instance keeps its lint settings: the `lint` section of evals.json, or, in an
instance without one (upstream Aeon since July 2026), an `aeon-evals:` block in its skill
registry (aeon.yml), the way a Python project keeps `[tool.ruff]` in its pyproject.toml:

```yaml
aeon-evals:
  lint:
    ignore: [AE201]
```

One place only: settings in both are an error naming both.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from aeon_evals.catalog.select import DEFAULT, Selection, from_settings
from aeon_evals.errors import EvalsError
from aeon_evals.fs.confine import read_confined
from aeon_evals.load.manifest import EVALS_PATH
from aeon_evals.model.problems import Problem, Severity
from aeon_evals.text import jsonpos, yamlsafe

EVALS_KEY = "lint"
BLOCK = "aeon-evals"  # the registry's top-level key; its `lint` holds the settings
_BLOCK_LINE = re.compile(rf"^{BLOCK}\s*:")
_TOP_KEY = re.compile(r"^[A-Za-z_][\w.-]*\s*:")


def _from_evals(data: object, text: str) -> tuple[Selection, list[Problem]] | None:
    if not isinstance(data, dict) or data.get(EVALS_KEY) is None:
        return None
    lines = jsonpos.member_lines(text)
    return from_settings(
        data[EVALS_KEY],
        file=EVALS_PATH,
        where=EVALS_KEY,
        line_of=lambda where: jsonpos.line_of(lines, where),
    )


def _from_registry(root: Path, name: str) -> tuple[Selection, list[Problem]] | None:
    """The `aeon-evals: lint:` settings of the registry `name`, None without such a block."""
    try:
        text = read_confined(root, name).decode("utf-8", errors="replace")
    except (OSError, EvalsError):  # load_registry has said why it cannot be read
        return None
    lines = text.lstrip("\ufeff").splitlines()
    start = next((i for i, line in enumerate(lines) if _BLOCK_LINE.match(line)), None)
    if start is None:
        return None
    end = next((i for i in range(start + 1, len(lines)) if _TOP_KEY.match(lines[i])), len(lines))
    block = lines[start:end]
    try:
        data = yamlsafe.load("\n".join(block))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = start + 1 + (mark.line if mark is not None else 0)
        why = getattr(exc, "problem", None) or "not valid YAML"
        message = f"not valid YAML ({why}); lint settings ignored"
        return DEFAULT, [Problem(name, BLOCK, message, Severity.WARNING, line)]
    value = data.get(BLOCK) if isinstance(data, dict) else None
    if not isinstance(value, dict) or value.get(EVALS_KEY) is None:
        return None

    def line_of(where: str) -> int:
        """The line of the block that names the last key of `where` (`ignore` of
        `aeon-evals.lint.ignore[0]`), else the block's first."""
        key = re.sub(r"\[\d+\]$", "", where).rsplit(".", 1)[-1]
        pattern = re.compile(rf"^\s*{re.escape(key)}\s*:")
        hit = next((i for i, line in enumerate(block) if pattern.match(line)), 0)
        return start + 1 + hit

    return from_settings(value[EVALS_KEY], file=name, where=f"{BLOCK}.{EVALS_KEY}", line_of=line_of)


def lint_settings(
    root: Path, registry: str, evals: tuple[object, str] | None
) -> tuple[Selection, list[Problem]]:
    """The instance's lint settings and what is wrong with them: from evals.json (`evals`: its
    data and text, None when it is absent or unreadable), else from the registry's `aeon-evals:`
    block. Settings in both are an error, and neither is used."""
    in_evals = _from_evals(*evals) if evals is not None else None
    in_registry = _from_registry(root, registry)
    if in_evals is not None and in_registry is not None:
        message = (
            f"lint settings in both {EVALS_PATH} ({EVALS_KEY}) and {registry} "
            f"({BLOCK}.{EVALS_KEY}): keep one"
        )
        return DEFAULT, [Problem(EVALS_PATH, EVALS_KEY, message, Severity.ERROR)]
    return in_evals or in_registry or (DEFAULT, [])

"""evals.json as a file: read confined to the root (again, once, when it does not parse: it may
be half-written), its bytes decoded with the offending token located, keys written twice, and
problems located at the line of the member they name. `manifest` validates what it holds."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from aeon_evals.errors import ConfigError, EvalsError
from aeon_evals.fs.confine import read_confined
from aeon_evals.model.problems import Problem, Severity
from aeon_evals.text import jsonio

EVALS_PATH = "skills/skill-evals/evals.json"


def decode_json(raw: bytes) -> Any:
    """Parse evals.json bytes (a UTF-8 BOM is tolerated). Raises ValueError with the location:
    `invalid JSON at line 3 column 5: …`, `invalid JSON: trailing comma at line 101 column 18 (…)`
    (jsonpos.decode_error) or `not UTF-8 text (byte 0xff at offset 12)`."""
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(
            f"not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset {exc.start})"
        ) from None
    try:
        return jsonio.loads(text).data
    except json.JSONDecodeError as exc:
        from aeon_evals.text import jsonpos  # the token finder: only a broken file needs it

        raise ValueError(jsonpos.decode_error(text, exc)) from None
    except jsonio.JSONTooDeep:
        raise ValueError("invalid JSON: nested too deeply") from None


def duplicate_keys(raw: bytes) -> list[Problem]:
    """Warnings for keys written twice in one JSON object (json.loads silently keeps the last),
    each at the path and line of the repeat."""
    from aeon_evals.text import jsonpos  # the line finder: only a file with problems needs it

    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return []
    return [
        Problem(
            EVALS_PATH,
            where,
            "written twice in the same object; the last one wins",
            Severity.WARNING,
            line,
        )
        for where, line in jsonpos.duplicate_members(text)
    ]


class _Repeated(Exception):
    """A JSON object writes a key twice (raised by `_has_repeated_keys`'s hook)."""


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found = dict(pairs)
    if len(found) != len(pairs):
        raise _Repeated
    return found


def has_repeated_keys(text: str) -> bool:
    """Whether some object of the JSON `text` (which parsed) writes a key twice: one pass of the
    C parser, a fiftieth of the cost of locating every member (jsonpos), which only the
    documents with a repeat then pay."""
    try:
        json.loads(text, object_pairs_hook=_unique_pairs)
    except _Repeated:
        return True
    except (ValueError, RecursionError):  # decode_json has reported it; the scan will tell
        return True
    return False


def with_lines(problems: Iterable[Problem], lines: Mapping[str, int]) -> list[Problem]:
    """evals.json problems located at the line of the member they name (`lines` from
    `jsonpos.member_lines`); a problem that already has its line keeps it."""
    from aeon_evals.text import jsonpos  # the line finder: only a file with problems needs it

    return [
        replace(p, line=jsonpos.line_of(lines, p.where))
        if p.file == EVALS_PATH and p.line is None
        else p
        for p in problems
    ]


def retrying_note(problem: str, delay: float) -> str:
    """What a run says on stderr before it waits to read evals.json again."""
    return (
        f"aeon-evals: {EVALS_PATH}: {problem}; reading it again in {delay:g}s (it may be "
        "half-written by a commit)"
    )


def to_stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def read_raw(
    root: Path, retry_delay: float | None, announce: Callable[[str], None] = to_stderr
) -> tuple[bytes, Any] | None:
    """evals.json's bytes and parsed JSON, None when the file does not exist (see
    `read_manifest_data`). `retry_delay=None`: read once, no retry. Before it waits to read
    the file again, `announce` gets the line saying so (default: printed on stderr), so that
    a run never waits in silence."""
    attempts = (1,) if retry_delay is None else (1, 2)
    for attempt in attempts:
        try:
            raw = read_confined(root, EVALS_PATH)
        except FileNotFoundError:
            return None
        except IsADirectoryError:
            raise ConfigError("is a folder, not a file", path=EVALS_PATH) from None
        except EvalsError as exc:
            raise ConfigError(exc.message, path=EVALS_PATH) from None
        except OSError as exc:
            raise ConfigError(f"cannot read: {exc.strerror}", path=EVALS_PATH) from None
        try:
            return raw, decode_json(raw)
        except ValueError as exc:
            if retry_delay is None:
                raise ConfigError(str(exc), path=EVALS_PATH) from None
            if attempt == 2:
                raise ConfigError(
                    f"{exc} (also after a retry {retry_delay:g}s later)", path=EVALS_PATH
                ) from None
            announce(retrying_note(str(exc), retry_delay))
            time.sleep(retry_delay)
    return None  # pragma: no cover - the loop always returns or raises

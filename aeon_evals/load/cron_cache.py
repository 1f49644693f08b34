"""The run's cache of cron expressions (`.aeon-evals/cache/cron.json`): each schedule's fields
as croniter expanded them and its cadence, so that a warm run needs no croniter at all.

Keyed by the expressions themselves and by a hash of the code that computes them (cadence.py
and croniter's own sources): another version of either, a damaged file or a malformed entry is
a miss, computed again. Read through `fsio.load_cache_json`; written only by a run that writes.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
from importlib.util import find_spec
from pathlib import Path

from aeon_evals.cache.files import cache_allowed, load_cache_json
from aeon_evals.fs.write import atomic_write
from aeon_evals.load import cadence

CACHE_FILE = Path(".aeon-evals") / "cache" / "cron.json"
VERSION = 1


def _fingerprint() -> str:
    """A hash of the format version, cadence.py and croniter's sources (found, not imported)."""
    digest = hashlib.sha256(f"v{VERSION}".encode())
    sources = [Path(cadence.__file__)]
    spec = find_spec("croniter")
    for folder in (spec.submodule_search_locations or []) if spec is not None else []:
        sources += sorted(Path(folder).glob("*.py"))
    for path in sources:
        digest.update(path.name.encode())
        with contextlib.suppress(OSError):
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def load(root: Path) -> str:
    """Seed `cadence` with the cache under `root`; returns the code's fingerprint for `save`.
    A missing, damaged or outdated cache seeds nothing; a malformed entry is left out."""
    fingerprint = _fingerprint()
    data = load_cache_json(root, root / CACHE_FILE)
    if not (
        isinstance(data, dict)
        and data.get("version") == VERSION
        and data.get("fingerprint") == fingerprint
    ):
        return fingerprint
    fields: dict[str, cadence.Fields | str] = {}
    gaps: dict[str, float | str] = {}
    raw_fields, raw_gaps = data.get("fields"), data.get("gaps")
    for expr, row in raw_fields.items() if isinstance(raw_fields, dict) else ():
        found = row if isinstance(row, str) else cadence.fields_from_json(row)
        if found is not None:
            fields[expr] = found
    for expr, gap in raw_gaps.items() if isinstance(raw_gaps, dict) else ():
        if isinstance(gap, str) or (type(gap) is float and math.isfinite(gap) and gap > 0):
            gaps[expr] = gap
    cadence.seed(fields, gaps)
    return fingerprint


def save(root: Path, fingerprint: str) -> None:
    """Write what this process computed beside what the cache held (nothing when it computed
    nothing, or the cache folder leads outside the root); a failed write is only slower."""
    found = cadence.learned()
    if found is None:
        return
    fields, gaps = found
    payload = {
        "version": VERSION,
        "fingerprint": fingerprint,
        "fields": {
            expr: value if isinstance(value, str) else cadence.fields_to_json(value)
            for expr, value in sorted(fields.items())
        },
        "gaps": dict(sorted(gaps.items())),
    }
    with contextlib.suppress(OSError):
        if (root / ".aeon-evals").is_symlink() or not cache_allowed(root):
            return
        atomic_write(root / CACHE_FILE, json.dumps(payload, separators=(",", ":")), sync=False)

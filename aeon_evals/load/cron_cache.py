"""The run's cache of cron expressions (`.aeon-evals/cache/cron.json`): each schedule's fields
as croniter expanded them and its cadence, so that a warm run needs no croniter at all.

A cache entry (`cache.folder.Entry`): another version of the code or of croniter, a damaged
file or a malformed entry is a miss, computed again; stored only by a run that writes.
"""

from __future__ import annotations

import math

from aeon_evals.cache.folder import Cache, Entry
from aeon_evals.load import cadence

ENTRY = Entry("cron", 2)


def load(cache: Cache) -> None:
    """Seed `cadence` with what `cache` holds. A missing, damaged or outdated entry seeds
    nothing; a malformed expression is left out."""
    data = cache.load(ENTRY, ENTRY.key())
    if not isinstance(data, dict):
        return
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


def save(cache: Cache) -> None:
    """Store what this process computed beside what the cache held (nothing when it computed
    nothing)."""
    found = cadence.learned()
    if found is None:
        return
    fields, gaps = found
    payload = {
        "fields": {
            expr: value if isinstance(value, str) else cadence.fields_to_json(value)
            for expr, value in sorted(fields.items())
        },
        "gaps": dict(sorted(gaps.items())),
    }
    cache.store(ENTRY, ENTRY.key(), payload)

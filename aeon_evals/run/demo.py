"""`aeon-evals demo`: copy the bundled instance, move its dates next to today, run the pipeline."""

from __future__ import annotations

import re
import shutil
from datetime import date, timedelta
from pathlib import Path

from aeon_evals.resources import DEMO_PARTS, demo_instance_dir

ANCHOR = date(2026, 3, 1)  # the day the bundled instance's next run is due
_DATE = re.compile(r"(?<!\d)(20\d\d-\d\d-\d\d)(?!\d)")


def _shift_text(text: str, delta: timedelta) -> str:
    def move(m: re.Match[str]) -> str:
        try:
            return (date.fromisoformat(m.group(1)) + delta).isoformat()
        except ValueError:
            return m.group(1)

    return _DATE.sub(move, text)


def free_folder(base: Path) -> Path:
    """`base`, or `base-2`, `base-3` … whichever does not exist yet."""
    candidate, n = base, 1
    while candidate.exists():
        n += 1
        candidate = base.with_name(f"{base.name}-{n}")
    return candidate


def make_demo(target: Path, today: date) -> Path:
    """Copy the demo instance to `target` (which must not exist) with every date shifted so
    that the instance's next run falls on `today`."""
    source = demo_instance_dir()
    delta = today - ANCHOR
    target.mkdir(parents=True)
    for part in DEMO_PARTS:
        src = source / part
        if src.is_file():
            files = [src]
        elif src.is_dir():
            files = sorted(
                p for p in src.rglob("*") if p.is_file() and "__pycache__" not in p.parts
            )
        else:
            continue
        for file in files:
            rel = file.relative_to(source).as_posix()
            dest = target / _shift_text(rel, delta)
            dest.parent.mkdir(parents=True, exist_ok=True)
            try:
                text = file.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                shutil.copy2(file, dest)
                continue
            dest.write_text(_shift_text(text, delta), encoding="utf-8")
    return target

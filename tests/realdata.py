"""Locate ../shared/realdata and build Aeon instances from its real files."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
REALDATA = Path(os.environ.get("AEON_EVALS_REALDATA", REPO.parent / "shared" / "realdata"))


def realdata() -> Path:
    """The real files (`AEON_EVALS_REALDATA`, else ../shared/realdata beside the checkout); every
    test that reads them calls this. A missing folder skips the test, with the reason, but fails
    it under CI (`CI=true`), where real-data tests must not vanish quietly."""
    if not REALDATA.is_dir():
        message = (
            f"real data folder {REALDATA} is missing "
            "(set AEON_EVALS_REALDATA to the folder holding the real Aeon files)"
        )
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return REALDATA


def put(src: Path, dest: Path) -> Path:
    """Copy one real file to its real name (realdata names carry an `@version` suffix)."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src, dest)
    return dest


def anajuliabit_instance(root: Path, *, with_articles: bool = True) -> Path:
    """anajuliabit/aeon as it stood for the 2026-05-31 run: its evals.json, aeon.yml, cron-state,
    logs, outputs and the 2026-05-24 article as the previous run."""
    src = realdata() / "anajuliabit__aeon"
    put(
        src / "skills/skill-evals/evals.json@2026-05-28_b4ce442",
        root / "skills/skill-evals/evals.json",
    )
    put(src / "aeon.yml@2026-05-31_ea83659", root / "aeon.yml")
    put(src / "memory/cron-state.json@2026-05-31_ea83659", root / "memory/cron-state.json")
    for log in (src / "memory/logs").iterdir():
        put(log, root / "memory/logs" / log.name.split("@")[0])
    for health in (src / "memory/skill-health").iterdir():
        if health.name.endswith("@2026-05-31_ea83659") or "@2026-05-24" in health.name:
            put(health, root / "memory/skill-health" / health.name.split("@")[0])
    for name in ("changelog-2026-03-19.md", "cost-report-2026-05-25.md"):
        put(src / "articles" / name, root / "articles" / name)
    if with_articles:
        put(src / "articles/skill-evals-2026-05-24.md", root / "articles/skill-evals-2026-05-24.md")
    return root


AEONFUN = "aeonfun__aeon@2026-05-03"
AEONFUN_NOW = "2026-05-03T06:35:29Z"
MIROSHARK = "aaronjmars__miroshark-aeon@2026-08-22"
MIROSHARK_NOW = "2026-08-22T17:07:26Z"
SKOPOS = "Svector-anu__skopos-aeon@2026-07-24"
SKOPOS_NOW = "2026-07-24T10:48:05Z"
DA6HKIN = "Da6hkin__aeon@2026-07-11"
DA6HKIN_NOW = "2026-07-11T23:55:11Z"


def whole_instance(name: str, dest: Path) -> Path:
    """A copy of one whole real instance from realdata/instances/ (runs write into it)."""
    shutil.copytree(realdata() / "instances" / name, dest)
    return dest

"""The run's cron cache (`.aeon-evals/cache/cron.json`, boot pass): every expression answered
from it as croniter answers it, a warm run without croniter, a damaged cache a miss."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from conftest import Instance

from aeon_evals.cache.folder import CACHE_DIR, Cache
from aeon_evals.load import cadence, cron_cache

CACHE_FILE = CACHE_DIR / "cron.json"

Cli = Callable[..., tuple[int, str, str]]
NOW = datetime(2026, 5, 31, 6, 0, tzinfo=UTC)
# daily, weekly, a day-of-month step (croniter's own days), errors of each kind
EXPRESSIONS = [
    "0 7 * * *",
    "*/30 * * * *",
    "0 8 * * 1,3",
    "25 7 2/2 * *",
    "0 0 */20 * *",
    "0 9 1 jan-mar mon",
    "0 7 * * * *",
    "0 0 L * *",
    "61 * * * *",
]
NEVER = "0 0 31 2 *"  # valid, never fires: its previous fire is croniter's to refuse


def _answer(expr: str, what: str) -> object:
    """One answer of cadence about `expr` (JSON-able), or the CronError's text."""
    try:
        if what == "fields":
            return cadence.fields_to_json(cadence._fields(expr))
        if what == "gap":
            return cadence.cron_gap_days(expr)
        return str(cadence.previous_fire(expr, NOW))
    except cadence.CronError as exc:
        return f"CronError: {exc}"


def answers(expressions: list[str]) -> list[list[object]]:
    """Each expression's fields, cadence and previous fire at NOW (or the CronError's text)."""
    return [[_answer(e, what) for what in ("fields", "gap", "previous")] for e in expressions]


@pytest.fixture(autouse=True)
def _fresh() -> Iterator[None]:
    cadence.forget()
    yield
    cadence.forget()


WARM = """
import json, sys
from pathlib import Path
from aeon_evals.cache.folder import Cache
from aeon_evals.load import cron_cache
sys.path.insert(0, sys.argv[2])
from test_cron_cache import EXPRESSIONS, NEVER, answers
cron_cache.load(Cache(Path(sys.argv[1])))
warm = answers(EXPRESSIONS)
imported = "croniter" in sys.modules
print(json.dumps([warm + answers([NEVER]), imported]))
"""


def test_expressions_read_from_the_cache_answer_as_croniter_and_without_it(
    tmp_path: Path,
) -> None:
    """Computed with croniter, saved, then read back in a fresh process: the same fields,
    cadences, previous fires and CronError messages, and croniter never imported there."""
    cold = answers([*EXPRESSIONS, NEVER])
    cache = Cache(tmp_path)
    cron_cache.load(cache)  # nothing there yet
    cron_cache.save(cache)
    cache.save()
    assert (tmp_path / CACHE_FILE).is_file()
    done = subprocess.run(
        [sys.executable, "-c", WARM, str(tmp_path), str(Path(__file__).parent)],
        capture_output=True,
        text=True,
        check=True,
    )
    warm, imported = json.loads(done.stdout)
    assert warm == json.loads(json.dumps(cold))
    assert imported is False


def _valid(tmp_path: Path) -> dict[str, object]:
    answers([*EXPRESSIONS, NEVER])
    cache = Cache(tmp_path)
    cron_cache.load(cache)
    cron_cache.save(cache)
    cache.save()
    data: dict[str, object] = json.loads((tmp_path / CACHE_FILE).read_text())
    return data


@pytest.mark.parametrize(
    "damage",
    [
        lambda d: b"\x00\xff not json",
        lambda d: json.dumps({**d, "version": 99}).encode(),
        lambda d: json.dumps({**d, "key": "0" * 32}).encode(),
        lambda d: json.dumps({**d, "data": {"fields": [1, 2], "gaps": "x"}}).encode(),
        lambda d: json.dumps(
            {
                **d,
                "data": {
                    "fields": {
                        "0 7 * * *": [[99], [7], [1], [1], [0], True, True, False],
                        "0 8 * * 1,3": [[0], [8], "x"],
                        "*/30 * * * *": None,
                    },
                    "gaps": {"0 7 * * *": -1.0, "0 8 * * 1,3": [5], "*/30 * * * *": None},
                },
            }
        ).encode(),
    ],
    ids=["not-json", "version", "fingerprint", "shapes", "entries"],
)
def test_a_damaged_cron_cache_is_a_miss(
    tmp_path: Path, damage: Callable[[dict[str, object]], bytes]
) -> None:
    expected = answers([*EXPRESSIONS, NEVER])
    data = _valid(tmp_path)
    (tmp_path / CACHE_FILE).write_bytes(damage(data))
    cadence.forget()
    cron_cache.load(Cache(tmp_path))
    assert answers([*EXPRESSIONS, NEVER]) == expected


def test_a_run_with_its_cron_cache_writes_what_a_run_without_it_writes(
    instance: Instance, cli: Cli, tmp_path: Path
) -> None:
    """The run's own use: the same instance run with the cron cache the first run left (every
    schedule read from it) writes the same article, log section and issues, and says the same."""
    instance.aeon_yml(
        {
            "daily": (True, "0 7 * * *"),
            "feb": (True, NEVER),
            "steps": (True, "25 7 2/2 * *"),
            "bad": (True, "61 * * * *"),
            "six": (True, "0 7 * * * *"),
            "ondemand": (True, "workflow_dispatch"),
        }
    )
    specs: dict[str, object] = {
        name: {"output_pattern": f"articles/{name}-*.md", "min_words": 3}
        for name in ("daily", "feb", "steps", "bad", "six", "ondemand")
    }
    specs["weekly"] = {"output_pattern": "articles/weekly-*.md", "expected_cadence": "0 8 * * 1"}
    instance.evals(specs)
    for name in specs:
        instance.write(f"articles/{name}-2026-05-20.md", "two words\n")
    twin = tmp_path / "twin"
    shutil.copytree(instance.root, twin)
    clock = ("--now", "2026-05-31T06:00:00Z", "--no-notify", "--no-site", "--json")
    cadence.forget()
    code, cold, _ = cli("run", "--root", str(instance.root), *clock)
    assert code == 0
    cache = instance.root / CACHE_FILE
    (twin / CACHE_FILE).parent.mkdir(parents=True)
    shutil.copy(cache, twin / CACHE_FILE)
    cadence.forget()
    code, warm, _ = cli("run", "--root", str(twin), *clock)
    assert code == 0
    assert not cadence.learned()  # every answer came from the cache
    assert json.loads(warm.replace(str(twin), str(instance.root))) == json.loads(cold)

    def written(root: Path) -> dict[str, bytes]:
        return {
            p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*"))
            if p.is_file() and ".aeon-evals" not in p.parts
        }

    assert written(twin) == written(instance.root)

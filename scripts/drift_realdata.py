"""Every drift flag on the real data (issue #18): anajuliabit articles, skill-health histories.

Replays each run in order, as the nightly job would have seen it: for every skill and metric,
the series up to that run goes through the detector with the default parameters. Prints one
line per flag (regressions and improvements) and the number of series looked at.

    python scripts/drift_realdata.py [REALDATA]     # default: ../shared/realdata
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from aeon_evals.articles.parse import read_article
from aeon_evals.load.state import health_history
from aeon_evals.metrics import history as metrics
from aeon_evals.model import drift

REALDATA = Path(__file__).resolve().parents[2] / "shared" / "realdata"


@dataclass(frozen=True)
class Flag:
    """One step the detector reports on one run of a real series."""

    source: str
    skill: str
    metric: str
    run: date
    step: drift.Step

    def line(self) -> str:
        kind = "REGRESSION" if self.step.worse else "improvement"
        return f"{self.source}\t{self.run}\t{self.skill}\t{kind}\t{self.step.describe(self.metric)}"


def _replay(
    source: str, skill: str, metric: str, series: list[tuple[date, float]]
) -> Iterator[Flag]:
    direction = metrics.DIRECTIONS.get(metric, drift.Direction.EITHER)
    for i in range(1, len(series) + 1):
        step = drift.detect(series[:i], direction)
        if step is not None:
            yield Flag(source, skill, metric, series[i - 1][0], step)


def article_flags(realdata: Path) -> tuple[list[Flag], int]:
    """Flags on words and quality from the anajuliabit skill-evals articles."""
    folder = realdata / "anajuliabit__aeon" / "articles"
    history: dict[str, list[metrics.Sample]] = {}
    for path in sorted(folder.glob("skill-evals-*.md")):
        parsed = read_article(path, root=folder)
        for skill, sample in metrics.samples_of_article(parsed).items():
            history.setdefault(skill, []).append(sample)
    found: list[Flag] = []
    looked = 0
    hist = metrics.History(history)
    for skill in sorted(history):
        for metric in (metrics.WORDS, metrics.QUALITY):
            series = hist.series(skill, metric)
            looked += 1
            found += _replay("anajuliabit articles", skill, metric, series)
    return found, looked


def health_flags(realdata: Path) -> tuple[list[Flag], int]:
    """Flags on the skill-health `history[]` scores of every real instance (and anajuliabit's)."""
    files = sorted(realdata.glob("instances/*/memory/skill-health/*.json"))
    files += sorted(realdata.glob("anajuliabit__aeon/memory/skill-health/*.json@*"))
    best: dict[tuple[str, str], list[tuple[date, float]]] = {}
    for path in files:
        if path.name.startswith("last-report"):
            continue
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        series = list(health_history(data.get("history") if isinstance(data, dict) else None))
        instance = path.parts[-4] if "instances" in path.parts else "anajuliabit__aeon"
        skill = path.name.split(".json")[0]
        # several versions of one file: the longest history (each holds at most 30 entries)
        key = (instance, skill)
        merged = dict(best.get(key, []))
        merged.update(series)
        best[key] = sorted(merged.items())
    found: list[Flag] = []
    for (instance, skill), series in sorted(best.items()):
        found += _replay(f"{instance} skill-health", skill, metrics.SCORE, series)
    return found, len(best)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    realdata = Path(args[0]) if args else REALDATA
    flags, looked = article_flags(realdata)
    more, series = health_flags(realdata)
    for flag in [*flags, *more]:
        print(flag.line())
    print(
        f"# {len(flags) + len(more)} flag(s) on {looked} article series and {series} "
        "skill-health series",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

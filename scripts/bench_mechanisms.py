#!/usr/bin/env python3
"""What each speed mechanism saves a nightly run (issue #31.6): the medium instance (1,000
skills, SKILL.md contracts enforced, a year-free history of 30 articles) run with every mechanism
on, and with one turned off, the two interleaved, each pair in alternating order.

A cache is turned off by removing its entry before the run (the run rebuilds it: what a
first night, or a cache lost to a fresh checkout, costs); a fork by raising its threshold in the
driver of this benchmark (never in the package); the collector's tuning by running `main`
without the console's `tune_gc`. The table goes into docs/benchmarks.md with each mechanism's
lines.

    python scripts/bench_mechanisms.py --pairs 7 [--workdir DIR] [--only NAME,…]
"""

from __future__ import annotations

import argparse
import importlib.util
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
NOW = "2026-06-01T06:00:00Z"
CACHE = ".aeon-evals/cache"

# name -> (what it is, how to turn it off: ("rm", [cache paths]) or ("py", driver code))
MECHANISMS: dict[str, tuple[str, tuple[str, tuple[str, ...] | str]]] = {
    "articles": (
        "article cache (past articles parsed once, bodies rendered once)",
        ("rm", ("articles",)),
    ),
    "history": ("metric history binary cache (history.bin)", ("rm", ("history.bin", "history"))),
    "metrics": ("per-article metrics cache (metrics.json)", ("rm", ("metrics.json",))),
    "contracts": ("contracts cache (SKILL.md inferred once)", ("rm", ("contracts.json",))),
    "vocabulary": ("outcome vocabulary cache", ("rm", ("vocabulary.json",))),
    "registry": ("aeon.yml parse cache", ("rm", ("registry.json",))),
    "cron": ("cron fields cache (no croniter)", ("rm", ("cron.json",))),
    "catalog": ("lint catalog cache", ("rm", ("catalog.json",))),
    "fork-checks": (
        "checks on the second core",
        ("py", "import aeon_evals.run.evaluate as m; m.FORK_MIN_CHECKS = 1 << 30"),
    ),
    "fork-pages": (
        "skill pages on the second core",
        ("py", "import aeon_evals.site.skill_site as m; m.FORK_MIN_SKILLS = 1 << 30"),
    ),
    "gc": ("collector frozen and its thresholds raised", ("py", "NO_TUNE_GC = True")),
}

DRIVER = """
import sys
NO_TUNE_GC = False
{setup}
from aeon_evals import cli
if not NO_TUNE_GC:
    cli.tune_gc()
sys.exit(cli.main(["run", "--root", sys.argv[1], "--now", sys.argv[2], "--no-notify"]))
"""


def _bench_module():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("aeon_bench", HERE / "bench.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["aeon_bench"] = module
    spec.loader.exec_module(module)
    return module


def _run(root: Path, setup: str) -> float:
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", DRIVER.format(setup=setup), str(root), NOW],
        capture_output=True,
        text=True,
        check=False,
    )
    took = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise SystemExit(f"run failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return took


def _off(root: Path, how: tuple[str, tuple[str, ...] | str]) -> str:
    kind, what = how
    if kind == "rm":
        assert isinstance(what, tuple)
        for rel in what:
            path = root / CACHE / rel
            if path.is_dir():
                shutil.rmtree(path)
            else:
                path.unlink(missing_ok=True)
        return ""
    assert isinstance(what, str)
    return what


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--pairs", type=int, default=7)
    p.add_argument("--skills", type=int, default=1000)
    p.add_argument("--workdir", type=Path)
    p.add_argument("--only", default="")
    args = p.parse_args()
    bench = _bench_module()
    work = args.workdir or Path(tempfile.mkdtemp(prefix="aeon-mech-"))
    root = work / "instance"
    if not root.exists():
        bench.generate(
            root, bench.Config(skills=args.skills, outputs=30, articles=30, specs="skillmd")
        )
    for _ in range(2):  # primed: every cache written by this code
        _run(root, "")
    chosen = [m for m in MECHANISMS if not args.only or m in args.only.split(",")]
    print(f"instance: {root} ({args.skills} skills); {args.pairs} interleaved pairs each")
    print("| mechanism | on (median s) | off (median s) | saves | of a run |")
    print("|---|---:|---:|---:|---:|")
    for name in chosen:
        what, how = MECHANISMS[name]
        on: list[float] = []
        off: list[float] = []
        for k in range(args.pairs):
            order = ("on", "off") if k % 2 == 0 else ("off", "on")
            for side in order:
                if side == "on":
                    on.append(_run(root, ""))
                else:
                    off.append(_run(root, _off(root, how)))
            _run(root, "")  # warm again whatever the off run left
        a, b = statistics.median(on), statistics.median(off)
        print(f"| {name}: {what} | {a:.3f} | {b:.3f} | {b - a:+.3f} | {100 * (b - a) / a:+.1f} % |")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

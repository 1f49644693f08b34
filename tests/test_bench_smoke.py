"""Smoke test of scripts/bench.py: the generator makes an instance the real pipeline runs on.

No timing is asserted here (timings never go in tests); the benchmark itself is run by hand:
`python scripts/bench.py` (see docs/benchmarks.md).
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from aeon_evals import cli
from aeon_evals.articles.parse import read_article

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"


def _bench():
    spec = importlib.util.spec_from_file_location("aeon_bench", SCRIPTS / "bench.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look the module up while the class is built
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def bench():
    return _bench()


@pytest.fixture()
def instance(tmp_path, bench):
    cfg = bench.Config(skills=20, outputs=3, log_share=0.3, words=40, articles=3)
    root = tmp_path / "instance"
    facts = bench.generate(root, cfg)
    return root, cfg, facts


def test_generated_instance_runs_and_writes_the_article(instance, bench):
    root, cfg, facts = instance
    assert facts["output_files"] > 0
    assert len(list((root / "memory" / "logs").glob("*.md"))) == cfg.outputs
    assert len(list((root / "articles").glob("skill-evals-*.md"))) == cfg.articles
    assert (root / "memory" / "issues" / "INDEX.md").is_file()

    with contextlib.redirect_stdout(io.StringIO()):
        code = cli.main(bench.run_args(root, site=True))
    assert code == 0

    article = root / "articles" / f"skill-evals-{bench.TODAY.isoformat()}.md"
    assert article.is_file()
    parsed = read_article(article, root=root)
    # every generated skill has a row (plus the two orphan specs); yesterday's article was the prior
    assert {f"skill-{i:04d}" for i in range(cfg.skills)} <= set(parsed.rows)
    assert "prior-article=ok" in article.read_text(encoding="utf-8")
    assert (root / "site" / "index.html").is_file()


def test_past_articles_parse_back(instance, bench):
    root, cfg, _ = instance
    for path in sorted((root / "articles").glob("skill-evals-*.md")):
        parsed = read_article(path, root=root)
        assert len(parsed.rows) == cfg.skills


@pytest.mark.skipif(shutil.which("bash") is None, reason="the shell baseline needs bash")
def test_shell_baseline_reads_the_specs(instance, bench):
    root, cfg, _ = instance
    out = subprocess.run(
        [
            "bash",
            str(bench.BASELINE),
            str(root),
            str(bench.specs_tsv(root)),
            bench.TODAY.isoformat(),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    lines = [line.split("\t") for line in out.stdout.splitlines()]
    assert len(lines) == cfg.skills + 2  # the two orphan specs too
    assert {status for _, status, _ in lines} <= {"PASS", "FAIL", "WARN", "NO_OUTPUT"}


def test_the_floor_benchmark_reads_and_writes_a_night(tmp_path):
    """scripts/bench_floor.py on a small instance: its three rows come out, and its child read
    the outputs and wrote one page per skill (checked by running the child by hand)."""
    done = subprocess.run(
        [
            sys.executable,
            str(SCRIPTS / "bench_floor.py"),
            "--skills",
            "20",
            "--repeat",
            "1",
            "--page-kib",
            "1",
            "--workdir",
            str(tmp_path),
            "--no-wait",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    rows = [line for line in done.stdout.splitlines() if line.startswith("| ")]
    assert [row.split(" | ")[0] for row in rows[1:]] == [
        "| `python -c pass`",
        "| `python -c 'import json, yaml, re2, croniter, jinja2, markdown_it, frontmatter'`",
        "| floor: the imports, the reads, the writes (20 pages of 1 KiB)",
    ]
    assert list(tmp_path.iterdir()) == []  # the work folder is removed

    spec = importlib.util.spec_from_file_location("aeon_bench_floor", SCRIPTS / "bench_floor.py")
    assert spec is not None and spec.loader is not None
    floor = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(floor)
    root = tmp_path / "instance"
    floor.bench.generate(root, floor.bench.Config(skills=20, outputs=3, articles=3))
    child = subprocess.run(
        [sys.executable, "-c", floor.CHILD, str(root), "1024", "20"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert child.returncode == 0, child.stderr
    skills = {
        p.name[:-14] for p in (root / "articles").iterdir() if not p.name.startswith("skill-evals-")
    }
    assert skills and f"of {len(skills)} outputs" in child.stdout
    pages = sorted((root / "site" / "skills").iterdir())
    assert len(pages) == 20 and all(p.stat().st_size == 1024 for p in pages)


def test_a_benchmark_waits_out_the_last_ones_removal_on_a_disk_that_remembers_it(
    tmp_path, bench, monkeypatch
):
    """bench.settle: after a benchmark removed its work folder, the next one on ext4 without a
    journal waits for the rest of SETTLE_S (the sleep is recorded, not slept); elsewhere, or
    once the removal is old enough, or with --no-wait, it measures at once."""
    slept: list[float] = []
    monkeypatch.setattr(bench.time, "sleep", slept.append)
    monkeypatch.setattr(bench, "_REMOVED", tmp_path / "removed")
    monkeypatch.setattr(bench, "forgets_slowly", lambda where: True)
    bench.settle(tmp_path, wait=True)  # no benchmark removed anything yet
    bench.removed()
    bench.settle(tmp_path, wait=True)
    assert len(slept) == 1 and bench.SETTLE_S - 5 < slept[0] <= bench.SETTLE_S
    bench.settle(tmp_path, wait=False)  # --no-wait: a note instead
    assert len(slept) == 1
    monkeypatch.setattr(bench, "forgets_slowly", lambda where: False)  # a journaled disk
    bench.settle(tmp_path, wait=True)
    assert len(slept) == 1
    monkeypatch.setattr(bench, "forgets_slowly", lambda where: True)
    old = bench.time.time() - bench.SETTLE_S - 1
    os.utime(tmp_path / "removed", (old, old))
    bench.settle(tmp_path, wait=True)
    assert len(slept) == 1


def test_a_disk_is_told_apart_by_its_journal(bench):
    """forgets_slowly reads /proc: never true off ext4 (here /proc itself)."""
    assert bench.forgets_slowly(Path("/proc")) is False
    assert bench.forgets_slowly(Path("/no/such/folder")) is False

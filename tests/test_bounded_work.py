"""Work is bounded by what the instance is (issue 35.4): skill pages only for the skills the
instance knows, row and size caps per metrics file, a cache read within its caps, contract
inference in one pass over a SKILL.md. Counts, caps and warnings are asserted here; the times
and memory they save are measured, not asserted (docs/benchmarks.md)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from aeon_evals.articles import cap
from aeon_evals.articles.parse import read_article
from aeon_evals.cache import folder
from aeon_evals.cache.folder import CACHE_DIR, Cache
from aeon_evals.contracts.infer import infer_contract
from aeon_evals.load.skillmd import parse_skill_doc
from aeon_evals.metrics.file import FILE_CAP

Cli = Callable[..., tuple[int, str, str]]
FIRST = "2026-12-01T07:00:00Z"
NEXT = "2026-12-02T08:00:00Z"
METRICS = "articles/skill-evals-metrics-2026-12-01.tsv"


def _demo(tmp_path: Path, cli: Cli, name: str = "demo") -> Path:
    root = tmp_path / name
    code, _out, err = cli("demo", str(root), "--now", FIRST)
    assert code == 0, err
    return root


def _plant_skills(root: Path, count: int) -> None:
    path = root / METRICS
    text = path.read_text(encoding="utf-8")
    fake = "".join(f"made-up-{i:06d}\tPASS\t100\t600\t1\t\t\t\t\t\n" for i in range(count))
    path.write_text(text + fake, encoding="utf-8")


def _pages(root: Path) -> list[str]:
    return sorted(p.name for p in (root / "site/skills").glob("*.html"))


def test_a_past_metrics_file_of_made_up_skills_builds_pages_only_for_the_instances_skills(
    tmp_path: Path, cli: Cli
) -> None:
    """Regression: a past metrics TSV naming 400,000 made-up skills built 400,000 pages (188 s,
    2.9 GB). Pages and badges are for the skills the instance knows (aeon.yml, skills/,
    evals.json, cron-state, the newest run); `site` says once how many it left out."""
    root = _demo(tmp_path, cli)
    before = _pages(root)
    _plant_skills(root, 1500)
    code, _out, err = cli("run", "--root", str(root), "--now", NEXT, "--no-notify")
    assert code == 0, err
    pages = _pages(root)
    assert not any(name.startswith("made-up-") for name in pages)
    assert pages == before
    assert not any(p.name.startswith("made-up-") for p in (root / "site/badges").iterdir())
    code, _out, err = cli("site", "--root", str(root), "--now", NEXT)
    assert code == 0, err
    assert _pages(root) == before
    found = [line for line in err.splitlines() if "not this instance's" in line]
    assert found == [
        "warning: site: 1,500 skills of the metrics history are not this instance's (not in "
        "aeon.yml, skills/, evals.json, memory/cron-state.json or the newest run): no page for "
        "them"
    ]


def test_a_metrics_file_over_its_size_cap_is_one_warning_and_not_read(
    tmp_path: Path, cli: Cli
) -> None:
    root = _demo(tmp_path, cli)
    with (root / METRICS).open("ab") as fh:
        fh.truncate(FILE_CAP + 1)  # sparse: no disk, and never read
    code, _out, err = cli("run", "--root", str(root), "--now", NEXT, "--no-notify", "--no-site")
    assert code == 0, err
    found = [line for line in err.splitlines() if METRICS in line]
    assert found == [f"warning: {METRICS}: is 16.0 MB, over the 16.0 MB limit; not read"], err


CACHE_NAMES = ["history.bin", "metrics.json", "contracts.json", "catalog.json", "registry.json"]


def _outputs(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.relative_to(root).as_posix().startswith(".aeon-evals")
    }


def test_planted_cache_files_of_300_mb_are_misses_and_change_nothing(
    tmp_path: Path, cli: Cli
) -> None:
    """Regression: six 300 MB cache files made a run take 47 s at 1.8 GB; a cache file over
    CACHE_CAP is a miss (not read), and the run's outputs are those of a run without a cache."""
    root = _demo(tmp_path, cli)
    clean = tmp_path / "clean"
    shutil.copytree(root, clean, symlinks=True)
    shutil.rmtree(clean / CACHE_DIR)
    for name in CACHE_NAMES:
        with (root / CACHE_DIR / name).open("wb") as fh:
            fh.truncate(300 << 20)  # sparse
    for where in (root, clean):
        read_before = _bytes_read()
        code, _out, err = cli("run", "--root", str(where), "--now", NEXT, "--no-notify")
        assert code == 0, err
        assert _bytes_read() - read_before < 64 << 20  # the planted 1.5 GB was never read
    assert _outputs(root) == _outputs(clean)


def _bytes_read() -> int:
    """The bytes this process has read (Linux's /proc/self/io `rchar`)."""
    for line in Path("/proc/self/io").read_text().splitlines():
        if line.startswith("rchar:"):
            return int(line.split()[1])
    raise AssertionError("no rchar in /proc/self/io")


def test_the_cache_reads_at_most_its_budget_in_a_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past READ_BUDGET bytes read from the cache folder in one run, every read is a miss, with
    one warning; what the run itself stored is still there."""
    monkeypatch.setattr(folder, "READ_BUDGET", 1000)
    base = tmp_path / CACHE_DIR
    base.mkdir(parents=True)
    for name in "abc":
        (base / f"{name}.bin").write_bytes(b"x" * 400)
    (base / "e.bin").write_bytes(b"x" * 100)
    cache = Cache(tmp_path)
    assert cache.read("a.bin") == b"x" * 400
    assert cache.read("b.bin") == b"x" * 400
    assert cache.read("c.bin") is None  # 200 bytes left: a 400-byte file is over it
    assert cache.warnings == []
    cache.put("d.bin", b"mine")
    assert cache.read("d.bin") == b"mine"  # what this run stored costs nothing
    assert cache.read("e.bin") == b"x" * 100
    assert cache.read("e.bin") == b"x" * 100  # the budget spent
    assert cache.read("e.bin") is None
    assert cache.warnings == [
        ".aeon-evals/cache: more than 0 MB read from it this run; the rest is not read (a miss "
        "costs time, never a result)"
    ]


def test_a_planted_cache_entry_without_its_key_is_a_miss_before_its_json_is_parsed(
    tmp_path: Path,
) -> None:
    entry = folder.Entry("thing", 1)
    base = tmp_path / CACHE_DIR
    base.mkdir(parents=True)
    # valid JSON of the right shape and key, but the key placed after 1 KB of data
    payload = '{"data":"' + "x" * 2000 + '","entry":"thing","version":1,"key":"%s"}'
    (base / "thing.json").write_text(payload % entry.key("a"))
    assert Cache(tmp_path).load(entry, entry.key("a")) is None
    (base / "thing.json").write_text("[" * 200_000)
    assert Cache(tmp_path).load(entry, entry.key("a")) is None


def test_a_skill_md_naming_16000_outputs_gives_16000_outputs_each_with_the_word_floor() -> None:
    """Issue 35.4: `contracts` on a SKILL.md naming 16,000 outputs took 29.6 s (the word floor
    re-joined the rest of the file for each output); one pass now. The result is the same."""
    lines = ["# many", "", "Write a report of at least 300 words.", ""]
    lines += [f"- Save to `articles/many-{i:05d}-${{today}}.md`" for i in range(16_000)]
    doc = parse_skill_doc("many", "skills/many/SKILL.md", ("\n".join(lines) + "\n").encode())
    contract = infer_contract(doc)
    assert len(contract.outputs) == 16_000
    assert {o.spec.min_words for o in contract.outputs} == {300}
    assert contract.outputs[-1].spec.output_pattern == "articles/many-15999-*.md"


def test_a_previous_article_of_more_table_lines_than_the_cap_is_read_up_to_it(
    tmp_path: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Regression: a planted previous article of 400,000 Full Results rows (7.6 MB, under the
    size cap) took a run 185 s and 7.1 GB. Past MAX_TABLE_LINES table lines (25,000; 100 here)
    the article is not read, with one warning."""
    monkeypatch.setattr(cap, "MAX_TABLE_LINES", 100)
    root = _demo(tmp_path, cli)
    rows = "".join(f"| made-up-{i:06d} | PASS |\n" for i in range(400))
    (root / "articles/skill-evals-2026-12-01.md").write_text(
        "# Skill Evals — 2026-12-01\n\n**Verdict:** SKILL_EVALS_OK\n\n## Full Results\n\n"
        "| Skill | Status |\n|---|---|\n" + rows,
        encoding="utf-8",
    )
    code, out, err = cli("run", "--root", str(root), "--now", NEXT, "--no-notify", "--json")
    assert code == 0, err
    found = [line for line in err.splitlines() if "table lines" in line]
    assert found == [
        "warning: articles/skill-evals-2026-12-01.md: more than 100 table lines (the limit): "
        "302 lines after them not read"
    ]
    assert json.loads(out)["prior_article"] == "articles/skill-evals-2026-12-01.md"
    parsed = read_article(root / "articles/skill-evals-2026-12-01.md", root=root)
    assert len(parsed.rows) == 98  # the rows read (the header and rule are table lines too)
    # its run page is rendered from what was read, never from the whole planted file
    page = (root / "site/runs/skill-evals-2026-12-01.html").read_text(encoding="utf-8")
    assert "made-up-000097" in page and "made-up-000098" not in page

"""The one cache API (issue 31): one fingerprint for the whole package, enums stored by name,
entries keyed by name, version and inputs, written once when the run saves.

The two regression tests run a copy of the package changed as an upgrade changes it, over the
cache the unchanged package wrote: on the code before the cache API both read back wrong
values (history.bin fingerprinted model.py while Status lived in status.py; metrics.json had no
code key at all)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from caches import saved

from aeon_evals.cache.folder import CACHE_DIR, Cache, Entry
from aeon_evals.metrics import binary as history_bin
from aeon_evals.metrics import columns
from aeon_evals.metrics.file import Sample, render_tsv
from aeon_evals.model import Status

PACKAGE = Path(columns.__file__).resolve().parents[1]

# Reads the metric history of the instance in argv[1] (metrics files and articles), saves the
# cache, prints each skill's statuses and words in order.
PROBE = """
import json, sys
from pathlib import Path
from aeon_evals.articles.store import ArticleStore
from aeon_evals.metrics.read import history_for_run
root = Path(sys.argv[1])
store = ArticleStore(root)
history = history_for_run(root, store, {}, before=None)
store.save()
print(json.dumps({s: [[x.status.value if x.status else None, x.words] for x in v]
                  for s, v in sorted(history.samples.items())}))
"""


def _copy_package(tmp_path: Path) -> Path:
    copy = tmp_path / "pkg"
    shutil.copytree(PACKAGE, copy / "aeon_evals", ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def _probe(root: Path, package: Path) -> dict[str, list[list[object]]]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(root)],
        capture_output=True,
        text=True,
        check=True,
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(package)},
    )
    found: dict[str, list[list[object]]] = json.loads(done.stdout)
    return found


def _metrics_runs(root: Path) -> None:
    (root / "articles").mkdir(parents=True, exist_ok=True)
    for day, status in (("2026-05-10", Status.PASS), ("2026-05-11", Status.FAIL)):
        rows = [("a", Sample(__import__("datetime").date.fromisoformat(day), status, words=50))]
        (root / f"articles/skill-evals-metrics-{day}.tsv").write_text(render_tsv(rows))


def test_a_status_inserted_does_not_relabel_the_cached_runs(tmp_path: Path) -> None:
    """Regression (issue 31): history.bin stored statuses by their position in the enum, and its
    code key did not cover status.py: a copy with one status added read three PASS samples back
    as SKIPPED."""
    root = tmp_path / "instance"
    _metrics_runs(root)
    before = _probe(root, PACKAGE.parent)
    assert before == {"a": [["PASS", 50], ["FAIL", 50]]}
    copy = _copy_package(tmp_path)
    status = copy / "aeon_evals/model/status.py"
    text = status.read_text(encoding="utf-8")
    status.write_text(
        text.replace(
            '    NO_OUTPUT = "NO_OUTPUT"\n',
            '    SKIPPED = "SKIPPED"\n    NO_OUTPUT = "NO_OUTPUT"\n',
            1,
        )
    )
    assert _probe(root, copy) == before


def test_statuses_written_in_another_order_are_read_by_name(tmp_path: Path) -> None:
    """Enums are stored by name: a history whose header lists the statuses in another order (a
    file written by code with another enum, under the same key) reads each sample's own."""
    root = tmp_path
    _metrics_runs(root)
    saved(lambda cache: history_bin.write_cache(cache, _cached(root)), root)
    path = root / CACHE_DIR / history_bin.CACHE_NAME
    raw = path.read_bytes()
    length = int.from_bytes(raw[8:16], "little")
    header = json.loads(raw[16 : 16 + length])
    names = header["statuses"]
    assert names == [s.value for s in Status]
    order = list(reversed(names))  # the codes re-numbered, then rewritten with the new numbers
    blob = bytearray(raw[16 + length :])
    spec = header["skills"][0][1]
    at, size = spec[2]
    blob[at : at + size] = bytes(order.index(names[c]) for c in blob[at : at + size])
    header["statuses"] = order
    import zlib

    header["crc32"] = zlib.crc32(bytes(blob))
    head = json.dumps(header, separators=(",", ":")).encode()
    path.write_bytes(raw[:8] + len(head).to_bytes(8, "little") + head + bytes(blob))
    found = history_bin.read_cache(Cache(root))
    assert found is not None
    assert found.columns["a"].statuses() == [Status.PASS, Status.FAIL]
    header["statuses"] = [*order[:-1], "NO_SUCH_STATUS"]  # a name this code does not know
    head = json.dumps(header, separators=(",", ":")).encode()
    path.write_bytes(raw[:8] + len(head).to_bytes(8, "little") + head + bytes(blob))
    assert history_bin.read_cache(Cache(root)) is None


def _cached(root: Path) -> history_bin.Cached:
    from aeon_evals.articles.store import ArticleStore
    from aeon_evals.metrics.read import history_for_run

    store = ArticleStore(root)  # never saved: what it stored is read back from memory
    history_for_run(root, store, {}, before=None)
    found = history_bin.read_cache(store.cache.cache)
    assert found is not None
    return found


ARTICLE = """# Skill Evals — 2026-05-10

**Verdict:** SKILL_EVALS_OK

## Full Results

| Skill | Status | Diff | Root cause | Quality | Words | Last output |
|---|---|---|---|---|---|---|
| a | PASS | STABLE | — | 4.0 | 1,200 | articles/a-2026-05-10.md |
"""


def test_a_changed_article_parser_reaches_the_backfilled_history(tmp_path: Path) -> None:
    """Regression (issue 31): what past articles said (metrics.json) had no code key, so a change
    to the article parser never reached the history backfilled from them."""
    root = tmp_path / "instance"
    (root / "articles").mkdir(parents=True)
    (root / "articles/skill-evals-2026-05-10.md").write_text(ARTICLE, encoding="utf-8")
    assert _probe(root, PACKAGE.parent) == {"a": [["PASS", 1200]]}
    copy = _copy_package(tmp_path)
    parse = copy / "aeon_evals/text/numbers.py"  # parse_words, which the article parser uses
    text = parse.read_text(encoding="utf-8")
    assert "    return int(value)\n" in text
    parse.write_text(text.replace("    return int(value)\n", "    return int(value) * 2\n", 1))
    assert _probe(root, copy) == {"a": [["PASS", 2400]]}


def test_an_entry_is_a_name_a_version_and_a_key(tmp_path: Path) -> None:
    entry = Entry("thing", 1)
    assert entry.key("a") == Entry("thing", 1).key("a")
    assert (
        len({entry.key("a"), entry.key("b"), Entry("thing", 2).key("a"), Entry("x", 1).key("a")})
        == 4
    )
    cache = Cache(tmp_path)
    cache.store(entry, entry.key("a"), {"n": 1})
    assert cache.load(entry, entry.key("a")) == {"n": 1}  # what this run stored, before save
    assert not (tmp_path / CACHE_DIR).exists()  # written once, at save
    cache.save()
    assert Cache(tmp_path).load(entry, entry.key("a")) == {"n": 1}
    assert Cache(tmp_path).load(entry, entry.key("b")) is None
    assert Cache(tmp_path).load(Entry("thing", 2), Entry("thing", 2).key("a")) is None
    assert (tmp_path / CACHE_DIR / ".gitignore").read_text() == "*\n"
    read_only = Cache(tmp_path, writable=False)
    read_only.store(entry, entry.key("c"), 3)
    read_only.save()
    assert Cache(tmp_path).load(entry, entry.key("c")) is None


def test_only_the_command_line_and_the_forked_children_end_the_process() -> None:
    """os._exit is confined to cli.py (the end of a command) and parallel.py (a forked child
    leaving without its parent's exit handlers); nothing registers atexit handlers."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        rel = path.relative_to(PACKAGE).as_posix()
        if "os._exit(" in text:
            found[rel] = True
        assert "atexit" not in text, rel
    assert sorted(found) == ["cli.py", "parallel.py"]

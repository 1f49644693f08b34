"""The article store and its cache: past articles are parsed once, across runs, and never
trusted blindly."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import Instance
from realdata import realdata
from test_cli_run import WEEK1, WEEK2, WEEK3, Cli, fleet

from aeon_evals.articles import parse as history
from aeon_evals.articles import store
from aeon_evals.articles.cache import (
    ArticleCache,
    article_from_json,
    content_key,
    detail_to_json,
    summary_to_json,
)
from aeon_evals.articles.parse import ArticleParseError, read_article
from aeon_evals.articles.store import ArticleStore
from aeon_evals.cache.folder import CACHE_DIR, Cache
from aeon_evals.parallel import Forked

ARTICLES = CACHE_DIR / "articles"


def _cache(root: Path) -> ArticleCache:
    return ArticleCache(Cache(root))


def _real_article(root: Path, pattern: str = "*/articles/skill-evals-*.md") -> Path:
    """A copy of a real LLM-written article in root/articles/."""
    real = sorted(realdata().glob(pattern))[-1]
    path = root / "articles" / real.name
    path.parent.mkdir()
    path.write_bytes(real.read_bytes())
    return path


def _never_parse(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("parsed again although the cache holds these bytes")

    monkeypatch.setattr(history, "parse_article", refuse)


def test_every_real_article_round_trips_through_the_cache_json() -> None:
    seen = 0
    for path in sorted(realdata().glob("*/articles/skill-evals-*.md")):
        try:
            parsed = read_article(path, root=path.parents[1])
        except ArticleParseError:
            continue
        summary = json.loads(json.dumps(summary_to_json(parsed)))
        detail = json.loads(json.dumps(detail_to_json(parsed)))
        assert article_from_json(summary, detail) == parsed, path
        seen += 1
    assert seen >= 14


def test_a_cached_article_is_not_parsed_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _real_article(tmp_path, "anajuliabit*/articles/skill-evals-2026-05-24.md")
    articles = ArticleStore(tmp_path)
    first = articles.read(path)
    articles.save()
    assert first.own is False and len(first.rows) == 14

    _never_parse(monkeypatch)
    again = ArticleStore(tmp_path).read(path)  # a new run: a new process
    assert again == first


def test_edited_bytes_are_parsed_again(tmp_path: Path) -> None:
    path = tmp_path / "articles" / "skill-evals-2026-05-24.md"
    path.parent.mkdir()
    path.write_text(
        "## Full Results\n\n| Skill | Status |\n|---|---|\n| a | PASS |\n", encoding="utf-8"
    )
    articles = ArticleStore(tmp_path)
    assert articles.read(path).rows["a"].status.value == "PASS"
    articles.save()
    path.write_text(
        "## Full Results\n\n| Skill | Status |\n|---|---|\n| a | FAIL |\n", encoding="utf-8"
    )
    assert ArticleStore(tmp_path).read(path).rows["a"].status.value == "FAIL"
    assert articles.read(path).rows["a"].status.value == "FAIL"  # the same store: read again


def test_the_same_bytes_under_another_date_are_not_taken_from_the_cache(tmp_path: Path) -> None:
    """failing_since defaults to the article's own day, so the day is part of what was parsed."""
    text = (
        "## Full Results\n\n| Skill | Status |\n|---|---|\n| a | FAIL |\n\n## Regressions\n\n| "
        "Skill | Issue |\n|---|---|\n| a | ISS-001 |\n"
    )
    articles = ArticleStore(tmp_path)
    days = {}
    for day in ("2026-05-17", "2026-05-24"):
        path = tmp_path / "articles" / f"skill-evals-{day}.md"
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
        days[day] = articles.read(path).failing_since["a"].since.isoformat()
    assert days == {"2026-05-17": "2026-05-17", "2026-05-24": "2026-05-24"}


@pytest.mark.parametrize("damage", ["index", "rows", "both"])
def test_a_damaged_cache_is_a_miss(tmp_path: Path, damage: str) -> None:
    path = _real_article(tmp_path)
    articles = ArticleStore(tmp_path)
    expected = articles.read(path)
    articles.save()
    folder = tmp_path / ARTICLES
    sha = content_key(path.read_bytes())
    if damage in ("index", "both"):
        (folder / "index.json").write_bytes(b'{"articles": {"' + sha.encode() + b'": {"parsed": 5')
    if damage in ("rows", "both"):
        (folder / "rows" / f"{sha}.json").write_text('[["x", "x", "NOT_A_STATUS"', encoding="utf-8")
    assert ArticleStore(tmp_path).read(path) == expected


def test_entries_of_other_code_are_misses_and_old_folders_go(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A body stored under another key (other code) is a miss; the folders versions before the
    cache API kept (one per code fingerprint) are removed when a run saves."""
    old = _cache(tmp_path)
    old.key = "0ld" * 10 + "00"
    old.put_body("abc", "<p>old</p>")
    old.cache.save()
    assert (tmp_path / ARTICLES / "bodies" / "abc.html").is_file()
    (tmp_path / CACHE_DIR / "0123456789abcdef" / "rows").mkdir(parents=True)
    new = _cache(tmp_path)
    assert new.body("abc") is None
    new.put_body("abc", "<p>new</p>")
    new.cache.save()
    assert _cache(tmp_path).body("abc") == "<p>new</p>"
    assert {p.name for p in (tmp_path / CACHE_DIR).iterdir()} == {
        ".gitignore",
        "CACHEDIR.TAG",
        "articles",
    }


PACKAGE = Path(store.__file__).parents[1]


def _after_an_upgrade(tmp_path: Path, edited: str, expr: str) -> tuple[str, str]:
    """`expr` (from aeon_evals: cache, history, store) evaluated by a copy of the package,
    before and after a change to its file `edited` (an upgrade that touched it)."""
    copy = tmp_path / "pkg"
    shutil.copytree(PACKAGE, copy / "aeon_evals", ignore=shutil.ignore_patterns("__pycache__"))

    def probe() -> str:
        code = (
            "from pathlib import Path; from aeon_evals.articles import cache, store; "
            f"from aeon_evals.articles import parse as history; print({expr})"
        )
        done = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            cwd=tmp_path,
            env={**os.environ, "PYTHONPATH": str(copy)},
        )
        return done.stdout.strip()

    before = probe()
    changed = copy / "aeon_evals" / edited
    changed.write_text(changed.read_text(encoding="utf-8") + "\n# upgraded\n", encoding="utf-8")
    return before, probe()


@pytest.mark.parametrize(
    "edited",
    ["articles/parse.py", "articles/cache.py", "model/status.py", "site/views.py", "cli.py"],
)
def test_any_change_to_the_package_changes_its_fingerprint(tmp_path: Path, edited: str) -> None:
    """One fingerprint for the whole package (cache/fingerprint.py): no hand-kept list of the
    modules a cache depends on, so no edit can leave an entry that other code wrote in use
    (history.bin once fingerprinted model.py while Status had moved to status.py)."""
    before, after = _after_an_upgrade(
        tmp_path,
        edited,
        "__import__('aeon_evals.cache.fingerprint').cache.fingerprint.fingerprint()",
    )
    assert before != after


@pytest.mark.parametrize(
    "edited", ["site/views.py", "site/build.py", "site/jinja_env.py", "site/charts.py"]
)
def test_run_pages_are_laid_out_again_when_their_code_changes(tmp_path: Path, edited: str) -> None:
    before, after = _after_an_upgrade(tmp_path, edited, "store.ArticleStore(Path('.')).code_key")
    assert before != after


def test_read_only_cache_writes_nothing(tmp_path: Path) -> None:
    path = _real_article(tmp_path)
    articles = ArticleStore(tmp_path, writable=False)
    articles.read(path)
    articles.save()
    assert not (tmp_path / ".aeon-evals").exists()


def test_runs_keep_their_cache_out_of_git_and_out_of_the_site(instance: Instance, cli: Cli) -> None:
    inst = fleet(instance)
    subprocess.run(["git", "init", "-q", str(inst.root)], check=True)
    # an instance upgraded from 0.1 still has the old cache inside its published site
    inst.write("site/.aeon-evals-site-cache.json", "{}")
    inst.write("site/.aeon-evals-bodies/x.html", "<p>x</p>")
    for now in (WEEK1, WEEK2, WEEK3):
        code, _out, err = cli("run", "--root", str(inst.root), "--now", now, "--no-notify")
        assert code == 0, err
    cache = _cache(inst.root)
    articles = sorted((inst.root / "articles").glob("skill-evals-*.md"))
    assert len(articles) == 3
    # every article is in the cache, rows and rendered body, under its content hash
    assert set(cache.index) == {content_key(p.read_bytes()) for p in articles}
    assert all(
        cache.get(content_key(p.read_bytes())) is not None
        and cache.body(content_key(p.read_bytes()))
        for p in articles
    )
    status = subprocess.run(
        ["git", "-C", str(inst.root), "status", "--porcelain", "--untracked-files=all"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert ".aeon-evals" not in status and "articles/skill-evals-2026-05-31.md" in status
    # the pages only (skill pages and badges since issue 18, and the stylesheet the skill pages
    # link): no cache file in the published site
    assert sorted(p.name for p in (inst.root / "site").iterdir()) == [
        "badges",
        "index.html",
        "runs",
        "skills",
        "style.css",
    ]


def test_a_dry_run_leaves_no_cache(instance: Instance, cli: Cli) -> None:
    inst = fleet(instance)
    cli("run", "--root", str(inst.root), "--now", WEEK1, "--no-notify")
    cli("run", "--root", str(inst.root), "--now", WEEK2, "--no-notify", "--dry-run")
    before = inst.snapshot()
    cli("run", "--root", str(inst.root), "--now", WEEK2, "--no-notify", "--dry-run")
    assert inst.snapshot() == before


def test_a_run_over_a_cold_cache_and_a_warm_one_write_the_same(tmp_path: Path, cli: Cli) -> None:
    roots = []
    for name in ("warm", "cold"):
        inst = fleet(Instance(tmp_path / name))
        for now in (WEEK1, WEEK2):
            cli("run", "--root", str(inst.root), "--now", now, "--no-notify")
        roots.append(inst.root)
    (roots[1] / ".aeon-evals").rename(tmp_path / "gone")
    for root in roots:
        cli("run", "--root", str(root), "--now", WEEK3, "--no-notify")
    for rel in (
        "articles/skill-evals-2026-05-31.md",
        "memory/logs/2026-05-31.md",
        "memory/issues/INDEX.md",
        "site/index.html",
        "site/runs/skill-evals-2026-05-31.html",
    ):
        assert (roots[0] / rel).read_bytes() == (roots[1] / rel).read_bytes(), rel


def test_bodies_rendered_in_a_forked_child_match_the_serial_build(
    tmp_path: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """New articles' bodies are rendered on a second core where the platform can fork; the pages
    and the cache must be byte for byte what one process makes."""
    if not store.FORK:
        pytest.skip("this platform cannot fork: the serial build is the only one")
    roots = []
    for name, fork in (("forked", True), ("serial", False)):
        monkeypatch.setattr(store, "FORK", fork)
        inst = fleet(Instance(tmp_path / name))
        for now in (WEEK1, WEEK2, WEEK3):
            code, _out, err = cli("run", "--root", str(inst.root), "--now", now, "--no-notify")
            assert code == 0, err
        roots.append(inst.root)
    for rel in (
        "site/index.html",
        *(f"site/runs/skill-evals-2026-05-{d}.html" for d in (17, 24, 31)),
    ):
        assert (roots[0] / rel).read_bytes() == (roots[1] / rel).read_bytes(), rel
    caches = [_cache(r) for r in roots]
    assert caches[0].index == caches[1].index
    for sha in caches[0].index:
        assert caches[0].body(sha) == caches[1].body(sha) is not None
        assert caches[0].get(sha) == caches[1].get(sha) is not None


def test_a_dead_renderer_costs_time_not_pages(
    instance: Instance, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If the child rendering the bodies dies, the build renders them itself."""
    inst = fleet(instance)
    for now in (WEEK1, WEEK2):
        cli("run", "--root", str(inst.root), "--now", now, "--no-notify", "--no-site")

    def dies(self: ArticleStore, work: list[store.Work]) -> bool:
        parent = os.getpid()

        def job() -> dict[str, str]:
            if os.getpid() != parent:  # the child dies; the parent renders the share itself
                os._exit(9)
            return store._render_bodies(work)

        self._children.append(Forked(job, fork=True))
        return True

    monkeypatch.setattr(ArticleStore, "_render_in_child", dies)
    code, _out, err = cli("site", "--root", str(inst.root), "--now", WEEK2)
    assert code == 0, err
    page = (inst.root / "site/runs/skill-evals-2026-05-24.html").read_text(encoding="utf-8")
    assert "<table>" in page and "cost-report" in page


def test_an_article_replaced_by_bytes_of_the_same_size_is_read_again(
    instance: Instance, cli: Cli
) -> None:
    """Unchanged articles are not even read (inode, size, mtime as recorded); a replacement is."""
    inst = fleet(instance)
    for now in (WEEK1, WEEK2):
        cli("run", "--root", str(inst.root), "--now", now, "--no-notify")
    article = inst.root / "articles/skill-evals-2026-05-17.md"
    text = article.read_text(encoding="utf-8")
    assert "SKILL_EVALS_REGRESSED" in text
    edited = text.replace("SKILL_EVALS_REGRESSED", "SKILL_EVALS_RECOVERED")  # the same length
    assert len(edited) == len(text)
    stat = article.stat()
    tmp = article.with_suffix(".tmp")
    tmp.write_text(edited, encoding="utf-8")
    os.utime(tmp, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # even the same modification time
    tmp.replace(article)
    code, _out, err = cli("site", "--root", str(inst.root), "--now", WEEK2)
    assert code == 0, err
    page = (inst.root / "site/runs/skill-evals-2026-05-17.html").read_text(encoding="utf-8")
    assert "SKILL_EVALS_RECOVERED" in page and "SKILL_EVALS_REGRESSED" not in page


def test_a_run_parses_each_past_article_once(
    instance: Instance, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The previous article, the flakiness window and the dashboard all want the same articles:
    one store answers them all, so a cold run parses each article once (no process-wide memo)."""
    inst = fleet(instance)
    for now in (WEEK1, WEEK2):
        cli("run", "--root", str(inst.root), "--now", now, "--no-notify")
    (inst.root / CACHE_DIR).rename(inst.root / "old-cache")  # a fresh checkout: nothing cached
    parsed: list[str] = []
    real = history.parse_article

    def counting(text: str, **kwargs: Any) -> object:
        parsed.append(kwargs["path"])
        return real(text, **kwargs)

    monkeypatch.setattr(history, "parse_article", counting)
    code, _out, err = cli("run", "--root", str(inst.root), "--now", WEEK3, "--no-notify")
    assert code == 0, err
    # the article written (05-31) is kept from its cells (render.parsed_article), not parsed
    assert sorted(parsed) == [
        "articles/skill-evals-2026-05-17.md",
        "articles/skill-evals-2026-05-24.md",
    ]

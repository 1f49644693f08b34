"""The catalog checks in the nightly run: the article's Catalog line, Fix SKILL.md items, the
dashboard's Catalog panel, the cache, and articles (old and new) that still parse."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from datetime import date
from pathlib import Path

from caches import saved
from conftest import Instance

from aeon_evals.articles.parse import parse_article
from aeon_evals.catalog.summary import CatalogSummary, catalog_summary

Cli = Callable[..., tuple[int, str, str]]
NOW = "2026-05-31T06:00:00Z"


def skill_md(name: str, description: str) -> str:
    return (
        f"---\nname: {name}\ndescription: {description}\nmetadata:\n  category: basics\n---\n"
        f"Save to `articles/{name}-${{today}}.md`:\n"
    )


def fleet(instance: Instance) -> Instance:
    """Two near-twin skills (an error-level collision), a broken SKILL.md, a failing case."""
    instance.aeon_yml(
        {
            "paper-pick": (True, "0 8 * * *"),
            "paper-picks": (True, "0 8 * * *"),
            "rss-feed": (True, "0 9 * * *"),
            "token-alert": (True, "0 * * * *"),
        }
    )
    description = "Pick the one research paper worth reading today from Hugging Face Papers."
    instance.write("skills/paper-pick/SKILL.md", skill_md("paper-pick", description))
    instance.write("skills/paper-picks/SKILL.md", skill_md("paper-picks", description))
    instance.write(
        "skills/rss-feed/SKILL.md",
        skill_md("rss-feed", "Build an RSS feed of the week's articles for subscribers."),
    )
    instance.write("skills/token-alert/SKILL.md", "# Token alert\n\nSave to `articles/t.md`.\n")
    instance.write(
        "skills/rss-feed/evals/trigger.json", json.dumps({"positive": ["build an rss feed"]})
    )
    instance.write(
        "skills/paper-pick/evals/trigger.json", json.dumps({"positive": ["alert on token price"]})
    )
    instance.evals({"rss-feed": {"output_pattern": "articles/rss-feed-*.md"}})
    instance.write("articles/rss-feed-2026-05-30.md", "the feed\n")
    return instance


def test_the_article_gets_a_catalog_line_and_fix_items(instance: Instance, cli: Cli) -> None:
    root = fleet(instance).root
    code, _, err = cli("run", "--root", str(root), "--now", NOW, "--no-notify")
    assert code == 0, err
    text = (root / "articles/skill-evals-2026-05-31.md").read_text(encoding="utf-8")
    lines = text.splitlines()
    assert lines[8] == (
        "**Catalog:** 4 skills · 3 errors · 0 warnings · 1 collision · rank-1 1/2 (50.0%) · "
        "1/2 trigger cases failing (aeon-evals lint)"
    )
    fixes = [line for line in lines if ". Fix SKILL.md:" in line]
    assert fixes == [
        "1. Fix SKILL.md:paper-pick — description collides with paper-picks "
        "(skills/paper-picks/SKILL.md): similarity 1.000; shared terms: paper 0.50, pick 0… "
        "(skills/paper-pick/SKILL.md:3)",
        "2. Fix SKILL.md:paper-pick — positive trigger case for paper-pick fails: 'alert on token "
        "price': no term of the prompt is in the skill's name or des… "
        "(skills/paper-pick/evals/trigger.json:1)",
        "3. Fix SKILL.md:token-alert — no frontmatter: an agent sees no name or description (start "
        "the file with ---, name:, description:, ---) (skills/token-alert/SKILL.md:1)",
    ]
    # The new line does not disturb what the next run reads back.
    parsed = parse_article(text, path="articles/skill-evals-2026-05-31.md", day=date(2026, 5, 31))
    assert parsed.verdict == "SKILL_EVALS_OK"
    assert parsed.coverage is not None and parsed.coverage.covered == 1
    assert [a for a in parsed.action_queue if a.startswith("Fix SKILL.md:")] == [
        f.split(". ", 1)[1] for f in fixes
    ]
    assert set(parsed.rows) == {"rss-feed"}
    # … and a second run reads it as its prior run: rss-feed is STABLE, not NEW_PASS.
    instance.write("articles/rss-feed-2026-06-06.md", "the feed\n")
    code, out, err = cli(
        "run", "--root", str(root), "--now", "2026-06-07T06:00:00Z", "--no-notify", "--json"
    )
    assert code == 0, err
    assert json.loads(out)["verdict"] == "SKILL_EVALS_OK"
    second = (root / "articles/skill-evals-2026-06-07.md").read_text(encoding="utf-8")
    assert "| rss-feed | PASS | STABLE |" in second


def test_an_old_article_without_a_catalog_line_still_parses() -> None:
    old = (
        "# Skill Evals — 2026-05-24\n\n**Verdict:** SKILL_EVALS_OK\n**Coverage:** 1/2 (50%)\n"
        "**Diff:** 0 new fail\n\nAction Queue: none — all green.\n\n## Full Results\n"
        "| Skill | Status | Diff | Root cause | Quality | Words | Last output | Notes |\n"
        "|---|---|---|---|---|---|---|---|\n"
        "| rss-feed | PASS | STABLE | — | unknown | 2 | articles/rss-feed-2026-05-23.md | — |\n"
    )
    new = old.replace("**Diff:** 0 new fail\n", "**Diff:** 0 new fail\n**Catalog:** 1 skill · …\n")
    for text in (old, new):
        parsed = parse_article(
            text, path="articles/skill-evals-2026-05-24.md", day=date(2026, 5, 24)
        )
        assert (parsed.verdict, parsed.coverage_pct, list(parsed.rows)) == (
            "SKILL_EVALS_OK",
            50.0,
            ["rss-feed"],
        )


def test_the_dashboard_shows_the_catalog_panel(instance: Instance, cli: Cli) -> None:
    root = fleet(instance).root
    code, _, err = cli("run", "--root", str(root), "--now", NOW, "--no-notify")
    assert code == 0, err
    page = (root / "site/index.html").read_text(encoding="utf-8")
    panel = page.split('<section class="card" id="catalog">')[1].split("</section>")[0]
    assert '<h2>Catalog <span class="count">3 errors</span></h2>' in panel
    names = '<span class="name">paper-pick</span> · <span class="name">paper-picks</span>'
    assert f'<th scope="row">{names}</th>' in panel
    assert '<td data-label="Similarity" class="num short">1.000</td>' in panel
    assert "alert on token price" in panel and "skills/paper-pick/evals/trigger.json:1" in panel
    # `aeon-evals site` alone shows the same panel.
    (root / "site/index.html").unlink()
    assert cli("site", "--root", str(root), "--now", NOW)[0] == 0
    assert (root / "site/index.html").read_text(encoding="utf-8") == page


def test_an_instance_without_skill_md_files_has_no_catalog_line(
    instance: Instance, cli: Cli
) -> None:
    instance.aeon_yml({"rss-feed": (True, "0 9 * * *")})
    instance.evals({"rss-feed": {"output_pattern": "articles/rss-feed-*.md"}})
    instance.write("articles/rss-feed-2026-05-30.md", "the feed\n")
    code, _, err = cli("run", "--root", str(instance.root), "--now", NOW, "--no-notify")
    assert code == 0, err
    text = (instance.root / "articles/skill-evals-2026-05-31.md").read_text(encoding="utf-8")
    assert "**Catalog:**" not in text
    assert 'id="catalog"' not in (instance.root / "site/index.html").read_text(encoding="utf-8")


CACHE_FILE = Path(".aeon-evals/cache/catalog.json")


def _summary(root: Path, *, writable: bool = True) -> CatalogSummary | None:
    return saved(lambda cache: catalog_summary(root, cache), root, writable=writable)


def test_the_summary_is_cached_by_content(instance: Instance) -> None:
    root = fleet(instance).root
    first = _summary(root, writable=False)
    assert first is not None and not (root / CACHE_FILE).exists()  # a dry run writes nothing
    assert _summary(root) == first
    cached = json.loads((root / CACHE_FILE).read_text(encoding="utf-8"))
    cached["data"]["summary"]["errors"] = 99  # served from the cache while nothing changed
    (root / CACHE_FILE).write_text(json.dumps(cached), encoding="utf-8")
    summary = _summary(root)
    assert summary is not None and summary.errors == 99
    instance.write("skills/token-alert/SKILL.md", skill_md("token-alert", "Alerts on prices."))
    summary = _summary(root)
    assert summary is not None and summary.errors == 2  # a SKILL.md changed: checked again
    assert summary.error_findings and _summary(root) == summary  # findings read back
    (root / CACHE_FILE).write_text("{damaged", encoding="utf-8")
    assert _summary(root) == summary


def test_a_dry_run_writes_no_catalog_cache(instance: Instance, cli: Cli) -> None:
    root = fleet(instance).root
    code, out, err = cli("run", "--root", str(root), "--now", NOW, "--dry-run")
    assert code == 0, err
    assert "**Catalog:** 4 skills · 3 errors" in out
    assert not (root / CACHE_FILE).exists()


def test_a_fifo_for_a_skill_md_never_blocks_the_run(instance: Instance, cli: Cli) -> None:
    root = fleet(instance).root
    (root / "skills/fifo-skill").mkdir()
    os.mkfifo(root / "skills/fifo-skill/SKILL.md")
    code, _, err = cli("run", "--root", str(root), "--now", NOW, "--no-notify")
    assert code == 0, err
    text = (root / "articles/skill-evals-2026-05-31.md").read_text(encoding="utf-8")
    assert "**Catalog:** 5 skills · 4 errors" in text


def test_the_catalog_cache_reads_a_file_again_when_its_stat_changes(instance: Instance) -> None:
    root = fleet(instance).root
    first = _summary(root)
    assert first is not None
    stamps = json.loads((root / CACHE_FILE).read_text(encoding="utf-8"))["data"]["files"]
    assert "skills/token-alert/SKILL.md" in stamps  # inode, size, mtime_ns and the hash
    # Same size, same mtime, other words: written beside and renamed over (a new inode), as
    # editors and git do, the file is read again.
    path = root / "skills/token-alert/SKILL.md"
    old = path.read_bytes()
    new = skill_md("token-alert", "Alerts on prices.").encode()
    new = new.ljust(len(old), b" ")[: max(len(old), len(new))]
    info = path.stat()
    (root / "skills/token-alert/SKILL.md.new").write_bytes(new)
    os.utime(root / "skills/token-alert/SKILL.md.new", ns=(info.st_atime_ns, info.st_mtime_ns))
    os.replace(root / "skills/token-alert/SKILL.md.new", path)
    again = _summary(root)
    assert again is not None and again != first

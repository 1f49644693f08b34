"""Past articles read confined to the root, and issue files read twice in one process.

The store resolves each articles folder once (not each article): these pin that a symlinked
article, or a symlinked folder, leading outside the root is still refused article by article,
and that one inside the root is read. The issue reader keeps what it parsed by the file's
bytes: a file edited between two reads (even to the same size) is parsed again.
"""

from __future__ import annotations

import os
import shutil
from datetime import date
from pathlib import Path

from aeon_evals.articles.store import ArticleStore
from aeon_evals.issues import read_issues
from aeon_evals.run.demo import make_demo

TODAY = date(2026, 5, 3)


def demo(tmp_path: Path) -> Path:
    root = make_demo(tmp_path / "demo", TODAY)
    for name in ("site", ".aeon-evals"):  # nothing cached: every article is read
        shutil.rmtree(root / name, ignore_errors=True)
    return root


def loaded_days(root: Path) -> tuple[list[str], list[str]]:
    loaded, warnings = ArticleStore(root, writable=False).load(fork=False)
    return [item.parsed.day.isoformat() for item in loaded], warnings


def test_an_article_symlinked_outside_the_root_is_refused_and_one_inside_is_read(
    tmp_path: Path,
) -> None:
    root = demo(tmp_path)
    articles = root / "articles"
    days, warnings = loaded_days(root)
    assert len(days) >= 2 and not warnings
    first, second = sorted(articles.glob("skill-evals-20*.md"))[:2]
    outside = tmp_path / "outside.md"
    first.rename(outside)
    first.symlink_to(os.path.relpath(outside, articles))
    kept = root / "memory" / "kept.md"
    second.rename(kept)
    second.symlink_to(os.path.relpath(kept, articles))

    after, warnings = loaded_days(root)
    assert after == days[1:]  # the one outside is left out, the one inside is read
    assert warnings == [
        f"articles/{first.name}: is a symlink leading outside the root; not read; skipped"
    ]


def test_an_articles_folder_symlinked_outside_the_root_is_refused_article_by_article(
    tmp_path: Path,
) -> None:
    root = demo(tmp_path)
    names = sorted(p.name for p in (root / "articles").glob("skill-evals-20*.md"))
    elsewhere = tmp_path / "elsewhere"
    (root / "articles").rename(elsewhere)
    (root / "articles").symlink_to(elsewhere)

    days, warnings = loaded_days(root)
    assert days == []
    assert warnings == [
        f"articles/{name}: is a symlink leading outside the root; not read; skipped"
        for name in names
    ]


def test_an_issue_file_edited_between_two_reads_is_read_again(tmp_path: Path) -> None:
    root = demo(tmp_path)
    issues_dir = root / "memory" / "issues"
    before, _ = read_issues(issues_dir, root=root)
    assert before
    path = root / before[0].path
    text = path.read_text(encoding="utf-8")
    title = before[0].title
    assert title and title in text
    renamed = title[:-1] + ("X" if title[-1] != "X" else "Y")  # the same size, other bytes
    path.write_text(text.replace(title, renamed, 1), encoding="utf-8")

    again, _ = read_issues(issues_dir, root=root)
    assert again[0].title == renamed
    assert [i.id for i in again] == [i.id for i in before]
    assert again[1:] == before[1:]  # the others as they were

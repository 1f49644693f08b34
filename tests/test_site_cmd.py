"""`aeon-evals site` as an operator meets it: what it says about the files it reads."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from conftest import Instance

Cli = Callable[..., tuple[int, str, str]]


def _instance_with_metrics(instance: Instance, metrics: bytes) -> Path:
    instance.aeon_yml({"cost-report": (True, "0 7 * * 1")})
    instance.write(
        "articles/skill-evals-2026-06-14.md",
        "# Skill Evals — 2026-06-14\n\n**Verdict:** SKILL_EVALS_OK\n\n## Full Results\n"
        "| Skill | Status | Diff | Root cause | Quality | Words | Last output | Notes |\n"
        "|-------|--------|------|------------|---------|-------|-------------|-------|\n"
        "| cost-report | PASS | STABLE | — | unknown | 300 | articles/x.md | — |\n",
    )
    return instance.write("articles/skill-evals-metrics-2026-06-14.tsv", metrics)


def test_site_names_a_metrics_file_it_skips(instance: Instance, cli: Cli) -> None:
    """Bug: `aeon-evals site` dropped the metrics history's warnings, so a truncated, binary or
    newer-format metrics file was skipped in silence (a run named it; the dashboard did not)."""
    for metrics, problem in (
        (b"# aeon-evals metrics v2\n", "format v2 is not one this version reads"),
        (b"\x9c\xff\x00binary", "articles/skill-evals-metrics-2026-06-14.tsv: "),
    ):
        path = _instance_with_metrics(instance, metrics)
        before = path.read_bytes()
        code, out, err = cli("site", "--root", str(instance.root), "--now", "2026-06-15")
        assert code == 0, err
        assert out.startswith("site: wrote ")
        lines = [line for line in err.splitlines() if "skill-evals-metrics" in line]
        assert len(lines) == 1 and lines[0].startswith("warning: articles/skill-evals-metrics-")
        assert problem in lines[0]
        assert path.read_bytes() == before  # never repaired or removed
        assert (instance.root / "site/index.html").is_file()


def test_run_pages_follow_articles_moved_to_output_articles(tmp_path: Path, cli: Cli) -> None:
    """After the documented move from articles/ to output/articles/, a warm site kept the run
    pages' "Markdown source" links pointing at articles/ (the page key had the article's bytes,
    not where it is)."""
    root = tmp_path / "demo"
    code, _, err = cli("demo", str(root), "--now", "2026-12-01T07:00:00Z")
    assert code == 0, err
    (root / "output/articles").mkdir(parents=True)
    for article in sorted((root / "articles").glob("skill-evals-*")):
        article.rename(root / "output/articles" / article.name)
    code, _, err = cli("run", "--root", str(root), "--now", "2026-12-02T08:00:00Z", "--no-notify")
    assert code in (0, 1), err
    pages = sorted((root / "site/runs").glob("skill-evals-*.html"))
    assert len(pages) >= 2
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert "../../output/articles/skill-evals-" in text, page.name
        assert 'href="../../articles/skill-evals-' not in text, page.name


def test_site_out_under_proc_exited_70_with_a_traceback(tmp_path: Path, cli: Cli) -> None:
    """`site --out /proc/x` (a folder that cannot be made) raised FileNotFoundError: exit 70
    and a traceback. It is exit 2 and one line naming the folder (here: under a file, and a
    file; the stray-write guard keeps the test out of /proc)."""
    root = tmp_path / "demo"
    assert cli("demo", str(root), "--now", "2026-06-01T06:00:00Z")[0] == 0
    for out in (str(root / "aeon.yml" / "x"), str(root / "aeon.yml")):
        code, stdout, err = cli("site", "--root", str(root), "--out", out)
        assert code == 2, err
        assert err.count("\n") == 1 and err.startswith(f"aeon-evals: {out}: cannot write: ")
        assert stdout == ""


def test_site_said_wrote_1_pages(tmp_path: Path, cli: Cli) -> None:
    """A rebuild that changed only index.html said "wrote 1 pages"."""
    root = tmp_path / "demo"
    assert cli("demo", str(root), "--now", "2026-06-01T06:00:00Z")[0] == 0
    cli("site", "--root", str(root), "--now", "2026-06-01T08:00:00Z")
    code, out, err = cli("site", "--root", str(root), "--now", "2026-06-01T09:00:00Z")
    assert code == 0, err
    assert out.startswith("site: wrote 1 page (")

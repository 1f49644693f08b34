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

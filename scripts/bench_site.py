"""Time build_site over 500 generated weekly articles: `python scripts/bench_site.py [N]`.

Prints the median of 5 cold builds (empty output folder: every article parsed and rendered)
and the median of 5 warm rebuilds (nothing changed: the cache answers, no page is written).
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from aeon_evals.site import build_site

SKILLS = [f"skill-{i:02d}" for i in range(20)]
STATUSES = ["PASS", "PASS", "PASS", "STALE", "WARN", "FAIL", "NO_OUTPUT", "QUALITY_DEGRADED"]


def article(day: date, n: int) -> str:
    rows = []
    for i, skill in enumerate(SKILLS):
        status = STATUSES[(n * 7 + i * 3) % len(STATUSES)] if (n + i) % 4 == 0 else "PASS"
        cause = "—" if status == "PASS" else "word_count"
        rows.append(
            f"| {skill} | {status} | STABLE | {cause} | avg=3.{i % 10} | {1000 + n + i:,} "
            f"| articles/{skill}-{day.isoformat()}.md |"
        )
    failing = sum(1 for r in rows if "| FAIL |" in r or "NO_OUTPUT" in r or "QUALITY_DEGRADED" in r)
    return "\n".join(
        [
            f"# Skill Evals — {day.isoformat()}",
            "",
            "**Verdict:** SKILL_EVALS_OK",
            f"**Coverage:** 20/{25 + n % 5} ({100 * 20 / (25 + n % 5):.1f}%) (first run)",
            f"**Diff:** 0 new fail · 0 fixed · {failing} still failing · {20 - failing} stable",
            "",
            "## Action Queue",
            "1. Investigate skill-01 — word_count (ISS-001)",
            "2. Add evals.json entry for skill-99 — pattern: `memory/logs/*.md`",
            "",
            "## Full Results",
            "| Skill | Status | Diff | Root cause | Quality | Words | Last output |",
            "|-------|--------|------|------------|---------|-------|-------------|",
            *rows,
            "",
            "## Sources",
            "- evals.json=ok · cron-state=ok · skill-health=ok · eval-audit=ok · prior-article=ok",
            "",
        ]
    )


def main(argv: list[str]) -> int:
    count = int(argv[0]) if argv else 500
    now = datetime(2026, 8, 17, 6, 0, tzinfo=UTC)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "articles").mkdir()
        first = date(2026, 8, 16) - timedelta(weeks=count - 1)
        for n in range(count):
            day = first + timedelta(weeks=n)
            (root / "articles" / f"skill-evals-{day.isoformat()}.md").write_text(article(day, n))
        cold, warm = [], []
        for i in range(5):
            start = time.perf_counter()
            build_site(root, root / f"site-{i}", now=now)
            cold.append(time.perf_counter() - start)
        for _ in range(5):
            start = time.perf_counter()
            outcome = build_site(root, root / "site-0", now=now)
            warm.append(time.perf_counter() - start)
        assert not outcome.written, outcome.written
    print(
        f"{count} articles: cold build median {statistics.median(cold):.3f}s, "
        f"warm rebuild median {statistics.median(warm):.3f}s (5 runs each)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

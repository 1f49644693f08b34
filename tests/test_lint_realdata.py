"""`aeon-evals lint` over the two real catalogs: every finding and every colliding pair, pinned."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from realdata import realdata

from aeon_evals.catalog.lint import Rule, Severity, check_catalog, load_catalog
from aeon_evals.contracts.instance import infer_contract

Cli = Callable[..., tuple[int, str, str]]

AEONFUN = "aeonfun__aeon@2026-05-03"
MIROSHARK = "aaronjmars__miroshark-aeon@2026-08-22"

FIRECRAWL = [
    "firecrawl",
    "firecrawl-agent",
    "firecrawl-build-interact",
    "firecrawl-build-onboarding",
    "firecrawl-build-scrape",
    "firecrawl-build-search",
    "firecrawl-crawl",
    "firecrawl-download",
    "firecrawl-interact",
    "firecrawl-map",
    "firecrawl-parse",
    "firecrawl-scrape",
    "firecrawl-search",
]

# The flat frontmatter of May 2026 names most skills with a title ("Paper Pick"): a warning
# each (the Agent Skills form makes it an error). These 31 already use the folder name.
AEONFUN_NAMED_LIKE_THE_FOLDER = {
    *FIRECRAWL,
    "cost-report",
    "fork-contributor-leaderboard",
    "fork-fleet",
    "fork-skill-digest",
    "onboard",
    "project-lens",
    "push-recap",
    "repo-actions",
    "repo-article",
    "repo-pulse",
    "self-improve",
    "skill-leaderboard",
    "skill-update-check",
    "star-milestone",
    "syndicate-article",
    "token-report",
    "weekly-shiplog",
    "workflow-security-audit",
}

EXPECTED: dict[str, dict[tuple[Rule, Severity], list[str]]] = {
    AEONFUN: {
        (Rule.COLLISION, Severity.WARNING): [
            "firecrawl",
            "firecrawl-build-interact",
            "monitor-kalshi",
            "paper-digest",
        ],
        (Rule.NOT_IN_CONFIG, Severity.INFO): sorted(
            [*FIRECRAWL, "aixbt-pulse", "create-campaign", "schedule-ads"]
        ),
        # The firecrawl-build-* skills carry `inputs:` (and `references:`) at the top level.
        (Rule.UNKNOWN_KEY, Severity.WARNING): [
            "firecrawl-build-interact",
            "firecrawl-build-onboarding",
            "firecrawl-build-onboarding",
            "firecrawl-build-scrape",
            "firecrawl-build-search",
        ],
    },
    MIROSHARK: {
        (Rule.COLLISION, Severity.WARNING): ["picks-tracker"],
        (Rule.LINE_BUDGET, Severity.WARNING): [
            "article",
            "auto-workflow",
            "distribute-tokens",
            "feature",
            "fetch-tweets",
            "fork-fleet",
            "github-monitor",
            "operator-scorecard",
            "skill-health",
            "token-movers",
            "vuln-scanner",
            "vuln-tracker",
            "write-tweet",
        ],
        (Rule.NOT_IN_CONFIG, Severity.INFO): [
            "competitor-monitor",
            "higgsfield",
            "remotion",
            "spend-watch",
            "video-script",
            "weekly-aeoncard",
        ],
        # `scorable:` and `schedule:` written at the top level instead of under metadata:.
        (Rule.UNKNOWN_KEY, Severity.WARNING): [
            "heartbeat",
            "hunter-22",
            "memory-flush",
            "skill-health",
        ],
    },
}

COLLISIONS = {
    AEONFUN: [
        (
            "firecrawl-build-interact",
            "firecrawl-interact",
            0.624596,
            "interact 0.31, scrape 0.07, form 0.04, firecrawl 0.03, click 0.03",
        ),
        ("paper-digest", "paper-pick", 0.615635, "paper 0.59, find 0.03"),
        (
            "monitor-kalshi",
            "monitor-polymarket",
            0.557658,
            "monitor 0.25, 24h 0.05, moves 0.05, prediction 0.04, volume 0.04",
        ),
        (
            "firecrawl",
            "firecrawl-search",
            0.527405,
            "search 0.15, web 0.06, page 0.05, firecrawl 0.03, find 0.03",
        ),
    ],
    MIROSHARK: [
        (
            "picks-tracker",
            "token-pick",
            0.577208,
            "pick 0.41, token 0.07, prediction 0.04, scored 0.03, market 0.03",
        )
    ],
}


@pytest.mark.parametrize("name", [AEONFUN, MIROSHARK])
def test_every_finding_on_the_real_catalogs(name: str) -> None:
    root = realdata() / "instances" / name
    report = check_catalog(load_catalog(root))
    found: dict[tuple[Rule, Severity], list[str]] = {}
    for f in report.findings:
        assert f.skill is not None and f.file.startswith(f"skills/{f.skill}/") and f.line >= 1
        found.setdefault((f.rule, f.severity), []).append(f.skill)
    expected = dict(EXPECTED[name])
    if name == AEONFUN:
        folders = sorted(p.parent.name for p in (root / "skills").glob("*/SKILL.md"))
        expected[(Rule.NAME_FORMAT, Severity.WARNING)] = [
            s for s in folders if s not in AEONFUN_NAMED_LIKE_THE_FOLDER
        ]
        assert len(expected[(Rule.NAME_FORMAT, Severity.WARNING)]) == 82
    # `no-output` follows the contract inference (issue 13), which improves on its own: the
    # skills flagged are exactly the scorable ones it finds no output for.
    docs = load_catalog(root).docs
    expected[(Rule.NO_OUTPUT, Severity.WARNING)] = sorted(
        d.skill for d in docs if d.scorable and not infer_contract(d).outputs
    )
    assert 5 <= len(expected[(Rule.NO_OUTPUT, Severity.WARNING)]) <= 20
    assert {k: sorted(v) for k, v in found.items()} == expected
    assert report.count(Severity.ERROR) == 0
    got = [(c.a, c.b, c.similarity, c.terms()) for c in report.collisions]
    assert got == COLLISIONS[name]


def test_lint_on_a_real_catalog_exits_0_with_its_summary(cli: Cli) -> None:
    root = realdata() / "instances" / MIROSHARK
    code, out, err = cli("lint", "--root", str(root))
    assert (code, err) == (0, "")
    assert out.splitlines()[-1].startswith("lint: 77 skills: 0 errors, ")
    assert (
        "skills/picks-tracker/SKILL.md:3: warning: description collides with token-pick "
        "(skills/token-pick/SKILL.md): similarity 0.577; shared terms: pick 0.41, token 0.07, "
        "prediction 0.04, scored 0.03, market 0.03"
    ) in out.splitlines()
    assert (
        "skills/heartbeat/SKILL.md:2: warning: unknown top-level key 'scorable': the Agent "
        "Skills form keeps it under metadata:"
    ) in out.splitlines()

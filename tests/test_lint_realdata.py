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

# The flat frontmatter of May 2026 names most skills with a title ("Paper Pick"), upstream
# Aeon's own convention before August 2026: AE107, off by default (the Agent Skills form makes
# it an error). These 31 already use the folder name.
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
        # `schedule:` written at the top level instead of under metadata: (a top-level
        # `scorable:`, which upstream's scorer reads, is not warned about: heartbeat,
        # memory-flush, skill-health have one).
        (Rule.UNKNOWN_KEY, Severity.WARNING): ["hunter-22"],
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
    # `no-output` follows the contract inference (issue 13), which improves on its own: the
    # skills flagged are exactly the scorable ones in aeon.yml it finds no output for (one
    # aeon.yml does not name is never scheduled, so never checked: AE204 says so).
    cat = load_catalog(root)
    no_output = sorted(
        d.skill
        for d in cat.docs
        if d.scorable and d.skill in cat.registry.skills and not infer_contract(d).outputs
    )
    if no_output:
        expected[(Rule.NO_OUTPUT, Severity.WARNING)] = no_output
    assert len(no_output) <= 10
    assert {k: sorted(v) for k, v in found.items()} == expected
    assert report.count(Severity.ERROR) == 0
    got = [(c.a, c.b, c.similarity, c.terms()) for c in report.collisions]
    assert got == COLLISIONS[name]


def test_lint_on_a_real_catalog_exits_0_with_its_summary(cli: Cli) -> None:
    root = realdata() / "instances" / MIROSHARK
    code, out, err = cli("lint", "--root", str(root))
    assert (code, err) == (0, "")
    assert out.splitlines()[-1].startswith("lint: 77 SKILL.md (77 Agent Skills form): 0 errors, ")
    assert (
        "skills/picks-tracker/SKILL.md:3: AE301 warning: description collides with token-pick "
        "(skills/token-pick/SKILL.md): similarity 0.577; shared terms: pick 0.41, token 0.07, "
        "prediction 0.04, scored 0.03, market 0.03"
    ) in out.splitlines()
    assert "'scorable'" not in out  # upstream's scorer reads it at the top level


def test_flat_titles_are_upstream_convention_and_selected_only_on_request() -> None:
    """Issue 33: lint on aeonfun printed 82 warnings that flat-form titles (`name: Action
    Converter`, upstream Aeon's convention before August 2026) are not slugs, burying the 4
    real collisions. By default none is raised; `extend_select` AE107 shows each of them."""
    from aeon_evals.catalog.select import Selection

    root = realdata() / "instances" / AEONFUN
    cat = load_catalog(root)
    default = check_catalog(cat)
    assert not [f for f in default.findings if f.rule in (Rule.NAME_FORMAT, Rule.FLAT_TITLE)]
    assert default.count(Severity.WARNING) <= 10  # the 4 collisions are 4 of at most 10
    chosen = check_catalog(cat, selection=Selection(extend_select=("AE107",)))
    titles = sorted(f.skill or "" for f in chosen.findings if f.rule is Rule.FLAT_TITLE)
    folders = sorted(p.parent.name for p in (root / "skills").glob("*/SKILL.md"))
    assert titles == [s for s in folders if s not in AEONFUN_NAMED_LIKE_THE_FOLDER]
    assert len(titles) == 82
    assert {f.severity for f in chosen.findings if f.rule is Rule.FLAT_TITLE} == {Severity.WARNING}


SUMMARIES = {
    "aeonfun__aeon@2026-05-03": (
        "113 SKILL.md (109 flat form, 4 Agent Skills form): 0 errors, 9 warnings, 16 infos; "
        "4 collisions"
    ),
    "aaronjmars__miroshark-aeon@2026-08-22": (
        "77 SKILL.md (77 Agent Skills form): 0 errors, 19 warnings, 6 infos; 1 collision"
    ),
    "Svector-anu__skopos-aeon@2026-07-24": (
        "71 SKILL.md (70 flat form, 1 broken frontmatter): 2 errors, 18 warnings, 0 infos; "
        "1 collision"
    ),
    "Da6hkin__aeon@2026-07-11": (
        "120 SKILL.md (120 flat form): 0 errors, 2 warnings, 3 infos; 2 collisions"
    ),
}


@pytest.mark.parametrize("name", sorted(SUMMARIES))
def test_the_summary_line_of_each_real_instance_says_each_form(name: str, cli: Cli) -> None:
    root = realdata() / "instances" / name
    code, out, err = cli("lint", "--root", str(root))
    assert err == ""
    assert out.splitlines()[-1] == f"lint: {SUMMARIES[name]}"
    assert code == (1 if "2 errors" in SUMMARIES[name] else 0)

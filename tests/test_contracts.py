"""Output contracts inferred from SKILL.md, checked against the real outputs of real instances."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from realdata import realdata

from aeon_evals.contracts import (
    CACHE_FILE,
    Contract,
    infer_contract,
    load_contracts,
)
from aeon_evals.outputs import Outputs, name_date
from aeon_evals.patterns import compile_pattern
from aeon_evals.skillmd import parse_skill_doc, read_skill_doc

MIRO = "aaronjmars__miroshark-aeon@2026-08-22"
FUN = "aeonfun__aeon@2026-05-03"


def _contract(text: str, skill: str = "s") -> Contract:
    return infer_contract(parse_skill_doc(skill, f"skills/{skill}/SKILL.md", text.encode()))


def _root(name: str) -> Path:
    return realdata() / "instances" / name


# --- matching the way the run does: headings by title, any level, case and -/_/space alike ---


def _norm(title: str) -> str:
    return re.sub(r"[\s_-]+", " ", title.strip().lstrip("#").replace("*", "").strip().lower())


def _headings(text: str) -> list[str]:
    return [_norm(m.group(1)) for m in re.finditer(r"(?m)^#{1,6}\s+(.+)$", text)]


def _section(text: str, heading: str) -> str | None:
    want = _norm(heading)
    out: list[str] = []
    level: int | None = None
    for line in text.splitlines(keepends=True):
        m = re.match(r"^(#{1,6})\s+(.+)$", line)
        if m:
            title = _norm(m.group(2))
            if title.startswith(want) and (
                len(title) == len(want) or not title[len(want)].isalnum()
            ):
                level = len(m.group(1))
            elif level is not None and len(m.group(1)) <= level:
                level = None
        if level is not None:
            out.append(line)
    return "".join(out) or None


def _newest(root: Path, pattern: str, section: str | None) -> tuple[str, str] | None:
    files = sorted(Outputs(root).matches(pattern).files, key=lambda f: (str(name_date(f) or ""), f))
    for rel in reversed(files):
        text = (root / rel).read_text(encoding="utf-8", errors="replace")
        body = _section(text, section) if section else text
        if body is not None:
            return rel, body
    return None


# --- the contract of 20+ named real skills, against their real outputs --------------------------

# fmt: off
REAL = [
    # (instance, skill, output_pattern, log section or None, required headings)
    (
        MIRO,
        "token-movers",
        "output/articles/token-report-*.md",
        None,
        ("## 24h at a glance", "## Trend", "## What changed"),
    ),
    (MIRO, "holdings", "output/articles/holdings-*.md", None, ()),
    (MIRO, "shiplog", "output/articles/shiplog-*.md", None, ()),
    (MIRO, "fetch-tweets", "memory/logs/*.md", "### fetch-tweets", ()),
    (MIRO, "heartbeat", "memory/logs/*.md", "### heartbeat", ()),
    (MIRO, "repo-pulse", "memory/logs/*.md", "## Repo Pulse", ()),
    (MIRO, "memory-flush", "memory/logs/*.md", "### memory-flush", ()),
    (FUN, "agent-buzz", "memory/logs/*.md", "### agent-buzz", ()),
    (FUN, "action-converter", "memory/logs/*.md", "## Action Converter", ()),
    (FUN, "token-pick", "memory/logs/*.md", "## Token Pick", ()),
    (FUN, "daily-routine", "memory/logs/*.md", "### daily-routine", ()),
    (FUN, "evening-recap", "memory/logs/*.md", "## Evening Recap", ()),
    (FUN, "monitor-runners", "memory/logs/*.md", "## Monitor Runners", ()),
    (FUN, "github-monitor", "memory/logs/*.md", "### github-monitor", ()),
    (FUN, "cost-report", "memory/logs/*.md", "## Cost Report", ()),
    (FUN, "article", "articles/[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9].md", None, ()),
    (FUN, "paper-digest", "articles/paper-digest-*.md", None, ()),
    (FUN, "deep-research", "articles/deep-research-*.md", None, ()),
    (FUN, "research-brief", "articles/research-brief-*.md", None, ()),
    (FUN, "vuln-scanner", "articles/vuln-scan-*.md", None, ()),
    (FUN, "technical-explainer", "articles/explainer-*.md", None, ()),
    (FUN, "repo-actions", "articles/repo-actions-*.md", None, ()),
    (
        FUN,
        "push-recap",
        "articles/push-recap-*.md",
        None,
        ("## Verdict", "## Developer notes", "## Sources"),
    ),
    (
        FUN,
        "code-health",
        "articles/code-health-*.md",
        None,
        ("### Concerns", "### Recommendations"),
    ),
    (
        FUN,
        "skill-security-scan",
        "articles/security-scan-*.md",
        None,
        (
            "## Needs attention",
            "## Resolved since last scan",
            "## Persistent findings",
            "## Per-file results",
            "## Appendix",
        ),
    ),
    (
        FUN,
        "market-context-refresh",
        "memory/topics/market-context.md",
        None,
        (
            "## Signal Snapshot",
            "## What Changed Since Last Refresh",
            "## Active Narratives",
            "## Top DeFi Protocols",
            "## Chain Flow",
            "## Stablecoins",
            "## Trending",
            "## Prediction Markets",
            "## Implications for Downstream Skills",
            "## Token Picks Made",
        ),
    ),
    (FUN, "auto-merge", "memory/logs/*.md", "### auto-merge", ()),
    (FUN, "changelog", "articles/changelog-*.md", None, ()),
    (MIRO, "changelog", "output/articles/changelog-*.md", None, ()),
]
# fmt: on


@pytest.mark.parametrize(("name", "skill", "pattern", "section", "headings"), REAL)
def test_real_contract_matches_the_real_outputs(
    name: str, skill: str, pattern: str, section: str | None, headings: tuple[str, ...]
) -> None:
    root = _root(name)
    doc = read_skill_doc(root, skill)
    assert doc is not None
    contract = infer_contract(doc)
    first = contract.outputs[0]
    assert (first.spec.output_pattern, first.spec.section) == (pattern, section)
    assert first.spec.required_headings == headings
    assert contract.source == first.source and re.fullmatch(r"SKILL\.md:\d+", contract.source)
    newest = _newest(root, pattern, section)
    assert newest is not None, f"no real output matches {pattern} {section}"
    rel, body = newest
    present = _headings(body)
    for heading in headings:
        want = _norm(heading)  # a heading matches by the start of its title, as the run does
        assert any(
            p.startswith(want) and (len(p) == len(want) or not p[len(want)].isalnum())
            for p in present
        ), f"{heading} not in {rel}"
    assert len(body.split()) >= first.spec.min_words
    for forbidden in first.spec.forbidden_patterns:
        assert compile_pattern(forbidden).search(body.encode()) is None, (forbidden, rel)
    lines = (root / doc.path).read_text().splitlines()
    for element, ev in first.evidence:
        assert ev.quote.rstrip("…")[:40] in " ".join(lines[ev.line - 1].split()), element


# --- bad input --------------------------------------------------------------------------------


def test_unterminated_fence_gives_a_warning_and_no_contract() -> None:
    c = _contract("Save to `articles/s-${today}.md`:\n\n```markdown\n# S\n## Summary\n")
    assert c.outputs == () and c.reason == "a code fence is never closed"
    assert c.warnings == ("skills/s/SKILL.md:3: code fence opened here is never closed",)


@pytest.mark.parametrize(
    "target", ["../articles/s-${today}.md", "/etc/s.md", "articles/../../s.md", "~/s.md"]
)
def test_writing_outside_the_root_gives_a_warning_and_no_contract(target: str) -> None:
    c = _contract(f"Read `memory/MEMORY.md`.\n\nWrite the report to `{target}`.\n")
    assert c.outputs == () and c.reason == "SKILL.md writes outside the instance root"
    assert len(c.warnings) == 1 and c.warnings[0].startswith("skills/s/SKILL.md:3: writes outside")


def test_scratch_files_in_tmp_are_not_outputs_nor_outside() -> None:
    c = _contract(
        "Write the digest to `/tmp/s-report.md` and send it.\nAppend to `memory/logs/${today}.md`.\n"
    )
    assert [o.spec.output_pattern for o in c.outputs] == ["memory/logs/*.md"]


def test_binary_skill_md_has_no_contract() -> None:
    doc = parse_skill_doc("s", "skills/s/SKILL.md", b"Write to articles/s-${today}.md\x00")
    c = infer_contract(doc)
    assert c.outputs == () and c.reason and len(c.warnings) == 1


# --- the cache --------------------------------------------------------------------------------


def test_load_contracts_caches_by_hash_and_a_damaged_cache_is_a_miss(tmp_path: Path) -> None:
    skill = tmp_path / "skills/s/SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("Save to `articles/s-${today}.md`.\n")
    first = load_contracts(tmp_path, ["s", "missing"])
    assert list(first) == ["s"] and first["s"].outputs[0].spec.output_pattern == "articles/s-*.md"
    cache = tmp_path / CACHE_FILE
    data = json.loads(cache.read_text())
    assert data["version"] == 1 and len(data["entries"]) == 1
    assert load_contracts(tmp_path, ["s"]) == first
    cache.write_text("{not json")
    assert load_contracts(tmp_path, ["s"]) == first
    key = next(iter(json.loads(cache.read_text())["entries"]))
    cache.write_text(json.dumps({**data, "entries": {key: {"outputs": 3}}}))
    assert load_contracts(tmp_path, ["s"]) == first
    skill.write_text("Save to `articles/t-${today}.md`.\n")
    assert load_contracts(tmp_path, ["s"])["s"].outputs[0].spec.output_pattern == "articles/t-*.md"


# --- word floors, branches, placeholders ---------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "skill", "floor", "quote"),
    [
        (FUN, "article", 600, "600-800 word"),  # "Write a 600-800 word article"
        (
            FUN,
            "research-brief",
            600,
            "600-1000 words",
        ),  # a heading: "Write the brief (600-1000 words)"
        (MIRO, "token-movers", 0, None),  # "[≤18 words, …]" bounds one line, not the report
        (MIRO, "holdings", 0, None),
    ],
)
def test_word_floor_is_for_the_whole_output_only(
    name: str, skill: str, floor: int, quote: str | None
) -> None:
    doc = read_skill_doc(_root(name), skill)
    assert doc is not None
    first = infer_contract(doc).outputs[0]
    assert first.spec.min_words == floor
    assert [ev.quote for el, ev in first.evidence if el == "min_words"] == (
        [quote] if quote else []
    )


def test_outputs_selected_by_var_keep_their_condition() -> None:
    doc = read_skill_doc(_root(MIRO), "token-movers")
    assert doc is not None
    outputs = infer_contract(doc).outputs
    assert [(o.spec.output_pattern, o.spec.section, o.condition) for o in outputs] == [
        ("output/articles/token-report-*.md", None, "mode=single-token"),
        ("memory/logs/*.md", "### token-movers", "mode=movers"),
    ]
    doc = read_skill_doc(_root(FUN), "fleet-control")
    assert doc is not None
    outputs = infer_contract(doc).outputs
    assert [(o.spec.output_pattern, o.condition) for o in outputs] == [
        ("articles/fleet-status-*.md", "mode=status"),
        ("memory/logs/*.md", None),  # the pre-flight logs in every mode
    ]
    assert outputs[1].spec.section == "## fleet-control"


def test_inputs_are_never_outputs() -> None:
    text = (
        "Read the last 2 days of `memory/logs/`.\n"
        "Pick the latest `output/articles/token-report-*.md` and compare.\n"
        "Latest `articles/digest-${today}.md` from yesterday.\n"
        "Append to `memory/logs/${today}.md`:\n\n```\n### heartbeat\n- ok\n```\n"
    )
    c = _contract(text, "heartbeat")
    assert [(o.spec.output_pattern, o.spec.section) for o in c.outputs] == [
        ("memory/logs/*.md", "### heartbeat")
    ]
    assert c.source == "SKILL.md:4"


def test_skeleton_placeholders_are_forbidden_as_written_and_compile() -> None:
    text = (
        "Tags: **[BREAKOUT]** means a sustained move.\n\n"
        "Save to `articles/s-${today}.md`:\n\n```markdown\n# S — ${today}\n\n"
        "**Verdict:** [LABEL] — [≤18 words, citing the numbers]\n\n## Summary\n"
        "{one_line_most_important_change}\n- [item]\n- X [BREAKOUT] [ok|fail]\n- [link](url) [ ] [1]\n```\n"
    )
    out = _contract(text).outputs[0]
    forbidden = dict(
        (el.removeprefix("forbidden:"), ev.quote)
        for el, ev in out.evidence
        if el.startswith("forbidden:")
    )
    assert sorted(forbidden.values()) == sorted(
        [
            "${today}",
            "[LABEL]",
            "[≤18 words, citing the numbers]",
            "{one_line_most_important_change}",
            "[ok|fail]",
        ]
    )
    assert out.spec.required_headings == ("## Summary",)
    legit = b"# S - 2026-05-02\n**Verdict:** BREAKOUT [BREAKOUT] ok\n## Summary\n- [x] done [1] `${today}`\n"
    for pattern in out.spec.forbidden_patterns:
        assert compile_pattern(pattern).search(legit) is None, pattern
    for placeholder in forbidden.values():
        assert any(
            compile_pattern(p).search(f"a {placeholder} b".encode())
            for p in out.spec.forbidden_patterns
        )

"""Coverage audit (issue #4): the old scripts/eval-audit's numbers on real snapshots, where and why
ours differ, inferred patterns, orphan specs, starter stubs, the wrapper script, the bootstrap."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import Instance
from hypothesis import given
from hypothesis import strategies as st
from realdata import realdata

from aeon_evals.commands.audit_cmd import as_json, render_text
from aeon_evals.contracts import audit
from aeon_evals.contracts.audit import closest_skill, infer_from_text
from aeon_evals.contracts.paths import DATE_GLOB, normalize_ref
from aeon_evals.contracts.stubs import (
    FORBIDDEN_DEFAULTS,
    name_pattern,
    starter_manifest,
    stub_for,
    stubs,
)
from aeon_evals.load import skill_names
from aeon_evals.load.manifest import parse_manifest
from aeon_evals.load.registry import Registry, parse_registry
from aeon_evals.model import Registration
from aeon_evals.text.patterns import compile_pattern

Cli = Callable[..., tuple[int, str, str]]
REPO = Path(__file__).resolve().parents[1]
NOW = "2026-05-31T06:00:00Z"

# --- the old script's real outputs --------------------------------------------------------------

# (repository, commit of the _generated outputs, aeon.yml of that commit, evals.json of that time).
# aeonfun c31d240f ran on the 2026-04-26 aeon.yml (HEAD's has 1 enabled skill, not 94): see
# test_aeonfun_c31d240f_ran_on_the_2026_04_26_aeon_yml. anajuliabit 6ad810e's evals.json is not in
# realdata; its covered list is upstream's 14 keys minus the two orphans, i.e. aeonfun's 04-09 file.
SNAPSHOTS = [
    (
        "aeonfun__aeon",
        "c31d240f",
        "aeonfun__aeon/aeon.yml@2026-04-26_533505db",
        "aeonfun__aeon/skills/skill-evals/evals.json@2026-04-09_9c0184c5",
    ),
    (
        "anajuliabit__aeon",
        "6ad810e",
        "anajuliabit__aeon/aeon.yml@2026-05-24_6ad810e",
        "aeonfun__aeon/skills/skill-evals/evals.json@2026-04-09_9c0184c5",
    ),
    (
        "anajuliabit__aeon",
        "ea83659",
        "anajuliabit__aeon/aeon.yml@2026-05-31_ea83659",
        "anajuliabit__aeon/skills/skill-evals/evals.json@2026-05-28_b4ce442",
    ),
]
_SECTION = re.compile(r"^--- (.+?) \(\d+\)")
_ITEM = re.compile(r"^  [✓✗\-?] (\S+)")


def old_all(repo: str, commit: str) -> dict[str, list[str]]:
    """The sections of the old `eval-audit --all` text output, by title."""
    sections: dict[str, list[str]] = {}
    title = ""
    for line in (
        (realdata() / repo / "_generated" / f"eval-audit--all@{commit}.txt")
        .read_text()
        .splitlines()
    ):
        if m := _SECTION.match(line):
            title = m.group(1)
            sections[title] = []
        elif (m := _ITEM.match(line)) and title:
            sections[title].append(m.group(1))
    return sections


def old_json(repo: str, commit: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(
        (realdata() / repo / "_generated" / f"eval-audit--json@{commit}.json").read_text()
    )
    return data


def old_view(text: str) -> Registry:
    """aeon.yml as the old script read it: only two-space lines holding a one-line flow map
    (`grep -E '^\\s{2}[a-zA-Z0-9_-]+:\\s*\\{'`), enabled when the line says `enabled: true`."""
    skills: dict[str, Registration] = {}
    for line in text.splitlines():
        m = re.match(r"^\s{2}([a-zA-Z0-9_-]+):\s*\{", line)
        if not m:
            continue
        if "enabled: true" in line:
            skills[m.group(1)] = Registration(m.group(1), enabled=True)
        elif "enabled: false" in line:
            skills[m.group(1)] = Registration(m.group(1), enabled=False)
    return Registry("aeon.yml", skills)


def multiline_entries(text: str) -> set[str]:
    """Entries written as `name:` with the flow map on the following lines."""
    return set(re.findall(r"^  ([\w-]+):[ \t]*(?:#.*)?\n\s+\{", text, re.M))


def rebuild(
    root: Path, repo: str, commit: str, yml: str, evals: str, *, skill_md: bool = True
) -> Path:
    """The snapshot's skills/ folders (names from the old outputs; an empty SKILL.md in each),
    its aeon.yml and an evals.json from the same time."""
    for names in old_all(repo, commit).values():
        for name in names:
            (root / "skills" / name).mkdir(parents=True, exist_ok=True)
            if skill_md:
                (root / "skills" / name / "SKILL.md").write_text("")
    shutil.copyfile(realdata() / yml, root / "aeon.yml")
    (root / "skills/skill-evals").mkdir(parents=True, exist_ok=True)
    shutil.copyfile(realdata() / evals, root / "skills/skill-evals/evals.json")
    return root


def _audit(root: Path, registry: Registry) -> audit.AuditReport:
    specs = set(json.loads((root / "skills/skill-evals/evals.json").read_text())["skills"])
    return audit.audit(root, specs, registry)


@pytest.mark.parametrize(("repo", "commit", "yml", "evals"), SNAPSHOTS)
def test_same_lists_as_the_old_script_when_reading_aeon_yml_as_it_did(
    tmp_path: Path, repo: str, commit: str, yml: str, evals: str
) -> None:
    """Given the old script's view of aeon.yml, every list and count is the old one, except
    enabled_total and coverage (test_old_script_counted_disabled_covered_skills_as_enabled),
    and the old script's own skill, skill-evals, which is no gap (issue 14)."""
    root = rebuild(tmp_path, repo, commit, yml, evals)
    found = _audit(root, old_view((root / "aeon.yml").read_text()))
    sections, data = old_all(repo, commit), old_json(repo, commit)
    old_gaps = [g["skill"] for g in data["uncovered_enabled"]]
    assert "skill-evals" in old_gaps
    data["uncovered_enabled"] = [
        g for g in data["uncovered_enabled"] if g["skill"] != "skill-evals"
    ]
    data["summary"]["uncovered_enabled"] -= 1
    assert list(found.covered) == data["covered"] == sections["Covered"]
    assert [g.skill for g in found.uncovered_enabled] == [
        g["skill"] for g in data["uncovered_enabled"]
    ]
    assert (
        list(found.uncovered_disabled)
        == data["uncovered_disabled"]
        == sections.get("Uncovered Disabled", [])
    )
    assert list(found.uncovered_unregistered) == sorted(sections["Not in aeon.yml"])
    mine = as_json(found)["summary"]
    for key in (
        "total_skills",
        "covered",
        "uncovered_enabled",
        "uncovered_disabled",
        "uncovered_unregistered",
    ):
        assert mine[key] == data["summary"][key], key


@pytest.mark.parametrize(("repo", "commit", "yml", "evals"), SNAPSHOTS)
def test_old_script_missed_multiline_entries(
    tmp_path: Path, repo: str, commit: str, yml: str, evals: str
) -> None:
    """The old grep saw only one-line entries: a multi-line one counted as 'not in aeon.yml'.
    With the real registry exactly those skills move to enabled/disabled; nothing else moves."""
    root = rebuild(tmp_path, repo, commit, yml, evals)
    text = (root / "aeon.yml").read_text()
    registry = parse_registry(text)
    found = _audit(root, registry)
    sections = old_all(repo, commit)
    old_unregistered = set(sections["Not in aeon.yml"])
    moved = old_unregistered - set(found.uncovered_unregistered)
    assert moved and moved == multiline_entries(text) & old_unregistered
    assert set(found.uncovered_unregistered) <= old_unregistered
    now_enabled = {g.skill for g in found.uncovered_enabled} - set(sections["Uncovered Enabled"])
    now_disabled = set(found.uncovered_disabled) - set(sections.get("Uncovered Disabled", []))
    assert now_enabled | now_disabled == moved and not now_enabled & now_disabled
    assert all(registry.skills[s].enabled for s in now_enabled) and not any(
        registry.skills[s].enabled for s in now_disabled
    )
    if commit == "c31d240f":
        assert moved == {
            "repo-scanner",
            "syndicate-article",
            "vercel-projects",
        }  # all three enabled
        assert (found.enabled_total, old_json(repo, commit)["summary"]["enabled_total"]) == (97, 94)
    if commit == "6ad810e":
        assert now_enabled == {"operator-scorecard"}


@pytest.mark.parametrize(
    ("commit", "yml", "evals", "old", "ours"),
    [
        # ours: skill-evals (enabled: the LLM-run skill this tool replaces) is not counted
        ("6ad810e", SNAPSHOTS[1][2], SNAPSHOTS[1][3], (12, 28, 42), (4, 20, 20)),
        ("ea83659", SNAPSHOTS[2][2], SNAPSHOTS[2][3], (14, 38, 36), (4, 28, 14)),
    ],
)
def test_old_script_counted_disabled_covered_skills_as_enabled(
    tmp_path: Path,
    commit: str,
    yml: str,
    evals: str,
    old: tuple[int, int, int],
    ours: tuple[int, int, int],
) -> None:
    """Old: enabled_total = covered + uncovered enabled, so a covered but disabled skill counted
    as enabled and covered. Ours: enabled skills with a spec / enabled skills in aeon.yml."""
    root = rebuild(tmp_path, "anajuliabit__aeon", commit, yml, evals)
    summary = old_json("anajuliabit__aeon", commit)["summary"]
    assert summary["enabled_total"] == summary["covered"] + summary["uncovered_enabled"]
    assert (summary["covered"], summary["enabled_total"], summary["coverage_pct"]) == old
    registry = parse_registry((root / "aeon.yml").read_text())
    found = _audit(root, registry)
    assert (found.coverage.covered, found.coverage.enabled, found.coverage_pct) == ours
    assert found.enabled_total == len(registry.enabled())
    disabled_covered = [s for s in found.covered if not registry.skills[s].enabled]
    assert len(disabled_covered) == summary["covered"] - ours[0]


def test_old_script_saw_33_enabled_where_there_are_43() -> None:
    text = (realdata() / "anajuliabit__aeon/aeon.yml@2026-06-2x_0444176").read_text()
    assert len(old_view(text).enabled()) == 33
    assert len(parse_registry(text).enabled()) == 43


def test_aeonfun_c31d240f_ran_on_the_2026_04_26_aeon_yml(tmp_path: Path) -> None:
    """The old outputs match the 04-26 file (94 one-line enabled entries), not HEAD's."""
    data = old_json("aeonfun__aeon", "c31d240f")
    for name, expected in (("aeon.yml@2026-04-26_533505db", True), ("aeon.yml", False)):
        view = old_view((realdata() / "aeonfun__aeon" / name).read_text())
        names = [g["skill"] for g in data["uncovered_enabled"]]
        assert (sorted(view.enabled() - set(data["covered"])) == names) is expected, name


def test_old_script_wrote_malformed_globs_we_do_not() -> None:
    """It printed `articles/fleet-status--*.md`, `articles/explainer--*.md` and a literal date."""
    patterns = {
        g["inferred_pattern"] for g in old_json("aeonfun__aeon", "c31d240f")["uncovered_enabled"]
    }
    assert {
        "articles/fleet-status--*.md",
        "articles/workflow-security-audit-2026-04-11-*.md",
    } <= patterns
    assert normalize_ref("articles/fleet-status-${var}-${today}.md") == "articles/fleet-status-*.md"
    assert normalize_ref("articles/fleet-status--${today}.md") == "articles/fleet-status-*.md"
    assert (
        normalize_ref("articles/workflow-security-audit-2026-04-11-${today}.md")
        == "articles/workflow-security-audit-*.md"
    )


def test_the_old_json_keys_are_all_kept(tmp_path: Path) -> None:
    root = rebuild(tmp_path, *SNAPSHOTS[0])
    mine = as_json(_audit(root, parse_registry((root / "aeon.yml").read_text())))
    old = old_json("aeonfun__aeon", "c31d240f")
    assert set(old) <= set(mine) and set(old["summary"]) <= set(mine["summary"])
    assert (
        set(old["uncovered_enabled"][0])
        == set(mine["uncovered_enabled"][0])
        == {"skill", "inferred_pattern"}
    )


# --- inferred output patterns -------------------------------------------------------------------

SKILL_MD = [
    # (skill, SKILL.md text, inferred pattern)
    (
        "reflect",
        "Read the last 7 days of `memory/logs/` and rewrite `memory/topics/reflections.md`.",
        "memory/topics/reflections.md",
    ),
    (
        "paper-pick",
        "Write the result to `articles/paper-pick-${today}.md` and notify the operator.",
        "articles/paper-pick-*.md",
    ),
    (
        "technical-explainer",
        "Read the last 3 days of `memory/logs/` to find topics.\n1. The newest file in `articles/` "
        "from the last 3 days.\n\n"
        "## Save\n1. Save the explainer to `articles/explainer-${today}.md`:\n2. Log to "
        "`memory/logs/${today}.md` always.\n"
        "   - **File:** articles/explainer-${today}.md\n",
        "articles/explainer-*.md",
    ),
    (
        "fleet-control",
        "Scan the last ~3 days of `memory/logs/` for recent activity. If gh is missing, log "
        "`NO_AUTH` to `memory/logs/${today}.md`.\n"
        "Compare against the most recent prior `output/articles/fleet-status-*.md`.\n"
        "Write to `output/articles/fleet-status-${var}-${today}.md`:\n"
        "Publish the scorecard to `memory/scorecard.md` and append a row to "
        "`memory/scorecard-history.csv`.\n",
        "output/articles/fleet-status-*.md",
    ),
    (
        "skill-security-scan",
        "Compare with last week's audit in "
        "articles/workflow-security-audit-2026-04-11-${today}.md.\n"
        "Write the findings to articles/skill-security-scan-$(date +%Y-%m-%d).md.",
        "articles/skill-security-scan-*.md",
    ),
    (
        "heartbeat",
        "Check every skill. Append a `### heartbeat` section to memory/logs/${today}.md.",
        "memory/logs/*.md",
    ),
    (
        "update-gallery",
        "Find orphaned images and write them to memory/topics/gallery-orphans.md.",
        "memory/topics/gallery-orphans.md",
    ),
    (
        "digest",
        "Summarise what came in from `memory/logs/` to `articles/digest-${today}.md`.",
        "articles/digest-*.md",
    ),
    (
        "vuln-scanner",
        "Save the report as articles/vuln-scan-<repo>-<date>.md",
        "articles/vuln-scan-*.md",
    ),
    (
        "morning-brief",
        "Read memory/logs/ and send the brief through ./notify.",
        "memory/logs/*.md",
    ),  # the shared log, as before
    (
        "evening-recap",
        "Send an end-of-day summary through ./notify. Read memory/MEMORY.md first.",
        "",
    ),
    (
        "article",
        "Write a new article to articles/${today}.md.",
        "articles/[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9].md",
    ),  # date-named articles only, as the contract reads it (`articles/*.md` would match all)
    ("state-only", "Write the snapshot to memory/state/fleet.json.", ""),
    (
        "reader",
        "Read the prior articles/token-report-${today}.md for context.",
        "",
    ),  # read only, not the log
    # an older SKILL.md (a fork's digest, github-trending, self-improve) names the day in words
    (
        "digest",
        "2. Append to `memory/logs/today's date.md` under **one** `### digest` heading:",
        "memory/logs/*.md",
    ),
    (
        "self-improve",
        "5. **Save the full review** to `output/articles/self-review-today's date.md`.",
        "output/articles/self-review-*.md",
    ),
    ("daily", "Write the brief to `articles/today’s date.md`.", f"articles/{DATE_GLOB}.md"),
]


@pytest.mark.parametrize(("skill", "text", "expected"), SKILL_MD)
def test_the_pattern_is_what_the_skill_writes(skill: str, text: str, expected: str) -> None:
    assert infer_from_text(text, skill) == expected


_WELL_FORMED = re.compile(
    r"^(?:output/)?(?:articles|memory|memory/topics|memory/logs)/[A-Za-z0-9*][A-Za-z0-9_.*-]*\.md$"
    r"|^(?:output/)?articles/(?:\[0-9\]){4}-(?:\[0-9\]){2}-(?:\[0-9\]){2}\.md$"  # date-named
)


@given(st.text(alphabet="abz-_.*/${}()<>0129 YMD", max_size=40))
def test_a_normalized_pattern_is_never_malformed(tail: str) -> None:
    for prefix in ("articles/", "output/articles/", "memory/topics/", "memory/"):
        glob = normalize_ref(prefix + tail)
        if glob is None:
            continue
        name = glob.rpartition("/")[2]
        assert _WELL_FORMED.match(glob), glob
        if name == f"{DATE_GLOB}.md":
            continue  # date-named articles only (`articles/${today}.md`): no letters in it
        assert not re.search(r"--|-\.|\.\.|\*\*|[-_]\.md$", name), glob
        assert re.search(r"[A-Za-z]", name.removesuffix(".md")), glob


def test_an_unreadable_skill_md_only_loses_its_pattern(tmp_path: Path) -> None:
    (tmp_path / "skills/a/SKILL.md").mkdir(parents=True)  # a folder where a file should be
    (tmp_path / "skills/b").mkdir()
    (tmp_path / "skills/b/SKILL.md").write_bytes(b"\xff\xfe write to articles/b-${today}.md \x00")
    registry = parse_registry("skills:\n  a: { enabled: true }\n  b: { enabled: true }\n")
    found = audit.audit(tmp_path, set(), registry)
    assert [(g.skill, g.inferred_pattern) for g in found.uncovered_enabled] == [
        ("a", ""),
        ("b", "articles/b-*.md"),
    ]


def test_a_bug_in_inference_never_stops_the_audit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def boom(text: str, skill: str) -> str:
        raise RuntimeError("boom")

    monkeypatch.setattr(audit, "infer_from_text", boom)
    (tmp_path / "skills/a").mkdir(parents=True)
    (tmp_path / "skills/a/SKILL.md").write_text("x")
    found = audit.audit(tmp_path, set(), parse_registry("skills:\n  a: { enabled: true }\n"))
    assert found.uncovered_enabled == (audit.Gap("a", ""),)
    assert found.warnings == ("skills/a/SKILL.md: output pattern not inferred: RuntimeError: boom",)


# --- orphan specs ---------------------------------------------------------------------------------


def _real_names() -> set[str]:
    names = {n for ns in old_all("aeonfun__aeon", "c31d240f").values() for n in ns}
    return names | set(
        parse_registry(
            (realdata() / "anajuliabit__aeon/aeon.yml@2026-06-2x_0444176").read_text()
        ).skills
    )


@pytest.mark.parametrize(
    ("orphan", "closest"),
    [
        ("hn-digest", "hacker-news-digest"),  # initials
        ("polymarket", "monitor-polymarket"),  # the head word, not polymarket-comments
        ("gh-trending", "github-trending"),  # abbreviation
        ("skill-heath", "skill-health"),  # typo
        ("auto-research", "autoresearch"),  # split word
        ("weekly-thing", None),  # one word of two is not enough
        ("quux", None),
        ("", None),
    ],
)
def test_orphan_specs_resolve_to_the_skill_they_meant(orphan: str, closest: str | None) -> None:
    assert closest_skill(orphan, _real_names()) == closest


def test_the_orphan_prefilter_never_drops_a_name_the_alignment_keeps() -> None:
    # find_orphans skips the alignment of a name when a bound says it cannot explain 2/3 of the
    # orphan: the bound must hold for every word and name (real names and hand-made orphans)
    names = skill_names._names(_real_names())
    vocabulary = {w for n in names for w in n.words}
    orphans = ["hn-digest", "gh-trending", "skill-heath", "auto-research", "polymarket", "x-y"]
    orphans += [n.name[:-1] for n in names[::7]] + [n.name + "s" for n in names[::11]]
    for orphan in orphans:
        words = skill_names.tokens(orphan)
        matching = [{w for w in vocabulary if skill_names._match(t, (w,))} for t in words]
        for tok in words:
            assert all(
                skill_names._may_match(tok, w) for w in vocabulary if skill_names._match(tok, (w,))
            )
        for name in names:
            cover = skill_names._align(words, name.words)[0]
            assert skill_names._may_cover(words, matching, name) >= cover, (orphan, name.name)


_WORD = st.text(alphabet="abcdeg0", min_size=1, max_size=7)


@given(st.lists(_WORD, min_size=1, max_size=3), st.lists(_WORD, min_size=1, max_size=5))
def test_the_orphan_prefilter_bounds_any_alignment(orphan: list[str], name: list[str]) -> None:
    matching = [{w for w in name if skill_names._match(t, (w,))} for t in orphan]
    for tok in orphan:
        assert all(skill_names._may_match(tok, w) for w in name if skill_names._match(tok, (w,)))
    known = skill_names._Name("-".join(name), name, "-".join(name), skill_names._spans(name))
    cover = skill_names._align(orphan, name)[0]
    assert skill_names._may_cover(orphan, matching, known) >= cover


def test_real_orphans_are_reported_with_their_real_skill(tmp_path: Path) -> None:
    root = rebuild(tmp_path, *SNAPSHOTS[0])
    found = _audit(root, parse_registry((root / "aeon.yml").read_text()))
    assert [(o.skill, o.closest) for o in found.orphans] == [
        ("hn-digest", "hacker-news-digest"),
        ("polymarket", "monitor-polymarket"),
    ]
    text = "\n".join(render_text(found, show_all=False))
    assert "? hn-digest" in text and "did you mean hacker-news-digest?" in text


def test_a_spec_for_a_registered_skill_without_a_folder_is_not_an_orphan(tmp_path: Path) -> None:
    registry = parse_registry(
        'skills:\n  a: { enabled: true, schedule: "0 7 * * *" }\n  b: { enabled: false }\n'
    )
    found = audit.audit(tmp_path, {"a", "b", "c"}, registry)
    assert found.covered == ("a", "b") and [o.skill for o in found.orphans] == ["c"]
    assert found.no_folder == ("a",) and found.coverage.covered == 1 and found.coverage.enabled == 1


# --- stubs ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("skill", ["agent-buzz", "last30", "token_pick", "a.b+c", "x"])
def test_a_stub_is_a_valid_spec_whose_patterns_compile(skill: str) -> None:
    for pattern in ("articles/x-*.md", "memory/logs/*.md", ""):
        spec = stub_for(audit.Gap(skill, pattern))
        manifest = parse_manifest({"version": "1", "skills": {"s": spec}})
        assert manifest.problems == () and "s" in manifest.specs
        assert spec["forbidden_patterns"] == list(FORBIDDEN_DEFAULTS)
        if pattern in ("memory/logs/*.md", ""):
            assert (
                spec["output_pattern"] == "memory/logs/*.md" and spec["section"] == f"### {skill}"
            )
        else:
            assert "section" not in spec and spec["min_words"] == 30
    regex = compile_pattern(name_pattern(skill))
    assert regex.search(skill.upper().encode())


def test_name_pattern_matches_the_name_its_words_and_escapes() -> None:
    assert name_pattern("agent-buzz") == "(?i)agent-buzz|agent buzz|agent|buzz"
    assert name_pattern("a.b") == "(?i)a\\.b"
    assert compile_pattern(name_pattern("a.b")).search(b"axb") is None


def test_stubs_print_one_valid_json_object_ready_to_merge(tmp_path: Path, cli: Cli) -> None:
    root = rebuild(tmp_path / "i", *SNAPSHOTS[0])
    (root / "skills/paper-pick/SKILL.md").write_text(
        "Write the result to `articles/paper-pick-${today}.md`."
    )
    code, out, _ = cli("audit", "--stubs", "--root", str(root))
    assert code == 0
    starters = json.loads(out)
    assert (
        len(starters) == 84  # the old script's 85 without skill-evals itself (issue 14)
        and "skill-evals" not in starters
        and starters["paper-pick"]["output_pattern"] == "articles/paper-pick-*.md"
    )
    assert starters["agent-buzz"]["section"] == "### agent-buzz"
    evals = json.loads((root / "skills/skill-evals/evals.json").read_text())
    evals["skills"].update(starters)
    manifest = parse_manifest(evals)
    assert not manifest.spec_errors and not [p for p in manifest.problems if p.severity == "error"]
    code, out, _ = cli("audit", "--json", "--root", str(root))
    (root / "skills/skill-evals/evals.json").write_text(json.dumps(evals))
    code, out, _ = cli("audit", "--json", "--root", str(root))
    assert json.loads(out)["summary"]["uncovered_enabled"] == 0


def test_starter_manifest_is_a_whole_evals_json(tmp_path: Path) -> None:
    found = audit.audit(tmp_path, set(), parse_registry("skills:\n  a: { enabled: true }\n"))
    starter = starter_manifest(found)
    assert starter["version"] == "1" and list(starter["skills"]) == ["a"] == list(stubs(found))


# --- the command, the wrapper script --------------------------------------------------------------


def _small(inst: Instance) -> Instance:
    inst.aeon_yml(
        {
            "a-skill": (True, "0 7 * * *"),
            "b-skill": (True, "0 7 * * 1"),
            "off-skill": (False, "0 7 * * *"),
        }
    )
    inst.write("skills/a-skill/SKILL.md", "Write to `articles/a-skill-${today}.md`.")
    inst.write("skills/b-skill/SKILL.md", "Append to memory/logs/${today}.md.")
    inst.write("skills/off-skill/SKILL.md", "")
    inst.write("skills/loose/SKILL.md", "")
    inst.evals(
        {
            "a-skill": {"output_pattern": "articles/a-skill-*.md"},
            "a-skil": {"output_pattern": "x/*.md"},
        }
    )
    return inst


def test_text_report_reads_at_a_glance(instance: Instance, cli: Cli) -> None:
    root = str(_small(instance).root)
    code, out, _ = cli("audit", "--root", root)
    assert code == 0
    assert out.splitlines()[:2] == [
        "Coverage: 1/2 enabled skills have a spec (50%)",
        "Skills: 5 · enabled 2 · with a spec 1 · disabled without a spec 1 · not in aeon.yml 2",
    ]
    assert "  ✗ b-skill                        memory/logs/*.md" in out
    assert "  ? a-skil                         did you mean a-skill?" in out
    assert "(--all also lists the 1 covered, 1 disabled and 2 unregistered skills)" in out
    code, out, _ = cli("audit", "--all", "--root", root)
    assert (
        "Uncovered disabled (1):\n  - off-skill" in out
        and "Not in aeon.yml (2):\n  ? loose\n  ? skill-evals" in out
    )
    assert "Covered (1):\n  ✓ a-skill" in out


def test_json_report(instance: Instance, cli: Cli) -> None:
    code, out, _ = cli("audit", "--json", "--root", str(_small(instance).root))
    data = json.loads(out)
    assert (
        code == 0
        and data["summary"]["coverage_pct"] == 50
        and data["summary"]["enabled_total"] == 2
    )
    assert data["uncovered_enabled"] == [
        {"skill": "b-skill", "inferred_pattern": "memory/logs/*.md"}
    ]
    assert data["orphans"] == [{"skill": "a-skil", "closest": "a-skill"}]


def _wrapper(cwd: Path, *args: str, path: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ}
    if path is not None:
        env["PATH"] = path
    bash = shutil.which("bash") or "/bin/bash"
    return subprocess.run(
        [bash, str(REPO / "scripts/eval-audit"), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=120,
    )


def test_the_wrapper_script_keeps_the_old_flags(instance: Instance, cli: Cli) -> None:
    root = _small(instance).root
    assert os.access(REPO / "scripts/eval-audit", os.X_OK)
    for flags in (["--json"], ["--all"], ["--stubs"], []):
        proc = _wrapper(root, *flags)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout == cli("audit", "--root", str(root), *flags)[1]
    proc = _wrapper(root, "--bogus")
    assert proc.returncode == 1 and "Unknown arg: --bogus" in proc.stderr


def test_the_wrapper_falls_back_to_python_dash_m(instance: Instance, tmp_path: Path) -> None:
    root = _small(instance).root
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    # a script, not a symlink: a symlink to a venv's python finds no pyvenv.cfg beside it and
    # starts outside the venv (without aeon_evals) on machines where the venv python is a link
    shim = bin_dir / "python3"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    shim.chmod(0o755)
    proc = _wrapper(root, "--json", path=str(bin_dir))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["summary"]["coverage_pct"] == 50


# --- the run: bootstrap and the article's coverage parts ------------------------------------------


def _seeded(inst: Instance) -> Instance:
    """`_small` registering the LLM-run skill-evals (disabled): the layout whose bootstrap writes
    starter specs (today's Aeon, registering none, is evaluated on its SKILL.md contracts)."""
    inst.aeon_yml(
        {
            "a-skill": (True, "0 7 * * *"),
            "b-skill": (True, "0 7 * * 1"),
            "off-skill": (False, "0 7 * * *"),
            "skill-evals": (False, "0 6 * * 0"),
        }
    )
    return inst


def test_bootstrap_writes_a_starter_spec_notifies_and_exits_3(instance: Instance, cli: Cli) -> None:
    inst = _seeded(_small(instance))
    (inst.root / "skills/skill-evals/evals.json").unlink()
    inst.notifier()
    code, out, _ = cli("run", "--root", str(inst.root), "--now", NOW, "--no-site")
    assert code == 3
    starter = json.loads((inst.root / "skills/skill-evals/evals.json").read_text())
    assert list(starter["skills"]) == ["a-skill", "b-skill"]
    assert starter["skills"]["a-skill"]["output_pattern"] == "articles/a-skill-*.md"
    assert starter["skills"]["b-skill"]["section"] == "### b-skill"
    assert (
        "wrote skills/skill-evals/evals.json with 2 starter specs: review it and commit it" in out
    )
    assert "verdict: SKILL_EVALS_BOOTSTRAP" in out
    (body,) = inst.notifications()
    assert body == [
        "*Skill Evals — SKILL_EVALS_BOOTSTRAP*\nwrote skills/skill-evals/evals.json with 2 starter "
        "specs: review it and commit it"
    ]
    assert not (inst.root / "articles/skill-evals-2026-05-31.md").exists()
    # the starter is a usable evals.json: the next run evaluates it
    code, out, err = cli("run", "--root", str(inst.root), "--now", NOW, "--no-site", "--no-notify")
    assert code == 0, err
    assert (inst.root / "articles/skill-evals-2026-05-31.md").exists()


def test_bootstrap_never_overwrites_an_evals_json_without_skills(
    instance: Instance, cli: Cli
) -> None:
    inst = _seeded(_small(instance))
    inst.evals({})
    inst.notifier()
    before = (inst.root / "skills/skill-evals/evals.json").read_bytes()
    code, out, _ = cli("run", "--root", str(inst.root), "--now", NOW, "--no-site")
    assert code == 3 and (inst.root / "skills/skill-evals/evals.json").read_bytes() == before
    assert "exists but names no skill; it was left as it is" in out
    assert len(inst.notifications()) == 1


def test_the_article_coverage_parts_come_from_the_audit(instance: Instance, cli: Cli) -> None:
    inst = instance
    names = [f"skill-{n:02d}" for n in range(12)]
    inst.aeon_yml({"covered": (True, "0 7 * * *"), **{n: (True, "0 7 * * *") for n in names}})
    for n in names:
        inst.write(f"skills/{n}/SKILL.md", f"Write to `articles/{n}-${{today}}.md`.")
    inst.evals(
        {
            "covered": {"output_pattern": "articles/covered-*.md"},
            "hn-digest": {"output_pattern": "articles/hn-*.md"},
        }
    )
    inst.write("skills/hacker-news-digest/SKILL.md", "")
    inst.write("articles/covered-2026-05-30.md", "fine\n")
    code, _, err = cli("run", "--root", str(inst.root), "--now", NOW, "--no-site", "--no-notify")
    assert code == 0, err
    article = (inst.root / "articles/skill-evals-2026-05-31.md").read_text()
    # the 12 other enabled skills are evaluated on their SKILL.md contracts (report mode)
    assert "**Coverage:** 1/13 (7.7%) by evals.json, +12 inferred (first run)" in article
    gaps = (
        article.split("## Coverage Gaps (enabled in aeon.yml, missing from evals.json)\n")[1]
        .split("\n\n")[0]
        .splitlines()
    )
    assert gaps[:10] == [
        f"- {n} — inferred pattern: `articles/{n}-*.md`" for n in names[:10]
    ] and gaps[10:] == ["+2 more"]
    assert "Add evals.json entry for skill-00 — pattern: articles/skill-00-*.md" in article
    assert (
        "Patch evals.json:hn-digest — no skills/hn-digest/ folder or aeon.yml entry; did you mean "
        "hacker-news-digest?" in article
    )


def test_a_failing_audit_never_stops_the_run(
    instance: Instance, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    def boom(text: str, skill: str) -> str:
        raise RuntimeError("boom")

    monkeypatch.setattr(audit, "infer_from_text", boom)
    monkeypatch.setattr(audit, "contract_of", lambda root, skill: boom("", skill))  # both paths
    inst = _small(instance)
    inst.write("articles/a-skill-2026-05-30.md", "fine\n")
    # with contracts off the audit infers the patterns itself (else the run hands it its contracts)
    code, _, err = cli(
        "run",
        "--root",
        str(inst.root),
        "--now",
        NOW,
        "--no-site",
        "--no-notify",
        "--contracts",
        "off",
    )
    assert code == 0, err
    article = (inst.root / "articles/skill-evals-2026-05-31.md").read_text()
    assert (
        "eval-audit=ok" in article
        and "Add evals.json entry for b-skill — pattern: (none inferred)" in article
    )


def test_audit_never_lists_skill_evals_itself_as_a_gap(tmp_path: Path, cli: Cli) -> None:
    """Issue 14: the LLM-run skill-evals that aeon-evals replaces is no skill to write a spec for,
    in the audit, its stubs or the run's Coverage Gaps; its line in aeon.yml still counts."""
    src = realdata() / "instances" / "aeonfun__aeon@2026-05-03"
    root = tmp_path / "i"
    shutil.copytree(src, root)
    assert "skill-evals: { enabled: true" in (root / "aeon.yml").read_text()
    code, out, _ = cli("audit", "--json", "--root", str(root))
    data = json.loads(out)
    assert code == 0 and "skill-evals" not in [g["skill"] for g in data["uncovered_enabled"]]
    assert data["summary"]["enabled_total"] == 97
    code, out, _ = cli("audit", "--stubs", "--root", str(root))
    assert "skill-evals" not in json.loads(out)
    code, out, _ = cli("audit", "--root", str(root))
    assert "✗ skill-evals " not in out


def test_audit_96_and_contracts_97_skills_disagreed_silently(tmp_path: Path, cli: Cli) -> None:
    """On aeonfun `audit` counted 96 skills with a contract and `contracts` showed 97 enabled:
    skill-evals (the LLM-run skill aeon-evals replaces) was left out of the one without a word.
    Both now say it is not counted, and why; every other enabled skill is counted by both."""
    root = tmp_path / "i"
    shutil.copytree(realdata() / "instances" / "aeonfun__aeon@2026-05-03", root)
    code, out, _ = cli("audit", "--root", str(root))
    assert code == 0
    lines = out.splitlines()
    assert lines[2].startswith("Contracts: 96 enabled skills have an output contract")
    assert lines[3] == (
        "Not counted: skill-evals (Aeon's LLM-run skill that aeon-evals replaces: never "
        "evaluated, never a gap)"
    )
    code, out, _ = cli("audit", "--json", "--root", str(root))
    audited = json.loads(out)
    assert [n["skill"] for n in audited["not_counted"]] == ["skill-evals"]
    code, out, _ = cli("contracts", "--json", "--root", str(root))
    shown = json.loads(out)["skills"]
    enabled = {s for s, entry in shown.items() if entry["enabled"]}
    counted = {s for s in enabled if not shown[s]["not_counted"]}
    assert len(enabled) == 97 and enabled - counted == {"skill-evals"}
    assert counted == set(audited["contracts"])  # the same 96 skills
    code, out, _ = cli("contracts", "skill-evals", "--root", str(root))
    assert out.splitlines()[0] == (
        "skill-evals  (enabled · not counted: Aeon's LLM-run skill that aeon-evals replaces: "
        "never evaluated, never a gap)"
    )


def test_audit_of_a_folder_that_is_no_instance_said_0_of_0_and_exit_0(
    tmp_path: Path, cli: Cli
) -> None:
    """`audit --root` on a wrong folder printed "Coverage: 0/0 enabled skills" and exited 0, as
    if the fleet were empty; `run` stops there with exit 2. So does `audit` now, writing nothing."""
    (tmp_path / "notes.txt").write_text("not an Aeon repository\n")
    code, out, err = cli("audit", "--root", str(tmp_path))
    assert (code, out) == (2, "")
    assert err == (
        "aeon-evals: aeon.yml: not found (looked for aeon.yml, then a *.yml or *.yaml with a "
        f"top-level skills: block, in {tmp_path}): not an Aeon instance (check --root, or pass "
        "--config FILE)\n"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]

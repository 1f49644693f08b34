"""A skill is judged only on its own outputs (issue 35.6): a glob that also matches another
skill's declared, more specific output pattern leaves those files out, for evals.json specs and
for inferred SKILL.md contracts; `validate` and `lint` warn about the overlap."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from aeon_evals.checks.owners import Claim, Claims, overlaps, path_matcher

Cli = Callable[..., tuple[int, str, str]]
FIRST = "2026-12-01T07:00:00Z"
NEXT = "2026-12-09T23:00:00Z"
PULSE = " ".join(["star fork"] * 60) + " 1,234 stars\n"


def _demo(tmp_path: Path, cli: Cli) -> Path:
    root = tmp_path / "demo"
    code, _out, err = cli("demo", str(root), "--now", FIRST)
    assert code == 0, err
    return root


def _add_skill(root: Path, skill: str, writes: str, schedule: str = "0 9 * * 1") -> None:
    """An enabled skill whose SKILL.md says it writes `writes`."""
    config = root / "aeon.yml"
    text = config.read_text(encoding="utf-8").replace(
        "skills:\n", f'skills:\n  {skill}: {{ enabled: true, schedule: "{schedule}" }}\n', 1
    )
    config.write_text(text, encoding="utf-8")
    folder = root / "skills" / skill
    folder.mkdir()
    (folder / "SKILL.md").write_text(
        f"---\nname: {skill}\ndescription: {skill} of the demo\n---\n"
        f"Write the result to `{writes}`.\n",
        encoding="utf-8",
    )


def _spec(root: Path, skill: str, spec: dict[str, object]) -> None:
    path = root / "skills/skill-evals/evals.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["skills"][skill] = spec
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")


def _rows(cli: Cli, root: Path, *args: str) -> tuple[dict[str, dict[str, object]], dict]:
    code, out, err = cli("run", "--root", str(root), "--now", NEXT, "--no-notify", "--json", *args)
    assert code == 0, err
    data = json.loads(out)
    return {s["skill"]: s for s in data["skills"]}, data


def test_a_spec_glob_over_another_skills_evals_json_outputs_is_not_judged_on_them(
    tmp_path: Path, cli: Cli
) -> None:
    """Regression: adding `repo-pulse-weekly` (writes articles/repo-pulse-weekly-<day>.md) made
    `repo-pulse` (articles/repo-pulse-*.md, no output of its own) PASS/FIXED on the weekly
    skill's file and close its issue; `validate` said nothing."""
    root = _demo(tmp_path, cli)
    _add_skill(root, "repo-pulse-weekly", "articles/repo-pulse-weekly-${today}.md")
    _spec(root, "repo-pulse-weekly", {"output_pattern": "articles/repo-pulse-weekly-*.md"})
    (root / "articles/repo-pulse-weekly-2026-12-08.md").write_text(PULSE, encoding="utf-8")
    rows, data = _rows(cli, root)
    pulse = rows["repo-pulse"]
    assert pulse["status"] == "NO_OUTPUT", pulse
    assert pulse["output"] is None
    assert pulse["root_causes"][0]["detail"] == (
        "no file matches articles/repo-pulse-*.md (1 file it matches is repo-pulse-weekly's "
        "(articles/repo-pulse-weekly-*.md), not its own)"
    )
    assert rows["repo-pulse-weekly"]["output"]["path"] == "articles/repo-pulse-weekly-2026-12-08.md"
    assert "repo-pulse" not in {i["skill"] for i in data["issues"]["closed"]}
    code, out, _err = cli("validate", "--root", str(root))
    assert code == 0
    found = [line for line in out.splitlines() if "also matches" in line]
    assert len(found) == 1 and found[0].endswith(
        "warning: skills.repo-pulse.output_pattern: 'articles/repo-pulse-*.md' also matches the "
        "outputs of repo-pulse-weekly ('articles/repo-pulse-weekly-*.md'); a run leaves those "
        "files out of repo-pulse's checks"
    ), out


def test_an_own_output_beside_another_skills_is_judged_with_a_note(
    tmp_path: Path, cli: Cli
) -> None:
    """With files of its own too, the skill is judged on its newest own file, never on the
    other skill's newer one, and the row says what it left out."""
    root = _demo(tmp_path, cli)
    _add_skill(root, "repo-pulse-weekly", "articles/repo-pulse-weekly-${today}.md")
    _spec(root, "repo-pulse-weekly", {"output_pattern": "articles/repo-pulse-weekly-*.md"})
    (root / "articles/repo-pulse-2026-12-07.md").write_text(PULSE, encoding="utf-8")
    (root / "articles/repo-pulse-weekly-2026-12-08.md").write_text("short\n", encoding="utf-8")
    rows, _data = _rows(cli, root)
    pulse = rows["repo-pulse"]
    assert pulse["output"]["path"] == "articles/repo-pulse-2026-12-07.md"
    assert (
        "1 file it matches is repo-pulse-weekly's (articles/repo-pulse-weekly-*.md), not its own"
        in pulse["notes"]
    )


def test_an_inferred_contract_over_another_skills_outputs_is_not_judged_on_them(
    tmp_path: Path, cli: Cli
) -> None:
    """Regression: the same with SKILL.md contracts: `paper-pick` (articles/paper-pick-*.md)
    was judged on `paper-pick-digest`'s file; `lint` said nothing."""
    root = _demo(tmp_path, cli)
    _add_skill(root, "paper-pick-digest", "articles/paper-pick-digest-${today}.md", "0 9 * * *")
    (root / "articles/paper-pick-digest-2026-12-09.md").write_text(
        "# digest\n\n" + "paper " * 100 + "\n", encoding="utf-8"
    )
    rows, _data = _rows(cli, root)
    pick = rows["paper-pick"]
    assert pick["spec_source"].startswith("SKILL.md")
    assert pick["status"] == "NO_OUTPUT", pick
    assert (
        "paper-pick-digest's (articles/paper-pick-digest-*.md)" in pick["root_causes"][0]["detail"]
    )
    assert rows["paper-pick-digest"]["status"] == "PASS"
    _code, out, err = cli("lint", "--root", str(root))
    found = [line for line in out.splitlines() if "also matches" in line]
    assert found == [
        "skills/paper-pick/SKILL.md:5: AE205 warning: paper-pick writes articles/paper-pick-*.md, "
        "which "
        "also matches the outputs of paper-pick-digest (articles/paper-pick-digest-*.md): a run "
        "leaves those files out of paper-pick's checks"
    ], out + err


def test_lint_warns_of_a_spec_glob_over_a_skill_md_only_skills_outputs(
    tmp_path: Path, cli: Cli
) -> None:
    """The issue's case as written: repo-pulse-weekly has no evals.json spec, only its SKILL.md;
    the run leaves its file out of repo-pulse's checks and `lint` says so at the spec."""
    root = _demo(tmp_path, cli)
    _add_skill(root, "repo-pulse-weekly", "articles/repo-pulse-weekly-${today}.md")
    (root / "articles/repo-pulse-weekly-2026-12-08.md").write_text(PULSE, encoding="utf-8")
    rows, _data = _rows(cli, root)
    assert rows["repo-pulse"]["status"] == "NO_OUTPUT"
    _code, out, _err = cli("lint", "--root", str(root))
    found = [line for line in out.splitlines() if "also matches" in line]
    assert len(found) == 1 and found[0].startswith("skills/skill-evals/evals.json:"), out
    assert (
        "repo-pulse writes articles/repo-pulse-*.md, which also matches the outputs of "
        in (found[0])
    )


@pytest.mark.parametrize(
    ("mine", "theirs", "rival"),
    [
        ("articles/repo-pulse-*.md", "articles/repo-pulse-weekly-*.md", True),
        ("articles/repo-pulse-weekly-*.md", "articles/repo-pulse-*.md", False),  # less specific
        ("memory/logs/*.md", "memory/logs/*.md", False),  # a shared log: the same pattern
        ("articles/cost-*.md", "articles/paper-*.md", False),  # no file matches both
        ("articles/*.md", "articles/x/y-*.md", False),  # another folder
        ("articles/**/*.md", "articles/x/y-*.md", True),
        ("articles/*-digest.md", "articles/hn-*-digest.md", True),  # a shorter prefix
        ("reports/*/x-*.md", "reports/a/x-1-*.md", True),  # a wildcard folder
        ("articles/a-*.md", "articles/a-[0-9]*.md", True),
    ],
)
def test_rivals_are_the_other_skills_more_specific_patterns(
    mine: str, theirs: str, rival: bool
) -> None:
    claims = Claims({"me": (mine,), "other": (theirs,)})
    assert claims.rivals("me", mine) == ((Claim("other", theirs),) if rival else ())


def test_a_skills_own_patterns_are_never_its_rivals_and_files_keep_their_order() -> None:
    claims = Claims({"me": ("articles/me-*.md", "articles/me-weekly-*.md"), "x": ("a/*.md",)})
    assert claims.rivals("me", "articles/me-*.md") == ()
    claims = Claims({"me": ("articles/me-*.md",), "w": ("articles/me-weekly-*.md",)})
    files = ("articles/me-2.md", "articles/me-weekly-1.md", "articles/me-1.md")
    kept, taken = claims.own("me", "articles/me-*.md", files)
    assert kept == ("articles/me-2.md", "articles/me-1.md")
    assert taken == ((Claim("w", "articles/me-weekly-*.md"), 1),)
    assert overlaps(claims) == [
        (Claim("me", "articles/me-*.md"), Claim("w", "articles/me-weekly-*.md"))
    ]


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [
        ("articles/*.md", "articles/a.md", True),
        ("articles/*.md", "articles/x/a.md", False),  # `*` stays in one part
        ("articles/**/*.md", "articles/x/y/a.md", True),
        ("articles/**/*.md", "articles/a.md", True),
        ("a/?.md", "a/b.md", True),
        ("a/[bc].md", "a/d.md", False),
        ("A/*.md", "a/x.md", False),  # case-sensitive, as the outputs' search is
    ],
)
def test_path_matcher_reads_a_glob_as_the_outputs_search_does(
    pattern: str, path: str, matches: bool
) -> None:
    assert path_matcher(pattern)(path) is matches

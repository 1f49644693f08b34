"""Issue 33 point 7: lint that fits its ecosystem. Every rule has a stable code printed with each
finding and documented; rules are selected or ignored per instance (evals.json's `lint`, or
aeon.yml's `aeon-evals: lint:`) and on the command line, as ruff does; the defaults raise
nothing on upstream Aeon's own conventions."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import Instance
from realdata import MIROSHARK, whole_instance
from test_lint import good_catalog, skill_md, twins

from aeon_evals.cache.folder import Cache
from aeon_evals.catalog.codes import CODES, DEFAULT_RULES, Rule
from aeon_evals.catalog.select import Selection, expand
from aeon_evals.catalog.summary import catalog_summary

Cli = Callable[..., tuple[int, str, str]]
DOCS = Path(__file__).resolve().parents[1] / "docs" / "catalog.md"
EVALS = "skills/skill-evals/evals.json"

# Codes are a public contract: instances select and ignore by them. Never renumber one.
PINNED = {
    "unreadable": "AE101",
    "frontmatter-missing": "AE102",
    "frontmatter-invalid": "AE103",
    "name-missing": "AE104",
    "name-format": "AE105",
    "name-folder": "AE106",
    "flat-title": "AE107",
    "description-missing": "AE108",
    "description-format": "AE109",
    "description-length": "AE110",
    "description-angle-brackets": "AE111",
    "unknown-key": "AE112",
    "line-budget": "AE113",
    "no-output": "AE201",
    "no-skill-md": "AE202",
    "no-folder": "AE203",
    "not-in-config": "AE204",
    "output-overlap": "AE205",
    "collision": "AE301",
    "trigger-invalid": "AE302",
    "trigger-failed": "AE303",
}


def test_every_rule_has_its_pinned_code_and_a_row_in_the_docs() -> None:
    assert {rule.value: code for rule, code in CODES.items()} == PINNED
    assert len(set(CODES.values())) == len(CODES)
    rows = re.findall(
        r"^\| (AE\d{3}) \| `([a-z-]+)` \| [^|]+ \| ([^|]+) \|", DOCS.read_text(), re.M
    )
    assert [(code, rule) for code, rule, _ in rows] == sorted(
        (code, rule) for rule, code in PINNED.items()
    )
    for code, rule, severity in rows:
        off = Rule(rule) not in DEFAULT_RULES
        assert ("off" in severity) == off, (code, severity)


def test_each_finding_carries_its_code_in_text_json_and_junit(
    instance: Instance, cli: Cli, tmp_path: Path
) -> None:
    root = twins(instance).root
    code, out, _ = cli("lint", "--root", str(root), "--junit", str(tmp_path / "lint.xml"))
    assert code == 1
    for line in out.splitlines()[:-1]:
        assert re.match(r"^skills/[^:]+:\d+: AE\d{3} (error|warning|info): ", line), line
    _, out, _ = cli("lint", "--root", str(root), "--json")
    data = json.loads(out)
    assert {(f["code"], f["rule"]) for f in data["findings"]} == {
        ("AE301", "collision"),
        ("AE204", "not-in-config"),
    }
    assert data["forms"] == {"agent-skills": 5} and data["form_of"]["paper-pick"] == "agent-skills"
    assert "AE107" not in data["rules"] and "AE301" in data["rules"]
    assert 'type="AE301"' in (tmp_path / "lint.xml").read_text()


# --- upstream Aeon's own conventions ------------------------------------------------------------


def test_a_flat_title_is_off_by_default_and_a_flat_slug_of_another_skill_is_not(
    instance: Instance, cli: Cli
) -> None:
    good_catalog(instance)
    instance.write(
        "skills/paper-pick/SKILL.md",
        "---\nname: Paper Pick\ndescription: Pick the paper worth reading today.\n---\n"
        "Save to `articles/paper-pick-${today}.md`.\n",
    )
    instance.write(
        "skills/rss-feed/SKILL.md",
        "---\nname: feed-builder\ndescription: Build an RSS feed of the week.\n---\n"
        "Save to `articles/rss-feed-${today}.md`.\n",
    )
    code, out, _ = cli("lint", "--root", str(instance.root))
    assert code == 0
    assert out.splitlines() == [
        "skills/rss-feed/SKILL.md:2: AE106 warning: name 'feed-builder' is not the folder name "
        "'rss-feed' (flat frontmatter; the Agent Skills form requires it)",
        "lint: 3 SKILL.md (2 flat form, 1 Agent Skills form): 0 errors, 1 warning, 0 infos; "
        "0 collisions",
    ]
    code, out, _ = cli("lint", "--root", str(instance.root), "--extend-select", "AE107")
    assert (
        "skills/paper-pick/SKILL.md:2: AE107 warning: name 'Paper Pick' is a title, not a slug: "
        "the Agent Skills form requires `name: paper-pick` (flat frontmatter, upstream Aeon's "
        "form before August 2026)"
    ) in out.splitlines()


def test_a_top_level_scorable_is_upstreams_not_an_unknown_key(instance: Instance, cli: Cli) -> None:
    good_catalog(instance)
    instance.write(
        "skills/rss-feed/SKILL.md",
        skill_md("rss-feed", "Build an RSS feed.", extra="scorable: false\nschedule: daily\n"),
    )
    code, out, _ = cli("lint", "--root", str(instance.root), "rss-feed")
    assert code == 0
    assert out.splitlines()[0] == (
        "skills/rss-feed/SKILL.md:5: AE112 warning: unknown top-level key 'schedule': the Agent "
        "Skills form keeps it under metadata:"
    )
    assert "scorable" not in out


# --- selecting rules ------------------------------------------------------------------------------


def _codes(out: str) -> list[str]:
    return sorted({line.split(" ")[1] for line in out.splitlines()[:-1]})


def test_the_command_line_selects_extends_and_ignores(instance: Instance, cli: Cli) -> None:
    root = twins(instance).root
    assert _codes(cli("lint", "--root", str(root))[1]) == ["AE204", "AE301"]
    code, out, _ = cli("lint", "--root", str(root), "--ignore", "AE301")
    assert (code, _codes(out)) == (0, ["AE204"])  # the error was a collision: ignored, exit 0
    assert out.splitlines()[-1].endswith("; 0 collisions")
    assert _codes(cli("lint", "--root", str(root), "--select", "AE2")[1]) == ["AE204"]
    assert (
        _codes(cli("lint", "--root", str(root), "--select", "AE2,AE3", "--ignore", "AE2,AE3")[1])
        == []
    )
    # the most specific selector decides: AE204 stays though AE2 is ignored
    out = cli("lint", "--root", str(root), "--ignore", "AE2", "--extend-select", "AE204")[1]
    assert _codes(out) == ["AE204", "AE301"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--select", "AE999"], "--select AE999: no such rule code"),
        (["--ignore", "AE1,E501"], "--ignore E501: no such rule code"),
        (["--extend-select", "AE4"], "--extend-select AE4: no such rule code"),
    ],
)
def test_an_unknown_code_on_the_command_line_is_an_error_naming_it(
    argv: list[str], message: str, instance: Instance, cli: Cli
) -> None:
    root = good_catalog(instance).root
    code, out, err = cli("lint", "--root", str(root), *argv)
    assert (code, out) == (2, "")
    assert err == (
        f"aeon-evals: {message} (the codes are AE101–AE113, AE201–AE205, AE301–AE303; see "
        "docs/catalog.md)\n"
    )


def test_evals_json_holds_the_instances_settings(instance: Instance, cli: Cli) -> None:
    root = twins(instance).root
    instance.evals(
        {"paper-pick": {"output_pattern": "articles/paper-pick-*.md"}},
        lint={"ignore": ["AE204"], "extend_select": ["AE107"]},
    )
    code, out, err = cli("lint", "--root", str(root))
    assert (code, err, _codes(out)) == (1, "", ["AE301"])
    # the command line adds to the instance's ignores; its --select replaces the instance's
    assert _codes(cli("lint", "--root", str(root), "--ignore", "AE301")[1]) == []
    assert _codes(cli("lint", "--root", str(root), "--select", "AE2")[1]) == []  # AE204 ignored
    # `lint` is a known top-level key: no "unknown key" from validate or run
    code, out, _ = cli("validate", "--root", str(root))
    assert "lint" not in out


def test_an_unknown_code_in_the_settings_is_an_error_at_its_line(
    instance: Instance, cli: Cli
) -> None:
    root = good_catalog(instance).root
    instance.evals(
        {"paper-pick": {"output_pattern": "articles/paper-pick-*.md"}},
        lint={"ignore": ["AE201", "AE999"], "selekt": ["AE1"]},
    )
    line = 1 + (root / EVALS).read_text().splitlines().index('      "AE999"')
    code, out, err = cli("lint", "--root", str(root))
    assert (code, out) == (2, "")
    assert err == (
        f"aeon-evals: {EVALS}:{line}: lint.ignore[1]: AE999: no such rule code (the codes are "
        "AE101–AE113, AE201–AE205, AE301–AE303; see docs/catalog.md)\n"
    )
    code, out, _ = cli("validate", "--root", str(root))
    assert code == 2
    assert f"{EVALS}:{line}: error: lint.ignore[1]: AE999: no such rule code" in out
    assert (
        f"{EVALS}:{line + 2}: warning: lint.selekt: unknown key (ignored; the keys are select, "
        "extend_select, ignore)"
    ) in out.splitlines()


def test_aeon_yml_holds_them_in_an_instance_without_evals_json(tmp_path: Path, cli: Cli) -> None:
    """Upstream Aeon has no evals.json since July 2026: the settings live in an `aeon-evals:`
    block of its aeon.yml, as a Python project keeps `[tool.ruff]` in pyproject.toml."""
    root = whole_instance(MIROSHARK, tmp_path / "miroshark")
    default = cli("lint", "--root", str(root))[1]
    assert "AE113" in _codes(default) and "AE201" in _codes(default)
    with (root / "aeon.yml").open("a") as fh:
        fh.write("\naeon-evals:\n  lint:\n    ignore: [AE113, AE201]\n")
    code, out, err = cli("lint", "--root", str(root))
    assert (code, err) == (0, "")
    assert _codes(out) == ["AE112", "AE204", "AE301"]
    assert out.splitlines()[-1] == (
        "lint: 77 SKILL.md (77 Agent Skills form): 0 errors, 2 warnings, 6 infos; 1 collision"
    )
    code, out, _ = cli("validate", "--root", str(root))
    assert code == 0 and "aeon-evals.lint" not in out  # a known block: nothing to say
    with (root / "aeon.yml").open("a") as fh:
        fh.write("    select: [AE7]\n")
    code, _, err = cli("lint", "--root", str(root))
    line = len((root / "aeon.yml").read_text().splitlines())
    assert code == 2
    assert err.startswith(f"aeon-evals: aeon.yml:{line}: aeon-evals.lint.select[0]: AE7: no such")


def test_settings_in_both_places_are_an_error_naming_both(tmp_path: Path, cli: Cli) -> None:
    root = whole_instance(MIROSHARK, tmp_path / "miroshark")
    with (root / "aeon.yml").open("a") as fh:
        fh.write("\naeon-evals:\n  lint:\n    ignore: [AE113]\n")
    (root / EVALS).parent.mkdir(parents=True)
    (root / EVALS).write_text(json.dumps({"lint": {"ignore": ["AE201"]}, "skills": {}}))
    code, _, err = cli("lint", "--root", str(root))
    assert code == 2
    assert err == (
        f"aeon-evals: {EVALS}: lint: lint settings in both {EVALS} (lint) and aeon.yml "
        "(aeon-evals.lint): keep one\n"
    )


def test_the_nightly_catalog_summary_follows_the_instances_settings(
    instance: Instance,
) -> None:
    root = twins(instance).root
    before = catalog_summary(root, Cache(root))
    assert before is not None and (before.errors, before.collisions) == (1, 2)
    instance.evals(
        {"paper-pick": {"output_pattern": "articles/paper-pick-*.md"}}, lint={"ignore": ["AE3"]}
    )
    after = catalog_summary(root, Cache(root))  # evals.json changed: the cached one is stale
    assert after is not None and (after.errors, after.collisions, after.warnings) == (0, 0, 0)


def test_selection_semantics() -> None:
    assert Selection().rules() == DEFAULT_RULES
    assert Rule.FLAT_TITLE not in Selection().rules()
    assert Selection(select=("ALL",)).rules() == frozenset(Rule)
    assert Selection(ignore=("ALL",)).rules() == frozenset()
    assert Selection(select=("AE1",), ignore=("AE1",)).rules() == frozenset()  # tie: ignore
    assert Selection(ignore=("AE1",), extend_select=("AE107",)).rules() >= {Rule.FLAT_TITLE}
    assert Rule.UNKNOWN_KEY not in Selection(ignore=("AE1",), extend_select=("AE107",)).rules()
    later = Selection(ignore=("AE201",)).then(Selection(select=("AE2",)))
    assert later.rules() == {
        Rule.NO_SKILL_MD,
        Rule.NO_FOLDER,
        Rule.NOT_IN_CONFIG,
        Rule.OUTPUT_OVERLAP,
    }
    assert expand("ae10") == {Rule(r) for r, c in PINNED.items() if c.startswith("AE10")}
    assert expand("E501") == frozenset() and expand("AE") == frozenset(Rule)

"""`aeon-evals lint` as a user meets it: temporary instances, every rule located file:line."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import Instance
from golden import assert_golden

Cli = Callable[..., tuple[int, str, str]]

SCHEMA = Path(__file__).parent / "fixtures" / "junit" / "junit.xsd"


def skill_md(name: str, description: str, *, body: str | None = None, extra: str = "") -> str:
    """An Agent Skills SKILL.md whose body states an output a contract can be inferred from."""
    body = body if body is not None else f"Save to `articles/{name}-${{today}}.md`:\n"
    return (
        f"---\nname: {name}\ndescription: {description}\n{extra}metadata:\n  category: "
        "basics\n---\n"
        f"{body}"
    )


def good_catalog(instance: Instance) -> Instance:
    instance.aeon_yml(
        {
            "paper-pick": (True, "0 8 * * *"),
            "rss-feed": (True, "0 9 * * *"),
            "token-alert": (False, "0 * * * *"),
        }
    )
    instance.write(
        "skills/paper-pick/SKILL.md",
        skill_md(
            "paper-pick",
            "Pick the one research paper worth reading today from Hugging Face Papers.",
        ),
    )
    instance.write(
        "skills/rss-feed/SKILL.md",
        skill_md("rss-feed", "Build an RSS feed of the week's articles for subscribers."),
    )
    instance.write(
        "skills/token-alert/SKILL.md",
        skill_md("token-alert", "Alert when a watched token's price or volume moves sharply."),
    )
    return instance


def test_a_clean_catalog_exits_0(instance: Instance, cli: Cli) -> None:
    root = good_catalog(instance).root
    code, out, err = cli("lint", "--root", str(root))
    assert (code, err) == (0, "")
    assert (
        out
        == "lint: 3 SKILL.md (3 Agent Skills form): 0 errors, 0 warnings, 0 infos; 0 collisions\n"
    )


def broken_catalog(instance: Instance) -> Instance:
    """One SKILL.md per structural rule, plus the config rules and the bad inputs of issue 19.

    Descriptions use words no other skill has, so that no pair collides."""
    good_catalog(instance)
    w = instance.write
    w("skills/no-frontmatter/SKILL.md", "# No frontmatter\n\nSave to `articles/x-${today}.md`.\n")
    w("skills/unclosed/SKILL.md", "---\nname: unclosed\ndescription: never closed\n")
    w("skills/bad-yaml/SKILL.md", "---\nname: bad-yaml\ndescription: [unclosed\n---\nbody\n")
    w("skills/list-frontmatter/SKILL.md", "---\n- name\n- description\n---\nbody\n")
    w("skills/nameless/SKILL.md", skill_md("x", "Counts seagulls.").replace("name: x\n", ""))
    w("skills/shouting/SKILL.md", skill_md("Shouting", "Waters the ferns."))
    w("skills/mismatch/SKILL.md", skill_md("elsewhere", "Polishes brass."))
    w("skills/verbose/SKILL.md", skill_md("a" * 5000, "Tunes violins."))
    w(
        "skills/bracketed/SKILL.md",
        skill_md("x", "Feeds goldfish.").replace("name: x", "name: [a, b]"),
    )
    w(
        "skills/mute/SKILL.md",
        "---\nname: mute\n---\nSave to `articles/n-${today}.md`.\n",
    )
    w("skills/blank/SKILL.md", skill_md("blank", '""'))
    w("skills/rambling/SKILL.md", skill_md("rambling", "lengthy " * 300))
    w("skills/markup/SKILL.md", skill_md("markup", "Reads <feed> items."))
    w("skills/enumerated/SKILL.md", skill_md("enumerated", "[one, two]"))
    w(
        "skills/unknown-key/SKILL.md",
        skill_md("unknown-key", "Sorts marbles.", extra="schedule: daily\n"),
    )
    w(
        "skills/flat-title/SKILL.md",
        "---\nname: Flat Title\ndescription: Folds origami cranes.\nvar: ''\n---\n"
        "Save to `articles/flat-title-${today}.md`.\n",
    )
    w(
        "skills/too-long/SKILL.md",
        skill_md(
            "too-long",
            "Knits scarves.",
            body="line\n" * 600 + "Save to `articles/t-${today}.md`.\n",
        ),
    )
    w("skills/no-output/SKILL.md", skill_md("no-output", "Bakes bread.", body="Read the logs.\n"))
    w("skills/binary/SKILL.md", b"\x00\x01\x02binary\x00")
    w("skills/huge/SKILL.md", b"---\nname: huge\n---\n" + b"x" * (1 << 20))
    (instance.root / "skills/empty-folder").mkdir(parents=True)
    registered = [p.parent.name for p in (instance.root / "skills").glob("*/SKILL.md")]
    instance.aeon_yml(
        {
            name: (True, "0 6 * * *")
            for name in sorted(registered)
            if name not in ("binary", "flat-title")
        }
        | {"gone-skill": (True, "0 7 * * *"), "off-skill": (False, "0 7 * * *")}
    )
    return instance


def test_every_structural_rule_names_the_file_and_line(instance: Instance, cli: Cli) -> None:
    root = broken_catalog(instance).root
    before = instance.snapshot()
    code, out, err = cli("lint", "--root", str(root))
    assert code == 1
    assert err == ""
    assert_golden("lint-broken.txt", out)
    assert instance.snapshot() == before  # lint writes nothing
    for line in out.splitlines()[:-1]:
        file, number, rest = line.split(":", 2)
        assert file.startswith(("skills/", "aeon.yml")) and int(number) >= 1
        code_, severity, _ = rest.split(" ", 3)[1:]
        assert re.fullmatch(r"AE[1-3]\d\d", code_) and severity in ("error:", "warning:", "info:")


def test_a_5000_character_name_is_one_short_finding(instance: Instance, cli: Cli) -> None:
    root = broken_catalog(instance).root
    code, out, _ = cli("lint", "--root", str(root), "verbose")
    assert code == 1
    [finding, summary] = out.splitlines()
    assert finding.startswith("skills/verbose/SKILL.md:2: AE105 error: name 'aaaa")
    assert "5000 characters (at most 64)" in finding and len(finding) < 200
    assert (
        summary
        == "lint: 1 SKILL.md (1 Agent Skills form): 1 error, 0 warnings, 0 infos; 0 collisions"
    )


def test_a_300_character_name_is_an_error_in_the_agent_skills_form_and_a_warning_flat(
    instance: Instance, cli: Cli
) -> None:
    """Acceptance check: Agent Skills names are at most 64 characters; the flat form's names
    are often titles, so there it is a warning."""
    long = "a" * 300
    good_catalog(instance)
    instance.write(
        "skills/paper-pick/SKILL.md",
        skill_md(long, "Pick the one research paper worth reading today from Hugging Face."),
    )
    instance.write(
        "skills/rss-feed/SKILL.md",
        f"---\nname: {long}\ndescription: Build an RSS feed of the week's articles.\n---\n"
        "Save to `articles/rss-feed-${today}.md`:\n",
    )
    code, out, _ = cli("lint", "--root", str(instance.root), "paper-pick", "rss-feed")
    assert code == 1
    agent, flat, summary = out.splitlines()
    assert agent.startswith("skills/paper-pick/SKILL.md:2: AE105 error: name 'aaaa")
    assert flat.startswith("skills/rss-feed/SKILL.md:2: AE105 warning: name 'aaaa")
    assert "300 characters (at most 64)" in agent and "300 characters (at most 64)" in flat
    assert summary == (
        "lint: 2 SKILL.md (1 flat form, 1 Agent Skills form): 1 error, 1 warning, 0 infos; "
        "0 collisions"
    )


def test_scope_by_name_folder_or_file(instance: Instance, cli: Cli) -> None:
    root = broken_catalog(instance).root
    code, out, _ = cli(
        "lint", "--root", str(root), "shouting", "skills/binary", "skills/huge/SKILL.md"
    )
    assert code == 1
    assert [line.split(":")[0] for line in out.splitlines()[:-1]] == [
        "skills/binary/SKILL.md",
        "skills/binary/SKILL.md",  # and not in aeon.yml (info)
        "skills/huge/SKILL.md",
        "skills/shouting/SKILL.md",
    ]
    assert out.splitlines()[-1].startswith(
        "lint: 3 SKILL.md (1 Agent Skills form, 2 unreadable): 3 errors"
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nope"], "aeon-evals: no skills/nope/ folder\n"),
        (
            ["a/b/c"],
            "aeon-evals: 'a/b/c' is not a skill name, skills/<name> or skills/<name>/SKILL.md\n",
        ),
        (
            ["--min-rank1", "120"],
            "aeon-evals: --min-rank1 must be a percentage from 0 to 100, got 120\n",
        ),
    ],
)
def test_unusable_input_exits_2(
    instance: Instance, cli: Cli, args: list[str], message: str
) -> None:
    root = good_catalog(instance).root
    code, out, err = cli("lint", "--root", str(root), *args)
    assert (code, out, err) == (2, "", message)


def test_a_root_without_skills_exits_2(tmp_path: Path, cli: Cli) -> None:
    (tmp_path / "aeon.yml").write_text("skills:\n  a: { enabled: true }\n")
    code, _, err = cli("lint", "--root", str(tmp_path))
    assert code == 2
    assert err == f"aeon-evals: {tmp_path}: no skills/ folder: not an Aeon instance\n"


def twins(instance: Instance) -> Instance:
    good_catalog(instance)
    instance.write(
        "skills/paper-picks/SKILL.md",
        skill_md(
            "paper-picks", "Pick the one research paper worth reading today from Hugging Face."
        ),
    )
    instance.write(
        "skills/paper-digest/SKILL.md",
        skill_md("paper-digest", "A digest of the papers worth reading, from Hugging Face Papers."),
    )
    return instance


def test_colliding_descriptions(instance: Instance, cli: Cli) -> None:
    root = twins(instance).root
    code, out, _ = cli("lint", "--root", str(root))
    assert code == 1
    collisions = [line for line in out.splitlines() if "collides" in line]
    assert collisions == [
        "skills/paper-digest/SKILL.md:3: AE301 warning: description collides with paper-pick "
        "(skills/paper-pick/SKILL.md): similarity 0.517; shared terms: paper 0.41, face 0.03, "
        "hugging 0.03, reading 0.03, worth 0.03",
        "skills/paper-pick/SKILL.md:3: AE301 error: description collides with paper-picks "
        "(skills/paper-picks/SKILL.md): similarity 0.991; shared terms: pick 0.39, paper 0.36, "
        "one 0.04, research 0.04, today 0.04",
    ]
    assert out.splitlines()[-1] == (
        "lint: 5 SKILL.md (5 Agent Skills form): 1 error, 1 warning, 2 infos; 2 collisions"
    )


def test_trigger_cases_from_evals_json_and_trigger_json(instance: Instance, cli: Cli) -> None:
    root = twins(instance).root
    evals = {
        "paper-pick": {
            "output_pattern": "articles/paper-pick-*.md",
            "trigger": {
                "positive": [{"prompt": "which research paper should I read today?", "top_k": 2}],
                "negative": [{"prompt": "weekly digest of arxiv papers", "owner": "paper-digest"}],
            },
        }
    }
    instance.evals(evals)
    instance.write(
        "skills/rss-feed/evals/trigger.json",
        json.dumps(
            {
                "positive": [
                    "build an rss feed of my articles",
                    {"prompt": "pick a paper for me"},
                ],
                "negative": [
                    {"prompt": "alert me when a token price moves", "owner": "token-alert"}
                ],
            },
            indent=2,
        ),
    )
    code, out, err = cli("lint", "--root", str(root))
    assert (code, err) == (1, "")
    assert_golden("lint-trigger.txt", out)
    _, validated, _ = cli("validate", "--root", str(root))
    assert "trigger" not in validated  # a known spec key: no "unknown key" warning


def test_min_rank1_floor(instance: Instance, cli: Cli) -> None:
    root = good_catalog(instance).root
    instance.write(
        "skills/rss-feed/evals/trigger.json",
        json.dumps(
            {"positive": ["rss feed of articles", {"prompt": "articles worth reading", "top_k": 2}]}
        ),
    )
    code, out, err = cli("lint", "--root", str(root), "--min-rank1", "50")
    assert code == 0  # 1 of 2 positive cases ranks first: 50 % meets the floor
    assert out.splitlines()[-1].endswith("rank-1 1/2 (50.0%)")
    code, out, err = cli("lint", "--root", str(root), "--min-rank1", "60")
    assert code == 1
    assert err == "lint: rank-1 rate 50.0% is below --min-rank1 60% → exit 1\n"


def test_invalid_trigger_values_are_errors_on_their_line(instance: Instance, cli: Cli) -> None:
    root = good_catalog(instance).root
    instance.write(
        "skills/rss-feed/evals/trigger.json",
        '{\n  "positive": [\n    {"prompt": "rss", "top_k": 0},\n    42\n  ],\n  "negative": [\n'
        '    {"prompt": "a token alert", "owner": "nobody"}\n  ],\n  "extra": 1\n}\n',
    )
    instance.write("skills/paper-pick/evals/trigger.json", "{not json")
    code, out, _ = cli("lint", "--root", str(root))
    assert code == 1
    assert out.splitlines()[:-1] == [
        "skills/paper-pick/evals/trigger.json:1: AE302 error: invalid JSON at line 1 column 2: "
        "Expecting property name enclosed in double quotes",
        "skills/rss-feed/evals/trigger.json:1: AE302 error: trigger.positive[1]: expected a "
        "prompt or "
        "an object, got '42'",
        "skills/rss-feed/evals/trigger.json:1: AE302 error: trigger: unknown key 'extra'",
        "skills/rss-feed/evals/trigger.json:3: AE302 error: trigger.positive[0].top_k: expected an "
        "integer ≥ 1, got '0'",
        "skills/rss-feed/evals/trigger.json:7: AE302 error: trigger case for rss-feed: nobody has "
        "no "
        "skills/nobody/SKILL.md a router can read",
    ]


def test_json_output(instance: Instance, cli: Cli) -> None:
    root = twins(instance).root
    instance.write("skills/rss-feed/evals/trigger.json", json.dumps({"positive": ["rss feed"]}))
    code, out, err = cli("lint", "--root", str(root), "--json")
    assert code == 1
    data = json.loads(out)
    assert (data["skills"], data["errors"], data["warnings"], data["infos"]) == (5, 1, 1, 2)
    assert data["collisions"][0]["a"] == "paper-pick"
    assert data["collisions"][0]["severity"] == "error"
    assert data["collisions"][0]["shared"][0] == {"term": "pick", "share": 0.387188}
    assert data["cases"] == [
        {
            "skill": "rss-feed",
            "kind": "positive",
            "prompt": "rss feed",
            "file": "skills/rss-feed/evals/trigger.json",
            "line": 1,
            "top_k": 1,
            "owner": None,
            "rank": 1,
            "score": data["cases"][0]["score"],
            "above": [],
            "passed": True,
            "why": data["cases"][0]["why"],
        }
    ]
    assert data["rank1_rate"] == 1.0
    assert err.splitlines()[-1].startswith(
        "lint: 5 SKILL.md (5 Agent Skills form): 1 error, 1 warning"
    )


def test_junit_report(instance: Instance, cli: Cli, tmp_path: Path) -> None:
    root = twins(instance).root
    instance.write(
        "skills/rss-feed/evals/trigger.json", json.dumps({"positive": ["rss feed", "a paper"]})
    )
    junit = tmp_path / "lint.xml"
    code, _, _ = cli("lint", "--root", str(root), "--junit", str(junit))
    assert code == 1
    text = junit.read_text()
    assert '<testsuite name="skill-catalog" tests="5" failures="1"' in text
    assert '<testsuite name="skill-routing" tests="2" failures="1"' in text
    try:
        import xmlschema
    except ImportError:  # pragma: no cover - a dev dependency
        return
    xmlschema.XMLSchema(str(SCHEMA)).validate(text)


def test_github_annotations_point_at_the_skill_md_lines(
    instance: Instance, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = twins(instance).root
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_WORKSPACE", str(root.parent))
    code, out, _ = cli("lint", "--root", str(root))
    assert code == 1
    annotations = [line for line in out.splitlines() if line.startswith("::")]
    assert annotations[0].startswith(
        "::error file=instance/skills/paper-pick/SKILL.md,line=3,title=lint AE301 collision::"
        "description collides with paper-picks"
    )
    assert annotations[1].startswith(
        "::warning file=instance/skills/paper-digest/SKILL.md,line=3,title=lint AE301 collision::"
    )


def test_2000_skills_and_bad_files_never_crash(instance: Instance, cli: Cli) -> None:
    words = [
        "alpha",
        "bravo",
        "charlie",
        "delta",
        "echo",
        "foxtrot",
        "golf",
        "hotel",
        "india",
        "juliet",
        "kilo",
        "lima",
    ]
    for i in range(2000):
        name = f"skill-{i:04d}"
        description = " ".join(words[(i * k) % len(words)] for k in (1, 3, 7)) + f" item{i}"
        instance.write(f"skills/{name}/SKILL.md", skill_md(name, description))
    instance.write("skills/skill-0007/SKILL.md", b"\xff\xfe not utf-8")
    instance.aeon_yml({f"skill-{i:04d}": (True, "0 6 * * *") for i in range(2000)})
    code, out, err = cli("lint", "--root", str(instance.root))
    assert err == ""
    summary = out.splitlines()[-1]
    assert summary.startswith("lint: 2000 SKILL.md (1999 Agent Skills form, 1 unreadable): ")
    assert "skills/skill-0007/SKILL.md:1: AE101 error: not UTF-8 text" in out
    assert code == 1


def test_lint_never_reads_a_trigger_file_outside_the_root(
    instance: Instance, cli: Cli, tmp_path: Path
) -> None:
    root = good_catalog(instance).root
    secret = tmp_path / "secret.json"
    secret.write_text(json.dumps({"positive": ["x"]}))
    (root / "skills/rss-feed/evals").mkdir()
    os.symlink(secret, root / "skills/rss-feed/evals/trigger.json")
    code, out, _ = cli("lint", "--root", str(root))
    assert code == 1
    assert out.splitlines()[0] == (
        "skills/rss-feed/evals/trigger.json:1: AE302 error: leads outside the instance root "
        "through a "
        "symlink; not read"
    )


def test_the_workflow_init_writes_lints_before_it_evaluates() -> None:
    from test_init import TEMPLATE, load_workflow

    wf = load_workflow(TEMPLATE.read_text(encoding="utf-8"))
    names = [s.get("name") for s in wf["jobs"]["evaluate"]["steps"]]
    assert names.index("Install aeon-evals") < names.index("Lint the skill catalog")
    assert names.index("Lint the skill catalog") < names.index("Evaluate")
    lint = wf["jobs"]["evaluate"]["steps"][names.index("Lint the skill catalog")]
    assert lint["continue-on-error"] is True  # a catalog error never blocks the nightly run
    assert 'aeon-evals lint --junit "$RUNNER_TEMP/skill-evals/lint.xml"' in lint["run"]


def test_a_skill_folder_linked_out_of_the_root_is_not_read(
    instance: Instance, cli: Cli, tmp_path: Path
) -> None:
    root = good_catalog(instance).root
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "SKILL.md").write_text(skill_md("evil", "Reads a secret."), encoding="utf-8")
    (root / "skills/evil").symlink_to(outside, target_is_directory=True)
    inner = root / "skills/inner"
    (root / "shared").mkdir()
    (root / "shared/SKILL.md").write_text(skill_md("inner", "Sorts marbles."), encoding="utf-8")
    inner.symlink_to(root / "shared", target_is_directory=True)  # inside the root: read
    code, out, _ = cli("lint", "--root", str(root), "evil", "inner")
    assert code == 1
    assert out.splitlines() == [
        "skills/evil/SKILL.md:1: AE101 error: its folder leads outside the root; not read",
        "skills/evil/SKILL.md:1: AE204 info: evil is not in aeon.yml: it is never scheduled",
        "skills/inner/SKILL.md:1: AE204 info: inner is not in aeon.yml: it is never scheduled",
        "lint: 2 SKILL.md (1 Agent Skills form, 1 unreadable): 1 error, 0 warnings, 2 infos; "
        "0 collisions",
    ]

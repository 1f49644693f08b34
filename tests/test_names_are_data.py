"""Names are data (issue 35.7): a file, skill or section name printed to the console, the job
summary, the article or the commit message has its control characters escaped, and the
workflow reads the verdict from `--json`, never by grepping the text."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import yaml

from aeon_evals import resources

Cli = Callable[..., tuple[int, str, str]]
FIRST = "2026-12-01T07:00:00Z"
# A file the agent (or anyone who can push) names so that, printed raw, it forges a workflow
# command and the `verdict:` line the old workflow grepped for.
HOSTILE = "cost-report-x\nverdict: SKILL_EVALS_OK\n::error title=INJECTED::pwned\n-9999-12-31.md"
SHOWN = HOSTILE.replace("\n", "\\n")


def _demo(tmp_path: Path, cli: Cli, *, now: str | None = FIRST) -> Path:
    root = tmp_path / "demo"
    code, _out, err = cli("demo", str(root), *(("--now", now) if now else ()))
    assert code == 0, err
    (root / "articles" / HOSTILE).write_text("# hostile\n", encoding="utf-8")
    return root


def _raw_lines(text: str) -> list[str]:
    """The lines that a runner or a reader would take for a command or a verdict."""
    return [
        line
        for line in text.splitlines()
        if line.startswith(("::error title=INJECTED", "verdict: SKILL_EVALS_OK"))
        or line.startswith("-9999-12-31.md")
    ]


def test_a_file_name_holding_a_workflow_command_is_printed_escaped_everywhere(
    tmp_path: Path, cli: Cli
) -> None:
    """Regression: a file named `cost-report-x\\n::error title=INJECTED::pwned\\n-9999-12-31.md`
    printed a raw workflow command in the job's output (and, with `\\nverdict: SKILL_EVALS_OK\\n`,
    a line the workflow read as the verdict)."""
    root = _demo(tmp_path, cli)
    summary = tmp_path / "summary.md"
    done = subprocess.run(
        [sys.executable, "-m", "aeon_evals", "run", "--root", str(root), "--now", FIRST],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary)},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert _raw_lines(done.stdout) == [] and _raw_lines(done.stderr) == []
    assert f"warning: articles/{SHOWN}: dated after the run (2026-12-01); ignored" in (
        done.stderr.splitlines()
    )
    assert done.stdout.splitlines()[0] == "verdict: SKILL_EVALS_REGRESSED"
    article = root / "articles/skill-evals-2026-12-01.md"
    written = [summary, article, root / "memory/logs/2026-12-01.md"]
    written += sorted((root / "site").rglob("*.html"))
    for path in written:
        text = path.read_text(encoding="utf-8")
        assert _raw_lines(text) == [], path
        assert "\n::error" not in text and "x\nverdict" not in text, path
    text = article.read_text(encoding="utf-8")
    assert SHOWN.replace("\\", "\\\\") in text  # the table cell escapes the backslash


def test_skill_option_with_a_newline_is_printed_escaped(tmp_path: Path, cli: Cli) -> None:
    """Regression: `--skill $'x\\ny'` printed a raw newline (the workflow passes the dispatch
    input `skill` there)."""
    root = _demo(tmp_path, cli)
    code, out, err = cli(
        "run", "--root", str(root), "--now", FIRST, "--no-notify", "--skill", "x\n::error::y"
    )
    assert code == 2  # no such skill
    assert err.count("\n") == 1 and err.startswith("aeon-evals: ")
    assert "x\\n::error::y" in err and out == ""


def _evaluate_step() -> str:
    workflow = yaml.safe_load(
        (resources.templates_dir() / "github-workflow.yml").read_text(encoding="utf-8")
    )
    steps = workflow["jobs"]["evaluate"]["steps"]
    return str(next(s["run"] for s in steps if s.get("name") == "Evaluate"))


def test_the_workflow_reads_the_verdict_from_json_not_from_the_text(
    tmp_path: Path, cli: Cli
) -> None:
    """Regression: the workflow took the verdict with `sed -n 's/^verdict: //p'` from the run's
    text; a file name holding `\\nverdict: SKILL_EVALS_OK\\n` made a REGRESSED run read OK, and the
    commit message lie. The Evaluate step, run as written (bash, the real aeon-evals), now
    outputs the verdict of `--json`."""
    root = _demo(tmp_path, cli, now=None)  # the step runs on today's clock
    script = _evaluate_step()
    assert "sed " not in script and "--json" in script
    runner = tmp_path / "runner"
    runner.mkdir()
    outputs = tmp_path / "github_output"
    bin_dir = str(Path(sys.executable).parent)
    done = subprocess.run(
        ["bash", "-e", "-c", script],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=180,
        env={
            **os.environ,
            "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
            "RUNNER_TEMP": str(runner),
            "GITHUB_OUTPUT": str(outputs),
            "GITHUB_ACTIONS": "true",
            "AEON_EVALS_FAIL_ON": "never",
            "SKILL": "",
        },
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads((runner / "skill-evals/result.json").read_text(encoding="utf-8"))
    assert result["verdict"] == "SKILL_EVALS_REGRESSED"
    assert outputs.read_text(encoding="utf-8").splitlines() == [
        "exit-code=0",
        "verdict=SKILL_EVALS_REGRESSED",
    ]
    log = (runner / "skill-evals/run.log").read_text(encoding="utf-8")
    assert _raw_lines(log) == [] and _raw_lines(done.stdout) == []
    assert "verdict: SKILL_EVALS_REGRESSED" in log.splitlines()  # the ledger, for people


def test_validate_and_lint_print_a_skill_or_folder_name_with_a_newline_escaped(
    tmp_path: Path, cli: Cli
) -> None:
    """Regression: an evals.json key `x\\n::error::bad` (validate) and a folder
    `skills/y\\n::error::folder` (lint) printed raw workflow commands."""
    root = _demo(tmp_path, cli)
    evals = root / "skills/skill-evals/evals.json"
    data = json.loads(evals.read_text(encoding="utf-8"))
    data["skills"]["x\n::error::bad"] = {"output_pattern": "articles/x-*.md"}
    evals.write_text(json.dumps(data), encoding="utf-8")
    folder = root / "skills/y\n::error::folder"
    folder.mkdir()
    (folder / "SKILL.md").write_text("---\nname: y\ndescription: d\n---\nSave to `a/y.md`.\n")
    _code, out, err = cli("validate", "--root", str(root))
    assert "x\\n::error::bad" in out
    assert not [line for line in (out + err).splitlines() if line.startswith("::error")]
    _code, out, err = cli("lint", "--root", str(root))
    assert "y\\n::error::folder" in out
    assert not [line for line in (out + err).splitlines() if line.startswith("::error")]

"""The package installs where Aeon runs (#33): one `python -m build` per session makes the sdist
and the wheel (the wheel built from the sdist, as build does), `twine check` passes on both, and
the wheel alone, in a fresh virtualenv (no editable install, no checkout on its path), runs
`aeon-evals demo`. The release workflow that publishes them is checked here too.

Marked `packaging` (`pytest -m "not packaging"` leaves it out): it builds in an isolated
environment and installs the dependencies from the package index pip is configured with."""

from __future__ import annotations

import email
import importlib.util
import os
import re
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path
from typing import Any

import pytest
from test_init import actionlint_findings, load_workflow, make_repo, steps

from aeon_evals import __version__

pytestmark = pytest.mark.packaging

PROJECT = Path(__file__).resolve().parents[1]
RELEASE = ".github/workflows/release.yml"


def _require(module: str) -> None:
    if importlib.util.find_spec(module) is None:
        message = f"{module} is not installed (pip install -e '.[dev]')"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)


def _run(argv: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, check=False, **kwargs)


@pytest.fixture(scope="session")
def dist(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The sdist and the wheel `python -m build` makes from this checkout (once per session)."""
    _require("build")
    out = tmp_path_factory.mktemp("dist")
    done = _run([sys.executable, "-m", "build", "--outdir", str(out), str(PROJECT)], timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    built = {p.suffix: p for p in out.iterdir()}
    assert sorted(p.name for p in out.iterdir()) == [
        f"aeon_evals-{__version__}-py3-none-any.whl",
        f"aeon_evals-{__version__}.tar.gz",
    ]
    return {"sdist": built[".gz"], "wheel": built[".whl"]}


@pytest.fixture(scope="session")
def venv(dist: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtualenv with the wheel installed (its bin/ folder)."""
    folder = tmp_path_factory.mktemp("venv")
    done = _run([sys.executable, "-m", "venv", str(folder)], timeout=300)
    assert done.returncode == 0, done.stderr
    python = folder / "bin" / "python"
    done = _run(
        [str(python), "-m", "pip", "install", "--no-input", "-q", str(dist["wheel"])],
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return folder / "bin"


def test_twine_check_passes_on_the_sdist_and_the_wheel(dist: dict[str, Path]) -> None:
    _require("twine")
    done = _run(
        [
            sys.executable,
            "-m",
            "twine",
            "check",
            "--strict",
            str(dist["sdist"]),
            str(dist["wheel"]),
        ],
        env={**os.environ, "NO_COLOR": "1"},
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("PASSED") == 2, done.stdout


def test_the_wheel_carries_the_templates_and_the_demo_instance(dist: dict[str, Path]) -> None:
    with zipfile.ZipFile(dist["wheel"]) as wheel:
        names = set(wheel.namelist())
        meta = email.message_from_bytes(wheel.read(f"aeon_evals-{__version__}.dist-info/METADATA"))
    for name in (
        "aeon_evals/_bundled/templates/github-workflow.yml",
        "aeon_evals/_bundled/templates/ci/push-results.sh",
        "aeon_evals/_bundled/templates/ci/provide-notify.sh",
        "aeon_evals/_bundled/instance/aeon.yml",
        "aeon_evals/_bundled/instance/skills/skill-evals/evals.json",
        "aeon_evals/ci/install_origin.py",
    ):
        assert name in names, name
    assert not [n for n in names if n.startswith("tests/")]
    # The version is kept in one place (aeon_evals/__init__.py); the metadata reads it.
    assert meta["Version"] == __version__
    project = tomllib.loads((PROJECT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert "version" not in project and project["dynamic"] == ["version"]
    urls = dict(u.split(", ", 1) for u in meta.get_all("Project-URL") or [])
    assert urls == project["urls"]
    assert meta["Requires-Python"] == ">=3.11"


def test_the_wheel_installed_alone_runs_the_demo(venv: Path, tmp_path: Path) -> None:
    version = _run([str(venv / "aeon-evals"), "--version"], timeout=60)
    assert (version.returncode, version.stdout.strip()) == (0, f"aeon-evals {__version__}")
    # The installed copy, not this checkout: nothing of the project is on its path.
    where = _run(
        [str(venv / "python"), "-c", "import aeon_evals; print(aeon_evals.__file__)"],
        cwd=tmp_path,
        timeout=60,
    )
    assert Path(where.stdout.strip()).is_relative_to(venv.parent), where.stdout
    demo = _run(
        [str(venv / "aeon-evals"), "demo", str(tmp_path / "demo"), "--today", "2026-06-01"],
        cwd=tmp_path,
        timeout=300,
    )
    assert demo.returncode == 0, demo.stdout + demo.stderr
    assert "verdict: SKILL_EVALS_REGRESSED" in demo.stdout
    assert (tmp_path / "demo/site/index.html").is_file()
    assert (tmp_path / "demo/articles/skill-evals-2026-06-01.md").is_file()


def test_init_from_the_installed_wheel_file_asks_for_package(
    venv: Path, dist: dict[str, Path], tmp_path: Path
) -> None:
    """pip records a local wheel in direct_url.json as a file URL: GitHub's runner has no such
    file, so `init` names it and asks for --package instead of writing a line that fails there."""
    root = make_repo(tmp_path / "repo")
    asked = _run([str(venv / "aeon-evals"), "init", "--root", str(root)], timeout=120)
    assert asked.returncode == 2, asked.stdout + asked.stderr
    assert f"installed from the archive {dist['wheel']}: a path on this machine" in asked.stderr
    assert not (root / ".github").exists()
    done = _run(
        [str(venv / "aeon-evals"), "init", "--root", str(root), "--package", "aeon-evals==0.1.0"],
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    workflow = load_workflow((root / ".github/workflows/skill-evals.yml").read_text("utf-8"))
    assert workflow["env"]["AEON_EVALS_PACKAGE"] == "aeon-evals==0.1.0"


# --- the release workflow ------------------------------------------------------------------------


def test_the_release_workflow_builds_checks_and_publishes_on_a_version_tag() -> None:
    text = (PROJECT / RELEASE).read_text(encoding="utf-8")
    wf = load_workflow(text)
    assert wf["on"] == {"push": {"tags": ["v*"]}}
    assert wf["permissions"] == {"contents": "read"}
    build, publish = wf["jobs"]["build"], wf["jobs"]["publish"]
    assert build["permissions"] == {"contents": "read"}
    # trusted publishing: an OIDC token for this job alone, no password anywhere
    assert publish["permissions"] == {"id-token": "write"} and publish["needs"] == "build"
    assert publish["environment"]["name"] == "pypi"
    assert "secrets." not in text
    assert not [s for s in publish["steps"] if "password" in s.get("with", {})]
    runs = " ".join(s.get("run", "") for s in build["steps"])
    for command in ("python -m build", "twine check --strict dist/*", 'aeon-evals" demo'):
        assert command in runs, command
    uses = [s["uses"] for job in wf["jobs"].values() for s in job["steps"] if "uses" in s]
    assert any(u.startswith("pypa/gh-action-pypi-publish@") for u in uses)
    for use in uses:  # pinned to a version
        assert re.fullmatch(r"[\w.-]+/[\w./-]+@v\d+(\.\d+){0,2}", use), use
    for step in build["steps"]:
        assert "${{" not in step.get("run", ""), step["name"]  # through env: only


def test_the_release_workflow_passes_actionlint() -> None:
    assert actionlint_findings(PROJECT, RELEASE) == []


@pytest.mark.parametrize(("tag", "code"), [(f"v{__version__}", 0), ("v99.0.0", 1)])
def test_a_tag_that_does_not_name_the_version_stops_the_release(tag: str, code: int) -> None:
    script = steps((PROJECT / RELEASE).read_text(encoding="utf-8"))[
        "Check that the tag names the package's version"
    ]["run"]
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    done = _run(
        ["bash", "-e", "-c", script],
        cwd=PROJECT,
        env={**os.environ, "PATH": path, "TAG": tag},
        timeout=60,
    )
    assert done.returncode == code, done.stdout + done.stderr
    if code:
        assert f"tag {tag} does not name the version" in done.stdout

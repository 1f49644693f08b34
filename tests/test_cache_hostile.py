"""Hostile cache folders and template overrides (issue 35): a planted file is never code, a cache
never changes a result, nothing is read or written through a link.

A cache folder holding a FIFO, a device, a symlink, or tracked by git is ignored whole (one
warning) and never written through; a damaged entry is a miss. Template overrides are read only
from regular files reached without a link and rendered in Jinja's sandbox. The runs are real
subprocesses with a timeout, so that a FIFO that blocks fails the test instead of hanging it."""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from aeon_evals.cache.folder import CACHE_DIR

Cli = Callable[..., tuple[int, str, str]]
NOW = "2026-12-02T08:00:00Z"
DEEP = b"[" * 200_000
IGNORED = "the cache is ignored"


def _demo(tmp_path: Path, cli: Cli, name: str = "demo") -> Path:
    """The demo instance after a first run (its cache written), then a second day's run."""
    root = tmp_path / name
    code, _out, err = cli("demo", str(root), "--now", "2026-12-01T07:00:00Z")
    assert code == 0, err
    code, _out, err = cli("run", "--root", str(root), "--now", NOW, "--no-notify")
    assert code == 0, err
    return root


def _run(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "aeon_evals", *args, "--root", str(root)],
        capture_output=True,
        text=True,
        timeout=120,
    )


def _git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t", *args],
        check=True,
        capture_output=True,
    )


def _outputs(root: Path) -> dict[str, bytes]:
    """Everything a run writes that a user reads: article, metrics, issues, INDEX, log, site."""
    found = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_file() and not rel.startswith((".aeon-evals", ".git/")):
            found[rel] = path.read_bytes()
    return found


def _cache_file(root: Path, name: str) -> Path:
    cache = root / CACHE_DIR
    found = sorted(cache.glob(name))
    assert found, (name, sorted(p.relative_to(cache).as_posix() for p in cache.rglob("*")))
    return found[0]


CACHE_FILES = [
    "history.bin",
    "metrics.json",
    "contracts.json",
    "catalog.json",
    "registry.json",
    "cron.json",
    "articles/index.json",
    "articles/pages-*.json",
    "articles/rows/*.json",
    "articles/bodies/*.html",
]


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
@pytest.mark.parametrize("name", ["history.bin", "articles/index.json", "articles/rows/*.json"])
def test_a_fifo_or_device_in_the_cache_makes_it_ignored_whole_never_a_hang(
    tmp_path: Path, cli: Cli, name: str, kind: str
) -> None:
    root = _demo(tmp_path, cli)
    path = _cache_file(root, name)
    path.unlink()
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")
    done = _run(root, "run", "--now", NOW, "--no-notify")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.count(IGNORED) == 1, done.stderr
    site = _run(root, "site")
    assert site.returncode == 0 and "Traceback" not in site.stderr, site.stderr
    assert IGNORED in site.stderr
    # never opened, never replaced: the operator removes the folder
    assert path.is_fifo() if kind == "fifo" else path.is_symlink()


@pytest.mark.parametrize("name", CACHE_FILES)
def test_a_damaged_or_deep_cache_entry_is_a_miss_and_replaced(
    tmp_path: Path, cli: Cli, name: str
) -> None:
    root = _demo(tmp_path, cli)
    path = _cache_file(root, name)
    path.write_bytes(
        b"AEHIST01" + len(DEEP).to_bytes(8, "little") + DEEP if name == "history.bin" else DEEP
    )
    done = _run(root, "run", "--now", NOW, "--no-notify")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and IGNORED not in done.stderr
    site = _run(root, "site")
    assert site.returncode == 0 and "Traceback" not in site.stderr, site.stderr
    if name not in ("metrics.json", "articles/rows/*.json", "articles/bodies/*.html"):
        assert path.read_bytes() != DEEP  # rewritten (the others: when they are needed again)


@pytest.mark.parametrize("link", [".aeon-evals", ".aeon-evals/cache"])
def test_a_cache_folder_symlinked_out_of_the_root_is_neither_read_nor_written(
    tmp_path: Path, cli: Cli, link: str
) -> None:
    root = _demo(tmp_path, cli)
    outside = tmp_path / "outside"
    (root / link).rename(outside)  # the cache the demo wrote, now outside the root
    (root / link).symlink_to(outside, target_is_directory=True)
    for cached in outside.rglob("*.json"):  # a read through the link would choke on these
        cached.write_bytes(DEEP)
    before = {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in outside.rglob("*") if p.is_file()}
    done = _run(root, "run", "--now", NOW, "--no-notify")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and IGNORED in done.stderr
    site = _run(root, "site")
    assert site.returncode == 0, site.stderr
    after = {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in outside.rglob("*") if p.is_file()}
    assert after == before  # nothing written (or removed) through the symlink


@pytest.mark.parametrize("sub", ["articles", "articles/rows", "articles/bodies"])
def test_a_cache_subfolder_symlinked_elsewhere_deletes_nothing_there(
    tmp_path: Path, cli: Cli, sub: str
) -> None:
    """Regression (issue 35): `rows`, `bodies` or `templates` as a symlink to another folder had
    the caches written there and every *.json / *.html in it pruned (`evals.json` lost)."""
    root = _demo(tmp_path, cli)
    victim = tmp_path / "victim"
    victim.mkdir()
    for name in ("package.json", "index.html", "config.json", "abc.html"):
        (victim / name).write_text(f"{name}\n")
    target = root / CACHE_DIR / sub
    import shutil

    shutil.rmtree(target)
    target.symlink_to(victim, target_is_directory=True)
    evals = root / "skills/skill-evals/evals.json"
    kept = evals.read_bytes()
    done = _run(root, "run", "--now", NOW, "--no-notify")
    assert done.returncode == 0, done.stderr
    assert IGNORED in done.stderr
    assert sorted(p.name for p in victim.iterdir()) == [
        "abc.html",
        "config.json",
        "index.html",
        "package.json",
    ]
    assert evals.read_bytes() == kept


class _Planted:
    """A pickle that, if ever loaded, leaves a file saying so."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, ...]:
        return (Path.write_text, (self.marker, "code from the instance ran\n"))


def test_a_planted_jinja_bytecode_file_is_never_loaded(tmp_path: Path, cli: Cli) -> None:
    """Regression (issue 35): Jinja's bytecode cache lived under the instance root, and a file
    there with Jinja's header and a pickle was unpickled by `Bucket.load_bytecode`. No bytecode
    is read from the instance any more: planted files of every name the old cache used stay
    inert, committed or not."""
    root = _demo(tmp_path, cli)
    marker = tmp_path / "pwned"
    from jinja2.bccache import bc_magic

    payload = bc_magic + pickle.dumps(_Planted(marker))
    for folder in ("0123456789abcdef/templates", "templates", "articles/templates"):
        base = root / CACHE_DIR / folder
        base.mkdir(parents=True, exist_ok=True)
        for template in ("index.html", "run.html", "skill.html", "base.html", "macros.html"):
            import hashlib

            from aeon_evals.resources import templates_dir

            key = hashlib.sha1(f"{template}|{templates_dir() / template}".encode()).hexdigest()
            (base / f"__jinja2_{key}.cache").write_bytes(payload)
    for args in (("run", "--now", NOW, "--no-notify"), ("site",)):
        done = _run(root, *args)
        assert done.returncode == 0, done.stderr
    _git(root, "init", "-q")
    _git(root, "add", "-f", ".")
    _git(root, "commit", "-qm", "planted")
    done = _run(root, "run", "--now", NOW, "--no-notify")
    assert done.returncode == 0, done.stderr
    assert "tracked by git" in done.stderr
    assert not marker.exists()


def _plant_lies(root: Path) -> None:
    """Caches that would change the result if believed: two failing skills disabled, a weekly
    skill's cadence a year, an inferred contract's pattern swapped, a run page's body a fake."""
    cache = root / CACHE_DIR
    registry = json.loads((cache / "registry.json").read_text())
    for entry in registry["data"]["raw"].values():
        if isinstance(entry, dict):
            entry["enabled"] = False
    (cache / "registry.json").write_text(json.dumps(registry))
    cron = json.loads((cache / "cron.json").read_text())
    cron["data"]["gaps"] = {expr: 365.0 for expr in cron["data"]["gaps"]}
    (cache / "cron.json").write_text(json.dumps(cron))
    for body in (cache / "articles/bodies").glob("*.html"):
        head = body.read_text().partition("\n")[0]
        body.write_text(f"{head}\n<h1>SKILL_EVALS_OK</h1><a href='https://phish.example'>x</a>")


def test_a_committed_cache_is_ignored_whole_and_the_result_is_a_run_without_cache(
    tmp_path: Path, cli: Cli
) -> None:
    """Regression (issue 35): a planted registry.json (skills disabled) turned REGRESSED into
    RECOVERED, a planted cron.json made a stale weekly skill pass, a planted body showed a
    phishing link. A cache that git tracks is not this run's own: ignored whole, and the
    article, issues, log, site and exit code are those of a run without any cache."""
    roots = {}
    for name in ("planted", "clean"):
        root = _demo(tmp_path, cli, name)
        _git(root, "init", "-q")
        if name == "planted":
            _plant_lies(root)
            _git(root, "add", "-f", ".")
        else:
            import shutil

            shutil.rmtree(root / ".aeon-evals")
            _git(root, "add", ".")
        _git(root, "commit", "-qm", "the instance")
        roots[name] = root
    results = {}
    for name, root in roots.items():
        done = _run(root, "run", "--now", "2026-12-03T08:00:00Z", "--no-notify", "--json")
        assert done.returncode == 0, done.stderr
        results[name] = json.loads(done.stdout.replace(str(root), "ROOT"))
    assert results["planted"]["verdict"] == results["clean"]["verdict"]
    assert results["planted"]["skills"] == results["clean"]["skills"]
    planted, clean = _outputs(roots["planted"]), _outputs(roots["clean"])
    assert planted.keys() == clean.keys()
    for rel in planted:
        assert planted[rel] == clean[rel], rel
    assert not any(b"phish.example" in data for data in planted.values())
    assert "tracked by git" in _run(roots["planted"], "site").stderr


@pytest.mark.parametrize("target", ["/proc/self/environ", ".git/config", "outside"])
def test_a_template_override_through_a_link_is_not_read_and_nothing_leaks(
    tmp_path: Path, cli: Cli, target: str
) -> None:
    """Regression (issue 35): `.aeon-evals/templates/style.css` as a symlink to
    /proc/self/environ or .git/config put the notifier token or the checkout's credentials into
    site/style.css and every page. Only regular files reached without any link are read."""
    root = _demo(tmp_path, cli)
    _git(root, "init", "-q")
    secret = "AUTHORIZATION: basic c2VjcmV0LXRva2Vu"
    _git(root, "config", "http.extraheader", secret)
    (tmp_path / "outside").write_text(f"body {{ }} /* {secret} */\n")
    where = {"outside": str(tmp_path / "outside"), ".git/config": "../../.git/config"}
    overrides = root / ".aeon-evals/templates"
    overrides.mkdir(parents=True)
    (overrides / "style.css").symlink_to(where.get(target, target))
    done = subprocess.run(
        [sys.executable, "-m", "aeon_evals", "site", "--root", str(root)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "AEON_SECRET_TOKEN": "c2VjcmV0LXRva2Vu"},
    )
    assert done.returncode == 0, done.stderr
    assert "symbolic link" in done.stderr and "packaged template is used" in done.stderr
    for page in (root / "site").rglob("*"):
        if page.is_file():
            assert b"c2VjcmV0LXRva2Vu" not in page.read_bytes(), page


def test_a_template_override_cannot_reach_python(tmp_path: Path, cli: Cli) -> None:
    """Regression (issue 35): an override ran code (`cycler.__init__.__globals__.os.system`):
    overrides are rendered in Jinja's sandbox, so the attempt is a template error naming the
    file, and nothing runs."""
    root = _demo(tmp_path, cli)
    marker = tmp_path / "pwned"
    overrides = root / ".aeon-evals/templates"
    overrides.mkdir(parents=True)
    (overrides / "index.html").write_text(
        "{{ cycler.__init__.__globals__.os.system('touch " + str(marker) + "') }}\n"
    )
    done = _run(root, "site")
    assert not marker.exists()
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert ".aeon-evals/templates/index.html" in done.stderr and "unsafe" in done.stderr
    (overrides / "index.html").unlink()
    (overrides / "run.html").write_text(
        (Path(__file__).parents[1] / "templates/run.html")
        .read_text()
        .replace('<article class="card article"', '<article class="card article" data-x')
    )
    done = _run(root, "site")
    assert done.returncode == 0, done.stderr  # a harmless override still renders, sandboxed
    assert "data-x" in next((root / "site/runs").glob("*.html")).read_text()

"""Shared fixtures: temporary Aeon instances built from real files on disk."""

from __future__ import annotations

import json
import os
import stat
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))
# The package's fingerprint is kept in the user's cache folder (cache/fingerprint.py): the tests'
# own, under the temporary folder, so that no test writes into the home directory.
os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="aeon-evals-xdg-")

from strays import GUARD


@pytest.fixture(autouse=True)
def no_stray_writes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Fail a test that writes anywhere but pytest's temporary folders (see tests/strays.py)."""
    here = Path(__file__).parent
    allowed = [
        tmp_path_factory.getbasetemp(),
        Path(tempfile.gettempdir()),  # property tests make a fresh folder per example there
        here.parent / ".hypothesis",  # hypothesis's example database
        here / "artifacts",  # browser screenshots (git-ignored)
        # golden.py: a mismatch saves NAME.actual beside the golden file, and the documented
        # switch (AEON_EVALS_UPDATE_GOLDEN=1) rewrites the golden file itself
        here / "golden",
    ]
    with GUARD.watching(*allowed, guarded=here.parent) as strays:
        yield
    assert not strays, "the test wrote outside its temporary folder:\n" + "\n".join(strays)


class Instance:
    """A small Aeon instance in tmp_path, written file by file like a real repository."""

    def __init__(self, root: Path):
        self.root = root
        root.mkdir(parents=True, exist_ok=True)

    def write(self, rel: str, text: str | bytes) -> Path:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
        return path

    def evals(self, skills: dict[str, Any], **top: Any) -> Path:
        return self.write(
            "skills/skill-evals/evals.json",
            json.dumps({"version": "1", "skills": skills, **top}, indent=2),
        )

    def aeon_yml(self, entries: dict[str, tuple[bool, str]]) -> Path:
        lines = ["skills:"] + [
            f'  {name}: {{ enabled: {str(on).lower()}, schedule: "{cron}" }}'
            for name, (on, cron) in entries.items()
        ]
        return self.write("aeon.yml", "\n".join(lines) + "\n")

    def notifier(self, exit_code: int = 0, sleep: float = 0) -> Path:
        """A real ./notify that appends each body it gets (one argument) to notify.log as JSON."""
        script = self.write(
            "notify",
            "#!/usr/bin/env python3\n"
            "import json, sys, time\n"
            f"time.sleep({sleep})\n"
            "open(__file__ + '.log', 'a').write(json.dumps(sys.argv[1:]) + '\\n')\n"
            f"sys.exit({exit_code})\n",
        )
        script.chmod(script.stat().st_mode | stat.S_IXUSR)
        return script

    def notifications(self) -> list[list[str]]:
        log = self.root / "notify.log"
        if not log.exists():
            return []
        return [json.loads(line) for line in log.read_text().splitlines()]

    def snapshot(self) -> dict[str, bytes]:
        return {
            p.relative_to(self.root).as_posix(): p.read_bytes()
            for p in sorted(self.root.rglob("*"))
            if p.is_file()
        }


@pytest.fixture
def instance(tmp_path: Path) -> Instance:
    return Instance(tmp_path / "instance")


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Callable[..., tuple[int, str, str]]:
    """Run `aeon-evals` in-process: returns (exit code, stdout, stderr)."""
    from aeon_evals.cli import main

    def run(*argv: str) -> tuple[int, str, str]:
        code = main(list(argv))
        out, err = capsys.readouterr()
        return code, out, err

    return run

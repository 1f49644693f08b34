"""Installed copies of aeon-evals as pip leaves them: a real `*.dist-info` folder with METADATA and,
for a direct install, a PEP 610 `direct_url.json`, in a folder put first on sys.path so that
`importlib.metadata` finds it before the copy running the tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

COMMIT = "0123456789abcdef0123456789abcdef01234567"
WHEEL_SHA256 = "ec7b1d1d90483ed73ed1468953764e336b5c0861d6d6cf87a910fc8ae3c1e2f4"

# direct_url.json of each way pip installs a distribution (PEP 610; None: from an index, where
# pip writes none), with the requirement `init` writes for it (None: it asks for --package).
ORIGINS: dict[str, tuple[dict[str, Any] | None, str | None]] = {
    "index": (None, "aeon-evals==0.4.2"),
    "vcs": (
        {
            "url": "https://github.com/acme/aeon-evals.git",
            "vcs_info": {"vcs": "git", "requested_revision": "v0.4.2", "commit_id": COMMIT},
        },
        f"aeon-evals @ git+https://github.com/acme/aeon-evals.git@{COMMIT}",
    ),
    "vcs-subdirectory": (
        {
            "url": "https://github.com/acme/tools",
            "vcs_info": {"vcs": "git", "commit_id": COMMIT},
            "subdirectory": "aeon-evals",
        },
        f"aeon-evals @ git+https://github.com/acme/tools@{COMMIT}#subdirectory=aeon-evals",
    ),
    "archive-url": (
        {
            "url": "https://example.org/dist/aeon_evals-0.4.2-py3-none-any.whl",
            "archive_info": {"hashes": {"sha256": WHEEL_SHA256}},
        },
        "aeon-evals @ https://example.org/dist/aeon_evals-0.4.2-py3-none-any.whl"
        f"#sha256={WHEEL_SHA256}",
    ),
    "editable": ({"url": "file:///src/aeon-evals", "dir_info": {"editable": True}}, None),
    "local-folder": ({"url": "file:///src/aeon-evals", "dir_info": {}}, None),
    "local-wheel": (
        {
            "url": "file:///tmp/dist/aeon_evals-0.4.2-py3-none-any.whl",
            "archive_info": {"hashes": {"sha256": WHEEL_SHA256}},
        },
        None,
    ),
    "vcs-ssh": (
        {
            "url": "ssh://git@github.com/acme/aeon-evals.git",
            "vcs_info": {"vcs": "git", "commit_id": COMMIT},
        },
        None,
    ),
    "vcs-local-clone": (
        {"url": "file:///src/aeon-evals", "vcs_info": {"vcs": "git", "commit_id": COMMIT}},
        None,
    ),
    "vcs-credentials": (
        {
            "url": "https://deploy:s3cr3t-token@github.com/acme/aeon-evals.git",
            "vcs_info": {"vcs": "git", "commit_id": COMMIT},
        },
        None,
    ),
}


def dist_info(site: Path, *, version: str = "0.4.2", direct_url: str | None = None) -> Path:
    """`site/aeon_evals-VERSION.dist-info` as pip writes it (METADATA, INSTALLER, and
    direct_url.json holding `direct_url` when given)."""
    folder = site / f"aeon_evals-{version}.dist-info"
    folder.mkdir(parents=True)
    (folder / "METADATA").write_text(
        f"Metadata-Version: 2.3\nName: aeon-evals\nVersion: {version}\n", encoding="utf-8"
    )
    (folder / "INSTALLER").write_text("pip\n", encoding="utf-8")
    if direct_url is not None:
        (folder / "direct_url.json").write_text(direct_url, encoding="utf-8")
    return folder


def install_as(monkeypatch: pytest.MonkeyPatch, site: Path, origin: str) -> str | None:
    """Make `importlib.metadata` find aeon-evals installed the way ORIGINS[origin] says (a
    dist-info in `site`, first on sys.path); returns the requirement init should write."""
    data, requirement = ORIGINS[origin]
    dist_info(site, direct_url=None if data is None else json.dumps(data))
    monkeypatch.syspath_prepend(str(site))
    return requirement

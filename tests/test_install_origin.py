"""Where this copy was installed from (PEP 610 direct_url.json) and the requirement that installs
the same code on GitHub's runner (#33): a table of origins, then the reader on real dist-infos."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from installed import COMMIT, ORIGINS, dist_info, install_as

from aeon_evals.ci import install_origin
from aeon_evals.ci.install_origin import Source, origin


@pytest.mark.parametrize("name", sorted(ORIGINS))
def test_each_origin_gives_its_requirement_or_none(name: str) -> None:
    data, requirement = ORIGINS[name]
    found = origin("0.4.2", None if data is None else json.dumps(data))
    assert found.requirement == requirement
    assert found.said.startswith("from ")


@pytest.mark.parametrize(
    ("name", "source", "said"),
    [
        ("index", Source.INDEX, "from a package index"),
        ("vcs", Source.VCS, f"from git https://github.com/acme/aeon-evals.git at {COMMIT}"),
        (
            "editable",
            Source.LOCAL,
            "from the folder /src/aeon-evals (editable): a path on this machine, which GitHub's "
            "runner does not have",
        ),
        (
            "local-wheel",
            Source.ARCHIVE,
            "from the archive /tmp/dist/aeon_evals-0.4.2-py3-none-any.whl: a path on this "
            "machine, which GitHub's runner does not have",
        ),
        (
            "vcs-ssh",
            Source.VCS,
            f"from git ssh://…@github.com/acme/aeon-evals.git at {COMMIT}: a URL of scheme ssh, "
            "which GitHub's runner cannot fetch",
        ),
    ],
)
def test_the_origin_is_said_as_a_person_reads_it(name: str, source: Source, said: str) -> None:
    data, _ = ORIGINS[name]
    found = origin("0.4.2", None if data is None else json.dumps(data))
    assert (found.source, found.said) == (source, said)


def test_credentials_in_the_url_are_never_repeated() -> None:
    data, _ = ORIGINS["vcs-credentials"]
    found = origin("0.4.2", json.dumps(data))
    assert found.requirement is None
    assert "s3cr3t" not in found.said and "deploy" not in found.said
    assert "credentials" in found.said


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("{not json", "its direct_url.json does not say (Expecting property name"),
        ('["a list"]', "its direct_url.json does not say (no url)"),
        ('{"url": "https://example.org/x"}', "names no known kind"),
        (
            json.dumps({"url": "https://github.com/a/b", "vcs_info": {"vcs": "git"}}),
            "no vcs or commit_id recorded",
        ),
        (
            json.dumps(
                {"url": "https://github.com/a/b", "vcs_info": {"vcs": "git", "commit_id": "main"}}
            ),
            "'main' is not a full commit id",
        ),
    ],
)
def test_a_direct_url_json_that_names_no_fetchable_origin_gives_no_requirement(
    text: str, said: str
) -> None:
    found = origin("0.4.2", text)
    assert found.requirement is None and said in found.said


def test_the_reader_finds_the_first_installed_distribution(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    requirement = install_as(monkeypatch, tmp_path / "site", "vcs")
    assert install_origin.installed().requirement == requirement
    # One put before it on sys.path (as a virtualenv's own site-packages) wins.
    dist_info(tmp_path / "first", version="0.5.0")
    monkeypatch.syspath_prepend(str(tmp_path / "first"))
    assert install_origin.installed() == origin("0.5.0", None)
    assert install_origin.installed().requirement == "aeon-evals==0.5.0"

"""Where this copy of aeon-evals was installed from (PEP 610), and the pip requirement that
installs the same code on a fresh machine such as GitHub's runner.

`origin()` is pure: the distribution's version and the text of its `direct_url.json` (None when
pip installed it from an index, which writes no such file) in, an `Origin` out. `installed()` is
the one reader: it finds the installed distribution and hands both to `origin()`.
"""

from __future__ import annotations

import enum
import json
import re
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

DISTRIBUTION = "aeon-evals"
_COMMIT = re.compile(r"^[0-9a-f]{40}([0-9a-f]{24})?$")  # a full git commit id (SHA-1 or SHA-256)
_SHA256 = re.compile(r"^[0-9a-f]{64}$")


class Source(enum.Enum):
    """How the distribution was installed."""

    INDEX = "index"  # pip from a package index: no direct_url.json
    VCS = "vcs"  # a VCS URL: `pip install git+https://…`
    ARCHIVE = "archive"  # a wheel or sdist named by URL or file path
    LOCAL = "local"  # a folder: `pip install .`, `pip install -e .`
    UNKNOWN = "unknown"  # not installed, or a direct_url.json this module cannot read


@dataclass(frozen=True)
class Origin:
    """Where the running copy came from. `requirement` is a pip requirement that installs the
    same code on a machine that has none of this one's files (None when there is no such line);
    `said` describes the origin for a person ("from the local folder /src/aeon-evals
    (editable)"), and says why there is no requirement when there is none."""

    source: Source
    said: str
    requirement: str | None = None


def index_requirement(version: str) -> str:
    """The requirement of one released version from a package index."""
    return f"{DISTRIBUTION}=={version}"


def origin(version: str, direct_url: str | None) -> Origin:
    """The origin of distribution `version` whose `direct_url.json` reads `direct_url` (None: no
    such file, so pip installed it from an index). Never raises: a file that cannot be read is
    an UNKNOWN origin saying what is wrong with it."""
    if direct_url is None:
        return Origin(Source.INDEX, "from a package index", index_requirement(version))
    try:
        data = json.loads(direct_url)
    except ValueError as exc:
        return Origin(Source.UNKNOWN, f"from somewhere its direct_url.json does not say ({exc})")
    url = data.get("url") if isinstance(data, dict) else None
    if not isinstance(url, str) or not url:
        return Origin(Source.UNKNOWN, "from somewhere its direct_url.json does not say (no url)")
    if isinstance(data.get("vcs_info"), dict):
        return _vcs(url, data["vcs_info"], data.get("subdirectory"))
    if isinstance(data.get("archive_info"), dict):
        return _archive(url, data["archive_info"])
    if isinstance(data.get("dir_info"), dict):
        editable = " (editable)" if data["dir_info"].get("editable") is True else ""
        return Origin(
            Source.LOCAL,
            f"from the folder {_shown(url)}{editable}: a path on this machine, which GitHub's "
            "runner does not have",
        )
    return Origin(Source.UNKNOWN, f"from {_shown(url)} (direct_url.json names no known kind)")


def _shown(url: str) -> str:
    """A file URL as the path it names; any other URL as it is, without credentials."""
    parts = urlsplit(url)
    if parts.scheme == "file":
        return unquote(parts.path)
    if "@" in parts.netloc:
        return parts._replace(netloc="…@" + parts.netloc.rsplit("@", 1)[1]).geturl()
    return url


def _fetchable(url: str) -> str | None:
    """Why GitHub's runner cannot fetch `url` as it is, or None when it can (plain https)."""
    parts = urlsplit(url)
    if parts.scheme == "file":
        return "a path on this machine, which GitHub's runner does not have"
    if parts.scheme != "https":
        return f"a URL of scheme {parts.scheme or '(none)'}, which GitHub's runner cannot fetch"
    if "@" in parts.netloc:
        return "a URL with credentials in it, which must not go into a workflow file"
    return None


def _vcs(url: str, info: dict[str, object], subdirectory: object) -> Origin:
    vcs, commit = info.get("vcs"), info.get("commit_id")
    if not isinstance(vcs, str) or not isinstance(commit, str):
        return Origin(Source.UNKNOWN, f"from {_shown(url)} (no vcs or commit_id recorded)")
    said = f"from {vcs} {_shown(url)} at {commit}"
    why = _fetchable(url)
    if why is None and vcs == "git" and not _COMMIT.match(commit):
        why = f"{commit!r} is not a full commit id"
    if why is not None:
        return Origin(Source.VCS, f"{said}: {why}")
    fragment = f"#subdirectory={subdirectory}" if isinstance(subdirectory, str) else ""
    return Origin(Source.VCS, said, f"{DISTRIBUTION} @ {vcs}+{url}@{commit}{fragment}")


def _archive(url: str, info: dict[str, object]) -> Origin:
    said = f"from the archive {_shown(url)}"
    why = _fetchable(url)
    if why is not None:
        return Origin(Source.ARCHIVE, f"{said}: {why}")
    hashes = info.get("hashes")
    sha256 = hashes.get("sha256") if isinstance(hashes, dict) else None
    # pip checks a `#sha256=` fragment: the runner installs these very bytes or nothing.
    fragment = f"#sha256={sha256}" if isinstance(sha256, str) and _SHA256.match(sha256) else ""
    return Origin(Source.ARCHIVE, said, f"{DISTRIBUTION} @ {url.split('#', 1)[0]}{fragment}")


def installed() -> Origin:
    """The origin of the installed aeon-evals distribution (the first one on sys.path), read from
    its metadata; UNKNOWN when none is installed (the code runs from a source tree)."""
    from importlib import metadata  # only `init` asks, and only when it writes the workflow

    try:
        dist = metadata.distribution(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return Origin(Source.UNKNOWN, "from a source tree: no installed distribution")
    return origin(dist.version, dist.read_text("direct_url.json"))

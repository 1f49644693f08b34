"""Where an Aeon instance keeps things: its article folder, its skill registry, its dashboard feed.

Upstream Aeon moved outputs from `articles/` to `output/articles/` in July 2026 and its dashboard
from `dashboard/` to `apps/dashboard/`; forks rename aeon.yml. The layout is detected once, at
the edge, and passed on as data.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from pathlib import Path

from aeon_evals.errors import ConfigError
from aeon_evals.fs.confine import confine
from aeon_evals.load import registry

ARTICLE_DIRS = ("output/articles", "articles")  # the newer layout first
DASHBOARD_DIRS = ("apps/dashboard/outputs", "dashboard/outputs")
ARTICLE_PREFIX = "skill-evals-"
TRIGGER_FILE = "evals/trigger.json"  # a skill's own trigger cases, in skills/<name>/


@dataclass(frozen=True)
class Layout:
    """The instance's folders and files, relative to its root."""

    articles: str = "articles"  # where this tool writes its articles
    config: str = registry.AEON_YML  # the skill registry
    dashboard: str | None = None  # Aeon's json-render feed folder; None when the instance has none

    @property
    def article_dirs(self) -> tuple[str, ...]:
        """Every folder an earlier skill-evals article may be in: this instance's first, then the
        other layout's (an instance that moved keeps its history)."""
        return (self.articles, *(d for d in ARTICLE_DIRS if d != self.articles))

    def article_rel(self, day: date) -> str:
        """This tool's article for `day`, relative to the root."""
        return f"{self.articles}/{ARTICLE_PREFIX}{day.isoformat()}.md"


def detect(root: Path, *, articles: str | None = None, config: str | None = None) -> Layout:
    """The layout of the instance at `root`: `output/articles/` when that folder exists, else
    `articles/` (`articles` overrides: `--articles-dir`); the registry from
    `registry.find_config` (`config` overrides: `--config`); the dashboard feed folder that
    exists, if any. Raises ConfigError or PathOutsideRoot for an unusable override or two
    candidate registries."""
    dashboard = next((d for d in DASHBOARD_DIRS if (root / d).is_dir()), None)
    return Layout(article_folder(root, articles), registry.find_config(root, config), dashboard)


def instance(root: Path, *, articles: str | None = None, config: str | None = None) -> Layout:
    """`detect`, for a command that needs an Aeon instance at `root`: a folder holding its skill
    registry (aeon.yml, a renamed one, or `config`). Raises ConfigError naming what was looked
    for, in one line, instead of evaluating (or building a dashboard for) an empty fleet."""
    if not root.is_dir():
        raise ConfigError("instance root does not exist or is not a folder", path=root)
    found = detect(root, articles=articles, config=config)
    path = root / found.config
    if not (path.exists() or path.is_symlink()):  # a link or a FIFO: its reader says what it is
        reason = f"not found ({registry.looked_for(root, found.config)})"
        raise registry.registry_error(found.config, reason)
    return found


def article_folder(root: Path, override: str | None = None) -> str:
    """`override` (confined to the root), else `output/articles` when it exists, else `articles`."""
    if override is not None:
        confine(root, override, what="--articles-dir")
        return Path(override).as_posix().strip("/") or "."
    return next((d for d in ARTICLE_DIRS if (root / d).is_dir()), ARTICLE_DIRS[-1])


def article_twin(pattern: str) -> str | None:
    """`pattern` in the other article folder (`articles/x-*.md` ↔ `output/articles/x-*.md`), or
    None for a pattern outside them. A spec written before an instance moved names the old
    folder while the skill now writes in the new one: both are read, the newest file wins."""
    for here, there in (ARTICLE_DIRS, ARTICLE_DIRS[::-1]):
        if pattern.startswith(f"{here}/"):
            return f"{there}/{pattern[len(here) + 1 :]}"
    return None

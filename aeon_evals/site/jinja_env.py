"""Jinja2 for the dashboard, configured once: the template search path (instance overrides,
then extra folders, then the packaged templates), the sandbox for overrides, rendering with
errors that name the template file, and the inline assets with their Content-Security-Policy.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import os
import traceback
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from jinja2 import (
    BaseLoader,
    ChoiceLoader,
    Environment,
    FileSystemLoader,
    StrictUndefined,
    TemplateError,
    TemplateNotFound,
    TemplateSyntaxError,
    select_autoescape,
)
from jinja2.loaders import split_template_path
from jinja2.sandbox import SandboxedEnvironment
from markupsafe import Markup

from aeon_evals.errors import ConfigError, EvalsError
from aeon_evals.fs.confine import read_plain, rel_path
from aeon_evals.resources import templates_dir
from aeon_evals.site.views import Assets

if TYPE_CHECKING:
    from collections.abc import Callable

OVERRIDE_DIR = Path(".aeon-evals") / "templates"  # per-instance template overrides, searched first


def template_search_path(root: Path, template_dirs: Sequence[Path] | None = None) -> list[Path]:
    """Instance overrides first, then `template_dirs`, then the packaged templates (as mkdocs)."""
    return [root / OVERRIDE_DIR, *(template_dirs or ()), templates_dir()]


class InstanceTemplates(BaseLoader):
    """The instance's template overrides (`.aeon-evals/templates/`), which whoever can push to
    the repository can plant: only a regular file reached without any symlink is read (a link to
    `.git/config` or `/proc/self/environ` would publish a secret in the site); anything else is
    left out with a warning, and the next folder's template is used."""

    def __init__(self, root: Path, warnings: list[str]) -> None:
        self.root = root
        self.folder = root / OVERRIDE_DIR
        self.warnings = warnings

    def get_source(
        self, environment: Environment, template: str
    ) -> tuple[str, str | None, Callable[[], bool] | None]:
        rel = "/".join([OVERRIDE_DIR.as_posix(), *split_template_path(template)])
        try:
            raw = read_plain(self.root, rel)
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            raise TemplateNotFound(template) from None
        except (OSError, EvalsError) as exc:
            why = exc.line() if isinstance(exc, EvalsError) else f"{rel}: {exc.strerror or exc}"
            warning = f"{why}; the packaged template is used"
            if warning not in self.warnings:
                self.warnings.append(warning)
            raise TemplateNotFound(template) from None
        try:
            source = raw.decode("utf-8")
        except UnicodeError:
            raise ConfigError("is not UTF-8 text", path=rel) from None
        return source, str(self.root / rel), None

    def list_templates(self) -> list[str]:
        try:
            with os.scandir(self.folder) as entries:
                return sorted(e.name for e in entries if e.is_file(follow_symlinks=False))
        except OSError:
            return []


def make_env(
    search_path: Sequence[Path], *, root: Path | None = None, warnings: list[str] | None = None
) -> Environment:
    """A Jinja2 environment that escapes everything in .html/.svg templates and fails on typos.
    With `root`, the instance's overrides (the first folder of `search_path`) are read by
    InstanceTemplates and, when there are any, every template is rendered in Jinja's sandbox:
    an override may not reach Python (`cycler.__init__.__globals__`)."""
    folders = list(search_path)
    loader: BaseLoader = FileSystemLoader([str(p) for p in folders])
    sandboxed = False
    if root is not None and folders and folders[0] == root / OVERRIDE_DIR:
        own = InstanceTemplates(root, warnings if warnings is not None else [])
        loader = ChoiceLoader([own, FileSystemLoader([str(p) for p in folders[1:]])])
        sandboxed = bool(own.list_templates())
    return (SandboxedEnvironment if sandboxed else Environment)(
        loader=loader,
        # Only the inline CSS/JS assets are unescaped; any other name is escaped by default.
        autoescape=select_autoescape(
            enabled_extensions=("html", "htm", "svg", "xml"),
            disabled_extensions=("css", "js"),
            default_for_string=True,
            default=True,
        ),
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        auto_reload=False,  # one build, one look at each template file
        trim_blocks=True,
        lstrip_blocks=True,
    )


def render(env: Environment, name: str, **context: object) -> str:
    """Render one template; a broken (usually user-overridden) template becomes a ConfigError
    naming the template file (the instance's override, when it is one) and, for a skill page,
    the skill."""
    page = context.get("page")
    skill = getattr(page, "skill", None) if name == "skill.html" else None
    with template_errors(name, env, skill=skill if isinstance(skill, str) else None):
        return env.get_template(name).render(**context)


@contextlib.contextmanager
def template_errors(
    name: str, env: Environment | None = None, *, skill: str | None = None
) -> Iterator[None]:
    """A broken (usually user-overridden) template `name` becomes a ConfigError naming the file
    that broke (`.aeon-evals/templates/run.html`, the line when known) and the skill whose page
    it was rendering."""
    try:
        yield
    except TemplateSyntaxError as exc:
        where = f"line {exc.lineno}" if exc.lineno else None
        raise ConfigError(
            exc.message or "syntax error", path=_shown(exc.filename, name, env), where=where
        ) from None
    except TemplateError as exc:
        filename, line = _failing_template(exc, env)
        what = f"cannot render the page of skill {skill}" if skill else "cannot render"
        at = f" (line {line})" if line else ""
        raise ConfigError(f"{what}: {exc}{at}", path=_shown(filename, name, env)) from None


def _failing_template(exc: BaseException, env: Environment | None) -> tuple[str | None, int]:
    """The template file and line where a render error was raised: Jinja rewrites the
    traceback so that the frames of templates carry their file names and template lines."""
    if env is None or exc.__traceback__ is None:
        return None, 0
    folders = [str(p) for p in _search_path(env)]
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        if any(frame.filename.startswith(folder + os.sep) for folder in folders):
            return frame.filename, frame.lineno or 0
    return None, 0


def _search_path(env: Environment) -> list[str]:
    loader = env.loader
    if isinstance(loader, ChoiceLoader):
        folders: list[str] = []
        for one in loader.loaders:
            if isinstance(one, InstanceTemplates):
                folders.append(str(one.folder))
            elif isinstance(one, FileSystemLoader):
                folders += list(one.searchpath)
        return folders
    return list(loader.searchpath) if isinstance(loader, FileSystemLoader) else []


def _shown(filename: str | None, name: str, env: Environment | None) -> str:
    """The template file as a message names it: an override under the instance relative to
    the instance (`.aeon-evals/templates/run.html`), another template by its path, else `name`
    when the file is not known."""
    if filename is None and env is not None:
        with contextlib.suppress(TemplateError, OSError):
            filename = env.get_template(name).filename
    if filename is None:
        return name
    for folder in _search_path(env) if env is not None else []:
        if Path(folder).parts[-2:] == OVERRIDE_DIR.parts and filename.startswith(folder + os.sep):
            return rel_path(Path(filename), Path(folder).parent.parent)
    return filename


def inline_assets(env: Environment) -> Assets:
    """The stylesheet and script every page holds inline, and the Content-Security-Policy that
    allows exactly them (the script by its hash, so an edited site.js is allowed as it is)."""
    script = render(env, "site.js")
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    csp = (
        "default-src 'none'; img-src data:; style-src 'unsafe-inline' 'self'; "
        f"script-src 'sha256-{digest}'; base-uri 'none'; form-action 'none'"
    )
    style = render(env, "style.css")
    return Assets(style=Markup(style), script=Markup(script), csp=csp)


def templates_digest(env: Environment) -> str:
    """A digest of every template the pages can use, overrides included."""
    digest = hashlib.sha256()
    loader = env.loader
    for name in sorted(env.list_templates()):
        assert loader is not None
        source, _filename, _uptodate = loader.get_source(env, name)
        digest.update(name.encode() + b"\0" + source.encode("utf-8"))
    return digest.hexdigest()

"""The run's first stage: everything read from the instance before anything is judged."""

from __future__ import annotations

import dataclasses
import difflib
import os
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from aeon_evals.articles.store import ArticleStore
from aeon_evals.cache.folder import Cache
from aeon_evals.checks.skill import scheduled
from aeon_evals.contracts import scope as scope_stage
from aeon_evals.contracts.instance import Contract, load_contracts
from aeon_evals.contracts.scope import Scope
from aeon_evals.contracts.vocab import load_vocabularies
from aeon_evals.errors import (
    ArticleNotOurs,
    ConfigError,
    EvalsError,
    NothingEvaluated,
    UsageError,
    os_reason,
)
from aeon_evals.fs.confine import read_confined
from aeon_evals.load import registry_cache
from aeon_evals.load.enabled import EnabledSince
from aeon_evals.load.layout import ARTICLE_DIRS, Layout
from aeon_evals.load.manifest import EVALS_PATH, Manifest, read_manifest
from aeon_evals.load.outputs import Outputs
from aeon_evals.load.registry import LLM_SKILL, Registry, load_registry
from aeon_evals.load.state import StateSources, load_state
from aeon_evals.load.switchover import llm_skill
from aeon_evals.model import ContractsMode, ParsedArticle, Status
from aeon_evals.model.problems import Severity
from aeon_evals.outcomes import Vocabulary, skill_headings
from aeon_evals.run.data import RunOptions
from aeon_evals.run.publish import ARTICLE_BYTES_PER_ROW, probe_writable
from aeon_evals.text.controls import show_name


@dataclass(frozen=True)
class Judging:
    """What judging the runs needs besides the results: each skill's outcome vocabulary, the
    headings its log entries start with (every registered skill's: where one skill's section
    ends depends on the others'), and the SKILL.md contracts of the evals.json skills (a spec
    that finds nothing is held against its skill's own contract, issue #32.7)."""

    by_skill: dict[str, Vocabulary]
    headings: dict[str, tuple[str, ...]]
    spec_contracts: dict[str, Contract] = field(default_factory=dict)


def load_manifest(opts: RunOptions, registry: Registry) -> Manifest | None:
    """evals.json validated, each problem at its line. None when the run must bootstrap: the
    instance still registers the LLM-run skill-evals (the layout it seeds: `skills/skill-evals/`)
    and its evals.json is missing or names no skill. Today's Aeon registers no skill-evals and
    has no evals.json: an empty manifest, and every enabled skill is evaluated on its SKILL.md
    contract (enforce, unless `--contracts` or evals.json's `contracts` says otherwise)."""
    manifest = read_manifest(opts.root, retry_delay=opts.retry_delay)
    if manifest is not None and manifest.skills:
        return manifest
    if LLM_SKILL in registry.skills:
        return None
    if manifest is None:  # (a folder with no registry at all stopped at load_registry)
        return Manifest(EVALS_PATH, {}, found=False)
    return manifest


def contracts_mode(manifest: Manifest, opts: RunOptions) -> ContractsMode:
    """`--contracts`, else evals.json's `contracts`, else report (enforce when evals.json names no
    skill). An unusable value in evals.json stops the run (exit 2) unless `--contracts` decides."""
    if opts.contracts is not None:
        return opts.contracts
    problem = manifest.contracts_problem
    if problem is not None:
        raise ConfigError(problem.message, path=manifest.path, where=problem.where)
    if manifest.contracts is not None:
        return manifest.contracts
    # with no evals.json spec, SKILL.md contracts are all there is to judge by: full citizens
    return ContractsMode.REPORT if manifest.skills else ContractsMode.ENFORCE


def load_warnings(manifest: Manifest, registry: Registry, state: StateSources) -> list[str]:
    """The loaders' warnings, in the article's order: evals.json, the registry, the state files."""
    return (
        [
            p.brief()
            + ("" if p.severity is Severity.WARNING else " (the skill is reported as ERROR)")
            for p in manifest.problems
        ]
        + list(registry.warnings)
        + list(state.warnings)
    )


@dataclass
class Loaded:
    """What the instance holds for this run: its registry and specs, the skills in scope (all,
    or --skill's), the state files, the past articles, and what loading had to say."""

    layout: Layout
    registry: Registry
    manifest: Manifest
    mode: ContractsMode
    outputs: Outputs
    whole: Scope  # every inferred contract, as a full run has them (Coverage line, Sources)
    inferred: Scope  # the inferred contracts this run evaluates (--skill narrows)
    scope: list[str]  # the evals.json skills this run evaluates
    state: StateSources
    store: ArticleStore
    prior: ParsedArticle | None
    article: str  # today's article, relative to the root
    warnings: list[str]  # the loaders' warnings, in the article's order
    later: list[str]  # the past articles' and the article guard's warnings (after the checks')
    notices: list[str]  # said on stderr, kept out of the article (the switch-over)
    parse: registry_cache.CachedParser
    judging: Judging  # each skill's outcome vocabulary and log headings (issue #32)
    known: frozenset[str]  # every skill the instance knows: registry, evals.json, cron, folders


def read_registry(opts: RunOptions, cache: Cache) -> tuple[Registry, registry_cache.CachedParser]:
    """aeon.yml (or the instance's renamed config) as last parsed when unchanged."""
    parse = registry_cache.CachedParser(cache)
    return load_registry(opts.root, _layout(opts).config, parse=parse), parse


def load(
    opts: RunOptions,
    cache: Cache,
    registry: Registry,
    parse: registry_cache.CachedParser,
    manifest: Manifest,
) -> Loaded:
    """Read what the run judges: the scope (evals.json's skills and the inferred contracts, or
    --skill's), cron-state and skill-health, the previous article. Stops before anything is
    written when today's article is not ours or cannot be written (ArticleNotOurs, WriteFailed),
    and when --skill names nothing to evaluate (NothingEvaluated)."""
    root, layout = opts.root, _layout(opts)
    mode = contracts_mode(manifest, opts)
    outputs = Outputs(root)
    whole = scope_stage.inferred_scope(
        root, mode, registry, manifest.skills, outputs, opts.now, cache=cache, specs=manifest.specs
    )
    inferred = whole if opts.skill is None else scope_stage.narrowed(whole, opts.skill)
    if opts.skill is not None:
        _known(opts.skill, root, registry, manifest)
    scope = in_scope(opts.skill, manifest, inferred)
    # The article folder is listed once, for the globs and the past articles.
    store = ArticleStore(
        root, names=outputs.names(layout.articles), dirs=layout.article_dirs, cache=cache
    )
    prior, prior_warnings = store.prior(opts.today)
    state = load_state(root, [*in_scope(None, manifest, whole), *whole.inferred])
    state = dataclasses.replace(
        state,
        listed=_listed(prior),
        prior_found=prior is not None and prior.own,
        judged=_judged(prior),
        enabled=EnabledSince(
            root, registry, outputs, opts.now, set(_never_dispatched(registry, state))
        ),
    )
    vocabularies = _vocabularies(
        root, registry, manifest, whole, [*scope, *inferred.inferred], cache
    )
    article = layout.article_rel(opts.today)
    guarded: list[str] = []
    _guard_article(opts, article, store, len(scope) + len(inferred.inferred), guarded)
    return Loaded(
        layout,
        registry,
        manifest,
        mode,
        outputs,
        whole,
        inferred,
        scope,
        state,
        store,
        prior,
        article,
        load_warnings(manifest, registry, state),
        [*guarded, *prior_warnings],
        [*switchover(root, layout, registry), *moved_specs(manifest, layout)],
        parse,
        vocabularies,
        frozenset(
            {*registry.skills, *manifest.skills, *state.cron, *(outputs.names("skills") or ())}
        ),
    )


def _layout(opts: RunOptions) -> Layout:
    assert opts.layout is not None  # run() detects it
    return opts.layout


def in_scope(skill: str | None, manifest: Manifest, inferred: Scope) -> list[str]:
    """The evals.json skills a run evaluates: all, or `skill`'s (--skill). A `skill` with no
    spec and no contract stops the run (NothingEvaluated)."""
    if skill == LLM_SKILL:
        raise NothingEvaluated(
            f"skill-evals: {LLM_SKILL} is not evaluated: its output is this tool's own article"
        )
    if skill is not None and skill not in {*manifest.skills, *inferred.inferred}:
        raise NothingEvaluated(f"skill-evals: {skill} has no spec — add an entry to evals.json")
    # an evals.json entry for Aeon's LLM-run skill-evals would grade this tool's own article
    # (a same-day rerun read the first run's): never evaluated, as the audit says
    return [s for s in manifest.skills if skill in (None, s) and s != LLM_SKILL]


def _known(skill: str, root: Path, registry: Registry, manifest: Manifest) -> None:
    """Raise UsageError (exit 2) when --skill names no skill of the instance (not in its config,
    evals.json or skills/), with the closest names: a typo is not "a skill without a spec"."""
    names = {*registry.skills, *manifest.skills}
    if skill in names:
        return
    try:
        with os.scandir(root / "skills") as entries:
            names |= {e.name for e in entries if e.is_dir(follow_symlinks=False)}
    except OSError:
        pass
    if skill in names:
        return
    close = difflib.get_close_matches(skill, sorted(names), n=3)
    hint = f"; did you mean {' or '.join(close)}?" if close else ""
    raise UsageError(f"--skill {show_name(skill)}: no such skill in this instance{hint}")


def _vocabularies(
    root: Path,
    registry: Registry,
    manifest: Manifest,
    whole: Scope,
    skills: list[str],
    cache: Cache,
) -> Judging:
    """The outcome vocabulary of each skill in scope (through the cache, evals.json's `outcomes`
    applied) and the headings the log entries of every registered skill start with: `### name`,
    and the log section its spec or contract names."""
    overrides = {s: manifest.specs[s].outcomes for s in skills if s in manifest.specs}
    by_skill = load_vocabularies(root, skills, cache, overrides)
    headings: dict[str, tuple[str, ...]] = {}
    for name in sorted({*registry.skills, *skills}):
        sections: list[str] = []
        spec = manifest.specs.get(name)
        if spec is not None:
            sections += [spec.section] if spec.section else []
        else:
            contract = whole.contracts.get(name)
            for output in contract.outputs if contract is not None else ():
                if output.spec.output_pattern.startswith("memory/logs/") and output.spec.section:
                    sections.append(output.spec.section)
        headings[name] = skill_headings(name, sections)
    # the SKILL.md contracts of the evals.json skills: a spec that finds nothing is held against
    # its skill's own contract (issue #32.7)
    spec_contracts = load_contracts(root, [s for s in skills if s in manifest.specs], cache)
    return Judging(by_skill, headings, spec_contracts)


def _never_dispatched(registry: Registry, state: StateSources) -> list[str]:
    """The enabled, cron-scheduled skills a cron-state that lists skills has never dispatched."""
    if not state.cron:
        return []
    return sorted(
        name
        for name, reg in registry.skills.items()
        if reg.enabled and name not in state.cron and scheduled(reg)
    )


def _listed(prior: ParsedArticle | None) -> dict[str, date]:
    """Skill -> the day of the previous article that listed it (it was enabled by then)."""
    if prior is None:
        return {}
    return {skill: prior.day for skill in (*prior.rows, *prior.inferred_rows)}


def _judged(prior: ParsedArticle | None) -> frozenset[str]:
    """The skills the previous article judged: listed with a status other than NOT_RUN. Without
    a previous article of this tool's (a first run, or the old LLM skill's articles, which list
    only evals.json's skills) nothing says a never-dispatched skill is new, so it is judged:
    aeonfun's morning-brief, in a chain whose dispatches fail, is a failure, not a skill whose
    first slot is still to come."""
    if prior is None:
        return frozenset()
    rows = (*prior.rows.values(), *prior.inferred_rows.values())
    return frozenset(row.skill for row in rows if row.status is not Status.NOT_RUN)


def _guard_article(
    opts: RunOptions, article: str, store: ArticleStore, rows: int, warnings: list[str]
) -> None:
    """Stop before anything is written when today's article is not ours (without --force) or
    cannot be written (a read-only folder, a full disk): issues and INDEX.md come first."""
    foreign = _not_ours(opts.root, article, store)
    if foreign is not None:
        if not opts.force and not opts.dry_run:
            raise ArticleNotOurs(
                f"{foreign}; not replaced. Disable the LLM skill (`aeon-evals init "
                "--disable-llm-skill`), then run again with --force to replace it",
                path=article,
            )
        if opts.dry_run and not opts.force:
            warnings.append(f"{article}: {foreign}; a real run stops here unless --force")
    if not opts.dry_run:
        probe_writable(opts.root, article, size=ARTICLE_BYTES_PER_ROW * rows + 8192)


def _not_ours(root: Path, rel: str, store: ArticleStore) -> str | None:
    """Why today's article at `rel` must not be replaced without --force: it exists and this tool
    did not write it (the old LLM skill did, or it is no article at all). None when it is ours
    or absent."""
    path = root / rel
    if not path.is_file():
        return None
    try:
        parsed = store.read(path)
    except (EvalsError, OSError, UnicodeError) as exc:
        reason = exc.message if isinstance(exc, EvalsError) else os_reason(exc)
        return f"it exists and is not an aeon-evals article ({reason})"
    if parsed.own:
        return None
    return "it exists and was not written by aeon-evals (the LLM-run skill-evals wrote it)"


def moved_specs(manifest: Manifest, layout: Layout) -> list[str]:
    """A notice when evals.json's specs name the article folder this instance left (upstream
    Aeon moved `articles/` to `output/articles/` in July 2026): the checks read both folders
    (load.outputs.article_twin), so the specs still judge the skills' new outputs; said so that
    the operator updates them."""
    moved_to, left = ARTICLE_DIRS
    if layout.articles != moved_to:  # not moved (or --articles-dir elsewhere)
        return []
    old = [
        s
        for s, spec in sorted(manifest.specs.items())
        if spec.output_pattern.startswith(f"{left}/")
    ]
    if not old:
        return []
    shown = ", ".join(old[:5]) + (f" and {len(old) - 5} more" if len(old) > 5 else "")
    return [
        f"{manifest.path}: {len(old)} spec{'s' * (len(old) != 1)} ({shown}) "
        f"name{'s' * (len(old) == 1)} {left}/ while this instance writes to {layout.articles}/: "
        f"both folders are read for them; change their output_pattern to {layout.articles}/… "
        "when convenient"
    ]


def switchover(root: Path, layout: Layout, registry: Registry) -> list[str]:
    """A warning while the registry still enables the LLM-run skill-evals (two writers)."""
    try:
        text = read_confined(root, layout.config).decode("utf-8", errors="replace")
    except (OSError, EvalsError):  # refused (a FIFO, /dev/zero, a link out): load_registry says so
        return []
    found = llm_skill(text, path=layout.config, registry=registry)
    return [found.warning()] if found else []

"""The run's writes at its edge: article, log section, dashboard, cache, card, notification."""

from __future__ import annotations

import contextlib
import errno
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from aeon_evals.articles.store import ArticleStore
from aeon_evals.errors import EvalsError, WriteFailed
from aeon_evals.fs import daylog
from aeon_evals.fs.confine import check_writable, read_confined, rel_path
from aeon_evals.fs.daylog import write_log_section
from aeon_evals.fs.write import atomic_write, os_error_line, write_error, write_if_changed
from aeon_evals.metrics import history as metrics
from aeon_evals.model.artifacts import Artifact, Fate, failed, skipped
from aeon_evals.report import render
from aeon_evals.run.data import RunOptions, RunOutcome
from aeon_evals.text.controls import escape_controls, has_controls

if TYPE_CHECKING:
    from datetime import datetime

    from aeon_evals.report.notify import NotifyResult

ARTICLE_BYTES_PER_ROW = 400  # a Full Results row and its share of the other tables, generously


def probe_writable(root: Path, rel: str, *, size: int) -> None:
    """Raise WriteFailed (one line: the file, the operation, the reason) unless a file of about
    `size` bytes can be written where `rel` goes: a read-only folder or a full disk is found
    before the run changes anything else."""
    path = root / rel
    check_writable(root, path, what="article")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".probe", dir=path.parent)
    except OSError as exc:
        raise WriteFailed(write_error(exc, path, root=root)) from None
    try:
        with os.fdopen(fd, "wb") as fh:
            if not _reserve(fh.fileno(), size):
                block = b"\0" * min(size, 1 << 20)
                left = size
                while left > 0:
                    fh.write(block[:left])
                    left -= len(block)
                fh.flush()
                os.fsync(fh.fileno())
    except OSError as exc:
        raise WriteFailed(write_error(exc, path, root=root)) from None
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def _reserve(fd: int, size: int) -> bool:
    """Have the file system allocate `size` bytes for `fd` (a full disk or a quota raises OSError
    here), without writing or syncing them; False where it cannot (no posix_fallocate, or a
    file system without it): the caller then writes the bytes."""
    if not hasattr(os, "posix_fallocate"):
        return False
    try:
        os.posix_fallocate(fd, 0, size)
    except OSError as exc:
        if exc.errno in (errno.EOPNOTSUPP, errno.EINVAL, errno.ENOSYS):
            return False
        raise
    return True


def publish(
    opts: RunOptions,
    outcome: RunOutcome,
    store: ArticleStore,
    *,
    written: Callable[[], None] | None = None,
) -> None:
    """The run's writes, in order: the article, the day's log section, the dashboard, the
    article cache, the dashboard card, then the notification. Each one's fate goes into
    `outcome`; only the article's failure stops the run (WriteFailed). `written` is called once
    the article is on disk (the issues written before it are then kept). A run stopped
    meanwhile (SIGTERM, Ctrl-C) stops the child rendering its article's body at once."""
    try:
        _publish(opts, outcome, store, written)
    except BaseException:
        store.stop()
        raise


def _publish(
    opts: RunOptions,
    outcome: RunOutcome,
    store: ArticleStore,
    written: Callable[[], None] | None,
) -> None:
    root = opts.root
    data = outcome.article
    assert data is not None and outcome.article_path is not None
    article = outcome.article_path
    laid_out = render.article(data)
    text = laid_out.text()
    # What the rows quote (a cron-state error, a file name, a pattern) may hold control
    # characters: shown escaped, never raw (a NUL would make the article "binary" next week).
    raw_controls = has_controls(text)
    text = escape_controls(text)
    path = root / article
    check_writable(root, path, what="article")
    raw = text.encode("utf-8")
    try:  # an identical article keeps its file and mtime
        unchanged = not write_if_changed(path, raw)
    except OSError as exc:
        raise WriteFailed(write_error(exc, path, root=root)) from None
    outcome.article_written = Artifact(Fate.UNCHANGED if unchanged else Fate.DONE, article)
    if written is not None:
        written()
    folder = opts.layout.articles if opts.layout is not None else "articles"
    try:  # the run's metrics beside the article, read back by later runs (docs/metrics.md)
        metrics.write_run(root, folder, opts.today, outcome.results, scoped=opts.skill is not None)
    except EvalsError as exc:
        outcome.warnings.append(exc.line())
    except OSError as exc:
        where = root / metrics.metrics_rel(folder, opts.today)
        outcome.warnings.append(f"{write_error(exc, where, root=root)}; metrics not recorded")
    if not raw_controls:  # else the parse kept would not be the file's: it is parsed when read
        # kept parsed without parsing its big table: the dashboard and tomorrow's run read it there
        store.remember(
            path,
            raw,
            lambda: laid_out.parsed(path=article),
            render=opts.site,
            body=lambda: render.article_body(laid_out),
        )
    else:
        store.remember(path, raw, render=opts.site)

    filed, closed = outcome.day_issues
    section = render.log_section(
        data,
        article=outcome.article_path,
        filed=[i.id for i in filed],
        closed=[i.id for i in closed],
    )
    log_rel = f"memory/logs/{opts.today.isoformat()}.md"
    try:
        write_log_section(root, log_rel, escape_controls(section), opts.today)
        outcome.log_written = Artifact(Fate.DONE, log_rel, daylog.SECTION)
    except (OSError, EvalsError) as exc:
        reason = (
            exc.message if isinstance(exc, EvalsError) else (exc.strerror or type(exc).__name__)
        )
        outcome.log_written = failed(exc.line() if isinstance(exc, EvalsError) else reason)
        outcome.warnings.append(f"{log_rel}: cannot write the log section: {reason}")

    if opts.site:
        try:
            from aeon_evals import site

            out = opts.site_out or root / "site"
            if opts.site_out is None:
                check_writable(root, out / "index.html", what="site")
            # the skill pages: the history this run read plus its own samples (a --skill run
            # keeps the other skills' lines of today's file: the site reads them back)
            history = (
                outcome.metrics.with_run(opts.today, outcome.results)
                if outcome.metrics is not None and opts.skill is None
                else None
            )
            built = site.build_site(
                root,
                out,
                now=opts.now,
                store=store,
                catalog=data.catalog,
                history=history,
                known=outcome.known,
                manifest=outcome.manifest,
            )
            outcome.site_written = Artifact(
                Fate.DONE,
                f"{rel_path(out, root)}/index.html",
                f"{len(built.written)} written, {len(built.unchanged)} unchanged{built.extra()}"
                f"{built.not_written()}",
            )
            outcome.warnings.extend(f"site: {line}" for line in built.failed)
        except EvalsError as exc:  # index.html could not be written (a read-only site/ …)
            outcome.site_written = failed(exc.line())
            outcome.warnings.append(f"site: {exc.line()}")
        except Exception as exc:  # the dashboard must never cost the operator the article
            why = (
                os_error_line(exc, root=root)
                if isinstance(exc, OSError)
                else f"{type(exc).__name__}: {exc}"
            )
            outcome.site_written = failed(why)
            outcome.warnings.append(f"site: {why}")
    else:
        outcome.site_written = skipped("--no-site")
    try:
        store.save()
    except OSError as exc:  # the cache is only a speed-up
        outcome.warnings.append(f"{write_error(exc, '.aeon-evals/cache')}; cache not saved")
    _write_card(opts, outcome, data)

    if not opts.notify:
        outcome.notified = skipped("--no-notify", verb="sent")
    elif not outcome.verdict.notifies:
        outcome.notified = skipped(f"{outcome.verdict.value}: nothing changed", verb="sent")
    else:
        from aeon_evals.report import message  # only a night that changed something notifies

        found = message.links(os.environ, article=outcome.article_path, day=str(opts.today))
        _notify(opts, outcome, message.notify_body(data, article=outcome.article_path, links=found))


def _notify(opts: RunOptions, outcome: RunOutcome, body: str) -> None:
    """Send `body` unless this very body was sent for this day already (notify state, not the
    article, decides: a rerun after --no-notify or a failed notifier sends once)."""
    from aeon_evals.report import notify as notifier  # only a night that changed something notifies

    root = opts.root
    state, problem = notifier.read_state(root)
    if problem:
        outcome.warnings.append(problem)
    earlier = notifier.already_sent(state, opts.today, body)
    if earlier is not None:
        outcome.notified = skipped(f"already sent for {earlier.day} at {earlier.at}", verb="sent")
        return
    sent = notifier.notify(root, opts.notify_cmd, body, timeout=opts.notify_timeout)
    outcome.notified = notified(sent)
    outcome.notify_stderr = sent.stderr
    if not sent.sent:
        outcome.warnings.append(f"notify: {sent.message}")
        return
    try:
        notifier.record_sent(root, state, opts.today, body, opts.now)
    except OSError as exc:
        outcome.warnings.append(
            f"{notifier.STATE_PATH}: cannot record the notification ({exc.strerror or exc}); "
            "a rerun today will send it again"
        )


def notified(sent: NotifyResult) -> Artifact:
    """The notification's fate, in the notifier's own words."""
    return Artifact(Fate.DONE if sent.sent else Fate.FAILED, verb="sent", said=sent.message)


def _same_card(root: Path, folder: str, now: datetime, data: bytes) -> str | None:
    """The feed file (relative to `root`) that holds this card's result, written earlier the same
    UTC day, or None (`card.same_result`: an output's age moving on is no new result). A card
    that cannot be read is taken as different: a second card is better than a lost one."""
    from aeon_evals.report import card

    try:
        with os.scandir(root / folder) as entries:
            names = sorted(e.name for e in entries if card.same_day(e.name, now))
    except OSError:
        return None
    for name in names:
        try:
            found = read_confined(root, f"{folder}/{name}", cap=4 * len(data) + 4096)
        except (OSError, EvalsError):
            continue
        if card.same_result(found, data):
            return f"{folder}/{name}"
    return None


def _write_card(opts: RunOptions, outcome: RunOutcome, data: render.ArticleData) -> None:
    """One json-render card per run into the instance's dashboard feed, when it has one."""
    assert opts.layout is not None  # pipeline.run detects it
    folder = opts.layout.dashboard
    if folder is None or outcome.article_path is None:
        return
    from aeon_evals.report import card  # an instance without a dashboard feed never needs it

    rel = f"{folder}/{card.card_name(opts.now)}"
    try:
        path = opts.root / rel
        check_writable(opts.root, path, what="dashboard card")
        text = card.render_card(card.build_card(data, article=outcome.article_path))
        # A rerun with the same result the same day keeps that day's card: one card per result.
        same = _same_card(opts.root, folder, opts.now, text.encode("utf-8"))
        if same is not None:
            outcome.card_written = Artifact(Fate.UNCHANGED, where=same)
            return
        atomic_write(path, text)
        outcome.card_written = Artifact(Fate.DONE, where=rel)
    except (OSError, EvalsError) as exc:
        reason = (
            exc.message if isinstance(exc, EvalsError) else (exc.strerror or type(exc).__name__)
        )
        outcome.card_written = failed(reason)
        outcome.warnings.append(f"{rel}: cannot write the dashboard card: {reason}")

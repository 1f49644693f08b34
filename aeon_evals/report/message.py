"""The notification's text: what changed first (the verdict, the new failures with their cause in
a few words, what was fixed), then the top action and links to the article and the dashboard,
within a chat message's limit. Pure: `run/publish.py` sends it (report/notify.py)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import quote

from aeon_evals.report.diff import Row
from aeon_evals.report.render import ArticleData, no_actions, pct_text
from aeon_evals.text.controls import one_line, show_name

# Discord refuses a message over 2,000 characters, Telegram one over 4,096: a notifier may send
# to either (Aeon's sends to every channel configured), so the smaller is the limit.
MAX_CHARS = 2000
MAX_LINE = 240  # one listed skill's line, its cause cut with "…"
SITE_URL_ENV = "AEON_EVALS_SITE_URL"


@dataclass(frozen=True)
class Links:
    """Where the operator can open the article and the dashboard, when that is known."""

    article: str | None = None  # a URL
    dashboard: str | None = None  # a URL: the dashboard, or on Actions without one the run
    dashboard_name: str = "Dashboard"  # "Dashboard" or "Run"


def blob_url(env: Mapping[str, str], path: str) -> str | None:
    """`$GITHUB_SERVER_URL/$GITHUB_REPOSITORY/blob/<ref>/<path>`, or None outside Actions.

    The ref is `$AEON_EVALS_ARTICLE_REF` when set (the workflow sets the branch: the article
    is committed after the run, so it is not in `$GITHUB_SHA` yet), else `$GITHUB_SHA`."""
    server = env.get("GITHUB_SERVER_URL")
    repo = env.get("GITHUB_REPOSITORY")
    ref = env.get("AEON_EVALS_ARTICLE_REF") or env.get("GITHUB_SHA")
    if not (server and repo and ref):
        return None
    return f"{server.rstrip('/')}/{repo}/blob/{quote(ref, safe='/')}/{quote(path, safe='/')}"


def links(env: Mapping[str, str], *, article: str, day: str) -> Links:
    """The links from the environment: `$AEON_EVALS_SITE_URL` (where the site/ folder is served,
    e.g. `https://owner.github.io/repo/`) gives the dashboard, and its run page when nothing
    better shows the article; on GitHub Actions the article is its file on the branch
    (`$AEON_EVALS_ARTICLE_REF`, else `$GITHUB_SHA`) and, without a site URL, the run's page
    (`$GITHUB_RUN_ID`) stands for the dashboard. Anything else: no links (a repository path is
    no link)."""
    site = env.get(SITE_URL_ENV, "").strip()
    site = site if site.startswith(("https://", "http://")) and " " not in site else ""
    site = site if not site or site.endswith("/") else site + "/"
    server = env.get("GITHUB_SERVER_URL", "").rstrip("/")
    repo = env.get("GITHUB_REPOSITORY", "")
    run_id = env.get("GITHUB_RUN_ID")
    blob = blob_url(env, article)
    if site:
        # the run's page of the dashboard (site/views.py names it runs/skill-evals-DATE.html)
        return Links(blob or f"{site}runs/skill-evals-{day}.html", site)
    run = f"{server}/{repo}/actions/runs/{quote(run_id)}" if server and repo and run_id else None
    return Links(blob, run, "Run") if run else Links(blob)


def notify_body(data: ArticleData, *, article: str, links: Links | None = None) -> str:
    """SPEC §8's body, leading with what changed: the verdict and counts, the new failures (each
    with its cause in a few words, and its issue), what was fixed, skills that got worse, then
    the top action and the links. At most MAX_CHARS characters: the lists are cut first, each
    with "… and N more"."""
    n = data.numbers
    by_skill = {r.skill: r for r in data.rows}
    head = [
        f"*Skill Evals — {n.verdict.value}*",
        f"{n.counts.new_fail} new fail · {n.counts.fixed} fixed · coverage "
        f"{pct_text(n.coverage.pct)}%",
        # one cause behind many failures (issue #32): said before the failures it explains
        *(f"Fleet: {_cut(one_line(f, tabs=True))}" for f in data.fleet),
    ]
    new = [_failure(by_skill[s]) for s in n.regressions]
    fixed = [_fixed(by_skill[s]) for s in n.recovered]
    worse = [_worse(by_skill[s]) for s in n.worse]
    tail = [
        f"Top action: {one_line(n.actions[0], tabs=True) if n.actions else no_actions(n.verdict)}"
    ]
    found = links or Links()
    if found.article:
        tail.append(f"Article: {found.article}")
    else:
        tail.append(f"Article in the repository: {one_line(article)}")
    if found.dashboard:
        tail.append(f"{found.dashboard_name}: {found.dashboard}")
    lists = [("New failures:", new), ("Fixed:", fixed), ("Worse:", worse)]
    return _fit(head, lists, tail)


def _cut(text: str, limit: int = MAX_LINE) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _failure(row: Row) -> str:
    """`• heartbeat — forbidden `${var}` at memory/logs/…:652 (3 hits, …) (ISS-018)`."""
    result = row.result
    if result is not None and result.head is not None:
        cause = result.head.brief
    else:  # a row a scoped run kept from today's article: its cause as written
        cause = row.kept_cause or (row.kept.root_cause if row.kept else "—")
    issue = f" ({row.issue})" if row.issue else ""
    return _cut(f"• {show_name(row.skill)} — {one_line(cause, tabs=True)}") + issue


def _fixed(row: Row) -> str:
    was = row.previous.status.value if row.previous is not None else None
    return _cut(f"• {show_name(row.skill)}" + (f" (was {was})" if was else ""))


def _worse(row: Row) -> str:
    before = row.previous.status.value if row.previous else "?"
    return _cut(f"• {show_name(row.skill)} {before}→{row.status}")


def _size(text: str) -> int:
    """Characters as the chat services count them (UTF-16 units: an emoji is two)."""
    return len(text.encode("utf-16-le")) // 2


def _fit(head: list[str], lists: list[tuple[str, list[str]]], tail: list[str]) -> str:
    """The body within MAX_CHARS: every list whole when it fits, else the longest list cut by
    one item at a time ("… and N more"); the head and the tail are always kept (cut last)."""
    shown = [len(items) for _, items in lists]

    def render() -> str:
        lines = list(head)
        for (title, items), keep in zip(lists, shown, strict=True):
            if not items:
                continue
            lines.append(title)
            lines += items[:keep]
            if keep < len(items):
                lines.append(f"… and {len(items) - keep} more")
        return "\n".join([*lines, *tail])

    body = render()
    while _size(body) > MAX_CHARS and any(shown):
        longest = max(range(len(shown)), key=lambda i: shown[i])
        shown[longest] -= 1
        body = render()
    while _size(body) > MAX_CHARS:  # the head and the tail alone are too long: cut the end
        body = body[: MAX_CHARS - 1 - (_size(body) - MAX_CHARS)].rstrip() + "…"
    return body

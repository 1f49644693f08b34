"""The dashboard fits the screen and says what broke (issue 34), in real headless Chromium from
file:// at a laptop's 1400 px and a phone's 390 px, on the demo and on copies of every whole real
instance (each run by the tool with --now pinned to its snapshot, which builds its site).

On the index and on the skill pages of every failing skill (and a few passing ones): no page
scrolls sideways, no table cell overflows its table or the screen (the skills × runs grids
scroll inside their card by design: the skill column and the newest run stay in view), no skill
name is broken over two lines, y labels stay inside their chart, charts have one size; a
failing skill's page leads with the article's expected-vs-actual detail; every chart draws the
bounds its metric is checked against; a chart's "latest" is the newest metrics file's value.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from realdata import realdata
from test_site_browser import Page, browser  # noqa: F401  (the shared fixture)

from aeon_evals.articles.parse import parse_article
from aeon_evals.cli import main
from aeon_evals.load.manifest import parse_manifest
from aeon_evals.metrics.file import parse_tsv
from aeon_evals.model import ParsedArticle
from aeon_evals.site.findings import split_cause
from aeon_evals.site.views import FOLD_SKILLS

pytestmark = pytest.mark.browser

WIDTHS = (1400, 390)
DEMO_NOW = "2026-12-17T06:00:00Z"
PASSING_PAGES = 4  # passing skills' pages looked at per instance (failing ones: all of them)


@dataclass(frozen=True)
class Built:
    """One instance the tool has run on: its root, site and newest article and metrics."""

    name: str
    root: Path
    article: ParsedArticle
    metrics: dict[str, Any]  # skill -> its sample in the newest metrics file
    metrics_day: date
    specs: dict[str, Any]  # skill -> validated Spec

    @property
    def site(self) -> Path:
        return self.root / "site"


def _run(root: Path, now: str) -> None:
    argv = ["run", "--root", str(root), "--now", now, "--no-notify"]
    code = main(argv)
    if code == 3:  # no evals.json: the first run wrote a starter spec, the second evaluates
        code = main(argv)
    assert code == 0, (root, code)


def _newest(root: Path, pattern: str) -> Path:
    found = sorted(
        [*root.glob(f"articles/{pattern}"), *root.glob(f"output/articles/{pattern}")],
        key=lambda p: p.name,
    )
    assert found, (root, pattern)
    return found[-1]


def _built(name: str, root: Path) -> Built:
    path = _newest(root, "skill-evals-20??-??-??.md")
    day = date.fromisoformat(path.stem.removeprefix("skill-evals-"))
    article = parse_article(path.read_text(), path=str(path.relative_to(root)), day=day)
    tsv = _newest(root, "skill-evals-metrics-*.tsv")
    metrics_day = date.fromisoformat(tsv.stem.removeprefix("skill-evals-metrics-"))
    metrics = dict(parse_tsv(tsv.read_text(), day=metrics_day, path=tsv.name))
    evals = root / "skills/skill-evals/evals.json"
    specs = parse_manifest(json.loads(evals.read_text())).specs if evals.is_file() else {}
    return Built(name, root, article, metrics, metrics_day, specs)


def _instances() -> list[str]:
    try:
        folder = realdata() / "instances"
    except pytest.skip.Exception:
        return ["demo"]
    return ["demo", *sorted(p.name for p in folder.iterdir() if "@" in p.name)]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Built]]:
    out: dict[str, Built] = {}
    base = tmp_path_factory.mktemp("fit")
    assert main(["demo", str(base / "demo"), "--now", DEMO_NOW]) == 0
    out["demo"] = _built("demo", base / "demo")
    for name in _instances()[1:]:
        root = base / name
        shutil.copytree(realdata() / "instances" / name, root)
        _run(root, f"{name.split('@')[1]}T23:00:00Z")
        out[name] = _built(name, root)
    yield out


# Everything measured in the page, as a list of problems (empty: it fits).
MEASURE = """
() => {
  const vw = document.documentElement.clientWidth;
  const bad = [];
  const where = (el) => (el.closest('[id]') || {}).id + ' ' + el.tagName.toLowerCase() + ' "'
    + el.textContent.trim().replace(/\\s+/g, ' ').slice(0, 60) + '"';
  if (document.documentElement.scrollWidth > vw) {
    bad.push('the page scrolls sideways: ' + document.documentElement.scrollWidth + ' > ' + vw);
  }
  for (const table of document.querySelectorAll('table')) {
    const box = table.getBoundingClientRect();
    if (table.classList.contains('grid')) {
      // the skills x runs grids scroll in their card: their skill column and newest run show
      const first = table.querySelector('tbody tr');
      if (first) {
        for (const cell of [first.cells[0], first.cells[1]]) {
          if (cell && cell.getBoundingClientRect().right > vw) {
            bad.push('grid: off screen ' + where(cell));
          }
        }
      }
      continue;
    }
    if (box.right > vw + 0.5 || box.left < -0.5) bad.push('table off screen: ' + where(table));
    const scroller = table.closest('.scroll');
    if (scroller && scroller.scrollWidth > scroller.clientWidth + 1) {
      bad.push('table scrolls sideways: ' + where(table));
    }
    for (const cell of table.querySelectorAll('th, td')) {
      const head = cell.closest('thead');
      if (head && head.getBoundingClientRect().width <= 1) continue;  // a phone's hidden head
      const r = cell.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue;  // a cell hidden on a phone
      if (r.right > box.right + 0.5 || r.left < box.left - 0.5 || r.right > vw + 0.5) {
        bad.push('cell out of its table: ' + where(cell));
      }
      if (cell.scrollWidth > cell.clientWidth + 1) {
        bad.push('cell content overflows: ' + where(cell));
      }
    }
  }
  for (const name of document.querySelectorAll('span.name, th.name > a, .grid th.skill > a')) {
    // one line: every box of it on one line (an ellipsis makes several boxes on that line)
    if (new Set([...name.getClientRects()].map((r) => Math.round(r.top))).size > 1) {
      bad.push('a skill name broken over lines: ' + where(name));
    }
  }
  const widths = new Set();
  for (const svg of document.querySelectorAll('.chart svg')) {
    const s = svg.getBoundingClientRect();
    widths.add(Math.round(s.width));
    if (s.width > 480.5 || s.right > vw) bad.push('chart too wide: ' + where(svg) + ' ' + s.width);
    for (const label of svg.querySelectorAll('text.ylabel')) {
      const r = label.getBoundingClientRect();
      if (r.left < s.left - 0.5) bad.push('y label clipped: ' + where(label));
    }
  }
  if (widths.size > 1) bad.push('charts of several sizes: ' + [...widths].join(', '));
  return bad;
}
"""


def _text(page: Any, selector: str) -> str:
    return " ".join(page.inner_text(selector).split())


def _pages(b: Built) -> tuple[list[str], list[str]]:
    """The failing skills of the newest article that have a page, and a few passing ones."""
    rows = {**b.article.inferred_rows, **b.article.rows}
    have = {p.stem for p in (b.site / "skills").glob("*.html")}
    failing = sorted(s for s, row in rows.items() if row.status.failing and s in have)
    passing = sorted(s for s, row in rows.items() if row.status.value == "PASS" and s in have)
    return failing, passing[:PASSING_PAGES]


def _bounds(b: Built, skill: str) -> dict[str, list[str]]:
    """What each chart of `skill` must draw: {chart caption: [limit labels]}."""
    spec = b.specs.get(skill)
    wanted: dict[str, list[str]] = {"Quality (skill-health avg_score)": ["minimum 2.5"]}
    if spec is None:
        return wanted
    if spec.min_words > 0:
        wanted["Words"] = [f"minimum {spec.min_words:,}"]
    for check in spec.numeric_checks:
        labels = []
        if check.min is not None:
            labels.append("minimum " + re.sub(r"\.0$", "", f"{check.min:,}"))
        if check.max is not None:
            labels.append("maximum " + re.sub(r"\.0$", "", f"{check.max:,}"))
        if labels:
            wanted[check.label] = labels
    return wanted


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", _instances())
def test_the_dashboard_fits_and_says_what_broke(
    browser: Any,  # noqa: F811
    built: dict[str, Built],
    name: str,
    width: int,
) -> None:
    b = built[name]
    problems: list[str] = []
    checked: list[str] = []  # what was compared, to show the checks ran
    view = Page(browser, (b.site / "index.html").as_uri(), viewport={"width": width, "height": 900})
    page = view.page
    problems += [f"index.html: {p}" for p in page.evaluate(MEASURE)]
    # the skills table shows each row's status and label as the article wrote them
    for row in page.locator("#skills tbody tr[data-skill]").all():
        skill = row.get_attribute("data-skill") or ""
        article_row = b.article.rows[skill]
        cells = " ".join(row.inner_text().split())
        if f" {article_row.status.value} " not in f" {cells} " or article_row.diff not in cells:
            problems.append(f"index.html: {skill} reads {cells!r}, the article {article_row}")
    # an issue naming many skills shows them folded, with their count
    for cell in page.locator("#issues td.names").all():
        names = cell.locator(".name").count()
        if names > FOLD_SKILLS:
            summary = cell.locator("details > summary")
            if summary.count() != 1 or summary.inner_text() != f"{names} skills":
                problems.append(f"index.html: {names} skills not folded")
            elif cell.locator("details").get_attribute("open") is not None:
                problems.append("index.html: a folded list is open")
    view.assert_clean()
    view.close()
    # the newest run page: the article's tables within the screen (one block per row on a phone)
    rel = f"runs/skill-evals-{b.article.day.isoformat()}.html"
    view = Page(browser, (b.site / rel).as_uri(), viewport={"width": width, "height": 900})
    problems += [f"{rel}: {p}" for p in view.page.evaluate(MEASURE)]
    checked.append(f"{rel}: {view.page.locator('.article td').count()} cells")
    view.assert_clean()
    view.close()

    failing, passing = _pages(b)
    for skill in [*failing, *passing]:
        rel = f"skills/{skill}.html"
        view = Page(browser, (b.site / rel).as_uri(), viewport={"width": width, "height": 900})
        page = view.page
        problems += [f"{rel}: {p}" for p in page.evaluate(MEASURE)]
        lead = _text(page, "#finding")
        row = b.article.rows.get(skill) or b.article.inferred_rows[skill]
        if f"{row.status.value} {row.diff}" not in lead:
            problems.append(f"{rel}: the lead {lead!r} does not read {row.status} {row.diff}")
        if row.status.failing:
            codes, detail = split_cause(b.article.causes.get(skill, row.root_cause))
            expected = (detail or codes).replace("`", "")
            checked.append(f"{skill}: {expected}")
            # (code spans show without their backticks; a quote cut inside one keeps a lone one)
            if " ".join(expected.split()) not in lead.replace("`", ""):
                problems.append(f"{rel}: the lead {lead!r} lacks {expected!r}")
            if not detail:  # counted or apart (disabled, unregistered, muted, reported only)
                problems.append(f"{rel}: the article gives no expected-vs-actual for {skill}")
        figures = {
            " ".join(f.locator("figcaption").inner_text().split()): f
            for f in page.locator("#metrics figure").all()
        }
        for caption, labels in _bounds(b, skill).items():
            figure = figures.get(caption)
            if figure is None:
                continue
            drawn = [
                " ".join(t.split()) for t in figure.locator("text.limit-label").all_text_contents()
            ]
            lines = figure.locator("line.limit").count()
            for label in labels:
                checked.append(f"{skill}: {caption} {label}")
                if not any(d.startswith(label) for d in drawn):
                    problems.append(f"{rel}: {caption} does not draw {label} ({drawn})")
            if lines != sum(1 for d in drawn if not d.endswith("↑")):
                problems.append(f"{rel}: {caption}: {lines} bound lines for labels {drawn}")
        sample = b.metrics.get(skill)
        words = figures.get("Words")
        if sample is not None and sample.words is not None and words is not None:
            summary = " ".join(words.locator("p.summary").inner_text().split())
            latest = f"latest {sample.words:,} on {b.metrics_day}"
            checked.append(f"{skill}: {latest}")
            if latest not in summary:
                problems.append(f"{rel}: Words reads {summary!r}, the metrics file {latest}")
        view.assert_clean()
        view.close()
    assert problems == [], "\n".join(problems)
    if name == "demo":  # the issue's own examples were among the checks
        assert {
            "cost-report: 107 words, minimum 200",
            "cost-report: Words minimum 200",
            "cost-report: dollar amount maximum 100,000",
            "weekly-digest: latest 172 on 2026-12-17",
        } <= set(checked), checked

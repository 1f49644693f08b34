"""The dashboard in a real headless Chromium, opened from file:// (issue #5).

Skipped when Chromium or playwright is missing, except under CI=true, where that is a failure.
Never runs `playwright install`: it drives the system's /usr/bin/chromium.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_site import HISTORY, ISSUES, NOW, write_history

from aeon_evals import site

pytestmark = pytest.mark.browser

CHROMIUM = os.environ.get("AEON_EVALS_CHROMIUM", "/usr/bin/chromium")
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ARTIFACTS = Path(__file__).parent / "artifacts"
HOSTILE = "<img src=x onerror=alert(1)>"


def _unavailable(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"browser tests need {reason} under CI", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("the playwright package")
    if not (Path(CHROMIUM).is_file() or shutil.which(CHROMIUM)):
        _unavailable(f"Chromium at {CHROMIUM}")
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture(scope="module")
def dashboard(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("browser")
    history = dict(HISTORY)
    # a hostile root cause: it must show as text and never run
    history["2026-08-16"] = history["2026-08-16"].replace(
        "| digest | STALE | WORSE | stale_file |", f"| digest | STALE | WORSE | {HOSTILE} |"
    )
    write_history(root, history, ISSUES)
    site.build_site(root, root / "site", now=NOW)
    return root / "site" / "index.html"


class Page:
    """A page opened from file:// that records console errors, dialogs and every request."""

    def __init__(self, browser: Any, url: str, **context: Any) -> None:
        self.context = browser.new_context(**context)
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.dialogs: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("request", lambda r: self.requests.append(r.url))

        def dialog(d: Any) -> None:
            self.dialogs.append(d.message)
            d.dismiss()

        self.page.on("dialog", dialog)
        self.page.goto(url, wait_until="load")

    def assert_clean(self) -> None:
        assert self.errors == []
        assert self.dialogs == []
        assert self.requests and all(u.startswith("file://") for u in self.requests), self.requests

    def close(self) -> None:
        self.context.close()


def test_dashboard_renders_offline(browser: Any, dashboard: Path) -> None:
    view = Page(browser, dashboard.as_uri(), viewport={"width": 1280, "height": 900})
    page = view.page
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "dashboard.png"), full_page=True)

    assert page.inner_text("#verdict") == "SKILL_EVALS_RECOVERED"
    cell = page.locator('#grid tr[data-skill="polymarket"] a.cell').first
    assert cell.get_attribute("href") == "runs/skill-evals-2026-08-16.html"
    assert cell.get_attribute("title").startswith("polymarket — 2026-08-16: NO_OUTPUT")
    assert cell.inner_text() == "∅"
    hostile = page.locator('#grid tr[data-skill="digest"] a.cell').first.get_attribute("title")
    assert HOSTILE in hostile  # shown as text, not parsed as a tag
    # each cell's link, title and label come from the page's grid data (one block, not 12,000
    # repeated attributes)
    assert hostile == f"digest — 2026-08-16: STALE\ndiff: WORSE\nroot cause: {HOSTILE}"
    digest = page.locator('#grid tr[data-skill="digest"] a.cell')
    assert digest.nth(1).get_attribute("title") == "digest — 2026-08-09: PASS\ndiff: FIXED"
    assert digest.nth(1).get_attribute("aria-label") == digest.nth(1).get_attribute("title")
    assert digest.nth(2).get_attribute("href") == "runs/skill-evals-2026-08-02.html"
    assert page.locator("#skills").inner_text().count(HOSTILE) == 1
    assert page.locator("img").count() == 0
    assert page.locator("#trends svg").count() == 2
    assert page.locator("#trends svg path.marker").count() == 6
    assert page.locator("#filter-box").is_visible()  # JS on: the filter shows
    view.assert_clean()
    view.close()


def test_filter_box_filters_both_tables(browser: Any, dashboard: Path) -> None:
    view = Page(browser, dashboard.as_uri())
    page = view.page
    page.fill("#skill-filter", "poly")
    assert page.locator("#grid tbody tr:visible").count() == 1
    assert page.locator("#skills tbody tr:visible").count() == 1
    assert page.inner_text("#filter-count") == "1 of 4 skills"
    page.fill("#skill-filter", "")
    assert page.locator("#grid tbody tr:visible").count() == 4
    view.assert_clean()
    view.close()


def test_phone_width_has_no_page_level_horizontal_scroll(browser: Any, dashboard: Path) -> None:
    view = Page(browser, dashboard.as_uri(), viewport={"width": 390, "height": 844})
    page = view.page
    page.screenshot(path=str(ARTIFACTS / "dashboard-phone.png"), full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert page.locator("#verdict").is_visible()
    assert page.locator("#trends svg").first.bounding_box()["width"] <= 390
    view.assert_clean()
    view.close()


def test_content_is_all_there_without_javascript(browser: Any, dashboard: Path) -> None:
    view = Page(browser, dashboard.as_uri(), java_script_enabled=False, color_scheme="dark")
    page = view.page
    page.screenshot(path=str(ARTIFACTS / "dashboard-nojs-dark.png"), full_page=True)
    assert page.inner_text("#verdict") == "SKILL_EVALS_RECOVERED"
    assert page.locator("#grid tbody tr:visible").count() == 4
    assert page.locator("#skills tbody tr:visible").count() == 4
    # the grid still reads: each cell's status as its glyph and colour
    cell = page.locator('#grid tr[data-skill="polymarket"] a.cell').first
    assert cell.inner_text() == "∅" and "s-no-output" in (cell.get_attribute("class") or "")
    assert page.locator("#trends svg").count() == 2
    assert not page.locator("#filter-box").is_visible()  # nothing that needs JS is offered
    view.assert_clean()
    view.close()


def test_run_page_and_links(browser: Any, dashboard: Path) -> None:
    view = Page(browser, dashboard.as_uri())
    page = view.page
    page.click('#runs a[href="runs/skill-evals-2026-08-09.html"]')
    page.wait_for_load_state()
    assert page.url.endswith("/runs/skill-evals-2026-08-09.html")
    assert page.locator("article h1").inner_text() == "Skill Evals — 2026-08-09"
    assert page.locator("article table").count() == 4
    page.click("a[rel=next]")
    page.wait_for_load_state()
    assert page.url.endswith("/runs/skill-evals-2026-08-16.html")
    assert HOSTILE in page.locator("article").inner_text()
    view.assert_clean()
    view.close()

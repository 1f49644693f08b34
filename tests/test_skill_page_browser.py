"""A skill page in headless Chromium from file:// (issue 18): strip, charts, links, dark, phone."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import Instance
from test_site_browser import ARTIFACTS, Page, browser  # noqa: F401  (the shared fixture)
from test_skill_pages import ten_weeks

from aeon_evals.cli import main

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def skill_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    inst = Instance(tmp_path_factory.mktemp("skillpage") / "instance")

    def cli(*argv: str) -> tuple[int, str, str]:
        return main(list(argv)), "", ""

    ten_weeks(inst, cli)
    return inst.root / "site" / "skills" / "cost-report.html"


def test_skill_page_strip_charts_and_links(browser: Any, skill_page: Path) -> None:  # noqa: F811
    view = Page(browser, skill_page.as_uri(), viewport={"width": 1280, "height": 900})
    page = view.page
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "skill-page.png"), full_page=True)
    ticks = page.locator("#strip a.tick")
    assert ticks.count() == 10
    assert ticks.last.get_attribute("title") == "2026-05-04 · WARN · drift:words · run: ok"
    # a tick's title is its accessible name: a screen reader says what the hover shows
    named = page.get_by_role("link", name="2026-05-04 · WARN · drift:words · run: ok", exact=True)
    assert named.count() == 1 and named.get_attribute("class") == "tick s-warn"
    assert page.locator("#metrics svg").count() == 2
    assert page.locator("#metrics svg line.step.worse").count() == 1
    assert page.locator("#metrics svg rect.band").count() == 1
    assert page.locator("#outputs tbody tr").count() == 10
    assert page.locator("img").count() == 0
    # every link on the page leads to a file that exists
    for href in page.eval_on_selector_all("a[href]", "els => els.map(e => e.href)"):
        assert href.startswith("file://"), href
        assert Path(href.removeprefix("file://").split("#")[0]).exists(), href
    ticks.last.click()
    page.wait_for_load_state()
    assert page.url.endswith("/runs/skill-evals-2026-05-04.html")
    page.go_back()
    page.click("text=← Dashboard")
    page.wait_for_load_state()
    page.click('#grid a[href="skills/cost-report.html"]')
    page.wait_for_load_state()
    assert page.url == skill_page.as_uri()
    view.assert_clean()
    view.close()


def test_skill_page_dark_phone_and_without_javascript(
    browser: Any,  # noqa: F811
    skill_page: Path,
) -> None:
    view = Page(
        browser,
        skill_page.as_uri(),
        viewport={"width": 390, "height": 844},
        color_scheme="dark",
        java_script_enabled=False,
    )
    page = view.page
    page.screenshot(path=str(ARTIFACTS / "skill-page-phone-dark.png"), full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert background == "rgb(14, 17, 23)"  # the dark palette's --bg
    assert page.locator("#strip a.tick").count() == 10
    for box in (page.locator("#metrics svg").nth(i).bounding_box() for i in range(2)):
        assert box is not None and box["width"] <= 390
    assert page.locator("#spec pre").is_visible()
    view.assert_clean()
    view.close()

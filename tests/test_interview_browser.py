"""Interview pages in a real browser: the "Copy link" buttons and the printed summary.

Chromium is Debian's (`apt-get install -y chromium`, or CHROME_PATH); without it these
tests are skipped, except under CI (CI=true), where they fail instead.
"""

from __future__ import annotations

import mimetypes
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlsplit

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page, Route

CHROMIUM = Path(os.environ.get("CHROME_PATH", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
QUESTION = "interview/what-is-backpropagation/"


def _missing() -> str | None:
    if not CHROMIUM.exists():
        return f"{CHROMIUM} not found (apt-get install -y chromium, or set CHROME_PATH)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright is not installed: pip install -e '.[test]'"
    return None


pytestmark = pytest.mark.skipif(
    _missing() is not None and os.environ.get("CI", "").lower() != "true",
    reason=f"browser tests skipped: {_missing()}",
)


@pytest.fixture(scope="module")
def site_url(built_site: Path) -> str:
    """The site's own address (site_url): Material's instant navigation only works there."""
    home = (built_site / "index.html").read_text(encoding="utf-8")
    match = re.search(r'<link rel="canonical" href="(?P<url>[^"]+)"', home)
    assert match, "the home page has no canonical address (site_url)"
    return match["url"]


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    reason = _missing()
    if reason:
        pytest.fail(f"CI=true and the browser tests cannot run: {reason}", pytrace=False)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Browser, built_site: Path, site_url: str) -> Iterator[Page]:
    """A page whose requests to the site's address are answered from the built site;
    every other request is refused, so nothing leaves the machine."""

    def serve(route: Route) -> None:
        path = urlsplit(route.request.url).path.removeprefix(urlsplit(site_url).path)
        file = built_site / unquote(path)
        file = file / "index.html" if file.is_dir() else file
        if not file.is_file():
            route.fulfill(status=404, body="not found")
            return
        kind = mimetypes.guess_type(file.name)[0] or "application/octet-stream"
        route.fulfill(status=200, body=file.read_bytes(), content_type=kind)

    context = browser.new_context(
        base_url=site_url,
        viewport={"width": 1280, "height": 900},
        permissions=["clipboard-read", "clipboard-write"],
    )
    context.route("**/*", lambda route: route.abort())
    context.route(f"{site_url}**", serve)  # the later route wins for the site's own address
    yield context.new_page()
    context.close()


def test_every_heading_has_a_visible_copy_link(page: Page) -> None:
    page.goto(QUESTION)
    page.wait_for_selector("article .copy-link")
    headings = page.locator("article h1, article h2[id]")
    buttons = page.locator("article .copy-link")
    assert buttons.count() == headings.count() > 2
    for i in range(buttons.count()):
        assert buttons.nth(i).is_visible()
        assert buttons.nth(i).inner_text() == "Copy link"
    label = page.locator("h2#short-answer .copy-link").get_attribute("aria-label")
    assert label == "Copy link to the section Short answer"


def test_copy_link_copies_the_address_and_says_so(page: Page, site_url: str) -> None:
    page.goto(QUESTION)
    page.locator("h2#short-answer .copy-link").click()
    expected = f"{site_url}{QUESTION}#short-answer"
    assert page.evaluate("navigator.clipboard.readText()") == expected
    status = page.get_by_role("status")
    assert status.is_visible()
    assert status.inner_text() == f"Link copied: {expected}"
    assert page.locator("h2#short-answer .copy-link").inner_text() == "Copied"

    page.locator("article h1 .copy-link").click()  # the question itself: no section id
    assert page.evaluate("navigator.clipboard.readText()") == f"{site_url}{QUESTION}"


def test_copy_links_after_instant_navigation(page: Page) -> None:
    page.goto("interview/")
    page.evaluate("window.__same_document = true")
    # Material's instant navigation rewrites links to absolute addresses.
    page.locator('article a[href$="/interview/what-does-backward-do/"]').first.click()
    page.wait_for_url("**/interview/what-does-backward-do/")
    page.wait_for_selector("h2#short-answer .copy-link")
    # Material swapped the content without a reload, and the buttons were still added.
    assert page.evaluate("window.__same_document === true")
    assert page.locator("article h1 .copy-link").count() == 1


def test_no_copy_links_outside_the_interview_pages(page: Page) -> None:
    page.goto("chapters/chain-rule/")
    page.wait_for_load_state("load")
    assert page.locator(".copy-link").count() == 0


@pytest.mark.parametrize("paper", ["A4", "Letter"])
def test_the_summary_prints_on_one_sheet(page: Page, paper: str) -> None:
    page.goto("interview/summary/")
    pdf = page.pdf(format=paper)
    sheets = len(re.findall(rb"/Type\s*/Page[^s]", pdf))
    assert sheets == 1, (
        f"the printable summary takes {sheets} {paper} sheets; shorten the short answers "
        "or tighten the print styles in docs/assets/stylesheets/interview.css"
    )

"""Interview pages in a real browser: the "Copy link" buttons and the printed summary.

The browser and its skip rules come from tests/browser/conftest.py. These tests answer
requests to the site's own address (site_url) from the built site, because the links the
buttons copy are the pages' canonical addresses.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from .conftest import answer_from, canonical_address

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

QUESTION = "interview/what-is-backpropagation/"


@pytest.fixture(scope="module")
def canonical_url(built_site: Path) -> str:
    """The site's own address (site_url), which the copied links start with."""
    return canonical_address(built_site)


@pytest.fixture
def page(browser: Browser, built_site: Path, canonical_url: str) -> Iterator[Page]:
    """A page whose requests to the site's address are answered from the built site;
    every other request is refused, so nothing leaves the machine."""

    context = browser.new_context(
        base_url=canonical_url,
        viewport={"width": 1280, "height": 900},
        permissions=["clipboard-read", "clipboard-write"],
    )
    answer_from(context, built_site, canonical_url)
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


def test_copy_link_copies_the_address_and_says_so(page: Page, canonical_url: str) -> None:
    page.goto(QUESTION)
    page.locator("h2#short-answer .copy-link").click()
    expected = f"{canonical_url}{QUESTION}#short-answer"
    assert page.evaluate("navigator.clipboard.readText()") == expected
    status = page.get_by_role("status")
    assert status.is_visible()
    assert status.inner_text() == f"Link copied: {expected}"
    assert page.locator("h2#short-answer .copy-link").inner_text() == "Copied"

    page.locator("article h1 .copy-link").click()  # the question itself: no section id
    assert page.evaluate("navigator.clipboard.readText()") == f"{canonical_url}{QUESTION}"


def test_copy_links_after_following_a_link(page: Page) -> None:
    page.goto("interview/")
    page.locator('article a[href$="what-does-backward-do/"]').first.click()
    page.wait_for_url("**/interview/what-does-backward-do/")
    page.wait_for_selector("h2#short-answer .copy-link")
    assert page.locator("article h1 .copy-link").count() == 1  # set up once


def test_no_copy_links_outside_the_interview_pages(page: Page) -> None:
    page.goto("chapters/chain-rule/")
    page.wait_for_load_state("load")
    assert page.locator(".copy-link").count() == 0


@pytest.mark.parametrize("paper", ["A4", "Letter"])
def test_the_summary_prints_on_two_sheets(page: Page, paper: str) -> None:
    """Both sides of two sheets at most, in type no smaller than 6.5 pt: 73 short answers
    on one sheet would need 4.5 pt, too small to read (measured with this test's PDF)."""
    page.goto("interview/summary/")
    page.emulate_media(media="print")
    summary = page.locator(".interview-summary")
    size = summary.evaluate("(element) => getComputedStyle(element).fontSize")
    assert float(size.removesuffix("px")) >= 8.6, f"the summary prints at {size}: too small to read"
    pdf = page.pdf(format=paper)
    pages = len(re.findall(rb"/Type\s*/Page[^s]", pdf))
    assert pages <= 4, (
        f"the printable summary takes {pages} {paper} pages, more than two sheets printed on "
        "both sides; shorten the short answers or tighten the print styles in "
        "docs/assets/stylesheets/interview.css"
    )

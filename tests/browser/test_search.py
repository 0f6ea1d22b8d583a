"""Material's search, offline: a web worker fed by search/search_index.json from the site.

The query is typed into the search box as a reader would; the worker, the index and the
results are all local (test_pages.py already fails a page that requests anything else).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import pytest

from .conftest import page_id, site_pages

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Page

# The interview questions; conftest.py parametrises `page_path` with PAGES.
PAGES = [p for p in site_pages() if p.startswith("interview/") and p != "interview/"]
RESULT_LINKS = ".md-search-result__item a.md-search-result__link"
# Words of four letters or more that lunr (Material's search) drops from every query.
LUNR_STOP = frozenset(
    [
        "able",
        "about",
        "across",
        "after",
        "almost",
        "also",
        "among",
        "because",
        "been",
        "cannot",
        "could",
        "dear",
        "does",
        "either",
        "else",
        "ever",
        "every",
        "from",
        "have",
        "hers",
        "however",
        "into",
        "just",
        "least",
        "like",
        "likely",
        "might",
        "most",
        "must",
        "neither",
        "often",
        "only",
        "other",
        "rather",
        "said",
        "says",
        "should",
        "since",
        "some",
        "than",
        "that",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "twas",
        "wants",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "whom",
        "will",
        "with",
        "would",
        "your",
    ]
)

# Words on nearly every page of this course: they cannot single one page out.
COMMON = frozenset(["backward", "gradient", "gradients", "loss", "pytorch", "tensor", "tensors"])


@pytest.fixture(scope="module")
def page(new_context: Callable[..., BrowserContext]) -> Iterator[Page]:
    """The home page, opened once: its search worker builds the index once, and every
    query is typed into the same search box, as a reader searching again would."""
    context = new_context()
    context.set_default_timeout(15_000)
    home = context.new_page()
    home.goto("")
    yield home
    context.close()


# True once the results on show are this query's, not the one before's: each result links
# with ?h=<the words of the query it matched>. A result matched on no single word (a
# section found through its page) has an empty ?h=; at least one must have words.
_RESULTS_OF = """
([selector, query]) => {
  const asked = new Set(query.toLowerCase().split(/\\s+/));
  const marks = [...document.querySelectorAll(selector)].map(
    (a) => (new URL(a.href).searchParams.get("h") ?? "").toLowerCase());
  return marks.some((h) => h !== "")
    && marks.every((h) => h.split(/\\s+/).every((w) => w === "" || asked.has(w)));
}
"""


def search(page: Page, query: str) -> list[str]:
    """Type ``query`` into the search box of the home page; the result pages, best first."""
    box = page.locator(".md-search__input")
    box.click()
    # Empty the box and wait for the old results to go. Material searches on a key press,
    # so the query goes in whole but its last letter, which is then typed: no result of a
    # half-typed word can pass for the query's.
    box.fill("")
    page.locator(RESULT_LINKS).first.wait_for(state="detached")
    box.fill(query[:-1])
    page.keyboard.type(query[-1])
    page.wait_for_function(_RESULTS_OF, arg=[RESULT_LINKS, query])
    hrefs = page.locator(RESULT_LINKS).evaluate_all("links => links.map((a) => a.href)")
    base = page.evaluate("() => new URL(document.baseURI).origin + '/'")
    pages: list[str] = []
    for href in hrefs:
        # Results link to the page (or a section) with ?h=<query> to highlight the words.
        path = urlsplit(href.removeprefix(base)).path
        if path not in pages:
            pages.append(path)
    return pages


def test_tab_leaves_the_search_field_for_a_control_in_sight(page: Page) -> None:
    """Tab from the search field (Material closes the search) must not land on the
    closed results box, 0px high (docs/assets/stylesheets/course.css)."""
    search(page, "retain_graph")  # with results on show, as when a reader tabs away
    page.keyboard.press("Tab")
    landed = page.evaluate(
        """() => {
          const el = document.activeElement;
          const box = el.getBoundingClientRect();
          return [el.outerHTML.slice(0, 100), box.width, box.height,
                  el.checkVisibility({opacityProperty: true, visibilityProperty: true})];
        }"""
    )
    html, width, height, visible = landed
    assert width >= 1 and height >= 1 and visible, (
        f"Tab from the search field landed on {html} ({width}×{height}, visible: {visible})"
    )


def test_search_puts_the_retain_graph_chapter_first(page: Page) -> None:
    found = search(page, "retain_graph")
    assert found[:1] == ["chapters/retain-graph/"], (
        f"searching 'retain_graph' lists these pages, best first: {found}"
    )


def distinctive_word(site_dir: Path, path: str) -> str:
    """The word of the page's title that the fewest pages of the search index contain, or
    the whole title when each of its words is common."""
    index = json.loads((site_dir / "search" / "search_index.json").read_text(encoding="utf-8"))
    text: dict[str, str] = {}
    for doc in index["docs"]:
        where = doc["location"].split("#")[0]
        text[where] = text.get(where, "") + " " + doc["title"] + " " + doc["text"]
    title = next(d["title"] for d in index["docs"] if d["location"] == path)
    title = re.sub(r"<[^>]+>", "", title)  # titles may hold markup: What does <code>...
    every = {w.lower() for w in re.findall(r"[A-Za-z_][A-Za-z_]{3,}", title)}
    words = every - LUNR_STOP - COMMON
    if not words:
        # Every word is on many pages ("What does backward() do?"): ask the whole question.
        return title

    def pages_with(word: str) -> int:
        pattern = re.compile(rf"\b{re.escape(word)}\b", re.IGNORECASE)
        return sum(1 for body in text.values() if pattern.search(body))

    return min(sorted(words), key=lambda w: (pages_with(w), -len(w)))


def test_search_finds_the_interview_question(page: Page, site_dir: Path, page_path: str) -> None:
    word = distinctive_word(site_dir, page_path)
    found = search(page, word)
    assert page_path in found, (
        f"{page_id(page_path)}: searching {word!r} (from its title) lists {found}"
    )

"""The desktop sidebar: its long site title never covers the navigation entries.

Material keeps the primary navigation's title sticky at the top of the sidebar. This
site's title takes three lines there, so entries scrolled under it and were hidden;
docs/assets/stylesheets/course.css lets the title scroll away with them instead.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext

# After scrolling the sidebar: every entry link that is inside the sidebar's visible
# area, and the title's box; an entry hidden behind the title would intersect it.
OVERLAPS_JS = """
() => {
  const wrap = document.querySelector(".md-sidebar--primary .md-sidebar__scrollwrap");
  wrap.scrollTop = 300;
  const title = document.querySelector(".md-nav--primary > .md-nav__title").getBoundingClientRect();
  const view = wrap.getBoundingClientRect();
  const hidden = [];
  for (const link of wrap.querySelectorAll(".md-nav--primary .md-nav__link")) {
    const box = link.getBoundingClientRect();
    if (box.height === 0 || box.bottom <= view.top || box.top >= view.bottom) continue;
    if (box.top < title.bottom && box.bottom > title.top) hidden.push(link.textContent.trim());
  }
  return {scrolled: wrap.scrollTop, hidden};
}
"""


def test_the_site_title_does_not_cover_scrolled_entries(
    new_context: Callable[..., BrowserContext],
) -> None:
    context = new_context(viewport={"width": 1440, "height": 900})
    page = context.new_page()
    page.goto("control/no-grad/")
    page.wait_for_load_state("load")
    seen = page.evaluate(OVERLAPS_JS)
    context.close()
    assert seen["scrolled"] > 0, "the sidebar did not scroll: the test saw nothing"
    assert not seen["hidden"], f"entries hidden behind the sidebar's title: {seen['hidden']}"

"""The speed-ups must not cost the reader anything.

* `content-visibility: auto` lays out off-screen blocks only when they come near the
  screen: a link to a deep anchor must still land on its heading;
* `content.lazy` mounts a code block's copy button when the block scrolls into view:
  every block the reader reaches still has one.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext


def _longest_chapter(site_dir: Path) -> str:
    pages = sorted((site_dir / "chapters").glob("*/index.html"), key=lambda p: p.stat().st_size)
    return f"chapters/{pages[-1].parent.name}/"


def test_deep_anchor_lands_on_its_heading(
    new_context: Callable[..., BrowserContext], site_dir: Path
) -> None:
    path = _longest_chapter(site_dir)
    context = new_context(viewport={"width": 412, "height": 823})
    page = context.new_page()
    page.goto(path)
    # The last section before the recap: everything above it is off screen at load.
    anchor = page.eval_on_selector_all(
        ".md-content h2[id]",
        "hs => hs.map(h => h.id).filter(id => id !== 'recap' && id !== 'where-next').pop()",
    )
    page.goto(f"{path}#{anchor}")
    page.wait_for_timeout(500)
    top = page.eval_on_selector(f"#{anchor}", "h => h.getBoundingClientRect().top")
    context.close()
    assert 0 <= top < 200, f"{path}#{anchor}: the heading is at {top:.0f}px, not at the top"


def test_code_blocks_get_copy_buttons_when_reached(
    new_context: Callable[..., BrowserContext], site_dir: Path
) -> None:
    path = _longest_chapter(site_dir)
    context = new_context()
    page = context.new_page()
    page.goto(path)
    last = page.locator(".md-content pre > code").last
    last.scroll_into_view_if_needed()
    page.wait_for_timeout(300)
    buttons = page.locator(".md-content pre").last.locator("button.md-code__button")
    count = buttons.count()
    context.close()
    assert count == 1, f"{path}: the last code block has no copy button once scrolled to"

"""On a phone a wide display equation scrolls in its own box (docs/assets/stylesheets/
course.css, .math-display), as code blocks do, instead of widening the page; and a box
that scrolls can be reached with the keyboard (docs/assets/javascripts/math-scroll.js).

Two pages whose equations are wider than a phone: one with a long row of products, one
with an annotated table of update rules. That no page at all is wider than a phone, with
JavaScript and without, is test_pages.py's test_no_wider_than_a_phone.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

from .reader_view import PHONE

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext

WIDE_MATHS = ["graph/dynamic-graphs/", "control/freezing/"]


@pytest.mark.parametrize("path", WIDE_MATHS)
def test_a_wide_equation_scrolls_in_its_own_box_in_the_tab_order(
    new_context: Callable[..., BrowserContext], path: str
) -> None:
    context = new_context(viewport=PHONE)
    page = context.new_page()
    page.goto(path)
    page.wait_for_load_state("load")
    boxes = page.evaluate(
        "() => [...document.querySelectorAll('.math-display')]"
        ".map(box => [box.scrollWidth > box.clientWidth, box.getAttribute('tabindex')])"
    )
    context.close()
    assert any(scrolls for scrolls, _ in boxes), (
        f"no equation is wider than a phone on {path}: choose another page"
    )
    assert all(tabindex == ("0" if scrolls else None) for scrolls, tabindex in boxes), (
        f"{path}: only an equation that scrolls may be a Tab stop, and it must be: {boxes}"
    )

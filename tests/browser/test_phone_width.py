"""On a phone the page never scrolls sideways: wide display equations scroll in their
own box (docs/assets/stylesheets/course.css, .math-display), as code blocks do.

Two pages whose equations are wider than a phone: one with a long row of products, one
with an annotated table of update rules.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext

PHONE = {"width": 390, "height": 844}
WIDE_MATHS = ["graph/dynamic-graphs/", "control/freezing/"]


@pytest.mark.parametrize("path", WIDE_MATHS)
def test_the_page_is_no_wider_than_a_phone(
    new_context: Callable[..., BrowserContext], path: str
) -> None:
    context = new_context(viewport=PHONE)
    page = context.new_page()
    page.goto(path)
    page.wait_for_load_state("load")
    widths = page.evaluate(
        "() => [document.documentElement.scrollWidth, document.documentElement.clientWidth,"
        " Math.max(...[...document.querySelectorAll('.math-display')]"
        ".map(box => box.scrollWidth - box.clientWidth))]"
    )
    context.close()
    page_width, screen, widest_overflow = widths
    assert widest_overflow > 0, "no equation is wider than a phone here: choose another page"
    assert page_width <= screen, f"{path} is {page_width}px wide on a {screen}px screen"

"""On a phone the page never scrolls sideways: wide display equations scroll in their
own box (docs/assets/stylesheets/course.css, .math-display), as code blocks do, and a
box that scrolls can be reached with the keyboard (docs/assets/javascripts/math-scroll.js).

Two pages whose equations are wider than a phone: one with a long row of products, one
with an annotated table of update rules.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext

PHONE = {"width": 390, "height": 844}
WIDE_MATHS = ["graph/dynamic-graphs/", "control/freezing/"]


def _evaluate_on_a_phone(new_context: Callable[..., BrowserContext], path: str, script: str) -> Any:
    context = new_context(viewport=PHONE)
    page = context.new_page()
    page.goto(path)
    page.wait_for_load_state("load")
    result = page.evaluate(script)
    context.close()
    return result


@pytest.mark.parametrize("path", WIDE_MATHS)
def test_the_page_is_no_wider_than_a_phone(
    new_context: Callable[..., BrowserContext], path: str
) -> None:
    widths = _evaluate_on_a_phone(
        new_context,
        path,
        "() => [document.documentElement.scrollWidth, document.documentElement.clientWidth,"
        " Math.max(...[...document.querySelectorAll('.math-display')]"
        ".map(box => box.scrollWidth - box.clientWidth))]",
    )
    page_width, screen, widest_overflow = widths
    assert widest_overflow > 0, "no equation is wider than a phone here: choose another page"
    assert page_width <= screen, f"{path} is {page_width}px wide on a {screen}px screen"


@pytest.mark.parametrize("path", WIDE_MATHS)
def test_only_an_equation_that_scrolls_is_in_the_tab_order(
    new_context: Callable[..., BrowserContext], path: str
) -> None:
    boxes = _evaluate_on_a_phone(
        new_context,
        path,
        "() => [...document.querySelectorAll('.math-display')]"
        ".map(box => [box.scrollWidth > box.clientWidth, box.getAttribute('tabindex')])",
    )
    assert any(scrolls for scrolls, _ in boxes), f"no equation scrolls on {path}"
    assert all(tabindex == ("0" if scrolls else None) for scrolls, tabindex in boxes), boxes

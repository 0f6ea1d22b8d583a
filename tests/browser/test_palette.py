"""The colour-scheme toggle (overrides/partials/palette.html, assets/javascripts/palette.js).

It replaces Material's palette component (which forced three style recalculations of the
whole page on every load), so everything that component did for a reader is checked
here: the system setting picks the scheme on a first visit, before the first paint; the
toggle switches by mouse and by keyboard (Enter and Space, as on a button); the choice
survives a reload and a visit to another page; and the label shown always offers the other
scheme.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Page

PAGE = "chapters/chain-rule/"
OTHER_PAGE = "chapters/leaf-tensors/"
TOGGLE = "form[data-course-palette] label:visible"


def _scheme(page: Page) -> str:
    return page.evaluate("() => document.body.dataset.mdColorScheme")


def _offered(page: Page) -> str:
    """The name of the scheme the visible toggle switches to (its title)."""
    return page.locator(TOGGLE).get_attribute("title") or ""


def _first_paint_scheme(page: Page) -> str:
    """The scheme <body> had when the content was first parsed (FIRST_SCHEME_JS)."""
    return page.evaluate("() => window.__firstScheme")


# Records the scheme <body> has when the parser reaches the page's <article>: before the
# content is painted, and before any script at the end of <body> runs.
FIRST_SCHEME_JS = """
new MutationObserver((records, observer) => {
  if (!document.querySelector("article")) return;
  window.__firstScheme = document.body.dataset.mdColorScheme;
  observer.disconnect();
}).observe(document, { childList: true, subtree: true });
"""


def test_a_first_visit_follows_the_system_setting(
    new_context: Callable[..., BrowserContext],
) -> None:
    for system, expected in (("light", "default"), ("dark", "slate")):
        context = new_context(color_scheme=system)
        page = context.new_page()
        page.add_init_script(FIRST_SCHEME_JS)
        page.goto(PAGE)
        first, now, offered = _first_paint_scheme(page), _scheme(page), _offered(page)
        context.close()
        assert (first, now) == (expected, expected), (
            f"{PAGE}, system {system}: body scheme {first!r} when parsed, {now!r} after "
            f"load; expected {expected!r} from the start"
        )
        other = "light" if system == "dark" else "dark"
        assert other in offered.lower(), f"system {system}: the toggle offers {offered!r}"


def test_the_toggle_switches_by_mouse_and_the_choice_is_kept(
    new_context: Callable[..., BrowserContext],
) -> None:
    context = new_context()
    page = context.new_page()
    page.goto(PAGE)
    assert _scheme(page) == "default"
    page.locator(TOGGLE).click()
    after_click = _scheme(page)
    page.reload()
    after_reload = _scheme(page)
    page.add_init_script(FIRST_SCHEME_JS)
    page.goto(OTHER_PAGE)
    on_next_page, first_paint = _scheme(page), _first_paint_scheme(page)
    offered = _offered(page)
    page.locator(TOGGLE).click()
    back = _scheme(page)
    context.close()
    assert after_click == "slate", f"a click on the toggle gave {after_click!r}, not slate"
    assert after_reload == "slate", f"after a reload the scheme is {after_reload!r}"
    assert (on_next_page, first_paint) == ("slate", "slate"), (
        f"{OTHER_PAGE}: scheme {first_paint!r} when parsed, {on_next_page!r} after load"
    )
    assert "light" in offered.lower(), f"in the dark scheme the toggle offers {offered!r}"
    assert back == "default", f"a second click gave {back!r}, not the light scheme"


# The focused toggle: the control, its box, and its label's (the button seen).
FOCUSED_TOGGLE_JS = """
() => {
  const el = document.activeElement;
  if (!el.matches("form[data-course-palette] input")) return null;
  const box = (e) => { const r = e.getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; };
  return {box: box(el), label: box(el.form.querySelector("label:not([hidden])"))};
}
"""


def test_the_toggle_works_with_the_keyboard(new_context: Callable[..., BrowserContext]) -> None:
    context = new_context()
    page = context.new_page()
    page.goto(PAGE)
    page.focus("form[data-course-palette] input:checked")
    seen = []
    for key in ("Enter", "Enter", "Space", "Space"):
        page.keyboard.press(key)
        seen.append((key, _scheme(page), page.evaluate(FOCUSED_TOGGLE_JS)))
    context.close()
    for (key, scheme, focused), wanted in zip(seen, ["slate", "default"] * 2, strict=True):
        assert scheme == wanted, f"{key} on the toggle gave {scheme!r}, not {wanted!r}: {seen}"
        assert focused, f"after {key} the focus left the toggle"
        # The focused control is the button the reader sees, not a 0×0 point beside it.
        (x, y, w, h), (lx, ly, lw, lh) = focused["box"], focused["label"]
        centre = (x + w / 2, y + h / 2)
        on_it = lx <= centre[0] <= lx + lw and ly <= centre[1] <= ly + lh
        assert w * h >= lw * lh > 0 and on_it, f"after {key}, focused input and button: {focused}"


def test_the_page_colour_metadata_follows_the_scheme(
    new_context: Callable[..., BrowserContext],
) -> None:
    """color-scheme (scrollbars, form controls) and theme-color (a phone's browser bar)."""
    context = new_context()
    page = context.new_page()
    page.goto(PAGE)
    seen = {}
    for _ in range(2):
        seen[_scheme(page)] = page.evaluate(
            """() => {
              const meta = (name) => document.querySelector(`meta[name="${name}"]`).content;
              const rgb = getComputedStyle(document.querySelector(".md-header")).backgroundColor;
              const hex = "#" + rgb.match(/\\d+/g).slice(0, 3)
                .map((v) => (+v).toString(16).padStart(2, "0")).join("");
              return [meta("color-scheme"), meta("theme-color"), hex];
            }"""
        )
        page.locator(TOGGLE).click()
    context.close()
    for scheme, wanted in (("default", "light"), ("slate", "dark")):
        color_scheme, theme_color, header = seen[scheme]
        assert color_scheme == wanted, f"{scheme}: meta color-scheme is {color_scheme!r}"
        assert theme_color == header, (
            f"{scheme}: meta theme-color {theme_color} but the header is {header} "
            "(overrides/main.html)"
        )


def test_without_javascript_no_toggle_is_shown(
    new_context: Callable[..., BrowserContext],
) -> None:
    context = new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(PAGE)
    shown = page.locator(TOGGLE).count()
    context.close()
    assert shown == 0, f"{PAGE}: without JavaScript a colour toggle that cannot work is shown"

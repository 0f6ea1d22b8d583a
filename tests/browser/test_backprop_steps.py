"""Step-through backward passes in a real browser (coursekit/figures/backprop_steps.py).

Every figure on every page that has one: stepping with the mouse and with the keyboard
alone, the "Step k of n" counter and the live text, the ordered list without JavaScript
and in print, axe-core and the drawing's own text contrast in both schemes, and set-up
after following a link from another page. The pages are answered from the built site at
the site's own address (site_url), as readers get them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from .audit_page import SCHEMES, SERIOUS, describe_violations, switch_to_dark
from .conftest import answer_from, canonical_address
from .contrast import TEXT_CONTRAST, contrast

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Locator, Page

# The pages with a step-through, and how many figures each must have.
FIGURES = {
    "chapters/chain-rule/": 1,
    "chapters/several-variables/": 1,
    "chapters/backprop-by-hand/": 2,
    "chapters/gradients-to-training/": 1,
    "interview/gradient-of-a-parameter-used-twice/": 1,
}
PAGES = list(FIGURES)
FIGURE = "figure.backprop-steps"
_ID = [p.strip("/").split("/")[-1] for p in PAGES]


@pytest.fixture(scope="module")
def canonical_url(site_dir: Path) -> str:
    return canonical_address(site_dir)


@pytest.fixture
def open_context(
    browser: Browser, site_dir: Path, canonical_url: str
) -> Iterator[Callable[..., BrowserContext]]:
    """Contexts whose requests to the site's address are answered from the built site;
    every other request is refused."""
    contexts: list[BrowserContext] = []

    def make(**options: Any) -> BrowserContext:
        options.setdefault("viewport", {"width": 1280, "height": 900})
        context = browser.new_context(base_url=canonical_url, color_scheme="light", **options)
        context.set_default_timeout(10_000)
        answer_from(context, site_dir, canonical_url)
        contexts.append(context)
        return context

    yield make
    for context in contexts:
        context.close()


@pytest.fixture
def page(open_context: Callable[..., BrowserContext]) -> Iterator[Page]:
    errors: list[str] = []
    tab = open_context().new_page()
    tab.on("pageerror", lambda e: errors.append(str(e)))
    tab.on("console", lambda m: m.type == "error" and errors.append(m.text))
    yield tab
    assert not errors, f"errors in the page: {errors}"


def figures(page: Page, path: str) -> list[Locator]:
    page.goto(path)
    found = page.locator(FIGURE)
    assert found.count() == FIGURES[path], f"{path}: expected {FIGURES[path]} figures"
    return [found.nth(i) for i in range(found.count())]


def total(figure: Locator) -> int:
    return int(figure.get_attribute("data-steps") or 0)


def step_texts(figure: Locator) -> list[str]:
    return [" ".join(t.split()) for t in figure.locator(".bps-steps > li").all_text_contents()]


def assert_at(figure: Locator, step: int) -> None:
    """The figure shows step ``step``: counter, live text, buttons, highlighted node."""
    n = total(figure)
    # textContent, not innerText: course.css skips rendering a figure out of view
    # (content-visibility: auto), and innerText is empty there.
    assert figure.locator(".bps-counter").text_content() == f"Step {step} of {n}"
    live = " ".join((figure.locator(".bps-live").text_content() or "").split())
    assert live == f"Step {step} of {n}: {step_texts(figure)[step - 1]}"
    # Off, but never `disabled`: a disabled button would drop the keyboard focus.
    for button, off in [(".bps-prev", step == 1), (".bps-next", step == n)]:
        assert figure.locator(button).get_attribute("aria-disabled") == ("true" if off else None)
        assert not figure.locator(button).evaluate("el => el.disabled")
    active = figure.locator("svg .bps-node.bps-active")
    # One node per step; the last step shows every .grad and highlights nothing.
    assert active.count() == (0 if step == n else 1)
    # Gradients not reached yet stay hidden until the last node's step.
    hidden = figure.locator("svg .bps-future")
    assert (hidden.count() == 0) == (step >= n - 1)


@pytest.mark.parametrize("path", PAGES, ids=_ID)
def test_step_with_the_mouse(page: Page, path: str) -> None:
    for figure in figures(page, path):
        n = total(figure)
        assert n >= 3 and figure.locator(".bps-controls").is_visible()
        assert not figure.locator(".bps-steps").is_visible()  # one step at a time instead
        assert figure.locator(".bps-live").get_attribute("aria-live") == "polite"
        assert_at(figure, 1)
        for step in range(2, n + 1):
            figure.locator(".bps-next").click()
            assert_at(figure, step)
        assert ".grad = " in figure.locator(".bps-live").inner_text()
        # Off on the last step (force: Playwright will not click an aria-disabled button).
        figure.locator(".bps-next").click(force=True)
        assert_at(figure, n)
        figure.locator(".bps-prev").click()
        assert_at(figure, n - 1)


@pytest.mark.parametrize("path", PAGES, ids=_ID)
def test_step_with_the_keyboard(page: Page, path: str) -> None:
    for figure in figures(page, path):
        n = total(figure)
        figure.focus()
        page.keyboard.press("ArrowRight")
        assert_at(figure, 2)
        page.keyboard.press("ArrowLeft")
        assert_at(figure, 1)
        page.keyboard.press("End")
        assert_at(figure, n)
        page.keyboard.press("Home")
        assert_at(figure, 1)
        # Only Left / Right (and Home / End) step, exactly as announced; Up / Down are
        # left to the page.
        assert figure.get_attribute("aria-keyshortcuts") == "ArrowLeft ArrowRight Home End"
        page.keyboard.press("ArrowDown")
        page.keyboard.press("ArrowUp")
        assert_at(figure, 1)
        # The buttons are reached with Tab and pressed. Previous is off on step 1 but
        # keeps its place in the tab order.
        page.keyboard.press("Tab")
        assert focused(page) == "bps-prev"
        page.keyboard.press("Tab")
        assert focused(page) == "bps-next"
        # Next to the end: the focus stays on Next when it turns off, and the arrow keys
        # still work from there.
        for step in range(2, n + 1):
            page.keyboard.press("Enter")
            assert_at(figure, step)
            assert focused(page) == "bps-next"
        page.keyboard.press("Enter")
        assert_at(figure, n)
        page.keyboard.press("ArrowLeft")
        assert_at(figure, n - 1)
        page.keyboard.press("Shift+Tab")
        assert focused(page) == "bps-prev"
        for step in range(n - 2, 0, -1):
            page.keyboard.press("Space")
            assert_at(figure, step)
        assert focused(page) == "bps-prev"
        page.keyboard.press("ArrowRight")
        assert_at(figure, 2)
        page.keyboard.press("Home")


def focused(page: Page) -> str:
    """The step-through button that has the focus ('' for anything else, e.g. <body>)."""
    return page.evaluate(
        """() => {
          const el = document.activeElement;
          const found = ['bps-prev', 'bps-next'].filter((c) => el && el.classList.contains(c));
          return found.length ? found[0] : '';
        }"""
    )


@pytest.mark.parametrize("path", PAGES, ids=_ID)
def test_without_javascript_every_step_is_listed(
    open_context: Callable[..., BrowserContext], path: str
) -> None:
    page = open_context(java_script_enabled=False).new_page()
    for figure in figures(page, path):
        figure.scroll_into_view_if_needed()
        items = figure.locator(".bps-steps > li")
        assert figure.locator(".bps-steps").is_visible()
        assert items.count() == total(figure)
        assert "Done: backward() has filled the .grad of every leaf" in (
            items.last.text_content() or ""
        )
        assert not figure.locator(".bps-controls").is_visible()
        assert not figure.locator(".bps-live").is_visible()
        # The drawing shows its final state: every gradient.
        for grad in figure.locator("svg .bps-grad").all():
            assert grad.is_visible()


@pytest.mark.parametrize("path", PAGES, ids=_ID)
def test_printed_every_step_is_listed(page: Page, path: str) -> None:
    shown = figures(page, path)
    page.emulate_media(media="print")
    for figure in shown:
        assert figure.locator(".bps-steps").is_visible()
        assert figure.locator(".bps-steps > li").count() == total(figure)
        assert not figure.locator(".bps-controls").is_visible()
        # No highlight on paper: the active node and edges look like the others.
        assert figure.locator("svg .bps-node.bps-active").count() == 1
        assert page.evaluate(PRINT_LOOK_JS, f"#{figure.get_attribute('id')}") == []


# The active box and edges painted differently from the others of their kind (a leaf's box
# has its own, thicker, outline).
PRINT_LOOK_JS = """
(selector) => {
  const look = (el) => {
    const s = getComputedStyle(el);
    return [s.fill, s.stroke, s.strokeWidth].join(" ");
  };
  const usual = {};
  const parts = [
    ["box", ".bps-node:not(.bps-leaf) rect"],
    ["leaf box", ".bps-leaf rect"],
    ["edge", ".bps-edge line"],
    ["head", ".bps-edge polygon"],
  ];
  for (const [kind, sel] of parts) {
    for (const el of document.querySelectorAll(selector + " svg " + sel)) {
      if (!el.parentElement.classList.contains("bps-active")) usual[kind] = look(el);
    }
  }
  const active = [];
  for (const [kind, sel] of parts) {
    for (const el of document.querySelectorAll(selector + " svg " + sel)) {
      if (el.parentElement.classList.contains("bps-active") && look(el) !== usual[kind]) {
        active.push(kind + ": " + look(el) + " instead of " + usual[kind]);
      }
    }
  }
  return active;
}
"""


# The drawing on a phone: its text in px as rendered (13 px scaled with the SVG), and
# whether every text of a box fits inside the box.
PHONE_JS = """
(selector) => {
  const svg = document.querySelector(selector + " svg");
  const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
  const size = parseFloat(getComputedStyle(svg.querySelector("text")).fontSize);
  const overflowing = [];
  for (const node of svg.querySelectorAll(".bps-node")) {
    const box = node.querySelector("rect").getBBox();
    for (const text of node.querySelectorAll("text")) {
      const b = text.getBBox();
      if (b.x < box.x + 2 || b.x + b.width > box.x + box.width - 2) {
        overflowing.push(text.textContent);
      }
    }
  }
  return {
    px: size * scale,
    overflowing,
    scrolls: svg.parentElement.scrollWidth > svg.parentElement.clientWidth,
    height: svg.getBoundingClientRect().height,
  };
}
"""
MIN_TEXT_PX = 12
# Gitignored, to look at what was measured.
SHOTS = Path(__file__).resolve().parents[2] / "screenshots" / "backprop-steps"


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("path", PAGES, ids=_ID)
def test_readable_on_a_phone(
    open_context: Callable[..., BrowserContext], path: str, scheme: str
) -> None:
    page = open_context(viewport={"width": 390, "height": 844}).new_page()
    shown = figures(page, path)
    if scheme == "dark":
        switch_to_dark(page)
    for index, figure in enumerate(shown):
        figure.locator(".bps-next").click()  # scrolls it into view, where it is rendered
        seen = page.evaluate(PHONE_JS, f"#{figure.get_attribute('id')}")
        assert seen["px"] >= MIN_TEXT_PX, f"{path}: drawing text at {seen['px']:.1f} px"
        assert not seen["overflowing"], f"{path}: text wider than its box"
        assert not seen["scrolls"]
        SHOTS.mkdir(parents=True, exist_ok=True)
        name = f"{path.strip('/').replace('/', '-')}-{index}-{scheme}.png"
        figure.screenshot(path=str(SHOTS / name))


# The colour of every text of the drawings against what is behind it: the node's box,
# or the page for the gradients written beside the edges.
SVG_TEXT_JS = """
(selector) => {
  const page = getComputedStyle(document.body).backgroundColor;
  const runs = [];
  for (const text of document.querySelectorAll(selector + " svg text")) {
    if (getComputedStyle(text).visibility === "hidden") continue;
    const box = text.closest(".bps-node")?.querySelector("rect");
    runs.push({
      text: text.textContent,
      color: getComputedStyle(text).fill,
      background: box ? getComputedStyle(box).fill : page,
    });
  }
  return runs;
}
"""


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("path", PAGES, ids=_ID)
def test_accessible_in_both_schemes(page: Page, path: str, scheme: str) -> None:
    from axe_playwright_python.sync_playwright import Axe

    shown = figures(page, path)
    if scheme == "dark":
        switch_to_dark(page)
    for index, figure in enumerate(shown):
        figure.locator(".bps-next").click()  # an active node and a done one, both drawn
        figure.locator(".bps-next").click()
        selector = f"{FIGURE} >> nth={index}"
        axe = Axe().run(page, context=f"#{figure.get_attribute('id')}")
        serious = [v for v in axe.response["violations"] if v["impact"] in SERIOUS]
        found = [
            {"id": v["id"], "impact": v["impact"], "help": v["help"], "nodes": []} for v in serious
        ]
        assert not serious, f"{path} ({scheme}) {selector}:\n{describe_violations(found)}"
        poor = [
            (round(contrast(r["color"], r["background"]), 2), r["text"], r["color"])
            for r in page.evaluate(SVG_TEXT_JS, f"#{figure.get_attribute('id')}")
            if contrast(r["color"], r["background"]) < TEXT_CONTRAST
        ]
        assert not poor, f"{path} ({scheme}): drawing text below {TEXT_CONTRAST}:1: {poor}"


def test_set_up_after_following_a_link(page: Page) -> None:
    page.goto("")
    assert page.locator(FIGURE).count() == 0  # the home page loads no step-through
    for path in ["chapters/chain-rule/", "chapters/backprop-by-hand/"]:
        slug = path.rstrip("/").rsplit("/", 1)[-1]  # links are relative: ../chain-rule/
        page.locator(f'nav.md-nav--primary a[href$="/{slug}/"]').first.click()
        page.wait_for_url(f"**/{path}")
        page.locator(f"{FIGURE} .bps-controls").first.wait_for(state="visible")
        shown = page.locator(FIGURE)
        assert shown.count() == FIGURES[path]
        for i in range(shown.count()):
            figure = shown.nth(i)
            assert_at(figure, 1)
            figure.locator(".bps-next").click()
            assert_at(figure, 2)  # one click, one step: the script set up only once

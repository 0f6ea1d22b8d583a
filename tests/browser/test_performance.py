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
    # Blocks around the target render as they come near the screen; give a busy machine
    # time to settle, then read where the heading ended up.
    page.wait_for_load_state("load")
    page.wait_for_timeout(1000)
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
    button = page.locator(".md-content pre").last.locator("button.md-code__button")
    try:
        button.wait_for(state="attached", timeout=10_000)
    finally:
        context.close()


QUIZ = "practice/quizzes/chain-rule/"


def test_quiz_controls_do_not_shift_the_page(
    new_context: Callable[..., BrowserContext],
) -> None:
    """The quiz buttons and progress box are in place from the first paint."""
    context = new_context(viewport={"width": 412, "height": 823})
    page = context.new_page()
    page.add_init_script(
        "window.__shift = 0; new PerformanceObserver(list => { for (const e of"
        " list.getEntries()) if (!e.hadRecentInput) window.__shift += e.value; })"
        ".observe({type: 'layout-shift', buffered: true});"
    )
    page.goto(QUIZ)
    page.wait_for_load_state("load")
    page.wait_for_timeout(1000)
    shift = page.evaluate("window.__shift")
    visible = page.locator("[data-quiz-actions]").first.is_visible()
    context.close()
    assert visible, f"{QUIZ}: the quiz buttons are not shown with JavaScript on"
    assert shift < 0.01, f"{QUIZ}: cumulative layout shift {shift:.3f} while loading"


def test_quiz_without_javascript_hides_its_controls_and_keeps_the_answers(
    new_context: Callable[..., BrowserContext],
) -> None:
    context = new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(QUIZ)
    actions = page.locator("[data-quiz-actions]").first.is_visible()
    progress = page.locator("[data-quiz-progress]").first.is_visible()
    answers = page.locator("details.quiz-answer").count()
    context.close()
    assert not actions and not progress, f"{QUIZ}: controls that need JavaScript are shown"
    assert answers > 0, f"{QUIZ}: no answer to open without JavaScript"

"""Pages that do not move while they load, and controls that need JavaScript hidden without it."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext


QUIZ = "practice/quizzes/chain-rule/"
CHAPTER = "chapters/chain-rule/"


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


def test_copy_buttons_only_show_when_a_script_can_copy(
    new_context: Callable[..., BrowserContext],
) -> None:
    """The buttons are in the HTML (coursekit/content/copy_buttons.py); only JavaScript can copy."""
    shown = {}
    for javascript in (True, False):
        context = new_context(java_script_enabled=javascript)
        page = context.new_page()
        page.goto(CHAPTER)
        buttons = page.locator("article pre > .md-code__nav > button[data-md-type=copy]")
        shown[javascript] = (buttons.count(), buttons.first.is_visible())
        context.close()
    assert shown[True][0] > 0 and shown[True][1], f"{CHAPTER}: no visible copy button"
    assert shown[False] == (shown[True][0], False), (
        f"{CHAPTER}: without JavaScript a copy button is shown, and it could not copy"
    )

"""The quizzes, used the way readers use them: with the mouse, and with the keyboard alone.

The expected feedback comes from each question's own answer key, which the page carries
in its HTML (``details[data-quiz-answer-key]``): a wrong choice must show the explanation
written for that choice, a right one the explanation of the right answer. The DOM hooks
are the ones coursekit/content/templates/quiz.html documents (``.quiz-question[data-quiz-id]``,
``[data-quiz-type]``, ``[data-quiz-feedback]``, ``.quiz-check``, ``[data-quiz-reveal]``,
``[data-quiz-progress]``, ``[data-quiz-reset]``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from .conftest import page_id, site_pages

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Locator, Page

# The pages these tests run on (conftest.py parametrises `page_path` with PAGES).
PAGES = [p for p in site_pages() if p.startswith("practice/quizzes/") and p.count("/") == 3]
QUESTION = ".quiz-question[data-quiz-id]"
MAX_TABS = 600  # enough to walk through the header, the navigation and a whole quiz


@dataclass
class Question:
    """One question, with a right and a wrong answer read from its answer key."""

    index: int
    qid: str
    kind: str  # choice | blank | match
    right: list[str]  # choice: [value]; blank: [text]; match: the value for each select
    wrong: list[str]
    # Text the feedback must contain after the wrong answer (the matching explanation).
    wrong_explanation: str


def _text(value: str) -> str:
    return " ".join(value.split())


def read_questions(page: Page) -> list[Question]:
    raw = page.evaluate(
        """(selector) => [...document.querySelectorAll(selector)].map((q) => ({
            qid: q.dataset.quizId,
            kind: q.dataset.quizType,
            answer: q.dataset.quizAnswer || null,
            choices: [...q.querySelectorAll('input[type="radio"]')].map((i) => i.value),
            selects: q.querySelectorAll("select").length,
            knownWrong: [...q.querySelectorAll("[data-quiz-wrong]")].map((li) => [
              li.dataset.quizWrong, li.querySelector(".quiz-explanation__text").textContent]),
            explain: Object.fromEntries([...q.querySelectorAll("[data-quiz-explain]")].map(
              (li) => [li.dataset.quizExplain,
                       li.querySelector(".quiz-explanation__text").textContent])),
        }))""",
        QUESTION,
    )
    questions = []
    for index, q in enumerate(raw):
        if q["kind"] == "choice":
            wrong = next(c for c in q["choices"] if c != q["answer"])
            questions.append(
                Question(index, q["qid"], "choice", [q["answer"]], [wrong], q["explain"][wrong])
            )
        elif q["kind"] == "blank":
            accepted = json.loads(q["answer"])
            # A wrong answer the author explained, or else one nobody would accept.
            wrong, why = q["knownWrong"][0] if q["knownWrong"] else ("not_the_answer", "")
            questions.append(Question(index, q["qid"], "blank", [accepted[0]], [wrong], why))
        elif q["kind"] == "match":
            right = [str(i) for i in range(q["selects"])]
            wrong = [right[1], right[0], *right[2:]]  # the first two swapped
            questions.append(Question(index, q["qid"], "match", right, wrong, ""))
        else:
            pytest.fail(f"{q['qid']}: unknown quiz question type {q['kind']!r}")
    return questions


@pytest.fixture
def quiz_page(
    new_context: Callable[..., BrowserContext], page_path: str
) -> Iterator[tuple[Page, list[Question]]]:
    context = new_context()
    # Generous: a fresh-clone run at load 10 once needed more than 10 s for one click.
    context.set_default_timeout(30_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(page_path)
    questions = read_questions(page)
    if not questions:
        pytest.fail(f"{page_id(page_path)}: no quiz questions ({QUESTION}) on the page")
    yield page, questions
    context.close()
    assert not errors, f"{page_id(page_path)}: JavaScript errors: {errors}"


# --- answering ------------------------------------------------------------------------------


def _question(page: Page, q: Question) -> Locator:
    return page.locator(QUESTION).nth(q.index)


def answer_with_mouse(page: Page, q: Question, answer: list[str]) -> None:
    box = _question(page, q)
    if q.kind == "choice":
        radio_id = box.locator(f'input[type="radio"][value="{answer[0]}"]').get_attribute("id")
        box.locator(f'label[for="{radio_id}"]').click()  # the label, as a reader would
    elif q.kind == "blank":
        field = box.locator(".quiz-blank")
        field.click()
        field.fill(answer[0])
    else:
        for select, value in zip(box.locator("select").all(), answer, strict=True):
            # By index: Playwright matches a value against option labels too (even with
            # value=), and an option labelled "2" may have the value 1.
            values = select.evaluate("(s) => [...s.options].map((o) => o.value)")
            select.select_option(index=values.index(value))
    box.locator(".quiz-check").click()


def _focused_in(page: Page, q: Question) -> str | None:
    """The tag of the focused control if it is inside question ``q``'s form."""
    return page.evaluate(
        """([selector, index]) => {
          const form = document.querySelectorAll(selector)[index].querySelector("form");
          const el = document.activeElement;
          return form.contains(el) ? el.tagName + ":" + (el.type || "") : null;
        }""",
        [QUESTION, q.index],
    )


def tab_into(page: Page, q: Question) -> str:
    """Press Tab until the focus is on question ``q``'s first control; returns that control."""
    for _ in range(MAX_TABS):
        page.keyboard.press("Tab")
        where = _focused_in(page, q)
        if where:
            return where
    pytest.fail(f"{q.qid}: {MAX_TABS} presses of Tab never reached the question")


def _move_select(page: Page, target: str) -> None:
    """Change the focused <select> to the option with value ``target`` with arrow keys."""
    now, goal = page.evaluate(
        """(target) => {
          const s = document.activeElement;
          return [s.selectedIndex, [...s.options].findIndex((o) => o.value === target)];
        }""",
        target,
    )
    for _ in range(abs(goal - now)):
        page.keyboard.press("ArrowDown" if goal > now else "ArrowUp")


def answer_with_keyboard(page: Page, q: Question, answer: list[str], first: str) -> None:
    """Give ``answer`` from the focused first control ``first``, then press Check with Enter."""
    if q.kind == "choice":
        # Tab lands on the checked radio, or the first one; arrows move and select.
        values = page.evaluate(
            """() => [...document.activeElement.form.querySelectorAll('input[type="radio"]')]
                .map((i) => [i.value, i.checked, i === document.activeElement])"""
        )
        at = next(i for i, (_, _, focused) in enumerate(values) if focused)
        goal = next(i for i, (value, _, _) in enumerate(values) if value == answer[0])
        if goal == at:
            page.keyboard.press("Space")
        for _ in range(abs(goal - at)):
            page.keyboard.press("ArrowDown" if goal > at else "ArrowUp")
    elif q.kind == "blank":
        assert first == "INPUT:text", f"{q.qid}: expected the blank, got {first}"
        page.keyboard.press("ControlOrMeta+a")
        page.keyboard.type(answer[0])
    else:
        for i, value in enumerate(answer):
            if i:
                page.keyboard.press("Tab")
            _move_select(page, value)
    page.keyboard.press("Tab")
    focused = page.evaluate("() => document.activeElement.className")
    assert "quiz-check" in focused, f"{q.qid}: Tab after the answer went to {focused!r}"
    page.keyboard.press("Enter")


# --- checking the feedback ----------------------------------------------------------------


def feedback(page: Page, q: Question) -> dict[str, object]:
    return _question(page, q).evaluate(
        """(q) => {
          const fb = q.querySelector("[data-quiz-feedback]");
          return {
            text: fb.textContent,
            right: fb.classList.contains("quiz-feedback--correct"),
            wrong: fb.classList.contains("quiz-feedback--wrong"),
            status: q.querySelector("[data-quiz-status]").textContent,
            reveal: !q.querySelector("[data-quiz-reveal]").hidden,
            invalid: [...q.querySelectorAll("select")].map(
              (s) => s.getAttribute("aria-invalid")),
            restored: !!fb.querySelector(".quiz-feedback__restored"),
          };
        }"""
    )


def expect_wrong(page: Page, q: Question) -> None:
    got = feedback(page, q)
    where = f"{q.qid} after the wrong answer {q.wrong}"
    assert got["wrong"] and not got["right"], f"{where}: feedback not marked wrong: {got}"
    assert "Not quite" in str(got["text"]), f"{where}: feedback says {got['text']!r}"
    if q.wrong_explanation:
        assert _text(q.wrong_explanation) in _text(str(got["text"])), (
            f"{where}: the explanation written for this answer is not shown: {got['text']!r}"
        )
    if q.kind == "match":
        assert got["invalid"][:2] == ["true", "true"], f"{where}: swapped pairs not marked"
        assert set(got["invalid"][2:]) <= {"false"}, f"{where}: right pairs marked wrong"
        assert f"{len(q.right) - 2} of {len(q.right)}" in str(got["text"]), got["text"]
    if q.kind == "blank" and not q.wrong_explanation:
        assert q.wrong[0] in str(got["text"]), f"{where}: {got['text']!r}"
    assert got["reveal"], f"{where}: no 'Show the answer' button"


def expect_right(page: Page, q: Question) -> None:
    got = feedback(page, q)
    where = f"{q.qid} after the right answer {q.right}"
    assert got["right"] and not got["wrong"], f"{where}: feedback not marked right: {got}"
    assert "Correct" in str(got["text"]), f"{where}: feedback says {got['text']!r}"
    if q.kind == "choice":
        why = page.evaluate(
            """([selector, i, v]) => document.querySelectorAll(selector)[i]
                .querySelector(`[data-quiz-explain="${v}"] .quiz-explanation__text`).textContent""",
            [QUESTION, q.index, q.right[0]],
        )
        assert _text(why) in _text(str(got["text"])), f"{where}: {got['text']!r}"
    assert not got["reveal"], f"{where}: 'Show the answer' still offered"
    assert "correct" in str(got["status"]), f"{where}: heading status {got['status']!r}"


# --- the tests ------------------------------------------------------------------------------


def test_quiz_with_the_mouse(quiz_page: tuple[Page, list[Question]]) -> None:
    page, questions = quiz_page
    for q in questions:
        answer_with_mouse(page, q, q.wrong)
        expect_wrong(page, q)
        box = _question(page, q)
        box.locator("[data-quiz-reveal]").click()
        assert box.locator("details[data-quiz-answer-key]").evaluate("d => d.open"), (
            f"{q.qid}: 'Show the answer' did not open the answer"
        )
        answer_with_mouse(page, q, q.right)
        expect_right(page, q)


def test_quiz_with_the_keyboard_alone(quiz_page: tuple[Page, list[Question]]) -> None:
    page, questions = quiz_page
    for q in questions:
        first = tab_into(page, q)
        answer_with_keyboard(page, q, q.wrong, first)
        expect_wrong(page, q)
        # The focus is on "Check answer": Tab reaches "Show the answer", Enter opens it.
        page.keyboard.press("Tab")
        page.keyboard.press("Enter")
        assert (
            _question(page, q).locator("details[data-quiz-answer-key]").evaluate("d => d.open")
        ), f"{q.qid}: 'Show the answer' did not open with the keyboard"
        # Back to the first control with Shift+Tab (the reveal button and summary come after).
        for _ in range(MAX_TABS):
            page.keyboard.press("Shift+Tab")
            where = _focused_in(page, q)
            if where and not where.startswith("BUTTON"):
                # Shift+Tab enters a group of selects at the last one: go to the first.
                while q.kind == "match" and page.evaluate(
                    "() => document.activeElement.dataset.quizPair !== '0'"
                ):
                    page.keyboard.press("Shift+Tab")
                break
        answer_with_keyboard(page, q, q.right, where or "")
        expect_right(page, q)


def progress(page: Page) -> tuple[int, int]:
    text = page.locator("[data-quiz-progress] [data-quiz-progress-text]").first.text_content()
    match = re.search(r"(\d+) of (\d+)", text or "")
    assert match, f"no progress shown: {text!r}"
    return int(match[1]), int(match[2])


def test_quiz_progress_survives_a_reload(
    quiz_page: tuple[Page, list[Question]], site_dir: Path
) -> None:
    page, questions = quiz_page
    first, *rest = questions
    answer_with_mouse(page, first, first.wrong)
    for q in rest:
        answer_with_mouse(page, q, q.right)
    assert progress(page) == (len(rest), len(questions))

    page.reload()
    assert progress(page) == (len(rest), len(questions)), "progress lost on reload"
    expect_wrong(page, first)
    assert feedback(page, first)["restored"], f"{first.qid}: answer not restored"
    for q in rest:
        expect_right(page, q)
        assert feedback(page, q)["restored"], f"{q.qid}: answer not restored"

    # The quiz index (the page listing every quiz) shows the same count for this quiz.
    slug = first.qid.split("/")[0]
    index_pages = [
        p.parent.relative_to(site_dir).as_posix() + "/"
        for p in site_dir.rglob("index.html")
        if "data-quiz-index" in p.read_text(encoding="utf-8")
    ]
    for index in index_pages:
        page.goto(index)
        entry = page.locator(f'[data-quiz-index] li[data-quiz-page="{slug}"]')
        shown = entry.locator("[data-quiz-progress-for]").text_content() or ""
        assert f"{len(rest)} of {len(questions)}" in shown, f"{index}: {slug} shows {shown!r}"

    # Reset clears the page's answers, and they stay cleared after a reload.
    page.go_back()
    page.locator('[data-quiz-reset="page"]').click()
    assert progress(page) == (0, len(questions))
    page.reload()
    assert progress(page) == (0, len(questions)), "reset answers came back after a reload"

"""Quizzes: YAML questions in a Markdown page, rendered to accessible HTML at build time.

A quiz page holds its questions in a fenced block with the language ``quiz``::

    ```quiz
    questions:
      - id: mean-gradient          # stable: progress in the browser is keyed by it
        type: choice               # choice | blank | match
        prompt: For `y = x.mean()` over 4 elements, what is each gradient?
        check: |                   # optional: tests run it and compare with the answer
          x = torch.ones(4, requires_grad=True)
          x.mean().backward()
          x.grad[0].item()
        choices:
          - {text: "`0.25`", value: 0.25, correct: true, explain: ...}
          - {text: "`1`", value: 1, explain: ...}
        see: "[The gradient of a mean](../../chapters/non-scalar-outputs.md#the-gradient-of-a-mean)"
    ```

``practice/index.md`` lists every quiz with a ``quiz-index`` block (empty body).

This module finds a page's quiz fences and replaces them with HTML; the work is done by
``quiz_model.py`` (the YAML, checked and typed), ``quiz_render.py`` with
``templates/quiz.html`` (the HTML, and its hooks for ``docs/assets/javascripts/quiz.js``)
and ``tex_text.py`` (maths as text where markup cannot go).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from coursekit.content.quiz_model import (
    BLANK,
    TYPES,
    Quiz,
    QuizError,
    load,
    normalise_blank,
    validate,
)
from coursekit.content.quiz_render import QuizRenderer, Resolve
from coursekit.markdown.fences import scan

__all__ = [
    "BLANK",
    "INDEX_LANG",
    "QUIZ_LANG",
    "TYPES",
    "Quiz",
    "QuizError",
    "QuizRenderer",
    "load",
    "normalise_blank",
    "page_quizzes",
    "render_page",
    "scan",
    "validate",
]

QUIZ_LANG = "quiz"
INDEX_LANG = "quiz-index"


def render_page(
    markdown_text: str,
    page: str,
    resolve: Resolve,
    all_quizzes: Callable[[], list[tuple[Quiz, str, str]]],
    renderer: QuizRenderer,
    *,
    line_offset: int = 0,
) -> str:
    """Replace the ``quiz`` and ``quiz-index`` fences of a page with their HTML.

    ``page`` is the page's docs-relative path (``practice/quizzes/x.md``); ``resolve``
    turns a docs-relative ``.md`` path into a URL relative to this page (None: missing);
    ``all_quizzes`` lists every quiz of the site, in navigation order, as (quiz, title,
    URL relative to this page), for a ``quiz-index`` fence. ``line_offset`` lines of the
    file (its front matter) come before ``markdown_text``: errors name the file's line.
    """
    fences = [f for f in scan(markdown_text, f"docs/{page}") if f.lang in {QUIZ_LANG, INDEX_LANG}]
    lines = markdown_text.split("\n")
    # Replace from the bottom up so that earlier line numbers stay valid.
    for fence in reversed(fences):
        if fence.lang == QUIZ_LANG:
            one = load(replace(fence, line=fence.line + line_offset))
            rendered = renderer.quiz(one, page, resolve)
        else:
            rendered = renderer.index(all_quizzes())
        lines[fence.line - 1 : fence.end] = ["", rendered, ""]
    return "\n".join(lines)


def page_quizzes(text: str, path: str) -> list[Quiz]:
    """Every quiz of one page's source (``path`` as errors should name it)."""
    return [load(f) for f in scan(text, path) if f.lang == QUIZ_LANG]

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

The build renders each ``quiz`` fence through a superfences fence of its own
(coursekit/mkdocs_adapter/quiz_fence.py); the work is done by ``quiz_model.py`` (the YAML,
checked and typed), ``quiz_render.py`` with ``templates/quiz.html`` (the HTML, and its
hooks for ``docs/assets/javascripts/quiz.js``) and ``tex_text.py`` (maths as text where
markup cannot go).
"""

from __future__ import annotations

from coursekit.content.quiz_model import (
    BLANK,
    TYPES,
    Quiz,
    QuizError,
    load,
    normalise_blank,
    validate,
)
from coursekit.content.quiz_render import QuizRenderer
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
    "scan",
    "validate",
]

QUIZ_LANG = "quiz"
INDEX_LANG = "quiz-index"


def page_quizzes(text: str, path: str) -> list[Quiz]:
    """Every quiz of one page's source (``path`` as errors should name it)."""
    return [load(f) for f in scan(text, path) if f.lang == QUIZ_LANG]

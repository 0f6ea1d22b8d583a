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

The HTML works without JavaScript: questions, options and an ``Answer and
explanations`` ``<details>`` are plain HTML. ``docs/assets/javascripts/quiz.js``
adds checking, feedback, retries and progress saved in ``localStorage``.
Markup hooks for scripts and browser tests: ``.quiz-question[data-quiz-id]``,
``[data-quiz-type]``, ``.quiz-feedback``, ``.quiz-check``, ``.quiz-reveal``,
``.quiz-answer``, ``[data-quiz-reset]``, ``[data-quiz-progress]``.
"""

from __future__ import annotations

import ast
import hashlib
import html
import json
import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

import markdown
import yaml

from coursekit.content.mathml import MathMLExtension
from coursekit.markdown.fences import Fence, scan

QUIZ_LANG = "quiz"
INDEX_LANG = "quiz-index"
BLANK = "____"
TYPES = MappingProxyType(
    {"choice": "multiple choice", "blank": "fill in the blank", "match": "matching"}
)

_ID = re.compile(r"^[a-z0-9][a-z0-9-]*$")
_KEYS = MappingProxyType(
    {
        "choice": frozenset({"id", "type", "prompt", "choices", "explain", "see", "check"}),
        "blank": frozenset(
            {"id", "type", "prompt", "code", "answers", "wrong", "explain", "see", "check"}
        ),
        "match": frozenset({"id", "type", "prompt", "pairs", "explain", "see"}),
    }
)
_CHOICE_KEYS = frozenset({"text", "explain", "correct", "value"})
_PAIR_KEYS = frozenset({"left", "right", "explain", "check"})


class QuizError(ValueError):
    """A quiz block that cannot be used; the message starts with file:line."""


# --- Reading and validating --------------------------------------------------------


@dataclass(frozen=True)
class Quiz:
    """The questions of one ``quiz`` fence of one page."""

    path: str  # docs/practice/quizzes/<slug>.md
    line: int
    questions: list[dict[str, Any]]

    @property
    def slug(self) -> str:
        return Path(self.path).stem

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"


def normalise_blank(answer: str) -> str:
    """How an answer typed into a blank is compared (quiz.js does the same)."""
    # Whitespace never matters in these one-token answers (`retain_graph = True`).
    answer = re.sub(r"\s+", "", str(answer))
    return answer.removeprefix(".").removesuffix("()")


def _text(value: Any) -> str:
    return "" if value is None else str(value).strip()


def validate(data: Any, where: str) -> list[str]:
    """Every problem with one quiz block's data, each starting with ``where``."""
    if not isinstance(data, dict) or not isinstance(data.get("questions"), list):
        return [f"{where}: a quiz block needs a 'questions:' list"]
    problems: list[str] = []
    extra = set(data) - {"questions"}
    if extra:
        problems.append(f"{where}: unknown keys {sorted(extra)}")
    seen: set[str] = set()
    for number, question in enumerate(data["questions"], start=1):
        at = f"{where}: question {number}"
        if not isinstance(question, dict):
            problems.append(f"{at}: must be a mapping")
            continue
        qid, kind = _text(question.get("id")), str(question.get("type"))
        at = f"{where}: question {number} ({qid or 'no id'})"
        if not _ID.match(qid):
            problems.append(f"{at}: 'id' must be lower-case letters, digits and dashes")
        elif qid in seen:
            problems.append(f"{at}: the id is used twice on this page")
        seen.add(qid)
        if kind not in TYPES:
            problems.append(f"{at}: 'type' must be one of {sorted(TYPES)}")
            continue
        unknown = set(question) - _KEYS[kind]
        if unknown:
            problems.append(f"{at}: unknown keys {sorted(unknown)}")
        if not _text(question.get("prompt")):
            problems.append(f"{at}: the prompt is empty")
        if "explain" in question and not _text(question.get("explain")):
            problems.append(f"{at}: 'explain' is empty")
        problems += [f"{at}: {p}" for p in _VALIDATORS[kind](question)]
    return problems


def _validate_choice(question: dict[str, Any]) -> list[str]:
    choices = question.get("choices")
    if not isinstance(choices, list) or len(choices) < 2:
        return ["needs at least two 'choices'"]
    problems = []
    for i, choice in enumerate(choices, start=1):
        if not isinstance(choice, dict):
            problems.append(f"choice {i} must be a mapping")
            continue
        if set(choice) - _CHOICE_KEYS:
            problems.append(f"choice {i}: unknown keys {sorted(set(choice) - _CHOICE_KEYS)}")
        text = choice.get("text")
        if text is not None and not isinstance(text, str):
            # YAML reads `text: yes` as True, `text: 1` as 1: the page would show "True".
            problems.append(
                f"choice {i}: text must be a string, not {type(text).__name__} {text!r} "
                "(quote it in the YAML)"
            )
        elif not _text(text):
            problems.append(f"choice {i} has no text")
        if not _text(choice.get("explain")):
            problems.append(f"choice {i} has no explanation")
    texts = [_text(c.get("text")) for c in choices if isinstance(c, dict)]
    if len(set(texts)) != len(texts):
        problems.append("two choices have the same text")
    correct = [c for c in choices if isinstance(c, dict) and c.get("correct") is True]
    if len(correct) != 1:
        problems.append(f"exactly one choice must be 'correct: true' (found {len(correct)})")
    elif "check" in question and "value" not in correct[0]:
        problems.append("a question with 'check' needs a 'value' on its correct choice")
    return problems


def _validate_blank(question: dict[str, Any]) -> list[str]:
    problems = []
    code = question.get("code")
    if not isinstance(code, str) or code.count(BLANK) != 1:
        problems.append(f"'code' must contain the blank {BLANK} exactly once")
    answers = question.get("answers")
    if not isinstance(answers, list) or not answers or not all(_text(a) for a in answers):
        problems.append("needs a non-empty 'answers' list")
        answers = []
    if not _text(question.get("explain")):
        problems.append("needs an 'explain' for the right answer")
    wrong = question.get("wrong", {})
    if not isinstance(wrong, dict):
        return [*problems, "'wrong' must map wrong answers to explanations"]
    for answer, why in wrong.items():
        if not _text(why):
            problems.append(f"wrong answer {answer!r} has no explanation")
    accepted = {normalise_blank(a) for a in answers}
    clash = accepted & {normalise_blank(a) for a in wrong}
    if clash:
        problems.append(f"{sorted(clash)} is listed as both right and wrong")
    return problems


def _validate_match(question: dict[str, Any]) -> list[str]:
    pairs = question.get("pairs")
    if not isinstance(pairs, list) or len(pairs) < 2:
        return ["needs at least two 'pairs'"]
    problems = []
    for i, pair in enumerate(pairs, start=1):
        if not isinstance(pair, dict):
            problems.append(f"pair {i} must be a mapping")
            continue
        if set(pair) - _PAIR_KEYS:
            problems.append(f"pair {i}: unknown keys {sorted(set(pair) - _PAIR_KEYS)}")
        for key in ("left", "right", "explain"):
            if not _text(pair.get(key)):
                problems.append(f"pair {i} has no '{key}'")
    for side in ("left", "right"):
        values = [_text(p.get(side)) for p in pairs if isinstance(p, dict)]
        if len(set(values)) != len(values):
            problems.append(f"two pairs have the same '{side}'")
    return problems


_VALIDATORS = MappingProxyType(
    {"choice": _validate_choice, "blank": _validate_blank, "match": _validate_match}
)


def load(fence: Fence) -> Quiz:
    """Parse and validate one ``quiz`` fence; raise QuizError naming file and line."""
    try:
        data = yaml.safe_load(fence.body)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = fence.line + 1 + mark.line if mark else fence.line
        problem = getattr(error, "problem", None) or error
        raise QuizError(f"{fence.path}:{line}: the quiz is not valid YAML: {problem}") from None
    problems = validate(data, fence.where)
    if problems:
        raise QuizError("\n".join(problems))
    return Quiz(fence.path, fence.line, data["questions"])


def quizzes_in_file(path: Path, root: Path) -> list[Quiz]:
    return page_quizzes(path.read_text(encoding="utf-8"), path.relative_to(root).as_posix())


# --- Checks against PyTorch (used by tests/test_quizzes.py) -----------------------------


def run_check(code: str, namespace: dict[str, Any]) -> Any:
    """Run ``code`` like a notebook cell: the value of its last expression is returned."""
    tree = ast.parse(code)
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    exec(compile(tree, "<quiz check>", "exec"), namespace)
    if last is None:
        raise QuizError("a check must end with an expression whose value is compared")
    assert isinstance(last, ast.Expr)
    return eval(compile(ast.Expression(last.value), "<quiz check>", "eval"), namespace)


# --- Rendering ------------------------------------------------------------------------


class _Renderer:
    """Renders the Markdown fragments of one page (prompts, options, explanations)."""

    def __init__(self, page_src: str, resolve: Any) -> None:
        self.page_src = page_src  # e.g. practice/quizzes/chain-rule.md
        self.resolve = resolve  # docs-relative .md path -> URL relative to this page, or None
        self.md = markdown.Markdown(
            extensions=["pymdownx.highlight", "pymdownx.superfences", MathMLExtension()],
            extension_configs={"pymdownx.highlight": {"use_pygments": True}},
        )

    def block(self, text: Any) -> str:
        self.md.reset()
        return self._links(self.md.convert(_text(text)))

    def inline(self, text: Any) -> str:
        rendered = self.block(text)
        match = re.fullmatch(r"<p>(.*)</p>", rendered, re.S)
        return match[1] if match else rendered

    def plain(self, text: Any) -> str:
        """Text for places that cannot hold markup (``<option>``); maths as its TeX source."""
        return _as_text(self.inline(text))

    def _links(self, rendered: str) -> str:
        def fix(match: re.Match[str]) -> str:
            target = posixpath.normpath(
                posixpath.join(posixpath.dirname(self.page_src), match["path"])
            )
            url = self.resolve(target)
            if url is None:
                raise QuizError(f"docs/{self.page_src}: link to a missing page {match['path']!r}")
            return f'href="{url}{match["anchor"] or ""}"'

        return re.sub(r'href="(?P<path>[^":#?]+\.md)(?P<anchor>#[^"]*)?"', fix, rendered)


_MATHS = re.compile(r'<math[^>]*alttext="([^"]*)".*?</math>', re.S)


def _as_text(rendered: str) -> str:
    """Rendered inline HTML as escaped text, its maths read out (see ``_tex_as_text``)."""
    return html.escape(html.unescape(re.sub(r"<[^>]+>", "", _MATHS.sub(_tex_as_text, rendered))))


def _name_if_maths(label: str) -> str:
    """An ``aria-label`` for a control whose rendered label holds any maths, else nothing.

    Accessible names leave MathML out (axe-core, NVDA and JAWS all drop it): "$-0.75$"
    would name its control with nothing, "the gradient $dy/dx$" with half a sentence.
    """
    return f' aria-label="{_as_text(label)}"' if "<math" in label else ""


# TeX as plain text, for <option>s and accessible names. Commands in TEX_SYMBOLS read as
# their symbol, formatting commands vanish, and any other keeps its name (\sin, \log,
# \max), so "$2\sin(x)$" reads "2 sin(x)", not "2(x)".
TEX_SYMBOLS = MappingProxyType(
    {
        "alpha": "α",
        "beta": "β",
        "gamma": "γ",
        "delta": "δ",
        "epsilon": "ε",
        "varepsilon": "ε",
        "eta": "η",
        "theta": "θ",
        "lambda": "λ",
        "mu": "μ",
        "pi": "π",
        "rho": "ρ",
        "sigma": "σ",
        "tau": "τ",
        "phi": "φ",
        "omega": "ω",
        "Delta": "Δ",
        "Sigma": "Σ",
        "partial": "∂",
        "nabla": "∇",
        "times": "×",
        "cdot": "·",
        "approx": "≈",
        "le": "≤",
        "leq": "≤",
        "ge": "≥",
        "geq": "≥",
        "ne": "≠",
        "neq": "≠",
        "in": "∈",
        "infty": "∞",
        "sum": "Σ",
        "lVert": "‖",
        "rVert": "‖",
        "ldots": "…",
        "to": "→",
        "quad": " ",
    }
)
# Read with the next symbol ("∂b", "‖x"), not spaced from it.
TEX_PREFIXES = frozenset({"partial", "nabla", "sum", "lVert", "Delta"})
TEX_FORMATTING = frozenset(
    {"mathrm", "mathbf", "mathit", "mathbb", "mathcal", "text", "operatorname", "left", "right"}
)
TEX_ACCENTS = MappingProxyType({"hat": "\u0302", "bar": "\u0304", "tilde": "\u0303"})
_FRAC = re.compile(r"\\[dt]?frac\{([^{}]*)\}\{([^{}]*)\}")


def _fraction_part(part: str) -> str:
    """A sum or difference in a fraction gets brackets: "(a+b)/c", not "a+b/c"."""
    return f"({part.strip()})" if re.search(r"[-+]", part.strip()[1:]) else part.strip()


def _tex_as_text(match: re.Match[str]) -> str:
    tex = html.unescape(match[1])
    # Accents combine with their letter (x̂); spacing commands are spaces.
    tex = re.sub(r"\\(hat|bar|tilde)\s*\{?(\w)\}?", lambda m: m[2] + TEX_ACCENTS[m[1]], tex)
    tex = re.sub(r"\\[,;:!]", " ", tex).replace("\\|", "‖")
    # Innermost groups first: ^{...} and \sqrt{...}, then fractions, until none is left.
    while True:
        before = tex
        tex = re.sub(r"\^\{\\top\}|\^\\top", "ᵀ", tex)
        tex = re.sub(
            r"\^\{([^{}]*)\}", lambda m: "^" + (m[1] if len(m[1]) == 1 else f"({m[1]})"), tex
        )
        tex = re.sub(r"\\sqrt\{([^{}]*)\}", r"√(\1)", tex)
        tex = _FRAC.sub(lambda m: f"{_fraction_part(m[1])}/{_fraction_part(m[2])}", tex)
        if tex == before:
            break

    def command(m: re.Match[str]) -> str:
        name, space = m[1], " " if m[2] else ""
        if name in TEX_FORMATTING:
            return ""
        if name in TEX_SYMBOLS:
            return TEX_SYMBOLS[name] + ("" if name in TEX_PREFIXES else space)
        after_word = m.start() > 0 and tex[m.start() - 1].isalnum()
        return f"{' ' if after_word else ''}{name}{space}"

    tex = re.sub(r"\\([a-zA-Z]+)(\s*)", command, tex)
    return html.escape(re.sub(r" {2,}", " ", re.sub(r"[{}]", "", tex)).strip())


def _attr(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _order(question_id: str, items: list[str]) -> list[int]:
    """A fixed shuffle of the right-hand column of a matching question (never the identity)."""
    order = sorted(
        range(len(items)),
        key=lambda i: hashlib.sha256(f"{question_id}:{items[i]}".encode()).hexdigest(),
    )
    if order == list(range(len(items))):
        order = order[1:] + order[:1]
    return order


def render_quiz(quiz: Quiz, renderer: _Renderer) -> str:
    """The HTML of one quiz: its progress bar, then every question."""
    ids = " ".join(q["id"] for q in quiz.questions)
    parts = [
        f'<div class="quiz" data-quiz-page="{_attr(quiz.slug)}">',
        f'<div class="quiz-progress" data-quiz-progress data-quiz-page="{_attr(quiz.slug)}" '
        f'data-quiz-ids="{_attr(ids)}" data-needs-js>',
        '<p class="quiz-progress__text" data-quiz-progress-text aria-live="polite"></p>',
        '<button type="button" class="md-button quiz-reset" data-quiz-reset="page">'
        "Reset my answers on this page</button>",
        "</div>",
        '<noscript><p class="quiz-noscript">With JavaScript on, you can check your answers '
        "here. Without it, open <em>Answer and explanations</em> under each question."
        "</p></noscript>",
    ]
    total = len(quiz.questions)
    for number, question in enumerate(quiz.questions, start=1):
        parts.append(_render_question(quiz, question, number, total, renderer))
    parts.append("</div>")
    return "\n".join(parts)


def _render_question(
    quiz: Quiz, question: dict[str, Any], number: int, total: int, r: _Renderer
) -> str:
    qid, kind = question["id"], question["type"]
    base = f"quiz-{qid}"
    inputs, key, answer = {"choice": _choice, "blank": _blank, "match": _match}[kind](
        question, base, r
    )
    general = ""
    if kind != "blank" and _text(question.get("explain")):
        general = f'<div class="quiz-explanation__general">{r.block(question["explain"])}</div>'
    see = ""
    if _text(question.get("see")):
        see = f'<p class="quiz-answer__see">Review: {r.inline(question["see"])}</p>'
    answer_attr = f' data-quiz-answer="{_attr(answer)}"' if answer else ""
    return "\n".join(
        [
            f'<section class="quiz-question" id="{base}" aria-labelledby="{base}-title" '
            f'data-quiz-id="{_attr(quiz.slug)}/{qid}" data-quiz-type="{kind}"{answer_attr}>',
            f'<h2 class="quiz-question__title" id="{base}-title">Question {number} of {total} '
            f'<span class="quiz-question__type">({TYPES[kind]})</span>'
            '<span class="quiz-question__status" data-quiz-status></span></h2>',
            f'<form class="quiz-form" data-quiz-form aria-describedby="{base}-feedback">',
            '<fieldset class="quiz-fieldset">',
            f'<legend class="quiz-prompt">{r.inline(question["prompt"])}</legend>',
            inputs,
            "</fieldset>",
            '<div class="quiz-actions" data-quiz-actions data-needs-js>',
            '<button type="submit" class="md-button md-button--primary quiz-check">'
            "Check answer</button>",
            '<button type="button" class="md-button quiz-reveal" data-quiz-reveal hidden>'
            "Show the answer</button>",
            "</div>",
            "</form>",
            # Outside the form: explanations copied into it may contain buttons.
            f'<div class="quiz-feedback" id="{base}-feedback" data-quiz-feedback role="status" '
            'aria-live="polite"></div>',
            # Hidden by quiz.css from the first paint when JavaScript runs (no layout
            # shift); quiz.js then hides it properly and shows it on request.
            '<details class="quiz-answer" data-quiz-answer-key data-quiz-pending>',
            "<summary>Answer and explanations</summary>",
            key,
            general,
            see,
            "</details>",
            "</section>",
        ]
    )


def _explanation(label: str, verdict: str, explain: str, attrs: str) -> str:
    """One line of the answer key; quiz.js copies its text into the feedback."""
    correct = "true" if verdict == "right" else "false"
    return (
        f'<li class="quiz-explanation" {attrs} data-correct="{correct}">'
        f"<strong>{label}</strong> ({verdict}): "
        f'<span class="quiz-explanation__text">{explain}</span></li>'
    )


def _key(answer_html: str, explanations: list[str]) -> str:
    lines = "\n".join(explanations)
    return (
        f'<p class="quiz-answer__key"><strong>Answer:</strong> {answer_html}</p>\n'
        f'<ul class="quiz-explanations">\n{lines}\n</ul>'
    )


def _choice(question: dict[str, Any], base: str, r: _Renderer) -> tuple[str, str, str]:
    """Radio buttons; the answer is the index of the correct choice."""
    choices = question["choices"]
    correct = next(i for i, c in enumerate(choices) if c.get("correct") is True)
    labels = [r.inline(c["text"]) for c in choices]
    options = "\n".join(
        f'<li class="quiz-choice"><input type="radio" name="{base}" id="{base}-c{i}" value="{i}"'
        f'{_name_if_maths(label)}><label for="{base}-c{i}">{label}</label></li>'
        for i, label in enumerate(labels)
    )
    explanations = [
        _explanation(
            r.inline(c["text"]),
            "right" if i == correct else "wrong",
            r.inline(c["explain"]),
            f'data-quiz-explain="{i}"',
        )
        for i, c in enumerate(choices)
    ]
    key = _key(r.inline(choices[correct]["text"]), explanations)
    return f'<ul class="quiz-choices">\n{options}\n</ul>', key, str(correct)


def _blank(question: dict[str, Any], base: str, r: _Renderer) -> tuple[str, str, str]:
    """A text field inside the code; the answer is the accepted answers, normalised."""
    before, after = question["code"].rstrip("\n").split(BLANK)
    answers = [str(a) for a in question["answers"]]
    width = max(6, *(len(a) + 2 for a in answers))
    field = (
        f'<input type="text" class="quiz-blank" id="{base}-blank" name="{base}" '
        f'size="{width}" autocomplete="off" autocapitalize="off" spellcheck="false" '
        'aria-label="The missing code">'
    )
    # Not <pre><code>: Material would add a copy button, which is a submit button, to the form.
    inputs = (
        f'<div class="quiz-code"><code>{html.escape(before)}{field}{html.escape(after)}'
        "</code></div>"
    )
    code = [f"<code>{html.escape(a)}</code>" for a in answers]
    explanations = [
        _explanation(code[0], "right", r.inline(question["explain"]), 'data-quiz-explain="right"')
    ] + [
        _explanation(
            f"<code>{html.escape(str(a))}</code>",
            "wrong",
            r.inline(why),
            f'data-quiz-wrong="{_attr(normalise_blank(a))}"',
        )
        for a, why in question.get("wrong", {}).items()
    ]
    also = f" (also accepted: {', '.join(code[1:])})" if len(code) > 1 else ""
    accepted = json.dumps(sorted({normalise_blank(a) for a in answers}))
    return inputs, _key(code[0] + also, explanations), accepted


def _match(question: dict[str, Any], base: str, r: _Renderer) -> tuple[str, str, str]:
    """One select per left item; option values are pair indexes, so pair i matches i."""
    pairs = question["pairs"]
    order = _order(question["id"], [_text(p["right"]) for p in pairs])
    options = "".join(f'<option value="{i}">{r.plain(pairs[i]["right"])}</option>' for i in order)
    rows = "\n".join(
        f'<li class="quiz-pair"><label class="quiz-pair__left" for="{base}-p{i}">'
        f'{left}</label> <select id="{base}-p{i}" data-quiz-pair="{i}"{_name_if_maths(left)}>'
        f'<option value="">Choose…</option>{options}</select>'
        '<span class="quiz-pair__mark" data-quiz-mark></span></li>'
        for i, left in enumerate(r.inline(p["left"]) for p in pairs)
    )
    explanations = [
        _explanation(
            f"{r.inline(p['left'])} → {r.inline(p['right'])}",
            "right",
            r.inline(p["explain"]),
            f'data-quiz-explain="{i}"',
        )
        for i, p in enumerate(pairs)
    ]
    return f'<ul class="quiz-pairs">\n{rows}\n</ul>', _key("these pairs.", explanations), ""


def render_index(quizzes: list[tuple[Quiz, str, str]]) -> str:
    """The list of quizzes on practice/index.md: (quiz, title, URL) for each page."""
    items = []
    for quiz, title, url in quizzes:
        ids = " ".join(q["id"] for q in quiz.questions)
        items.append(
            f'<li data-quiz-page="{_attr(quiz.slug)}" data-quiz-ids="{_attr(ids)}">'
            f'<a href="{_attr(url)}">{html.escape(title)}</a> ({len(quiz.questions)} questions)'
            '<span class="quiz-index__progress" data-quiz-progress-for hidden></span></li>'
        )
    lines = "\n".join(items)
    return "\n".join(
        [
            '<div class="quiz-index" data-quiz-index>',
            f'<ul class="quiz-index__list">\n{lines}\n</ul>',
            '<div class="quiz-progress" data-quiz-progress data-quiz-page="*" data-needs-js>',
            '<p class="quiz-progress__text" data-quiz-progress-text aria-live="polite"></p>',
            '<button type="button" class="md-button quiz-reset" data-quiz-reset="all">'
            "Reset all my quiz answers</button>",
            "</div>",
            "</div>",
        ]
    )


# --- A page's quiz fences, replaced by their HTML (called by the build) ---------------


def render_page(
    markdown_text: str,
    page: str,
    resolve: Callable[[str], str | None],
    all_quizzes: Callable[[], list[tuple[Quiz, str, str]]],
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
    if not fences:
        return markdown_text
    renderer = _Renderer(page, resolve)
    lines = markdown_text.split("\n")
    # Replace from the bottom up so that earlier line numbers stay valid.
    for fence in reversed(fences):
        if fence.lang == QUIZ_LANG:
            rendered = render_quiz(load(replace(fence, line=fence.line + line_offset)), renderer)
        else:
            rendered = render_index(all_quizzes())
        lines[fence.line - 1 : fence.end] = ["", rendered, ""]
    return "\n".join(lines)


def page_quizzes(text: str, path: str) -> list[Quiz]:
    """Every quiz of one page's source (``path`` as errors should name it)."""
    return [load(f) for f in scan(text, path) if f.lang == QUIZ_LANG]

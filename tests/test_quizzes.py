"""The quizzes: valid data, answers that PyTorch agrees with, and accessible markup.

The questions live in ```quiz blocks of docs/practice/quizzes/*.md
(coursekit/content/quiz_model.py reads them).
"""

from __future__ import annotations

import ast
import json
import math
import re
import shutil
import subprocess
import warnings
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import markdown
import pytest
import torch
from support import ROOT, project

from coursekit.content import quiz, quiz_render, tex_text

DOCS = ROOT / "docs"
QUIZ_DIR = DOCS / "practice" / "quizzes"

# Every chapter of the module has its own quiz page of the same name; the module summary
# is the one page of the chapter folders that is not a chapter.
PROJECT = project()  # one load per process: tests/support.py
NOT_CHAPTERS = {"summary"}
CHAPTERS = [page for page in PROJECT.chapter_pages() if page.stem not in NOT_CHAPTERS]
PAGES = sorted(QUIZ_DIR.glob("*.md"))


@dataclass(frozen=True)
class _PageQuizzes:
    """One quiz page, read without raising: the quizzes that load and why the others don't."""

    blocks: int  # ```quiz fences on the page, loadable or not
    quizzes: tuple[quiz.Quiz, ...]
    problems: tuple[str, ...]  # each starts with file:line


def _read(page: Path) -> _PageQuizzes:
    blocks, quizzes, problems = 0, [], []
    text = page.read_text(encoding="utf-8")
    for fence in quiz.scan(text, page.relative_to(ROOT).as_posix()):
        if fence.lang != quiz.QUIZ_LANG:
            continue
        blocks += 1
        try:
            quizzes.append(quiz.load(fence))  # what the build does: YAML, then quiz.validate
        except quiz.QuizError as error:  # its message starts with file:line
            problems.append(str(error))
        except Exception as error:  # a validator crash is still this quiz's problem
            problems.append(f"{fence.where}: {type(error).__name__}: {error}")
    return _PageQuizzes(blocks, tuple(quizzes), tuple(problems))


# Collection never raises on a bad quiz: the tests below are parametrised over the quizzes
# that load, and test_quiz_data_is_valid is the one that names a quiz that does not.
QUIZZES = [q for page in PAGES for q in _read(page).quizzes]
QUESTIONS = [(q, question.yaml) for q in QUIZZES for question in q.questions]


def _ids(item: Any) -> str:
    return f"{item[0].slug}/{item[1]['id']}" if isinstance(item, tuple) else str(item)


# --- Coverage -------------------------------------------------------------------------


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda page: page.stem)
def test_every_chapter_has_a_quiz_of_three_or_more(chapter: Path) -> None:
    page = QUIZ_DIR / f"{chapter.stem}.md"
    assert page.exists(), f"{chapter.relative_to(ROOT)} has no quiz page {page.name}"
    read, where = _read(page), page.relative_to(ROOT)
    assert read.blocks == 1, f"{where}: expected one ```quiz block, found {read.blocks}"
    assert read.quizzes, f"{where}: its quiz does not load (see test_quiz_data_is_valid)"
    assert len(read.quizzes[0].questions) >= 3


def test_all_three_question_types_are_used() -> None:
    assert {question["type"] for _, question in QUESTIONS} == set(quiz.TYPES)


def test_syllabus_multiple_choice_on_the_mean() -> None:
    question = _find("non-scalar-outputs", "mean-gradient")
    assert question["type"] == "choice"
    assert [c["value"] for c in question["choices"]] == [0, 0.25, 1, 4]
    assert _correct(question)["value"] == 0.25


def test_syllabus_fill_in_the_blank_sum() -> None:
    question = _find("non-scalar-outputs", "reduce-with-sum")
    assert question["type"] == "blank"
    assert "(x ** 2).____()" in question["code"] and "backward()" in question["code"]
    # nansum() is accepted too: with no NaN it is the same sum, with the same gradient.
    assert question["answers"] == ["sum", "nansum"]


def test_syllabus_matching() -> None:
    question = _find("non-scalar-outputs", "backward-situations")
    pairs = {p["left"]: p["right"] for p in question["pairs"]}
    assert "works" in pairs["a scalar loss"]
    assert "sum()" in pairs["a vector output"] and "mean()" in pairs["a vector output"]
    assert "freed" in pairs["a second `backward()` through the same graph"]
    assert "keeps the graph" in pairs["`retain_graph=True`"]


def _find(slug: str, qid: str) -> dict[str, Any]:
    found = next((q for page, q in QUESTIONS if page.slug == slug and q["id"] == qid), None)
    assert found is not None, f"no question {slug}/{qid}, or its quiz does not load"
    return found


def _correct(question: dict[str, Any]) -> dict[str, Any]:
    return next(c for c in question["choices"] if c.get("correct") is True)


# --- Validation (and that the validator catches what it should) ------------------------


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.stem)
def test_quiz_data_is_valid(page: Path) -> None:
    """Every quiz block of the page loads as the build loads it; a bad one is named here,
    with its file and line, and left out of the other tests (collection never fails)."""
    problems = list(_read(page).problems)  # every bad block of the page, not only the first
    if not problems:
        try:
            # the build's own reader accepts the page too
            quiz.page_quizzes(page.read_text(encoding="utf-8"), page.relative_to(ROOT).as_posix())
        except quiz.QuizError as error:
            problems.append(str(error))
    assert not problems, "\n".join(problems)


def test_question_ids_are_unique_across_the_site() -> None:
    ids = [f"{page.slug}/{q['id']}" for page, q in QUESTIONS]
    assert len(ids) == len(set(ids))


GOOD_CHOICE = {
    "id": "q",
    "type": "choice",
    "prompt": "Which?",
    "choices": [
        {"text": "a", "correct": True, "explain": "Because."},
        {"text": "b", "explain": "No."},
    ],
}


@pytest.mark.parametrize(
    ("broken", "problem"),
    [
        (
            {
                "choices": [
                    {"text": "a", "correct": True, "explain": "x"},
                    {"text": "b", "correct": True, "explain": "y"},
                ]
            },
            "exactly one",
        ),
        (
            {"choices": [{"text": "a", "explain": "x"}, {"text": "b", "explain": "y"}]},
            "exactly one",
        ),
        (
            {
                "choices": [
                    {"text": "a", "correct": True, "explain": ""},
                    {"text": "b", "explain": "y"},
                ]
            },
            "no explanation",
        ),
        ({"explain": "  "}, "'explain' is empty"),
        ({"prompt": ""}, "prompt is empty"),
        ({"id": "Bad Id"}, "'id'"),
        ({"type": "essay"}, "'type'"),
        ({"explaination": "typo"}, "unknown keys"),
        ({"check": "1"}, "needs a 'value'"),
        # YAML reads `text: yes` as True: the page would show "True".
        (
            {
                "choices": [
                    {"text": True, "correct": True, "explain": "x"},
                    {"text": "b", "explain": "y"},
                ]
            },
            "text must be a string, not bool True",
        ),
    ],
)
def test_validator_rejects_broken_choice(broken: dict[str, Any], problem: str) -> None:
    problems = quiz.validate({"questions": [{**GOOD_CHOICE, **broken}]}, "page.md:1")
    assert any(problem in p for p in problems), problems


@pytest.mark.parametrize(
    ("question", "problem"),
    [
        (
            {
                "id": "m",
                "type": "match",
                "prompt": "Match.",
                "pairs": [
                    {"left": "a", "right": "1", "explain": "x"},
                    {"left": "b", "explain": "y"},
                ],
            },
            "no 'right'",
        ),
        (
            {
                "id": "m",
                "type": "match",
                "prompt": "Match.",
                "pairs": [{"left": "a", "right": "1", "explain": "x"}],
            },
            "at least two",
        ),
        (
            {
                "id": "m",
                "type": "match",
                "prompt": "Match.",
                "pairs": [
                    {"left": "a", "right": "1", "explain": ""},
                    {"left": "b", "right": "2", "explain": "y"},
                ],
            },
            "no 'explain'",
        ),
        (
            {
                "id": "b",
                "type": "blank",
                "prompt": "Fill.",
                "code": "x.()",
                "answers": ["a"],
                "explain": "x",
            },
            "exactly once",
        ),
        (
            {
                "id": "b",
                "type": "blank",
                "prompt": "Fill.",
                "code": "x.____()",
                "answers": ["a"],
                "explain": "",
            },
            "needs an 'explain'",
        ),
        (
            {
                "id": "b",
                "type": "blank",
                "prompt": "Fill.",
                "code": "x.____()",
                "answers": ["a"],
                "explain": "x",
                "wrong": {"b": ""},
            },
            "no explanation",
        ),
        (
            {
                "id": "b",
                "type": "blank",
                "prompt": "Fill.",
                "code": "x.____()",
                "answers": ["a"],
                "explain": "x",
                "wrong": {" a ": "no"},
            },
            "both right and wrong",
        ),
    ],
)
def test_validator_rejects_broken_match_and_blank(question: dict[str, Any], problem: str) -> None:
    problems = quiz.validate({"questions": [question]}, "page.md:1")
    assert any(problem in p for p in problems), problems


def test_unquoted_yes_is_refused_with_file_and_line() -> None:
    text = (
        "# Quiz\n\n```quiz\nquestions:\n  - id: q\n    type: choice\n    prompt: P?\n"
        "    choices:\n      - {text: yes, correct: true, explain: a}\n"
        "      - {text: b, explain: c}\n```\n"
    )
    with pytest.raises(quiz.QuizError, match=r"^page\.md:3: question 1 \(q\): choice 1: text"):
        quiz.page_quizzes(text, "page.md")


def test_a_control_character_from_a_double_quoted_string_is_refused() -> None:
    """ "$2\\bar z$" in double quotes is "$2", a backspace and "ar z$" (it reached the site)."""
    text = (
        "# Quiz\n\n```quiz\nquestions:\n  - id: q\n    type: choice\n    prompt: P?\n"
        '    choices:\n      - {text: "$2\\bar z$", correct: true, explain: a}\n'
        "      - {text: b, explain: c}\n```\n"
    )
    with pytest.raises(quiz.QuizError, match=r"^page\.md:3: question 1 \(q\): U\+0008 in"):
        quiz.page_quizzes(text, "page.md")


def test_a_broken_quiz_names_its_file_and_line() -> None:
    text = "# Quiz\n\n```quiz\nquestions:\n  - id: q\n    prompt: a: b\n```\n"
    with pytest.raises(quiz.QuizError, match=r"^page\.md:6: the quiz is not valid YAML"):
        quiz.page_quizzes(text, "page.md")


# --- The answers agree with PyTorch ---------------------------------------------------


def _same(a: Any, b: Any) -> bool:
    """Equal, with float rounding allowed (PyTorch computes in float32)."""
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, bool) or isinstance(b, bool) or a is None or b is None:
        return a is b or a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-6)
    return a == b


def _run_check(code: str, namespace: dict[str, Any]) -> Any:
    """Run ``code`` like a notebook cell: the value of its last expression is returned."""
    tree = ast.parse(code)
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    exec(compile(tree, "<quiz check>", "exec"), namespace)
    assert isinstance(last, ast.Expr), "a check must end with an expression whose value is compared"
    return eval(compile(ast.Expression(last.value), "<quiz check>", "eval"), namespace)


def _run(code: str) -> Any:
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # e.g. reading a non-leaf's .grad on purpose
        return _run_check(code, {"torch": torch})


def _passes(code: str, check: str) -> bool:
    """Run a blank question's code with an answer filled in, then its check."""
    namespace: dict[str, Any] = {"torch": torch}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(code, namespace)
        return bool(_run_check(check, namespace))


CHECKED = [
    item for item in QUESTIONS if "check" in item[1] and item[1]["type"] in {"choice", "blank"}
]
PAIR_CHECKS = [
    (page, question, pair)
    for page, question in QUESTIONS
    if question["type"] == "match"
    for pair in question["pairs"]
    if "check" in pair
]


@pytest.mark.parametrize("item", CHECKED, ids=_ids)
def test_marked_answer_is_what_pytorch_computes(item: tuple[quiz.Quiz, dict[str, Any]]) -> None:
    _, question = item
    if question["type"] == "choice":
        result = _run(question["check"])
        assert _same(result, _correct(question)["value"]), result
        for choice in question["choices"]:
            if choice is not _correct(question) and "value" in choice:
                assert not _same(result, choice["value"]), f"{choice['text']} is also right"
        return
    for answer in question["answers"]:
        code = question["code"].replace(quiz.BLANK, str(answer))
        assert _passes(code, question["check"]), f"{answer!r} does not pass"
    for answer in question.get("wrong", {}):
        code = question["code"].replace(quiz.BLANK, str(answer))
        try:
            passes = _passes(code, question["check"])
        except Exception:  # a wrong answer may also fail by raising
            passes = False
        assert not passes, f"the wrong answer {answer!r} passes the check"


def test_value_questions_have_checks() -> None:
    """A choice whose options carry values is compared with PyTorch, never taken on trust."""
    for page, question in QUESTIONS:
        if question["type"] == "choice" and any("value" in c for c in question["choices"]):
            assert "check" in question, f"{page.slug}/{question['id']}"
    assert len(CHECKED) + len(PAIR_CHECKS) >= 20


@pytest.mark.parametrize(
    "item", PAIR_CHECKS, ids=lambda i: f"{i[0].slug}/{i[1]['id']}/{i[2]['left']}"
)
def test_matching_pair_holds_in_pytorch(
    item: tuple[quiz.Quiz, dict[str, Any], dict[str, Any]],
) -> None:
    assert _run(item[2]["check"]) is True


def test_a_wrong_marked_answer_is_caught() -> None:
    """The check above can fail: mark 1 as the mean's gradient and it must disagree."""
    question = _find("non-scalar-outputs", "mean-gradient")
    assert not _same(_run(question["check"]), 1)


# --- Links ------------------------------------------------------------------------------


def _anchors(page: Path) -> set[str]:
    """The heading ids MkDocs gives a page (same toc extension, headings only)."""
    headings, in_fence = [], False
    for line in page.read_text(encoding="utf-8").split("\n"):
        if re.match(r"^\s*(```|~~~)", line):
            in_fence = not in_fence
        elif not in_fence and re.match(r"^#{1,6} ", line):
            headings.append(line)
    md = markdown.Markdown(extensions=["toc"])
    md.convert("\n\n".join(headings))
    found: set[str] = set()

    def walk(tokens: list[dict[str, Any]]) -> None:
        for token in tokens:
            found.add(token["id"])
            walk(token["children"])

    walk(md.toc_tokens)
    return found


@pytest.mark.parametrize("item", QUESTIONS, ids=_ids)
def test_links_point_to_existing_pages_and_headings(item: tuple[quiz.Quiz, dict[str, Any]]) -> None:
    page, question = item
    texts = [question.get("see", ""), question.get("explain", "")]
    for link in re.findall(r"\]\(([^)]+)\)", " ".join(str(t) for t in texts)):
        path, _, anchor = link.partition("#")
        target = (ROOT / page.path).parent / path
        assert target.exists(), f"{page.slug}/{question['id']}: {link}"
        if anchor:
            assert anchor in _anchors(target), f"{page.slug}/{question['id']}: no #{anchor}"


# --- The HTML: readable without JavaScript, accessible -----------------------------------


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


RENDERER = quiz_render.QuizRenderer()  # one per build, as the plugin keeps it


def _render(page: quiz.Quiz) -> str:
    return RENDERER.quiz(page, page.path.removeprefix("docs/"), lambda target: f"/{target}")


@pytest.mark.parametrize("page", QUIZZES, ids=lambda q: q.slug)
def test_markup_is_accessible_and_readable_without_javascript(page: quiz.Quiz) -> None:
    html = _render(page)
    parser = _Collector()
    parser.feed(html)
    tags = parser.tags
    ids = [a["id"] for _, a in tags if a.get("id")]
    assert len(ids) == len(set(ids)), "duplicate ids"
    labelled = {a.get("for") for t, a in tags if t == "label"}
    for tag, attrs in tags:
        if (tag == "input" and attrs.get("type") == "radio") or tag == "select":
            assert attrs.get("id") in labelled, f"{tag} without a label: {attrs}"
        if tag == "input" and attrs.get("type") == "text":
            assert attrs.get("aria-label"), attrs
    # Accessible names leave MathML out: a label with maths names its control itself.
    by_id = {a["id"]: a for _, a in tags if a.get("id")}
    for target, label in re.findall(r'<label[^>]*for="([^"]+)"[^>]*>(.*?)</label>', html, re.S):
        if "<math" in label:
            name = by_id[target].get("aria-label") or ""
            assert name.strip() and "\\" not in name, f"{target}: no readable name ({name!r})"
    sections = [a for t, a in tags if t == "section" and "quiz-question" in (a.get("class") or "")]
    assert len(sections) == len(page.questions)
    for attrs in sections:
        assert attrs.get("data-quiz-id", "").startswith(f"{page.slug}/")
        assert attrs.get("data-quiz-type") in quiz.TYPES
    count = len(page.questions)
    assert sum(t == "fieldset" for t, _ in tags) == count
    assert sum(t == "legend" for t, _ in tags) == count
    assert sum(t == "details" for t, _ in tags) == count
    feedback = [a for t, a in tags if "quiz-feedback" in (a.get("class") or "")]
    assert len(feedback) == count and all(a.get("aria-live") == "polite" for a in feedback)
    # The controls that need JavaScript are hidden without it (quiz.css: `.no-js`), and
    # take their place from the first paint with it (no layout shift when quiz.js runs).
    for attrs in (a for t, a in tags if "quiz-actions" in (a.get("class") or "")):
        assert "data-needs-js" in attrs and "hidden" not in attrs


@pytest.mark.parametrize("item", QUESTIONS, ids=_ids)
def test_answer_and_every_explanation_are_in_the_page(
    item: tuple[quiz.Quiz, dict[str, Any]],
) -> None:
    page, question = item
    html = _render(page)
    section = html.split(f'data-quiz-id="{page.slug}/{question["id"]}"', 1)[1].split("</section>")[
        0
    ]
    details = section.split("<details", 1)[1]
    explanations = re.findall(r'class="quiz-explanation__text">(.*?)</span></li>', details, re.S)
    expected = {
        "choice": len(question.get("choices", [])),
        "blank": 1 + len(question.get("wrong", {})),
        "match": len(question.get("pairs", [])),
    }[question["type"]]
    assert len(explanations) == expected and all(e.strip() for e in explanations)
    if question["type"] == "choice":
        assert f'data-quiz-answer="{question["choices"].index(_correct(question))}"' in section
    if question["type"] == "blank":
        answer = json.loads(
            re.search(r'data-quiz-answer="([^"]*)"', section)[1].replace("&quot;", '"')
        )
        assert answer == sorted({quiz.normalise_blank(a) for a in question["answers"]})


def test_matching_options_are_not_in_answer_order() -> None:
    for _, question in QUESTIONS:
        if question["type"] == "match":
            rights = [str(p["right"]) for p in question["pairs"]]
            assert quiz_render.match_order(question["id"], rights) != list(range(len(rights)))


@pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js")
@pytest.mark.parametrize("typed", [" sum ", ".sum()", "retain_graph = True", "zero_", "SUM"])
def test_javascript_normalises_blanks_like_python(typed: str) -> None:
    """quiz.js and coursekit.content.quiz_model must agree on what counts as the same answer."""
    script = (DOCS / "assets" / "javascripts" / "quiz.js").read_text(encoding="utf-8")
    function = re.search(r"function normaliseBlank\(text\) \{.*?\n  \}", script, re.S)[0]
    result = subprocess.run(
        ["node", "-e", f"{function}\nprocess.stdout.write(normaliseBlank({json.dumps(typed)}))"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert result.stdout == quiz.normalise_blank(typed)


@pytest.mark.parametrize("page", QUIZZES, ids=lambda q: q.slug)
def test_all_maths_is_converted(page: quiz.Quiz) -> None:
    """A `$` left in the HTML is maths that did not convert (e.g. `$2x$`; write `${2x}$`)."""
    html = re.sub(r"<code>.*?</code>|<math.*?</math>", "", _render(page), flags=re.S)
    assert "$" not in html, re.findall(r".{30}\$.{30}", html)


@pytest.mark.parametrize(
    ("tex", "text"),
    [
        (r"\frac{\partial L}{\partial w}", "∂L/∂w"),
        (r"\frac{1}{1+e^{-x}}", "1/(1+e^(-x))"),
        (r"14 \cdot x", "14 · x"),
        (r"v^{\top} J", "vᵀ J"),
        (r"\mathrm{diag}(p) - p\, p^\top", "diag(p) - p pᵀ"),
        (r"2\sin(x)", "2 sin(x)"),
        (r"\hat y = \varepsilon", "y\u0302 = ε"),
        (r"\log 9 \approx 2.1972", "log 9 ≈ 2.1972"),
        (r"a < b", "a < b"),
    ],
)
def test_maths_reads_as_text_where_markup_cannot_go(tex: str, text: str) -> None:
    """<option>s and accessible names hold text only: the maths is read out, not dropped."""
    assert tex_text.tex_as_text(tex) == text

"""The questions of a ``quiz`` fence: read from its YAML, checked, and typed.

:func:`validate` lists every problem of one block's data (each message starts with the
block's file:line); :func:`load` reads a fence and returns a :class:`Quiz` of typed,
frozen questions, or raises :class:`QuizError` with all the problems at once.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, ClassVar

import yaml

from coursekit.errors import CourseError
from coursekit.markdown.fences import Fence

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


class QuizError(CourseError, ValueError):
    """A quiz block that cannot be used; the message starts with file:line."""


def normalise_blank(answer: object) -> str:
    """How an answer typed into a blank is compared (quiz.js does the same)."""
    # Whitespace never matters in these one-token answers (`retain_graph = True`).
    text = re.sub(r"\s+", "", str(answer))
    return text.removeprefix(".").removesuffix("()")


def _text(value: Any) -> str:
    return "" if value is None else str(value).strip()


# --- The typed questions -------------------------------------------------------------
# Markdown fields (prompt, explain, see, texts) are kept stripped, "" when absent.


@dataclass(frozen=True, kw_only=True)
class Question:
    """What every question has; ``yaml`` is the question as written (tests read it)."""

    kind: ClassVar[str]
    id: str
    prompt: str
    explain: str
    see: str
    yaml: Mapping[str, Any] = field(repr=False, compare=False)


@dataclass(frozen=True, kw_only=True)
class Choice:
    text: str
    explain: str
    correct: bool
    # What ``check`` computes if this is the answer. ``value: null`` is a value (None, e.g.
    # the .grad of a non-leaf), so a choice without one says so with has_value.
    has_value: bool
    value: Any


@dataclass(frozen=True, kw_only=True)
class ChoiceQuestion(Question):
    kind: ClassVar[str] = "choice"
    choices: tuple[Choice, ...]
    check: str | None  # code whose last expression is the correct choice's value

    @property
    def answer(self) -> int:
        """The index of the correct choice (validation makes sure there is exactly one)."""
        return next(i for i, choice in enumerate(self.choices) if choice.correct)


@dataclass(frozen=True, kw_only=True)
class BlankQuestion(Question):
    """``explain`` is the explanation of the right answer."""

    kind: ClassVar[str] = "blank"
    code: str  # holds BLANK once
    answers: tuple[str, ...]  # as written; the first is shown as the answer
    wrong: tuple[tuple[str, str], ...]  # (a known wrong answer, why it is wrong)
    check: str | None  # code run after ``code`` with an answer filled in: true if right

    @property
    def before(self) -> str:
        return self.code.rstrip("\n").split(BLANK)[0]

    @property
    def after(self) -> str:
        return self.code.rstrip("\n").split(BLANK)[1]

    @property
    def accepted(self) -> list[str]:
        """Every accepted answer as quiz.js compares it (:func:`normalise_blank`)."""
        return sorted({normalise_blank(answer) for answer in self.answers})


@dataclass(frozen=True, kw_only=True)
class Pair:
    left: str
    right: str
    explain: str
    check: str | None  # code whose last expression is True if the pair holds


@dataclass(frozen=True, kw_only=True)
class MatchQuestion(Question):
    kind: ClassVar[str] = "match"
    pairs: tuple[Pair, ...]


AnyQuestion = ChoiceQuestion | BlankQuestion | MatchQuestion


@dataclass(frozen=True)
class Quiz:
    """The questions of one ``quiz`` fence of one page."""

    path: str  # docs/practice/quizzes/<slug>.md
    line: int
    questions: tuple[AnyQuestion, ...]

    @property
    def slug(self) -> str:
        return Path(self.path).stem

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"

    @property
    def ids(self) -> tuple[str, ...]:
        """The question ids; the browser keeps progress under ``<slug>/<id>``."""
        return tuple(question.id for question in self.questions)


# --- Validating the YAML ------------------------------------------------------------


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
        problems += [f"{at}: {p}" for p in _control_characters(question)]
    return problems


# In a double-quoted YAML string "\b" of "\bar" or "\f" of "\frac" is one control
# character: invisible on the page, invalid in the built HTML.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def _control_characters(value: Any) -> list[str]:
    if isinstance(value, str):
        found = _CONTROL.search(value)
        if found is None:
            return []
        return [
            f"U+{ord(found[0]):04X} in {value!r}: in double quotes YAML reads a backslash and a "
            "letter as one control character; write the text in single quotes or after '>-'"
        ]
    if isinstance(value, dict):
        return [p for item in value.values() for p in _control_characters(item)]
    if isinstance(value, list):
        return [p for item in value for p in _control_characters(item)]
    return []


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


_VALIDATORS: Mapping[str, Callable[[dict[str, Any]], list[str]]] = MappingProxyType(
    {"choice": _validate_choice, "blank": _validate_blank, "match": _validate_match}
)


# --- Typed questions from valid YAML ------------------------------------------------


def _common(question: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": _text(question["id"]),
        "prompt": _text(question["prompt"]),
        "explain": _text(question.get("explain")),
        "see": _text(question.get("see")),
        "yaml": MappingProxyType(question),
    }


def _check(data: dict[str, Any]) -> str | None:
    return None if data.get("check") is None else str(data["check"])


def _choice(question: dict[str, Any]) -> ChoiceQuestion:
    choices = tuple(
        Choice(
            text=_text(c["text"]),
            explain=_text(c["explain"]),
            correct=c.get("correct") is True,
            has_value="value" in c,
            value=c.get("value"),
        )
        for c in question["choices"]
    )
    return ChoiceQuestion(**_common(question), choices=choices, check=_check(question))


def _blank(question: dict[str, Any]) -> BlankQuestion:
    return BlankQuestion(
        **_common(question),
        code=question["code"],
        answers=tuple(str(a) for a in question["answers"]),
        wrong=tuple((str(a), _text(why)) for a, why in question.get("wrong", {}).items()),
        check=_check(question),
    )


def _match(question: dict[str, Any]) -> MatchQuestion:
    pairs = tuple(
        Pair(
            left=_text(p["left"]),
            right=_text(p["right"]),
            explain=_text(p["explain"]),
            check=_check(p),
        )
        for p in question["pairs"]
    )
    return MatchQuestion(**_common(question), pairs=pairs)


_READERS: Mapping[str, Callable[[dict[str, Any]], AnyQuestion]] = MappingProxyType(
    {"choice": _choice, "blank": _blank, "match": _match}
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
    questions = tuple(_READERS[q["type"]](q) for q in data["questions"])
    return Quiz(fence.path, fence.line, questions)

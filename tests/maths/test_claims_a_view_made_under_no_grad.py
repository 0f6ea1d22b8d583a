"""docs/practice/exercises/a-view-made-under-no-grad.md (Exercise 3.5): its check, at the edges.

The check reads an answer written in quotes as the answer itself: "None", "True", a list
written as a string, even a printed tensor. So every right answer, quoted or not, is
"Correct", and a quoted wrong answer is still reported for its own block, with its reason.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from coursekit.notebooks.exercises import region

from . import run_region

PAGE = "docs/practice/exercises/a-view-made-under-no-grad.md"
SNIPPET = "practice/a_view_made_under_no_grad"
MISTAKES = Path(__file__).resolve().parents[1] / "mistakes" / "a-view-made-under-no-grad.py"


def _check(predictions: dict) -> str:
    return run_region(SNIPPET, "check", inputs={"predictions": predictions}).output.strip()


def _right_answers() -> dict:
    return run_region(SNIPPET, "solution")["predictions"]


def _quoted(value: object, style: str) -> object:
    if isinstance(value, list):
        return {
            "str": str(value),
            "ints": str([int(v) for v in value]),
            "tensor": repr(torch.tensor(value)),
            "tuple": str(tuple(value)),
        }[style]
    return (
        value
        if value == "error"
        else {"str": str(value), "ints": f" {value} "}.get(style, str(value).lower())
    )


@pytest.mark.claim(PAGE, 'the check reads `"None"` as `None` and `"[1.0, 2.0]"` as `[1.0, 2.0]`')
@pytest.mark.parametrize("style", ["str", "ints", "tensor", "tuple"])
def test_every_right_answer_in_quotes_is_correct(style: str) -> None:
    right = _right_answers()
    assert _check(right).startswith("Correct:")
    quoted = {name: _quoted(value, style) for name, value in right.items()}
    assert all(isinstance(v, str) for v in quoted.values()), quoted
    assert _check(quoted).startswith("Correct:"), quoted


@pytest.mark.claim(PAGE, "Quotes around an answer do no harm")
def test_a_wrong_answer_in_quotes_is_still_reported_for_its_block() -> None:
    # The learner's mistake of tests/mistakes: c wrong, every answer quoted, e and g right.
    namespace: dict = {}
    exec(region(MISTAKES, "answers-in-quotes"), namespace)
    output = _check(namespace["predictions"])
    assert output.startswith("Not quite: c: expected None, got '[3.0, 3.0, 0.0, 0.0]'"), output
    assert "nothing reaches w" in output  # the reason for c
    assert output.count("expected") == 1, output  # e and g, quoted but right, are not named
    broken = dict(namespace["predictions"], e="[3.0, 3.0, 0.0")  # not a list any more
    assert "e: expected [3.0, 3.0, 0.0, 0.0], got '[3.0, 3.0, 0.0'" in _check(broken)

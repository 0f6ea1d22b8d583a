"""Exercise 2.10, derive a gradient: the page's solution and self-check against the hand maths.

docs/practice/exercises/derive-a-gradient.md derives, with s = sigmoid(w·x + b) and
loss = (s − t)², one link of the chain at a time,

    ∂loss/∂s = 2(s − t),   ds/dz = s(1 − s),   ∂z/∂w = x,   ∂z/∂b = 1,

so ∂loss/∂w = 2(s − t)·s(1 − s)·x and ∂loss/∂b = 2(s − t)·s(1 − s); at x = 2, w = 0.5,
b = −1, t = 1 (z = 0, s = 1/2, s(1 − s) = 1/4) they are −0.5 and −0.25. The code under
test is the page's (snippets/practice/derive_a_gradient.py): the solution's grad_w and
grad_b, and the check cell's autograd_gradients and verdict.
"""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from . import run_region

SNIPPET = "practice/derive_a_gradient"
values = st.floats(min_value=-6.0, max_value=6.0, allow_nan=False, allow_infinity=False)
targets = st.floats(min_value=0.0, max_value=1.0)

solution = run_region(SNIPPET, "solution")
check = run_region(SNIPPET, "check", inputs=solution)  # the self-check, run on the solution


def by_hand(x: float, w: float, b: float, t: float) -> tuple[float, float]:
    """The page's chain: 2(s − t) · s(1 − s) · (x for w, 1 for b)."""
    s = 1 / (1 + math.exp(-(w * x + b)))
    common = 2 * (s - t) * s * (1 - s)
    return common * x, common


def close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


@settings(max_examples=100, deadline=None)
@given(values, values, values, targets)
def test_the_solutions_formulas_are_the_hand_derivation(
    x: float, w: float, b: float, t: float
) -> None:
    expected_w, expected_b = by_hand(x, w, b, t)
    assert close(solution["grad_w"](x, w, b, t), expected_w)
    assert close(solution["grad_b"](x, w, b, t), expected_b)


@settings(max_examples=100, deadline=None)
@given(values, values, values, targets)
def test_the_check_cells_autograd_gives_the_hand_derivation(
    x: float, w: float, b: float, t: float
) -> None:
    for mine, theirs in zip(
        by_hand(x, w, b, t), check["autograd_gradients"](x, w, b, t), strict=True
    ):
        assert close(mine, theirs)


def test_the_worked_point() -> None:
    """z = 0, s = 1/2, s(1 − s) = 1/4: −0.5 and −0.25, as the solution prints."""
    assert by_hand(2.0, 0.5, -1.0, 1.0) == (-0.5, -0.25)
    assert solution.output == "-0.5 -0.25\n"


def test_the_check_accepts_the_solution() -> None:
    assert check.output.startswith("Correct: ")

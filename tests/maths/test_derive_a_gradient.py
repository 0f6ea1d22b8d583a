"""Exercise 2.10: the hand-derived gradients of loss = (sigmoid(w·x + b) − t)².

docs/practice/exercises/derive-a-gradient.md derives, with s = sigmoid(w·x + b),

    ∂loss/∂w = 2(s − t)·s(1 − s)·x,   ∂loss/∂b = 2(s − t)·s(1 − s),

and at x = 2, w = 0.5, b = −1, t = 1 (so s = 1/2) the values −0.5 and −0.25.
"""

import math

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

values = st.floats(min_value=-6.0, max_value=6.0, allow_nan=False, allow_infinity=False)
targets = st.floats(min_value=0.0, max_value=1.0)


def by_hand(x: float, w: float, b: float, t: float) -> tuple[float, float]:
    s = 1 / (1 + math.exp(-(w * x + b)))
    common = 2 * (s - t) * s * (1 - s)
    return common * x, common


def by_autograd(x: float, w: float, b: float, t: float) -> tuple[float, float]:
    w_, b_ = (torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in (w, b))
    ((torch.sigmoid(w_ * x + b_) - t) ** 2).backward()
    return w_.grad.item(), b_.grad.item()


@settings(max_examples=200, deadline=None)
@given(values, values, values, targets)
def test_hand_formulas_match_autograd(x: float, w: float, b: float, t: float) -> None:
    for mine, theirs in zip(by_hand(x, w, b, t), by_autograd(x, w, b, t), strict=True):
        assert math.isclose(mine, theirs, rel_tol=1e-9, abs_tol=1e-12)


def test_the_worked_point() -> None:
    """The page's hand values: z = 0, s = 1/2, s(1 − s) = 1/4."""
    assert by_hand(2.0, 0.5, -1.0, 1.0) == (-0.5, -0.25)

"""Chapter 9: the maths of docs/chapters/gradients-to-training.md.

For the model p = w·x + b with loss L = (p − t)², the page derives

    ∂L/∂w = 2(wx + b − t)·x,   ∂L/∂b = 2(wx + b − t),

one gradient-descent step θ ← θ − η·∂L/∂θ, the error after one step
e' = e·(1 − 2η(x² + 1)), and that the hand-written loop gives the same numbers as
torch.optim.SGD. The loops tested are the page's own, from snippets/chapters.
"""

from __future__ import annotations

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from . import load_snippet

snippet = load_snippet("gradients_to_training")

values = st.floats(min_value=-10.0, max_value=10.0, allow_nan=False, allow_infinity=False)
inputs = st.floats(min_value=-5.0, max_value=5.0, allow_nan=False, allow_infinity=False)
learning_rates = st.floats(min_value=1e-4, max_value=0.1, allow_nan=False)
RTOL, ATOL = 1e-9, 1e-9


def leaf(value: float) -> torch.Tensor:
    return torch.tensor(value, dtype=torch.float64, requires_grad=True)


def close(actual: torch.Tensor | float, expected: torch.Tensor | float) -> bool:
    actual_t = torch.as_tensor(actual, dtype=torch.float64)
    expected_t = torch.as_tensor(expected, dtype=torch.float64)
    return torch.allclose(actual_t, expected_t, rtol=RTOL, atol=ATOL)


@settings(max_examples=100, deadline=None)
@given(x=values, t=values, w0=values, b0=values)
def test_linear_model_gradients(x: float, t: float, w0: float, b0: float) -> None:
    w, b = leaf(w0), leaf(b0)
    loss = (w * x + b - t) ** 2
    loss.backward()

    error = w0 * x + b0 - t
    assert close(loss, error**2)
    assert close(w.grad, 2 * error * x)  # ∂L/∂w = 2(wx + b − t)·x
    assert close(b.grad, 2 * error)  # ∂L/∂b = 2(wx + b − t)


@settings(max_examples=100, deadline=None)
@given(x=inputs, t=values, w0=values, b0=values, lr=learning_rates)
def test_one_step_by_hand_is_theta_minus_lr_times_gradient(
    x: float, t: float, w0: float, b0: float, lr: float
) -> None:
    w, b = leaf(w0), leaf(b0)
    [(loss, w1, b1)] = snippet.train_by_hand(w, b, x=x, target=t, lr=lr, steps=1)

    error = w0 * x + b0 - t
    assert close(loss, error**2)  # the loss is measured before the update
    assert close(w1, w0 - lr * 2 * error * x)
    assert close(b1, b0 - lr * 2 * error)
    # The gradients were cleared after the update.
    assert w.grad is not None and w.grad.item() == 0.0
    assert b.grad is not None and b.grad.item() == 0.0


@settings(max_examples=100, deadline=None)
@given(x=inputs, t=values, w0=values, b0=values, lr=learning_rates)
def test_error_shrinks_by_one_minus_two_lr_x_squared_plus_one(
    x: float, t: float, w0: float, b0: float, lr: float
) -> None:
    w, b = leaf(w0), leaf(b0)
    snippet.train_by_hand(w, b, x=x, target=t, lr=lr, steps=1)

    error = w0 * x + b0 - t
    new_error = w.item() * x + b.item() - t
    assert close(new_error, error * (1 - 2 * lr * (x**2 + 1)))


@settings(max_examples=50, deadline=None)
@given(
    x=inputs,
    t=values,
    w0=values,
    b0=values,
    lr=learning_rates,
    steps=st.integers(min_value=1, max_value=10),
)
def test_loop_by_hand_equals_optim_sgd(
    x: float, t: float, w0: float, b0: float, lr: float, steps: int
) -> None:
    by_hand = snippet.train_by_hand(leaf(w0), leaf(b0), x=x, target=t, lr=lr, steps=steps)
    with_sgd = snippet.train_with_sgd(leaf(w0), leaf(b0), x=x, target=t, lr=lr, steps=steps)

    assert len(by_hand) == len(with_sgd) == steps
    assert close(torch.tensor(by_hand), torch.tensor(with_sgd))

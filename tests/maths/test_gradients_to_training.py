"""From gradients to training: docs/chapters/gradients-to-training.md's code against its maths.

For the model p = w·x + b with loss L = (p − t)², the page derives

    ∂L/∂w = 2(wx + b − t)·x,   ∂L/∂b = 2(wx + b − t),

one gradient-descent step θ ← θ − η·∂L/∂θ, the error after one step
e' = e·(1 − 2η(x² + 1)), so each loss is (1 − 2η(x² + 1))² times the one before (0.81
for the page's x = 2, η = 0.01), and that the hand-written loop gives the same numbers
as torch.optim.SGD. The code under test is the page's (snippets/chapters/
gradients_to_training.py): train_by_hand, train_with_sgd, and its regions, on random
inputs (linear-model-maths is the page's linear-model without its numbers).
"""

from __future__ import annotations

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from . import run_region

SNIPPET = "chapters/gradients_to_training"
functions = run_region(SNIPPET, "imports", "train-by-hand", "train-with-sgd")
train_by_hand, train_with_sgd = functions["train_by_hand"], functions["train_with_sgd"]

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


@settings(max_examples=50, deadline=None)
@given(x=values, t=values, w0=values, b0=values)
def test_linear_model_gradients(x: float, t: float, w0: float, b0: float) -> None:
    numbers = {name: torch.tensor(v, dtype=torch.float64) for name, v in (("x", x), ("target", t))}
    page = run_region(
        SNIPPET, "linear-model-maths", inputs={**numbers, "w": leaf(w0), "b": leaf(b0)}
    )
    error = w0 * x + b0 - t
    assert close(page["loss"].detach(), error**2)
    assert close(page["w"].grad, 2 * error * x)  # ∂L/∂w = 2(wx + b − t)·x
    assert close(page["b"].grad, 2 * error)  # ∂L/∂b = 2(wx + b − t)


@settings(max_examples=50, deadline=None)
@given(x=inputs, t=values, w0=values, b0=values, lr=learning_rates)
def test_one_step_by_hand_is_theta_minus_lr_times_gradient(
    x: float, t: float, w0: float, b0: float, lr: float
) -> None:
    w, b = leaf(w0), leaf(b0)
    [(loss, w1, b1)] = train_by_hand(w, b, x=x, target=t, lr=lr, steps=1)

    error = w0 * x + b0 - t
    assert close(loss, error**2)  # the loss is measured before the update
    assert close(w1, w0 - lr * 2 * error * x)
    assert close(b1, b0 - lr * 2 * error)
    # The gradients were cleared after the update.
    assert w.grad is not None and w.grad.item() == 0.0
    assert b.grad is not None and b.grad.item() == 0.0


@settings(max_examples=50, deadline=None)
@given(x=inputs, t=values, w0=values, b0=values, lr=learning_rates)
def test_error_shrinks_by_one_minus_two_lr_x_squared_plus_one(
    x: float, t: float, w0: float, b0: float, lr: float
) -> None:
    w, b = leaf(w0), leaf(b0)
    train_by_hand(w, b, x=x, target=t, lr=lr, steps=1)

    error = w0 * x + b0 - t
    new_error = w.item() * x + b.item() - t
    assert close(new_error, error * (1 - 2 * lr * (x**2 + 1)))


@settings(max_examples=30, deadline=None)
@given(x=inputs, t=values, w0=values, b0=values, steps=st.integers(min_value=1, max_value=10))
def test_each_loss_is_the_one_before_times_the_squared_factor(
    x: float, t: float, w0: float, b0: float, steps: int
) -> None:
    lr = 0.01  # the page's; the factor stays inside (-1, 1) for |x| ≤ 5
    history = train_by_hand(leaf(w0), leaf(b0), x=x, target=t, lr=lr, steps=steps)
    error, factor = w0 * x + b0 - t, 1 - 2 * lr * (x**2 + 1)
    for k, (loss, _, _) in enumerate(history):
        assert close(loss, (error * factor**k) ** 2)  # L_k = (e·(1 − 2η(x² + 1))ᵏ)²


@settings(max_examples=30, deadline=None)
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
    by_hand = train_by_hand(leaf(w0), leaf(b0), x=x, target=t, lr=lr, steps=steps)
    with_sgd = train_with_sgd(leaf(w0), leaf(b0), x=x, target=t, lr=lr, steps=steps)

    assert len(by_hand) == len(with_sgd) == steps
    assert close(torch.tensor(by_hand), torch.tensor(with_sgd))


def test_the_pages_run_its_first_step_by_hand_and_its_loss_ratios() -> None:
    page = run_region(
        SNIPPET, "run-by-hand", "first-step", "run-with-sgd", "compare-losses", inputs=functions
    )
    # Step 1: p = 1·2 + 0 = 2, so ∂L/∂w = 2(2 − 10)·2 and ∂L/∂b = 2(2 − 10).
    assert (page["grad_w"], page["grad_b"]) == (2 * (2 - 10) * 2, 2 * (2 - 10))
    _, w1, b1 = page["by_hand"][0]  # the page's loop, in float32
    assert abs(w1 - (1 - 0.01 * page["grad_w"])) < 1e-6
    assert abs(b1 - (0 - 0.01 * page["grad_b"])) < 1e-6
    # Each loss is (1 − 2·0.01·(2² + 1))² = 0.81 times the one before (in float32).
    factor = (1 - 2 * 0.01 * (2**2 + 1)) ** 2
    assert all(abs(ratio - factor) < 1e-5 for ratio in page["ratios"])
    assert "each loss / the one before: [0.81]\n" in page.output

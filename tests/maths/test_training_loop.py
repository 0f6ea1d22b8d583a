"""The training loop: docs/chapters/training-loop.md's code against the maths of nn.Linear.

With predictions p = X Wᵀ + b (one output), errors e = p − t and the loss
L = (1/N) Σₙ eₙ², the gradients are

    ∂L/∂W = (2/N) Σₙ eₙ xₙᵀ,   ∂L/∂b = (2/N) Σₙ eₙ,   ∂L/∂xₙ = (2/N) eₙ W

(derived and checked on docs/interview/what-is-backpropagation.md; chapter 1 shows only
their shapes). Chapter 1 nudges the bias by δ and compares the loss change with the
gradient's prediction: the exact change is L(b + δ) − L(b) = (∂L/∂b)·δ + δ², which is
why the two printed numbers differ in the last digit. Chapter 1's loop uses SGD's step
θ ← θ − η ∂L/∂θ.

The page's regions (snippets/chapters/training_loop.py: forward, backward, sensitivity,
step-rule) run on a random batch, model and nudge, in place of the page's seeded ones.
"""

from __future__ import annotations

import numpy as np
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from . import Session, run_region

SNIPPET = "chapters/training_loop"
RTOL, ATOL = 1e-9, 1e-9
elements = st.floats(min_value=-10.0, max_value=10.0, allow_nan=False, allow_infinity=False)
Problem = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]


@st.composite
def linear_problems(draw: st.DrawFn) -> Problem:
    """A batch X (N×D), targets t (N×1), weight W (1×D) and bias b (1,)."""
    n = draw(st.integers(min_value=1, max_value=8))
    d = draw(st.integers(min_value=1, max_value=12))
    return (
        draw(arrays(np.float64, (n, d), elements=elements)),
        draw(arrays(np.float64, (n, 1), elements=elements)),
        draw(arrays(np.float64, (1, d), elements=elements)),
        draw(arrays(np.float64, (1,), elements=elements)),
    )


def page_session(problem: Problem) -> Session:
    """What the page's setup region leaves, with this problem's model, batch and targets."""
    x_np, t_np, w_np, b_np = problem
    model = torch.nn.Linear(w_np.shape[1], 1, dtype=torch.float64)
    with torch.no_grad():
        model.weight.copy_(torch.from_numpy(w_np))
        model.bias.copy_(torch.from_numpy(b_np))
    inputs = torch.from_numpy(x_np.copy()).requires_grad_(True)
    return run_region(
        SNIPPET,
        "forward",
        "backward",
        inputs={
            "torch": torch,
            "model": model,
            "inputs": inputs,
            "targets": torch.from_numpy(t_np),
        },
    )


def close(actual: torch.Tensor, expected: np.ndarray | float) -> bool:
    expected_t = torch.as_tensor(expected, dtype=torch.float64)
    return actual.shape == expected_t.shape and torch.allclose(
        actual, expected_t, rtol=RTOL, atol=ATOL
    )


@settings(max_examples=50, deadline=None)
@given(linear_problems())
def test_linear_layer_gradients(problem: Problem) -> None:
    page = page_session(problem)
    x_np, t_np, w_np, b_np = problem
    n = x_np.shape[0]
    e = x_np @ w_np.T + b_np - t_np  # N×1 errors
    assert close(page["loss"].detach(), (e**2).mean())
    model = page["model"]
    assert close(model.weight.grad, 2 / n * (e.T @ x_np))  # (2/N) Σ eₙ xₙᵀ, 1×D like W
    assert close(model.bias.grad, 2 / n * e.sum(axis=0))  # (2/N) Σ eₙ, (1,) like b
    assert close(page["inputs"].grad, 2 / n * (e @ w_np))  # (2/N) eₙ W, N×D like X
    assert "weight.grad before backward: None\n" in page.output


@settings(max_examples=50, deadline=None)
@given(linear_problems(), st.floats(min_value=-1.0, max_value=1.0))
def test_bias_nudge_changes_the_loss_by_gradient_times_delta_plus_delta_squared(
    problem: Problem, delta: float
) -> None:
    page = page_session(problem)
    page = run_region(SNIPPET, "sensitivity-maths", inputs={**page, "delta": delta})
    loss, nudged = page["loss"].item(), page["nudged_loss"].item()
    predicted = page["model"].bias.grad.item() * delta + delta**2
    # Both losses can be large, so allow for the rounding of the subtraction.
    assert abs((nudged - loss) - predicted) <= 1e-12 * max(1.0, abs(nudged) + abs(loss))


@settings(max_examples=30, deadline=None)
@given(linear_problems(), st.floats(min_value=1e-4, max_value=1.0))
def test_sgd_step_moves_against_the_gradient(problem: Problem, lr: float) -> None:
    page = page_session(problem)
    model = page["model"]
    page["optimizer"] = torch.optim.SGD(model.parameters(), lr=lr)  # as the loop region makes it
    before = [p.detach().clone() for p in model.parameters()]
    page = run_region(SNIPPET, "step-rule", inputs=page)
    for old, p in zip(before, model.parameters(), strict=True):
        assert p.grad is not None
        assert torch.allclose(p.detach(), old - lr * p.grad, rtol=RTOL, atol=ATOL)  # θ − η·∂L/∂θ
    assert page["old_bias"] == before[1].item()

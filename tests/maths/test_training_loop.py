"""Chapter 1's nn.Linear example (docs/chapters/training-loop.md) and its maths.

With predictions p = X Wᵀ + b (one output), errors e = p − t and the loss
L = (1/N) Σₙ eₙ², the gradients are

    ∂L/∂W = (2/N) Σₙ eₙ xₙᵀ,   ∂L/∂b = (2/N) Σₙ eₙ,   ∂L/∂xₙ = (2/N) eₙ W

(derived and checked on docs/interview/what-is-backpropagation.md; chapter 1 shows only
their shapes). Chapter 1 nudges the bias by δ and compares the loss change with the
gradient's prediction: the exact change is L(b + δ) − L(b) = (∂L/∂b)·δ + δ², which is why
the two printed numbers differ in the last digit. Chapter 1's loop uses SGD's step
θ ← θ − η ∂L/∂θ.
"""

import numpy as np
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

RTOL, ATOL = 1e-9, 1e-9
elements = st.floats(min_value=-10.0, max_value=10.0, allow_nan=False, allow_infinity=False)


@st.composite
def linear_problems(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A batch X (N×D), targets t (N×1), weight W (1×D) and bias b (1,)."""
    n = draw(st.integers(min_value=1, max_value=8))
    d = draw(st.integers(min_value=1, max_value=12))
    return (
        draw(arrays(np.float64, (n, d), elements=elements)),
        draw(arrays(np.float64, (n, 1), elements=elements)),
        draw(arrays(np.float64, (1, d), elements=elements)),
        draw(arrays(np.float64, (1,), elements=elements)),
    )


def make_model(weight: np.ndarray, bias: np.ndarray) -> torch.nn.Linear:
    model = torch.nn.Linear(weight.shape[1], 1, dtype=torch.float64)
    model.weight = torch.nn.Parameter(torch.from_numpy(weight.copy()))
    model.bias = torch.nn.Parameter(torch.from_numpy(bias.copy()))
    return model


def mse(prediction: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    return ((prediction - targets) ** 2).mean()


@settings(max_examples=50, deadline=None)
@given(linear_problems())
def test_linear_layer_gradients(problem: tuple[np.ndarray, ...]) -> None:
    x_np, t_np, w_np, b_np = problem
    model = make_model(w_np, b_np)
    inputs = torch.from_numpy(x_np).requires_grad_(True)
    mse(model(inputs), torch.from_numpy(t_np)).backward()

    n = x_np.shape[0]
    e = x_np @ w_np.T + b_np - t_np  # N×1 errors
    grad_w = 2 / n * (e.T @ x_np)  # (2/N) Σ eₙ xₙᵀ, shape 1×D like W
    grad_b = 2 / n * e.sum(axis=0)  # (2/N) Σ eₙ, shape (1,) like b
    grad_x = 2 / n * (e @ w_np)  # (2/N) eₙ W, shape N×D like X

    assert model.weight.grad.shape == model.weight.shape
    assert model.bias.grad.shape == model.bias.shape
    assert torch.allclose(model.weight.grad, torch.from_numpy(grad_w), rtol=RTOL, atol=ATOL)
    assert torch.allclose(model.bias.grad, torch.from_numpy(grad_b), rtol=RTOL, atol=ATOL)
    assert torch.allclose(inputs.grad, torch.from_numpy(grad_x), rtol=RTOL, atol=ATOL)


@settings(max_examples=50, deadline=None)
@given(linear_problems(), st.floats(min_value=-1.0, max_value=1.0))
def test_bias_nudge_changes_the_loss_by_gradient_times_delta_plus_delta_squared(
    problem: tuple[np.ndarray, ...], delta: float
) -> None:
    x_np, t_np, w_np, b_np = problem
    model = make_model(w_np, b_np)
    inputs, targets = torch.from_numpy(x_np), torch.from_numpy(t_np)
    loss = mse(model(inputs), targets)
    loss.backward()
    nudged = mse(inputs @ model.weight.T + (model.bias + delta), targets)

    change = nudged.item() - loss.item()
    predicted = model.bias.grad.item() * delta + delta**2
    # Both losses can be large, so allow for the rounding of the subtraction.
    assert abs(change - predicted) <= 1e-12 * max(1.0, abs(nudged.item()) + abs(loss.item()))


@settings(max_examples=50, deadline=None)
@given(linear_problems(), st.floats(min_value=1e-4, max_value=1.0))
def test_sgd_step_moves_against_the_gradient(problem: tuple[np.ndarray, ...], lr: float) -> None:
    x_np, t_np, w_np, b_np = problem
    model = make_model(w_np, b_np)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    optimizer.zero_grad()
    mse(model(torch.from_numpy(x_np)), torch.from_numpy(t_np)).backward()
    expected = {name: p.detach() - lr * p.grad for name, p in model.named_parameters()}
    optimizer.step()
    for name, p in model.named_parameters():
        assert torch.allclose(p.detach(), expected[name], rtol=RTOL, atol=ATOL), name

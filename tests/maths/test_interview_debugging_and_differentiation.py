"""Interview pages against the maths they derive by hand.

* docs/interview/automatic-vs-symbolic-vs-numerical-differentiation.md: for
  f(x) = 1 / (1 + x²), f'(x) = -2x / (1 + x²)², -0.64 at x = 0.5; the central
  difference's error shrinks like h² while rounding is negligible.
* docs/interview/how-do-you-debug-nan-gradients.md: the mean squared error of
  w x + b has second derivative (2/n) Σ x² in w; the entropy's gradient is
  -(log p + 1) where p > 0, and the safe version's is 0 where p = 0.
* docs/interview/why-does-memory-keep-growing-during-training.md: each step's graph
  saves its input batch, the hidden activation and the difference from the targets,
  4 bytes per float32 entry.

Each test runs the page's own regions (snippets/interview/...).
"""

from __future__ import annotations

import itertools
import math

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.maths import run_region

DIFFERENTIATION = "interview/automatic_vs_symbolic_vs_numerical_differentiation"
NAN = "interview/how_do_you_debug_nan_gradients"
MEMORY = "interview/why_does_memory_keep_growing_during_training"


@settings(max_examples=30, deadline=None)
@given(st.floats(-5, 5))
def test_derivative_of_the_pages_f(x0: float) -> None:
    f = run_region(DIFFERENTIATION, "numerical")["f"]
    x = torch.tensor(x0, dtype=torch.float64, requires_grad=True)
    (grad,) = torch.autograd.grad(f(x), x)
    by_hand = -2 * x0 / (1 + x0**2) ** 2
    assert math.isclose(grad.item(), by_hand, rel_tol=1e-12, abs_tol=1e-15)


def test_central_difference_error_is_order_h_squared() -> None:
    f = run_region(DIFFERENTIATION, "numerical")["f"]
    x0 = torch.tensor(0.5, dtype=torch.float64)
    errors = [abs(((f(x0 + h) - f(x0 - h)) / (2 * h)).item() + 0.64) for h in (1e-2, 1e-3)]
    # Truncation error f'''(x) h² / 6: ten times smaller h, a hundred times smaller error.
    assert 80 < errors[0] / errors[1] < 120


def test_curvature_of_the_squared_error_in_the_weight() -> None:
    page = run_region(NAN, "diverge", "smaller-step")
    x, y = page["x"], page["y"]
    w = torch.tensor(0.3, dtype=torch.float64)
    second = torch.autograd.functional.hessian(
        lambda w: (w * x.double() + 1.0 - y.double()).pow(2).mean(), w
    )
    by_hand = 2 * x.double().pow(2).mean()  # (2/n) Σ x²
    torch.testing.assert_close(second, by_hand)
    torch.testing.assert_close(page["curvature"].double(), by_hand, rtol=1e-5, atol=0)


def test_entropy_gradients() -> None:
    page = run_region(NAN, "entropy", "fix", inputs={"torch": torch})
    p = page["p"].detach()
    positive = p > 0
    by_hand = -(p[positive].log() + 1)  # d/dp of -p log p
    torch.testing.assert_close(page["p"].grad[positive], by_hand)
    assert page["p"].grad[~positive].eq(0).all()


def test_bytes_each_step_keeps() -> None:
    page = run_region(MEMORY, "tracker", "tensor-total")
    held = [int(line.split()[4]) for line in page.output.splitlines() if "graphs hold" in line]
    inputs, targets = page["batches"][0]
    hidden = page["net"][0].out_features
    per_step = 4 * (inputs.numel() + inputs.shape[0] * hidden + targets.numel())
    assert [b - a for a, b in itertools.pairwise(held)] == [per_step] * (len(held) - 1)
    last_weight = 4 * page["net"][2].weight.numel()  # the same tensor every step
    assert held[0] == per_step + last_weight

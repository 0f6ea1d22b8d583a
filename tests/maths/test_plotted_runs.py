"""The formulas derived next to the plots of real runs agree with autograd.

* chain-rule.md: the curve (3x + 4)² lies above its tangent at a by exactly 9(x - a)²;
* non-scalar-outputs.md: with targets 3x, d/dw of the squared errors at w is
  2(w - 3)·x² per example, so the summed loss's gradient is n times the mean's.
"""

import numpy as np
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

values = st.floats(min_value=-50.0, max_value=50.0, allow_nan=False, allow_infinity=False)
RTOL, ATOL = 1e-9, 1e-9


@settings(max_examples=100, deadline=None)
@given(values, values)
def test_the_gap_between_curve_and_tangent_is_9_times_the_square(a: float, x: float) -> None:
    point = torch.tensor(a, dtype=torch.float64, requires_grad=True)
    y = (3 * point + 4) ** 2
    y.backward()
    tangent = y.item() + point.grad.item() * (x - a)  # slope from autograd, as on the page
    gap = (3 * x + 4) ** 2 - tangent
    assert np.isclose(gap, 9 * (x - a) ** 2, rtol=RTOL, atol=1e-6 * (1 + abs(a) + abs(x)) ** 2)


@settings(max_examples=100, deadline=None)
@given(
    st.floats(min_value=-10.0, max_value=10.0, allow_nan=False),
    arrays(np.float64, st.integers(1, 64), elements=st.floats(-10.0, 10.0)),
)
def test_sum_gradient_is_n_times_the_mean_gradient(w_value: float, inputs: np.ndarray) -> None:
    data = torch.from_numpy(inputs)
    grads = {}
    for reduce in ("sum", "mean"):
        w = torch.tensor(w_value, dtype=torch.float64, requires_grad=True)
        squared_errors = (w * data - 3 * data) ** 2
        getattr(squared_errors, reduce)().backward()
        grads[reduce] = w.grad.item()
    by_hand = 2 * (w_value - 3) * float((data**2).mean())  # -4·mean(x²) at w = 1
    assert np.isclose(grads["mean"], by_hand, rtol=RTOL, atol=ATOL)
    assert np.isclose(grads["sum"], len(inputs) * grads["mean"], rtol=RTOL, atol=ATOL)


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_the_loss_against_the_bias_is_lowest_half_a_gradient_away(seed: int) -> None:
    """training-loop.md: L(b + h) = L(b) + g·h + h², lowest at h = -g/2, by g²/4."""
    generator = torch.Generator().manual_seed(seed)
    inputs = torch.randn(4, 10, generator=generator, dtype=torch.float64)
    targets = torch.randn(4, 1, generator=generator, dtype=torch.float64)
    weight = torch.randn(1, 10, generator=generator, dtype=torch.float64)
    bias = torch.randn(1, generator=generator, dtype=torch.float64, requires_grad=True)

    def loss_at(shift: float) -> float:
        return (((inputs @ weight.T + bias + shift) - targets) ** 2).mean().item()

    ((inputs @ weight.T + bias - targets) ** 2).mean().backward()
    g = bias.grad.item()
    for h in (-1.0, 0.3, 1.0):
        assert np.isclose(loss_at(h), loss_at(0) + g * h + h**2, rtol=RTOL, atol=ATOL)
    assert np.isclose(loss_at(-g / 2), loss_at(0) - g**2 / 4, rtol=RTOL, atol=ATOL)

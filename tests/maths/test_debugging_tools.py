"""Debugging tools: the maths of docs/chapters/debugging-tools.md.

The page derives

* the central difference (f(x + h) − f(x − h)) / 2h = f'(x) + h²/6 · f'''(x) + O(h⁴),
  so its error is at most h²/6 · max|f'''| and falls 100 times for a step 10 times
  smaller;
* σ'(z) = σ(z)(1 − σ(z)) ≤ 1/4, with equality at z = 0;
* through a chain h_k = σ(w_k h_(k−1) + b), the gradient ∂h_L/∂h_0 = Π σ'(z_k) w_k, so
  |∂h_L/∂h_0| ≤ Π |w_k| / 4, and with b = −w/2 and h_0 = 1/2 every factor is w/4;
* the hand-written backward of Cube (3x²) passes gradcheck and WrongCube's (2x²) fails.

`central_difference`, `sigmoid_chain`, `Cube` and `WrongCube` are the page's own, from
snippets/chapters/debugging_tools.py.
"""

from __future__ import annotations

import contextlib
import io
import math

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from . import load_snippet

with contextlib.redirect_stdout(io.StringIO()):  # the script prints its examples
    snippet = load_snippet("debugging_tools")

points = st.floats(min_value=-10.0, max_value=10.0, allow_nan=False, allow_infinity=False)
steps = st.floats(min_value=1e-3, max_value=1e-1, allow_nan=False)
weights = st.floats(min_value=-10.0, max_value=10.0, allow_nan=False, allow_infinity=False)
ROUNDING = 1e-11  # float64 rounding of the two values, divided by 2h, for h ≥ 1e-3


def f64(value: float) -> torch.Tensor:
    return torch.tensor(value, dtype=torch.float64)


@settings(max_examples=200, deadline=None)
@given(x=points, h=steps)
def test_central_difference_error_is_at_most_h_squared_over_6_times_f3(x: float, h: float) -> None:
    # f = sin: f' = cos and |f'''| = |cos| ≤ 1, so the error is at most h²/6.
    estimate = snippet.central_difference(torch.sin, f64(x), h).item()
    assert abs(estimate - math.cos(x)) <= h**2 / 6 + ROUNDING


@settings(max_examples=200, deadline=None)
@given(x=points, h=steps)
def test_central_difference_of_a_cube_is_off_by_exactly_h_squared(x: float, h: float) -> None:
    # f = t³: f''' = 6 and every higher derivative is 0, so the error is h²/6 · 6 = h².
    estimate = snippet.central_difference(lambda t: t**3, f64(x), h).item()
    assert math.isclose(estimate, 3 * x**2 + h**2, rel_tol=1e-9, abs_tol=ROUNDING * 300)


@settings(max_examples=200, deadline=None)
@given(x=st.floats(min_value=-2.0, max_value=2.0), h=st.floats(min_value=1e-2, max_value=1e-1))
def test_a_step_10_times_smaller_makes_the_error_about_100_times_smaller(
    x: float, h: float
) -> None:
    # f = exp: the error is e^x (h²/6 + h⁴/120 + ...), so the ratio is 100 (1 + O(h²)).
    def error(step: float) -> float:
        return snippet.central_difference(torch.exp, f64(x), step).item() - math.exp(x)

    assert 99.0 <= error(h) / error(h / 10) <= 101.0


@settings(max_examples=200, deadline=None)
@given(z=st.floats(min_value=-50.0, max_value=50.0, allow_nan=False))
def test_sigmoid_slope_is_s_times_1_minus_s_and_at_most_a_quarter(z: float) -> None:
    t = torch.tensor(z, dtype=torch.float64, requires_grad=True)
    s = torch.sigmoid(t)
    s.backward()
    s_ = s.item()
    assert math.isclose(t.grad.item(), s_ * (1 - s_), rel_tol=1e-12, abs_tol=1e-300)
    assert t.grad.item() <= 0.25


def test_sigmoid_slope_is_exactly_a_quarter_at_zero() -> None:
    t = torch.tensor(0.0, dtype=torch.float64, requires_grad=True)
    torch.sigmoid(t).backward()
    assert t.grad.item() == 0.25


def chain_by_hand(ws: list[float], bias: float, start: float) -> list[float]:
    """dh_L/dh_k for k = 0 .. L, as the product of σ'(z_j)·w_j over the layers above k."""
    h, factors = start, []
    for w in ws:
        z = w * h + bias
        h = 1 / (1 + math.exp(-z))
        factors.append(h * (1 - h) * w)  # σ'(z) · w
    grads = [1.0]
    for factor in reversed(factors):
        grads.append(grads[-1] * factor)
    return grads[::-1]


@settings(max_examples=200, deadline=None)
@given(
    ws=st.lists(weights, min_size=1, max_size=10),
    bias=weights,
    start=st.floats(min_value=-1.0, max_value=1.0),
)
def test_chain_gradient_is_the_product_of_sigmoid_slope_times_weight(
    ws: list[float], bias: float, start: float
) -> None:
    autograd = snippet.sigmoid_chain(ws, bias=bias, start=start)
    by_hand = chain_by_hand(ws, bias, start)
    assert len(autograd) == len(ws) + 1
    for got, expected in zip(autograd, by_hand, strict=True):
        assert math.isclose(got, expected, rel_tol=1e-9, abs_tol=1e-300)
    # σ' ≤ 1/4 bounds every factor by |w|/4.
    assert abs(autograd[0]) <= math.prod(abs(w) / 4 for w in ws) * (1 + 1e-12)


@settings(max_examples=50, deadline=None)
@given(w=st.floats(min_value=0.1, max_value=10.0), depth=st.integers(min_value=1, max_value=10))
def test_chain_with_z_held_at_zero_multiplies_by_w_over_4_per_layer(w: float, depth: int) -> None:
    grads = snippet.sigmoid_chain([w] * depth, bias=-w / 2, start=0.5)
    for k, got in enumerate(grads):
        assert math.isclose(got, (w / 4) ** (depth - k), rel_tol=1e-12)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**31 - 1))
def test_gradcheck_passes_the_cube_and_catches_the_wrong_cube(seed: int) -> None:
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(4, dtype=torch.float64, generator=generator).requires_grad_()
    assert torch.autograd.gradcheck(snippet.Cube.apply, (x,))
    passed = torch.autograd.gradcheck(snippet.WrongCube.apply, (x,), raise_exception=False)
    # 2x² and 3x² differ by x²; gradcheck's tolerance (1e-5 + 1e-3·3x²) hides |x| < 0.004.
    if (x.detach().abs() > 0.01).any():
        assert not passed

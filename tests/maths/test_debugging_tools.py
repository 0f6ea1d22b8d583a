"""Debugging tools: docs/chapters/debugging-tools.md's code against the maths it derives.

The page derives

* for y = 3x and loss = y², the gradient arriving at y is 2y = 6x and x.grad = 18x; a
  hook that clamps it at 5 leaves x.grad = 3·min(6x, 5);
* the total gradient norm is the square root of the sum of the squared norms;
* σ'(z) = σ(z)(1 − σ(z)) ≤ 1/4, with equality at z = 0, so d/dx Σ 2σ(x) = 2σ(1 − σ);
* the central difference (f(x + h) − f(x − h)) / 2h = f'(x) + h²/6 · f'''(x) + O(h⁴), so
  its error is at most h²/6 · max|f'''| and falls 100 times for a step 10 times
  smaller; for the page's f = sin·exp, f' = eˣ(sin x + cos x), f''' = 2eˣ(cos x − sin x);
* through a chain h_k = σ(w_k h_(k−1) + b), the gradient ∂h_L/∂h_0 = Π σ'(z_k) w_k, so
  |∂h_L/∂h_0| ≤ Π |w_k| / 4, and with b = −w/2 and h_0 = 1/2 every factor is w/4;
* the hand-written backward of Cube (3x²) passes gradcheck and WrongCube's (2x²) fails.

The code under test is the page's (snippets/chapters/debugging_tools.py):
`central_difference`, `f`, `sigmoid_chain`, `Cube`, `WrongCube`, and its regions, run
on random inputs (each ``*-maths`` region is the page's computation without its input).
"""

from __future__ import annotations

import math

import numpy as np
import torch
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from . import Session, run_region

SNIPPET = "chapters/debugging_tools"
# The page's first region makes the imports; the later ones define the functions.
page = run_region(SNIPPET, "hook", "central-difference", "sigmoid-chain", "cube", "wrong-cube")
central_difference, sigmoid_chain = page["central_difference"], page["sigmoid_chain"]

points = st.floats(min_value=-10.0, max_value=10.0, allow_nan=False, allow_infinity=False)
steps = st.floats(min_value=1e-3, max_value=1e-1, allow_nan=False)
weights = st.floats(min_value=-10.0, max_value=10.0, allow_nan=False, allow_infinity=False)
ROUNDING = 1e-11  # float64 rounding of the two values, divided by 2h, for h ≥ 1e-3


def f64(value: float, requires_grad: bool = False) -> torch.Tensor:
    return torch.tensor(value, dtype=torch.float64, requires_grad=requires_grad)


def run(region: str, **inputs: object) -> Session:
    """A region of the page, after its imports, on inputs of the test's choosing."""
    return run_region(SNIPPET, region, inputs={**page, **inputs})


@settings(max_examples=50, deadline=None)
@given(points)
def test_a_hook_sees_2y_and_x_grad_is_18x(x_value: float) -> None:
    seen = run("hook-maths", x=f64(x_value, requires_grad=True))
    assert seen.output.startswith("gradient arriving at y: tensor(")
    assert math.isclose(seen["x"].grad.item(), 18 * x_value, rel_tol=1e-12, abs_tol=1e-12)


@settings(max_examples=50, deadline=None)
@given(points)
def test_a_clamping_hook_gives_3_times_the_clamped_gradient(x_value: float) -> None:
    clamped = run("hook-modify-maths", x=f64(x_value, requires_grad=True))
    expected = 3 * min(2 * (3 * x_value), 5.0)  # dy/dx · clamp(dloss/dy = 2y, max=5)
    assert math.isclose(clamped["x"].grad.item(), expected, rel_tol=1e-12, abs_tol=1e-12)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**31 - 1))
def test_the_total_norm_is_the_root_of_the_summed_squares(seed: int) -> None:
    generator = torch.Generator().manual_seed(seed)
    nn = page["nn"]
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1)).double()  # the page's
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.copy_(torch.randn(parameter.shape, generator=generator))
    inputs = torch.randn(16, 4, generator=generator, dtype=torch.float64)
    targets = torch.randn(16, 1, generator=generator, dtype=torch.float64)
    norms = run("parameter-norms-maths", model=model, inputs=inputs, targets=targets)
    norms = run_region(SNIPPET, "total-norm-by-hand", inputs=norms)
    everything = torch.cat([p.grad.flatten() for p in model.parameters()])
    expected = everything.pow(2).sum().sqrt()  # ‖g‖ = √(Σ over all elements of g²)
    assert torch.allclose(norms["total"], expected, rtol=1e-12)
    assert torch.allclose(norms["by_hand"], expected, rtol=1e-12)


@settings(max_examples=50, deadline=None)
@given(hnp.arrays(float, st.integers(1, 6), elements=st.floats(-50.0, 50.0)))
def test_sigmoid_slope_is_s_times_1_minus_s_and_at_most_a_quarter(z: np.ndarray) -> None:
    # d/dx Σ 2σ(x) = 2σ'(x) = 2σ(x)(1 − σ(x)) ≤ 1/2
    x = torch.tensor(z, dtype=torch.float64, requires_grad=True)
    doubled = run("inplace-out-of-place-maths", x=x)
    s = 1 / (1 + torch.exp(-x.detach()))
    assert torch.allclose(doubled["x"].grad, 2 * s * (1 - s), rtol=1e-12, atol=1e-300)
    assert (doubled["x"].grad <= 2 * 0.25).all()


def test_sigmoid_slope_is_exactly_a_quarter_at_zero() -> None:
    x = torch.zeros(1, dtype=torch.float64, requires_grad=True)
    assert run("inplace-out-of-place-maths", x=x)["x"].grad.item() == 2 * 0.25


@settings(max_examples=100, deadline=None)
@given(x=points, h=steps)
def test_central_difference_error_is_at_most_h_squared_over_6_times_f3(x: float, h: float) -> None:
    # f = sin: f' = cos and |f'''| = |cos| ≤ 1, so the error is at most h²/6.
    estimate = central_difference(torch.sin, f64(x), h).item()
    assert abs(estimate - math.cos(x)) <= h**2 / 6 + ROUNDING


@settings(max_examples=100, deadline=None)
@given(x=points, h=steps)
def test_central_difference_of_a_cube_is_off_by_exactly_h_squared(x: float, h: float) -> None:
    # f = t³: f''' = 6 and every higher derivative is 0, so the error is h²/6 · 6 = h².
    estimate = central_difference(lambda t: t**3, f64(x), h).item()
    assert math.isclose(estimate, 3 * x**2 + h**2, rel_tol=1e-9, abs_tol=ROUNDING * 300)


@settings(max_examples=100, deadline=None)
@given(x=st.floats(min_value=-2.0, max_value=2.0), h=st.floats(min_value=1e-2, max_value=1e-1))
def test_a_step_10_times_smaller_makes_the_error_about_100_times_smaller(
    x: float, h: float
) -> None:
    # f = exp: the error is e^x (h²/6 + h⁴/120 + ...), so the ratio is 100 (1 + O(h²)).
    def error(step: float) -> float:
        return central_difference(torch.exp, f64(x), step).item() - math.exp(x)

    assert 99.0 <= error(h) / error(h / 10) <= 101.0


@settings(max_examples=100, deadline=None)
@given(x=st.floats(min_value=-3.0, max_value=3.0), h=steps)
def test_the_pages_f_its_derivative_and_its_error_term(x: float, h: float) -> None:
    f, point = page["f"], f64(x, requires_grad=True)
    f(point).backward()
    exact = math.exp(x) * (math.sin(x) + math.cos(x))  # f' = eˣ(sin x + cos x)
    assert point.grad is not None
    assert math.isclose(point.grad.item(), exact, rel_tol=1e-12, abs_tol=1e-12)
    # The error is h²/6 · f''' with f''' = 2eˣ(cos x − sin x), up to h⁴/120 · |f⁽⁵⁾|,
    # where |f⁽⁵⁾| = |4√2 eˣ sin(x + 5π/4)| ≤ 4√2 eˣ⁺ʰ.
    error = central_difference(f, f64(x), h).item() - exact
    third = 2 * math.exp(x) * (math.cos(x) - math.sin(x))
    assert abs(error - h**2 / 6 * third) <= h**4 / 120 * 4 * math.sqrt(2) * math.exp(x + h) + (
        ROUNDING * 100
    )


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


@settings(max_examples=100, deadline=None)
@given(
    ws=st.lists(weights, min_size=1, max_size=10),
    bias=weights,
    start=st.floats(min_value=-1.0, max_value=1.0),
)
def test_chain_gradient_is_the_product_of_sigmoid_slope_times_weight(
    ws: list[float], bias: float, start: float
) -> None:
    autograd = sigmoid_chain(ws, bias=bias, start=start)
    by_hand = chain_by_hand(ws, bias, start)
    assert len(autograd) == len(ws) + 1
    for got, expected in zip(autograd, by_hand, strict=True):
        assert math.isclose(got, expected, rel_tol=1e-9, abs_tol=1e-300)
    # σ' ≤ 1/4 bounds every factor by |w|/4 (products below 1e-300 lose their precision).
    assert abs(autograd[0]) <= math.prod(abs(w) / 4 for w in ws) * (1 + 1e-12) + 1e-300


@settings(max_examples=50, deadline=None)
@given(w=st.floats(min_value=0.1, max_value=10.0), depth=st.integers(min_value=1, max_value=10))
def test_chain_with_z_held_at_zero_multiplies_by_w_over_4_per_layer(w: float, depth: int) -> None:
    grads = sigmoid_chain([w] * depth, bias=-w / 2, start=0.5)
    for k, got in enumerate(grads):
        assert math.isclose(got, (w / 4) ** (depth - k), rel_tol=1e-12)


def test_the_printed_chains_hold_z_at_zero() -> None:
    # The page's table: column w=8, b=-4 shrinks by 8/4 = 2 per layer, back from the top.
    held = [
        (w, column)
        for (w, b), column in zip(page["chains"], page["columns"], strict=True)
        if b == -w / 2
    ]
    assert len(held) == 3  # w = 1, 4 and 8; the fourth chain has b = 0
    for w, column in held:
        for k, got in enumerate(column):
            assert math.isclose(got, (w / 4) ** (8 - k), rel_tol=1e-12)


@settings(max_examples=50, deadline=None)
@given(hnp.arrays(float, st.integers(1, 6), elements=st.floats(-10.0, 10.0)))
def test_the_hand_written_backwards_are_3x2_and_the_wrong_2x2(values: np.ndarray) -> None:
    for name, factor in (("Cube", 3), ("WrongCube", 2)):
        x = torch.tensor(values, dtype=torch.float64, requires_grad=True)
        y = page[name].apply(x)
        assert torch.equal(y.detach(), x.detach() ** 3)  # the same forward, x³
        y.sum().backward()
        assert x.grad is not None
        assert torch.allclose(x.grad, factor * x.detach() ** 2, rtol=1e-12, atol=0), name


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**31 - 1))
def test_gradcheck_passes_the_cube_and_catches_the_wrong_cube(seed: int) -> None:
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(4, dtype=torch.float64, generator=generator).requires_grad_()
    # 2x² and 3x² differ by x²; gradcheck's tolerance (1e-5 + 1e-3·3x²) hides |x| < 0.004.
    assume((x.detach().abs() > 0.01).any())
    assert torch.autograd.gradcheck(page["Cube"].apply, (x,))
    assert not torch.autograd.gradcheck(page["WrongCube"].apply, (x,), raise_exception=False)

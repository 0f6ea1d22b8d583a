"""Exercises 3.6, D.8 and D.9: the pages' solutions against the formulas they derive.

- docs/practice/exercises/memory-budget.md: a linear layer with n inputs and m outputs
  holds n·m + m numbers; parameters take 4 bytes a number (float32), gradients the same
  for the layers that train, and Adam 2 · (their bytes) + 4 bytes per trained tensor.
- docs/practice/exercises/custom-function-under-vmap.md: with z = x·w, s = σ(z) and
  y = z·s, one example's ∂(y − t)²/∂w = 2(y − t) · (s + z s (1 − s)) · x.
- docs/practice/exercises/gauss-newton-product.md: row i of J is
  (e^{w1 xi}, w0 xi e^{w1 xi}, 1), and H v − J^T J v = Σ r_i ∇²r_i v, whose last entry
  is 0 (the residuals are linear in w2).
"""

from __future__ import annotations

import math

import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn

from . import run_region

sizes = st.integers(min_value=1, max_value=40)
values = st.floats(min_value=-1.5, max_value=1.5, allow_nan=False, allow_infinity=False)

budget = run_region("practice/memory_budget", "solution")
silu = run_region("practice/custom_function_under_vmap", "solution")
gauss_newton = run_region("practice/gauss_newton_product", "solution")
gauss_newton["xs"] = gauss_newton["xs"].double()  # the page's data, in float64 for the test
gauss_newton["ys"] = gauss_newton["ys"].double()


@settings(max_examples=15, deadline=None)
@given(n=sizes, hidden=sizes, m=sizes, frozen=st.booleans())
def test_memory_budget_is_the_count_by_hand(n: int, hidden: int, m: int, frozen: bool) -> None:
    model = nn.Sequential(nn.Linear(n, hidden), nn.ReLU(), nn.Linear(hidden, m))
    if frozen:
        model[0].requires_grad_(False)
    first, second = n * hidden + hidden, hidden * m + m  # numbers of the two layers
    trained, tensors = (second, 2) if frozen else (first + second, 4)
    assert budget["memory_budget"](model) == {
        "parameters": 4 * (first + second),
        "gradients": 4 * trained,
        "adam": 2 * 4 * trained + 4 * tensors,
    }


def test_memory_budget_of_the_page() -> None:
    # 62 410 numbers, of which 42 210 train, in 4 tensors.
    assert budget["budget"] == {
        "parameters": 62_410 * 4,
        "gradients": 42_210 * 4,
        "adam": 2 * 42_210 * 4 + 4 * 4,
    }


@settings(max_examples=15, deadline=None)
@given(w=st.lists(values, min_size=3, max_size=3), x=st.lists(values, min_size=3, max_size=3))
def test_per_sample_gradient_is_the_chain_rule(w: list[float], x: list[float]) -> None:
    t = 0.3
    got = torch.func.grad(silu["example_loss"])(
        torch.tensor(w, dtype=torch.float64),
        torch.tensor(x, dtype=torch.float64),
        torch.tensor(t, dtype=torch.float64),
    )
    z = sum(a * b for a, b in zip(w, x, strict=True))
    s = 1 / (1 + math.exp(-z))
    common = 2 * (z * s - t) * (s + z * s * (1 - s))  # 2 (y - t) · silu'(z)
    for g, xi in zip(got.tolist(), x, strict=True):
        assert math.isclose(g, common * xi, rel_tol=1e-9, abs_tol=1e-12)


@settings(max_examples=15, deadline=None)
@given(w=st.lists(values, min_size=3, max_size=3), v=st.lists(values, min_size=3, max_size=3))
def test_gauss_newton_product_is_jt_j_v_by_hand(w: list[float], v: list[float]) -> None:
    xs, ys = gauss_newton["xs"].tolist(), gauss_newton["ys"].tolist()  # the page's data
    residuals = gauss_newton["residuals"]  # reads xs and ys from the session: float64 there
    w64, v64 = torch.tensor(w, dtype=torch.float64), torch.tensor(v, dtype=torch.float64)
    got = gauss_newton["gauss_newton_product"](residuals, w64, v64).tolist()
    rows = [[math.exp(w[1] * x), w[0] * x * math.exp(w[1] * x), 1.0] for x in xs]  # J
    jv = [sum(a * b for a, b in zip(row, v, strict=True)) for row in rows]
    expected = [sum(rows[i][j] * jv[i] for i in range(4)) for j in range(3)]  # J^T (J v)
    for g, e in zip(got, expected, strict=True):
        assert math.isclose(g, e, rel_tol=1e-9, abs_tol=1e-9)

    # H v − J^T J v = Σ r_i ∇²r_i v, with ∂²r/∂w0∂w1 = x e^{w1 x}, ∂²r/∂w1² = w0 x² e^{w1 x}.
    hv = torch.func.jvp(
        torch.func.grad(lambda p: 0.5 * residuals(p).square().sum()), (w64,), (v64,)
    )[1].tolist()
    second = [0.0, 0.0, 0.0]
    for x, y in zip(xs, ys, strict=True):
        r = w[0] * math.exp(w[1] * x) + w[2] - y
        mixed, curve = x * math.exp(w[1] * x), w[0] * x * x * math.exp(w[1] * x)
        second[0] += r * mixed * v[1]
        second[1] += r * (mixed * v[0] + curve * v[1])
    for h, e, s in zip(hv, expected, second, strict=True):
        assert math.isclose(h - e, s, rel_tol=1e-7, abs_tol=1e-9)
    assert second[2] == 0.0

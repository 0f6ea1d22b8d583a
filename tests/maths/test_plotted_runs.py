"""The runs behind the plots: the pages' regions against the formulas derived next to them.

* chain-rule.md (region tangent): the curve (3x + 4)² lies above its tangent at a by
  exactly 9(x − a)², so the slope the page takes from x.grad is the tangent's;
* non-scalar-outputs.md (region sum-vs-mean): with answers 3x, d/dw of the squared
  errors at w is 2(w − 3)·x² per example, so the summed loss's gradient is n times the
  mean's, and the mean's is 2(w − 3)·mean(x²);
* training-loop.md (region loss-against-bias): L(b + h) = L(b) + g·h + h² with
  g = ∂L/∂b, lowest at h = −g/2, and one SGD step of lr 0.1 goes 0.1·g / (g/2) = 0.2 of
  the way there.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from . import run_region

values = st.floats(min_value=-50.0, max_value=50.0, allow_nan=False, allow_infinity=False)
RTOL, ATOL = 1e-9, 1e-9


@settings(max_examples=50, deadline=None)
@given(values, values)
def test_the_gap_between_curve_and_tangent_is_9_times_the_square(a: float, x: float) -> None:
    point = torch.tensor(a, dtype=torch.float64, requires_grad=True)
    page = run_region("chapters/chain_rule", "tangent-maths", inputs={"x": point})
    tangent = page["y"].item() + page["slope"] * (x - a)  # the line with the page's slope
    gap = (3 * x + 4) ** 2 - tangent
    assert np.isclose(gap, 9 * (x - a) ** 2, rtol=RTOL, atol=1e-6 * (1 + abs(a) + abs(x)) ** 2)


def test_the_printed_gaps_are_9_times_the_square() -> None:
    page = run_region("chapters/chain_rule", "composite", "tangent")
    # The line through (2, 100) with slope 60, at x = 1 and x = 3: 40 and 160.
    assert page["tangent"].tolist() == [100 + 60 * (1 - 2), 100 + 60 * (3 - 2)]
    assert torch.equal(page["curve"], (3 * page["xs"] + 4) ** 2)
    gaps = re.findall(r"^x = (\S+): .* gap (\S+)$", page.output, re.M)
    assert len(gaps) == 4
    for x_text, gap in gaps:
        assert float(gap) == 9 * (float(x_text) - 2) ** 2


@settings(max_examples=50, deadline=None)
@given(arrays(np.float64, st.integers(1, 64), elements=st.floats(-10.0, 10.0)))
def test_sum_gradient_is_n_times_the_mean_gradient(inputs: np.ndarray) -> None:
    data = torch.from_numpy(inputs)
    page = run_region(
        "chapters/non_scalar_outputs",
        "sum-vs-mean-maths",
        inputs={"torch": torch, "data": data, "answers": 3 * data},  # the right weight is 3
    )
    n = len(inputs)
    g_mean, g_sum = page["weight_grad"]("mean", n), page["weight_grad"]("sum", n)
    by_hand = 2 * (1 - 3) * float((data**2).mean())  # 2(w − 3)·mean(x²) at w = 1
    # The page's w is float32, so its gradient is rounded to float32.
    assert np.isclose(g_mean, by_hand, rtol=1e-6, atol=1e-6)
    assert np.isclose(g_sum, n * by_hand, rtol=1e-6, atol=1e-6)


def test_the_printed_ratios_are_the_batch_sizes() -> None:
    page = run_region("chapters/non_scalar_outputs", "sum-vs-mean", inputs={"torch": torch})
    rows = re.findall(r"^n = +(\d+): .*sum / mean (\S+)$", page.output, re.M)
    assert [int(n) for n, _ in rows] == [4, 20, 64]
    for n, ratio in rows:
        assert float(ratio) == pytest.approx(int(n), rel=1e-6)  # float32, 6 decimals


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_the_loss_against_the_bias_is_a_parabola_lowest_half_a_gradient_away(seed: int) -> None:
    generator = torch.Generator().manual_seed(seed)
    model = torch.nn.Linear(10, 1, dtype=torch.float64)
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.copy_(torch.randn(parameter.shape, generator=generator))
    batch = {
        "inputs": torch.randn(4, 10, generator=generator, dtype=torch.float64).requires_grad_(),
        "targets": torch.randn(4, 1, generator=generator, dtype=torch.float64),
    }
    page = run_region(
        "chapters/training_loop",
        "forward",
        "backward",
        "loss-against-bias",
        inputs={"torch": torch, "model": model, **batch},
    )
    loss, g = page["loss"].item(), page["slope"]
    assert model.bias.grad is not None and g == model.bias.grad.item()
    for h, shifted_loss in zip(page["shifts"].tolist(), page["bias_losses"], strict=True):
        assert np.isclose(shifted_loss, loss + g * h + h**2, rtol=RTOL, atol=ATOL)
    # The tangent line one unit either side: L(b) ∓ g.
    assert page["line_losses"] == [loss - g, loss + g]
    assert f"the curve is lowest at a shift of -bias.grad / 2 = {-g / 2:.4f}\n" in page.output
    assert np.isclose(page["sgd_step"] / (-g / 2), 0.2, rtol=1e-12)

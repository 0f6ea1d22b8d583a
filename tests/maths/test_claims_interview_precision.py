"""docs/interview/what-is-loss-scaling-in-mixed-precision-training.md, at its edges.

* float16 turns every magnitude below half its smallest positive number, 2^-24 (about
  6e-8), into 0, in both signs;
* ``GradScaler`` (its defaults, on the CPU) skips the step and halves the scale for a
  NaN gradient as for an inf one, and doubles the scale after 2000 good steps in a row,
  not after 1999;
* multiplying by a power of 2 and dividing again gives every float16 number back
  exactly (short of overflow), where a scale that is not a power of 2 does not.
"""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.maths import run_region

PAGE = "docs/interview/what-is-loss-scaling-in-mixed-precision-training.md"
SCALING = "interview/what_is_loss_scaling_in_mixed_precision_training"


@pytest.mark.claim(
    PAGE, "In float16, gradients much smaller than 6e-8, its smallest positive number"
)
@settings(max_examples=40, deadline=None)
@given(st.floats(0, 2.0**-25, exclude_max=True), st.sampled_from([1.0, -1.0]))
def test_float16_flushes_tiny_values_to_zero(magnitude: float, sign: float) -> None:
    page = run_region(SCALING, "range", "underflow")
    assert "float16 gradient: tensor([0., 0.], dtype=torch.float16)" in page.output
    smallest = 2.0**-24
    assert torch.tensor(smallest, dtype=torch.float16).item() == smallest
    assert torch.tensor(sign * magnitude, dtype=torch.float16).item() == 0


def _scaler_step(scaler: torch.amp.GradScaler, bad: float | None) -> bool:
    """One step on a one-weight model; its gradient is replaced by `bad` if given."""
    weight = torch.nn.Parameter(torch.ones(1))
    optimizer = torch.optim.SGD([weight], lr=0.1)
    scaler.scale((weight * 2).sum()).backward()
    if bad is not None:
        weight.grad.fill_(bad)
    scaler.step(optimizer)
    scaler.update()
    return weight.item() != 1.0


@pytest.mark.claim(PAGE, "whenever the gradients contain an `inf` or a `nan`, it skips that")
@pytest.mark.parametrize("bad", [math.inf, -math.inf, math.nan])
def test_gradscaler_skips_and_halves(bad: float) -> None:
    page = run_region(SCALING, "range", "gradscaler")
    assert "step 0: scale   65536  gradients finite False  weights updated False" in page.output
    scaler = torch.amp.GradScaler("cpu")
    assert not _scaler_step(scaler, bad)
    assert scaler.get_scale() == 32768.0
    assert _scaler_step(scaler, None) and scaler.get_scale() == 32768.0


@pytest.mark.claim(PAGE, "After 2000 steps in a row without one, it")
def test_gradscaler_grows_after_2000_good_steps() -> None:
    scaler = torch.amp.GradScaler("cpu")
    _scaler_step(scaler, math.inf)  # one bad step: 32768, and the count starts again
    for _ in range(1999):
        _scaler_step(scaler, None)
    assert scaler.get_scale() == 32768.0
    _scaler_step(scaler, None)
    assert scaler.get_scale() == 65536.0


@pytest.mark.claim(PAGE, "A power of 2 is used so that scaling and")
@settings(max_examples=60, deadline=None)
@given(st.floats(-0.990234375, 0.990234375, width=16, allow_subnormal=True))  # x 65536 < 65504
def test_a_power_of_two_loses_no_digits(value: float) -> None:
    page = run_region(SCALING, "range", "underflow", "scaled")
    assert page["scale"] == 2.0**16
    x = torch.tensor(value, dtype=torch.float16)
    scaled = x * page["scale"]  # in float16, as the scaled gradients are
    assert torch.isfinite(scaled)
    assert (scaled.float() / page["scale"]).item() == value  # exactly back


def test_a_scale_that_is_not_a_power_of_two_loses_digits() -> None:
    values = torch.arange(1, 1014, dtype=torch.float16) / 1024  # float16 numbers in (0, 0.99)
    back = (values * 30000.0).float() / 30000.0  # 30000: not a power of 2
    assert (back != values.float()).any()

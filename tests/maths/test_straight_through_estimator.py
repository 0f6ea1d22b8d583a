"""docs/interview/what-is-the-straight-through-estimator.md, at the edges of its claims.

The clipped detach trick and ``SignSTE`` agree at every w, the bounds ±1 and 0 included,
in float32 and float64, on every release; the trick written with ``clamp`` gives 0 at the
bounds since PyTorch 2.14 (version note clamp-bounds), so a weight clipped to 1 stays.
"""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.maths import run_region

PAGE = "docs/interview/what-is-the-straight-through-estimator.md"
STE = "interview/what_is_the_straight_through_estimator"
EDGES = [0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -1.5, 1.0 + 2**-20, -(1.0 - 2**-20)]


def _sign_ste() -> type[torch.autograd.Function]:
    return run_region(STE, "zero-gradient", "sign-ste")["SignSTE"]


values = st.lists(
    st.one_of(st.sampled_from(EDGES), st.floats(-3, 3, allow_nan=False)), min_size=1, max_size=8
)


@pytest.mark.claim(PAGE, "It is the same as `SignSTE`, value and gradient, at every $w$")
@settings(max_examples=40, deadline=None)
@given(values, st.sampled_from([torch.float32, torch.float64]))
def test_clipped_trick_is_sign_ste(ws: list[float], dtype: torch.dtype) -> None:
    sign_ste = _sign_ste()
    w = torch.tensor(ws, dtype=dtype, requires_grad=True)
    page = run_region(
        STE, "detach-trick-maths", inputs={"torch": torch, "w": w, "SignSTE": sign_ste}
    )
    v = w.detach().clone().requires_grad_()
    expected = sign_ste.apply(v)
    expected.sum().backward()
    torch.testing.assert_close(page["clipped"].detach(), expected.detach(), rtol=0, atol=0)
    torch.testing.assert_close(page["w"].grad, v.grad, rtol=0, atol=0)
    # ... and by hand: 1 where |w| <= 1, else 0 (the bounds included).
    torch.testing.assert_close(v.grad, (w.detach().abs() <= 1).to(dtype), rtol=0, atol=0)


@pytest.mark.claim(PAGE, "its gradient is that of `w`, which is 1 everywhere, also at $|w| > 1$")
def test_plain_trick_passes_one_everywhere() -> None:
    page = run_region(STE, "zero-gradient", "sign-ste", "detach-trick")
    plain = next(line for line in page.output.splitlines() if line.startswith("plain"))
    assert "gradient tensor([1., 1., 1., 1., 1., 1.])" in plain


@pytest.mark.claim(
    PAGE,
    "that version gives gradient 0 at $w = \\pm 1$, where `SignSTE` gives 1",
    note="clamp-bounds",
)
def test_clamp_version_gives_zero_at_the_bounds() -> None:
    page = run_region(STE, "zero-gradient", "sign-ste", "clamp-trap")
    for dtype in (torch.float32, torch.float64):
        w = torch.tensor([1.0, -1.0], dtype=dtype, requires_grad=True)
        page["clamp_ste"](w).sum().backward()
        assert w.grad.tolist() == [0.0, 0.0]
        v = w.detach().clone().requires_grad_()
        page["SignSTE"].apply(v).sum().backward()
        assert v.grad.tolist() == [1.0, 1.0]


@pytest.mark.claim(PAGE, "there the clamp version never moves them again", note="clamp-bounds")
def test_a_clipped_weight_stays_at_one() -> None:
    page = run_region(STE, "zero-gradient", "sign-ste", "clamp-trap")
    assert "clamp version: w after 3 steps 1.00" in page.output
    assert "SignSTE      : w after 3 steps 0.70" in page.output

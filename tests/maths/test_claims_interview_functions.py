"""docs/interview/how-do-you-write-a-custom-autograd-function.md, at its edges.

The page's ``ScaledSigmoid``: its gradient is k y (1 - y) by hand and autograd's own for
``sigmoid(k x)``, for any k (0 and negative included) and x (saturated included), in
float32 and float64; its forward records nothing; its saved tensor gets the version
check and is freed by backward; a backward that returns too few values is refused;
``needs_input_grad`` has one boolean per input; gradcheck's numerical Jacobian for
``ForgotTheScale`` is k times its analytical one.
"""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch.autograd.function import FunctionCtx
from torch.autograd.gradcheck import GradcheckError

from tests.maths import Session, run_region

PAGE = "docs/interview/how-do-you-write-a-custom-autograd-function.md"
FUNCTION = "interview/how_do_you_write_a_custom_autograd_function"


def _page() -> Session:
    return run_region(FUNCTION, "function", "gradcheck", "wrong")


@pytest.mark.claim(
    PAGE, "The result agrees with autograd's own gradient of `torch.sigmoid(3.0 * x)`"
)
@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.floats(-50, 50, allow_nan=False), min_size=1, max_size=5),
    st.sampled_from([0.0, 3.0, -2.0, 0.5, 10.0]),
    st.sampled_from([torch.float32, torch.float64]),
)
def test_gradient_agrees_with_autograd(values: list[float], k: float, dtype: torch.dtype) -> None:
    scaled_sigmoid = _page()["ScaledSigmoid"]
    x = torch.tensor(values, dtype=dtype, requires_grad=True)
    y = scaled_sigmoid.apply(x, k)
    y.sum().backward()
    reference = x.detach().clone().requires_grad_()
    torch.sigmoid(k * reference).sum().backward()
    by_hand = k * y.detach() * (1 - y.detach())  # k y (1 - y)
    torch.testing.assert_close(x.grad, reference.grad)
    torch.testing.assert_close(x.grad, by_hand)


@pytest.mark.claim(PAGE, "Inside `forward`, autograd records nothing")
def test_forward_records_nothing() -> None:
    page = _page()
    seen: dict[str, Any] = {}

    class Probe(page["ScaledSigmoid"]):  # the page's forward, observed from inside
        @staticmethod
        def forward(ctx: FunctionCtx, x: torch.Tensor, k: float) -> torch.Tensor:
            seen["grad mode"] = torch.is_grad_enabled()
            inner = (k * x).sigmoid()
            seen["grad_fn"] = inner.grad_fn
            return page["ScaledSigmoid"].forward(ctx, x, k)

    x = torch.tensor([0.5], requires_grad=True)
    Probe.apply(x, 3.0)
    assert seen == {"grad mode": False, "grad_fn": None}


@pytest.mark.claim(
    PAGE, "so that they get the version check against in-place changes and are freed"
)
def test_saved_tensors_are_checked_and_freed() -> None:
    scaled_sigmoid = _page()["ScaledSigmoid"]
    x = torch.tensor([0.5, -1.0], requires_grad=True)
    y = scaled_sigmoid.apply(x, 3.0)
    with torch.no_grad():
        y.mul_(2)  # the saved y, changed in place
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()
    y = scaled_sigmoid.apply(x, 3.0)
    y.sum().backward()
    with pytest.raises(RuntimeError, match="after they have already been freed"):
        _ = y.grad_fn.saved_tensors


@pytest.mark.claim(PAGE, "It returns one value per input of `forward`, in")
def test_one_gradient_per_input() -> None:
    page = _page()

    class OneValue(page["ScaledSigmoid"]):
        @staticmethod
        def backward(ctx: FunctionCtx, grad_y: torch.Tensor) -> torch.Tensor:
            (y,) = ctx.saved_tensors
            return grad_y * ctx.k * y * (1 - y)  # no None for k

    x = torch.tensor([0.5], requires_grad=True)
    with pytest.raises(RuntimeError, match="incorrect number of gradients"):
        OneValue.apply(x, 3.0).sum().backward()


@pytest.mark.claim(PAGE, "Test `ctx.needs_input_grad`, one boolean per")
@pytest.mark.parametrize("requires_grad", [True, False])
def test_needs_input_grad(requires_grad: bool) -> None:
    page = _page()
    seen: list[tuple[bool, ...]] = []

    class Probe(page["ScaledSigmoid"]):
        @staticmethod
        def forward(ctx: FunctionCtx, x: torch.Tensor, k: float) -> torch.Tensor:
            seen.append(ctx.needs_input_grad)
            return page["ScaledSigmoid"].forward(ctx, x, k)

    w = torch.tensor([0.5], requires_grad=requires_grad)
    Probe.apply(w, 3.0)
    assert seen == [(requires_grad, False)]


@pytest.mark.claim(PAGE, "The numerical one is 3 times the analytical one")
def test_numerical_jacobian_is_k_times_the_analytical() -> None:
    page = _page()
    x64 = page["x64"].detach()
    k = 3.0
    numerical = torch.autograd.functional.jacobian(lambda t: torch.sigmoid(k * t), x64)
    t = x64.clone().requires_grad_()
    analytical = torch.autograd.functional.jacobian(lambda t: page["ForgotTheScale"].apply(t, k), t)
    torch.testing.assert_close(numerical, k * analytical)
    with pytest.raises(GradcheckError, match="Jacobian mismatch"):
        torch.autograd.gradcheck(lambda t: page["ForgotTheScale"].apply(t, k), (t,))

"""Interview pages on how gradients add up and are cleared, at the edges of their claims.

* docs/interview/gradient-of-a-parameter-used-twice.md: for L = w x + w², w.grad is
  x + 2w by hand at any w and x (0 and negative included, float32 and float64); a layer
  applied twice gets the sum of what two copies get, for any layer and inputs.
* docs/interview/grad-zero-vs-optimizer-zero-grad.md: ``x.grad.zero_()`` keeps the same
  tensor; ``model.zero_grad()`` sets every parameter's gradient to None by default and
  to zeros with ``set_to_none=False``, like the optimizer's.
"""

from __future__ import annotations

import copy

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn

from tests.maths import run_region

TWICE_PAGE = "docs/interview/gradient-of-a-parameter-used-twice.md"
TWICE = "interview/gradient_of_a_parameter_used_twice"
ZERO_PAGE = "docs/interview/grad-zero-vs-optimizer-zero-grad.md"
ZERO = "interview/grad_zero_vs_optimizer_zero_grad"

numbers = st.one_of(st.sampled_from([0.0, -0.0, 1.0, -2.5]), st.floats(-1e3, 1e3))


@pytest.mark.claim(TWICE_PAGE, "The sum of the gradients from each use")
@settings(max_examples=40, deadline=None)
@given(numbers, numbers, st.sampled_from([torch.float32, torch.float64]))
def test_two_uses_add(w0: float, x: float, dtype: torch.dtype) -> None:
    w = torch.tensor(w0, dtype=dtype, requires_grad=True)
    page = run_region(TWICE, "twice-maths", inputs={"w": w, "x": x})
    by_hand = x + 2 * w.detach()  # x + 2w
    torch.testing.assert_close(page["w"].grad, by_hand)


@pytest.mark.claim(TWICE_PAGE, "the shared weight's gradient is the sum of the gradients that two")
@settings(max_examples=20, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 5), st.sampled_from([torch.float32, torch.float64]))
def test_a_shared_layer_gets_the_sum(seed: int, batch: int, dtype: torch.dtype) -> None:
    torch.manual_seed(seed)
    layer = nn.Linear(2, 2).to(dtype)
    first, second = copy.deepcopy(layer), copy.deepcopy(layer)
    inputs = torch.randn(batch, 2, dtype=dtype)
    page = run_region(
        TWICE,
        "shared-layer-maths",
        inputs={"torch": torch, "layer": layer, "first": first, "second": second, "inputs": inputs},
    )
    assert page.output == "tied gradient = sum of both uses: True\n"
    torch.testing.assert_close(layer.bias.grad, first.bias.grad + second.bias.grad)


@pytest.mark.claim(ZERO_PAGE, "the same `.grad` tensor is overwritten with")
def test_zero_keeps_the_same_tensor() -> None:
    page = run_region(ZERO, "tensor")
    x = page["x"]
    (x**2).backward()
    grad = x.grad
    x.grad.zero_()
    assert x.grad is grad and grad.item() == 0.0


@pytest.mark.claim(ZERO_PAGE, "`model.zero_grad()` does the same for every parameter of a model")
@pytest.mark.parametrize("set_to_none", [True, False, None])
def test_model_zero_grad_is_the_optimizers(set_to_none: bool | None) -> None:
    page = run_region(ZERO, "tensor", "optimizer")
    model = page["model"]
    page["backward_pass"]()
    if set_to_none is None:
        model.zero_grad()  # the default
    else:
        model.zero_grad(set_to_none=set_to_none)
    grads = [p.grad for p in model.parameters()]
    if set_to_none is False:
        assert all(g is not None and g.eq(0).all() for g in grads)
    else:
        assert grads == [None, None]

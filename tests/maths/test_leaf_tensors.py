"""Chapter 8: leaves, non-leaves and retain_grad() behave as docs/chapters/leaf-tensors.md derives.

For y = 3x and loss = y²: dloss/dy = 2y and dloss/dx = 2y·3 = 18x, at random x.
"""

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

values = st.floats(min_value=-100.0, max_value=100.0, allow_nan=False, allow_infinity=False)
RTOL, ATOL = 1e-10, 1e-12


def leaf(value: float) -> torch.Tensor:
    return torch.tensor(value, dtype=torch.float64, requires_grad=True)


def close(actual: torch.Tensor | None, expected: torch.Tensor) -> bool:
    assert actual is not None, "no gradient was stored"
    return torch.allclose(actual, expected, rtol=RTOL, atol=ATOL)


@settings(max_examples=50, deadline=None)
@given(values)
def test_grad_is_kept_for_the_leaf_only(x_value: float) -> None:
    x = leaf(x_value)
    y = x * 3
    assert x.is_leaf and not y.is_leaf
    assert x.grad_fn is None and y.grad_fn is not None
    (y**2).backward()
    assert close(x.grad, 18 * x.detach())  # dloss/dx = 2y·3 = 18x
    with pytest.warns(UserWarning, match="not a leaf"):
        assert y.grad is None


@settings(max_examples=100, deadline=None)
@given(values)
def test_retain_grad_keeps_dloss_dy_equal_to_2y(x_value: float) -> None:
    x = leaf(x_value)
    y = x * 3
    y.retain_grad()
    (y**2).backward()
    assert close(y.grad, 2 * y.detach())  # dloss/dy = 2y
    assert close(x.grad, y.grad * 3)  # the chain rule: dloss/dy · dy/dx
    assert not y.is_leaf  # retain_grad() keeps a gradient; y is still not a leaf


@settings(max_examples=50, deadline=None)
@given(values)
def test_retain_grad_after_backward_keeps_nothing(x_value: float) -> None:
    x = leaf(x_value)
    y = x * 3
    (y**2).backward()
    y.retain_grad()
    assert y.grad is None


@settings(max_examples=50, deadline=None)
@given(values, st.integers(min_value=1, max_value=5))
def test_passes_through_a_retained_graph_add_up(x_value: float, passes: int) -> None:
    # Each pass adds 2y to y.grad and 18x to x.grad.
    x = leaf(x_value)
    y = x * 3
    y.retain_grad()
    loss = y**2
    for _ in range(passes - 1):
        loss.backward(retain_graph=True)
    loss.backward()
    assert close(y.grad, passes * 2 * y.detach())
    assert close(x.grad, passes * 18 * x.detach())
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        loss.backward()


@settings(max_examples=50, deadline=None)
@given(values)
def test_tensors_that_need_no_gradient_are_leaves(x_value: float) -> None:
    data = torch.tensor(x_value, dtype=torch.float64)
    scaled = data * 2  # made by an operation, still a leaf
    assert data.is_leaf and scaled.is_leaf
    assert not scaled.requires_grad and scaled.grad_fn is None
    assert torch.nn.Linear(2, 1).weight.is_leaf

"""Leaf tensors: docs/chapters/leaf-tensors.md's code against its hand derivation.

For y = 3x and loss = y², the page derives dloss/dy = 2y and dloss/dx = 2y·3 = 18x:
x.grad is kept (x is a leaf), y.grad only after y.retain_grad() called before
backward(), and each pass through a retained graph adds the same gradients again.
The regions of snippets/chapters/leaf_tensors.py run on random x (each ``*-maths``
region is the page's computation without its hard-coded x = 2).
"""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from . import Session, run_region

SNIPPET = "chapters/leaf_tensors"
values = st.floats(min_value=-100.0, max_value=100.0, allow_nan=False, allow_infinity=False)
RTOL, ATOL = 1e-10, 1e-12

describe = run_region(SNIPPET, "describe")


def run_on(region: str, x_value: float) -> Session:
    """Region ``region`` of the page, after the page's describe(), on x = x_value."""
    x = torch.tensor(x_value, dtype=torch.float64, requires_grad=True)
    return run_region(SNIPPET, region, inputs={**describe, "x": x})


def close(actual: torch.Tensor | None, expected: torch.Tensor) -> bool:
    assert actual is not None, "no gradient was stored"
    return torch.allclose(actual, expected, rtol=RTOL, atol=ATOL)


@settings(max_examples=30, deadline=None)
@given(values)
def test_a_tensor_made_by_an_operation_is_not_a_leaf(x_value: float) -> None:
    page = run_on("leaf-maths", x_value)
    assert page.output == (
        "x: is_leaf=True, requires_grad=True, grad_fn=None\n"
        "y: is_leaf=False, requires_grad=True, grad_fn=MulBackward0\n"
    )
    assert torch.equal(page["y"], 3 * page["x"])


@settings(max_examples=50, deadline=None)
@given(values)
def test_grad_is_kept_for_the_leaf_only(x_value: float) -> None:
    with pytest.warns(UserWarning, match="not a leaf"):  # the page reads y.grad
        page = run_on("grad-leaf-only-maths", x_value)
    x = page["x"].detach()
    assert close(page["x"].grad, 18 * x)  # dloss/dx = 2y·3 = 18x
    assert page.output.endswith("y.grad: None\n")


@settings(max_examples=50, deadline=None)
@given(values)
def test_retain_grad_keeps_dloss_dy_equal_to_2y(x_value: float) -> None:
    page = run_on("retain-grad-maths", x_value)
    y = 3 * page["x"].detach()
    assert close(page["y"].grad, 2 * y)  # dloss/dy = 2y
    assert close(page["x"].grad, 2 * y * 3)  # the chain rule: dloss/dy · dy/dx
    # retain_grad() keeps a gradient; y is still not a leaf.
    assert page.output.endswith("y: is_leaf=False, requires_grad=True, grad_fn=MulBackward0\n")


@settings(max_examples=30, deadline=None)
@given(values)
def test_retain_grad_after_backward_keeps_nothing(x_value: float) -> None:
    page = run_on("too-late-maths", x_value)
    assert page["y"].grad is None
    assert page.output == "y.grad: None\n"


@settings(max_examples=50, deadline=None)
@given(values)
def test_passes_through_a_retained_graph_add_up(x_value: float) -> None:
    # Each pass adds 2y to y.grad and 18x to x.grad; the page makes two passes.
    page = run_on("retain-graph-maths", x_value)
    x = page["x"].detach()
    assert close(page["y"].grad, 2 * (2 * 3 * x))
    assert close(page["x"].grad, 2 * 18 * x)
    # The page's last pass freed the graph: a third one fails.
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        page["loss"].backward()


def test_tensors_that_need_no_gradient_are_leaves() -> None:
    page = run_region(SNIPPET, "describe", "created-by")
    assert page["data"].is_leaf and page["scaled_data"].is_leaf  # made by an operation
    assert not page["scaled_data"].requires_grad and page["scaled_data"].grad_fn is None
    assert not page["scaled_weights"].is_leaf
    assert page["layer"].weight.is_leaf
    for name in ("data", "weights", "scaled_data", "scaled_weights", "layer.weight"):
        tensor = page["layer"].weight if name == "layer.weight" else page[name]
        assert f"{name}: is_leaf={tensor.is_leaf}, requires_grad={tensor.requires_grad}" in (
            page.output
        )

"""backward() and .grad: docs/chapters/backward-and-grad.md's code against its derivatives.

The page's regions (snippets/chapters/backward_and_grad.py) run on random x: each
``*-maths`` region is the page's computation without its hard-coded x. The expected
values are the page's hand derivatives: d/dx x² = 2x, d/dx 4x = 4, d/dx x³ = 3x², and
for z = 3y with y = x², dz/dx = 3·2x while y.backward() gives 2x alone.
"""

from __future__ import annotations

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from . import run_region

SNIPPET = "chapters/backward_and_grad"
values = st.floats(min_value=-100.0, max_value=100.0, allow_nan=False, allow_infinity=False)
RTOL, ATOL = 1e-12, 1e-12


def leaf(value: float) -> torch.Tensor:
    return torch.tensor(value, dtype=torch.float64, requires_grad=True)


def x_grad_after(region: str, x_value: float) -> torch.Tensor:
    """Run one region of the page on x = x_value; return the x.grad it left."""
    grad = run_region(SNIPPET, region, inputs={"x": leaf(x_value)})["x"].grad
    assert grad is not None, f"{region}: backward() did not reach x"
    return grad


def agrees(grad: torch.Tensor, expected: float) -> bool:
    return torch.allclose(grad, torch.tensor(expected, dtype=torch.float64), rtol=RTOL, atol=ATOL)


@settings(max_examples=50, deadline=None)
@given(values)
def test_square(x_value: float) -> None:
    assert agrees(x_grad_after("first-maths", x_value), 2 * x_value)  # d/dx x² = 2x


@settings(max_examples=50, deadline=None)
@given(values)
def test_linear(x_value: float) -> None:
    assert agrees(x_grad_after("linear-maths", x_value), 4)  # d/dx 4x = 4, whatever x is


@settings(max_examples=50, deadline=None)
@given(values)
def test_cube(x_value: float) -> None:
    assert agrees(x_grad_after("cubic-maths", x_value), 3 * x_value**2)  # d/dx x³ = 3x²


@settings(max_examples=50, deadline=None)
@given(values)
def test_backward_starts_at_the_tensor_it_is_called_on(x_value: float) -> None:
    # From z = 3y: dz/dx = 3·2x, and backward() itself returns nothing.
    page = run_region(SNIPPET, "start-point-z-maths", inputs={"x": leaf(x_value)})
    assert "z is a scalar: True\nz.backward() returns: None\n" in page.output
    assert agrees(page["x"].grad, 3 * 2 * x_value)
    # From y = x², one step earlier: dy/dx = 2x, z plays no part.
    assert agrees(x_grad_after("start-point-y-maths", x_value), 2 * x_value)


@settings(max_examples=50, deadline=None)
@given(values)
def test_grad_is_none_before_backward_then_accumulates(x_value: float) -> None:
    page = run_region(SNIPPET, "grad-attribute-maths", inputs={"x": leaf(x_value)})
    assert "before backward(): None\n" in page.output
    assert agrees(page["x"].grad, 2 * x_value)
    # A second graph from the same leaf adds another 2x to .grad.
    page = run_region(SNIPPET, "accumulated", inputs=page)
    assert agrees(page["x"].grad, 2 * x_value + 2 * x_value)

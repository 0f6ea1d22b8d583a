"""Chapter 3: the derivatives of docs/chapters/backward-and-grad.md agree with autograd."""

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

values = st.floats(min_value=-100.0, max_value=100.0, allow_nan=False, allow_infinity=False)
RTOL, ATOL = 1e-12, 1e-12


def leaf(value: float) -> torch.Tensor:
    return torch.tensor(value, dtype=torch.float64, requires_grad=True)


def agrees(grad: torch.Tensor | None, expected: float) -> bool:
    assert grad is not None, "backward() did not reach the leaf"
    return torch.allclose(grad, torch.tensor(expected, dtype=torch.float64), rtol=RTOL, atol=ATOL)


@settings(max_examples=100, deadline=None)
@given(values)
def test_square(x_value: float) -> None:
    # d/dx x² = 2x
    x = leaf(x_value)
    (x**2).backward()
    assert agrees(x.grad, 2 * x_value)


@settings(max_examples=100, deadline=None)
@given(values)
def test_linear(x_value: float) -> None:
    # d/dx 4x = 4, whatever x is
    x = leaf(x_value)
    (4 * x).backward()
    assert agrees(x.grad, 4)


@settings(max_examples=100, deadline=None)
@given(values)
def test_cube(x_value: float) -> None:
    # d/dx x³ = 3x²
    x = leaf(x_value)
    (x**3).backward()
    assert agrees(x.grad, 3 * x_value**2)


@settings(max_examples=100, deadline=None)
@given(values)
def test_backward_starts_at_the_tensor_it_is_called_on(x_value: float) -> None:
    # y = x², z = 3y: from z, dz/dx = 3·2x; from y, dy/dx = 2x (z plays no part)
    x = leaf(x_value)
    z = 3 * x**2
    z.backward()
    assert agrees(x.grad, 3 * 2 * x_value)

    x = leaf(x_value)
    y = x**2
    _z = 3 * y
    y.backward()
    assert agrees(x.grad, 2 * x_value)


@settings(max_examples=100, deadline=None)
@given(values)
def test_grad_is_none_before_backward_then_accumulates(x_value: float) -> None:
    # .grad is None until a backward pass; each pass adds 2x to it.
    x = leaf(x_value)
    assert x.grad is None
    (x**2).backward()
    assert agrees(x.grad, 2 * x_value)
    (x**2).backward()
    assert agrees(x.grad, 2 * x_value + 2 * x_value)

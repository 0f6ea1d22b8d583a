"""Chapter 4: the hand-derived gradients of several variables agree with autograd."""

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

# Sensible magnitudes for float64: large enough to vary, small enough to stay exact-ish.
values = st.floats(min_value=-10.0, max_value=10.0, allow_nan=False, allow_infinity=False)
RTOL, ATOL = 1e-10, 1e-12


def leaf(value: float) -> torch.Tensor:
    return torch.tensor(value, dtype=torch.float64, requires_grad=True)


@settings(max_examples=100, deadline=None)
@given(values, values)
def test_product_gradients_are_the_other_input(x_value: float, y_value: float) -> None:
    # z = x·y  =>  ∂z/∂x = y, ∂z/∂y = x
    x, y = leaf(x_value), leaf(y_value)
    (x * y).backward()
    assert torch.allclose(x.grad, y.detach(), rtol=RTOL, atol=ATOL)
    assert torch.allclose(y.grad, x.detach(), rtol=RTOL, atol=ATOL)


@settings(max_examples=100, deadline=None)
@given(values, values, values)
def test_squared_linear_gradients(x_value: float, w_value: float, b_value: float) -> None:
    # loss = (x·w + b)²  =>  x.grad = 2y·w, w.grad = 2y·x, b.grad = 2y, with y = x·w + b
    x, w, b = leaf(x_value), leaf(w_value), leaf(b_value)
    ((x * w + b) ** 2).backward()
    y = x.detach() * w.detach() + b.detach()
    assert torch.allclose(x.grad, 2 * y * w.detach(), rtol=RTOL, atol=ATOL)
    assert torch.allclose(w.grad, 2 * y * x.detach(), rtol=RTOL, atol=ATOL)
    assert torch.allclose(b.grad, 2 * y, rtol=RTOL, atol=ATOL)


@settings(max_examples=50, deadline=None)
@given(values, values, values)
def test_linear_layer_gets_the_same_gradients(
    x_value: float, w_value: float, b_value: float
) -> None:
    # nn.Linear(1, 1) computes x·w + b: its weight and bias get 2y·x and 2y.
    layer = torch.nn.Linear(1, 1, dtype=torch.float64)
    with torch.no_grad():
        layer.weight.fill_(w_value)
        layer.bias.fill_(b_value)
    inputs = torch.tensor([[x_value]], dtype=torch.float64)
    layer(inputs).pow(2).sum().backward()
    y = torch.tensor(x_value * w_value + b_value, dtype=torch.float64)
    assert layer.weight.grad.shape == layer.weight.shape
    assert torch.allclose(layer.weight.grad, (2 * y * x_value).reshape(1, 1), rtol=RTOL, atol=ATOL)
    assert torch.allclose(layer.bias.grad, (2 * y).reshape(1), rtol=RTOL, atol=ATOL)

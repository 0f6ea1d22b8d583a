"""Chapter 2: the chain-rule derivations of docs/chapters/chain-rule.md agree with autograd."""

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

values = st.floats(min_value=-100.0, max_value=100.0, allow_nan=False, allow_infinity=False)
RTOL, ATOL = 1e-12, 1e-12


def leaf(value: float) -> torch.Tensor:
    return torch.tensor(value, dtype=torch.float64, requires_grad=True)


def close(value: float, expected: float) -> bool:
    return abs(value - expected) <= ATOL + RTOL * abs(expected)


def chain_rule_derivative(x: float) -> float:
    # u = 3x + 4, y = u²  =>  dy/dx = dy/du · du/dx = 2u · 3 = 6(3x + 4)
    return 6 * (3 * x + 4)


@settings(max_examples=100, deadline=None)
@given(values)
def test_composite_function(x_value: float) -> None:
    x = leaf(x_value)
    u = 3 * x + 4
    y = u**2
    y.backward()
    expected = torch.tensor(chain_rule_derivative(x_value), dtype=torch.float64)
    assert torch.allclose(x.grad, expected, rtol=RTOL, atol=ATOL)


@settings(max_examples=100, deadline=None)
@given(values)
def test_explicit_graph_node_by_node(x_value: float) -> None:
    # y = 3x, z = y + 4, loss = z²: local derivatives 2z, 1 and 3, multiplied from the output.
    x = leaf(x_value)
    y = x * 3
    z = y + 4
    loss = z**2
    z_value = 3 * x_value + 4

    grad_z = loss.grad_fn(torch.tensor(1.0, dtype=torch.float64))
    grad_y, _ = z.grad_fn(grad_z)
    grad_x, _ = y.grad_fn(grad_y)
    assert close(grad_z.item(), 2 * z_value)  # dloss/dz = 2z
    assert close(grad_y.item(), 2 * z_value * 1)  # · dz/dy = 1
    assert close(grad_x.item(), 2 * z_value * 1 * 3)  # · dy/dx = 3

    loss.backward()
    expected = torch.tensor(chain_rule_derivative(x_value), dtype=torch.float64)
    assert torch.allclose(x.grad, expected, rtol=RTOL, atol=ATOL)

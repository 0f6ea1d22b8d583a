"""Chapter 6: reusing a retained graph adds the same gradient again; shared graphs add up."""

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

values = st.floats(min_value=-10.0, max_value=10.0, allow_nan=False, allow_infinity=False)
RTOL, ATOL = 1e-10, 1e-12


def leaf(value: float) -> torch.Tensor:
    return torch.tensor(value, dtype=torch.float64, requires_grad=True)


@settings(max_examples=100, deadline=None)
@given(values)
def test_two_passes_through_a_retained_graph_give_2_times_2x(x_value: float) -> None:
    x = leaf(x_value)
    y = x**2
    y.backward(retain_graph=True)
    assert torch.allclose(x.grad, 2 * x.detach(), rtol=RTOL, atol=ATOL)
    y.backward()
    assert torch.allclose(x.grad, 2 * (2 * x.detach()), rtol=RTOL, atol=ATOL)


def test_a_second_pass_without_retain_graph_raises() -> None:
    x = leaf(2.0)
    y = x**2
    y.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()


@settings(max_examples=100, deadline=None)
@given(values)
def test_two_losses_sharing_a_graph_add_up(x_value: float) -> None:
    # h = x², loss1 = 3h, loss2 = h²: d loss1/dx = 3·2x, d loss2/dx = 2h·2x
    x = leaf(x_value)
    h = x**2
    loss1, loss2 = 3 * h, h**2
    x_ = x.detach()
    h_ = x_**2

    loss1.backward(retain_graph=True)
    assert torch.allclose(x.grad, 3 * 2 * x_, rtol=RTOL, atol=ATOL)
    loss2.backward()
    assert torch.allclose(x.grad, 3 * 2 * x_ + 2 * h_ * 2 * x_, rtol=RTOL, atol=ATOL)

    # One backward of the sum gives the same total, with nothing retained.
    z = leaf(x_value)
    (3 * z**2 + (z**2) ** 2).backward()
    assert torch.allclose(z.grad, x.grad, rtol=RTOL, atol=ATOL)


@settings(max_examples=50, deadline=None)
@given(values)
def test_a_graph_that_saved_nothing_runs_twice_and_grad_doubles(x_value: float) -> None:
    # x + 1 and sum(): local derivatives are 1, nothing is saved, nothing is freed.
    x = leaf(x_value)
    y = x + 1
    y.backward()
    y.backward()
    assert x.grad.item() == 2.0

    v = torch.full((3,), x_value, dtype=torch.float64, requires_grad=True)
    total = v.sum()
    total.backward()
    total.backward()
    assert torch.equal(v.grad, torch.full((3,), 2.0, dtype=torch.float64))

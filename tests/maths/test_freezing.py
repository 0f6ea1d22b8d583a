"""Chapter 4 (Part 3): parameter counts and how an optimizer moves a frozen parameter."""

import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn

sizes = st.integers(min_value=1, max_value=40)
values = st.floats(min_value=-5.0, max_value=5.0, allow_nan=False, allow_infinity=False)
rates = st.floats(min_value=0.01, max_value=0.5)


@settings(max_examples=50, deadline=None)
@given(sizes, sizes, sizes)
def test_a_linear_layer_has_n_in_times_n_out_plus_n_out_values(
    n_in: int, hidden: int, n_out: int
) -> None:
    model = nn.Sequential(nn.Linear(n_in, hidden), nn.ReLU(), nn.Linear(hidden, n_out))
    total = sum(p.numel() for p in model.parameters())
    assert total == (n_in * hidden + hidden) + (hidden * n_out + n_out)
    model[0].requires_grad_(False)
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    assert trainable == hidden * n_out + n_out


@settings(max_examples=50, deadline=None)
@given(st.lists(values, min_size=1, max_size=4), rates, rates, rates)
def test_sgd_moves_a_frozen_parameter_with_a_zero_gradient(
    start: list[float], lr: float, momentum: float, decay: float
) -> None:
    # d = g + λθ, v ← μv + d (v = d on the first step), θ ← θ − ηv; here g = 0 after freezing.
    theta = torch.tensor(start, dtype=torch.float64)
    w = nn.Parameter(theta.clone())
    optimizer = torch.optim.SGD([w], lr=lr, momentum=momentum, weight_decay=decay)
    (w**2).sum().backward()
    optimizer.step()
    v = 2 * theta + decay * theta
    theta = theta - lr * v
    assert torch.allclose(w.detach(), theta)

    w.requires_grad_(False)
    optimizer.zero_grad(set_to_none=False)
    optimizer.step()
    v = momentum * v + decay * theta
    theta = theta - lr * v
    assert torch.allclose(w.detach(), theta)


@settings(max_examples=30, deadline=None)
@given(st.lists(values.filter(lambda v: abs(v) > 0.1), min_size=1, max_size=4), rates)
def test_adams_first_step_moves_each_value_by_about_the_learning_rate(
    start: list[float], lr: float
) -> None:
    w = nn.Parameter(torch.tensor(start, dtype=torch.float64))
    before = w.detach().clone()
    optimizer = torch.optim.Adam([w], lr=lr)
    (w**3).sum().backward()
    optimizer.step()
    assert torch.allclose((before - w.detach()).abs(), torch.full_like(before, lr), rtol=1e-6)


def test_a_parameter_whose_grad_is_none_is_skipped() -> None:
    w = nn.Parameter(torch.tensor([1.0, 2.0]))
    optimizer = torch.optim.SGD([w], lr=0.1, momentum=0.9, weight_decay=0.1)
    (w**2).sum().backward()
    optimizer.step()
    after_one = w.detach().clone()
    optimizer.zero_grad()  # set_to_none=True
    optimizer.step()
    assert torch.equal(w.detach(), after_one)

"""Chapter 4 (Part 3): parameter counts and how an optimizer moves a frozen parameter.

The tests of the section "Fine-tuning in practice" run the page's own regions:
* plain SGD with parameter groups: p <- p - eta_g * dL/dp, eta_g the lr of p's group;
* a frozen batch norm in training mode: running_mean <- 0.9 running_mean + 0.1 mu_B,
  and train_mode() keeps it where it was.
"""

import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn

from . import run_region

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


# The section "Fine-tuning in practice" runs the page's own code (snippets/control/freezing.py).
SNIPPET = "control/freezing"
BODY_LR, HEAD_LR = 0.003, 0.03  # the page's parameter groups: body, then head (the default)


def _task_b_inputs(seed: int, width: int, n: int) -> dict:
    """A body + head of the page's shape (2 -> width -> width, then 1), float64, and data."""
    import copy

    torch.manual_seed(seed)
    body = nn.Sequential(nn.Linear(2, width), nn.Tanh(), nn.Linear(width, width), nn.Tanh())
    model_b = nn.Sequential(body, nn.Linear(width, 1)).double()
    return {
        "copy": copy,
        "torch": torch,
        "nn": nn,
        "model_b": model_b,
        "after_extraction": copy.deepcopy(model_b.state_dict()),
        "points_b": torch.randn(n, 2, dtype=torch.float64),
        "targets_b": torch.randn(n, 1, dtype=torch.float64),
    }


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 12), st.integers(2, 20))
def test_each_parameter_group_steps_by_its_own_learning_rate(seed: int, width: int, n: int) -> None:
    inputs = _task_b_inputs(seed, width, n)
    session = run_region(SNIPPET, "param-groups", inputs=inputs)
    model_c, before = session["model_c"], session["before"]
    lrs = [BODY_LR] * len(list(model_c[0].parameters())) + [HEAD_LR] * len(
        list(model_c[1].parameters())
    )
    for p, old, lr in zip(model_c.parameters(), before, lrs, strict=True):
        # plain SGD in group g: p <- p - eta_g * dL/dp
        assert torch.allclose(p.detach(), old - lr * p.grad, rtol=0, atol=1e-12)


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 10_000), st.integers(4, 40))
def test_a_frozen_batch_norm_still_moves_its_running_statistics(seed: int, n: int) -> None:
    import copy

    torch.manual_seed(seed)
    inputs = {
        "copy": copy,
        "torch": torch,
        "nn": nn,
        "points_a": torch.rand(64, 2) * 4 - 2,
        "targets_a": torch.randn(64, 3),
        "points_b": torch.rand(n, 2) * 4 - 2,
        "targets_b": torch.randn(n, 1),
        "test_points": torch.rand(16, 2) * 4 - 2,
    }
    session = run_region(SNIPPET, "bn-trap", inputs=inputs)
    norm, body = session["norm"], session["frozen_bn_body"]
    with torch.no_grad():
        h = body[0](inputs["points_b"])  # the batch norm's input: the frozen linear layer's output
    # running_mean <- 0.9 running_mean + 0.1 mu_B (momentum 0.1, chapter 5)
    expected = 0.9 * session["norm_mean"] + 0.1 * h.mean(dim=0)
    assert torch.allclose(norm.running_mean, expected, atol=1e-6)
    assert not any(p.requires_grad for p in norm.parameters())

    fixed = run_region(SNIPPET, "bn-fix", inputs=session)
    trained = fixed["bn_body"][1]  # the statistics of task A, which train_mode() keeps
    assert torch.equal(norm.running_mean, trained.running_mean)
    assert torch.equal(norm.running_var, trained.running_var)

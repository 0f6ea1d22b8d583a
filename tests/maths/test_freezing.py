"""Chapter 4 (Part 3): parameter counts and how an optimizer moves a frozen parameter.

Every test runs the page's own regions (snippets/control/freezing.py), on the page's
values and on the test's: the test puts its own start values and settings into the
parameter and optimizer the page's "-setup" regions make, then runs the page's steps.
* counting: a linear layer has n_in * n_out + n_out values, and count() adds them up;
* SGD with momentum and weight decay moves a frozen parameter whose .grad is not None;
* Adam's first step moves each value by about its learning rate, and a zero gradient
  does not stop it either; a .grad of None makes SGD skip the parameter.
The tests of the section "Fine-tuning in practice" run the page's own regions:
* plain SGD with parameter groups: p <- p - eta_g * dL/dp, eta_g the lr of p's group;
* a frozen batch norm in training mode: running_mean <- 0.9 running_mean + 0.1 mu_B,
  and train_mode() keeps it where it was.
"""

from __future__ import annotations

from functools import cache

import torch
from hypothesis import example, given, settings
from hypothesis import strategies as st
from torch import nn

from . import Session, run_region

SNIPPET = "control/freezing"

sizes = st.integers(min_value=1, max_value=40)
values = st.floats(min_value=-5.0, max_value=5.0, allow_nan=False, allow_infinity=False)
rates = st.floats(min_value=0.01, max_value=0.5)
# The test's start values, learning rate, momentum and weight decay for the page's SGD.
sgd_settings = st.tuples(st.lists(values, min_size=1, max_size=4), rates, rates, rates)
# The test's start values (away from 0, so that the gradient 2w is not tiny) and lr for Adam.
adam_settings = st.tuples(
    st.lists(values.filter(lambda v: abs(v) > 0.1), min_size=1, max_size=4), rates
)
Settings = tuple[list[float], float, float, float]


def _imports() -> dict:
    """What the page's first block (region "one-parameter") imports."""
    return {"torch": torch, "nn": nn}


@cache
def _helpers() -> Session:
    """The page's region "count": count() and grads_that_are_none()."""
    return run_region(SNIPPET, "count", inputs=_imports())


@settings(max_examples=50, deadline=None)
@given(sizes, sizes, sizes)
def test_a_linear_layer_has_n_in_times_n_out_plus_n_out_values(
    n_in: int, hidden: int, n_out: int
) -> None:
    # The page's count() on a network of the test's sizes, n_in -> hidden -> n_out.
    count = _helpers()["count"]
    model = nn.Sequential(nn.Linear(n_in, hidden), nn.ReLU(), nn.Linear(hidden, n_out))
    # nn.Linear(a, b): a weight of b x a values and a bias of b, so a * b + b
    total = (n_in * hidden + hidden) + (hidden * n_out + n_out)
    assert count(model) == (total, total)
    model[0].requires_grad_(False)
    assert count(model) == (hidden * n_out + n_out, total)

    # The page's region "all-frozen" on it: nothing trains, and no graph is recorded.
    inputs = {**_helpers(), "model": model, "inputs": torch.randn(3, n_in)}
    ran = run_region(SNIPPET, "all-frozen", inputs=inputs)
    assert count(model) == (0, total)
    assert not ran["out"].requires_grad and ran["out"].grad_fn is None


def test_the_pages_network_has_the_counts_derived_on_the_page() -> None:
    ran = run_region(SNIPPET, "one-parameter", "count", "module")
    model = ran["model"]  # layers 0 and 2 frozen by the region
    linears = [m for m in model if isinstance(m, nn.Linear)]
    # n_in * n_out + n_out for each layer: (4*8 + 8) + (8*8 + 8) + (8*2 + 2) = 40 + 72 + 18
    per_layer = [layer.in_features * layer.out_features + layer.out_features for layer in linears]
    assert sum(per_layer) == 130
    assert ran["count"](model) == (per_layer[2], sum(per_layer))  # only the last layer trains
    # backward() left .grad None for the frozen layers' weight and bias only
    frozen = [f"{i}.{name}" for i in (0, 2) for name in ("weight", "bias")]
    assert ran["grads_that_are_none"](model) == frozen


def _sgd_setup(region: str, test_settings: Settings | None) -> Session:
    """The page's w and SGD (``region``); with the test's settings put into them."""
    session = run_region(SNIPPET, region, inputs=_imports())
    if test_settings is not None:
        start, lr, momentum, decay = test_settings
        session["w"].data = torch.tensor(start, dtype=torch.float64)
        group = session["optimizer"].param_groups[0]
        group.update(lr=lr, momentum=momentum, weight_decay=decay)
    return session


def _sgd_first_step_by_hand(
    theta: torch.Tensor, lr: float, decay: float
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(theta, v, g) after the page's first step, on L = sum(w^2): g = 2 theta.

    d = g + lambda theta, v = d (the first step), theta <- theta - eta v.
    """
    g = 2 * theta
    v = g + decay * theta
    return theta - lr * v, v, g


@settings(max_examples=50, deadline=None)
@given(st.none() | sgd_settings)
@example(None)  # the page's own w = [1, 2], lr 0.1, momentum 0.9, weight decay 0.1
def test_sgd_moves_a_frozen_parameter_with_a_zero_gradient(
    test_settings: Settings | None,
) -> None:
    session = _sgd_setup("zero-grad-kept-setup", test_settings)
    w, group = session["w"], session["optimizer"].param_groups[0]
    lr, momentum, decay = group["lr"], group["momentum"], group["weight_decay"]
    theta, v, _ = _sgd_first_step_by_hand(w.detach().clone(), lr, decay)

    run_region(SNIPPET, "zero-grad-kept-steps", inputs=session)
    # three frozen steps with g = 0: d = 0 + lambda theta, v <- mu v + d, theta <- theta - eta v
    for _ in range(3):
        v = momentum * v + decay * theta
        theta = theta - lr * v
    assert not w.requires_grad
    assert torch.equal(w.grad, torch.zeros_like(w))
    assert torch.allclose(w.detach(), theta, atol=1e-6)


@settings(max_examples=50, deadline=None)
@given(st.none() | sgd_settings)
@example(None)  # the page's own values: [1, 2] -> [0.79, 1.58] -> [0.3931, 0.7862]
def test_sgd_moves_a_frozen_parameter_with_a_stale_gradient(
    test_settings: Settings | None,
) -> None:
    session = _sgd_setup("stale-grad-setup", test_settings)
    w, group = session["w"], session["optimizer"].param_groups[0]
    lr, momentum, decay = group["lr"], group["momentum"], group["weight_decay"]
    theta, v, g = _sgd_first_step_by_hand(w.detach().clone(), lr, decay)

    run_region(SNIPPET, "stale-grad-steps", inputs=session)
    # step 2 reuses the stale g: d = g + lambda theta, v <- mu v + d, theta <- theta - eta v
    v = momentum * v + g + decay * theta
    theta = theta - lr * v
    assert not w.requires_grad
    assert torch.allclose(w.grad, g)  # still the gradient of the first step
    assert torch.allclose(w.detach(), theta, atol=1e-6)


def _adam_setup(test_settings: tuple[list[float], float] | None) -> Session:
    """The page's v and Adam (region "adam-setup"); with the test's settings put into them."""
    session = run_region(SNIPPET, "adam-setup", inputs=_imports())
    if test_settings is not None:
        start, lr = test_settings
        session["v"].data = torch.tensor(start, dtype=torch.float64)
        session["adam"].param_groups[0]["lr"] = lr
    return session


@settings(max_examples=30, deadline=None)
@given(st.none() | adam_settings)
@example(None)  # the page's own v = [1, 2] and lr 0.1
def test_adams_first_step_moves_each_value_by_about_the_learning_rate(
    test_settings: tuple[list[float], float] | None,
) -> None:
    session = _adam_setup(test_settings)
    v, lr = session["v"], session["adam"].param_groups[0]["lr"]
    before = v.detach().clone()
    run_region(SNIPPET, "adam-first-step", inputs=session)
    # Step 1: m = (1 - b1) g, s = (1 - b2) g^2; bias-corrected m / (1 - b1) = g and
    # s / (1 - b2) = g^2, so theta moves by eta * |g| / (|g| + eps), about eta for |g| >> eps.
    assert torch.allclose((before - v.detach()).abs(), torch.full_like(before, lr), rtol=1e-6)


@settings(max_examples=30, deadline=None)
@given(st.none() | adam_settings)
@example(None)  # the page's own v = [1, 2] and lr 0.1
def test_adam_keeps_moving_a_frozen_parameter_with_a_zero_gradient(
    test_settings: tuple[list[float], float] | None,
) -> None:
    session = _adam_setup(test_settings)
    v, group = session["v"], session["adam"].param_groups[0]
    lr, (b1, b2), eps = group["lr"], group["betas"], group["eps"]
    theta = v.detach().clone().double()
    run_region(SNIPPET, "adam-first-step", "adam-frozen", inputs=session)
    # Adam at step t, gradient g: m <- b1 m + (1 - b1) g, s <- b2 s + (1 - b2) g^2,
    # theta <- theta - eta (m / (1 - b1^t)) / (sqrt(s / (1 - b2^t)) + eps).
    # The page's loss sum(v^2) gives g = 2 theta at step 1, then three frozen steps, g = 0.
    m, s = torch.zeros_like(theta), torch.zeros_like(theta)
    for t in range(1, 5):
        g = 2 * theta if t == 1 else torch.zeros_like(theta)
        m, s = b1 * m + (1 - b1) * g, b2 * s + (1 - b2) * g**2
        theta = theta - lr * (m / (1 - b1**t)) / (torch.sqrt(s / (1 - b2**t)) + eps)
    assert not v.requires_grad
    assert torch.equal(v.grad, torch.zeros_like(v))
    assert torch.allclose(v.detach().double(), theta, atol=1e-5)


@settings(max_examples=30, deadline=None)
@given(st.none() | sgd_settings)
@example(None)  # the page's own values
def test_a_parameter_whose_grad_is_none_is_skipped(test_settings: Settings | None) -> None:
    # The page's w after its SGD steps (momentum state kept), then its "grad-none-skipped".
    session = _sgd_setup("zero-grad-kept-setup", test_settings)
    run_region(SNIPPET, "zero-grad-kept-steps", inputs=session)
    w, optimizer = session["w"], session["optimizer"]
    assert optimizer.state[w]["momentum_buffer"] is not None  # a zero grad would still move w
    after = w.detach().clone()
    run_region(SNIPPET, "grad-none-skipped", inputs=session)
    assert w.grad is None  # zero_grad()'s default, set_to_none=True
    assert torch.equal(w.detach(), after)


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
        # float64, as on the page (the experiment's models are .double())
        "points_a": (torch.rand(64, 2) * 4 - 2).double(),
        "targets_a": torch.randn(64, 3).double(),
        "points_b": (torch.rand(n, 2) * 4 - 2).double(),
        "targets_b": torch.randn(n, 1).double(),
        "test_points": (torch.rand(16, 2) * 4 - 2).double(),
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

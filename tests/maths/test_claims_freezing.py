"""docs/control/freezing.md and its quiz, at the edges of their claims.

* requires_grad_(False) on a module freezes every parameter, however deeply nested;
* every optimizer moves a parameter whose .grad is set, frozen or not, and skips one whose
  .grad is None; an empty parameter list is refused; a parameter that a group already
  holds is refused by add_param_group (and by a second group of the constructor);
* every optimizer takes parameter groups, with any of its settings per group;
* train_mode(model, frozen=...) keeps every batch norm class of the frozen part in eval
  mode, affine or not, and leaves the others in training mode; a batch norm made with
  affine=False has no parameters, so a test on its parameters cannot tell.
"""

from __future__ import annotations

import copy

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn

from . import Session, run_region

PAGE = "docs/control/freezing.md"
QUIZ = "docs/practice/quizzes/freezing.md"
SNIPPET = "control/freezing"

OPTIMIZERS = [
    torch.optim.SGD,
    torch.optim.Adam,
    torch.optim.AdamW,
    torch.optim.RMSprop,
    torch.optim.Adagrad,
    torch.optim.Adamax,
    torch.optim.NAdam,
    torch.optim.RAdam,
    torch.optim.Adadelta,
    torch.optim.ASGD,
]


def _bn_session(seed: int = 0, n: int = 32) -> Session:
    """The regions bn-trap and bn-fix, on data of the test's own (float64, as on the page)."""
    torch.manual_seed(seed)
    inputs = {
        "copy": copy,
        "torch": torch,
        "nn": nn,
        "points_a": (torch.rand(64, 2) * 4 - 2).double(),
        "targets_a": torch.randn(64, 3).double(),
        "points_b": (torch.rand(n, 2) * 4 - 2).double(),
        "targets_b": torch.randn(n, 1).double(),
        "test_points": (torch.rand(16, 2) * 4 - 2).double(),
    }
    session = run_region(SNIPPET, "bn-trap", inputs=inputs)
    return run_region(SNIPPET, "bn-fix", inputs=session)


@pytest.mark.claim(PAGE, "On a module it freezes every parameter inside it, however deeply nested.")
@pytest.mark.parametrize("depth", [1, 2, 4])
def test_requires_grad_false_on_a_module_reaches_every_nested_parameter(depth: int) -> None:
    run_region(SNIPPET, "one-parameter", "count")
    model: nn.Module = nn.Linear(2, 2)
    for _ in range(depth):
        model = nn.Sequential(model, nn.ReLU(), nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2)))
    model.requires_grad_(False)
    count = run_region(SNIPPET, "count")["count"]
    assert count(model)[0] == 0 < count(model)[1]
    assert all(not p.requires_grad for p in model.parameters())


@pytest.mark.claim(PAGE, "it updates every parameter it holds **whose `.grad` is not `None`**")
@pytest.mark.parametrize("optimizer", OPTIMIZERS, ids=lambda o: o.__name__)
def test_every_optimizer_moves_a_frozen_parameter_with_a_grad_and_skips_a_none(
    optimizer: type[torch.optim.Optimizer],
) -> None:
    page = run_region(SNIPPET, "stale-grad-setup", inputs={"torch": torch, "nn": nn})
    frozen, skipped = page["w"], nn.Parameter(torch.tensor([1.0, 2.0]))
    opt = optimizer([frozen, skipped], lr=0.1)
    frozen.requires_grad_(False)  # frozen, but its .grad is set
    frozen.grad = torch.tensor([0.5, -0.5])
    opt.step()
    assert not torch.equal(frozen.detach(), torch.tensor([1.0, 2.0]))
    assert torch.equal(skipped.detach(), torch.tensor([1.0, 2.0]))  # .grad None: not moved


@pytest.mark.claim(QUIZ, "the optimizer refuses an empty list")
def test_an_optimizer_refuses_an_empty_list() -> None:
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    with pytest.raises(ValueError, match="empty parameter list"):
        torch.optim.SGD([p for p in model.parameters() if p.grad is not None], lr=0.1)


@pytest.mark.claim(QUIZ, "Every parameter is a leaf, frozen or not")
def test_every_parameter_is_a_leaf_frozen_or_not() -> None:
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    model[0].requires_grad_(False)
    assert all(p.is_leaf for p in model.parameters())
    assert [p.requires_grad for p in model.parameters()] == [False, False, True, True]


@pytest.mark.claim(PAGE, "An optimizer refuses a parameter that one of its groups already holds")
@pytest.mark.parametrize("optimizer", [torch.optim.SGD, torch.optim.Adam], ids=lambda o: o.__name__)
def test_a_parameter_held_by_a_group_is_refused(optimizer: type[torch.optim.Optimizer]) -> None:
    layer, other = nn.Linear(2, 2), nn.Linear(2, 2)
    opt = optimizer(layer.parameters(), lr=0.1)
    with pytest.raises(ValueError, match="more than one parameter group"):
        opt.add_param_group({"params": layer.parameters()})
    with pytest.raises(ValueError, match="more than one parameter group"):
        opt.add_param_group({"params": [other.weight, layer.bias]})  # one of them held
    opt.add_param_group({"params": other.parameters()})  # new ones are fine
    with pytest.raises(ValueError, match="more than one parameter group"):
        optimizer([{"params": layer.parameters()}, {"params": [layer.weight]}], lr=0.1)


@pytest.mark.claim(PAGE, "Every optimizer takes groups in the same way")
@pytest.mark.parametrize("optimizer", OPTIMIZERS, ids=lambda o: o.__name__)
def test_every_optimizer_takes_groups_with_settings_per_group(
    optimizer: type[torch.optim.Optimizer],
) -> None:
    body, head = nn.Linear(2, 2), nn.Linear(2, 1)
    opt = optimizer(
        [
            {"params": body.parameters(), "lr": 0.003, "weight_decay": 0.5},
            {"params": head.parameters()},
        ],
        lr=0.03,
    )
    first, second = opt.param_groups
    assert (first["lr"], first["weight_decay"]) == (0.003, 0.5)
    assert second["lr"] == 0.03 and second["weight_decay"] == opt.defaults["weight_decay"]


BATCH_NORMS = [
    pytest.param(lambda affine: nn.BatchNorm1d(4, affine=affine), id="BatchNorm1d"),
    pytest.param(lambda affine: nn.BatchNorm2d(4, affine=affine), id="BatchNorm2d"),
    pytest.param(lambda affine: nn.BatchNorm3d(4, affine=affine), id="BatchNorm3d"),
    pytest.param(lambda affine: nn.LazyBatchNorm1d(affine=affine), id="LazyBatchNorm1d"),
    pytest.param(lambda affine: nn.LazyBatchNorm2d(affine=affine), id="LazyBatchNorm2d"),
    pytest.param(lambda affine: nn.SyncBatchNorm(4, affine=affine), id="SyncBatchNorm"),
]


@pytest.mark.claim(PAGE, "a batch norm made with `affine=False` has no parameters at all")
@pytest.mark.parametrize("make", BATCH_NORMS)
def test_a_batch_norm_without_affine_has_no_parameters(make) -> None:
    assert list(make(False).parameters()) == []
    assert len(list(make(True).parameters())) == 2


@pytest.mark.claim(PAGE, "`(nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d)` would miss")
@pytest.mark.parametrize("make", BATCH_NORMS)
def test_the_helpers_type_test_catches_every_batch_norm(make) -> None:
    page = _bn_session()
    norm = make(True)
    assert isinstance(norm, page["BATCH_NORM"])
    three = (nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d)
    missed = isinstance(norm, (nn.SyncBatchNorm, nn.LazyBatchNorm1d, nn.LazyBatchNorm2d))
    assert isinstance(norm, three) != missed


@pytest.mark.claim(PAGE, "Whether a batch norm is frozen is your decision, so the helper takes it")
@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("make", BATCH_NORMS)
def test_train_mode_freezes_every_batch_norm_of_the_frozen_part_only(make, affine: bool) -> None:
    train_mode = _bn_session()["train_mode"]
    frozen = nn.Sequential(nn.Linear(4, 4), make(affine))
    frozen[0].requires_grad_(False)  # (a lazy batch norm's parameters cannot be, yet)
    trained = nn.Sequential(nn.Linear(4, 4), make(affine))  # trains, affine or not
    model = nn.Sequential(frozen, trained, nn.Linear(4, 1)).eval()
    assert train_mode(model, frozen=frozen) is model
    assert model.training and frozen[0].training and trained.training
    assert not frozen[1].training  # the frozen part's batch norm
    assert trained[1].training  # a batch norm outside it, even without parameters


@pytest.mark.claim(PAGE, "20 training steps leave the body computing exactly what it did")
@settings(max_examples=5, deadline=None)
@given(st.integers(0, 10_000), st.integers(4, 40))
def test_train_mode_keeps_the_statistics_of_task_a(seed: int, n: int) -> None:
    page = _bn_session(seed, n)
    assert "after 20 steps, frozen body computes the same: True" in page.output
    norm, trained = page["norm"], page["bn_body"][1]
    assert torch.equal(norm.running_mean, trained.running_mean)
    assert torch.equal(norm.running_var, trained.running_var)
    assert norm.num_batches_tracked == trained.num_batches_tracked


@pytest.mark.claim(
    PAGE, "a plain `model.train()` lets its batch norm follow the statistics of task B"
)
def test_after_unfreezing_train_mode_still_keeps_task_a_and_train_does_not() -> None:
    page = _bn_session()
    model, body, norm = page["bn_model_b"], page["frozen_bn_body"], page["norm"]
    body.requires_grad_(True)  # unfrozen for fine-tuning
    points, targets = page["points_b"], page["targets_b"]
    optimizer = torch.optim.Adam(model.parameters(), lr=0.003)
    for keep in (True, False):
        before = norm.running_mean.clone()
        if keep:
            page["train_mode"](model, frozen=body)
        else:
            model.train()
        optimizer.zero_grad()
        ((model(points) - targets) ** 2).mean().backward()
        optimizer.step()
        assert torch.equal(norm.running_mean, before) == keep


# --- fine-tuning with Adam: the first step, warmup, a learning rate per layer ---


@pytest.fixture(scope="module")
def transfer_page() -> Session:
    """The page's transfer-learning regions, up to the per-layer learning rates (float64)."""
    return run_region(
        SNIPPET,
        "one-parameter",
        "count",
        "task-a",
        "task-b",
        "feature-extraction",
        "fine-tuning",
        "learning-rate",
        "fresh-adam",
        "warmup",
        "discriminative",
    )


@pytest.mark.claim(PAGE, "So a fresh Adam moves every value by the learning rate $\\eta$, against")
@pytest.mark.parametrize("lr", [0.03, 0.003, 1e-5])
def test_a_fresh_adams_first_step_is_the_learning_rate_times_the_sign(transfer_page, lr) -> None:
    assert "every step against the sign of its gradient: True" in transfer_page.output
    steps, grads, _ = transfer_page["first_step"](lambda ps: torch.optim.Adam(ps, lr=lr))
    # by hand: -lr * g / (|g| + eps), eps = 1e-8: within a hair of -lr * sign(g)
    assert torch.allclose(steps, -lr * grads / (grads.abs() + 1e-8), rtol=1e-6, atol=1e-15)
    assert torch.all((steps.abs() - lr).abs() <= lr * 1e-8 / grads.abs() + 1e-12)


@pytest.mark.claim(
    PAGE, "whatever the size of that gradient, as long as it is well above $\\epsilon$"
)
@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(1e-6, 1e3), min_size=1, max_size=6), st.data())
def test_adams_first_step_ignores_the_size_of_the_gradient(sizes, data) -> None:
    signs = data.draw(
        st.lists(st.sampled_from([-1.0, 1.0]), min_size=len(sizes), max_size=len(sizes))
    )
    g = torch.tensor([s * m for s, m in zip(signs, sizes, strict=True)], dtype=torch.float64)
    p = torch.zeros_like(g, requires_grad=True)
    adam = torch.optim.Adam([p], lr=0.03)
    p.grad = g.clone()
    adam.step()
    assert torch.allclose(p.detach(), -0.03 * g / (g.abs() + 1e-8), rtol=1e-9)
    assert torch.all((p.detach().abs() - 0.03).abs() <= 0.03 * 1e-2)  # 0.03, to 1 %


@pytest.mark.claim(
    PAGE,
    "a gradient of exactly $\\epsilon$ moves its value by $\\eta/2$, and a zero gradient does"
    " not move it",
)
@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
def test_near_epsilon_the_size_of_adams_first_gradient_shows(dtype: torch.dtype) -> None:
    setup = run_region(SNIPPET, "adam-setup", inputs={"torch": torch, "nn": nn})
    v = setup["v"]  # the page's parameter, in the page's Adam (lr 0.1), with values of ours:
    # the page's step, (v**2).sum().backward(), gives 2v, so v = eps/2 gives g = eps
    v.data = torch.tensor([0.5e-8, 0.0, -0.5e-8, 1.0, -1e-3], dtype=dtype)
    start = v.detach().clone()
    page = run_region(SNIPPET, "adam-first-step", inputs=setup)
    g = 2 * start
    assert torch.equal(v.grad, g)
    # by hand: -lr * g / (|g| + eps), eps = 1e-8: half the lr at |g| = eps, 0 at g = 0
    step = v.detach() - start
    expected = -0.1 * g.double() / (g.double().abs() + 1e-8)
    assert torch.allclose(step.double(), expected, rtol=1e-6, atol=1e-12)
    assert step[:3].tolist() == pytest.approx([-0.05, 0.0, 0.05], rel=1e-6, abs=1e-12)
    assert step[1].item() == 0.0 and v[1].item() == 0.0  # a zero gradient: not moved at all
    assert "after one Adam step" in page.output


@pytest.mark.claim(PAGE, "After $t$ steps it divides them by")
@pytest.mark.parametrize("g", [3.0, -0.02, 1e-5])
def test_adams_averages_are_divided_by_one_minus_beta_to_the_t(g: float) -> None:
    page = run_region(SNIPPET, "adam-setup", inputs={"torch": torch, "nn": nn})
    v, adam = page["v"], page["adam"]  # the page's parameter and Adam, lr 0.1
    beta1, beta2 = adam.defaults["betas"]
    for t in range(1, 6):  # a constant gradient: the averages are (1 - beta^t) g and g^2
        before = v.detach().clone()
        v.grad = torch.full_like(v, g)
        adam.step()
        state = adam.state[v]
        assert torch.allclose(state["exp_avg"], torch.full_like(v, (1 - beta1**t) * g))
        assert torch.allclose(state["exp_avg_sq"], torch.full_like(v, (1 - beta2**t) * g * g))
        # divided by 1 - beta^t, they are g and g^2 again: the step is -lr g / (|g| + eps)
        step = v.detach() - before
        assert torch.allclose(step, torch.full_like(v, -0.1 * g / (abs(g) + 1e-8)), rtol=1e-5)


@pytest.mark.claim(PAGE, "Plain SGD moves each value by $\\eta g$")
def test_plain_sgd_moves_each_value_by_lr_times_its_gradient(transfer_page) -> None:
    steps, grads, test = transfer_page["first_step"](lambda ps: torch.optim.SGD(ps, lr=0.03))
    assert torch.allclose(steps, -0.03 * grads, rtol=1e-9, atol=1e-15)
    assert f"SGD:  |step| at most {steps.abs().max():.4f}, then test loss {test:.4f}" in (
        transfer_page.output
    )


@pytest.mark.claim(PAGE, "`scheduler.step()` sets each group's learning rate to")
def test_the_warmup_ramps_every_groups_learning_rate(transfer_page) -> None:
    seen: list[list[float]] = []
    from torch.optim.optimizer import register_optimizer_step_pre_hook

    handle = register_optimizer_step_pre_hook(
        lambda optimizer, args, kwargs: seen.append([g["lr"] for g in optimizer.param_groups])
    )
    try:
        model = transfer_page["restart"]()
        last = model[0][2]
        groups = [
            {"params": model[1].parameters()},
            {"params": last.parameters(), "lr": 0.01},
        ]
        transfer_page["fine_tune"](groups, model, 20)
    finally:
        handle.remove()
    assert len(seen) == 100
    for step, lrs in enumerate(seen):  # the lr of the step after `step` steps
        ramp = min(1.0, (step + 1) / 20)
        assert lrs == pytest.approx([0.03 * ramp, 0.01 * ramp], rel=1e-12)


@pytest.mark.claim(PAGE, "Adam moves the head's values by 0.03, and the body's by")
def test_the_first_per_layer_step_is_each_groups_learning_rate(transfer_page) -> None:
    assert "per-layer lr, warmup  0 steps: worst test loss 0.1004 (step 1)" in transfer_page.output
    from torch.optim.optimizer import register_optimizer_step_pre_hook

    first_steps: list[list[tuple[float, list[torch.Tensor]]]] = []

    def record(optimizer, args, kwargs) -> None:  # the groups of each run's first step
        if not optimizer.state:
            groups = optimizer.param_groups
            first_steps.append(
                [(g["lr"], [p.detach().clone() for p in g["params"]]) for g in groups]
            )

    handle = register_optimizer_step_pre_hook(record)
    try:  # the page's own groups, without warmup
        page = run_region(SNIPPET, "discriminative", inputs=transfer_page)
    finally:
        handle.remove()
    assert len(first_steps) == 2
    model = page["model"]  # the last run's model: its groups are head, last, first
    rates = [0.03, 0.03 / 2.6, 0.03 / 2.6**2]
    assert [lr for lr, _ in first_steps[0]] == pytest.approx(rates, rel=1e-12)
    # the step by hand, without warmup: lr * g / (|g| + eps), about lr for every value
    run = transfer_page["restart"]()
    ((run(transfer_page["points_b"]) - transfer_page["targets_b"]) ** 2).mean().backward()
    layers = [run[1], run[0][2], run[0][0]]
    assert len(model[0]) == 4
    for (lr, olds), layer, rate in zip(first_steps[0], layers, rates, strict=True):
        for old, p in zip(olds, layer.parameters(), strict=True):
            assert torch.equal(old, p.detach())
            step = -lr * p.grad / (p.grad.abs() + 1e-8)
            assert torch.allclose(step.abs(), torch.full_like(p, rate), rtol=1e-2)


@pytest.mark.claim(PAGE, "A frozen model can still give a gradient")
@pytest.mark.parametrize("depth", [1, 3])
def test_a_frozen_model_gives_a_gradient_for_its_input(depth: int) -> None:
    count = run_region(SNIPPET, "count")["count"]
    model = nn.Sequential(*[nn.Sequential(nn.Linear(3, 3), nn.Tanh()) for _ in range(depth)])
    model.requires_grad_(False)
    assert count(model)[0] == 0
    x = torch.randn(4, 3, requires_grad=True)
    model(x).sum().backward()
    assert x.grad is not None and x.grad.abs().sum() > 0
    assert all(p.grad is None for p in model.parameters())


@pytest.mark.claim(PAGE, "left all four tensors of the batch norm as they were")
@settings(max_examples=5, deadline=None)
@given(st.integers(0, 10_000))
def test_the_helper_keeps_a_batch_norm_frozen_after_unfreezing(seed: int) -> None:
    page = _bn_session(seed)
    page = run_region(SNIPPET, "bn-small-batches", "bn-keep-frozen", inputs=page)
    assert "batch norm: weight, bias and statistics unchanged: True" in page.output
    assert "first linear layer moved: True" in page.output
    norm = page["norm"]
    assert not norm.training and not norm.weight.requires_grad
    # the stored statistics give a fixed scale and shift, whatever the batch: by hand
    x = torch.randn(5, 16, dtype=torch.float64)
    mean, var, eps = norm.running_mean, norm.running_var, norm.eps
    expected = (x - mean) / torch.sqrt(var + eps) * norm.weight + norm.bias
    assert torch.allclose(norm(x), expected)
    assert torch.allclose(norm(x[:1]), expected[:1])  # one example alone: the same

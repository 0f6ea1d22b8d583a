"""docs/control/eval-and-train.md, at the edges of its claims.

* in eval mode batch norm normalises each example on its own: any row, alone, gives what
  it gives inside any batch;
* in training mode batch norm needs more than one value per feature (BatchNorm1d) or
  channel (BatchNorm2d), whatever the batch size says;
* eval() changes the training flags only: not requires_grad, the values, or grad mode;
* evaluate_and_restore puts back the mode it found even when the forward pass raises;
* with evaluate_buggy, a batch norm's running statistics stop at the first validation.
"""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn

from . import run_region

PAGE = "docs/control/eval-and-train.md"
SNIPPET = "control/eval_and_train"
IMPORTS = {"torch": torch, "nn": nn, "F": F}

values = st.floats(-50, 50, allow_nan=False, allow_infinity=False)


@pytest.mark.claim(PAGE, "gives the same values as it does inside the batch")
@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(values, values), min_size=1, max_size=9), st.data())
def test_in_eval_mode_an_example_alone_gives_what_it_gives_in_any_batch(rows, data) -> None:
    page = run_region(
        SNIPPET, "batch-norm-train", "batch-norm-eval", "batch-norm-one", inputs=IMPORTS
    )
    in_batch, alone = page.output.splitlines()[-2:]  # the page's own example, both ways
    assert in_batch.split(":")[1].strip() == alone.split(":")[1].strip()
    norm = page["norm"].eval()
    batch = torch.tensor(rows)
    i = data.draw(st.integers(0, len(rows) - 1))
    with torch.no_grad():
        assert torch.equal(norm(batch)[i], norm(batch[i : i + 1])[0])


@pytest.mark.claim(PAGE, "Training mode needs more than one value per feature or channel.")
@pytest.mark.parametrize(
    ("norm", "shape", "refused"),
    [
        (nn.BatchNorm1d(3), (1, 3), True),  # one example, one value per feature
        (nn.BatchNorm1d(3), (2, 3), False),
        (nn.BatchNorm1d(3), (1, 3, 2), False),  # one example, two positions per channel
        (nn.BatchNorm2d(3), (1, 3, 1, 1), True),  # one image of 1 x 1
        (nn.BatchNorm2d(3), (1, 3, 1, 2), False),
        (nn.BatchNorm2d(3), (1, 3, 4, 4), False),  # the page's image
    ],
    ids=str,
)
def test_training_mode_needs_two_values_per_channel(norm, shape, refused: bool) -> None:
    run_region(SNIPPET, "batch-norm-one-image", inputs=IMPORTS)
    x = torch.randn(*shape)
    if refused:
        with pytest.raises(ValueError, match="more than 1 value per channel"):
            norm.train()(x)
    else:
        assert norm.train()(x).shape == x.shape
    assert norm.eval()(x).shape == x.shape  # eval mode takes anything


@pytest.mark.claim(PAGE, "`model.eval()` changes only the `training` flags")
def test_eval_changes_the_flags_only() -> None:
    page = run_region(SNIPPET, "eval-tracks", inputs=IMPORTS)
    model = nn.Sequential(*page["model"], nn.BatchNorm1d(2))  # the page's model, and buffers
    model.train()
    before = {k: v.clone() for k, v in model.state_dict().items()}
    flags = [p.requires_grad for p in model.parameters()]
    model.eval()
    after = model.state_dict()
    assert all(torch.equal(before[k], after[k]) for k in before)
    assert [p.requires_grad for p in model.parameters()] == flags
    assert torch.is_grad_enabled()
    assert not any(m.training for m in model.modules())


class Broken(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        raise RuntimeError("the forward pass failed")


@pytest.mark.claim(PAGE, "an error in the forward pass cannot leave the model in the")
@pytest.mark.parametrize("training", [True, False])
def test_evaluate_and_restore_restores_the_mode_after_an_error(training: bool) -> None:
    page = run_region(
        SNIPPET, "flag", "data", "evaluate", "dropout-watch", "train", "restore", inputs=IMPORTS
    )
    model = nn.Sequential(nn.Linear(2, 2), Broken()).train(training)
    with pytest.raises(RuntimeError, match="the forward pass failed"):
        page["evaluate_and_restore"](model, page["val_x"], page["val_y"])
    assert all(m.training == training for m in model.modules())


@pytest.mark.claim(
    PAGE, "the running statistics would also have stopped updating at the first validation"
)
def test_the_buggy_loop_stops_a_batch_norms_statistics_at_the_first_validation() -> None:
    page = run_region(
        SNIPPET, "flag", "data", "evaluate", "dropout-watch", "train", "buggy", inputs=IMPORTS
    )
    for evaluate, stops in ((page["evaluate"], False), (page["evaluate_buggy"], True)):
        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(2, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Linear(16, 2))
        page["train"](model, evaluate, steps=20)  # up to and with the first validation
        after_first = model[1].running_mean.clone(), model[1].num_batches_tracked.item()
        assert after_first[1] == 20
        page["train"](model, evaluate, steps=20)  # 20 more steps
        same = torch.equal(model[1].running_mean, after_first[0])
        assert same == stops
        assert model[1].num_batches_tracked.item() == (20 if stops else 40)


# --- momentum: the weight of the new batch; None: a plain average ---

batches_strategy = st.lists(
    st.lists(st.floats(-20, 20, allow_nan=False, width=32), min_size=2, max_size=6),
    min_size=1,
    max_size=5,
)


def _run(momentum, batches: list[list[float]]) -> nn.BatchNorm1d:
    layer = nn.BatchNorm1d(1, momentum=momentum).double()
    for values_ in batches:
        layer(torch.tensor(values_, dtype=torch.float64).unsqueeze(1))
    return layer


@pytest.mark.claim(PAGE, "PyTorch's `momentum` is the weight of the *new* batch")
@settings(max_examples=40, deadline=None)
@given(st.floats(0.0, 1.0), batches_strategy)
def test_momentum_weights_the_new_batch(momentum: float, batches) -> None:
    page = run_region(SNIPPET, "momentum", inputs=IMPORTS)
    assert "momentum=0.1   running_mean after each batch: [0.5, 1.25, 1.325]" in page.output
    mean, var = 0.0, 1.0  # the starting running statistics
    for values_ in batches:  # by hand: (1 - momentum) * old + momentum * new
        t = torch.tensor(values_, dtype=torch.float64)
        mean = (1 - momentum) * mean + momentum * t.mean().item()
        var = (1 - momentum) * var + momentum * t.var(unbiased=True).item()
    layer = _run(momentum, batches)
    assert layer.running_mean.item() == pytest.approx(mean, rel=1e-9, abs=1e-9)
    assert layer.running_var.item() == pytest.approx(var, rel=1e-9, abs=1e-9)


@pytest.mark.claim(PAGE, "Keras's 0.99 is PyTorch's 0.01")
@settings(max_examples=30, deadline=None)
@given(st.sampled_from([0.99, 0.9, 0.5, 0.999]), batches_strategy)
def test_keras_momentum_k_is_pytorch_momentum_one_minus_k(keras: float, batches) -> None:
    page = run_region(SNIPPET, "momentum", inputs=IMPORTS)
    assert "momentum=0.99  running_mean after each batch: [4.95, 7.9695, 2.0597]" in page.output
    moving_mean = 0.0  # Keras: moving_mean * momentum + mean(batch) * (1 - momentum)
    for values_ in batches:
        moving_mean = moving_mean * keras + torch.tensor(values_).double().mean().item() * (
            1 - keras
        )
    layer = _run(1 - keras, batches)
    assert layer.running_mean.item() == pytest.approx(moving_mean, rel=1e-9, abs=1e-9)


@pytest.mark.claim(PAGE, "so the running mean is the mean of all batch means so far")
@settings(max_examples=40, deadline=None)
@given(batches_strategy)
def test_momentum_none_averages_all_batches_equally(batches) -> None:
    page = run_region(SNIPPET, "momentum", inputs=IMPORTS)
    assert "momentum=None  running_mean after each batch: [5.0, 6.5, 5.0]" in page.output
    layer = _run(None, batches)
    tensors = [torch.tensor(v, dtype=torch.float64) for v in batches]
    assert layer.num_batches_tracked.item() == len(batches)
    means = [t.mean().item() for t in tensors]
    variances = [t.var(unbiased=True).item() for t in tensors]
    assert layer.running_mean.item() == pytest.approx(sum(means) / len(means), rel=1e-9, abs=1e-9)
    assert layer.running_var.item() == pytest.approx(
        sum(variances) / len(variances), rel=1e-9, abs=1e-9
    )


@pytest.mark.claim(PAGE, "That is also how you get the gradient of a model's output with respect")
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_in_eval_mode_the_input_gradient_is_deterministic_and_right(seed: int) -> None:
    page = run_region(SNIPPET, "flag", "dropout", "eval-tracks", inputs=IMPORTS)
    model = page["model"].eval()  # the page's model, with dropout
    torch.manual_seed(seed)
    x = torch.randn(3, 4, requires_grad=True)
    grads = []
    for _ in range(2):
        x.grad = None
        model(x).sum().backward()
        grads.append(x.grad.clone())
    assert torch.equal(grads[0], grads[1])  # dropout is off: no randomness
    # by hand: d sum(W2 relu(W1 x + b1) + b2) / dx = W1^T (relu'(.) * W2^T 1)
    first, last = model[0], model[3]
    active = (first(x) > 0).double()
    expected = (active * last.weight.sum(0).double()) @ first.weight.double()
    assert torch.allclose(grads[0].double(), expected, atol=1e-6)

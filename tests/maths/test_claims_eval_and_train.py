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

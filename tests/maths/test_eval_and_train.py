"""Chapter 5 (Part 3): dropout's scaling and batch norm's running statistics.

Every test runs the page's own regions (snippets/control/eval_and_train.py), on the
page's inputs and on the test's: the test puts its own p, momentum or batch into the
objects the page's regions use, as the page's earlier blocks would have left them.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from hypothesis import example, given, settings
from hypothesis import strategies as st
from torch import nn

from . import Session, run_region

SNIPPET = "control/eval_and_train"

probabilities = st.floats(min_value=0.05, max_value=0.9)
values = st.floats(min_value=-50.0, max_value=50.0, allow_nan=False, allow_infinity=False)
# A batch of m >= 2 examples with the page's two features.
batches = st.lists(st.tuples(values, values), min_size=2, max_size=8)
momenta = st.floats(min_value=0.01, max_value=1.0)


def _imports() -> dict:
    """What the page's first block (region "flag") imports, for the regions after it."""
    return {"torch": torch, "nn": nn, "F": F}


def _train_step_by_hand(
    x: torch.Tensor, mean: torch.Tensor, var: torch.Tensor, momentum: float, eps: float
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Batch norm in training mode, by hand: (output, new running mean, new running var).

    mu_B = sum(x) / m, sigma_B^2 = sum((x - mu_B)^2) / m (divided by m), and, with
    weight 1 and bias 0 (never trained here), y = (x - mu_B) / sqrt(sigma_B^2 + eps).
    running_mean <- (1 - momentum) running_mean + momentum mu_B
    running_var  <- (1 - momentum) running_var + momentum m / (m - 1) sigma_B^2 (unbiased)
    """
    m = x.shape[0]
    mu = x.sum(dim=0) / m
    biased = ((x - mu) ** 2).sum(dim=0) / m
    out = (x - mu) / torch.sqrt(biased + eps)
    new_mean = (1 - momentum) * mean + momentum * mu
    new_var = (1 - momentum) * var + momentum * biased * m / (m - 1)
    return out, new_mean, new_var


@settings(max_examples=30, deadline=None)
@given(st.none() | probabilities)
@example(None)  # the page's own p
def test_dropout_scales_kept_values_by_one_over_one_minus_p(p: float | None) -> None:
    page = run_region(SNIPPET, "dropout", inputs=_imports())
    dropout, ones = page["dropout"], page["ones"]
    assert not dropout.training  # the region ends in eval mode, where the input comes back
    assert torch.equal(dropout(ones), ones)
    if p is not None:
        dropout.p = p  # the test's p in the page's layer
    p = dropout.p

    ran = run_region(SNIPPET, "dropout-mean", inputs=page)
    many = ran["many"]  # the page's dropout in training mode, on ones
    kept = many[many != 0]
    # A kept value x becomes x / (1 - p); the input is all ones.
    assert torch.allclose(kept, torch.full_like(kept, 1 / (1 - p)))
    # Each value is set to 0 with probability p: the share of zeros is close to p.
    assert abs((many == 0).double().mean().item() - p) < 0.01
    # E[output] = (1 - p) * 1/(1 - p) + p * 0 = 1: the sample mean is close to it.
    assert abs(many.mean().item() - 1.0) < 0.1


def _check_eval_mode(session: Session) -> None:
    """The page's region "batch-norm-eval" on ``session``'s norm and batch, by hand."""
    norm, x = session["norm"], session["batch"]
    mean, var = norm.running_mean.clone(), norm.running_var.clone()
    seen = norm.num_batches_tracked.item()
    ran = run_region(SNIPPET, "batch-norm-eval", inputs=session)
    # eval mode: y = (x - running_mean) / sqrt(running_var + eps), with weight 1 and bias 0
    assert torch.allclose(ran["out"], (x - mean) / torch.sqrt(var + norm.eps))
    # and the running statistics and the count of batches stay where they were
    assert torch.equal(norm.running_mean, mean)
    assert torch.equal(norm.running_var, var)
    assert norm.num_batches_tracked.item() == seen


@settings(max_examples=50, deadline=None)
@given(st.none() | st.tuples(batches, momenta))
@example(None)  # the page's own batch only
def test_batch_norm_running_statistics_use_the_unbiased_variance(
    test_batch: tuple[list[tuple[float, float]], float] | None,
) -> None:
    page = run_region(SNIPPET, "batch-norm-train", inputs=_imports())
    norm = page["norm"]
    # A new batch norm starts at running mean 0 and running variance 1 ("batch-norm-parts").
    out, mean, var = _train_step_by_hand(
        page["batch"], torch.zeros(2), torch.ones(2), norm.momentum, norm.eps
    )
    assert torch.allclose(page["out"], out, atol=1e-6)
    assert torch.allclose(norm.running_mean, mean)
    assert torch.allclose(norm.running_var, var)
    assert norm.num_batches_tracked.item() == 1
    session = page

    if test_batch is not None:
        # The page's training step (the region without its first two lines) on the
        # test's batch and momentum, from where the page's first step left the norm.
        rows, momentum = test_batch
        x = torch.tensor(rows, dtype=torch.float64)
        norm.double()
        norm.momentum = momentum
        before_mean, before_var = norm.running_mean.clone(), norm.running_var.clone()
        session = run_region(SNIPPET, "batch-norm-step", inputs={**page, "batch": x})
        out, mean, var = _train_step_by_hand(x, before_mean, before_var, momentum, norm.eps)
        assert torch.allclose(session["out"], out)
        assert torch.allclose(norm.running_mean, mean)
        assert torch.allclose(norm.running_var, var)
        assert norm.num_batches_tracked.item() == 2

    _check_eval_mode(session)


@settings(max_examples=20, deadline=None)
@given(st.none() | batches)
@example(None)  # the page's own batch, as the page runs it
def test_no_grad_does_not_stop_the_running_statistics(
    rows: list[tuple[float, float]] | None,
) -> None:
    page = run_region(SNIPPET, "batch-norm-train", "batch-norm-eval", inputs=_imports())
    norm = page["norm"]
    inputs: dict = page
    if rows is not None:
        norm.double()
        inputs = {**page, "batch": torch.tensor(rows, dtype=torch.float64)}
    mean, var = norm.running_mean.clone(), norm.running_var.clone()
    seen = norm.num_batches_tracked.item()

    ran = run_region(SNIPPET, "batch-norm-no-grad", inputs=inputs)
    # The update of training mode, momentum 0.1: for the page's batch
    # 0.9 * [0.5, 3] + 0.1 * [5, 30] = [0.95, 5.7], as the page derives.
    _, mean, var = _train_step_by_hand(ran["batch"], mean, var, norm.momentum, norm.eps)
    assert torch.allclose(norm.running_mean, mean)
    assert torch.allclose(norm.running_var, var)
    assert norm.num_batches_tracked.item() == seen + 1
    assert norm.training and torch.is_grad_enabled()  # no_grad ended; the mode is training

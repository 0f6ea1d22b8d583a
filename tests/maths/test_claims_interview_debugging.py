"""docs/interview/how-do-you-debug-nan-gradients.md, at the edges of its claims.

* Anomaly mode stores a forward traceback in every node the forward pass records (and
  none without it); it raises at a NaN but lets an infinite gradient, +inf or -inf, pass
  in float32 and float64, which ``torch.isfinite`` catches.
* The squared error of w x + b has the Hessian (2/n) [[Σx², Σx], [Σx, n]] in (w, b); its
  eigenvalues, by the 2x2 formula, are the page's curvatures. After normalising x to
  mean 0 and (unbiased) standard deviation 1 they are 2 (n - 1) / n and 2, so the
  learning rate 0.1 is below 2 / curvature and the loss falls at every step.
* One NaN in one gradient entry spreads, through the next forward passes, to every
  parameter.
"""

from __future__ import annotations

import math
import warnings

import pytest
import torch

from tests.maths import run_region

PAGE = "docs/interview/how-do-you-debug-nan-gradients.md"
NAN = "interview/how_do_you_debug_nan_gradients"


def _nodes(root: torch.autograd.graph.Node) -> list[torch.autograd.graph.Node]:
    seen, todo = [], [root]
    while todo:
        node = todo.pop()
        if node is not None and node not in seen:
            seen.append(node)
            todo.extend(n for n, _ in node.next_functions)
    return seen


@pytest.mark.claim(PAGE, "Anomaly mode stores a traceback for every operation of the forward pass")
@pytest.mark.parametrize("anomaly", [True, False])
def test_anomaly_mode_keeps_a_traceback_per_node(anomaly: bool) -> None:
    page = run_region(NAN, "entropy", inputs={"torch": torch})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with torch.autograd.set_detect_anomaly(anomaly):
            page = run_region(NAN, "fix", inputs=page)
    operations = [
        n for n in _nodes(page["entropy"].grad_fn) if n.name() != "torch::autograd::AccumulateGrad"
    ]
    assert len(operations) >= 5  # neg, sum, where, mul, log, ...
    assert all(("traceback_" in n.metadata) == anomaly for n in operations)


@pytest.mark.claim(
    PAGE, "Anomaly mode checks for NaN only. An infinite gradient, such as that of `sqrt` at 0"
)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_anomaly_mode_lets_inf_pass(dtype: torch.dtype) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        page = run_region(NAN, "diverge", "inf")  # as shown: no error
        assert "all finite: False" in page.output
        r = torch.tensor([0.0], dtype=dtype, requires_grad=True)
        page = run_region(NAN, "inf-maths", inputs={"torch": torch, "r": r})
        assert page["r"].grad.tolist() == [math.inf]  # 1 / (2 sqrt(0))
        s = torch.tensor([0.0], dtype=dtype, requires_grad=True)
        with torch.autograd.detect_anomaly():
            (1 / s).sum().backward()  # d(1/s)/ds = -1/s²: -inf at 0, no error either
        assert s.grad.tolist() == [-math.inf] and not torch.isfinite(s.grad).any()
        with torch.autograd.detect_anomaly(), pytest.raises(RuntimeError, match="nan"):
            (s * s.log()).sum().backward()  # 0 · (-inf) = NaN: that one it names


def _eigenvalues(x: torch.Tensor) -> list[float]:
    """Of (2/n) [[Σx², Σx], [Σx, n]], by the formula for a symmetric 2x2 matrix."""
    x = x.double().flatten()
    n = len(x)
    a, b, d = 2 * (x * x).sum().item() / n, 2 * x.sum().item() / n, 2.0
    mean, radius = (a + d) / 2, math.hypot((a - d) / 2, b)
    return [mean - radius, mean + radius]


@pytest.mark.claim(PAGE, "are the curvatures along two directions")
def test_the_curvatures_by_hand() -> None:
    page = run_region(NAN, "diverge", "smaller-step", "plateau")
    by_hand = _eigenvalues(page["x"])
    torch.testing.assert_close(page["curvatures"].tolist(), by_hand, rtol=1e-9, atol=0)
    assert by_hand[1] > 5000 and 0.4 < by_hand[0] < 0.6  # "about 6,000" and "0.5"
    assert "bias 0.569" in page.output  # far from 1 after 30 steps


@pytest.mark.claim(PAGE, "Normalising the inputs makes both curvatures about 2")
def test_normalised_curvatures_and_a_stable_run() -> None:
    page = run_region(NAN, "diverge", "normalise")
    n = len(page["x"])
    assert _eigenvalues(page["x_scaled"]) == pytest.approx([2 * (n - 1) / n, 2.0], rel=1e-6)
    torch.testing.assert_close(
        page["curvatures"].tolist(), [2 * (n - 1) / n, 2.0], rtol=1e-6, atol=0
    )
    assert max(page["curvatures"]).item() < 2 / 0.1  # stable: lr < 2 / curvature
    run = page.output.split("curvatures after normalising")[1].splitlines()[1:]
    losses = [float(line.split()[-1]) for line in run]
    assert losses == sorted(losses, reverse=True) and losses[-1] < 1e-3


@pytest.mark.claim(PAGE, "A NaN, once in a gradient, spreads to every parameter it touches at the")
def test_one_nan_spreads_to_the_whole_model() -> None:
    page = run_region(NAN, "diverge")
    assert "non-finite loss at step 10" in page.output
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.randn(8, 3)
    model(x).pow(2).mean().backward()
    model[2].weight.grad[0, 0] = float("nan")  # one NaN, in one gradient
    optimizer.step()
    assert model[2].weight.isnan().sum() == 1  # the update: only the entry it touches
    for _ in range(2):  # a few steps later: everything
        optimizer.zero_grad()
        model(x).pow(2).mean().backward()
        optimizer.step()
    assert all(p.isnan().all() for p in model.parameters())

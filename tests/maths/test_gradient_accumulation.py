"""Gradient accumulation: docs/chapters/gradient-accumulation.md's code against its maths.

The page derives that

* every backward pass adds its gradient to .grad: two passes of y = x² leave 2x + 2x,
  and x.grad.zero_() brings it back to 0;
* the full-batch mean loss L = (1/N) Σ lᵢ over N = k·m examples equals the sum over
  the k micro-batches of (1/k)·(their own mean), so the micro-batch losses divided by
  k accumulate to the full-batch gradient, and without the 1/k to k times it;
* one optimizer step after accumulating is θ ← θ − η·(full-batch gradient).

The regions of snippets/chapters/gradient_accumulation.py run on random inputs: the
``*-maths`` regions without the page's x = 2, the micro-batch regions on the page's
model (micro_setup) with random weights and a random batch of the page's size.
"""

from __future__ import annotations

import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn

from . import Session, run_region

SNIPPET = "chapters/gradient_accumulation"
values = st.floats(min_value=-10.0, max_value=10.0, allow_nan=False, allow_infinity=False)
RTOL, ATOL = 1e-10, 1e-12
MICRO_BATCHES = 4  # the page splits its batch of 128 into 4 micro-batches of 32


def run_on(region: str, x_value: float) -> tuple[Session, list[torch.Tensor]]:
    """Run the region on x = x_value; also return x.grad after each backward pass."""
    x = torch.tensor(x_value, dtype=torch.float64, requires_grad=True)
    passes: list[torch.Tensor] = []
    x.register_post_accumulate_grad_hook(lambda leaf: passes.append(leaf.grad.clone()))
    return run_region(SNIPPET, region, inputs={"x": x}), passes


def close(actual: torch.Tensor, expected: torch.Tensor | float, rtol: float = RTOL) -> bool:
    expected_t = torch.as_tensor(expected, dtype=actual.dtype)
    return torch.allclose(actual, expected_t, rtol=rtol, atol=ATOL)


@settings(max_examples=50, deadline=None)
@given(values)
def test_two_backward_passes_of_a_square_give_2x_then_2_times_2x(x_value: float) -> None:
    page, passes = run_on("adds_up-maths", x_value)
    assert len(passes) == 2
    assert close(passes[0], 2 * x_value)  # d/dx x² = 2x
    assert close(passes[1], 2 * x_value + 2 * x_value)  # a new graph, the same leaf: added
    assert passes[1] is not passes[0] and page["x"].grad is not None


@settings(max_examples=50, deadline=None)
@given(values)
def test_zero_resets_the_gradient_in_place(x_value: float) -> None:
    page, passes = run_on("zero_-maths", x_value)
    assert [p.item() for p in passes] == [2 * x_value]
    assert page["x"].grad.item() == 0.0


def page_model_on_random_data(seed: int) -> Session:
    """The page's micro_setup (model and loss), then random float64 weights and batch."""
    page = run_region(SNIPPET, "micro_setup", inputs={"torch": torch, "nn": nn})
    generator = torch.Generator().manual_seed(seed)
    model = page["model"].double()
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.copy_(torch.randn(parameter.shape, generator=generator))
    for name in ("inputs", "targets"):
        shape = page[name].shape  # the page's batch: 128 examples
        page[name] = torch.randn(shape, generator=generator, dtype=torch.float64)
    return page


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**31 - 1))
def test_scaled_micro_batches_give_the_full_batch_mean_gradient(seed: int) -> None:
    page = run_region(SNIPPET, "full_batch", inputs=page_model_on_random_data(seed))
    full = page["full"]
    page = run_region(SNIPPET, "micro_batches", inputs=page)
    assert page["steps"] == MICRO_BATCHES
    for accumulated, expected in zip(page["accumulated"], full, strict=True):
        assert close(accumulated, expected, rtol=1e-9)
    assert page.output.endswith("same gradient as the full batch: True\n")

    page = run_region(SNIPPET, "unscaled", inputs=page)
    for unscaled, expected in zip(page["unscaled"], full, strict=True):
        assert close(unscaled, MICRO_BATCHES * expected, rtol=1e-9)  # without the 1/k
    assert abs(page["ratio"] - MICRO_BATCHES) < 1e-9


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**31 - 1))
def test_one_step_after_accumulating_uses_the_full_batch_gradient(seed: int) -> None:
    page = run_region(
        SNIPPET, "full_batch", "micro_batches", inputs=page_model_on_random_data(seed)
    )
    before = [p.detach().clone() for p in page["model"].parameters()]
    page = run_region(SNIPPET, "accumulation_loop", inputs=page)
    lr = page["optimizer"].param_groups[0]["lr"]
    for after, old, grad in zip(page["model"].parameters(), before, page["full"], strict=True):
        assert close(after.detach(), old - lr * grad, rtol=1e-9)  # θ ← θ − η·∇L(full batch)

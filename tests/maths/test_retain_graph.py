"""retain_graph: docs/chapters/retain-graph.md's code against its hand derivation.

The page derives, for y = x², dy/dx = 2x, so a second pass through a retained graph
(or through a new graph from the same leaf) leaves 2x + 2x in x.grad; for the shared
h = x² with loss1 = 3h and loss2 = h², d loss1/dx = 3·2x and d loss2/dx = 2h·2x, which
add up to the gradient of loss1 + loss2; and a + 1 or v.sum() save nothing, so they
run twice and leave 1 + 1. The regions of snippets/chapters/retain_graph.py run on
random inputs (each ``*-maths`` region is the page's computation without its input).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from . import Session, run_region

SNIPPET = "chapters/retain_graph"
values = st.floats(min_value=-10.0, max_value=10.0, allow_nan=False, allow_infinity=False)
RTOL, ATOL = 1e-10, 1e-12
SECOND_TIME = "backward through the graph a second time"


def run_on(region: str, x_value: float) -> tuple[Session, list[float]]:
    """Run the region on x = x_value; also return x.grad after each pass, in order."""
    x = torch.tensor(x_value, dtype=torch.float64, requires_grad=True)
    passes: list[float] = []
    x.register_post_accumulate_grad_hook(lambda leaf: passes.append(leaf.grad.item()))
    return run_region(SNIPPET, region, inputs={"torch": torch, "x": x}), passes


def close(actual: torch.Tensor | float | None, expected: float) -> bool:
    assert actual is not None, "no gradient was stored"
    actual_t = torch.as_tensor(actual, dtype=torch.float64)
    return torch.allclose(
        actual_t, torch.tensor(expected, dtype=torch.float64), rtol=RTOL, atol=ATOL
    )


@settings(max_examples=50, deadline=None)
@given(values)
def test_a_graph_is_used_once_and_a_new_forward_adds_again(x_value: float) -> None:
    page, _ = run_on("first_backward-maths", x_value)
    assert close(page["x"].grad, 2 * x_value)  # dy/dx = 2x
    with pytest.raises(RuntimeError, match=SECOND_TIME):
        page["y"].backward()  # the saved x was released
    page = run_region(SNIPPET, "new_forward", inputs=page)
    assert close(page["x"].grad, 2 * x_value + 2 * x_value)  # a new graph, .grad adds up


@settings(max_examples=50, deadline=None)
@given(values)
def test_two_passes_through_a_retained_graph_give_2_times_2x(x_value: float) -> None:
    page, (first, second) = run_on("retain-maths", x_value)
    assert close(first, 2 * x_value)
    assert close(second, 2 * (2 * x_value))
    assert close(page["x"].grad, 2 * (2 * x_value))


@settings(max_examples=50, deadline=None)
@given(values)
def test_backward_of_one_loss_frees_the_shared_part(x_value: float) -> None:
    page, _ = run_on("shared-maths", x_value)
    h = x_value**2
    assert close(page["loss1"].item(), 3 * h)
    assert close(page["loss2"].item(), h**2)
    page = run_region(SNIPPET, "first_loss", inputs=page)
    assert close(page["x"].grad, 3 * 2 * x_value)  # d loss1/dx = 3·2x
    with pytest.raises(RuntimeError, match=SECOND_TIME):
        page["loss2"].backward()


@settings(max_examples=50, deadline=None)
@given(values)
def test_two_losses_sharing_a_graph_add_up(x_value: float) -> None:
    h = x_value**2
    loss1_grad, loss2_grad = 3 * 2 * x_value, 2 * h * 2 * x_value
    page, (after_loss1, after_loss2) = run_on("two_losses-maths", x_value)
    assert close(after_loss1, loss1_grad)
    assert close(after_loss2, loss1_grad + loss2_grad)
    # One backward of the sum gives the same total, with nothing retained.
    total, _ = run_on("sum_losses-maths", x_value)
    assert close(total["x"].grad, loss1_grad + loss2_grad)
    assert close(total["x"].grad, page["x"].grad.item())


@settings(max_examples=30, deadline=None)
@given(values, hnp.arrays(float, st.integers(1, 5), elements=values))
def test_a_graph_that_saved_nothing_runs_twice_and_grad_doubles(
    a_value: float, vector: np.ndarray
) -> None:
    # a + 1 and v.sum(): every local derivative is 1, nothing is saved or freed.
    a = torch.tensor(a_value, dtype=torch.float64, requires_grad=True)
    page = run_region(SNIPPET, "nothing_saved-a-maths", inputs={"a": a})
    assert page["a"].grad.item() == 1 + 1

    v = torch.tensor(vector, dtype=torch.float64, requires_grad=True)
    page = run_region(SNIPPET, "nothing_saved-v-maths", inputs={"v": v})
    assert torch.equal(page["v"].grad, torch.full_like(v, 1 + 1))


@pytest.mark.claim(
    "docs/chapters/retain-graph.md",
    "The second call has no `retain_graph=True`, so it frees the saved tensors",
)
@settings(max_examples=30, deadline=None)
@given(values)
def test_the_second_pass_without_retain_graph_frees_the_graph(x_value: float) -> None:
    page, _ = run_on("retain-maths", x_value)
    node = page["y"].grad_fn
    with pytest.raises(RuntimeError, match="freed"):
        node._saved_self  # noqa: B018  (the x that PowBackward0 saved)
    with pytest.raises(RuntimeError, match=SECOND_TIME):
        page["y"].backward()

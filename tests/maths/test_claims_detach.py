"""docs/control/detach.md and its quiz, at the edges of their claims.

* detach() copies nothing, for any size, dtype or layout, and shares the version counter;
  every in-place operation on the values adds exactly 1, seen through both tensors;
* without the counter (.data) the gradient through a changed saved exp(x) is 2 exp(x);
* a running total of loss tensors: 4 more nodes a step (4k + 2 after k steps) and, without
  backward(), every step's saved tensors stay alive; with backward() none do;
* the recurrent cell: 4t + 2 nodes after t steps, never more than 4k + 2 when cut every k
  steps, and the gradient of the last chunk's loss reaches exactly the last chunk's steps;
* retain_graph with an optimizer step between chunks fails anyway;
* detach_() is refused on every kind of view; detach() is never refused.
"""

from __future__ import annotations

import gc
import itertools
import weakref

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from . import run_region

PAGE = "docs/control/detach.md"
QUIZ = "docs/practice/quizzes/detach.md"
SNIPPET = "control/detach"

IN_PLACE = {
    "add_": lambda t: t.add_(1),
    "mul_": lambda t: t.mul_(2),
    "zero_": lambda t: t.zero_(),
    "copy_": lambda t: t.copy_(torch.ones_like(t)),
    "t[0] = 100.0": lambda t: t.__setitem__(0, 100.0),
    "t[mask] = 0": lambda t: t.__setitem__(t > 0, 0.0),
    "masked_fill_": lambda t: t.masked_fill_(t > 0, 0.0),
    "clamp_": lambda t: t.clamp_(0, 1),
    "index_add_": lambda t: t.index_add_(0, torch.tensor([0]), torch.ones(1)),
    "out=": lambda t: torch.add(t, 1, out=t),
    "+=": lambda t: t.__iadd__(1),
    "through a view": lambda t: t[:2].mul_(2),
    "normal_": lambda t: t.normal_(),
}


@pytest.mark.claim(PAGE, "no memory is copied, whatever the size of the tensor")
@pytest.mark.parametrize(
    "make",
    [
        lambda: torch.randn(0),
        lambda: torch.tensor(3.0),
        lambda: torch.randn(1000, 100),
        lambda: torch.randn(30, 40).t(),  # not contiguous
        lambda: torch.randn(5, dtype=torch.float64),
        lambda: torch.arange(6).view(2, 3),
    ],
)
def test_detach_copies_nothing(make) -> None:
    page = run_region(SNIPPET, "what-it-returns", "same-storage")
    assert "y and d share storage: True" in page.output
    y = make()
    d = y.detach()
    assert d.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()
    assert d.data_ptr() == y.data_ptr() and d.stride() == y.stride() and d.shape == y.shape


@pytest.mark.claim(PAGE, "in-place operation on its values adds 1 to it")
@pytest.mark.parametrize(
    ("change", "through"),
    [
        pytest.param(change, through, id=f"{name}-{through}")
        for name, change in IN_PLACE.items()
        for through in ("original", "detached")
        if (name, through) != ("out=", "original")  # refused: y requires grad
    ],
)
def test_every_in_place_operation_adds_one_seen_by_both(change, through: str) -> None:
    page = run_region(
        SNIPPET, "what-it-returns", "same-storage", "change-detached", "change-original"
    )
    assert "version of y: 2  version of d: 2" in page.output
    x = torch.tensor([1.0, -2.0, 3.0, 4.0], requires_grad=True)
    y = x * 3
    d = y.detach()
    before = y._version
    change(y if through == "original" else d)
    assert y._version == d._version == before + 1


@pytest.mark.claim(PAGE, "the gradient would be silently wrong: $2\\exp(x)$ instead of")
def test_through_data_the_gradient_is_silently_twice_exp() -> None:
    page = run_region(SNIPPET, "what-it-returns", "saved")
    x, e = page["x"], page["e"]
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        e.sum().backward()
    x = torch.tensor([0.0, 1.0, -2.5], requires_grad=True)
    e = torch.exp(x)
    e.data.mul_(2)  # the same change, without the version counter
    e.sum().backward()  # no error
    assert torch.allclose(x.grad, 2 * torch.exp(x.detach()))


@pytest.mark.claim(
    QUIZ, "That is what happens with `e.data.mul_(2)`, which skips the version counter."
)
def test_the_quizs_data_explanation() -> None:
    test_through_data_the_gradient_is_silently_twice_exp()


class _Box:
    """What a graph keeps for one saved tensor, so that a weak reference can watch it."""

    def __init__(self, tensor: torch.Tensor) -> None:
        self.tensor = tensor


@pytest.mark.claim(PAGE, "memory use grows with every step")
def test_the_pages_tensor_total_keeps_every_steps_saved_tensors() -> None:
    alive: weakref.WeakSet = weakref.WeakSet()

    def pack(t: torch.Tensor) -> _Box:
        box = _Box(t.detach())
        alive.add(box)
        return box

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda box: box.tensor):
        page = run_region(SNIPPET, "what-it-returns", "logging-bug")
    # Each step's graph saves 3 tensors: the input (for the weight's gradient), and the
    # prediction and the targets (for the squared error). The total keeps all 5 steps'.
    assert len(alive) == 5 * 3
    assert page["graph_size"](page["total"]) == 4 * 5 + 2  # 4 a step, 2 AccumulateGrad
    del page
    gc.collect()  # the region's functions and its namespace refer to each other
    assert len(alive) == 0  # and they go with the total


@pytest.mark.claim(PAGE, "After a `backward()` the saved tensors are freed, but")
def test_after_backward_nothing_saved_stays_but_the_nodes_pile_up() -> None:
    # The same loop with backward() at every step, as Part 3's chapter 6 runs it.
    page = run_region("control/memory_and_time", "saved-one", "live-tracker", "log-training")
    lines = [line for line in page.output.splitlines() if line.startswith("step")]
    assert all(" 0 saved tensors" in line for line in lines)
    nodes = [int(line.split("graph of total: ")[1].split()[0]) for line in lines]
    assert [b - a for a, b in itertools.pairwise(nodes)] == [9] * (len(nodes) - 1)


@pytest.mark.claim(PAGE, "After $t$ steps the graph has ${4t + 2}$ nodes")
@settings(max_examples=15, deadline=None)
@given(st.integers(1, 30), st.integers(1, 8))
def test_the_cell_graph_has_4t_plus_2_nodes_and_a_cut_keeps_it_at_most_4k_plus_2(
    steps: int, k: int
) -> None:
    page = run_region(SNIPPET, "what-it-returns", "logging-bug", "rnn-setup")
    assert page["graph_size"](page["h_full"]) == 4 * 12 + 2
    cell, graph_size, xs = page["cell"], page["graph_size"], torch.randn(steps, 1, 3)
    full, cut, most = torch.zeros(1, 4), torch.zeros(1, 4), 0
    for t in range(steps):
        if t % k == 0:
            cut = cut.detach()
        full, cut = cell(xs[t], full), cell(xs[t], cut)
        assert graph_size(full) == 4 * (t + 1) + 2
        most = max(most, graph_size(cut))
    assert most == 4 * min(k, steps) + 2


@pytest.mark.claim(PAGE, "the gradient of a chunk's loss stops at the chunk's first")
@settings(max_examples=15, deadline=None)
@given(st.integers(2, 16), st.integers(1, 6))
def test_the_gradient_reaches_the_last_chunk_only(steps: int, k: int) -> None:
    page = run_region(SNIPPET, "what-it-returns", "logging-bug", "rnn-setup")
    inputs = torch.randn(steps, 1, 3, requires_grad=True)
    h = torch.zeros(1, 4)
    for t in range(steps):
        if t % k == 0:
            h = h.detach()
        h = page["cell"](inputs[t], h)
    (h**2).sum().backward()
    last_start = (steps - 1) // k * k
    reached = [bool(inputs.grad[t].abs().sum() > 0) for t in range(steps)]
    assert reached == [t >= last_start for t in range(steps)]


@pytest.mark.claim(QUIZ, "an optimizer step in between makes it fail anyway")
def test_retain_graph_with_an_optimizer_step_between_chunks_fails() -> None:
    page = run_region(SNIPPET, "what-it-returns", "logging-bug", "rnn-setup")
    cell, xs = page["cell"], page["xs"]
    optimizer = torch.optim.SGD([page["W"], page["U"]], lr=0.1)
    h = torch.zeros(1, 4)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        for start in range(0, 12, 4):
            for t in range(start, start + 4):
                h = cell(xs[t], h)
            optimizer.zero_grad()
            (h**2).sum().backward(retain_graph=True)
            optimizer.step()


VIEWS = {
    "slice": lambda y: y[:2],
    "view": lambda y: y.view(2, 2),
    "transpose": lambda y: y.view(2, 2).transpose(0, 1),
    "index": lambda y: y[1],
}


@pytest.mark.claim(PAGE, "One case is refused: a **view**")
@pytest.mark.parametrize("take", VIEWS.values(), ids=list(VIEWS))
def test_detach_in_place_is_refused_on_every_view(take) -> None:
    x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    view = take(x * 2)
    with pytest.raises(RuntimeError, match="detach_"):
        view.detach_()
    assert view.detach().grad_fn is None  # detach() is fine


@pytest.mark.claim(PAGE, "`h = h.detach()` is clearer than `h.detach_()`, and it is never")
@pytest.mark.parametrize("take", VIEWS.values(), ids=list(VIEWS))
def test_detach_is_never_refused(take) -> None:
    x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    with torch.no_grad():
        under_no_grad = take(x)
    with torch.inference_mode():
        inference = take(x * 1)
    for t in (x, x * 2, take(x), take(x * 2), under_no_grad, inference, torch.arange(4)):
        d = t.detach()
        assert d.grad_fn is None and not d.requires_grad


@pytest.mark.claim(QUIZ, "`item()` only works for a single number")
def test_item_only_works_for_one_number() -> None:
    assert torch.tensor([2.5]).item() == 2.5
    with pytest.raises(RuntimeError, match="2 elements cannot be converted to Scalar"):
        torch.tensor([1.0, 2.0]).item()

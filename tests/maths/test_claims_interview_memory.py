"""Interview pages on what graphs keep in memory, at the edges of their claims.

* docs/interview/why-does-memory-keep-growing-during-training.md: the page's own tracker
  (region ``tracker``: a saved-tensors hook that records every tensor a graph saves in a
  WeakSet, and ``held_by_graphs()``) measures what each way of keeping a loss or an
  output holds: without ``backward()``, a list of losses or of outputs keeps one graph
  per entry, in float32 and float64, whatever the batch size (1 included); ``.item()``,
  ``.detach()`` and ``no_grad()`` keep nothing; in training, ``backward()`` frees the
  saved tensors while ``total += loss`` still chains the nodes; ``retain_graph=True``
  keeps a graph until the last tensor that refers to it goes away; a carried hidden state
  raises at the second batch, grows with ``retain_graph=True``, and raises again once an
  optimizer step changed the weights its graphs saved.
* docs/interview/why-does-a-validation-loop-use-no-grad.md and
  docs/interview/what-does-autograd-save-for-the-backward-pass.md: activations stay alive
  as long as the loss (weak references to their storage), and under ``no_grad()`` they
  are dropped after their last use; a sum saves only a shape, so it can be walked twice.
* docs/interview/what-is-truncated-backpropagation-through-time.md: after the cut, the
  last chunk's loss reaches the steps of its own chunk only, for any chunk length.
"""

from __future__ import annotations

import gc
import itertools
import weakref

import pytest
import torch

from tests.maths import Session, run_region

PAGE = "docs/interview/why-does-memory-keep-growing-during-training.md"
MEMORY = "interview/why_does_memory_keep_growing_during_training"


def _tracker() -> Session:
    page = run_region(MEMORY, "tracker")
    page.update(run_region(MEMORY, "training-total", inputs=page))  # nodes_reachable()
    return page


def _loss(page: Session, batch: int, dtype: torch.dtype) -> torch.Tensor:
    net = page["net"].to(dtype)
    inputs = torch.randn(batch, 100, dtype=dtype)
    targets = torch.randn(batch, 10, dtype=dtype)
    return ((net(inputs) - targets) ** 2).mean()


@pytest.mark.claim(
    PAGE, "`history.append(loss)` or `predictions.append(model(x))` keeps one graph per entry"
)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("batch", [1, 64])
def test_a_list_keeps_one_graph_per_entry(batch: int, dtype: torch.dtype) -> None:
    page = _tracker()
    net, held = page["net"].to(dtype), page["held_by_graphs"]
    size = dtype.itemsize
    # One step's graph saves the batch, the hidden activation and the difference, by hand.
    per_step = size * batch * (100 + 200 + 10)
    with torch.autograd.graph.saved_tensors_hooks(page["pack"], page["unpack"]):
        history: list[torch.Tensor] = []
        for _ in range(3):
            history.append(_loss(page, batch, dtype))
        first = held()
        predictions = [net(torch.randn(batch, 100, dtype=dtype)) for _ in range(3)]
        second = held()
    weight = size * net[2].weight.numel()  # saved by every loss, one storage
    assert first == 3 * per_step + weight
    # A prediction's graph saves the batch and the hidden activation (no difference).
    assert second - first == 3 * size * batch * (100 + 200)
    del history, predictions
    gc.collect()
    assert held() == 0


@pytest.mark.claim(
    PAGE, "Append `loss.item()`, or `model(x).detach()`, or compute the predictions under"
)
def test_item_detach_and_no_grad_keep_nothing() -> None:
    page = _tracker()
    net, held = page["net"], page["held_by_graphs"]
    with torch.autograd.graph.saved_tensors_hooks(page["pack"], page["unpack"]):
        losses = [_loss(page, 8, torch.float32).item() for _ in range(3)]
        detached = [net(torch.randn(8, 100)).detach() for _ in range(3)]
        with torch.no_grad():
            predictions = [net(torch.randn(8, 100)) for _ in range(3)]
        gc.collect()
        assert held() == 0
    assert all(isinstance(v, float) for v in losses)
    assert not any(t.requires_grad for t in detached + predictions)


@pytest.mark.claim(PAGE, "keep `loss.detach()`")
def test_a_detached_total_keeps_nothing() -> None:
    page = _tracker()
    with torch.autograd.graph.saved_tensors_hooks(page["pack"], page["unpack"]):
        total = torch.zeros(())
        for _ in range(4):
            total += _loss(page, 8, torch.float32).detach()
        gc.collect()
        assert page["held_by_graphs"]() == 0
    assert total.grad_fn is None


@pytest.mark.claim(PAGE, "The same `total += loss` there keeps no saved tensors at all")
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_in_training_the_total_keeps_nodes_not_tensors(dtype: torch.dtype) -> None:
    page = _tracker()
    held, nodes = page["held_by_graphs"], page["nodes_reachable"]
    net = page["net"].to(dtype)
    optimizer = torch.optim.SGD(net.parameters(), lr=0.01)
    counts = []
    with torch.autograd.graph.saved_tensors_hooks(page["pack"], page["unpack"]):
        total = 0.0
        for _ in range(5):
            loss = _loss(page, 4, dtype)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss
            assert held() == 0
            counts.append(nodes(total))
    steps = [b - a for a, b in itertools.pairwise(counts)]
    assert len(set(steps)) == 1 and steps[0] > 0  # the same nodes each step, for ever
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        total.backward()


@pytest.mark.claim(PAGE, "each graph is kept after its backward pass, until the tensor that")
def test_retain_graph_keeps_the_graph_until_its_tensor_goes() -> None:
    page = _tracker()
    held = page["held_by_graphs"]
    with torch.autograd.graph.saved_tensors_hooks(page["pack"], page["unpack"]):
        loss = _loss(page, 8, torch.float32)
        loss.backward(retain_graph=True)
        assert held() > 0
        loss.backward()  # the same graph again: it was kept
        loss = _loss(page, 8, torch.float32)
        loss.backward()
        assert held() == 0  # without retain_graph=True: freed by backward
        loss = _loss(page, 8, torch.float32)
        loss.backward(retain_graph=True)
        del loss
        gc.collect()
        assert held() == 0


@pytest.mark.claim(PAGE, "With a backward pass per batch, the second one raises")
def test_a_carried_hidden_state_raises_at_the_second_batch(
    capsys: pytest.CaptureFixture[str],
) -> None:
    page = run_region(MEMORY, "tracker", "training-total", "item-total", "hidden-state")
    capsys.readouterr()
    for carry, retain, dtype in [
        (lambda h: h, False, torch.float64),
        (lambda h: h, True, torch.float32),
        (lambda h: h.detach(), False, torch.float32),
    ]:
        page["cell"].to(dtype)
        page["chunks"] = page["chunks"].to(dtype)
        page["torch"] = _ZerosIn(dtype)
        page["train_on_chunks"](carry, retain_graph=retain)
    carried, retained, detached = capsys.readouterr().out.split("  batch 0")[1:]
    assert carried.splitlines()[1] == (
        "  batch 1: RuntimeError: Trying to backward through the graph a second time"
    )
    held, nodes = _columns(retained)
    assert held == sorted(set(held)) and nodes == sorted(set(nodes))  # both grow, batch by batch
    held, nodes = _columns(detached)
    assert held == [0] * 4 and len(set(nodes)) == 1


class _ZerosIn:
    """``torch``, with ``zeros`` in the given dtype (the page starts h with torch.zeros)."""

    def __init__(self, dtype: torch.dtype) -> None:
        self.dtype = dtype

    def zeros(self, *shape: int) -> torch.Tensor:
        return torch.zeros(*shape, dtype=self.dtype)

    def __getattr__(self, name: str) -> object:
        return getattr(torch, name)


def _columns(text: str) -> tuple[list[int], list[int]]:
    lines = ("  batch 0" + text).splitlines()
    rows = [line.split() for line in lines if "graphs hold" in line]
    return [int(r[4]) for r in rows], [int(r[-1]) for r in rows]


VALIDATION_PAGE = "docs/interview/why-does-a-validation-loop-use-no-grad.md"
VALIDATION = "interview/why_does_a_validation_loop_use_no_grad"
SAVED_PAGE = "docs/interview/what-does-autograd-save-for-the-backward-pass.md"
SAVED = "interview/what_does_autograd_save_for_the_backward_pass"


def _watch(module: torch.nn.Module) -> list[weakref.ref[torch.UntypedStorage]]:
    """Weak references to the storage of each output of module, from now on."""
    refs: list[weakref.ref[torch.UntypedStorage]] = []
    module.register_forward_hook(
        lambda _m, _i, out: refs.append(weakref.ref(out.untyped_storage()))
    )
    return refs


def _alive(refs: list[weakref.ref[torch.UntypedStorage]]) -> int:
    gc.collect()
    return sum(ref() is not None for ref in refs)


@pytest.mark.claim(
    VALIDATION_PAGE, "without a graph each would be dropped once the next layer had used it"
)
@pytest.mark.parametrize("grad", [True, False])
def test_hidden_outputs_live_as_long_as_the_loss(grad: bool) -> None:
    page = run_region(VALIDATION, "setup")
    model = page["model"].eval()
    hidden = _watch(model[1])  # the ReLU's outputs, one per batch
    with torch.set_grad_enabled(grad):
        loss = page["validation_loss"]()
    assert len(hidden) == len(page["batches"]) == 4
    assert _alive(hidden) == (4 if grad else 0)  # kept by the graph, or already dropped
    del loss
    assert _alive(hidden) == 0  # "They stay alive as long as the loss does"


@pytest.mark.claim(SAVED_PAGE, "what the graph adds is keeping them alive after the forward pass")
@pytest.mark.parametrize("batch", [1, 8])
def test_activations_kept_alive_only_by_the_graph(batch: int) -> None:
    page = run_region(SAVED, "nodes", "network", "which")
    assert "kept alive only for backward: 48 numbers" in page.output
    net = page["net"]
    relu, output = _watch(net[1]), _watch(net[2])  # the ReLU's and the network's outputs
    inputs = torch.randn(batch, 3)
    loss = net(inputs).pow(2).mean()
    assert _alive(relu) == _alive(output) == 1
    del loss
    assert _alive(relu) == _alive(output) == 0
    with torch.no_grad():
        loss = net(inputs).pow(2).mean()
    assert len(relu) == len(output) == 2
    assert _alive(relu) == _alive(output) == 0  # dropped after their last use
    assert loss.grad_fn is None


@pytest.mark.claim(PAGE, "With an optimizer step between the batches it fails anyway")
def test_retain_graph_with_an_optimizer_step_raises() -> None:
    page = run_region(MEMORY, "tracker", "training-total", "item-total", "hidden-state")
    cell, chunks = page["cell"], page["chunks"]
    optimizer = torch.optim.SGD(cell.parameters(), lr=0.1)
    h = torch.zeros(3, 20)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        for x in chunks:  # from the second batch on, each graph saves the weights
            h = cell(x, h)
            h.pow(2).mean().backward(retain_graph=True)
            optimizer.step()  # changes the weights that those graphs saved


TBPTT_PAGE = "docs/interview/what-is-truncated-backpropagation-through-time.md"
TBPTT = "interview/what_is_truncated_backpropagation_through_time"


@pytest.mark.claim(TBPTT_PAGE, "a loss in one chunk sends no gradient to the steps of")
@pytest.mark.parametrize("k", [1, 4, 6])
def test_a_chunk_sends_no_gradient_to_earlier_chunks(k: int) -> None:
    page = run_region(TBPTT, "setup", "loop")
    assert "steps  9-12: loss 0.0805, graph of 30 nodes" in page.output
    cell = page["cell"]
    sequence = page["sequence"].clone().requires_grad_()
    h = torch.zeros(1, 4)
    for start in range(0, len(sequence), k):
        h = h.detach()  # the page's cut
        for x_t in sequence[start : start + k]:
            h = cell(x_t, h)
    h.pow(2).mean().backward()  # the last chunk's loss
    last = len(sequence) - (len(sequence) - 1) % k - 1  # the first step of the last chunk
    reached = sequence.grad.flatten(1).abs().sum(dim=1) != 0
    assert reached[last:].all() and not reached[:last].any()


@pytest.mark.claim(SAVED_PAGE, "a sum keeps only a shape")
@pytest.mark.parametrize("shape", [(), (3,), (2, 3)])
def test_a_sum_keeps_only_a_shape_and_can_be_walked_twice(shape: tuple[int, ...]) -> None:
    page = run_region(SAVED, "nodes")
    assert "a.exp() keeps its result: True" in page.output
    x = torch.randn(shape, requires_grad=True)
    total = x.sum()
    saved = [name for name in dir(total.grad_fn) if name.startswith("_saved")]
    assert saved == ["_saved_self_sym_sizes"]
    assert tuple(total.grad_fn._saved_self_sym_sizes) == shape
    total.backward()
    total.backward()  # "can be walked twice even without it"
    assert x.grad.eq(2).all()

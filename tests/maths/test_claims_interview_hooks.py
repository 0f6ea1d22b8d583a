"""docs/interview/what-are-hooks-used-for.md, at the edges of its claims.

* A dead unit (0 for every input) gets a gradient of exactly 0 in its weights and bias
  from every example, so an SGD step leaves it dead; the page's check finds exactly the
  killed unit, for any unit.
* A forward hook that stores the output itself keeps the graph's saved tensors alive
  after the model's output is gone; one that stores ``output.detach()`` keeps none.
* ``handle.remove()`` takes off each kind of hook the page names.
"""

from __future__ import annotations

import gc
import weakref

import pytest
import torch

from tests.maths import run_region

PAGE = "docs/interview/what-are-hooks-used-for.md"
HOOKS = "interview/what_are_hooks_used_for"


@pytest.mark.claim(PAGE, "its weights and bias then get a gradient of 0 from every example")
@pytest.mark.claim(PAGE, "In the first layer, whose inputs are the data, the unit stays dead")
@pytest.mark.parametrize("unit", [0, 3, 7])
def test_a_dead_unit_gets_no_gradient(unit: int) -> None:
    page = run_region(HOOKS, "tensor-hook", "forward-hook", "dead-units")
    assert "dead units after bias[3] = -100: [3]" in page.output
    model = page["model"]
    layer = model[0]
    with torch.no_grad():
        layer.bias[unit] = -100.0
    assert page["dead_units"]() == [unit]
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(3):
        optimizer.zero_grad()
        model(torch.randn(64, 4)).pow(2).mean().backward()
        assert layer.weight.grad[unit].eq(0).all() and layer.bias.grad[unit] == 0
        assert layer.weight.grad.abs().sum() > 0  # the others do learn
        optimizer.step()
    assert page["dead_units"]() == [unit]  # still dead after the steps


@pytest.mark.claim(PAGE, "storing the output itself would keep its graph")
@pytest.mark.parametrize("detach", [True, False])
def test_a_stored_output_keeps_its_graph(detach: bool) -> None:
    page = run_region(HOOKS, "tensor-hook", "forward-hook")
    model, activations = page["model"], page["activations"]
    if not detach:  # the hook without .detach()
        for handle_owner in model.children():
            handle_owner._forward_hooks.clear()
        for name, module in model.named_children():
            module.register_forward_hook(
                lambda _m, _i, out, name=name: activations.__setitem__(name, out)
            )
    alive: weakref.WeakSet[object] = weakref.WeakSet()

    class Kept:
        def __init__(self, tensor: torch.Tensor) -> None:
            self.tensor = tensor

    def pack(tensor: torch.Tensor) -> Kept:
        kept = Kept(tensor.detach())
        alive.add(kept)
        return kept

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda kept: kept.tensor):
        model(torch.randn(16, 4))  # the output is dropped at once
    gc.collect()
    assert (len(alive) == 0) == detach
    assert all((out.grad_fn is None) == detach for out in activations.values())


@pytest.mark.claim(PAGE, "Every `register_*` method returns a handle; `handle.remove()`")
def test_remove_takes_each_kind_of_hook_off() -> None:
    page = run_region(HOOKS, "tensor-hook", "forward-hook")
    model = page["model"]
    calls: list[str] = []
    x = torch.randn(2, 4, requires_grad=True)
    handles = [
        x.register_hook(lambda g: calls.append("tensor")),
        model[0].register_forward_hook(lambda m, i, o: calls.append("forward")),
        model[0].register_forward_pre_hook(lambda m, i: calls.append("pre")),
        model[2].register_full_backward_hook(lambda m, gi, go: calls.append("backward")),
        model[0].weight.register_post_accumulate_grad_hook(lambda p: calls.append("accumulated")),
    ]
    model(x).sum().backward()
    assert sorted(calls) == ["accumulated", "backward", "forward", "pre", "tensor"]
    for handle in handles:
        handle.remove()
    calls.clear()
    model(x).sum().backward()
    assert calls == []

"""docs/control/memory-and-time.md, at the edges of its claims.

* tracked, the outputs of the linear layers before each ReLU are not saved, so they are
  freed during the forward pass; the ReLU outputs stay, held by the graph;
* under no_grad() every intermediate result is freed once the next layer has used it.
Each is checked by watching every layer's output with a weak reference, on the page's
network and on networks of other sizes.
"""

from __future__ import annotations

import gc
import weakref

import pytest
import torch
from torch import nn

from . import run_region

PAGE = "docs/control/memory-and-time.md"
SNIPPET = "control/memory_and_time"


def _outputs_alive(model: nn.Sequential, x: torch.Tensor, grad: bool) -> list[bool]:
    """Run model(x); for each layer, whether its output still exists afterwards."""
    watched = []

    def watch(module, args, output) -> None:
        watched.append(weakref.ref(output))

    handles = [layer.register_forward_hook(watch) for layer in model]
    with torch.set_grad_enabled(grad):
        out = model(x)
    for handle in handles:
        handle.remove()
    gc.collect()
    alive = [w() is not None for w in watched]
    assert alive[-1] and out is not None  # the result itself
    return alive[:-1]


SIZES = [(100, 200, 64), (3, 5, 1), (7, 16, 9)]


@pytest.mark.claim(PAGE, "so they are freed as soon as the ReLU has used them")
@pytest.mark.parametrize(("n_in", "width", "batch"), SIZES)
def test_tracked_the_pre_activations_go_and_the_relu_outputs_stay(n_in, width, batch) -> None:
    page = run_region(SNIPPET, "saved-one", "recorder", "mlp")
    model = (
        page["model"]
        if n_in == 100
        else nn.Sequential(
            nn.Linear(n_in, width),
            nn.ReLU(),
            nn.Linear(width, width),
            nn.ReLU(),
            nn.Linear(width, 2),
        )
    )
    alive = _outputs_alive(model, torch.randn(batch, n_in), grad=True)
    # layer 1, ReLU 1, layer 2, ReLU 2: the linear outputs go, the ReLU outputs stay
    assert alive == [False, True, False, True]


@pytest.mark.claim(PAGE, "every intermediate result is freed as soon as the next operation has")
@pytest.mark.parametrize(("n_in", "width", "batch"), SIZES)
def test_under_no_grad_every_intermediate_result_goes(n_in, width, batch) -> None:
    page = run_region(SNIPPET, "saved-one", "recorder", "mlp", "no-grad")
    assert page["saved"] == []
    model = (
        page["model"]
        if n_in == 100
        else nn.Sequential(
            nn.Linear(n_in, width),
            nn.ReLU(),
            nn.Linear(width, width),
            nn.ReLU(),
            nn.Linear(width, 2),
        )
    )
    assert _outputs_alive(model, torch.randn(batch, n_in), grad=False) == [False] * 4

"""Interview: why does memory keep growing during training?

docs/interview/why-does-memory-keep-growing-during-training.md
"""

# --8<-- [start:tracker]
import weakref

import torch
from torch import nn


class Kept:
    """What a graph holds for one tensor it saved for backward."""

    def __init__(self, tensor):
        self.tensor = tensor


alive = weakref.WeakSet()  # an entry disappears when no graph holds it any more


def pack(tensor):  # called whenever autograd saves a tensor for the backward pass
    kept = Kept(tensor.detach())
    alive.add(kept)
    return kept


def unpack(kept):
    return kept.tensor


def held_by_graphs():
    """Bytes of the saved tensors that some graph still holds, each storage once."""
    storages = {
        k.tensor.untyped_storage().data_ptr(): k.tensor.untyped_storage().nbytes() for k in alive
    }
    return sum(storages.values())


torch.manual_seed(0)
net = nn.Sequential(nn.Linear(100, 200), nn.ReLU(), nn.Linear(200, 10))
batches = [(torch.randn(64, 100), torch.randn(64, 10)) for _ in range(4)]
# --8<-- [end:tracker]

# --8<-- [start:tensor-total]
with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    total = 0.0
    for step, (inputs, targets) in enumerate(batches):
        loss = ((net(inputs) - targets) ** 2).mean()
        total += loss  # total is now a tensor, and its graph holds every loss's graph
        print(f"step {step}: graphs hold {held_by_graphs():6} bytes")
print("total:", type(total).__name__, "with grad_fn", total.grad_fn.name())
del loss, total
print("after del total:", held_by_graphs(), "bytes")
# --8<-- [end:tensor-total]

# --8<-- [start:item-total]
with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    total = 0.0
    for step, (inputs, targets) in enumerate(batches):
        loss = ((net(inputs) - targets) ** 2).mean()
        total += loss.item()  # a Python float: no graph attached
        print(f"step {step}: graphs hold {held_by_graphs():6} bytes")
print("total:", type(total).__name__)
# --8<-- [end:item-total]

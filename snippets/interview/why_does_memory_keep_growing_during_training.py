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


# --8<-- [start:training-total]
def nodes_reachable(tensor):
    """How many graph nodes a tensor's grad_fn reaches, itself included."""
    seen, todo = set(), [tensor.grad_fn]
    while todo:
        node = todo.pop()
        if node is not None and node not in seen:
            seen.add(node)
            todo.extend(next_node for next_node, _ in node.next_functions)
    return len(seen)


optimizer = torch.optim.SGD(net.parameters(), lr=0.01)
with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    total = 0.0
    for step, (inputs, targets) in enumerate(batches):
        loss = ((net(inputs) - targets) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()  # frees every tensor this step's graph saved
        optimizer.step()
        total += loss  # still a tensor: it keeps this step's graph, emptied
        print(
            f"step {step}: graphs hold {held_by_graphs()} bytes,"
            f" nodes reachable from total: {nodes_reachable(total)}"
        )
# --8<-- [end:training-total]

# --8<-- [start:item-total]
with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    total = 0.0
    for step, (inputs, targets) in enumerate(batches):
        loss = ((net(inputs) - targets) ** 2).mean()
        total += loss.item()  # a Python float: no graph attached
        print(f"step {step}: graphs hold {held_by_graphs():6} bytes")
print("total:", type(total).__name__)
# --8<-- [end:item-total]

# --8<-- [start:hidden-state]
del loss  # the last step's graph, so that only the batches below count
torch.manual_seed(0)
cell = nn.RNNCell(10, 20)
chunks = torch.randn(4, 3, 10)  # four batches in a row, each of 3 sequences


def train_on_chunks(carry, retain_graph=False):
    """One backward pass per batch; h carried from one batch to the next by `carry`."""
    h = torch.zeros(3, 20)
    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        for step, x in enumerate(chunks):
            h = cell(x, carry(h))
            try:
                h.pow(2).mean().backward(retain_graph=retain_graph)
            except RuntimeError as error:
                print(f"  batch {step}: RuntimeError: {str(error).split(' (')[0]}")
                return
            print(
                f"  batch {step}: graphs hold {held_by_graphs():4} bytes,"
                f" nodes reachable from h: {nodes_reachable(h)}"
            )


print("h carried as it is:")
train_on_chunks(lambda h: h)
print("h carried as it is, backward(retain_graph=True):")
train_on_chunks(lambda h: h, retain_graph=True)
print("h.detach() carried:")
train_on_chunks(lambda h: h.detach())
# --8<-- [end:hidden-state]

"""Interview: Why does a validation loop use torch.no_grad()?

(docs/interview/why-does-a-validation-loop-use-no-grad.md)
"""

# --8<-- [start:setup]
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(20, 100), nn.ReLU(), nn.Dropout(p=0.5), nn.Linear(100, 3))
batches = [(torch.randn(32, 20), torch.randint(0, 3, (32,))) for _ in range(4)]


def saved_during(run):
    """Run run(); return its result and what autograd saved for backward.

    The second is a dict: each block of memory saved (its address) and its bytes.
    """
    storages = {}

    def pack(tensor):
        storage = tensor.untyped_storage()
        storages[storage.data_ptr()] = storage.nbytes()  # each block of memory once
        return tensor.detach()

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        result = run()
    return result, storages


def validation_loss():
    total = 0.0
    for inputs, labels in batches:
        total = total + F.cross_entropy(model(inputs), labels)
    return total / len(batches)


# --8<-- [end:setup]

# --8<-- [start:compare]
model.eval()
tracked, tracked_saved = saved_during(validation_loss)
with torch.no_grad():
    untracked, untracked_saved = saved_during(validation_loss)
model.train()

# Blocks that exist anyway: the batches and the parameters.
existing = {t.untyped_storage().data_ptr() for batch in batches for t in batch}
existing |= {p.untyped_storage().data_ptr() for p in model.parameters()}
only_for_backward = sum(n for ptr, n in tracked_saved.items() if ptr not in existing)

print(
    f"without no_grad: loss {tracked.item():.4f}, grad_fn {tracked.grad_fn.name()},"
    f" {sum(tracked_saved.values())} bytes saved, {only_for_backward} of them"
    " only for backward"
)
print(
    f"with no_grad:    loss {untracked.item():.4f}, grad_fn {untracked.grad_fn},"
    f" {sum(untracked_saved.values())} bytes saved"
)
print("the same loss:", torch.equal(tracked, untracked))
# --8<-- [end:compare]

# --8<-- [start:not-eval]
with torch.no_grad():  # no graph, but dropout still on: model.eval() is missing
    first, second = validation_loss(), validation_loss()
print("no_grad alone, two runs agree:", torch.equal(first, second))

model.eval()
with torch.no_grad():
    first, second = validation_loss(), validation_loss()
model.train()
print("eval() and no_grad, two runs agree:", torch.equal(first, second))
# --8<-- [end:not-eval]

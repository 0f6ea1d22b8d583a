"""Interview: What does autograd save for the backward pass?

docs/interview/what-does-autograd-save-for-the-backward-pass.md; the error of a freed
value is shown by a raises= block on the page.
"""

# --8<-- [start:nodes]
import torch
from torch import nn

a = torch.tensor(2.0, requires_grad=True)
c = torch.tensor(5.0)  # does not require grad

p = a * c
print("a * c keeps:", p.grad_fn._saved_self, "and", p.grad_fn._saved_other)

y = a**3
print("a ** 3 keeps:", y.grad_fn._saved_self, "and", y.grad_fn._saved_exponent)

e = a.exp()
print("a.exp() keeps its result:", torch.equal(e.grad_fn._saved_result, e))
# --8<-- [end:nodes]

# --8<-- [start:network]
torch.manual_seed(0)
net = nn.Sequential(nn.Linear(3, 5), nn.ReLU(), nn.Linear(5, 1))
saved = []


def keep(t):
    # Called once for every tensor a node saves. Keep and return t.detach(), not t:
    # a saved output kept as itself would form a reference cycle with its own node.
    saved.append(t.detach())
    return t.detach()


for batch in [4, 8]:
    saved.clear()
    inputs = torch.randn(batch, 3)
    with torch.autograd.graph.saved_tensors_hooks(keep, lambda t: t):
        loss = net(inputs).pow(2).mean()
    shapes = [tuple(t.shape) for t in saved]
    print(
        f"batch {batch}: {len(saved)} saved tensors {shapes}, "
        f"{sum(t.numel() for t in saved)} numbers"
    )
# --8<-- [end:network]


# --8<-- [start:which]
def same_memory(t, other):
    return t.untyped_storage().data_ptr() == other.untyped_storage().data_ptr()


print("saved the inputs:        ", any(same_memory(t, inputs) for t in saved))
print("saved the first weight:  ", any(same_memory(t, net[0].weight) for t in saved))
print("saved the second weight: ", any(same_memory(t, net[2].weight) for t in saved))
print("the two (8, 5) are one:  ", same_memory(saved[1], saved[2]))

blocks = {t.untyped_storage().data_ptr(): t.numel() for t in saved}  # each block once
existing = {inputs.untyped_storage().data_ptr()}
existing |= {p.untyped_storage().data_ptr() for p in net.parameters()}
made_for_backward = sum(n for ptr, n in blocks.items() if ptr not in existing)
print(
    f"{len(saved)} saved tensors, {len(blocks)} blocks of memory; kept alive only for"
    f" backward: {made_for_backward} numbers"
)
# --8<-- [end:which]

# --8<-- [start:freed]
y = a**3
y.backward()  # uses the saved a, then frees it
print("a.grad:", a.grad)
# --8<-- [end:freed]

"""Interview: detach() vs clone() vs detach().clone().

docs/interview/detach-vs-clone.md
"""
# Each region is read on its own on the page, so imports appear where they are used.
# ruff: noqa: E402

# --8<-- [start:compare]
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 3  # a non-leaf, in a graph

for name, t in [
    ("y.detach()", y.detach()),
    ("y.clone()", y.clone()),
    ("y.detach().clone()", y.detach().clone()),
]:
    grad_fn = t.grad_fn.name() if t.grad_fn else None
    shared = t.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()
    print(
        f"{name:19} requires_grad={t.requires_grad!s:5}  grad_fn={grad_fn!s:15}  "
        f"shares storage: {shared}"
    )
# --8<-- [end:compare]

# --8<-- [start:clone-grad]
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 3
copy = y.clone()
(copy * 5).sum().backward()  # the gradient flows back through the copy
print("x.grad through clone():", x.grad.tolist())
# --8<-- [end:clone-grad]

# --8<-- [start:storage]
x = torch.tensor([1.0, 2.0], requires_grad=True)
view = x.detach()
snapshot = x.detach().clone()
with torch.no_grad():
    x.mul_(10)  # an update, as an optimizer makes
print("x:                 ", x.tolist())
print("x.detach():        ", view.tolist())  # same memory: it changed too
print("x.detach().clone():", snapshot.tolist())  # its own memory: the old values
# --8<-- [end:storage]

# --8<-- [start:state-dict]
import copy

from torch import nn

torch.manual_seed(0)
model = nn.Linear(2, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
before = model.weight.detach().clone()
best = model.state_dict()  # the bug: detached tensors that share the parameters' memory
best_copy = copy.deepcopy(model.state_dict())  # a snapshot: its own memory

model(torch.randn(4, 2)).pow(2).mean().backward()
optimizer.step()  # the weights change in place
shared = best["weight"].untyped_storage().data_ptr() == model.weight.untyped_storage().data_ptr()
print("state_dict() shares the weight's memory:", shared, end="")
print(" | requires_grad:", best["weight"].requires_grad)
print("after one step, state_dict() has the old weights:", torch.equal(best["weight"], before))
print(
    "after one step, the deepcopy has the old weights: ", torch.equal(best_copy["weight"], before)
)
# --8<-- [end:state-dict]

# --8<-- [start:copy-warning]
x = torch.tensor([1.0, 2.0], requires_grad=True)
copied = torch.tensor(x)  # works, and warns
print("torch.tensor(x): requires_grad =", copied.requires_grad)
# --8<-- [end:copy-warning]

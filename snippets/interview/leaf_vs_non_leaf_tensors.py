"""Interview: leaf vs non-leaf tensors (docs/interview/leaf-vs-non-leaf-tensors.md)"""

# --8<-- [start:describe]
import torch
from torch import nn


def describe(name: str, t: torch.Tensor) -> None:
    made_by = t.grad_fn.name() if t.grad_fn is not None else None  # a name, not an address
    print(
        f"{name:>6}: is_leaf={t.is_leaf!s:5} requires_grad={t.requires_grad!s:5} grad_fn={made_by}"
    )


x = torch.tensor(2.0, requires_grad=True)  # created by you
y = x * 3  # created by an operation
data = torch.tensor([1.0, 2.0]) * 10  # an operation, but nothing requires grad
weight = nn.Linear(2, 1).weight  # created by a layer, for you
scaled = (torch.ones(2) * 0.5).requires_grad_()  # computed first, then asked to require grad

for name, t in [("x", x), ("y", y), ("data", data), ("weight", weight), ("scaled", scaled)]:
    describe(name, t)
# --8<-- [end:describe]

# --8<-- [start:grad]
loss = y**2
loss.backward()
print("x.grad:", x.grad)  # dloss/dx = 2y * 3 = 36
print("y.grad:", y.grad)  # not kept: y is not a leaf
# --8<-- [end:grad]

# --8<-- [start:trap]
torch.manual_seed(0)
w = torch.randn(3, requires_grad=True) * 0.01  # the multiplication makes a non-leaf
describe("w", w)
(w**2).sum().backward()
print("w.grad:", w.grad)  # not kept: w is not a leaf
# --8<-- [end:trap]

# --8<-- [start:fix]
torch.manual_seed(0)
w = (torch.randn(3) * 0.01).requires_grad_()  # scale first, then ask for gradients
describe("w", w)
(w**2).sum().backward()
print("w.grad is None:", w.grad is None)
# --8<-- [end:fix]

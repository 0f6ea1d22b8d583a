"""Interview: Why is .grad None after backward()? (docs/interview/why-is-grad-none.md)"""

# --8<-- [start:diagnose]
import torch
from torch import nn


def why_no_grad(t: torch.Tensor) -> str:
    """The first check that explains a missing gradient."""
    if not t.requires_grad:
        return "it does not require grad"
    if not t.is_leaf:
        return f"it is not a leaf (made by {t.grad_fn.name()})"
    return "no backward pass has reached it since it was created or cleared"


# --8<-- [end:diagnose]


# --8<-- [start:not-a-leaf]
w = torch.ones(2, requires_grad=True) * 2  # the multiplication made a non-leaf
(w**2).sum().backward()
print("w.grad:", w.grad)
print("why:", why_no_grad(w))
# --8<-- [end:not-a-leaf]

# --8<-- [start:no-requires-grad]
a = torch.ones(2, requires_grad=True)
b = torch.ones(2)  # requires_grad defaults to False
(a * b).sum().backward()
print("a.grad:", a.grad, " b.grad:", b.grad)
print("why:", why_no_grad(b))
# --8<-- [end:no-requires-grad]

# --8<-- [start:unused]
torch.manual_seed(0)
used, unused = nn.Linear(2, 1), nn.Linear(2, 1)
used(torch.randn(4, 2)).sum().backward()  # `unused` plays no part in this loss
print("used.weight.grad is None:  ", used.weight.grad is None)
print("unused.weight.grad is None:", unused.weight.grad is None)
print("why:", why_no_grad(unused.weight))
# --8<-- [end:unused]

# --8<-- [start:cleared]
optimizer = torch.optim.SGD(used.parameters(), lr=0.1)
optimizer.zero_grad()  # set_to_none=True is the default
print("used.weight.grad:", used.weight.grad)
print("why:", why_no_grad(used.weight))
# --8<-- [end:cleared]

"""Interview: What makes a tensor a leaf? (docs/interview/what-makes-a-tensor-a-leaf.md)"""

# --8<-- [start:rule]
import torch
from torch import nn


def leaf_by_the_rule(t):
    return not t.requires_grad or t.grad_fn is None


torch.manual_seed(0)
cases = {
    "torch.randn(3, requires_grad=True)": torch.randn(3, requires_grad=True),
    "(torch.randn(3) * 0.01).requires_grad_()": (torch.randn(3) * 0.01).requires_grad_(),
    "nn.Linear(3, 1).bias": nn.Linear(3, 1).bias,
    "torch.randn(3) * 0.01": torch.randn(3) * 0.01,
    "torch.randn(3, requires_grad=True) * 0.01": torch.randn(3, requires_grad=True) * 0.01,
}
for expression, t in cases.items():
    rule, short = leaf_by_the_rule(t), t.grad_fn is None
    print(f"{expression:42} is_leaf={t.is_leaf!s:5} rule={rule!s:5} grad_fn is None: {short}")
# --8<-- [end:rule]

# --8<-- [start:order]
torch.manual_seed(0)
x = torch.tensor([1.0, 2.0, 3.0])
for label, w in [
    ("track, then scale", torch.randn(3, requires_grad=True) * 0.01),
    ("scale, then track", (torch.randn(3) * 0.01).requires_grad_()),
]:
    (w * x).sum().backward()
    kept = w.grad if w.is_leaf else "not kept (w is not a leaf)"
    print(f"{label}: is_leaf={w.is_leaf}, gradient {kept}")
# --8<-- [end:order]

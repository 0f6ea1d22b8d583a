"""Part 1, chapter 3: leaf tensors, precisely.

Each region is included by docs/graph/leaves.md. The file also runs top to bottom on
its own: `python snippets/graph/leaves.py` (PyTorch's warning then goes to the
terminal). The call that fails on purpose lives in the page, in a `raises=` block.
"""

# --8<-- [start:table]
import torch
from torch import nn

torch.manual_seed(0)

cases = {
    "torch.randn(3, requires_grad=True)": torch.randn(3, requires_grad=True),
    "(torch.randn(3) * 0.01).requires_grad_()": (torch.randn(3) * 0.01).requires_grad_(),
    "nn.Parameter(torch.randn(3))": nn.Parameter(torch.randn(3)),
    "nn.Linear(3, 1).weight": nn.Linear(3, 1).weight,
    "torch.randn(3)": torch.randn(3),
    "torch.randn(3) * 0.01": torch.randn(3) * 0.01,
    "torch.tensor([1, 2, 3])": torch.tensor([1, 2, 3]),
    "torch.randn(3, requires_grad=True) * 0.01": torch.randn(3, requires_grad=True) * 0.01,
}

print(f"{'tensor':43} {'requires_grad':13} {'grad_fn':13} is_leaf")
for expression, t in cases.items():
    made_by = t.grad_fn.name() if t.grad_fn is not None else "None"
    print(f"{expression:43} {t.requires_grad!s:13} {made_by:13} {t.is_leaf}")
# --8<-- [end:table]


# --8<-- [start:rule]
def leaf_by_the_rule(t: torch.Tensor) -> bool:
    """A leaf: does not require grad, or requires grad and has no grad_fn."""
    return not t.requires_grad or t.grad_fn is None


agrees = [leaf_by_the_rule(t) == t.is_leaf for t in cases.values()]
print("the rule agrees with is_leaf in every case:", all(agrees))
# --8<-- [end:rule]

# --8<-- [start:one-test]
with_grad_fn = [t for t in cases.values() if t.grad_fn is not None]
print("every tensor with a grad_fn requires grad:", all(t.requires_grad for t in with_grad_fn))
print(
    "is_leaf == (grad_fn is None) in every case:",
    all(t.is_leaf == (t.grad_fn is None) for t in cases.values()),
)
# --8<-- [end:one-test]

# --8<-- [start:parameter]
plain = torch.randn(3)  # does not require grad
weight = nn.Parameter(plain)  # wraps the same values as a parameter
layer = nn.Linear(3, 1)

print("plain.requires_grad: ", plain.requires_grad)
print("weight.requires_grad:", weight.requires_grad, "| is_leaf:", weight.is_leaf)
print("layer.weight is a", type(layer.weight).__name__, "| is_leaf:", layer.weight.is_leaf)
print("layer.bias is a", type(layer.bias).__name__, "  | is_leaf:", layer.bias.is_leaf)
# --8<-- [end:parameter]

# --8<-- [start:bug]
torch.manual_seed(0)
x = torch.tensor([1.0, 2.0, 3.0])

w = torch.randn(3, requires_grad=True) * 0.01  # meant as a small random weight
loss = (w * x).sum()
loss.backward()

print("w.is_leaf:", w.is_leaf, "| w.grad_fn:", w.grad_fn.name())
print("w.grad:", w.grad)
# --8<-- [end:bug]

# --8<-- [start:where-it-went]
hidden = w.grad_fn.next_functions[0][0].variable  # the leaf that torch.randn made
print("hidden.is_leaf:", hidden.is_leaf)
print("hidden.grad:", hidden.grad)
# --8<-- [end:where-it-went]

# --8<-- [start:not-a-fix]
torch.manual_seed(0)
still_wrong = (torch.randn(3, requires_grad=True) * 0.01).requires_grad_()
print("is_leaf:", still_wrong.is_leaf, "| grad_fn:", still_wrong.grad_fn.name())
# --8<-- [end:not-a-fix]

# --8<-- [start:fix]
torch.manual_seed(0)
w_fixed = (torch.randn(3) * 0.01).requires_grad_()  # scale first, then ask for grad

loss = (w_fixed * x).sum()
loss.backward()

print("w_fixed.is_leaf:", w_fixed.is_leaf)
print("w_fixed.grad:", w_fixed.grad)
print("same values as the buggy w:", torch.equal(w_fixed, w))
# --8<-- [end:fix]

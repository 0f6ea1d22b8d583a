"""Interview: torch.no_grad() vs requires_grad=False.

docs/interview/no-grad-vs-requires-grad-false.md
"""

# --8<-- [start:model]
import torch
from torch import nn

torch.manual_seed(0)
first, second = nn.Linear(3, 4), nn.Linear(4, 1)
x = torch.randn(8, 3)


def report(label):
    for name, layer in [("first", first), ("second", second)]:
        grad = layer.weight.grad
        shown = None if grad is None else f"norm {grad.norm():.3g}"
        print(f"{label:23} {name}.weight.grad: {shown}")
    first.zero_grad(set_to_none=True)
    second.zero_grad(set_to_none=True)


second(first(x)).pow(2).mean().backward()
report("nothing frozen:")
# --8<-- [end:model]

# --8<-- [start:flag]
second.requires_grad_(False)  # a flag on the second layer's parameters
loss = second(first(x)).pow(2).mean()
loss.backward()
report("second frozen by flag:")
second.requires_grad_(True)
# --8<-- [end:flag]

# --8<-- [start:block]
h = first(x)
with torch.no_grad():  # the second layer's operations are not recorded
    out = second(h)
print("out.requires_grad:", out.requires_grad, "| out.grad_fn:", out.grad_fn)
print("second.weight.requires_grad:", second.weight.requires_grad)  # flag unchanged
# --8<-- [end:block]

# --8<-- [start:prefix]
with torch.no_grad():  # the first layer, as a fixed feature extractor
    features = first(x)
second(features).pow(2).mean().backward()
report("first under no_grad():")

first.requires_grad_(False)  # the same prefix, frozen by the flag instead
features = first(x)  # x does not require grad either: nothing to record
print("first frozen by flag: features.requires_grad:", features.requires_grad, end="")
print(" | features.grad_fn:", features.grad_fn)
first.requires_grad_(True)
# --8<-- [end:prefix]

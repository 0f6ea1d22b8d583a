"""Interview: Why does a view made under no_grad() get no gradient?

Included by docs/interview/why-does-a-view-made-under-no-grad-get-no-gradient.md.
"""

# --8<-- [start:view]
import torch

base = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
with torch.no_grad():
    first_two = base[:2]  # a view: it reads base's memory
    doubled = base * 2  # a new tensor, for comparison

print("doubled:   requires_grad", doubled.requires_grad, " grad_fn", doubled.grad_fn)
print("first_two: requires_grad", first_two.requires_grad, " grad_fn", first_two.grad_fn)
print("first_two is a leaf:", first_two.is_leaf, " a view of base:", first_two._base is base)

(first_two * 3).sum().backward()  # runs, without an error
print("base.grad:", base.grad, " first_two.grad:", first_two.grad)
# --8<-- [end:view]

# --8<-- [start:training]
w = torch.nn.Parameter(torch.tensor([0.5, -1.0, 2.0]))
optimizer = torch.optim.SGD([w], lr=0.1)


@torch.no_grad()  # written for evaluation, reused in training
def first_weights(weights: torch.Tensor) -> torch.Tensor:
    return weights[:2]


for _ in range(3):
    optimizer.zero_grad()
    loss = (first_weights(w) ** 2).sum()  # should pull w[0] and w[1] towards 0
    loss.backward()
    optimizer.step()
print("loss requires_grad:", loss.requires_grad, " w.grad:", w.grad)
print("w after 3 steps:", w.detach())
# --8<-- [end:training]

# --8<-- [start:in-place-inside]
with torch.no_grad():
    first_two.mul_(10)  # in place, inside no_grad(): allowed, and not recorded
print("base after first_two.mul_(10) inside no_grad():", base.detach())
# --8<-- [end:in-place-inside]

# --8<-- [start:remedy]
base = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)

recorded = base[:2]  # taken with grad mode on: a node records the slice
(recorded * 3).sum().backward()
print("view taken with grad mode on: made by", recorded.grad_fn.name(), " base.grad", base.grad)

with torch.no_grad():
    copy = base[:2].clone()  # a constant, in memory of its own
    alias = base[:2].detach()  # a constant, sharing base's memory
print("clone():  requires_grad", copy.requires_grad)
print("detach(): requires_grad", alias.requires_grad)
# --8<-- [end:remedy]

"""Interview: What does requires_grad do? (docs/interview/what-does-requires-grad-do.md)"""

# --8<-- [start:gradient]
import torch

x = torch.tensor(3.0)  # an input from the data
w = torch.tensor(1.5, requires_grad=True)  # a weight to train
loss = (w * x - 6.0) ** 2
loss.backward()

print("w.grad:", w.grad)  # 2(wx - 6) * x = 2 * (-1.5) * 3 = -9
print("x.grad:", x.grad)  # x did not ask for a gradient
# --8<-- [end:gradient]

# --8<-- [start:spreads]
a = torch.tensor(2.0)
print("a * 3:", (a * 3).requires_grad)  # no tracked input
print("a * w:", (a * w).requires_grad)  # one tracked input is enough
print("w > 0:", (w > 0).requires_grad)  # a bool result is never tracked

a.requires_grad_()  # switch tracking on later, in place
print("a * 3 after requires_grad_():", (a * 3).requires_grad)

with torch.no_grad():  # grad mode off: nothing is recorded, nothing requires grad
    print("a * w under no_grad():", (a * w).requires_grad)
with torch.inference_mode():
    print("a * w under inference_mode():", (a * w).requires_grad)
# --8<-- [end:spreads]

# --8<-- [start:cost]
saved = []


def count_saved(t):
    # Called once for each tensor the graph saves. Keep and return t.detach(), not t:
    # a saved output kept as itself would form a reference cycle with its own node.
    saved.append(t.detach())
    return t.detach()


def name_of(t, known):
    """Which known tensor t shares its memory with (addresses compared, never printed)."""
    ptr = t.untyped_storage().data_ptr()
    return next(name for name, k in known.items() if k.untyped_storage().data_ptr() == ptr)


for label, inputs_tracked, weight_tracked in [
    ("nothing", False, False),
    ("the weight", False, True),
    ("weight and inputs", True, True),
]:
    saved.clear()
    inputs = torch.tensor([1.0, 2.0, 3.0], requires_grad=inputs_tracked)
    weight = torch.tensor([0.5, -1.0, 2.0], requires_grad=weight_tracked)
    with torch.autograd.graph.saved_tensors_hooks(count_saved, lambda t: t):
        e = (inputs * weight).exp()
    names = [name_of(t, {"inputs": inputs, "weight": weight, "exp result": e}) for t in saved]
    print(f"tracked: {label:17} -> {len(saved)} saved for backward {names}")
# --8<-- [end:cost]

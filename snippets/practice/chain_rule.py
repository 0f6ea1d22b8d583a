"""Exercise 2.2: the chain rule. Run it: python snippets/practice/chain_rule.py"""
# Each region is a self-contained cell (page, notebook), so imports repeat.
# ruff: noqa: E402

# --8<-- [start:starter]
import torch

x = torch.tensor(2.0, requires_grad=True)
y = ...  # replace ... with 3x + 4
z = ...  # replace ... with y squared

# Call backward() on z, then print x.grad.
# --8<-- [end:starter]

# --8<-- [start:solution]
import torch

x = torch.tensor(2.0, requires_grad=True)
y = 3 * x + 4
z = y**2
z.backward()
print(x.grad)
# --8<-- [end:solution]

# --8<-- [start:check]
# Checks your answer with the chain rule: dz/dx = 2y * 3 = 6(3x + 4), from your own x.
# t.detach() below means t's values without its graph, so the check records nothing.
import torch


def check() -> str:
    x, y, z = (globals().get(name) for name in ("x", "y", "z"))
    if not all(isinstance(t, torch.Tensor) for t in (x, y, z)):
        return "Not done yet: set y = 3 * x + 4 and z = y ** 2 in the cell above and run it."
    if x.grad is None:
        return "Not done yet: x.grad is None, so backward() has not run. Call z.backward()."
    x0 = x.detach()
    if not torch.allclose(y.detach(), 3 * x0 + 4):
        return f"Not quite: expected y = 3x + 4 = {(3 * x0 + 4).item():g}, got y = {y.item():g}."
    if not torch.allclose(z.detach(), (3 * x0 + 4) ** 2):
        return f"Not quite: expected z = y ** 2 = {y.item() ** 2:g}, got z = {z.item():g}."
    expected = 6 * (3 * x0 + 4)  # dz/dy * dy/dx = 2(3x + 4) * 3
    if torch.allclose(x.grad, expected):
        return f"Correct: x.grad is {x.grad.item():g} = 2(3x + 4) * 3 at x = {x0.item():g}."
    return (
        f"Not quite: expected x.grad = {expected.item():g} (6(3x + 4) at x = {x0.item():g}), "
        f"got {x.grad.item():g}. Did you call backward() on z, and only once?"
    )


try:
    print(check())
except Exception as error:  # the check never crashes, whatever the cell above did
    print(f"Not done yet: the check could not read your answer ({type(error).__name__}: {error}).")
# --8<-- [end:check]

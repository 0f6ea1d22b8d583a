"""Exercise 2.3: several variables. Run it: python snippets/practice/several_variables.py"""
# Each region is a self-contained cell (page, notebook), so imports repeat.
# ruff: noqa: E402

# --8<-- [start:starter]
import torch

x = torch.tensor(4.0, requires_grad=True)
y = torch.tensor(5.0, requires_grad=True)
z = ...  # replace ... with x * y + x

# Call backward() on z, then print x.grad and y.grad.
# --8<-- [end:starter]

# --8<-- [start:solution]
import torch

x = torch.tensor(4.0, requires_grad=True)
y = torch.tensor(5.0, requires_grad=True)
z = x * y + x
z.backward()
print(x.grad)  # dz/dx = y + 1
print(y.grad)  # dz/dy = x
# --8<-- [end:solution]

# --8<-- [start:check]
# Checks your answer with the partial derivatives of z = xy + x, from your own x and y:
# dz/dx = y + 1 and dz/dy = x.
# t.detach() below means t's values without its graph, so the check records nothing.
import torch


def check() -> str:
    x, y, z = (globals().get(name) for name in ("x", "y", "z"))
    if not all(isinstance(t, torch.Tensor) for t in (x, y, z)):
        return "Not done yet: set z = x * y + x in the cell above and run it."
    x0, y0 = x.detach(), y.detach()
    for name, t, want in (("x", x, f"y + 1 = {(y0 + 1).item():g}"), ("y", y, f"x = {x0.item():g}")):
        if not t.requires_grad:
            return (
                f"Not quite: expected {name}.grad = {want}, got None: {name} was created "
                f"without requires_grad=True, so backward() computed no gradient for it. "
                f"Create it with torch.tensor(..., requires_grad=True)."
            )
    if x.grad is None or y.grad is None:
        return (
            "Not done yet: x.grad or y.grad is None, so backward() has not run. Call z.backward()."
        )
    if not torch.allclose(z.detach(), x0 * y0 + x0):
        return (
            f"Not quite: expected z = x * y + x = {(x0 * y0 + x0).item():g}, got z = {z.item():g}."
        )
    expected_x, expected_y = y0 + 1, x0
    if torch.allclose(x.grad, expected_x) and torch.allclose(y.grad, expected_y):
        return f"Correct: x.grad is {x.grad.item():g} (y + 1) and y.grad is {y.grad.item():g} (x)."
    return (
        f"Not quite: expected x.grad = {expected_x.item():g} (y + 1) and "
        f"y.grad = {expected_y.item():g} (x), got {x.grad.item():g} and {y.grad.item():g}."
    )


try:
    print(check())
except Exception as error:  # the check never crashes, whatever the cell above did
    print(f"Not done yet: the check could not read your answer ({type(error).__name__}: {error}).")
# --8<-- [end:check]

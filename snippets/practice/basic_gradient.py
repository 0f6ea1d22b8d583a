"""Exercise 2.1: a first gradient. Run it: python snippets/practice/basic_gradient.py"""
# Each region is a self-contained cell (page, notebook), so imports repeat.
# ruff: noqa: E402

# --8<-- [start:starter]
import torch

x = torch.tensor(5.0, requires_grad=True)
y = ...  # replace ... with x squared

# Call backward() on y, then print x.grad.
# --8<-- [end:starter]

# --8<-- [start:solution]
import torch

x = torch.tensor(5.0, requires_grad=True)
y = x**2
y.backward()
print(x.grad)
# --8<-- [end:solution]

# --8<-- [start:check]
# Checks your answer: dy/dx = 2x, recomputed with torch from your own x.
# t.detach() below means t's values without its graph, so the check records nothing.
import torch


def check() -> str:
    x, y = globals().get("x"), globals().get("y")
    if not isinstance(x, torch.Tensor) or not isinstance(y, torch.Tensor):
        return "Not done yet: set y = x ** 2 in the cell above and run it."
    if x.grad is None:
        return "Not done yet: x.grad is None, so backward() has not run. Call y.backward()."
    if not torch.allclose(y.detach(), x.detach() ** 2):
        return f"Not quite: expected y = x ** 2 = {x.item() ** 2:g}, got y = {y.item():g}."
    expected = 2 * x.detach()  # d(x^2)/dx = 2x
    if torch.allclose(x.grad, expected):
        return f"Correct: x.grad is {x.grad.item():g}, which is 2x at x = {x.item():g}."
    return (
        f"Not quite: expected x.grad = {expected.item():g} (2x at x = {x.item():g}), "
        f"got {x.grad.item():g}. Did backward() run more than once?"
    )


try:
    print(check())
except Exception as error:  # the check never crashes, whatever the cell above did
    print(f"Not done yet: the check could not read your answer ({type(error).__name__}: {error}).")
# --8<-- [end:check]

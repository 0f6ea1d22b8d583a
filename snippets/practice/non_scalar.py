"""Exercise 2.5: a non-scalar output. Run it: python snippets/practice/non_scalar.py"""
# Each region is a self-contained cell (page, notebook), so imports repeat.
# ruff: noqa: E402

# --8<-- [start:starter]
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x**2

# y has three elements, so y.backward() on its own raises an error.
# Call backward() with a gradient of ones shaped like y, then print x.grad.
# --8<-- [end:starter]

# --8<-- [start:solution]
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x**2
y.backward(torch.ones_like(y))
print(x.grad)
# --8<-- [end:solution]

# --8<-- [start:check]
# Checks your answer: with a gradient of ones, each x_i receives dy_i/dx_i = 2 x_i,
# recomputed with torch from your own x.
# t.detach() below means t's values without its graph, so the check records nothing.
import torch


def check() -> str:
    x, y = globals().get("x"), globals().get("y")
    if not isinstance(x, torch.Tensor) or not isinstance(y, torch.Tensor):
        return "Not done yet: x and y are not defined; run the cell above."
    if x.grad is None:
        return (
            "Not done yet: x.grad is None, so backward() has not run. "
            "Call y.backward(torch.ones_like(y))."
        )
    expected = 2 * x.detach()  # d(x_i^2)/dx_i = 2 x_i
    if torch.allclose(x.grad, expected):
        return f"Correct: x.grad is {x.grad.tolist()}, which is 2x for x = {x.tolist()}."
    if torch.allclose(x.grad, expected / x.numel()):
        return (
            f"Not quite: expected x.grad = {expected.tolist()} (2x), got "
            f"{[round(value, 4) for value in x.grad.tolist()]}, which is 2x / {x.numel()}: "
            "the gradient of y.mean(). A gradient of ones is the gradient of y.sum(): call "
            "y.backward(torch.ones_like(y))."
        )
    return (
        f"Not quite: expected x.grad = {expected.tolist()} (2x), got {x.grad.tolist()}. "
        "Was the gradient you passed all ones, and did backward() run only once?"
    )


try:
    print(check())
except Exception as error:  # the check never crashes, whatever the cell above did
    print(f"Not done yet: the check could not read your answer ({type(error).__name__}: {error}).")
# --8<-- [end:check]

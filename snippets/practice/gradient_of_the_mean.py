"""Exercise 2.7: the gradient of a mean. Run it: python snippets/practice/gradient_of_the_mean.py"""
# Each region is a self-contained cell (page, notebook), so imports repeat.
# ruff: noqa: E402

# --8<-- [start:starter]
import torch

x = torch.tensor([2.0, 4.0, 6.0, 8.0], requires_grad=True)
y = ...  # replace ... with the mean of x squared

# Call backward() on y, then print y.item() and x.grad.tolist().
# --8<-- [end:starter]

# --8<-- [start:solution]
import torch

x = torch.tensor([2.0, 4.0, 6.0, 8.0], requires_grad=True)
y = (x**2).mean()
y.backward()
print(y.item())
print(x.grad.tolist())
# --8<-- [end:solution]

# --8<-- [start:check]
# Checks your answer, from your own x: y = (x_1^2 + ... + x_n^2) / n, so each
# dy/dx_i = 2 x_i / n.
# t.detach() below means t's values without its graph, so the check records nothing.
import torch


def check() -> str:
    x, y = globals().get("x"), globals().get("y")
    if not isinstance(x, torch.Tensor) or not isinstance(y, torch.Tensor):
        return "Not done yet: set y = (x ** 2).mean() in the cell above and run it."
    if x.grad is None:
        return "Not done yet: x.grad is None, so backward() has not run. Call y.backward()."
    x0, n = x.detach(), x.numel()
    mean_of_squares = (x0**2).mean()
    if not torch.allclose(y.detach(), mean_of_squares):
        return (
            f"Not quite: expected y = (x ** 2).mean() = {mean_of_squares:g}, got y = {y.item():g}."
        )
    expected = 2 * x0 / n  # d/dx_i of sum(x^2) / n
    if torch.allclose(x.grad, expected):
        return f"Correct: y is {y.item():g} and x.grad is {x.grad.tolist()}, which is 2x / {n}."
    return (
        f"Not quite: expected x.grad = {expected.tolist()} (2x / {n}), got {x.grad.tolist()}. "
        "Did backward() run only once?"
    )


try:
    print(check())
except Exception as error:  # the check never crashes, whatever the cell above did
    print(f"Not done yet: the check could not read your answer ({type(error).__name__}: {error}).")
# --8<-- [end:check]

"""Plausible mistakes for Exercise 2.11 (check-a-gradient), one per region.

Each region replaces the starter cell; the exercise's check cell must then print an
accurate "Not quite: ..." (or "Not done yet: ..." where that is the honest verdict).
"""
# ruff: noqa: E402

# --8<-- [start:one-sided-difference]
# A one-sided difference: its error is h/2 · f''(x), about 1e-5, not h²/6 · f'''(x).
import torch


def f(t):
    return torch.tanh(t) * t**2


x = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)
h = 1e-5


def central_difference(f, x, h):
    return (f(x + h) - f(x)) / h


f(x).backward()
from_autograd = x.grad
estimate = central_difference(f, x.detach(), h)
# --8<-- [end:one-sided-difference]

# --8<-- [start:grad-read-before-backward]
# x.grad is read first and backward() is called after it: from_autograd is None.
import torch


def f(t):
    return torch.tanh(t) * t**2


x = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)
h = 1e-5


def central_difference(f, x, h):
    return (f(x + h) - f(x - h)) / (2 * h)


from_autograd = x.grad
f(x).backward()
estimate = central_difference(f, x.detach(), h)
print(from_autograd, estimate)
# --8<-- [end:grad-read-before-backward]

# --8<-- [start:factor-two-missing]
# The central difference is divided by h instead of 2h: the estimate is twice the slope.
import torch


def f(t):
    return torch.tanh(t) * t**2


x = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)
h = 1e-5


def central_difference(f, x, h):
    return (f(x + h) - f(x - h)) / h


f(x).backward()
from_autograd = x.grad
estimate = central_difference(f, x.detach(), h)
print(from_autograd, estimate)
# --8<-- [end:factor-two-missing]

# --8<-- [start:backward-twice]
# f(x).backward() runs twice (once more to "check"): x.grad holds twice the derivative.
import torch


def f(t):
    return torch.tanh(t) * t**2


x = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)
h = 1e-5


def central_difference(f, x, h):
    return (f(x + h) - f(x - h)) / (2 * h)


f(x).backward()
f(x).backward()
from_autograd = x.grad
estimate = central_difference(f, x.detach(), h)
print(from_autograd, estimate)
# --8<-- [end:backward-twice]

# --8<-- [start:float32]
# x is created in float32 (the default): rounding swamps the central difference.
import torch


def f(t):
    return torch.tanh(t) * t**2


x = torch.tensor(0.5, requires_grad=True)
h = 1e-5


def central_difference(f, x, h):
    return (f(x + h) - f(x - h)) / (2 * h)


f(x).backward()
from_autograd = x.grad
estimate = central_difference(f, x.detach(), h)
print(from_autograd, estimate)
# --8<-- [end:float32]

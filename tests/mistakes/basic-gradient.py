"""Plausible mistakes for Exercise 2.1 (basic-gradient), one per region.

Each region replaces the starter cell; the exercise's check cell must then print an
accurate "Not quite: ..." (or "Not done yet: ..." where that is the honest verdict).
"""
# ruff: noqa: E402

# --8<-- [start:backward-twice]
# backward() run twice: the gradients add up to 2 * 2x.
import torch

x = torch.tensor(5.0, requires_grad=True)
y = x**2
y.backward()
y = x**2
y.backward()
# --8<-- [end:backward-twice]

# --8<-- [start:derivative-as-function]
# The derivative 2x written as the function: y = 2x instead of y = x².
import torch

x = torch.tensor(5.0, requires_grad=True)
y = 2 * x
y.backward()
print(x.grad)
# --8<-- [end:derivative-as-function]

# --8<-- [start:no-backward]
# y is built, but backward() is never called: x.grad is still None.
import torch

x = torch.tensor(5.0, requires_grad=True)
y = x**2
print(x.grad)
# --8<-- [end:no-backward]

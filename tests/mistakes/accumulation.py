"""Plausible mistakes for Exercise 2.4 (accumulation), one per region.

Each region replaces the starter cell; the exercise's check cell must then print an
accurate "Not quite: ..." (or "Not done yet: ..." where that is the honest verdict).
"""
# ruff: noqa: E402

# --8<-- [start:reset-forgotten]
# The reset was forgotten.
import torch

x = torch.tensor(3.0, requires_grad=True)
y = x**2
y.backward()
after_first = x.grad.item()
y = x**2
y.backward()
after_second = x.grad.item()
after_reset = x.grad.item()
# --8<-- [end:reset-forgotten]

# --8<-- [start:stored-tensor]
# The tensor x.grad is stored instead of x.grad.item(): backward() and zero_() change it in place.
import torch

x = torch.tensor(3.0, requires_grad=True)
y = x**2
y.backward()
after_first = x.grad
y = x**2
y.backward()
after_second = x.grad
x.grad.zero_()
after_reset = x.grad
print(after_first, after_second, after_reset)
# --8<-- [end:stored-tensor]

# --8<-- [start:reset-to-none]
# The gradient is removed with x.grad = None instead of reset in place with zero_().
import torch

x = torch.tensor(3.0, requires_grad=True)
y = x**2
y.backward()
after_first = x.grad.item()
y = x**2
y.backward()
after_second = x.grad.item()
x.grad = None
after_reset = x.grad
print(after_first, after_second, after_reset)
# --8<-- [end:reset-to-none]

"""Plausible mistakes for Exercise 2.5 (non-scalar), one per region.

Each region replaces the starter cell; the exercise's check cell must then print an
accurate "Not quite: ..." (or "Not done yet: ..." where that is the honest verdict).
"""
# ruff: noqa: E402

# --8<-- [start:not-all-ones]
# The upstream gradient is not all ones.
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x**2
y.backward(torch.tensor([1.0, 1.0, 2.0]))
# --8<-- [end:not-all-ones]

# --8<-- [start:mean-instead]
# Reduced with mean() instead of passing ones: each gradient is divided by 3.
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x**2
y.mean().backward()
print(x.grad)
# --8<-- [end:mean-instead]

# --8<-- [start:backward-twice]
# backward(ones) run twice on a retained graph: the gradients add up to 4x.
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x**2
y.backward(torch.ones_like(y), retain_graph=True)
y.backward(torch.ones_like(y))
print(x.grad)
# --8<-- [end:backward-twice]

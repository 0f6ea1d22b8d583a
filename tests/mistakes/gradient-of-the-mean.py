"""Plausible mistakes for Exercise 2.7 (gradient-of-the-mean), one per region.

Each region replaces the starter cell; the exercise's check cell must then print an
accurate "Not quite: ..." (or "Not done yet: ..." where that is the honest verdict).
"""
# ruff: noqa: E402

# --8<-- [start:sum-instead]
# sum() instead of mean().
import torch

x = torch.tensor([2.0, 4.0, 6.0, 8.0], requires_grad=True)
y = (x**2).sum()
y.backward()
# --8<-- [end:sum-instead]

# --8<-- [start:square-of-the-mean]
# The square of the mean instead of the mean of the squares.
import torch

x = torch.tensor([2.0, 4.0, 6.0, 8.0], requires_grad=True)
y = x.mean() ** 2
y.backward()
print(y.item(), x.grad.tolist())
# --8<-- [end:square-of-the-mean]

# --8<-- [start:backward-twice]
# backward() run twice on a retained graph: every gradient doubled.
import torch

x = torch.tensor([2.0, 4.0, 6.0, 8.0], requires_grad=True)
y = (x**2).mean()
y.backward(retain_graph=True)
y.backward()
print(y.item(), x.grad.tolist())
# --8<-- [end:backward-twice]

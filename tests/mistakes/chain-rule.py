"""Plausible mistakes for Exercise 2.2 (chain-rule), one per region.

Each region replaces the starter cell; the exercise's check cell must then print an
accurate "Not quite: ..." (or "Not done yet: ..." where that is the honest verdict).
"""
# ruff: noqa: E402

# --8<-- [start:backward-from-y]
# backward() started from y instead of z: the outer derivative 2y is missing.
import torch

x = torch.tensor(2.0, requires_grad=True)
y = 3 * x + 4
z = y**2
y.backward()
# --8<-- [end:backward-from-y]

# --8<-- [start:doubled-instead-of-squared]
# z = 2y instead of y squared.
import torch

x = torch.tensor(2.0, requires_grad=True)
y = 3 * x + 4
z = y * 2
z.backward()
print(x.grad)
# --8<-- [end:doubled-instead-of-squared]

# --8<-- [start:backward-twice]
# backward() called twice on z (the graph kept with retain_graph=True): 60 + 60.
import torch

x = torch.tensor(2.0, requires_grad=True)
y = 3 * x + 4
z = y**2
z.backward(retain_graph=True)
z.backward()
print(x.grad)
# --8<-- [end:backward-twice]

"""Plausible mistakes for Exercise 2.3 (several-variables), one per region.

Each region replaces the starter cell; the exercise's check cell must then print an
accurate "Not quite: ..." (or "Not done yet: ..." where that is the honest verdict).
"""
# ruff: noqa: E402

# --8<-- [start:two-passes]
# Two passes through the same graph without clearing.
import torch

x = torch.tensor(4.0, requires_grad=True)
y = torch.tensor(5.0, requires_grad=True)
z = x * y + x
z.backward(retain_graph=True)
z.backward()
# --8<-- [end:two-passes]

# --8<-- [start:forgot-plus-x]
# The + x is left out: z = x * y.
import torch

x = torch.tensor(4.0, requires_grad=True)
y = torch.tensor(5.0, requires_grad=True)
z = x * y
z.backward()
print(x.grad, y.grad)
# --8<-- [end:forgot-plus-x]

# --8<-- [start:y-without-requires-grad]
# y is created without requires_grad=True, so backward() computes no gradient for it.
import torch

x = torch.tensor(4.0, requires_grad=True)
y = torch.tensor(5.0)
z = x * y + x
z.backward()
print(x.grad, y.grad)
# --8<-- [end:y-without-requires-grad]

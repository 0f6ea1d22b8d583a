"""Plausible mistakes for Exercise 2.6 (training-loop), one per region.

Each region replaces the starter cell; the exercise's check cell must then print an
accurate "Not quite: ..." (or "Not done yet: ..." where that is the honest verdict).
The out-of-place region raises an AttributeError in the learner's cell, as it does in a
notebook; the check cell runs after it.
"""
# ruff: noqa: E402

# --8<-- [start:never-cleared]
# The gradients are never cleared, so every step uses the sum of all old ones.
import torch

torch.manual_seed(0)
x = torch.linspace(-1.0, 1.0, 10)
targets = 2 * x + 0.05 * torch.randn(10)  # ten targets close to the line y = 2x

w = torch.tensor(0.0, requires_grad=True)
b = torch.tensor(0.0, requires_grad=True)
lr = 0.3
losses = []

for step in range(20):
    prediction = w * x + b
    loss = ((prediction - targets) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        w -= lr * w.grad
        b -= lr * b.grad
    losses.append(loss.item())
    print(f"step {step:2d}  loss {loss.item():.4f}")

print(f"w = {w.item():.3f}, b = {b.item():.3f}")
# --8<-- [end:never-cleared]

# --8<-- [start:learning-rate-too-small]
# A learning rate 30 times smaller: the loop is right, but 20 steps get nowhere near the line.
import torch

torch.manual_seed(0)
x = torch.linspace(-1.0, 1.0, 10)
targets = 2 * x + 0.05 * torch.randn(10)  # ten targets close to the line y = 2x

w = torch.tensor(0.0, requires_grad=True)
b = torch.tensor(0.0, requires_grad=True)
lr = 0.01
losses = []

for step in range(20):
    prediction = w * x + b
    loss = ((prediction - targets) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        w -= lr * w.grad
        b -= lr * b.grad
    w.grad.zero_()
    b.grad.zero_()
    losses.append(loss.item())
    print(f"step {step:2d}  loss {loss.item():.4f}")

print(f"w = {w.item():.3f}, b = {b.item():.3f}")
# --8<-- [end:learning-rate-too-small]

# --8<-- [start:out-of-place-update]
# w = w - lr * w.grad makes a new tensor without a .grad: w.grad.zero_() raises AttributeError.
import torch

torch.manual_seed(0)
x = torch.linspace(-1.0, 1.0, 10)
targets = 2 * x + 0.05 * torch.randn(10)  # ten targets close to the line y = 2x

w = torch.tensor(0.0, requires_grad=True)
b = torch.tensor(0.0, requires_grad=True)
lr = 0.3
losses = []

for step in range(20):
    prediction = w * x + b
    loss = ((prediction - targets) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        w = w - lr * w.grad
        b = b - lr * b.grad
    w.grad.zero_()
    b.grad.zero_()
    losses.append(loss.item())
    print(f"step {step:2d}  loss {loss.item():.4f}")

print(f"w = {w.item():.3f}, b = {b.item():.3f}")
# --8<-- [end:out-of-place-update]

# --8<-- [start:only-w-cleared]
# Only w's gradient is cleared: b's piles up from step to step.
import torch

torch.manual_seed(0)
x = torch.linspace(-1.0, 1.0, 10)
targets = 2 * x + 0.05 * torch.randn(10)  # ten targets close to the line y = 2x

w = torch.tensor(0.0, requires_grad=True)
b = torch.tensor(0.0, requires_grad=True)
lr = 0.3
losses = []

for step in range(20):
    prediction = w * x + b
    loss = ((prediction - targets) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        w -= lr * w.grad
        b -= lr * b.grad
    w.grad.zero_()
    losses.append(loss.item())
    print(f"step {step:2d}  loss {loss.item():.4f}")

print(f"w = {w.item():.3f}, b = {b.item():.3f}")
# --8<-- [end:only-w-cleared]

# --8<-- [start:sum-instead-of-mean]
# The loss is the sum of the squared errors, not their mean: ten times larger gradients.
import torch

torch.manual_seed(0)
x = torch.linspace(-1.0, 1.0, 10)
targets = 2 * x + 0.05 * torch.randn(10)  # ten targets close to the line y = 2x

w = torch.tensor(0.0, requires_grad=True)
b = torch.tensor(0.0, requires_grad=True)
lr = 0.3
losses = []

for step in range(20):
    prediction = w * x + b
    loss = ((prediction - targets) ** 2).sum()
    loss.backward()
    with torch.no_grad():
        w -= lr * w.grad
        b -= lr * b.grad
    w.grad.zero_()
    b.grad.zero_()
    losses.append(loss.item())
    print(f"step {step:2d}  loss {loss.item():.4f}")

print(f"w = {w.item():.3f}, b = {b.item():.3f}")
# --8<-- [end:sum-instead-of-mean]

# --8<-- [start:cleared-before-update]
# The gradients are cleared before the update, so every update uses zeros.
import torch

torch.manual_seed(0)
x = torch.linspace(-1.0, 1.0, 10)
targets = 2 * x + 0.05 * torch.randn(10)  # ten targets close to the line y = 2x

w = torch.tensor(0.0, requires_grad=True)
b = torch.tensor(0.0, requires_grad=True)
lr = 0.3
losses = []

for step in range(20):
    prediction = w * x + b
    loss = ((prediction - targets) ** 2).mean()
    loss.backward()
    w.grad.zero_()
    b.grad.zero_()
    with torch.no_grad():
        w -= lr * w.grad
        b -= lr * b.grad
    losses.append(loss.item())
    print(f"step {step:2d}  loss {loss.item():.4f}")

print(f"w = {w.item():.3f}, b = {b.item():.3f}")
# --8<-- [end:cleared-before-update]

"""Plausible mistakes for Exercise 2.9 (find-the-bug), one per region.

Each region replaces the starter cell; the exercise's check cell must then print an
accurate "Not quite: ..." (or "Not done yet: ..." where that is the honest verdict).
"""
# ruff: noqa: E402

# --8<-- [start:zero-grad-deleted]
# "Fixed" by deleting zero_grad(): the gradients now pile up.
import torch

torch.manual_seed(0)  # the same starting weights on every run
model = torch.nn.Linear(1, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
inputs = torch.tensor([[1.0], [2.0], [3.0]])
targets = torch.tensor([[2.0], [4.0], [6.0]])

losses = []
for epoch in range(10):
    prediction = model(inputs)
    loss = ((prediction - targets) ** 2).mean()
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
    print(f"epoch {epoch}: loss {loss.item():.4f}")
# --8<-- [end:zero-grad-deleted]

# --8<-- [start:zeros-instead-of-none]
# "Fixed" with zero_grad(set_to_none=False), still between backward() and step(): step() sees zeros.
import torch

torch.manual_seed(0)  # the same starting weights on every run
model = torch.nn.Linear(1, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
inputs = torch.tensor([[1.0], [2.0], [3.0]])
targets = torch.tensor([[2.0], [4.0], [6.0]])

losses = []
for epoch in range(10):
    prediction = model(inputs)
    loss = ((prediction - targets) ** 2).mean()
    loss.backward()
    optimizer.zero_grad(set_to_none=False)
    optimizer.step()
    losses.append(loss.item())
    print(f"epoch {epoch}: loss {loss.item():.4f}")
# --8<-- [end:zeros-instead-of-none]

# --8<-- [start:fixed-but-lr-changed]
# The order is fixed, but the learning rate was raised too (to 0.1), as if it were the bug.
import torch

torch.manual_seed(0)  # the same starting weights on every run
model = torch.nn.Linear(1, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
inputs = torch.tensor([[1.0], [2.0], [3.0]])
targets = torch.tensor([[2.0], [4.0], [6.0]])

losses = []
for epoch in range(10):
    optimizer.zero_grad()
    prediction = model(inputs)
    loss = ((prediction - targets) ** 2).mean()
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
    print(f"epoch {epoch}: loss {loss.item():.4f}")
# --8<-- [end:fixed-but-lr-changed]

# --8<-- [start:step-before-backward]
# zero_grad() moved to the top, but step() now runs before backward(): it always finds None.
import torch

torch.manual_seed(0)  # the same starting weights on every run
model = torch.nn.Linear(1, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
inputs = torch.tensor([[1.0], [2.0], [3.0]])
targets = torch.tensor([[2.0], [4.0], [6.0]])

losses = []
for epoch in range(10):
    optimizer.zero_grad()
    prediction = model(inputs)
    loss = ((prediction - targets) ** 2).mean()
    optimizer.step()
    loss.backward()
    losses.append(loss.item())
    print(f"epoch {epoch}: loss {loss.item():.4f}")
# --8<-- [end:step-before-backward]

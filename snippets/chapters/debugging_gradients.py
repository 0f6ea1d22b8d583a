"""Examples for the chapter "Debugging gradients: common mistakes".

Each region is included by docs/chapters/debugging-gradients.md. The file also runs
top to bottom on its own: `python snippets/chapters/debugging_gradients.py` (PyTorch's
warnings then go to the terminal). The calls that fail on purpose live in the page,
in `raises=` blocks.
"""

# --8<-- [start:inspect]
import torch
import torch.nn.functional as F
from torch import nn

x = torch.tensor(3.0, requires_grad=True)
y = x**2

print("x.grad before backward():", x.grad)
y.backward()
print("x.grad after backward(): ", x.grad)
# --8<-- [end:inspect]

# --8<-- [start:twice]
x = torch.tensor(2.0, requires_grad=True)
y = x**2
y.backward()  # uses the graph, then frees what it saved
print("after the first backward():", x.grad)
# --8<-- [end:twice]

# --8<-- [start:twice-nothing-saved]
x = torch.tensor(2.0, requires_grad=True)
y = x + 1  # dy/dx = 1 whatever x is: AddBackward0 saves no tensor
y.backward()
print("after one backward():", x.grad)
y.backward()  # the same graph again: no error
print("after two backward():", x.grad, "(dy/dx is 1)")
# --8<-- [end:twice-nothing-saved]

# --8<-- [start:twice-fix]
x.grad.zero_()
y = x**2  # a new forward pass records a new graph
y.backward()
print("after a new forward pass and backward():", x.grad)
# --8<-- [end:twice-fix]

# --8<-- [start:no-zero]
w = torch.tensor(1.0, requires_grad=True)

for batch in range(1, 4):
    loss = (w * 2 - 10) ** 2  # the same model and data every time
    loss.backward()
    print(f"batch {batch}: w.grad = {w.grad.item()}")
# --8<-- [end:no-zero]

# --8<-- [start:no-zero-fix]
w = torch.tensor(1.0, requires_grad=True)
optimizer = torch.optim.SGD([w], lr=0.01)

for batch in range(1, 4):
    optimizer.zero_grad()  # first thing in every iteration
    loss = (w * 2 - 10) ** 2
    loss.backward()
    print(f"batch {batch}: w.grad = {w.grad.item()}")
# --8<-- [end:no-zero-fix]


# --8<-- [start:no-zero-training]
def train(clear_gradients: bool, steps: int) -> list[float]:
    """Fit w*2 + b to 10 with SGD; return the loss of every step."""
    w = torch.tensor(1.0, requires_grad=True)
    b = torch.tensor(0.0, requires_grad=True)
    optimizer = torch.optim.SGD([w, b], lr=0.01)
    losses = []
    for _ in range(steps):
        if clear_gradients:
            optimizer.zero_grad()
        loss = (w * 2 + b - 10) ** 2
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


with_clearing = train(clear_gradients=True, steps=12)
without_clearing = train(clear_gradients=False, steps=12)
print("step  with zero_grad()  without")
for step, (good, bad) in enumerate(zip(with_clearing, without_clearing, strict=True), 1):
    print(f"{step:>4} {good:16.4f} {bad:8.4f}")
# --8<-- [end:no-zero-training]

# --8<-- [start:non-scalar]
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x**2  # three numbers, not one
print("y:", y)
# --8<-- [end:non-scalar]

# --8<-- [start:non-scalar-fix]
y.sum().backward()  # fix 1: reduce to one number first
print("with sum():", x.grad)

x.grad.zero_()
y = x**2
y.backward(torch.ones_like(y))  # fix 2: say how to weight each element
print("with ones_like(y):", x.grad)
# --8<-- [end:non-scalar-fix]

# --8<-- [start:too-early]
w = torch.tensor(3.0, requires_grad=True)
loss = (w * 2 - 10) ** 2
print("w.grad before backward():", w.grad)
# --8<-- [end:too-early]

# --8<-- [start:too-early-fix]
loss.backward()
print("w.grad after backward(): ", w.grad.item())
# --8<-- [end:too-early-fix]

# --8<-- [start:non-leaf]
x = torch.tensor(2.0, requires_grad=True)
y = x * 3  # made by a recorded operation: not a leaf
loss = y**2
loss.backward()

print("x.grad:", x.grad)
print("y.grad:", y.grad)
# --8<-- [end:non-leaf]

# --8<-- [start:non-leaf-fix]
x = torch.tensor(2.0, requires_grad=True)
y = x * 3
y.retain_grad()  # before backward(): ask autograd to keep dloss/dy
loss = y**2
loss.backward()

print("x.grad:", x.grad)
print("y.grad:", y.grad)
# --8<-- [end:non-leaf-fix]


# --8<-- [start:saved-counter]
class Saved:
    """Wraps each tensor autograd saves for backward, and counts how many are alive."""

    alive = 0

    def __init__(self, tensor: torch.Tensor) -> None:
        self.tensor = tensor
        Saved.alive += 1

    def __del__(self) -> None:  # runs when the graph lets go of the tensor
        Saved.alive -= 1


def unpack(saved: Saved) -> torch.Tensor:
    return saved.tensor


def saved_tensors_after_training(retain_graph: bool) -> list[int]:
    """Train for 5 steps, keeping every loss; count the saved tensors after each step."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(100, 100), nn.ReLU(), nn.Linear(100, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    losses, alive = [], []
    with torch.autograd.graph.saved_tensors_hooks(Saved, unpack):
        for _ in range(5):
            optimizer.zero_grad()
            inputs, targets = torch.randn(64, 100), torch.randn(64, 1)
            loss = F.mse_loss(model(inputs), targets)
            loss.backward(retain_graph=retain_graph)
            optimizer.step()
            losses.append(loss)  # the loss tensor keeps its graph reachable
            alive.append(Saved.alive)
    return alive


# --8<-- [end:saved-counter]

# --8<-- [start:retain-everywhere]
print("saved tensors alive, step by step")
print("without retain_graph:", saved_tensors_after_training(retain_graph=False))
print("with retain_graph:   ", saved_tensors_after_training(retain_graph=True))
# --8<-- [end:retain-everywhere]


# --8<-- [start:carried]
def running_total(fix: bool) -> None:
    """Three batches; each loss goes into a running total, as for logging."""
    torch.manual_seed(0)
    model = nn.Linear(3, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    total = 0.0
    for step in range(3):
        inputs, targets = torch.randn(8, 3), torch.randn(8, 1)
        optimizer.zero_grad()
        loss = F.mse_loss(model(inputs), targets)
        (own,) = torch.autograd.grad(loss, model.bias, retain_graph=True)  # this batch alone
        if fix:
            total += loss.item()  # a plain number: no graph is kept
            loss.backward()
        else:
            total = total + loss  # a tensor that holds every earlier loss's graph
            total.backward(retain_graph=True)  # silences the "second time" error
        used = model.bias.grad.item()
        print(f"step {step}: bias gradient used {used:+.4f}, this batch's own {own.item():+.4f}")
        optimizer.step()


def carried_state(fix: bool) -> None:
    """A recurrent cell whose hidden state h is carried from one step to the next."""
    torch.manual_seed(0)
    cell, head = nn.RNNCell(3, 4), nn.Linear(4, 1)
    optimizer = torch.optim.SGD([*cell.parameters(), *head.parameters()], lr=0.1)
    h = torch.zeros(1, 4)
    for step in range(4):
        x, target = torch.randn(1, 3), torch.randn(1, 1)
        if fix:
            h = h.detach()  # same values, cut off from the previous steps' graph
        optimizer.zero_grad()
        h = cell(x, h)
        loss = F.mse_loss(head(h), target)
        loss.backward(retain_graph=not fix)  # without the fix: "silences" the error
        optimizer.step()
        print(f"step {step}: loss {loss.item():.4f}")


# --8<-- [end:carried]

# --8<-- [start:carried-total]
running_total(fix=False)
# --8<-- [end:carried-total]

# --8<-- [start:carried-fixed]
running_total(fix=True)
carried_state(fix=True)
# --8<-- [end:carried-fixed]

# --8<-- [start:retain-hides-bug]
x = torch.tensor(2.0, requires_grad=True)
y = x**2
y.backward(retain_graph=True)
y.backward(retain_graph=True)  # a mistake, but nothing stops it
print("x.grad:", x.grad, "(dy/dx is 4)")
# --8<-- [end:retain-hides-bug]

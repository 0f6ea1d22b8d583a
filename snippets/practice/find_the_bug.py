"""Exercise 2.9: find the bug in a training loop.

Run it: python snippets/practice/find_the_bug.py
"""
# Each region is a self-contained cell (page, notebook), so imports repeat.
# ruff: noqa: E402

# --8<-- [start:starter]
import torch

torch.manual_seed(0)  # the same starting weights on every run
model = torch.nn.Linear(1, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
inputs = torch.tensor([[1.0], [2.0], [3.0]])
targets = torch.tensor([[2.0], [4.0], [6.0]])

# This loop runs without an error, but something is wrong. Find it and fix it.
losses = []
for epoch in range(10):
    prediction = model(inputs)
    loss = ((prediction - targets) ** 2).mean()
    loss.backward()
    optimizer.zero_grad()
    optimizer.step()
    losses.append(loss.item())
    print(f"epoch {epoch}: loss {loss.item():.4f}")
# --8<-- [end:starter]

# --8<-- [start:solution]
import torch

torch.manual_seed(0)  # the same starting weights on every run
model = torch.nn.Linear(1, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
inputs = torch.tensor([[1.0], [2.0], [3.0]])
targets = torch.tensor([[2.0], [4.0], [6.0]])

losses = []
for epoch in range(10):
    optimizer.zero_grad()  # moved: clear the old gradients before backward(), not after
    prediction = model(inputs)
    loss = ((prediction - targets) ** 2).mean()
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
    print(f"epoch {epoch}: loss {loss.item():.4f}")
# --8<-- [end:solution]

# --8<-- [start:check]
# Checks your losses against a reference run: the same starting weights, trained by
# gradient descent with the mean squared error's gradient written out by hand
# (dL/dw = 2/N * sum(e * x), dL/db = 2/N * sum(e), with e = w * x + b - target).
import torch


def reference_losses(epochs: int, lr: float = 0.05, cleared: bool = True) -> list[float]:
    torch.manual_seed(0)
    start = torch.nn.Linear(1, 1)  # the same starting weights as the loop above
    w, b = start.weight.item(), start.bias.item()
    x = torch.tensor([1.0, 2.0, 3.0])
    target = torch.tensor([2.0, 4.0, 6.0])
    losses = []
    grad_w = grad_b = 0.0  # what .grad holds; without clearing it keeps every old gradient
    for _ in range(epochs):
        error = w * x + b - target
        losses.append((error**2).mean().item())
        if cleared:
            grad_w = grad_b = 0.0
        grad_w += (2 * error * x).mean().item()
        grad_b += (2 * error).mean().item()
        w, b = w - lr * grad_w, b - lr * grad_b
    return losses


def same(mine: list[float], reference: list[float]) -> bool:
    return torch.allclose(torch.tensor(mine), torch.tensor(reference), rtol=1e-4, atol=1e-6)


def check() -> str:
    losses = globals().get("losses")
    if not losses:
        return "Not done yet: losses is empty; run the loop above."
    if len(losses) > 1 and max(losses) - min(losses) < 1e-12:
        return (
            f"Not done yet: the loss is {losses[0]:.4f} at every epoch, so the model never "
            "changes. The bug is still there: look at what step() finds in .grad."
        )
    expected = reference_losses(len(losses))
    if same(losses, expected):
        return (
            f"Correct: the loss falls from {losses[0]:.4f} to {losses[-1]:.4f}, exactly as "
            "plain gradient descent does: each step now uses its own epoch's gradient."
        )
    got = ", ".join(f"{value:.4f}" for value in losses[:4])
    want = ", ".join(f"{value:.4f}" for value in expected[:4])
    optimizer = globals().get("optimizer")
    groups = getattr(optimizer, "param_groups", None) or [{}]
    lr = groups[0].get("lr", 0.05)
    if lr != 0.05 and same(losses, reference_losses(len(losses), lr)):
        return (
            f"Not quite: expected the losses {want}, ..., got {got}, ... Your loop is fixed, "
            f"but the learning rate is now {lr:g} instead of 0.05. The bug was not the "
            "learning rate: put it back to 0.05."
        )
    if same(losses, reference_losses(len(losses), lr, cleared=False)):
        return (
            f"Not quite: expected the losses {want}, ..., got {got}, ... They match a loop "
            "that never clears the gradients: every step() uses the sum of all the old "
            "gradients. Keep optimizer.zero_grad(), once per epoch, before backward()."
        )
    return (
        f"Not quite: expected the losses {want}, ..., got {got}, ... Each epoch should "
        "clear the gradients, then compute the loss, call backward(), then step()."
    )


try:
    print(check())
except Exception as error:  # the check never crashes, whatever the cell above did
    print(f"Not done yet: the check could not read your answer ({type(error).__name__}: {error}).")
# --8<-- [end:check]

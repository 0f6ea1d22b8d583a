"""Exercise 2.6: a mini training loop. Run it: python snippets/practice/training_loop.py"""
# Each region is a self-contained cell (page, notebook), so imports repeat.
# ruff: noqa: E402, B007

# --8<-- [start:starter]
import torch

torch.manual_seed(0)
x = torch.linspace(-1.0, 1.0, 10)
targets = 2 * x + 0.05 * torch.randn(10)  # ten targets close to the line y = 2x

w = torch.tensor(0.0, requires_grad=True)
b = torch.tensor(0.0, requires_grad=True)
lr = 0.3
losses = []

for step in range(20):
    ...  # 1. predict: prediction = w * x + b
    ...  # 2. loss: the mean of (prediction - targets) ** 2
    ...  # 3. call backward() on the loss
    ...  # 4. inside torch.no_grad(), move w and b against their gradients
    ...  # 5. clear both gradients
    ...  # 6. losses.append(loss.item()) and print the step and the loss

print(f"w = {w.item():.3f}, b = {b.item():.3f}")
# --8<-- [end:starter]

# --8<-- [start:solution]
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
    with torch.no_grad():  # the update itself must not be recorded in a graph
        w -= lr * w.grad
        b -= lr * b.grad
    w.grad.zero_()
    b.grad.zero_()
    losses.append(loss.item())
    print(f"step {step:2d}  loss {loss.item():.4f}")

print(f"w = {w.item():.3f}, b = {b.item():.3f}")
# --8<-- [end:solution]

# --8<-- [start:check]
# Checks your model against the best straight line through your own data, which
# torch computes directly by least squares (torch.linalg.lstsq).
# t.detach() below means t's values without its graph, so the check records nothing.
import torch


def check() -> str:
    x, targets, w, b = (globals().get(name) for name in ("x", "targets", "w", "b"))
    losses = globals().get("losses")
    if not all(isinstance(t, torch.Tensor) for t in (x, targets, w, b)):
        return "Not done yet: x, targets, w and b are not defined; run the cell above."
    if not losses:
        return "Not done yet: losses is empty. Fill in the loop and append loss.item() each step."
    columns = torch.stack([x.detach(), torch.ones_like(x)], dim=1)
    best = torch.linalg.lstsq(columns, targets.detach().unsqueeze(1)).solution.squeeze(1)
    best_w, best_b = best.tolist()
    got_w, got_b = w.item(), b.item()
    if abs(got_w - best_w) < 0.05 and abs(got_b - best_b) < 0.05 and losses[-1] < losses[0]:
        return (
            f"Correct: w = {got_w:.3f} and b = {got_b:.3f}, close to the best line "
            f"w = {best_w:.3f}, b = {best_b:.3f}. The loss fell from {losses[0]:.4f} "
            f"to {losses[-1]:.4f}, and the model learned y ≈ 2x."
        )
    return (
        f"Not quite: expected w ≈ {best_w:.3f} and b ≈ {best_b:.3f} (the least-squares line), "
        f"got w = {got_w:.3f} and b = {got_b:.3f}; the loss went from {losses[0]:.4f} to "
        f"{losses[-1]:.4f}. Did you clear both gradients after every update?"
    )


try:
    print(check())
except Exception as error:  # the check never crashes, whatever the cell above did
    print(f"Not done yet: the check could not read your answer ({type(error).__name__}: {error}).")
# --8<-- [end:check]

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
# Checks your loop in two ways. Step by step: your losses against plain gradient descent
# from w = 0, b = 0 with your own lr, its gradients written out by hand
# (dL/dw = 2/n * sum(e * x), dL/db = 2/n * sum(e), with e = w * x + b - target).
# And at the end: your w and b against the best straight line through your own data,
# which torch computes directly by least squares (torch.linalg.lstsq).
import torch


def gradient_descent(x, targets, lr, steps, clear_w=True, clear_b=True):
    """The losses and the final w, b of plain gradient descent; optionally uncleared."""
    w, b = torch.tensor(0.0), torch.tensor(0.0)
    grad_w, grad_b = torch.tensor(0.0), torch.tensor(0.0)
    losses = []
    for _ in range(steps):
        error = w * x + b - targets
        losses.append((error**2).mean().item())
        # .grad adds up: a gradient that is never cleared keeps every old one.
        grad_w = (grad_w if not clear_w else 0) + (2 * error * x).mean()
        grad_b = (grad_b if not clear_b else 0) + (2 * error).mean()
        w, b = w - lr * grad_w, b - lr * grad_b
    return losses, w.item(), b.item()


def same_run(mine: list[float], reference: list[float]) -> bool:
    return len(mine) == len(reference) and torch.allclose(
        torch.tensor(mine), torch.tensor(reference), rtol=1e-4, atol=1e-6
    )


def check() -> str:
    x, targets, w, b = (globals().get(name) for name in ("x", "targets", "w", "b"))
    losses, lr = globals().get("losses"), globals().get("lr")
    if not all(isinstance(t, torch.Tensor) for t in (x, targets, w, b)):
        return "Not done yet: x, targets, w and b are not defined; run the cell above."
    for name, t in (("w", w), ("b", b)):
        if t.requires_grad and t.is_leaf:
            continue
        made = (
            "a tensor that does not require grad (made under torch.no_grad())"
            if not t.requires_grad
            else "a non-leaf (made by the subtraction, outside torch.no_grad())"
        )
        return (
            f"Not quite: expected {name} to stay the leaf tensor you created, changed in "
            f"place, got {made}. {name} = {name} - lr * {name}.grad makes a new tensor, "
            f"whose .grad is None, so {name}.grad.zero_() fails. Write "
            f"{name} -= lr * {name}.grad inside torch.no_grad()."
        )
    if not losses:
        return "Not done yet: losses is empty. Fill in the loop and append loss.item() each step."
    x0, t0 = x.detach(), targets.detach()
    columns = torch.stack([x0, torch.ones_like(x0)], dim=1)
    best = torch.linalg.lstsq(columns, t0.unsqueeze(1)).solution.squeeze(1)
    best_w, best_b = best.tolist()
    got_w, got_b = w.item(), b.item()
    near_best = abs(got_w - best_w) < 0.05 and abs(got_b - best_b) < 0.05
    steps = len(losses)
    rate = lr if isinstance(lr, int | float) else 0.3
    reference, _, _ = gradient_descent(x0, t0, rate, steps)
    if same_run(losses, reference) and near_best and losses[-1] < losses[0]:
        return (
            f"Correct: w = {got_w:.3f} and b = {got_b:.3f}, close to the best line "
            f"w = {best_w:.3f}, b = {best_b:.3f}. The loss fell from {losses[0]:.4f} "
            f"to {losses[-1]:.4f}, and the model learned y ≈ 2x."
        )
    summary = (
        f"expected w ≈ {best_w:.3f} and b ≈ {best_b:.3f} (the least-squares line), got "
        f"w = {got_w:.3f} and b = {got_b:.3f}; the loss went from {losses[0]:.4f} to "
        f"{losses[-1]:.4f}"
    )
    if same_run(losses, reference):  # the loop is right; lr and steps are not enough
        direction = "grew" if losses[-1] > losses[0] else "fell too slowly"
        return (
            f"Not quite: {summary}. Your loop is right (it matches gradient descent with "
            f"lr = {rate:g}, step by step), but with lr = {rate:g} and {steps} steps the loss "
            f"{direction}. Go back to lr = 0.3 and 20 steps."
        )
    mistakes = {
        "clears neither gradient": (False, False),
        "clears w.grad but not b.grad": (True, False),
        "clears b.grad but not w.grad": (False, True),
    }
    for name, (clear_w, clear_b) in mistakes.items():
        if same_run(losses, gradient_descent(x0, t0, rate, steps, clear_w, clear_b)[0]):
            return (
                f"Not quite: {summary}. Your losses match a loop that {name}: the next "
                "backward() adds to the old gradient. Call w.grad.zero_() and "
                "b.grad.zero_() after every update."
            )
    if abs(losses[0] - len(x0) * reference[0]) <= 1e-4 * len(x0) * reference[0]:
        return (
            f"Not quite: {summary}. Your first loss, {losses[0]:.4f}, is {len(x0)} times the "
            f"mean squared error {reference[0]:.4f}: it is the sum of the squared errors. "
            f"Its gradients are {len(x0)} times larger too, too large for lr = {rate:g}. "
            "Use ((prediction - targets) ** 2).mean()."
        )
    if steps > 1 and got_w == 0.0 and got_b == 0.0 and max(losses) == min(losses):
        return (
            f"Not quite: {summary}. w and b never moved, so every update used a gradient "
            "of zero: the gradients were cleared before the update used them. Update w "
            "and b first, then call w.grad.zero_() and b.grad.zero_()."
        )
    want = ", ".join(f"{value:.4f}" for value in reference[:3])
    got = ", ".join(f"{value:.4f}" for value in losses[:3])
    return (
        f"Not quite: {summary}. Plain gradient descent with lr = {rate:g} gives the losses "
        f"{want}, ..., and yours are {got}, ... Check the order in each step: predict, "
        "loss, backward(), the update under torch.no_grad(), then clear both gradients."
    )


try:
    print(check())
except Exception as error:  # the check never crashes, whatever the cell above did
    print(f"Not done yet: the check could not read your answer ({type(error).__name__}: {error}).")
# --8<-- [end:check]

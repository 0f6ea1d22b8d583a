"""Exercise D.2: a second derivative. Run it: python snippets/practice/second_derivative.py"""
# Each region is a self-contained cell (page, notebook), so imports repeat.
# ruff: noqa: E402

# --8<-- [start:starter]
import torch

x = torch.tensor(1.0, requires_grad=True)
y = x * torch.sin(x)

first = ...  # dy/dx, with torch.autograd.grad, keeping the graph of the gradient
second = ...  # d2y/dx2: differentiate first
by_hand = ...  # your formula for d2y/dx2, computed from x with torch.sin and torch.cos
# --8<-- [end:starter]

# --8<-- [start:solution]
import torch

x = torch.tensor(1.0, requires_grad=True)
y = x * torch.sin(x)

first = torch.autograd.grad(y, x, create_graph=True)[0]  # sin x + x cos x, with a graph
second = torch.autograd.grad(first, x)[0]
by_hand = 2 * torch.cos(x) - x * torch.sin(x)
print("first: ", first)
print("second:", second)
print("by hand:", by_hand)
# --8<-- [end:solution]

# --8<-- [start:check]
# Checks first, second and by_hand. The right derivatives come from PyTorch: a fresh copy
# of your x, differentiated twice with create_graph=True.
import torch


def _number(t):
    """A tensor or a number as a float; None for anything else (such as ...)."""
    if isinstance(t, torch.Tensor) and t.numel() == 1:
        return t.item()
    if isinstance(t, int | float) and not isinstance(t, bool):
        return float(t)
    return None


def _show(t):
    """How a learner's value reads in a message."""
    if t is Ellipsis:
        return "... (nothing yet)"
    number = _number(t)
    return f"{number:.4f}" if number is not None else repr(t)


def _near(a, b):
    return a is not None and abs(a - b) <= 1e-5 + 1e-5 * abs(b)


def check() -> str:
    x, first, second, by_hand = (globals().get(n) for n in ("x", "first", "second", "by_hand"))
    if not isinstance(x, torch.Tensor):
        return "Not done yet: run the starter cell first; it defines x and y."
    x0 = x.detach().clone().requires_grad_()
    d1 = torch.autograd.grad(x0 * torch.sin(x0), x0, create_graph=True)[0]
    d2 = torch.autograd.grad(d1, x0)[0].item()
    d1 = d1.item()
    at = f"at x = {x0.item():g}"
    if first is None or first is Ellipsis:
        return "Not done yet: set first = torch.autograd.grad(y, x, create_graph=True)[0]."
    if isinstance(first, tuple):
        return (
            f"Not quite: expected first = dy/dx = {d1:.4f}, got a tuple: torch.autograd.grad "
            "returns one gradient per input, so take its element [0]."
        )
    f1, f2 = _number(first), _number(second)
    if _near(f1, d1 + d2) or _near(f2, d1 + d2):
        return (
            f"Not quite: expected second = {d2:.4f}, got dy/dx + d2y/dx2 = {d1 + d2:.4f}: the "
            "second backward() added its result into x.grad, which still held the first "
            "derivative (and first is that same x.grad tensor). Use torch.autograd.grad."
        )
    if not _near(f1, d1):
        expected = f"dy/dx = sin x + x cos x = {d1:.4f} {at}"
        return f"Not quite: expected first = {expected}, got {_show(first)}."
    if getattr(first, "grad_fn", None) is None:
        return (
            f"Not quite: expected second = {d2:.4f}, got {_show(second)}: first has no grad_fn, so "
            "autograd cannot differentiate it (that is the error 'element 0 of tensors does "
            "not require grad'). Pass create_graph=True when you compute first."
        )
    if second is Ellipsis:
        return "Not done yet: first is right; now set second = torch.autograd.grad(first, x)[0]."
    if isinstance(second, tuple):
        return (
            f"Not quite: expected second = {d2:.4f}, got a tuple: torch.autograd.grad returns "
            "one gradient per input, so take its element [0]."
        )
    if not _near(f2, d2):
        if _near(f2, d1):
            return (
                f"Not quite: expected second = {d2:.4f}, got {f2:.4f}, the first derivative "
                "again: differentiate first, not y."
            )
        return f"Not quite: expected second = d2y/dx2 = {d2:.4f} {at}, got {_show(second)}."
    if by_hand is None or by_hand is Ellipsis:
        return "Not done yet: second is right; now write your formula for d2y/dx2 as by_hand."
    h = _number(by_hand)
    if h is None:
        return f"Not quite: expected by_hand to be a number or a tensor, got {_show(by_hand)}."
    xv = x0.item()
    sin, cos = torch.sin(x0).item(), torch.cos(x0).item()
    if _near(h, d2):
        return f"Correct: d2y/dx2 = 2 cos x - x sin x = {d2:.4f} {at}, by autograd and by hand."
    if abs(h - d2) < 1e-3:
        return (
            f"Not quite: expected by_hand = {d2:.6f}, got {h:.6f}: close, but rounded. "
            "Compute it from x with torch.sin and torch.cos instead of typing a number."
        )
    if _near(h, d1):
        return (
            f"Not quite: expected by_hand = {d2:.4f}, got {h:.4f}: that is the first "
            "derivative, sin x + x cos x. Differentiate it once more."
        )
    if _near(h, cos - xv * sin):
        return (
            f"Not quite: expected by_hand = {d2:.4f}, got {h:.4f} = cos x - x sin x. The "
            "derivative of sin x + x cos x has two cos x terms: one from sin x, and one from "
            "x cos x by the product rule (cos x - x sin x)."
        )
    if _near(h, 2 * cos + xv * sin):
        return (
            f"Not quite: expected by_hand = {d2:.4f}, got {h:.4f} = 2 cos x + x sin x. "
            "Check the sign: the derivative of cos x is -sin x."
        )
    return f"Not quite: expected by_hand = 2 cos x - x sin x = {d2:.4f} {at}, got {h:.4f}."


try:
    print(check())
except Exception as error:  # the check never crashes, whatever the cell above did
    print(f"Not done yet: the check could not read your answer ({type(error).__name__}: {error}).")
# --8<-- [end:check]

"""Exercise 1.3: make the weight a leaf.

Run it: python snippets/practice/make_it_a_leaf.py
"""
# Each region is a self-contained cell (page, notebook), so imports repeat.
# ruff: noqa: E402

# --8<-- [start:starter]
import torch

torch.manual_seed(0)
x = torch.tensor([1.0, 2.0, 3.0])

# The buggy line was:
#     w = torch.randn(3, requires_grad=True) * 0.01
# Write a fixed line below: the same small random values, but a leaf that requires grad.
w = None  # replace None with your fixed line

if w is not None:
    loss = (w * x).sum()
    if loss.requires_grad:  # backward() needs a loss that requires grad
        loss.backward()
    print("w.is_leaf:", w.is_leaf, "| w.grad:", w.grad)
# --8<-- [end:starter]

# --8<-- [start:solution]
import torch

torch.manual_seed(0)
x = torch.tensor([1.0, 2.0, 3.0])

w = (torch.randn(3) * 0.01).requires_grad_()  # scale first, then ask for grad

if w is not None:
    loss = (w * x).sum()
    if loss.requires_grad:  # backward() needs a loss that requires grad
        loss.backward()
    print("w.is_leaf:", w.is_leaf, "| w.grad:", w.grad)
# --8<-- [end:solution]

# --8<-- [start:check]
# Checks that w is a leaf that requires grad, holds the values of the buggy line
# (torch.randn(3) * 0.01 after torch.manual_seed(0), recomputed here), and that
# backward() stored the gradient of sum(w * x), which is x itself.
import torch


def check() -> str:
    w, x = globals().get("w"), globals().get("x")
    if w is None:
        return "Not done yet: replace None with a fixed line that makes w."
    if not isinstance(w, torch.Tensor):
        return f"Not done yet: w should be a tensor, got {type(w).__name__}."
    generator = torch.Generator().manual_seed(0)
    expected = torch.randn(3, generator=generator) * 0.01  # what the buggy line held
    values = w.detach()  # w's numbers, without its graph

    def rounded(t):
        return [round(v, 4) for v in t.tolist()]

    if values.shape != expected.shape:
        return f"Not quite: expected w of shape (3,), got shape {tuple(values.shape)}."
    if not w.is_leaf:
        made_by = w.grad_fn.name() if w.grad_fn is not None else None
        if w.retains_grad:
            return (
                f"Not quite: expected a leaf, got a tensor made by {made_by}. "
                "retain_grad() keeps its gradient, but w is still not a leaf, and an "
                "optimizer would refuse it. Do the scaling before you ask for gradients."
            )
        return (
            f"Not quite: expected a leaf, got a tensor made by {made_by} (is_leaf is "
            "False). The multiplication ran on a tensor that already required grad, so "
            "autograd recorded it, and requires_grad_() on the result would change "
            "nothing. Scale first, while nothing requires grad, then call requires_grad_()."
        )
    if not w.requires_grad:
        return (
            "Not quite: expected requires_grad=True, got False. w is a leaf, but nothing "
            "asked autograd to track it, so backward() has no gradient to store in it. "
            "Call requires_grad_() on the scaled tensor."
        )
    if not torch.allclose(values, expected):
        if torch.allclose(values, expected / 0.01):
            return (
                f"Not quite: expected values {rounded(expected)}, got {rounded(values)}: "
                "the scaling by 0.01 is missing."
            )
        return (
            f"Not quite: expected values {rounded(expected)} (torch.randn(3) * 0.01 right "
            f"after torch.manual_seed(0)), got {rounded(values)}. Keep the seed line, and "
            "draw with torch.randn(3) before anything else."
        )
    if w.grad is None:
        return "Not done yet: w.grad is None. Run the whole cell, so that backward() runs."
    if not isinstance(x, torch.Tensor):
        return "Not done yet: keep the line that makes x in the cell above."
    if w.grad.shape != x.shape or not torch.allclose(w.grad, x):
        return (
            f"Not quite: expected w.grad = x = {x.tolist()} (the gradient of sum(w * x)), "
            f"got {w.grad.tolist()}. Did backward() run more than once? Run the cell from "
            "the top."
        )
    return (
        f"Correct: w is a leaf that requires grad, holds {rounded(values)}, "
        f"and w.grad = {w.grad.tolist()}, which is x."
    )


try:
    print(check())
except Exception as error:  # the check never crashes, whatever the cell above did
    print(f"Not done yet: the check could not read your answer ({type(error).__name__}: {error}).")
# --8<-- [end:check]

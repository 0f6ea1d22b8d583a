"""Plausible wrong answers to Exercise 1.3 (make the weight a leaf).

Each region replaces the starter cell of snippets/practice/make_it_a_leaf.py; the check
must answer "Not quite" and say why w is still wrong.
"""
# ruff: noqa: E402

# --8<-- [start:buggy-line-kept]
# Mistake: keeps the buggy line: the product of a tracked tensor is not a leaf.
import torch

torch.manual_seed(0)
x = torch.tensor([1.0, 2.0, 3.0])
w = torch.randn(3, requires_grad=True) * 0.01

if w is not None:
    loss = (w * x).sum()
    if loss.requires_grad:
        loss.backward()
# --8<-- [end:buggy-line-kept]

# --8<-- [start:requires-grad-at-the-end]
# Mistake: adds requires_grad_() at the end of the buggy line; the product stays a non-leaf.
import torch

torch.manual_seed(0)
x = torch.tensor([1.0, 2.0, 3.0])
w = (torch.randn(3, requires_grad=True) * 0.01).requires_grad_()

if w is not None:
    loss = (w * x).sum()
    if loss.requires_grad:
        loss.backward()
# --8<-- [end:requires-grad-at-the-end]

# --8<-- [start:retain-grad]
# Mistake: follows the warning's advice and calls retain_grad(): w.grad is filled, w is no leaf.
import torch

torch.manual_seed(0)
x = torch.tensor([1.0, 2.0, 3.0])
w = torch.randn(3, requires_grad=True) * 0.01
w.retain_grad()

if w is not None:
    loss = (w * x).sum()
    if loss.requires_grad:
        loss.backward()
# --8<-- [end:retain-grad]

# --8<-- [start:no-requires-grad]
# Mistake: scales first but forgets to switch tracking on.
import torch

torch.manual_seed(0)
x = torch.tensor([1.0, 2.0, 3.0])
w = torch.randn(3) * 0.01

if w is not None:
    loss = (w * x).sum()
    if loss.requires_grad:
        loss.backward()
# --8<-- [end:no-requires-grad]

# --8<-- [start:scale-dropped]
# Mistake: "fixes" the leaf by dropping the scaling, so the weights are 100 times too large.
import torch

torch.manual_seed(0)
x = torch.tensor([1.0, 2.0, 3.0])
w = torch.randn(3, requires_grad=True)

if w is not None:
    loss = (w * x).sum()
    if loss.requires_grad:
        loss.backward()
# --8<-- [end:scale-dropped]

# --8<-- [start:uniform-instead-of-normal]
# Mistake: draws with torch.rand (uniform) instead of torch.randn (normal).
import torch

torch.manual_seed(0)
x = torch.tensor([1.0, 2.0, 3.0])
w = (torch.rand(3) * 0.01).requires_grad_()

if w is not None:
    loss = (w * x).sum()
    if loss.requires_grad:
        loss.backward()
# --8<-- [end:uniform-instead-of-normal]

# --8<-- [start:backward-twice]
# Mistake: runs backward() twice (for example, the cell's last lines run again by hand).
import torch

torch.manual_seed(0)
x = torch.tensor([1.0, 2.0, 3.0])
w = (torch.randn(3) * 0.01).requires_grad_()

if w is not None:
    loss = (w * x).sum()
    if loss.requires_grad:
        loss.backward()
    loss = (w * x).sum()
    loss.backward()
# --8<-- [end:backward-twice]

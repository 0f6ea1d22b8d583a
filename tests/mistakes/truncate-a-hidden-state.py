"""Plausible wrong answers to Exercise 3.1 (snippets/practice/truncate_a_hidden_state.py).

Each region replaces the starter cell; the check cell must then say "Not quite" and
name the mistake.
"""
# ruff: noqa: E402

# --8<-- [start:retain-graph]
# Silences the error with retain_graph=True instead of cutting h: full backpropagation.
import torch

torch.manual_seed(0)
W = (0.5 * torch.randn(4, 4)).requires_grad_()
U = (0.5 * torch.randn(3, 4)).requires_grad_()
xs = torch.randn(12, 1, 3)
k = 4


def cell(x_t, h):
    return torch.tanh(x_t @ U + h @ W)


h = torch.zeros(1, 4)
for start in range(0, len(xs), k):
    for t in range(start, start + k):
        h = cell(xs[t], h)
    loss = (h**2).sum()
    loss.backward(retain_graph=True)
# --8<-- [end:retain-graph]

# --8<-- [start:cut-every-step]
# Cuts h at every step instead of once per chunk.
import torch

torch.manual_seed(0)
W = (0.5 * torch.randn(4, 4)).requires_grad_()
U = (0.5 * torch.randn(3, 4)).requires_grad_()
xs = torch.randn(12, 1, 3)
k = 4


def cell(x_t, h):
    return torch.tanh(x_t @ U + h @ W)


h = torch.zeros(1, 4)
for start in range(0, len(xs), k):
    for t in range(start, start + k):
        h = cell(xs[t], h.detach())
    loss = (h**2).sum()
    loss.backward()
# --8<-- [end:cut-every-step]

# --8<-- [start:reset-to-zeros]
# "Cuts" by starting every chunk from zeros: the hidden state's value is lost.
import torch

torch.manual_seed(0)
W = (0.5 * torch.randn(4, 4)).requires_grad_()
U = (0.5 * torch.randn(3, 4)).requires_grad_()
xs = torch.randn(12, 1, 3)
k = 4


def cell(x_t, h):
    return torch.tanh(x_t @ U + h @ W)


for start in range(0, len(xs), k):
    h = torch.zeros(1, 4)
    for t in range(start, start + k):
        h = cell(xs[t], h)
    loss = (h**2).sum()
    loss.backward()
# --8<-- [end:reset-to-zeros]

# --8<-- [start:cleared-between-chunks]
# Clears the gradients before every chunk's backward(): only the last chunk's is left.
import torch

torch.manual_seed(0)
W = (0.5 * torch.randn(4, 4)).requires_grad_()
U = (0.5 * torch.randn(3, 4)).requires_grad_()
xs = torch.randn(12, 1, 3)
k = 4


def cell(x_t, h):
    return torch.tanh(x_t @ U + h @ W)


h = torch.zeros(1, 4)
for start in range(0, len(xs), k):
    h = h.detach()
    for t in range(start, start + k):
        h = cell(xs[t], h)
    loss = (h**2).sum()
    W.grad = None
    U.grad = None
    loss.backward()
# --8<-- [end:cleared-between-chunks]

# --8<-- [start:wrong-loss]
# Uses the mean instead of the sum of h ** 2 as the chunk loss.
import torch

torch.manual_seed(0)
W = (0.5 * torch.randn(4, 4)).requires_grad_()
U = (0.5 * torch.randn(3, 4)).requires_grad_()
xs = torch.randn(12, 1, 3)
k = 4


def cell(x_t, h):
    return torch.tanh(x_t @ U + h @ W)


h = torch.zeros(1, 4)
for start in range(0, len(xs), k):
    h = h.detach()
    for t in range(start, start + k):
        h = cell(xs[t], h)
    loss = (h**2).mean()
    loss.backward()
# --8<-- [end:wrong-loss]

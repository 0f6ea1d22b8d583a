"""Plausible mistakes for Exercise 2.12 (network-by-hand), one per region.

Each region replaces the starter cell; the exercise's check cell must then print an
accurate "Not quite: ..." (or "Not done yet: ..." where that is the honest verdict).
"""
# ruff: noqa: E402

# --8<-- [start:relu-mask-forgotten]
# The ReLU mask is forgotten: the gradient flows through units that were off.
import torch
import torch.nn.functional as F

torch.manual_seed(0)
X = torch.randn(4, 3)  # 4 examples, 3 features
targets = torch.tensor([2, 0, 1, 0])  # 3 classes
W1 = torch.randn(3, 5, requires_grad=True)
b1 = torch.randn(5, requires_grad=True)
W2 = torch.randn(5, 3, requires_grad=True)
b2 = torch.randn(3, requires_grad=True)

z1 = X @ W1 + b1
h = torch.relu(z1)
logits = h @ W2 + b2
loss = F.cross_entropy(logits, targets)
loss.backward()

with torch.no_grad():
    dlogits = (torch.softmax(logits, dim=1) - F.one_hot(targets, 3)) / 4
    dh = dlogits @ W2.T
    dz1 = dh
    dW1 = X.T @ dz1  # (3, 4) @ (4, 5) -> (3, 5), the shape of W1
    db1 = dz1.sum(dim=0)  # b1 was added to all 4 rows
# --8<-- [end:relu-mask-forgotten]

# --8<-- [start:weight-gradient-transposed]
# dW1 written as dz1.T @ X: the transposed shape, (5, 3) instead of (3, 5).
import torch
import torch.nn.functional as F

torch.manual_seed(0)
X = torch.randn(4, 3)  # 4 examples, 3 features
targets = torch.tensor([2, 0, 1, 0])  # 3 classes
W1 = torch.randn(3, 5, requires_grad=True)
b1 = torch.randn(5, requires_grad=True)
W2 = torch.randn(5, 3, requires_grad=True)
b2 = torch.randn(3, requires_grad=True)

z1 = X @ W1 + b1
h = torch.relu(z1)
logits = h @ W2 + b2
loss = F.cross_entropy(logits, targets)
loss.backward()

with torch.no_grad():
    dlogits = (torch.softmax(logits, dim=1) - F.one_hot(targets, 3)) / 4
    dh = dlogits @ W2.T
    dz1 = dh * (z1 > 0)  # ReLU passes the gradient where z1 > 0 and blocks it elsewhere
    dW1 = dz1.T @ X
    db1 = dz1.sum(dim=0)  # b1 was added to all 4 rows
# --8<-- [end:weight-gradient-transposed]

# --8<-- [start:bias-gradient-mean]
# db1 averaged over the batch instead of summed: the 1/N is already in dlogits.
import torch
import torch.nn.functional as F

torch.manual_seed(0)
X = torch.randn(4, 3)  # 4 examples, 3 features
targets = torch.tensor([2, 0, 1, 0])  # 3 classes
W1 = torch.randn(3, 5, requires_grad=True)
b1 = torch.randn(5, requires_grad=True)
W2 = torch.randn(5, 3, requires_grad=True)
b2 = torch.randn(3, requires_grad=True)

z1 = X @ W1 + b1
h = torch.relu(z1)
logits = h @ W2 + b2
loss = F.cross_entropy(logits, targets)
loss.backward()

with torch.no_grad():
    dlogits = (torch.softmax(logits, dim=1) - F.one_hot(targets, 3)) / 4
    dh = dlogits @ W2.T
    dz1 = dh * (z1 > 0)  # ReLU passes the gradient where z1 > 0 and blocks it elsewhere
    dW1 = X.T @ dz1  # (3, 4) @ (4, 5) -> (3, 5), the shape of W1
    db1 = dz1.mean(dim=0)
# --8<-- [end:bias-gradient-mean]

# --8<-- [start:copied-from-autograd]
# dW1 and db1 copied from autograd's W1.grad and b1.grad instead of computed from dz1.
import torch
import torch.nn.functional as F

torch.manual_seed(0)
X = torch.randn(4, 3)  # 4 examples, 3 features
targets = torch.tensor([2, 0, 1, 0])  # 3 classes
W1 = torch.randn(3, 5, requires_grad=True)
b1 = torch.randn(5, requires_grad=True)
W2 = torch.randn(5, 3, requires_grad=True)
b2 = torch.randn(3, requires_grad=True)

z1 = X @ W1 + b1
h = torch.relu(z1)
logits = h @ W2 + b2
loss = F.cross_entropy(logits, targets)
loss.backward()

with torch.no_grad():
    dlogits = (torch.softmax(logits, dim=1) - F.one_hot(targets, 3)) / 4
    dh = dlogits @ W2.T
    dz1 = dh * (z1 > 0)  # ReLU passes the gradient where z1 > 0 and blocks it elsewhere
    dW1 = W1.grad
    db1 = b1.grad
# --8<-- [end:copied-from-autograd]

"""Plausible mistakes for Exercise 3.3 (freeze-all-but-the-last-layer), one per region.

Each region replaces the starter cell; the exercise's check cell must then print an
accurate "Not quite: ..." (or "Not done yet: ..." where that is the honest verdict).
"""
# ruff: noqa: E402, F811

# --8<-- [start:optimizer-gets-everything]
# The layers are frozen, but the optimizer is given every parameter of the model.
# Set-up: run it as it is.
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 3))
inputs, labels = torch.randn(32, 4), torch.randint(0, 3, (32,))
before = {name: p.detach().clone() for name, p in model.named_parameters()}


def train(optimizer, steps=5):
    """A few training steps of the model with the optimizer you give it."""
    for _ in range(steps):
        optimizer.zero_grad()
        F.cross_entropy(model(inputs), labels).backward()
        optimizer.step()


# Your code:
model[:4].requires_grad_(False)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=0.01)
train(optimizer)
# --8<-- [end:optimizer-gets-everything]

# --8<-- [start:one-layer-forgotten]
# Only the first linear layer is frozen; the second one was forgotten.
# Set-up: run it as it is.
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 3))
inputs, labels = torch.randn(32, 4), torch.randint(0, 3, (32,))
before = {name: p.detach().clone() for name, p in model.named_parameters()}


def train(optimizer, steps=5):
    """A few training steps of the model with the optimizer you give it."""
    for _ in range(steps):
        optimizer.zero_grad()
        F.cross_entropy(model(inputs), labels).backward()
        optimizer.step()


# Your code:
model[0].requires_grad_(False)
trainable = [p for p in model.parameters() if p.requires_grad]
optimizer = torch.optim.SGD(trainable, lr=0.1, momentum=0.9, weight_decay=0.01)
train(optimizer)
# --8<-- [end:one-layer-forgotten]

# --8<-- [start:last-layer-frozen-instead]
# The wrong way round: the last layer is frozen and the others train.
# Set-up: run it as it is.
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 3))
inputs, labels = torch.randn(32, 4), torch.randint(0, 3, (32,))
before = {name: p.detach().clone() for name, p in model.named_parameters()}


def train(optimizer, steps=5):
    """A few training steps of the model with the optimizer you give it."""
    for _ in range(steps):
        optimizer.zero_grad()
        F.cross_entropy(model(inputs), labels).backward()
        optimizer.step()


# Your code:
model[4].requires_grad_(False)
trainable = [p for p in model.parameters() if p.requires_grad]
optimizer = torch.optim.SGD(trainable, lr=0.1, momentum=0.9, weight_decay=0.01)
train(optimizer)
# --8<-- [end:last-layer-frozen-instead]

# --8<-- [start:attribute-without-underscore]
# `module.requires_grad = False` (no underscore, no call) sets an attribute of the module,
# not of its parameters.
# Set-up: run it as it is.
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 3))
inputs, labels = torch.randn(32, 4), torch.randint(0, 3, (32,))
before = {name: p.detach().clone() for name, p in model.named_parameters()}


def train(optimizer, steps=5):
    """A few training steps of the model with the optimizer you give it."""
    for _ in range(steps):
        optimizer.zero_grad()
        F.cross_entropy(model(inputs), labels).backward()
        optimizer.step()


# Your code:
for layer in model[:4]:
    layer.requires_grad = False
trainable = [p for p in model.parameters() if p.requires_grad]
optimizer = torch.optim.SGD(trainable, lr=0.1, momentum=0.9, weight_decay=0.01)
train(optimizer)
# --8<-- [end:attribute-without-underscore]

# --8<-- [start:eval-instead-of-freezing]
# eval() is used to freeze the first layers: it only switches dropout and batch norm.
# Set-up: run it as it is.
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 3))
inputs, labels = torch.randn(32, 4), torch.randint(0, 3, (32,))
before = {name: p.detach().clone() for name, p in model.named_parameters()}


def train(optimizer, steps=5):
    """A few training steps of the model with the optimizer you give it."""
    for _ in range(steps):
        optimizer.zero_grad()
        F.cross_entropy(model(inputs), labels).backward()
        optimizer.step()


# Your code:
model[:4].eval()
optimizer = torch.optim.SGD(model[4].parameters(), lr=0.1, momentum=0.9, weight_decay=0.01)
train(optimizer)
# --8<-- [end:eval-instead-of-freezing]

# --8<-- [start:frozen-after-training]
# The model is trained with every parameter in the optimizer, and frozen only afterwards.
# Set-up: run it as it is.
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 3))
inputs, labels = torch.randn(32, 4), torch.randint(0, 3, (32,))
before = {name: p.detach().clone() for name, p in model.named_parameters()}


def train(optimizer, steps=5):
    """A few training steps of the model with the optimizer you give it."""
    for _ in range(steps):
        optimizer.zero_grad()
        F.cross_entropy(model(inputs), labels).backward()
        optimizer.step()


# Your code:
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=0.01)
train(optimizer)
model[:4].requires_grad_(False)
# --8<-- [end:frozen-after-training]

"""Plausible mistakes for Exercise 3.4 (validation-loop), one per region.

Each region replaces the starter cell; the exercise's check cell must then print an
accurate "Not quite: ..." (or "Not done yet: ..." where that is the honest verdict).
"""
# ruff: noqa: E402

# --8<-- [start:no-grad-forgotten]
# model.eval() without torch.no_grad(): every forward pass builds a graph.
# Set-up: run it as it is. It trains a small classifier with dropout.
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
points = torch.rand(250, 2) * 2 - 1
labels = (points[:, 0] * points[:, 1] > 0).long()  # 1 where x1 and x2 have the same sign
model = nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Dropout(p=0.3), nn.Linear(32, 2))
optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
for _ in range(50):
    optimizer.zero_grad()
    F.cross_entropy(model(points[:150]), labels[:150]).backward()
    optimizer.step()
val_loader = DataLoader(TensorDataset(points[150:], labels[150:]), batch_size=32)


# Your code: complete evaluate().
def evaluate(model, loader):
    """The accuracy of `model` on `loader`: correct predictions / examples, a float."""
    model.eval()
    correct, total = 0, 0
    for inputs, targets in loader:
        predicted = model(inputs).argmax(dim=1)
        correct += (predicted == targets).sum().item()
        total += len(targets)
    model.train()
    return correct / total


accuracy = evaluate(model, val_loader)
print("validation accuracy:", accuracy)
# --8<-- [end:no-grad-forgotten]

# --8<-- [start:eval-forgotten]
# torch.no_grad() without model.eval(): dropout stays on while evaluating.
# Set-up: run it as it is. It trains a small classifier with dropout.
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
points = torch.rand(250, 2) * 2 - 1
labels = (points[:, 0] * points[:, 1] > 0).long()  # 1 where x1 and x2 have the same sign
model = nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Dropout(p=0.3), nn.Linear(32, 2))
optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
for _ in range(50):
    optimizer.zero_grad()
    F.cross_entropy(model(points[:150]), labels[:150]).backward()
    optimizer.step()
val_loader = DataLoader(TensorDataset(points[150:], labels[150:]), batch_size=32)


# Your code: complete evaluate().
def evaluate(model, loader):
    """The accuracy of `model` on `loader`: correct predictions / examples, a float."""
    correct, total = 0, 0
    with torch.no_grad():
        for inputs, targets in loader:
            predicted = model(inputs).argmax(dim=1)
            correct += (predicted == targets).sum().item()
            total += len(targets)
    return correct / total


accuracy = evaluate(model, val_loader)
print("validation accuracy:", accuracy)
# --8<-- [end:eval-forgotten]

# --8<-- [start:train-forgotten]
# model.train() is forgotten at the end: the model stays in eval mode.
# Set-up: run it as it is. It trains a small classifier with dropout.
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
points = torch.rand(250, 2) * 2 - 1
labels = (points[:, 0] * points[:, 1] > 0).long()  # 1 where x1 and x2 have the same sign
model = nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Dropout(p=0.3), nn.Linear(32, 2))
optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
for _ in range(50):
    optimizer.zero_grad()
    F.cross_entropy(model(points[:150]), labels[:150]).backward()
    optimizer.step()
val_loader = DataLoader(TensorDataset(points[150:], labels[150:]), batch_size=32)


# Your code: complete evaluate().
def evaluate(model, loader):
    """The accuracy of `model` on `loader`: correct predictions / examples, a float."""
    model.eval()
    correct, total = 0, 0
    with torch.no_grad():
        for inputs, targets in loader:
            predicted = model(inputs).argmax(dim=1)
            correct += (predicted == targets).sum().item()
            total += len(targets)
    return correct / total


accuracy = evaluate(model, val_loader)
print("validation accuracy:", accuracy)
# --8<-- [end:train-forgotten]

# --8<-- [start:mean-of-batch-accuracies]
# The accuracies of the batches are averaged, although the last batch is smaller.
# Set-up: run it as it is. It trains a small classifier with dropout.
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
points = torch.rand(250, 2) * 2 - 1
labels = (points[:, 0] * points[:, 1] > 0).long()  # 1 where x1 and x2 have the same sign
model = nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Dropout(p=0.3), nn.Linear(32, 2))
optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
for _ in range(50):
    optimizer.zero_grad()
    F.cross_entropy(model(points[:150]), labels[:150]).backward()
    optimizer.step()
val_loader = DataLoader(TensorDataset(points[150:], labels[150:]), batch_size=32)


# Your code: complete evaluate().
def evaluate(model, loader):
    """The accuracy of `model` on `loader`: correct predictions / examples, a float."""
    model.eval()
    accuracies = []
    with torch.no_grad():
        for inputs, targets in loader:
            predicted = model(inputs).argmax(dim=1)
            accuracies.append((predicted == targets).float().mean().item())
    model.train()
    return sum(accuracies) / len(accuracies)


accuracy = evaluate(model, val_loader)
print("validation accuracy:", accuracy)
# --8<-- [end:mean-of-batch-accuracies]

# --8<-- [start:returns-a-tensor]
# The accuracy is returned as a tensor instead of a Python float.
# Set-up: run it as it is. It trains a small classifier with dropout.
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
points = torch.rand(250, 2) * 2 - 1
labels = (points[:, 0] * points[:, 1] > 0).long()  # 1 where x1 and x2 have the same sign
model = nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Dropout(p=0.3), nn.Linear(32, 2))
optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
for _ in range(50):
    optimizer.zero_grad()
    F.cross_entropy(model(points[:150]), labels[:150]).backward()
    optimizer.step()
val_loader = DataLoader(TensorDataset(points[150:], labels[150:]), batch_size=32)


# Your code: complete evaluate().
def evaluate(model, loader):
    """The accuracy of `model` on `loader`: correct predictions / examples, a float."""
    model.eval()
    correct, total = 0, 0
    with torch.no_grad():
        for inputs, targets in loader:
            predicted = model(inputs).argmax(dim=1)
            correct += (predicted == targets).sum()
            total += len(targets)
    model.train()
    return correct / total


accuracy = evaluate(model, val_loader)
print("validation accuracy:", accuracy)
# --8<-- [end:returns-a-tensor]

# --8<-- [start:grad-switched-off-globally]
# torch.set_grad_enabled(False) is called as a function: tracking stays off afterwards.
# Set-up: run it as it is. It trains a small classifier with dropout.
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
points = torch.rand(250, 2) * 2 - 1
labels = (points[:, 0] * points[:, 1] > 0).long()  # 1 where x1 and x2 have the same sign
model = nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Dropout(p=0.3), nn.Linear(32, 2))
optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
for _ in range(50):
    optimizer.zero_grad()
    F.cross_entropy(model(points[:150]), labels[:150]).backward()
    optimizer.step()
val_loader = DataLoader(TensorDataset(points[150:], labels[150:]), batch_size=32)


# Your code: complete evaluate().
def evaluate(model, loader):
    """The accuracy of `model` on `loader`: correct predictions / examples, a float."""
    model.eval()
    torch.set_grad_enabled(False)
    correct, total = 0, 0
    for inputs, targets in loader:
        predicted = model(inputs).argmax(dim=1)
        correct += (predicted == targets).sum().item()
        total += len(targets)
    model.train()
    return correct / total


accuracy = evaluate(model, val_loader)
print("validation accuracy:", accuracy)
# --8<-- [end:grad-switched-off-globally]

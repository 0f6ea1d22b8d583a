"""Plausible wrong answers to Exercise 3.2 (snippets/practice/validation_without_a_graph.py).

Each region replaces the starter cell; the check cell must then say "Not quite" and
name the mistake.
"""
# ruff: noqa: E402, F811

# --8<-- [start:no-no-grad]
# Forgets torch.no_grad(): the loss is right, but the forward pass is recorded.
import torch

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(3, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))
val_inputs, val_targets = torch.randn(16, 3), torch.randn(16, 1)


def evaluate(model, inputs, targets):
    loss = torch.nn.functional.mse_loss(model(inputs), targets)
    return loss.item()


# --8<-- [end:no-no-grad]

# --8<-- [start:detach-at-the-end]
# Detaches the result, believing that this stops the graph from being built.
import torch

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(3, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))
val_inputs, val_targets = torch.randn(16, 3), torch.randn(16, 1)


def evaluate(model, inputs, targets):
    loss = torch.nn.functional.mse_loss(model(inputs), targets)
    return loss.detach().item()


# --8<-- [end:detach-at-the-end]

# --8<-- [start:returns-a-tensor]
# Returns the loss tensor instead of a Python float.
import torch

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(3, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))
val_inputs, val_targets = torch.randn(16, 3), torch.randn(16, 1)


@torch.no_grad()
def evaluate(model, inputs, targets):
    return torch.nn.functional.mse_loss(model(inputs), targets)


# --8<-- [end:returns-a-tensor]

# --8<-- [start:grad-mode-left-off]
# Switches grad mode off with a bare set_grad_enabled(False) and never switches it back.
import torch

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(3, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))
val_inputs, val_targets = torch.randn(16, 3), torch.randn(16, 1)


def evaluate(model, inputs, targets):
    torch.set_grad_enabled(False)
    return torch.nn.functional.mse_loss(model(inputs), targets).item()


# --8<-- [end:grad-mode-left-off]

# --8<-- [start:frozen-parameters]
# Turns requires_grad off on the parameters instead of turning recording off.
import torch

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(3, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))
val_inputs, val_targets = torch.randn(16, 3), torch.randn(16, 1)


def evaluate(model, inputs, targets):
    for p in model.parameters():
        p.requires_grad_(False)
    return torch.nn.functional.mse_loss(model(inputs), targets).item()


# --8<-- [end:frozen-parameters]

# --8<-- [start:sum-not-mean]
# Adds up the squared errors instead of averaging them.
import torch

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(3, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))
val_inputs, val_targets = torch.randn(16, 3), torch.randn(16, 1)


@torch.no_grad()
def evaluate(model, inputs, targets):
    return ((model(inputs) - targets) ** 2).sum().item()


# --8<-- [end:sum-not-mean]

"""Plausible mistakes for Exercise 3.6 (memory-budget), one per region.

Each region replaces the starter cell of snippets/practice/memory_budget.py; the
exercise's check cell must then print an accurate "Not quite: ..." that names the
number that is wrong and why.
"""
# ruff: noqa: E402

# --8<-- [start:numbers-not-bytes]
# Mistake: counts the numbers (numel) and forgets that each float32 takes 4 bytes.
import torch
from torch import nn

torch.manual_seed(0)
layers = [nn.Linear(100, 200), nn.ReLU(), nn.Linear(200, 200), nn.ReLU(), nn.Linear(200, 10)]
model = nn.Sequential(*layers)
model[0].requires_grad_(False)  # the first layer is frozen


def memory_budget(model: nn.Module) -> dict[str, int]:
    every = list(model.parameters())
    trained = [p for p in every if p.requires_grad]
    parameters = sum(p.numel() for p in every)
    gradients = sum(p.numel() for p in trained)
    adam = 2 * gradients + len(trained)
    return {"parameters": parameters, "gradients": gradients, "adam": adam}


budget = memory_budget(model)
# --8<-- [end:numbers-not-bytes]

# --8<-- [start:frozen-layer-counted]
# Mistake: counts a .grad and Adam state for every parameter, the frozen layer's too.
import torch
from torch import nn

torch.manual_seed(0)
layers = [nn.Linear(100, 200), nn.ReLU(), nn.Linear(200, 200), nn.ReLU(), nn.Linear(200, 10)]
model = nn.Sequential(*layers)
model[0].requires_grad_(False)  # the first layer is frozen


def memory_budget(model: nn.Module) -> dict[str, int]:
    every = list(model.parameters())
    parameters = sum(p.numel() * p.element_size() for p in every)
    gradients = parameters
    adam = 2 * parameters + 4 * len(every)
    return {"parameters": parameters, "gradients": gradients, "adam": adam}


budget = memory_budget(model)
# --8<-- [end:frozen-layer-counted]

# --8<-- [start:no-step-counter]
# Mistake: Adam's state taken as the two running averages only, without the step counter.
import torch
from torch import nn

torch.manual_seed(0)
layers = [nn.Linear(100, 200), nn.ReLU(), nn.Linear(200, 200), nn.ReLU(), nn.Linear(200, 10)]
model = nn.Sequential(*layers)
model[0].requires_grad_(False)  # the first layer is frozen


def memory_budget(model: nn.Module) -> dict[str, int]:
    every = list(model.parameters())
    trained = [p for p in every if p.requires_grad]
    parameters = sum(p.numel() * p.element_size() for p in every)
    gradients = sum(p.numel() * p.element_size() for p in trained)
    adam = 2 * gradients
    return {"parameters": parameters, "gradients": gradients, "adam": adam}


budget = memory_budget(model)
# --8<-- [end:no-step-counter]

# --8<-- [start:one-running-average]
# Mistake: Adam taken to keep one running average (like momentum), plus the step counter.
import torch
from torch import nn

torch.manual_seed(0)
layers = [nn.Linear(100, 200), nn.ReLU(), nn.Linear(200, 200), nn.ReLU(), nn.Linear(200, 10)]
model = nn.Sequential(*layers)
model[0].requires_grad_(False)  # the first layer is frozen


def memory_budget(model: nn.Module) -> dict[str, int]:
    every = list(model.parameters())
    trained = [p for p in every if p.requires_grad]
    parameters = sum(p.numel() * p.element_size() for p in every)
    gradients = sum(p.numel() * p.element_size() for p in trained)
    adam = gradients + 4 * len(trained)
    return {"parameters": parameters, "gradients": gradients, "adam": adam}


budget = memory_budget(model)
# --8<-- [end:one-running-average]

# --8<-- [start:always-four-bytes]
# Mistake: 4 bytes for every number, which holds for float32 only.
import torch
from torch import nn

torch.manual_seed(0)
layers = [nn.Linear(100, 200), nn.ReLU(), nn.Linear(200, 200), nn.ReLU(), nn.Linear(200, 10)]
model = nn.Sequential(*layers)
model[0].requires_grad_(False)  # the first layer is frozen


def memory_budget(model: nn.Module) -> dict[str, int]:
    every = list(model.parameters())
    trained = [p for p in every if p.requires_grad]
    parameters = sum(4 * p.numel() for p in every)
    gradients = sum(4 * p.numel() for p in trained)
    adam = 2 * gradients + 4 * len(trained)
    return {"parameters": parameters, "gradients": gradients, "adam": adam}


budget = memory_budget(model)
# --8<-- [end:always-four-bytes]

# --8<-- [start:step-in-the-parameter-dtype]
# Mistake: the step counter taken to have the parameter's dtype (8 bytes for a float64).
import torch
from torch import nn

torch.manual_seed(0)
layers = [nn.Linear(100, 200), nn.ReLU(), nn.Linear(200, 200), nn.ReLU(), nn.Linear(200, 10)]
model = nn.Sequential(*layers)
model[0].requires_grad_(False)  # the first layer is frozen


def memory_budget(model: nn.Module) -> dict[str, int]:
    every = list(model.parameters())
    trained = [p for p in every if p.requires_grad]
    parameters = sum(p.numel() * p.element_size() for p in every)
    gradients = sum(p.numel() * p.element_size() for p in trained)
    adam = sum(2 * p.numel() * p.element_size() + p.element_size() for p in trained)
    return {"parameters": parameters, "gradients": gradients, "adam": adam}


budget = memory_budget(model)
# --8<-- [end:step-in-the-parameter-dtype]

# --8<-- [start:frozen-values-left-out]
# Mistake: counts the values of the trained parameters only, as if a frozen layer took none.
import torch
from torch import nn

torch.manual_seed(0)
layers = [nn.Linear(100, 200), nn.ReLU(), nn.Linear(200, 200), nn.ReLU(), nn.Linear(200, 10)]
model = nn.Sequential(*layers)
model[0].requires_grad_(False)  # the first layer is frozen


def memory_budget(model: nn.Module) -> dict[str, int]:
    trained = [p for p in model.parameters() if p.requires_grad]
    parameters = sum(p.numel() * p.element_size() for p in trained)
    gradients = parameters
    adam = 2 * parameters + 4 * len(trained)
    return {"parameters": parameters, "gradients": gradients, "adam": adam}


budget = memory_budget(model)
# --8<-- [end:frozen-values-left-out]

# --8<-- [start:step-counter-of-eight-bytes]
# Mistake: the step counter taken as 8 bytes, like a Python float or a float64 tensor.
import torch
from torch import nn

torch.manual_seed(0)
layers = [nn.Linear(100, 200), nn.ReLU(), nn.Linear(200, 200), nn.ReLU(), nn.Linear(200, 10)]
model = nn.Sequential(*layers)
model[0].requires_grad_(False)  # the first layer is frozen


def memory_budget(model: nn.Module) -> dict[str, int]:
    every = list(model.parameters())
    trained = [p for p in every if p.requires_grad]
    parameters = sum(p.numel() * p.element_size() for p in every)
    gradients = sum(p.numel() * p.element_size() for p in trained)
    adam = 2 * gradients + 8 * len(trained)
    return {"parameters": parameters, "gradients": gradients, "adam": adam}


budget = memory_budget(model)
# --8<-- [end:step-counter-of-eight-bytes]

"""Plausible wrong answers to Exercise D.2 (snippets/practice/second_derivative.py).

Each region replaces the starter cell; the check cell must answer "Not quite" and say
what is wrong.
"""
# ruff: noqa: E402

# --8<-- [start:create-graph-missing]
# create_graph=True is missing; differentiating first then raised, so second is still ... .
import torch

x = torch.tensor(1.0, requires_grad=True)
y = x * torch.sin(x)

first = torch.autograd.grad(y, x)[0]
second = ...  # torch.autograd.grad(first, x) raised: element 0 of tensors does not require grad
by_hand = 2 * torch.cos(x) - x * torch.sin(x)
# --8<-- [end:create-graph-missing]

# --8<-- [start:error-patched-away]
# create_graph=True is missing, and the errors that followed were patched away.
import torch

x = torch.tensor(1.0, requires_grad=True)
y = x * torch.sin(x)

first = torch.autograd.grad(y, x)[0].requires_grad_()
second = torch.autograd.grad(first, x, allow_unused=True)[0]  # None: first does not depend on x
by_hand = 2 * torch.cos(x) - x * torch.sin(x)
# --8<-- [end:error-patched-away]

# --8<-- [start:accumulated-in-grad]
# backward() twice: the second derivative is added into x.grad on top of the first.
import torch

x = torch.tensor(1.0, requires_grad=True)
y = x * torch.sin(x)

y.backward(create_graph=True)
first = x.grad
first.backward()
second = x.grad
by_hand = 2 * torch.cos(x) - x * torch.sin(x)
# --8<-- [end:accumulated-in-grad]

# --8<-- [start:differentiated-y-again]
# second differentiates y again instead of first.
import torch

x = torch.tensor(1.0, requires_grad=True)
y = x * torch.sin(x)

first = torch.autograd.grad(y, x, create_graph=True)[0]
second = torch.autograd.grad(y, x)[0]
by_hand = 2 * torch.cos(x) - x * torch.sin(x)
# --8<-- [end:differentiated-y-again]

# --8<-- [start:first-derivative-formula]
# The hand formula is the first derivative, not the second.
import torch

x = torch.tensor(1.0, requires_grad=True)
y = x * torch.sin(x)

first = torch.autograd.grad(y, x, create_graph=True)[0]
second = torch.autograd.grad(first, x)[0]
by_hand = torch.sin(x) + x * torch.cos(x)
# --8<-- [end:first-derivative-formula]

# --8<-- [start:product-rule-once]
# Only the x cos x term was differentiated (product rule); the cos x from sin x is lost.
import torch

x = torch.tensor(1.0, requires_grad=True)
y = x * torch.sin(x)

first = torch.autograd.grad(y, x, create_graph=True)[0]
second = torch.autograd.grad(first, x)[0]
by_hand = torch.cos(x) - x * torch.sin(x)
# --8<-- [end:product-rule-once]

# --8<-- [start:sign-of-sin]
# The derivative of cos x taken as +sin x.
import torch

x = torch.tensor(1.0, requires_grad=True)
y = x * torch.sin(x)

first = torch.autograd.grad(y, x, create_graph=True)[0]
second = torch.autograd.grad(first, x)[0]
by_hand = 2 * torch.cos(x) + x * torch.sin(x)
# --8<-- [end:sign-of-sin]

# --8<-- [start:typed-rounded-number]
# The hand result was typed in, rounded, instead of computed from x.
import torch

x = torch.tensor(1.0, requires_grad=True)
y = x * torch.sin(x)

first = torch.autograd.grad(y, x, create_graph=True)[0]
second = torch.autograd.grad(first, x)[0]
by_hand = 0.2391
# --8<-- [end:typed-rounded-number]

"""Plausible mistakes for Exercise D.7 (snippets/practice/write_a_custom_function.py).

Each region replaces the starter cell. Run with the exercise's check cell, each must make
the check print "Not quite" (or "Not done yet" where that is the honest verdict) with an
accurate diagnosis.
"""
# ruff: noqa: E402, F811

# --8<-- [start:first-term-only]
# Mistake: the product rule applied to only one factor: d(x s)/dx taken as s.
import torch
from torch.autograd.function import FunctionCtx


class SiLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx: FunctionCtx, x: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x)
        return x * torch.sigmoid(x)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_y: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        return grad_y * torch.sigmoid(x)


x = torch.linspace(-3, 3, 7, dtype=torch.float64, requires_grad=True)
passed = ...
# --8<-- [end:first-term-only]

# --8<-- [start:second-term-only]
# Mistake: only the sigmoid's derivative, x * s * (1 - s), without the term s.
import torch
from torch.autograd.function import FunctionCtx


class SiLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx: FunctionCtx, x: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x)
        return x * torch.sigmoid(x)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_y: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        s = torch.sigmoid(x)
        return grad_y * x * s * (1 - s)


x = torch.linspace(-3, 3, 7, dtype=torch.float64, requires_grad=True)
passed = ...
# --8<-- [end:second-term-only]

# --8<-- [start:ignores-grad-y]
# Mistake: returns dy/dx itself, without multiplying by the incoming gradient grad_y.
import torch
from torch.autograd.function import FunctionCtx


class SiLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx: FunctionCtx, x: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x)
        return x * torch.sigmoid(x)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_y: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        s = torch.sigmoid(x)
        return s + x * s * (1 - s)


x = torch.linspace(-3, 3, 7, dtype=torch.float64, requires_grad=True)
passed = ...
# --8<-- [end:ignores-grad-y]

# --8<-- [start:missing-x]
# Mistake: the second term written as s * (1 - s), without the factor x.
import torch
from torch.autograd.function import FunctionCtx


class SiLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx: FunctionCtx, x: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x)
        return x * torch.sigmoid(x)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_y: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        s = torch.sigmoid(x)
        return grad_y * (s + s * (1 - s))


x = torch.linspace(-3, 3, 7, dtype=torch.float64, requires_grad=True)
passed = ...
# --8<-- [end:missing-x]

# --8<-- [start:wrong-forward]
# Mistake: the forward computes the sigmoid alone, not x times the sigmoid.
import torch
from torch.autograd.function import FunctionCtx


class SiLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx: FunctionCtx, x: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x)
        return torch.sigmoid(x)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_y: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        s = torch.sigmoid(x)
        return grad_y * s * (1 - s)


x = torch.linspace(-3, 3, 7, dtype=torch.float64, requires_grad=True)
passed = torch.autograd.gradcheck(SiLU.apply, (x,))
# --8<-- [end:wrong-forward]

# --8<-- [start:gradcheck-not-run]
# Mistake: a right backward, but gradcheck never run (passed is still ...).
import torch
from torch.autograd.function import FunctionCtx


class SiLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx: FunctionCtx, x: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x)
        return x * torch.sigmoid(x)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_y: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        s = torch.sigmoid(x)
        return grad_y * (s + x * s * (1 - s))


x = torch.linspace(-3, 3, 7, dtype=torch.float64, requires_grad=True)
passed = ...
# --8<-- [end:gradcheck-not-run]

"""Plausible mistakes for Exercise D.12 (snippets/practice/gradient_reversal_layer.py).

Each region replaces the starter cell. Run with the exercise's check cell, each must make
the check print "Not quite" with an accurate diagnosis.
"""
# ruff: noqa: E402, F811

# --8<-- [start:no-lambda]
# Mistake: reverses the gradient but forgets to scale it: returns -grad_out.
import torch
from torch.autograd.function import FunctionCtx


class GradReverse(torch.autograd.Function):
    """The identity in the forward pass; the gradient times -lam in the backward pass."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: torch.Tensor, lam: float) -> torch.Tensor:
        ctx.lam = lam  # a plain number: keep it on ctx (save_for_backward is for tensors)
        return x.view_as(x)  # the same values, as a new tensor that gets this node

    @staticmethod
    def backward(ctx: FunctionCtx, grad_out: torch.Tensor):
        return -grad_out, None


# --8<-- [end:no-lambda]

# --8<-- [start:gradient-for-lambda]
# Mistake: returns a gradient for lam too (the derivative of -lam * g by lam).
import torch
from torch.autograd.function import FunctionCtx


class GradReverse(torch.autograd.Function):
    """The identity in the forward pass; the gradient times -lam in the backward pass."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: torch.Tensor, lam: float) -> torch.Tensor:
        ctx.lam = lam  # a plain number: keep it on ctx (save_for_backward is for tensors)
        return x.view_as(x)  # the same values, as a new tensor that gets this node

    @staticmethod
    def backward(ctx: FunctionCtx, grad_out: torch.Tensor):
        return -ctx.lam * grad_out, -grad_out.sum()


# --8<-- [end:gradient-for-lambda]

# --8<-- [start:negated-forward]
# Mistake: negates and scales in the forward pass too, so the layer is y = -lam * x.
import torch
from torch.autograd.function import FunctionCtx


class GradReverse(torch.autograd.Function):
    """The identity in the forward pass; the gradient times -lam in the backward pass."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: torch.Tensor, lam: float) -> torch.Tensor:
        ctx.lam = lam  # a plain number: keep it on ctx (save_for_backward is for tensors)
        return -lam * x

    @staticmethod
    def backward(ctx: FunctionCtx, grad_out: torch.Tensor):
        return -ctx.lam * grad_out, None  # None: lam is a number, it gets no gradient


# --8<-- [end:negated-forward]

# --8<-- [start:no-minus]
# Mistake: scales the gradient by lam but forgets the minus: returns lam * grad_out.
import torch
from torch.autograd.function import FunctionCtx


class GradReverse(torch.autograd.Function):
    """The identity in the forward pass; the gradient times -lam in the backward pass."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: torch.Tensor, lam: float) -> torch.Tensor:
        ctx.lam = lam  # a plain number: keep it on ctx (save_for_backward is for tensors)
        return x.view_as(x)  # the same values, as a new tensor that gets this node

    @staticmethod
    def backward(ctx: FunctionCtx, grad_out: torch.Tensor):
        return ctx.lam * grad_out, None


# --8<-- [end:no-minus]

# --8<-- [start:one-gradient-only]
# Mistake: returns only the gradient for x, none for lam.
import torch
from torch.autograd.function import FunctionCtx


class GradReverse(torch.autograd.Function):
    """The identity in the forward pass; the gradient times -lam in the backward pass."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: torch.Tensor, lam: float) -> torch.Tensor:
        ctx.lam = lam  # a plain number: keep it on ctx (save_for_backward is for tensors)
        return x.view_as(x)  # the same values, as a new tensor that gets this node

    @staticmethod
    def backward(ctx: FunctionCtx, grad_out: torch.Tensor):
        return -ctx.lam * grad_out


# --8<-- [end:one-gradient-only]

# --8<-- [start:once-differentiable]
# Mistake: marks backward @once_differentiable: create_graph=True cannot record it.
import torch
from torch.autograd.function import FunctionCtx, once_differentiable


class GradReverse(torch.autograd.Function):
    """The identity in the forward pass; the gradient times -lam in the backward pass."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: torch.Tensor, lam: float) -> torch.Tensor:
        ctx.lam = lam  # a plain number: keep it on ctx (save_for_backward is for tensors)
        return x.view_as(x)  # the same values, as a new tensor that gets this node

    @staticmethod
    @once_differentiable
    def backward(ctx: FunctionCtx, grad_out: torch.Tensor):
        return -ctx.lam * grad_out, None  # None: lam is a number, it gets no gradient


# --8<-- [end:once-differentiable]

# --8<-- [start:fixed-factor]
# Mistake: multiplies by the example's -0.5 instead of by -lam, read from ctx.lam.
import torch
from torch.autograd.function import FunctionCtx


class GradReverse(torch.autograd.Function):
    """The identity in the forward pass; the gradient times -lam in the backward pass."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: torch.Tensor, lam: float) -> torch.Tensor:
        ctx.lam = lam  # a plain number: keep it on ctx (save_for_backward is for tensors)
        return x.view_as(x)  # the same values, as a new tensor that gets this node

    @staticmethod
    def backward(ctx: FunctionCtx, grad_out: torch.Tensor):
        return -0.5 * grad_out, None


# --8<-- [end:fixed-factor]

# --8<-- [start:in-place-on-grad-out]
# Mistake: scales the incoming gradient in place, grad_out.mul_(-lam), and returns it.
import torch
from torch.autograd.function import FunctionCtx


class GradReverse(torch.autograd.Function):
    """The identity in the forward pass; the gradient times -lam in the backward pass."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: torch.Tensor, lam: float) -> torch.Tensor:
        ctx.lam = lam  # a plain number: keep it on ctx (save_for_backward is for tensors)
        return x.view_as(x)  # the same values, as a new tensor that gets this node

    @staticmethod
    def backward(ctx: FunctionCtx, grad_out: torch.Tensor):
        return grad_out.mul_(-ctx.lam), None


# --8<-- [end:in-place-on-grad-out]

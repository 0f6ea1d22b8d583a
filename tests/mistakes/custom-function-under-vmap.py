"""Plausible mistakes for Exercise D.8 (snippets/practice/custom_function_under_vmap.py).

Each region replaces the starter cell. Run with the exercise's check cell, each must make
the check print "Not quite" (or "Not done yet" where that is the honest verdict) with an
accurate diagnosis. Some of them raise in the learner's cell, as they would in a notebook.
"""
# ruff: noqa: E402

# --8<-- [start:forward-keeps-ctx]
# Mistake: generate_vmap_rule = True added, but forward still takes ctx and saves x.
import torch
from torch.autograd.function import FunctionCtx


class SiLU(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(ctx: FunctionCtx, x: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x)
        return x * torch.sigmoid(x)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_y: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        s = torch.sigmoid(x)
        return grad_y * (s + x * s * (1 - s))


def example_loss(w: torch.Tensor, x: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
    return (SiLU.apply(x @ w) - t) ** 2


torch.manual_seed(0)
w = torch.randn(3)
X = torch.randn(5, 3)
t = torch.randn(5)

per_sample = torch.func.vmap(torch.func.grad(example_loss), in_dims=(None, 0, 0))(w, X, t)
x64 = torch.linspace(-3, 3, 7, dtype=torch.float64, requires_grad=True)
passed = torch.autograd.gradcheck(SiLU.apply, (x64,))
# --8<-- [end:forward-keeps-ctx]

# --8<-- [start:no-vmap-rule]
# Mistake: forward and setup_context are split, but generate_vmap_rule is not set.
import torch
from torch.autograd.function import FunctionCtx


class SiLU(torch.autograd.Function):
    @staticmethod
    def forward(x: torch.Tensor) -> torch.Tensor:
        return x * torch.sigmoid(x)

    @staticmethod
    def setup_context(ctx: FunctionCtx, inputs: tuple, output: torch.Tensor) -> None:
        (x,) = inputs
        ctx.save_for_backward(x)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_y: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        s = torch.sigmoid(x)
        return grad_y * (s + x * s * (1 - s))


def example_loss(w: torch.Tensor, x: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
    return (SiLU.apply(x @ w) - t) ** 2


torch.manual_seed(0)
w = torch.randn(3)
X = torch.randn(5, 3)
t = torch.randn(5)

per_sample = torch.func.vmap(torch.func.grad(example_loss), in_dims=(None, 0, 0))(w, X, t)
x64 = torch.linspace(-3, 3, 7, dtype=torch.float64, requires_grad=True)
passed = torch.autograd.gradcheck(SiLU.apply, (x64,))
# --8<-- [end:no-vmap-rule]

# --8<-- [start:saves-the-output]
# Mistake: setup_context saves the output, which backward then reads as x.
import torch
from torch.autograd.function import FunctionCtx


class SiLU(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x: torch.Tensor) -> torch.Tensor:
        return x * torch.sigmoid(x)

    @staticmethod
    def setup_context(ctx: FunctionCtx, inputs: tuple, output: torch.Tensor) -> None:
        ctx.save_for_backward(output)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_y: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        s = torch.sigmoid(x)
        return grad_y * (s + x * s * (1 - s))


def example_loss(w: torch.Tensor, x: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
    return (SiLU.apply(x @ w) - t) ** 2


torch.manual_seed(0)
w = torch.randn(3)
X = torch.randn(5, 3)
t = torch.randn(5)

per_sample = torch.func.vmap(torch.func.grad(example_loss), in_dims=(None, 0, 0))(w, X, t)
x64 = torch.linspace(-3, 3, 7, dtype=torch.float64, requires_grad=True)
passed = torch.autograd.gradcheck(SiLU.apply, (x64,))
# --8<-- [end:saves-the-output]

# --8<-- [start:gradient-of-the-batch]
# Mistake: one backward pass on the batch's mean loss, which mixes the examples' gradients.
import torch
from torch.autograd.function import FunctionCtx


class SiLU(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x: torch.Tensor) -> torch.Tensor:
        return x * torch.sigmoid(x)

    @staticmethod
    def setup_context(ctx: FunctionCtx, inputs: tuple, output: torch.Tensor) -> None:
        (x,) = inputs
        ctx.save_for_backward(x)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_y: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        s = torch.sigmoid(x)
        return grad_y * (s + x * s * (1 - s))


def example_loss(w: torch.Tensor, x: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
    return (SiLU.apply(x @ w) - t) ** 2


torch.manual_seed(0)
w = torch.randn(3)
X = torch.randn(5, 3)
t = torch.randn(5)

w.requires_grad_()
losses = torch.stack([example_loss(w, x, target) for x, target in zip(X, t, strict=True)])
losses.mean().backward()
per_sample = w.grad
x64 = torch.linspace(-3, 3, 7, dtype=torch.float64, requires_grad=True)
passed = torch.autograd.gradcheck(SiLU.apply, (x64,))
# --8<-- [end:gradient-of-the-batch]

# --8<-- [start:gradient-by-x]
# Mistake: the gradient taken by the example's input x (argnums=1), not by the weights w.
import torch
from torch.autograd.function import FunctionCtx


class SiLU(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x: torch.Tensor) -> torch.Tensor:
        return x * torch.sigmoid(x)

    @staticmethod
    def setup_context(ctx: FunctionCtx, inputs: tuple, output: torch.Tensor) -> None:
        (x,) = inputs
        ctx.save_for_backward(x)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_y: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        s = torch.sigmoid(x)
        return grad_y * (s + x * s * (1 - s))


def example_loss(w: torch.Tensor, x: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
    return (SiLU.apply(x @ w) - t) ** 2


torch.manual_seed(0)
w = torch.randn(3)
X = torch.randn(5, 3)
t = torch.randn(5)

per_sample = torch.func.vmap(torch.func.grad(example_loss, argnums=1), in_dims=(None, 0, 0))(
    w, X, t
)
x64 = torch.linspace(-3, 3, 7, dtype=torch.float64, requires_grad=True)
passed = torch.autograd.gradcheck(SiLU.apply, (x64,))
# --8<-- [end:gradient-by-x]

# --8<-- [start:gradcheck-not-run]
# Mistake: SiLU and per_sample are right, but gradcheck was never run (passed is still ...).
import torch
from torch.autograd.function import FunctionCtx


class SiLU(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x: torch.Tensor) -> torch.Tensor:
        return x * torch.sigmoid(x)

    @staticmethod
    def setup_context(ctx: FunctionCtx, inputs: tuple, output: torch.Tensor) -> None:
        (x,) = inputs
        ctx.save_for_backward(x)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_y: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        s = torch.sigmoid(x)
        return grad_y * (s + x * s * (1 - s))


def example_loss(w: torch.Tensor, x: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
    return (SiLU.apply(x @ w) - t) ** 2


torch.manual_seed(0)
w = torch.randn(3)
X = torch.randn(5, 3)
t = torch.randn(5)

per_sample = torch.func.vmap(torch.func.grad(example_loss), in_dims=(None, 0, 0))(w, X, t)
passed = ...
# --8<-- [end:gradcheck-not-run]

# --8<-- [start:ctx-attribute]
# Mistake: keeps x as an attribute of ctx (ctx.x = x) instead of ctx.save_for_backward.
import torch
from torch.autograd.function import FunctionCtx


class SiLU(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x: torch.Tensor) -> torch.Tensor:
        return x * torch.sigmoid(x)

    @staticmethod
    def setup_context(ctx: FunctionCtx, inputs: tuple, output: torch.Tensor) -> None:
        ctx.x = inputs[0]

    @staticmethod
    def backward(ctx: FunctionCtx, grad_y: torch.Tensor) -> torch.Tensor:
        x = ctx.x
        s = torch.sigmoid(x)
        return grad_y * (s + x * s * (1 - s))


def example_loss(w: torch.Tensor, x: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
    return (SiLU.apply(x @ w) - t) ** 2


torch.manual_seed(0)
w = torch.randn(3)
X = torch.randn(5, 3)
t = torch.randn(5)

per_sample = torch.func.vmap(torch.func.grad(example_loss), in_dims=(None, 0, 0))(w, X, t)
x64 = torch.linspace(-3, 3, 7, dtype=torch.float64, requires_grad=True)
passed = torch.autograd.gradcheck(SiLU.apply, (x64,))
# --8<-- [end:ctx-attribute]

"""Interview: How do you make a custom autograd function work with vmap?

Included by docs/interview/how-do-you-make-a-custom-function-work-with-vmap.md.
"""
# ruff: noqa: E402

# --8<-- [start:old-style]
import numpy as np
import torch
from torch.autograd.function import FunctionCtx
from torch.func import grad, jacfwd, jvp, vmap


class OldCbrt(torch.autograd.Function):
    """y = cube root of x, by NumPy (PyTorch has no cbrt), in the older style."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: torch.Tensor) -> torch.Tensor:  # takes ctx
        y = torch.as_tensor(np.cbrt(x.numpy()))
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx: FunctionCtx, grad_y: torch.Tensor) -> torch.Tensor:
        (y,) = ctx.saved_tensors
        return grad_y / (3 * y**2)  # dy/dx = 1 / (3 x^(2/3)) = 1 / (3 y²)


x = torch.tensor([-8.0, 1.0, 27.0], requires_grad=True)
OldCbrt.apply(x).sum().backward()
print("x ** (1/3):        ", x.detach() ** (1 / 3))  # NaN for a negative x
print("OldCbrt, backward():", x.grad)
print("by hand, 1/(3y²):  ", 1 / (3 * torch.tensor([-2.0, 1.0, 3.0]) ** 2))
points = x.detach()
# --8<-- [end:old-style]


# --8<-- [start:new-style]
class Cbrt(torch.autograd.Function):
    """The same function in the style torch.func accepts."""

    @staticmethod
    def forward(x: torch.Tensor) -> torch.Tensor:  # no ctx: forward only computes
        return torch.as_tensor(np.cbrt(x.numpy()))

    @staticmethod
    def setup_context(ctx: FunctionCtx, inputs: tuple, output: torch.Tensor) -> None:
        ctx.save_for_backward(output)  # what backward needs: y, the output

    @staticmethod
    def backward(ctx: FunctionCtx, grad_y: torch.Tensor) -> torch.Tensor:
        (y,) = ctx.saved_tensors
        return grad_y / (3 * y**2)  # unchanged


print("grad(Cbrt.apply)(8):", grad(Cbrt.apply)(torch.tensor(8.0)))  # 1/(3·2²) = 1/12
# --8<-- [end:new-style]


# --8<-- [start:generated-rule]
class TorchCbrt(Cbrt):
    """forward, setup_context and backward all PyTorch operations: vmap can batch them."""

    generate_vmap_rule = True

    @staticmethod
    def forward(x: torch.Tensor) -> torch.Tensor:
        return torch.sign(x) * x.abs() ** (1 / 3)


print("vmap(grad(TorchCbrt.apply)):", vmap(grad(TorchCbrt.apply))(points))
# --8<-- [end:generated-rule]


# --8<-- [start:vmap-rule]
class BatchedCbrt(Cbrt):
    """Cbrt with a vmap rule of its own: NumPy cannot be batched by vmap."""

    @staticmethod
    def vmap(info, in_dims: tuple, x: torch.Tensor) -> tuple[torch.Tensor, int | None]:
        # x is the whole batch, its batch dimension at in_dims[0]. The cube root works
        # entry by entry, so one call on the batch is the answer, and the batch
        # dimension stays where it was.
        return BatchedCbrt.apply(x), in_dims[0]


print("vmap(BatchedCbrt.apply):      ", vmap(BatchedCbrt.apply)(points))
print("vmap(grad(BatchedCbrt.apply)):", vmap(grad(BatchedCbrt.apply))(points))
# --8<-- [end:vmap-rule]


# --8<-- [start:forward-mode-start]
import warnings

# The first forward-mode call makes PyTorch warn about its own use of torch.jit.script
# (a FutureWarning since 2.14, a DeprecationWarning before): hide exactly that warning.
warnings.filterwarnings("ignore", "`torch.jit.script` is deprecated")
tangent = torch.tensor([1.0, 1.0, 1.0])  # how fast each entry of x moves
# --8<-- [end:forward-mode-start]


# --8<-- [start:jvp-rule]
class FullCbrt(BatchedCbrt):
    """BatchedCbrt with a forward-mode rule as well."""

    @staticmethod
    def setup_context(ctx: FunctionCtx, inputs: tuple, output: torch.Tensor) -> None:
        ctx.save_for_backward(output)  # for backward
        ctx.save_for_forward(output)  # for jvp

    @staticmethod
    def jvp(ctx: FunctionCtx, x_dot: torch.Tensor) -> torch.Tensor:
        (y,) = ctx.saved_tensors
        return x_dot / (3 * y**2)  # the tangent of y: dy/dx times the tangent of x


y, y_dot = jvp(FullCbrt.apply, (points,), (tangent,))
print("y:     ", y)
print("y_dot: ", y_dot)
print("jacfwd, vmap of jvp, diagonal:", torch.diagonal(jacfwd(FullCbrt.apply)(points)))
x64 = torch.tensor([-8.0, 0.5, 27.0], dtype=torch.float64, requires_grad=True)
print(
    "gradcheck, reverse and forward:",
    torch.autograd.gradcheck(FullCbrt.apply, (x64,), check_forward_ad=True),
)
# --8<-- [end:jvp-rule]


# --8<-- [start:custom-op]
@torch.library.custom_op("course::cbrt", mutates_args=())
def cbrt(x: torch.Tensor) -> torch.Tensor:
    """The cube root as an operator of its own: its body may call any code."""
    return torch.from_numpy(np.cbrt(x.numpy(force=True)))


@cbrt.register_fake
def _(x: torch.Tensor) -> torch.Tensor:
    return torch.empty_like(x)  # the output's shape and dtype, for torch.compile


def cbrt_setup_context(ctx: FunctionCtx, inputs: tuple, output: torch.Tensor) -> None:
    ctx.save_for_backward(output)  # as in Cbrt


def cbrt_backward(ctx: FunctionCtx, grad_y: torch.Tensor) -> torch.Tensor:
    (y,) = ctx.saved_tensors
    return grad_y / (3 * y**2)  # as in Cbrt


def cbrt_vmap(info, in_dims: tuple, x: torch.Tensor) -> tuple[torch.Tensor, int | None]:
    return cbrt(x), in_dims[0]  # as in BatchedCbrt: one call on the whole batch


cbrt.register_autograd(cbrt_backward, setup_context=cbrt_setup_context)
cbrt.register_vmap(cbrt_vmap)

x = points.clone().requires_grad_()
cbrt(x).sum().backward()
print("cbrt(points):      ", cbrt(points))
print("backward():        ", x.grad)
print("vmap(cbrt):        ", vmap(cbrt)(points))
print("jvp, the tangent:  ", jvp(cbrt, (points,), (tangent,))[1])
# --8<-- [end:custom-op]

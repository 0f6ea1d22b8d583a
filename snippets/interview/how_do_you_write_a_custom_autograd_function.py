"""Interview: How do you write a custom autograd function?
(docs/interview/how-do-you-write-a-custom-autograd-function.md)"""

# --8<-- [start:function]
import torch
from torch.autograd.function import FunctionCtx


class ScaledSigmoid(torch.autograd.Function):
    """y = sigmoid(k * x) for a tensor x and a plain number k."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: torch.Tensor, k: float) -> torch.Tensor:
        y = torch.sigmoid(k * x)
        ctx.save_for_backward(y)  # tensors: save_for_backward
        ctx.k = k  # a plain number can be stored as an attribute
        return y

    @staticmethod
    def backward(ctx: FunctionCtx, grad_y: torch.Tensor) -> tuple[torch.Tensor, None]:
        (y,) = ctx.saved_tensors
        grad_x = grad_y * ctx.k * y * (1 - y)  # chain rule: incoming gradient times dy/dx
        return grad_x, None  # one entry per input of forward; k gets None


x = torch.tensor([-1.0, 0.0, 2.0], requires_grad=True)
y = ScaledSigmoid.apply(x, 3.0)
y.sum().backward()
print("y:", y.detach(), " made by", y.grad_fn.name())
print("x.grad:", x.grad)

x_ref = torch.tensor([-1.0, 0.0, 2.0], requires_grad=True)
torch.sigmoid(3.0 * x_ref).sum().backward()
print("autograd's own gradient:", x_ref.grad)
# --8<-- [end:function]

# --8<-- [start:gradcheck]
torch.manual_seed(0)
x64 = torch.randn(4, dtype=torch.float64, requires_grad=True)
print("gradcheck:", torch.autograd.gradcheck(lambda t: ScaledSigmoid.apply(t, 3.0), (x64,)))
# --8<-- [end:gradcheck]


# --8<-- [start:wrong]
class ForgotTheScale(ScaledSigmoid):
    """The same forward; the backward leaves out the factor k of the chain rule."""

    @staticmethod
    def backward(ctx: FunctionCtx, grad_y: torch.Tensor) -> tuple[torch.Tensor, None]:
        (y,) = ctx.saved_tensors
        return grad_y * y * (1 - y), None  # wrong: d sigmoid(kx)/dx has a factor k


# --8<-- [end:wrong]

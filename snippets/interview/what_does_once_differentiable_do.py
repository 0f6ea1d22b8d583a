"""Interview: What does @once_differentiable do?

Included by docs/interview/what-does-once-differentiable-do.md.
"""
# ruff: noqa: E402

# --8<-- [start:functions]
import torch
from torch.autograd.function import FunctionCtx, once_differentiable


class SiLU(torch.autograd.Function):
    """y = x * sigmoid(x), with a backward made of PyTorch operations."""

    @staticmethod
    def forward(x: torch.Tensor) -> torch.Tensor:
        return x * torch.sigmoid(x)

    @staticmethod
    def setup_context(ctx: FunctionCtx, inputs: tuple, output: torch.Tensor) -> None:
        ctx.save_for_backward(inputs[0])  # the input: backward recomputes the rest

    @staticmethod
    def backward(ctx: FunctionCtx, grad_y: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        s = torch.sigmoid(x)
        return grad_y * s * (1 + x * (1 - s))  # SiLU'(x) = s (1 + x (1 - s))


class OnceSiLU(SiLU):
    """The same backward, decorated: it runs with recording off."""

    @staticmethod
    @once_differentiable
    def backward(ctx: FunctionCtx, grad_y: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        s = torch.sigmoid(x)
        return grad_y * s * (1 + x * (1 - s))


x = torch.tensor([0.0, 1.0, 2.0], requires_grad=True)
for f in (SiLU, OnceSiLU):
    (first,) = torch.autograd.grad(f.apply(x).sum(), x, create_graph=True)
    print(f"{f.__name__:8} first derivative {first.detach()}  requires_grad {first.requires_grad}")
# --8<-- [end:functions]

# --8<-- [start:constant-silent]
s = torch.sigmoid(x.detach())
by_hand = s * (1 - s) * (2 + x.detach() * (1 - 2 * s)) + 2  # SiLU''(x) + 2
for f in (SiLU, OnceSiLU):
    # loss = SiLU(x) + x²: the second derivative is SiLU''(x) + 2
    (first,) = torch.autograd.grad((f.apply(x) + x**2).sum(), x, create_graph=True)
    (second,) = torch.autograd.grad(first.sum(), x)
    print(f"{f.__name__:8} second derivative {second}")
print("by hand           ", by_hand)
# --8<-- [end:constant-silent]

# --8<-- [start:error-node]
# loss = ½ (SiLU(x) - 1)²: the gradient arriving at SiLU is SiLU(x) - 1, which
# depends on x, so it requires grad under create_graph=True.
(first,) = torch.autograd.grad((0.5 * (OnceSiLU.apply(x) - 1) ** 2).sum(), x, create_graph=True)
error_node = first.grad_fn
print("first derivative:", first.detach(), " requires_grad:", first.requires_grad)
print("made by:", type(error_node).__name__)
alias = error_node.next_functions[0][0].variable  # what the Error node leads back to
print("it leads back to x:", alias is x, " to a detached copy:", torch.equal(alias, first))
# --8<-- [end:error-node]

# --8<-- [start:penalty]
torch.manual_seed(0)
W1 = torch.randn(3, 2, requires_grad=True)  # a tiny critic: D(x) = w2 · act(W1 x)
w2 = torch.randn(3, requires_grad=True)
inputs = torch.randn(4, 2, requires_grad=True)


def gradient_penalty(act) -> torch.Tensor:
    """(|dD/dx| - 1)², averaged over the inputs, as in WGAN-GP."""
    critic = (act(inputs @ W1.T) @ w2).sum()
    (dd_dx,) = torch.autograd.grad(critic, inputs, create_graph=True)
    return ((dd_dx.norm(dim=1) - 1) ** 2).mean()


(right,) = torch.autograd.grad(gradient_penalty(SiLU.apply), W1)
(skipped,) = torch.autograd.grad(gradient_penalty(OnceSiLU.apply), W1)
print("d penalty / d W1, SiLU:    ", right.flatten()[:3])
print("d penalty / d W1, OnceSiLU:", skipped.flatten()[:3])
print("the same:", torch.allclose(right, skipped))
(w2_grad,) = torch.autograd.grad(gradient_penalty(OnceSiLU.apply), w2, allow_unused=True)
print("d penalty / d w2, OnceSiLU, allow_unused=True:", w2_grad)
# --8<-- [end:penalty]

# --8<-- [start:func]
from torch.func import grad

zero = torch.tensor(0.0)
print("grad(grad(SiLU.apply))(0):    ", grad(grad(SiLU.apply))(zero))  # SiLU''(0) = 1/2
print("grad(grad(OnceSiLU.apply))(0):", grad(grad(OnceSiLU.apply))(zero))
# --8<-- [end:func]


# --8<-- [start:saved-intermediate]
class SiLUSavedSigmoid(torch.autograd.Function):
    """SiLU that saves sigmoid(x), computed in forward, where nothing is recorded."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: torch.Tensor) -> torch.Tensor:
        s = torch.sigmoid(x)  # an intermediate: neither an input nor the output
        ctx.save_for_backward(x, s)
        return x * s

    @staticmethod
    def backward(ctx: FunctionCtx, grad_y: torch.Tensor) -> torch.Tensor:
        x, s = ctx.saved_tensors  # to autograd, s is a constant: no path back to x
        return grad_y * s * (1 + x * (1 - s))


x64 = torch.tensor([0.0, 1.0, 2.0], dtype=torch.float64, requires_grad=True)
print("gradcheck, first derivative:", torch.autograd.gradcheck(SiLUSavedSigmoid.apply, (x64,)))
torch.manual_seed(0)  # gradgradcheck draws a random gradient to push back
# --8<-- [end:saved-intermediate]

# --8<-- [start:gradgradcheck]
torch.manual_seed(0)
print("gradgradcheck of SiLU:", torch.autograd.gradgradcheck(SiLU.apply, (x64,)))
# --8<-- [end:gradgradcheck]

"""Interview: What is the straight-through estimator?
(docs/interview/what-is-the-straight-through-estimator.md)"""

# --8<-- [start:zero-gradient]
from collections.abc import Callable

import torch
import torch.nn.functional as F
from torch.autograd.function import FunctionCtx

w = torch.tensor([0.3, -0.2], requires_grad=True)
torch.sign(w).sum().backward()
print("gradient through sign():", w.grad)
# --8<-- [end:zero-gradient]


# --8<-- [start:sign-ste]
class SignSTE(torch.autograd.Function):
    """sign(w) forward; backward passes the gradient through where |w| <= 1."""

    @staticmethod
    def forward(ctx: FunctionCtx, w: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(w)
        return torch.where(w >= 0, 1.0, -1.0)  # binary: every weight is +1 or -1

    @staticmethod
    def backward(ctx: FunctionCtx, grad_b: torch.Tensor) -> torch.Tensor:
        (w,) = ctx.saved_tensors
        return grad_b * (w.abs() <= 1)  # straight through, but not far outside [-1, 1]


w = torch.tensor([0.3, -0.2, 1.5], requires_grad=True)
b = SignSTE.apply(w)
b.sum().backward()
print("forward:", b.detach(), " gradient:", w.grad)
# --8<-- [end:sign-ste]

# --8<-- [start:detach-trick]
w = torch.tensor([0.3, -0.2, 1.5, 0.0], requires_grad=True)
binary = torch.where(w >= 0, 1.0, -1.0)  # as SignSTE: +1 at w = 0

# Plain STE: value sign(w), gradient 1 everywhere.
plain = w + (torch.sign(w) - w).detach()
plain.sum().backward()
print("plain:   forward", plain.detach(), " gradient", w.grad)

# Clipped STE, the same as SignSTE: gradient 1 only where |w| <= 1.
w.grad = None
c = w.clamp(-1, 1)
clipped = c + (binary - c).detach()
clipped.sum().backward()
print("clipped: forward", clipped.detach(), " gradient", w.grad)
print("SignSTE: forward", SignSTE.apply(w).detach())
# --8<-- [end:detach-trick]

# --8<-- [start:train]
torch.manual_seed(0)
inputs = torch.randn(32, 2)
targets = inputs @ torch.tensor([1.0, -1.0])  # the best binary weights are +1 and -1


def train(binarise: Callable[[torch.Tensor], torch.Tensor], steps: int = 4) -> None:
    w = torch.tensor([-0.3, 0.2], requires_grad=True)  # both signs wrong at the start
    optimizer = torch.optim.SGD([w], lr=0.1)
    for step in range(steps):
        binary = binarise(w)
        loss = F.mse_loss(inputs @ binary, targets)
        optimizer.zero_grad()
        loss.backward()
        print(
            f"  step {step}: w {[round(v, 3) for v in w.tolist()]}  binary {binary.tolist()}"
            f"  loss {loss.item():.3f}  w.grad {[round(g, 3) for g in w.grad.tolist()]}"
        )
        optimizer.step()


print("plain sign():")
train(torch.sign)
print("sign with the straight-through estimator:")
train(SignSTE.apply)
# --8<-- [end:train]

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
        return torch.where(w >= 0, 1.0, -1.0).to(w.dtype)  # binary: each +1 or -1

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
w = torch.tensor([0.3, -0.2, 1.5, 0.0, 1.0, -1.0], requires_grad=True)
# --8<-- [start:detach-trick-maths]
binary = torch.where(w >= 0, 1.0, -1.0).to(w.dtype)  # as SignSTE: +1 at w = 0

# Plain STE: value sign(w), gradient 1 everywhere.
plain = w + (torch.sign(w) - w).detach()
plain.sum().backward()
print("plain:   forward", plain.detach(), " gradient", w.grad)

# Clipped STE, the same as SignSTE: w where |w| <= 1, a constant elsewhere.
w.grad = None
c = torch.where(w.abs() <= 1, w, w.detach())
clipped = c + (binary - c).detach()
clipped.sum().backward()
print("clipped: forward", clipped.detach(), " gradient", w.grad)

v = w.detach().clone().requires_grad_()
SignSTE.apply(v).sum().backward()
print("SignSTE: forward", SignSTE.apply(v).detach(), " gradient", v.grad)
# --8<-- [end:detach-trick-maths]
# --8<-- [end:detach-trick]


# --8<-- [start:clamp-trap]
def clamp_ste(w: torch.Tensor) -> torch.Tensor:
    """The clipped STE written with clamp."""
    c = w.clamp(-1, 1)
    return c + (torch.where(w >= 0, 1.0, -1.0).to(w.dtype) - c).detach()


w = torch.tensor([1.0, -1.0, 0.5], requires_grad=True)
clamp_ste(w).sum().backward()
print("clamp version at w = 1, -1, 0.5: gradient", w.grad)

# Binary networks clip the real weights to [-1, 1] after every step. A weight at 1 whose
# loss asks it to come down:
for name, binarise in [("clamp version", clamp_ste), ("SignSTE", SignSTE.apply)]:
    w = torch.tensor([1.0], requires_grad=True)
    optimizer = torch.optim.SGD([w], lr=0.1)
    for _ in range(3):
        optimizer.zero_grad()
        binarise(w).sum().backward()  # the loss grows with w: it pushes w down
        optimizer.step()
        with torch.no_grad():
            w.clamp_(-1, 1)
    print(f"{name:13}: w after 3 steps {w.item():.2f}")
# --8<-- [end:clamp-trap]

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

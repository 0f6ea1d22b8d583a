"""Examples for the chapter "Custom functions and checkpointing".

docs/deeper/custom-functions-and-checkpointing.md includes the regions below; the file
also runs top to bottom on its own:
`python snippets/deeper/custom_functions_and_checkpointing.py`. The calls that fail on
purpose live in the page, in `raises=` blocks.
"""
# ruff: noqa: E402

# --8<-- [start:my-exp]
from collections.abc import Callable
from typing import ClassVar

import torch
import torch.nn.functional as F
from torch import nn
from torch.autograd.function import FunctionCtx
from torch.utils.checkpoint import checkpoint


class MyExp(torch.autograd.Function):
    """y = exp(x), with its backward written by hand."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: torch.Tensor) -> torch.Tensor:
        y = torch.exp(x)
        ctx.save_for_backward(y)  # d exp(x)/dx = exp(x): keep the output, not the input
        return y

    @staticmethod
    def backward(ctx: FunctionCtx, grad_y: torch.Tensor) -> torch.Tensor:
        (y,) = ctx.saved_tensors
        return grad_y * y  # the chain rule: the gradient arriving at y, times dy/dx


x = torch.tensor([0.0, 1.0, 2.0], requires_grad=True)
y = MyExp.apply(x)
print("y:", y.detach(), " made by", y.grad_fn.name())
print("saved for backward:", y.grad_fn.saved_tensors[0].detach())  # the output y
y.sum().backward()
print("x.grad:", x.grad)
# --8<-- [end:my-exp]

# --8<-- [start:my-exp-gradcheck]
torch.manual_seed(0)
x64 = torch.randn(5, dtype=torch.float64, requires_grad=True)
print("gradcheck of MyExp:", torch.autograd.gradcheck(MyExp.apply, (x64,)))
# --8<-- [end:my-exp-gradcheck]

# --8<-- [start:naive-softplus]
print("exp(88.7), exp(88.8) in float32:", torch.exp(torch.tensor([88.7, 88.8])))
points = [-200.0, 0.0, 20.0, 100.0, 1000.0]
x = torch.tensor(points, requires_grad=True)
naive = torch.log(1 + torch.exp(x))  # the textbook formula, in float32
naive.sum().backward()
print("naive softplus:", naive.detach())
print("its gradient:  ", x.grad)
# --8<-- [end:naive-softplus]


# --8<-- [start:softplus]
class StableSoftplus(torch.autograd.Function):
    """softplus(x) = log(1 + exp(x)), computed without overflow; its derivative is sigmoid(x)."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x)
        # log(1 + e^x) = max(x, 0) + log(1 + e^-|x|): the exponent is never positive
        return torch.clamp(x, min=0) + torch.log1p(torch.exp(-torch.abs(x)))

    @staticmethod
    def backward(ctx: FunctionCtx, grad_y: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        return grad_y * torch.sigmoid(x)  # sigmoid is computed stably by PyTorch


x = torch.tensor(points, requires_grad=True)
y = StableSoftplus.apply(x)
y.sum().backward()
print("stable softplus:", y.detach())
print("its gradient:   ", x.grad)

x_ref = torch.tensor(points, requires_grad=True)
F.softplus(x_ref).sum().backward()  # PyTorch's own softplus, for comparison
torch.testing.assert_close(y, F.softplus(x_ref))
torch.testing.assert_close(x.grad, x_ref.grad)
print("same values and gradients as F.softplus")
# --8<-- [end:softplus]

# --8<-- [start:softplus-gradcheck]
x64 = torch.linspace(-30, 30, 13, dtype=torch.float64, requires_grad=True)
print("gradcheck of StableSoftplus:", torch.autograd.gradcheck(StableSoftplus.apply, (x64,)))
# --8<-- [end:softplus-gradcheck]


# --8<-- [start:needs-input-grad]
class MyLinear(torch.autograd.Function):
    """y = x @ weight.T, computing only the gradients that are needed."""

    computed: ClassVar[list[str]] = []  # a record of the work each backward() did
    last_ctx: ClassVar[object] = None  # the ctx the last backward() received

    @staticmethod
    def forward(ctx: FunctionCtx, x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x, weight)
        return x @ weight.T

    @staticmethod
    def backward(
        ctx: FunctionCtx, grad_y: torch.Tensor
    ) -> tuple[torch.Tensor | None, torch.Tensor | None]:
        MyLinear.last_ctx = ctx
        x, weight = ctx.saved_tensors
        grad_x = grad_weight = None  # None: "no gradient for this input"
        if ctx.needs_input_grad[0]:
            grad_x = grad_y @ weight  # (N, out) @ (out, in) = (N, in)
            MyLinear.computed.append("grad_x")
        if ctx.needs_input_grad[1]:
            grad_weight = grad_y.T @ x  # (out, N) @ (N, in) = (out, in)
            MyLinear.computed.append("grad_weight")
        return grad_x, grad_weight


torch.manual_seed(0)
data = torch.randn(4, 3)  # input data: does not require grad
weight = torch.randn(2, 3, requires_grad=True)
y = MyLinear.apply(data, weight)
print("needs_input_grad:", y.grad_fn.needs_input_grad)  # the node is the ctx
y.sum().backward()
print("computed:", MyLinear.computed)
print("the ctx that backward() received is y.grad_fn:", MyLinear.last_ctx is y.grad_fn)
# --8<-- [end:needs-input-grad]

# --8<-- [start:needs-input-grad-check]
x64 = torch.randn(4, 3, dtype=torch.float64, requires_grad=True)
w64 = torch.randn(2, 3, dtype=torch.float64, requires_grad=True)
print("gradcheck of MyLinear:", torch.autograd.gradcheck(MyLinear.apply, (x64, w64)))
# --8<-- [end:needs-input-grad-check]


# --8<-- [start:non-differentiable]
class ClipAndCount(torch.autograd.Function):
    """Clip to [-1, 1]; also return a float mask of the entries that were clipped."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        clipped = (x.abs() > 1).to(x.dtype)  # 1.0 where x was outside [-1, 1]
        ctx.save_for_backward(clipped)
        ctx.mark_non_differentiable(clipped)  # a mask, not a value to differentiate
        return x.clamp(-1, 1), clipped

    @staticmethod
    def backward(
        ctx: FunctionCtx, grad_out: torch.Tensor, grad_clipped: torch.Tensor
    ) -> torch.Tensor:
        (clipped,) = ctx.saved_tensors
        return grad_out * (1 - clipped)  # the gradient of clamp: 0 where it clipped


x = torch.tensor([-3.0, 0.5, 2.0], requires_grad=True)
out, clipped = ClipAndCount.apply(x)
print("out:", out.detach(), " requires_grad:", out.requires_grad)
print("clipped:", clipped, " requires_grad:", clipped.requires_grad)
out.sum().backward()
print("x.grad:", x.grad)
# --8<-- [end:non-differentiable]

# --8<-- [start:clip-at-the-bounds]
at_bounds = torch.tensor([-1.0, 1.0], requires_grad=True)
ClipAndCount.apply(at_bounds)[0].sum().backward()
print("ClipAndCount, gradient at -1 and 1:", at_bounds.grad.tolist())
at_bounds = torch.tensor([-1.0, 1.0], requires_grad=True)
at_bounds.clamp(-1, 1).sum().backward()
print("torch.clamp,  gradient at -1 and 1:", at_bounds.grad.tolist())
# --8<-- [end:clip-at-the-bounds]


# --8<-- [start:ste]
class RoundSTE(torch.autograd.Function):
    """Round in the forward pass; pass the gradient straight through in the backward pass."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: torch.Tensor) -> torch.Tensor:
        return torch.round(x)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_y: torch.Tensor) -> torch.Tensor:
        return grad_y  # as if the forward pass had been the identity


x = torch.tensor([0.4, 1.6, -2.5], requires_grad=True)
y = RoundSTE.apply(x)
y.sum().backward()
print("RoundSTE:", y.detach(), " x.grad:", x.grad)

x_trick = torch.tensor([0.4, 1.6, -2.5], requires_grad=True)
# --8<-- [start:ste-trick-maths]
y_trick = x_trick + (torch.round(x_trick) - x_trick).detach()  # the same, without a class
y_trick.sum().backward()
# --8<-- [end:ste-trick-maths]
print("detach trick:", y_trick.detach(), " x.grad:", x_trick.grad)
# --8<-- [end:ste]


# --8<-- [start:ste-training]
def train_quantised(rounding: str, steps: int = 15) -> list[float]:
    """Learn y = 1.5 x with a weight rounded to a multiple of 0.5; return the losses."""
    x = torch.tensor([1.0, 2.0, 3.0, 4.0])
    target = 1.5 * x
    w = torch.tensor(0.1, requires_grad=True)  # the real-valued weight we train
    optimizer = torch.optim.SGD([w], lr=0.01)
    quantise = torch.round if rounding == "plain round" else RoundSTE.apply
    losses = []
    print(f"{rounding}:")
    for step in range(steps):
        q = quantise(2 * w) / 2  # the quantised weight: ..., 0, 0.5, 1, 1.5, ...
        loss = ((q * x - target) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        if step % 2 == 0 or step == steps - 1:
            print(
                f"  step {step:2}: w {w.item():.3f}  q {q.item():.1f}  "
                f"loss {loss.item():7.3f}  w.grad {w.grad.item():6.2f}"
            )
        optimizer.step()
        losses.append(loss.item())
    return losses


plain_losses = train_quantised("plain round")
ste_losses = train_quantised("straight-through")
# --8<-- [end:ste-training]


# --8<-- [start:exp-new-style]
from torch.func import grad, jvp, vmap


class Exp(torch.autograd.Function):
    """y = exp(x) in the current style, which torch.func's transforms accept."""

    generate_vmap_rule = True  # vmap may batch forward, setup_context and backward itself

    @staticmethod
    def forward(x: torch.Tensor) -> torch.Tensor:  # no ctx: forward only computes
        return torch.exp(x)

    @staticmethod
    def setup_context(ctx: FunctionCtx, inputs: tuple, output: torch.Tensor) -> None:
        ctx.save_for_backward(output)  # what MyExp.forward saved, saved here instead

    @staticmethod
    def backward(ctx: FunctionCtx, grad_y: torch.Tensor) -> torch.Tensor:
        (y,) = ctx.saved_tensors
        return grad_y * y  # unchanged


print("vmap(grad(Exp.apply)):", vmap(grad(Exp.apply))(torch.tensor([0.0, 1.0])))
x = torch.tensor([0.0, 1.0], requires_grad=True)
Exp.apply(x).sum().backward()  # backward() works as before
print("x.grad after backward():", x.grad)
# --8<-- [end:exp-new-style]

# --8<-- [start:forward-mode-start]
import warnings

# PyTorch warns about its own use of torch.jit.script on the first forward-mode call
# (a FutureWarning since 2.14, a DeprecationWarning before). Hide exactly that warning,
# by its message:
warnings.filterwarnings("ignore", "`torch.jit.script` is deprecated")
x = torch.tensor([0.0, 1.0])
x_dot = torch.tensor([1.0, 2.0])  # the tangent: how fast each entry of x moves
# --8<-- [end:forward-mode-start]


# --8<-- [start:jvp]
class ExpWithJvp(Exp):
    """Exp, with a forward-mode rule as well."""

    @staticmethod
    def setup_context(ctx: FunctionCtx, inputs: tuple, output: torch.Tensor) -> None:
        ctx.save_for_backward(output)  # for backward
        ctx.save_for_forward(output)  # for jvp

    @staticmethod
    def jvp(ctx: FunctionCtx, x_dot: torch.Tensor) -> torch.Tensor:
        (y,) = ctx.saved_tensors
        return y * x_dot  # the tangent of y = exp(x): exp(x) times the tangent of x


y, y_dot = jvp(ExpWithJvp.apply, (x,), (x_dot,))
print("y:    ", y)
print("y_dot:", y_dot)
print("the same as torch.exp's:", torch.equal(y_dot, jvp(torch.exp, (x,), (x_dot,))[1]))
print("jacfwd, built on jvp:", torch.func.jacfwd(ExpWithJvp.apply)(x))
# --8<-- [end:jvp]

# --8<-- [start:gradgradcheck]
x = torch.tensor([-2.0, 0.0, 2.0], requires_grad=True)
(first,) = torch.autograd.grad(StableSoftplus.apply(x).sum(), x, create_graph=True)
print("first derivative, sigmoid(x):", first.detach(), " made by", first.grad_fn.name())
(second,) = torch.autograd.grad(first.sum(), x)
s = torch.sigmoid(x.detach())
print("second derivative:           ", second)
print("by hand, s(1 - s):           ", s * (1 - s))

torch.manual_seed(0)  # gradgradcheck draws random gradients to push back
x64 = torch.linspace(-30, 30, 13, dtype=torch.float64, requires_grad=True)
passed = torch.autograd.gradgradcheck(StableSoftplus.apply, (x64,))
print("gradgradcheck of StableSoftplus:", passed)
# --8<-- [end:gradgradcheck]

# --8<-- [start:saved-output]
x = torch.tensor([0.0, 1.0], requires_grad=True)
(first,) = torch.autograd.grad(MyExp.apply(x).sum(), x, create_graph=True)
print("first derivative: ", first.detach(), " made by", first.grad_fn.name())
print("  from the saved y, made by", first.grad_fn.next_functions[1][0].name())
(second,) = torch.autograd.grad(first.sum(), x)
print("second derivative:", second, " equal to e^x:", torch.equal(second, torch.exp(x.detach())))

torch.manual_seed(0)  # gradgradcheck draws random gradients to push back
x64 = torch.linspace(-2, 2, 5, dtype=torch.float64, requires_grad=True)
print("gradgradcheck of MyExp:", torch.autograd.gradgradcheck(MyExp.apply, (x64,)))
# --8<-- [end:saved-output]


# --8<-- [start:saved-intermediate]
class SoftplusSavedSigmoid(torch.autograd.Function):
    """StableSoftplus, but backward reads a σ(x) that forward computed: an intermediate."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: torch.Tensor) -> torch.Tensor:
        s = torch.sigmoid(x)  # neither an input nor an output of forward
        ctx.save_for_backward(s)
        return torch.clamp(x, min=0) + torch.log1p(torch.exp(-torch.abs(x)))

    @staticmethod
    def backward(ctx: FunctionCtx, grad_y: torch.Tensor) -> torch.Tensor:
        (s,) = ctx.saved_tensors  # made while nothing was recorded: a constant to autograd
        return grad_y * s


x = torch.tensor([-2.0, 0.0, 2.0], requires_grad=True)
(first,) = torch.autograd.grad(SoftplusSavedSigmoid.apply(x).sum(), x, create_graph=True)
print("first derivative:", first, " requires_grad:", first.requires_grad)
x64 = torch.linspace(-30, 30, 13, dtype=torch.float64, requires_grad=True)
print(
    "gradcheck of SoftplusSavedSigmoid:",
    torch.autograd.gradcheck(SoftplusSavedSigmoid.apply, (x64,)),
)
# --8<-- [end:saved-intermediate]

# --8<-- [start:saved-intermediate-silent]
# L = sum(x · softplus(x)): dL/dx = softplus(x) + x σ(x), d²L/dx² = 2σ(x) + x σ(x)(1 - σ(x)).
(first,) = torch.autograd.grad((x * SoftplusSavedSigmoid.apply(x)).sum(), x, create_graph=True)
(second,) = torch.autograd.grad(first.sum(), x)
s = torch.sigmoid(x.detach())
print("autograd's second derivative:", second)
print("the right one, by hand:      ", 2 * s + x.detach() * s * (1 - s))
# --8<-- [end:saved-intermediate-silent]


# --8<-- [start:intermediate-as-output]
def received(grad: torch.Tensor | None) -> str:
    """How a gradient arrived in backward: None, zeros, or its values."""
    if grad is None:
        return "None"
    return "zeros" if not grad.any() else str(grad.tolist())


class SoftplusAndSigmoid(torch.autograd.Function):
    """softplus(x), and σ(x) as a second output: σ is saved as an output, not an intermediate."""

    calls: ClassVar[list[str]] = []  # what each backward() call received

    @staticmethod
    def forward(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        softplus = torch.clamp(x, min=0) + torch.log1p(torch.exp(-torch.abs(x)))
        return softplus, torch.sigmoid(x)

    @staticmethod
    def setup_context(ctx: FunctionCtx, inputs: tuple, output: tuple) -> None:
        ctx.save_for_backward(output[1])  # σ(x), an output: autograd knows how it was made

    @staticmethod
    def backward(ctx: FunctionCtx, grad_y: torch.Tensor, grad_s: torch.Tensor) -> torch.Tensor:
        (s,) = ctx.saved_tensors
        SoftplusAndSigmoid.calls.append(f"grad_y {received(grad_y)}, grad_s {received(grad_s)}")
        return grad_y * s + grad_s * s * (1 - s)  # softplus' = σ, and σ' = σ(1 - σ)


x = torch.tensor([-2.0, 0.0, 2.0], requires_grad=True)
y, _ = SoftplusAndSigmoid.apply(x)  # the loss uses softplus only
(first,) = torch.autograd.grad(y.sum(), x, create_graph=True)
(second,) = torch.autograd.grad(first.sum(), x)
s = torch.sigmoid(x.detach())
print("second derivative:", second)
print("by hand, s(1 - s):", s * (1 - s))
for number, call in enumerate(SoftplusAndSigmoid.calls, start=1):
    print(f"backward call {number}: {call}")

torch.manual_seed(0)
x64 = torch.linspace(-30, 30, 13, dtype=torch.float64, requires_grad=True)
passed = torch.autograd.gradgradcheck(lambda t: SoftplusAndSigmoid.apply(t)[0], (x64,))
print("gradgradcheck:", passed)
# --8<-- [end:intermediate-as-output]


# --8<-- [start:materialize-grads]
class SoftplusAndSigmoidNone(SoftplusAndSigmoid):
    """The same, told not to turn the gradient of an unused output into zeros."""

    @staticmethod
    def setup_context(ctx: FunctionCtx, inputs: tuple, output: tuple) -> None:
        ctx.save_for_backward(output[1])
        ctx.set_materialize_grads(False)  # an unused output's gradient arrives as None

    @staticmethod
    def backward(ctx: FunctionCtx, grad_y: torch.Tensor | None, grad_s: torch.Tensor | None):
        (s,) = ctx.saved_tensors
        SoftplusAndSigmoid.calls.append(f"grad_y {received(grad_y)}, grad_s {received(grad_s)}")
        grad_x = None  # each term only when its gradient arrived: no work for zeros
        if grad_y is not None:
            grad_x = grad_y * s
        if grad_s is not None:
            term = grad_s * s * (1 - s)
            grad_x = term if grad_x is None else grad_x + term
        return grad_x


SoftplusAndSigmoid.calls.clear()
x = torch.tensor([-2.0, 0.0, 2.0], requires_grad=True)
y, _ = SoftplusAndSigmoidNone.apply(x)
(first,) = torch.autograd.grad(y.sum(), x, create_graph=True)
(second_none,) = torch.autograd.grad(first.sum(), x)
print("second derivative, the same:", torch.equal(second_none, second))
for number, call in enumerate(SoftplusAndSigmoid.calls, start=1):
    print(f"backward call {number}: {call}")
# --8<-- [end:materialize-grads]


# --8<-- [start:once-differentiable]
from torch.autograd.function import once_differentiable


class OnceSoftplus(torch.autograd.Function):
    """StableSoftplus, with a backward that is run once and never differentiated."""

    @staticmethod
    def forward(x: torch.Tensor) -> torch.Tensor:
        return torch.clamp(x, min=0) + torch.log1p(torch.exp(-torch.abs(x)))

    @staticmethod
    def setup_context(ctx: FunctionCtx, inputs: tuple, output: torch.Tensor) -> None:
        ctx.save_for_backward(inputs[0])

    @staticmethod
    @once_differentiable  # backward runs with recording off
    def backward(ctx: FunctionCtx, grad_y: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        return grad_y * torch.sigmoid(x)


x = torch.tensor([-2.0, 0.0, 2.0], requires_grad=True)
(first,) = torch.autograd.grad(OnceSoftplus.apply(x).sum(), x, create_graph=True)
print("first derivative:", first, " requires_grad:", first.requires_grad)
# --8<-- [end:once-differentiable]

# --8<-- [start:once-differentiable-silent]
# The first derivative of softplus(x) + x³ is σ(x) + 3x², the second σ(x)(1 - σ(x)) + 6x.
(first,) = torch.autograd.grad((OnceSoftplus.apply(x) + x**3).sum(), x, create_graph=True)
(second,) = torch.autograd.grad(first.sum(), x)
s = torch.sigmoid(x.detach())
print("autograd's second derivative:", second)
print("the right one, by hand:      ", s * (1 - s) + 6 * x.detach())
# --8<-- [end:once-differentiable-silent]

# --8<-- [start:once-differentiable-inside]
# L = sum(x · softplus(x)): the gradient that arrives at OnceSoftplus is x, not a constant.
(first,) = torch.autograd.grad((x * OnceSoftplus.apply(x)).sum(), x, create_graph=True)
print("first derivative requires grad:", first.requires_grad)
print("the nodes it adds up:", [node.name() for node, _ in first.grad_fn.next_functions])
error_node = next(n for n, _ in first.grad_fn.next_functions if "Error" in n.name())
print("does the Error node lead to x?", error_node.next_functions[0][0].variable is x)
# --8<-- [end:once-differentiable-inside]

# --8<-- [start:once-differentiable-dropped]
# A fresh graph: the backward() that raised may have freed part of the old one.
# dL/dx = softplus(x) + x σ(x), so d²L/dx² = 2σ(x) + x σ(x)(1 - σ(x)).
(first,) = torch.autograd.grad((x * OnceSoftplus.apply(x)).sum(), x, create_graph=True)
(second,) = torch.autograd.grad(first.sum(), x)
s = torch.sigmoid(x.detach())
print("autograd's second derivative:", second)
print("the right one, by hand:      ", 2 * s + x.detach() * s * (1 - s))
# --8<-- [end:once-differentiable-dropped]

# --8<-- [start:once-differentiable-func]
zero = torch.tensor(0.0)
print("grad(grad(OnceSoftplus.apply))(0):", grad(grad(OnceSoftplus.apply))(zero))
print("grad(grad(F.softplus))(0):        ", grad(grad(F.softplus))(zero))
# --8<-- [end:once-differentiable-func]


# --8<-- [start:mark-dirty]
class TripleInPlace(torch.autograd.Function):
    """y = 3x, written into x's own memory."""

    @staticmethod
    def forward(x: torch.Tensor) -> torch.Tensor:
        return x.mul_(3)

    @staticmethod
    def setup_context(ctx: FunctionCtx, inputs: tuple, output: torch.Tensor) -> None:
        ctx.mark_dirty(inputs[0])  # "forward changed this input in place"

    @staticmethod
    def backward(ctx: FunctionCtx, grad_y: torch.Tensor) -> torch.Tensor:
        return grad_y * 3


class TripleInPlaceUnmarked(TripleInPlace):
    """The same, with mark_dirty forgotten."""

    @staticmethod
    def setup_context(ctx: FunctionCtx, inputs: tuple, output: torch.Tensor) -> None:
        pass


for function in (TripleInPlace, TripleInPlaceUnmarked):
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    h = 2 * a  # not a leaf, so it may be changed in place
    y = function.apply(h)  # h now holds 3 * 2a
    h.sum().backward()  # a gradient through h
    print(
        f"{function.__name__:21}  y is h: {y is h!s:5}  "
        f"h.grad_fn: {h.grad_fn.name():21}  a.grad: {a.grad.tolist()}"
    )
# --8<-- [end:mark-dirty]


# --8<-- [start:mlp]
torch.manual_seed(0)
DEPTH, WIDTH, BATCH = 16, 64, 32  # 16 blocks; a block's input is 32 x 64 floats


class Block(nn.Module):
    """An MLP block: widen to 4 x WIDTH, tanh, back to WIDTH, tanh. Counts its calls."""

    calls = 0

    def __init__(self) -> None:
        super().__init__()
        self.widen = nn.Linear(WIDTH, 4 * WIDTH)
        self.narrow = nn.Linear(4 * WIDTH, WIDTH)

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        Block.calls += 1
        return torch.tanh(self.narrow(torch.tanh(self.widen(h))))


blocks = nn.ModuleList(Block() for _ in range(DEPTH))
head = nn.Linear(WIDTH, 1)
params = [*blocks.parameters(), *head.parameters()]
inputs = torch.randn(BATCH, WIDTH)
print(f"a block's input: {inputs.numel()} floats = {inputs.numel() * 4 // 1024} KiB")
print(f"its hidden activation: {4 * inputs.numel()} floats = {4 * inputs.numel() * 4 // 1024} KiB")
# --8<-- [end:mlp]


# --8<-- [start:counting]
class SavedTensors:
    """Count what autograd saves for backward, with a saved_tensors_hooks pack hook."""

    def __init__(self, already_kept: list[torch.Tensor]) -> None:
        # Memory that exists anyway (the parameters, and views of them such as weight.T).
        self.kept = {t.untyped_storage().data_ptr() for t in already_kept}
        self.saved = 0  # how many tensors the nodes saved
        self.memory: dict[int, int] = {}  # the distinct memory they use: address -> bytes

    def pack(self, t: torch.Tensor) -> torch.Tensor:
        self.saved += 1
        address = t.untyped_storage().data_ptr()
        if address not in self.kept:  # a tensor saved by two nodes is stored once
            self.memory[address] = t.untyped_storage().nbytes()
        return t  # keep the tensor itself: we only count

    def hooks(self) -> torch.autograd.graph.saved_tensors_hooks:
        return torch.autograd.graph.saved_tensors_hooks(self.pack, lambda t: t)

    @property
    def kib(self) -> float:
        return sum(self.memory.values()) / 1024


def run_segment(start: int, stop: int) -> Callable[[torch.Tensor], torch.Tensor]:
    """A function that runs blocks[start:stop], to hand to checkpoint()."""

    def segment(h: torch.Tensor) -> torch.Tensor:
        for block in blocks[start:stop]:
            h = block(h)
        return h

    return segment


def forward_backward(every: int | None) -> tuple[SavedTensors, int, int]:
    """One forward and backward pass, checkpointing every `every` blocks (None: never)."""
    for p in params:
        p.grad = None
    saved = SavedTensors(params)
    Block.calls = 0
    with saved.hooks():
        h = inputs
        if every is None:
            h = run_segment(0, DEPTH)(h)
        else:
            for start in range(0, DEPTH, every):
                h = checkpoint(run_segment(start, start + every), h, use_reentrant=False)
        loss = head(h).mean()
    forward_calls = Block.calls
    loss.backward()
    return saved, forward_calls, Block.calls - forward_calls


saved, forward_calls, backward_calls = forward_backward(None)
reference = [p.grad.clone() for p in params]
print(
    f"tensors saved for backward: {saved.saved}, of which distinct activations: "
    f"{len(saved.memory)}, {saved.kib:g} KiB"
)
print(f"block forward calls: {forward_calls} in forward, {backward_calls} during backward")
# --8<-- [end:counting]

# --8<-- [start:checkpoint-table]
print("every  kept KiB  recomputed KiB  peak KiB (est.)  block forward calls")
for every in (1, 2, 4, 8, 16):
    saved, forward_calls, backward_calls = forward_backward(every)
    for p, expected in zip(params, reference, strict=True):
        torch.testing.assert_close(p.grad, expected)  # the same gradients, every time

    # What one segment saves while backward() recomputes it: run one, count what is new.
    segment_input = inputs.clone()
    one_segment = SavedTensors([*params, segment_input])
    with one_segment.hooks():
        run_segment(0, every)(segment_input)

    peak = saved.kib + one_segment.kib
    print(
        f"{every:5} {saved.kib:9g} {one_segment.kib:15g} {peak:16g}"
        f"  {forward_calls} + {backward_calls}"
    )
print("gradients with checkpointing equal those without: assert_close passed every time")
# --8<-- [end:checkpoint-table]

# --8<-- [start:no-use-reentrant]
x = torch.tensor([0.0, 1.0], requires_grad=True)
y = checkpoint(torch.sin, x)  # use_reentrant not given
print("the node it recorded:", y.grad_fn.name())
y_new = checkpoint(torch.sin, x, use_reentrant=False)
print("with use_reentrant=False:", y_new.grad_fn.name())
# --8<-- [end:no-use-reentrant]

# --8<-- [start:reentrant-no-input-grad]
torch.manual_seed(0)
layer = nn.Linear(3, 3)
data = torch.randn(2, 3)  # data: it does not require grad, only layer's parameters do

layer(data).sum().backward()  # no checkpoint: the reference
expected = layer.weight.grad.clone()
layer.weight.grad = None

out = checkpoint(layer, data, use_reentrant=True)
print("use_reentrant=True:  out.requires_grad =", out.requires_grad)
(out.sum() + layer.bias.pow(2).sum()).backward()  # a loss with a second part: a penalty
print("  after backward(), layer.weight.grad is", layer.weight.grad)

out = checkpoint(layer, data, use_reentrant=False)
print("use_reentrant=False: out.requires_grad =", out.requires_grad)
out.sum().backward()
print("layer.weight.grad as without checkpoint:", torch.equal(layer.weight.grad, expected))
# --8<-- [end:reentrant-no-input-grad]

# --8<-- [start:non-reentrant-grad]
x_in = torch.randn(2, 3, requires_grad=True)
out = checkpoint(layer, x_in, use_reentrant=False)
(x_grad,) = torch.autograd.grad(out.sum(), x_in)
print("torch.autograd.grad with use_reentrant=False: a gradient of shape", tuple(x_grad.shape))
# --8<-- [end:non-reentrant-grad]


# --8<-- [start:nested]
def pairs(h: torch.Tensor) -> torch.Tensor:
    """Blocks 0 to 3, checkpointed two at a time."""
    for start in (0, 2):
        h = checkpoint(run_segment(start, start + 2), h, use_reentrant=False)
    return h


def pairs_in_one(h: torch.Tensor) -> torch.Tensor:
    """The same two checkpoints, inside a third one: a checkpoint in a checkpoint."""
    return checkpoint(pairs, h, use_reentrant=False)


block_calls = [0, 0, 0, 0]  # how often blocks 0 to 3 are called


def counter_for(i: int) -> Callable[..., None]:
    def count(module: nn.Module, args: tuple) -> None:
        block_calls[i] += 1

    return count


counters = [blocks[i].register_forward_pre_hook(counter_for(i)) for i in range(4)]
four_params = list(blocks[:4].parameters())
four_reference = None
print("               kept KiB  calls of blocks 0-3 in backward()  same gradients")
for name, forward in [
    ("no checkpoint", run_segment(0, 4)),
    ("pairs", pairs),
    ("pairs in one", pairs_in_one),
]:
    for p in four_params:
        p.grad = None
    saved = SavedTensors(four_params)
    with saved.hooks():
        out = forward(inputs)
    block_calls[:] = [0, 0, 0, 0]
    out.sum().backward()
    grads = [p.grad.clone() for p in four_params]
    four_reference = four_reference or grads
    same = all(torch.equal(a, b) for a, b in zip(grads, four_reference, strict=True))
    print(f"{name:14} {saved.kib:8g}  {block_calls!s:34} {same}")
for counter in counters:
    counter.remove()
# --8<-- [end:nested]

# --8<-- [start:early-stop]
from torch.utils.checkpoint import set_checkpoint_early_stop


def block_and_head(h: torch.Tensor) -> torch.Tensor:
    return head(blocks[0](h))  # head, a linear layer, saves its input, not its output


head_calls = []  # one entry each time head's forward returns
counter = head.register_forward_hook(lambda module, args, output: head_calls.append(1))
for early_stop in (True, False):
    with set_checkpoint_early_stop(early_stop):  # it must be on while the forward pass runs
        out = checkpoint(block_and_head, inputs, use_reentrant=False)
    head_calls.clear()
    out.sum().backward()
    runs = len(head_calls)
    print(f"early stop {early_stop!s:5}: head's forward completed {runs} time(s) in backward()")
counter.remove()
# --8<-- [end:early-stop]

# --8<-- [start:dropout-rng]
w = torch.ones(8, requires_grad=True)
h = torch.arange(1.0, 9.0)  # 1, 2, ..., 8


def dropout_segment(h: torch.Tensor) -> torch.Tensor:
    return F.dropout(h * w, p=0.5, training=True)  # draws a random mask each time it runs


def run(**checkpoint_args: bool) -> tuple[torch.Tensor, torch.Tensor]:
    """The output and w.grad of one forward and backward pass, from seed 0."""
    w.grad = None
    torch.manual_seed(0)
    if checkpoint_args:
        out = checkpoint(dropout_segment, h, use_reentrant=False, **checkpoint_args)
    else:
        out = dropout_segment(h)
    out.sum().backward()
    return out.detach(), w.grad.clone()


out_plain, grad_plain = run()
out_kept, grad_kept = run(preserve_rng_state=True)  # the default
out_lost, grad_lost = run(preserve_rng_state=False)
print("output, all three runs:          ", out_plain)
print("w.grad without checkpoint:       ", grad_plain)
print("w.grad, preserve_rng_state=True: ", grad_kept)
print("w.grad, preserve_rng_state=False:", grad_lost)
print("same outputs:", torch.equal(out_kept, out_plain) and torch.equal(out_lost, out_plain))
print("w.grad equal to the run without checkpoint?")
print("  preserve_rng_state=True: ", torch.equal(grad_kept, grad_plain))
print("  preserve_rng_state=False:", torch.equal(grad_lost, grad_plain))
# --8<-- [end:dropout-rng]

# --8<-- [start:autocast]
block = blocks[0]
block.zero_grad()
dtypes = []  # the dtype of block.widen's output, each time it runs
counter = block.widen.register_forward_hook(lambda module, args, out: dtypes.append(out.dtype))
with torch.autocast("cpu", dtype=torch.bfloat16):  # the forward pass runs in bfloat16
    out = checkpoint(block, inputs, use_reentrant=False)
out.float().sum().backward()  # backward() runs outside autocast
print("widen's output, forward pass then recomputation:", dtypes)
grad_checkpointed = block.widen.weight.grad.clone()

block.zero_grad()
with torch.autocast("cpu", dtype=torch.bfloat16):
    out = block(inputs)  # the same, without checkpoint
out.float().sum().backward()
print(
    "the same gradient as without checkpoint:",
    torch.equal(grad_checkpointed, block.widen.weight.grad),
)
counter.remove()
# --8<-- [end:autocast]

# --8<-- [start:determinism-check]
rows = {"kept": 3}  # a setting the segment reads from outside its inputs


def first_rows(h: torch.Tensor) -> torch.Tensor:
    return h[: rows["kept"]].pow(2).sum()


h = torch.arange(1.0, 6.0, requires_grad=True)
out = checkpoint(first_rows, h, use_reentrant=False)
rows["kept"] = 4  # changed between the forward pass and backward()
# --8<-- [end:determinism-check]

# --8<-- [start:determinism-silent]
offset = {"value": 0.0}  # the same kind of setting, which changes no shape


def shifted_square(h: torch.Tensor) -> torch.Tensor:
    return (h + offset["value"]).pow(2).sum()


h = torch.arange(1.0, 6.0, requires_grad=True)
out = checkpoint(shifted_square, h, use_reentrant=False)  # computes the sum of h²
offset["value"] = 1.0  # changed between the forward pass and backward()
out.backward()
print("h.grad:", h.grad)
print("by hand, the gradient of the sum of h², 2h:", 2 * h.detach())
# --8<-- [end:determinism-silent]

# --8<-- [start:selective]
import functools
from collections import Counter

from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils.checkpoint import CheckpointPolicy, create_selective_checkpoint_contexts


class CountOps(TorchDispatchMode):
    """Count every operation that runs while it is active, by name (addmm, tanh, ...)."""

    def __init__(self) -> None:
        super().__init__()
        self.counts: Counter[str] = Counter()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.counts[func.overloadpacket.__name__] += 1
        return func(*args, **(kwargs or {}))


def save_matmuls(ctx, op, *args, **kwargs) -> CheckpointPolicy:
    """The policy: keep the output of every matrix product, recompute everything else."""
    if op in (torch.ops.aten.mm.default, torch.ops.aten.addmm.default):
        return CheckpointPolicy.MUST_SAVE
    return CheckpointPolicy.PREFER_RECOMPUTE


block = blocks[0]  # widen (addmm), tanh, narrow (addmm), tanh
variants = {
    "no checkpoint": lambda: block(inputs),
    "checkpoint": lambda: checkpoint(block, inputs, use_reentrant=False),
    "selective": lambda: checkpoint(
        block,
        inputs,
        use_reentrant=False,
        context_fn=functools.partial(create_selective_checkpoint_contexts, save_matmuls),
    ),
}
print("               run again during backward()  block forward calls")
for name, forward in variants.items():
    block.zero_grad()
    Block.calls = 0
    loss = forward().sum()
    with CountOps() as ops:
        loss.backward()
    print(f"{name:14} {ops.counts['addmm']} addmm, {ops.counts['tanh']} tanh {Block.calls:21}")
# --8<-- [end:selective]

# --8<-- [start:save-on-cpu]
print(
    "save_on_cpu is a pair of saved-tensor hooks:",
    issubclass(torch.autograd.graph.save_on_cpu, torch.autograd.graph.saved_tensors_hooks),
)
# --8<-- [end:save-on-cpu]

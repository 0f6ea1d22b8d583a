"""Exercise D.7: write a custom autograd function.
Run it: python snippets/practice/write_a_custom_function.py"""
# Each region is a self-contained cell (page, notebook), so imports repeat.
# ruff: noqa: E402, F811, RUF059

# --8<-- [start:starter]
import torch
from torch.autograd.function import FunctionCtx


class SiLU(torch.autograd.Function):
    """y = x * sigmoid(x), with a backward written by hand."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x)
        return x * torch.sigmoid(x)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_y: torch.Tensor) -> torch.Tensor | None:
        (x,) = ctx.saved_tensors
        return None  # replace None with the gradient for x: grad_y times dy/dx


x = torch.linspace(-3, 3, 7, dtype=torch.float64, requires_grad=True)
passed = ...  # replace ... with the result of torch.autograd.gradcheck on SiLU.apply and x

# Print passed.
# --8<-- [end:starter]

# --8<-- [start:solution]
import torch
from torch.autograd.function import FunctionCtx


class SiLU(torch.autograd.Function):
    """y = x * sigmoid(x), with a backward written by hand."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x)
        return x * torch.sigmoid(x)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_y: torch.Tensor) -> torch.Tensor | None:
        (x,) = ctx.saved_tensors
        s = torch.sigmoid(x)
        # The product rule: d(x s)/dx = s + x s', and the sigmoid's s' = s (1 - s).
        return grad_y * (s + x * s * (1 - s))


x = torch.linspace(-3, 3, 7, dtype=torch.float64, requires_grad=True)
passed = torch.autograd.gradcheck(SiLU.apply, (x,))
print("gradcheck passed:", passed)

y = SiLU.apply(x)
y.sum().backward()
print("dy/dx:", x.grad)
# --8<-- [end:solution]

# --8<-- [start:check]
# Checks your SiLU against PyTorch: its forward against x * torch.sigmoid(x), and its
# backward against autograd's own gradient of x * torch.sigmoid(x), with an incoming
# gradient that is not all ones (so a backward that ignores grad_y is caught too).
import torch


def check() -> str:
    function, passed = globals().get("SiLU"), globals().get("passed")
    if not (isinstance(function, type) and issubclass(function, torch.autograd.Function)):
        return "Not done yet: define the class SiLU(torch.autograd.Function) in the cell above."
    points = torch.tensor([-2.5, -1.0, 0.0, 0.5, 2.0], dtype=torch.float64)
    incoming = torch.tensor([1.0, 2.0, -1.0, 0.5, 3.0], dtype=torch.float64)

    x_ref = points.clone().requires_grad_()
    y_ref = x_ref * torch.sigmoid(x_ref)
    (expected,) = torch.autograd.grad(y_ref, x_ref, incoming)  # PyTorch's own gradient

    x_yours = points.clone().requires_grad_()
    y_yours = function.apply(x_yours)
    if not torch.allclose(y_yours.detach(), y_ref.detach()):
        return (
            f"Not quite: the forward should return x * sigmoid(x): at x = {points.tolist()} "
            f"expected {[round(v, 4) for v in y_ref.tolist()]}, "
            f"got {[round(v, 4) for v in y_yours.tolist()]}."
        )
    (got,) = torch.autograd.grad(y_yours, x_yours, incoming, allow_unused=True)
    if got is None:
        return "Not done yet: backward returns None; return grad_y times dy/dx."

    s = torch.sigmoid(points)
    first, second = s, points * s * (1 - s)  # the two terms of the product rule
    rule = "the product rule gives two terms, s + x * s * (1 - s) with s = sigmoid(x)"
    if not torch.allclose(got, expected):
        if torch.allclose(got, incoming * first):
            why = f"{rule}; yours has only the first, s"
        elif torch.allclose(got, incoming * second):
            why = f"{rule}; yours has only the second, x * s * (1 - s)"
        elif torch.allclose(got, first + second):
            why = "backward must multiply dy/dx by grad_y, the gradient arriving at y"
        elif torch.allclose(got, incoming * (first + s * (1 - s))):
            why = "the second term of the product rule is x * s * (1 - s): yours lacks the factor x"
        else:
            why = "the gradient for x is grad_y * (s + x * s * (1 - s)) with s = sigmoid(x)"
        rounded = [[round(v, 4) + 0.0 for v in t.tolist()] for t in (expected, got)]  # no -0.0
        return (
            f"Not quite: {why}. At x = {points.tolist()}, with the incoming gradient "
            f"{incoming.tolist()}: expected {rounded[0]}, got {rounded[1]}."
        )
    if passed is not True:
        return (
            "Not done yet: your backward is right. Now run torch.autograd.gradcheck(SiLU.apply, "
            "(x,)) on the float64 x and store its result in passed."
        )
    return (
        "Correct: your backward matches autograd's gradient of x * sigmoid(x), also with an "
        "incoming gradient other than 1, and gradcheck passed."
    )


try:
    print(check())
except Exception as error:  # the check never crashes, whatever the cell above did
    print(f"Not done yet: the check could not read your answer ({type(error).__name__}: {error}).")
# --8<-- [end:check]

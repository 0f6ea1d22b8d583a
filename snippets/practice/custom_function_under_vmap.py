"""Exercise D.8: a custom function that torch.func can use.
Run it: python snippets/practice/custom_function_under_vmap.py"""
# Each region is a self-contained cell (page, notebook), so imports repeat.
# ruff: noqa: E402, F811

# --8<-- [start:starter]
import torch
from torch.autograd.function import FunctionCtx


class SiLU(torch.autograd.Function):
    """y = x * sigmoid(x). Its backward is right, but torch.func cannot use it yet."""

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
    """The squared error of ONE example: x has shape (3,), t is a number."""
    return (SiLU.apply(x @ w) - t) ** 2


torch.manual_seed(0)
w = torch.randn(3)  # the weights
X = torch.randn(5, 3)  # 5 examples
t = torch.randn(5)  # their targets

per_sample = ...  # one gradient of example_loss by w for each example, shape (5, 3)
passed = ...  # torch.autograd.gradcheck of SiLU.apply on a float64 tensor
# --8<-- [end:starter]

# --8<-- [start:solution]
import torch
from torch.autograd.function import FunctionCtx


class SiLU(torch.autograd.Function):
    """y = x * sigmoid(x), usable under torch.func.grad and torch.func.vmap."""

    generate_vmap_rule = True  # vmap runs forward, setup_context and backward batched

    @staticmethod
    def forward(x: torch.Tensor) -> torch.Tensor:  # no ctx: forward only computes
        return x * torch.sigmoid(x)

    @staticmethod
    def setup_context(ctx: FunctionCtx, inputs: tuple, output: torch.Tensor) -> None:
        (x,) = inputs  # the arguments of forward, as a tuple
        ctx.save_for_backward(x)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_y: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        s = torch.sigmoid(x)
        return grad_y * (s + x * s * (1 - s))


def example_loss(w: torch.Tensor, x: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
    """The squared error of ONE example: x has shape (3,), t is a number."""
    return (SiLU.apply(x @ w) - t) ** 2


torch.manual_seed(0)
w = torch.randn(3)
X = torch.randn(5, 3)
t = torch.randn(5)

# grad differentiates by the first argument, w; vmap maps over the examples.
per_sample = torch.func.vmap(torch.func.grad(example_loss), in_dims=(None, 0, 0))(w, X, t)
print("per-sample gradients, shape", tuple(per_sample.shape))
print(per_sample)

x64 = torch.linspace(-3, 3, 7, dtype=torch.float64, requires_grad=True)
passed = torch.autograd.gradcheck(SiLU.apply, (x64,))
print("gradcheck passed:", passed)

# The same with PyTorch's own SiLU, and by hand: 2 (y - t) * silu'(z) * x, with z = x @ w.
reference = torch.func.vmap(
    torch.func.grad(lambda w, x, t: (torch.nn.functional.silu(x @ w) - t) ** 2),
    in_dims=(None, 0, 0),
)(w, X, t)
z = X @ w
s = torch.sigmoid(z)
by_hand = (2 * (z * s - t) * (s + z * s * (1 - s))).unsqueeze(1) * X
print("the same as with torch's silu:", torch.allclose(per_sample, reference, atol=1e-6))
print("the same as the hand formula:", torch.allclose(per_sample, by_hand, atol=1e-6))
# --8<-- [end:solution]

# --8<-- [start:check]
# Checks your SiLU under torch.func.grad and torch.func.vmap, against autograd's own
# gradient of x * torch.sigmoid(x) (computed here, at points of the check's own), then
# your per_sample against the same per-sample gradients computed with torch's silu.
import torch


def _reference_loss(w, x, t):
    return (x @ w * torch.sigmoid(x @ w) - t) ** 2


def _first_line(error: Exception) -> str:
    return f"{type(error).__name__}: {str(error).split('. ')[0]}"


def check() -> str:
    function, per_sample, passed = (globals().get(n) for n in ("SiLU", "per_sample", "passed"))
    if not (isinstance(function, type) and issubclass(function, torch.autograd.Function)):
        return "Not done yet: define the class SiLU(torch.autograd.Function) in the cell above."
    overridden = "setup_context" in vars(function)
    if not overridden and per_sample is ... and passed is ...:
        return (
            "Not done yet: rewrite SiLU for torch.func: a forward without ctx, a "
            "setup_context that saves x, and generate_vmap_rule = True."
        )

    points = torch.linspace(-3, 3, 7)
    with torch.no_grad():
        forward = function.apply(points)
    if not torch.allclose(forward, points * torch.sigmoid(points), atol=1e-6):
        expected_forward = [round(v, 3) + 0.0 for v in (points * torch.sigmoid(points)).tolist()]
        return (
            f"Not quite: the forward should return x * sigmoid(x): at x = {points.tolist()} "
            f"expected {expected_forward}, got {[round(v, 3) + 0.0 for v in forward.tolist()]}."
        )

    def loss(w, x, t):  # your SiLU in the exercise's loss
        return (function.apply(x @ w) - t) ** 2

    torch.manual_seed(1)
    w, X, t = torch.randn(3), torch.randn(4, 3), torch.randn(4)
    per_example = torch.func.vmap(torch.func.grad(_reference_loss), in_dims=(None, 0, 0))
    expected = per_example(w, X, t)
    rounded = [round(v, 3) + 0.0 for v in expected[0].tolist()]
    try:
        got_one = torch.func.grad(loss)(w, X[0], t[0])
    except Exception as error:
        if "setup_context" in str(error):
            why = "torch.func needs a forward without ctx and a separate setup_context"
        else:
            why = "torch.func.grad could not run it"
        return (
            f"Not quite: expected torch.func.grad to give the gradient {rounded} for one "
            f"example, got {_first_line(error)}: {why}."
        )
    if not torch.allclose(got_one, expected[0], rtol=1e-4, atol=1e-5):
        got_rounded = [round(v, 3) + 0.0 for v in got_one.tolist()]
        z = X[0] @ w
        y = z * torch.sigmoid(z)  # what backward reads as x if setup_context saved the output
        s = torch.sigmoid(y)
        from_output = 2 * (y - t[0]) * (s + y * s * (1 - s)) * X[0]
        if torch.allclose(got_one, from_output, rtol=1e-4, atol=1e-5):
            why = (
                "setup_context saved the output x * sigmoid(x), and backward reads it as x: "
                "save the input, inputs[0]"
            )
        else:
            why = "backward must return grad_y * (s + x * s * (1 - s)) with s = sigmoid(x)"
        return (
            f"Not quite: expected the gradient {rounded} for one example, got {got_rounded}: {why}."
        )
    try:
        got_all = torch.func.vmap(torch.func.grad(loss), in_dims=(None, 0, 0))(w, X, t)
    except Exception as error:
        return (
            f"Not quite: expected vmap over torch.func.grad to give {tuple(expected.shape)} "
            f"per-sample gradients, got {_first_line(error)}: set generate_vmap_rule = True "
            "in the class."
        )
    if not torch.allclose(got_all, expected, rtol=1e-4, atol=1e-5):
        return "Not quite: expected the per-sample gradients of torch's silu, got other numbers."
    with torch.enable_grad():  # the node of one call, and the tensors it saved
        node = function.apply(points.clone().requires_grad_()).grad_fn
    if node is not None and len(node.saved_tensors) == 0:
        return (
            "Not quite: expected SiLU's node to hold x, saved with ctx.save_for_backward, "
            "got a node that saved no tensor: a tensor kept as an attribute of ctx "
            "(ctx.x = x) outlives the graph and escapes the check for in-place changes; "
            "save it with ctx.save_for_backward(x) and read it from ctx.saved_tensors."
        )

    names = ("w", "X", "t")
    w0, X0, t0 = (globals().get(n) for n in names)
    if not all(isinstance(v, torch.Tensor) for v in (w0, X0, t0)):
        return "Not done yet: run the starter cell; it defines w, X and t."
    right = per_example(w0, X0, t0)
    if per_sample is ... or per_sample is None:
        return "Not done yet: SiLU works under torch.func; now compute per_sample with vmap."
    if not isinstance(per_sample, torch.Tensor) or per_sample.shape != right.shape:
        shape = tuple(per_sample.shape) if isinstance(per_sample, torch.Tensor) else per_sample
        why = "map torch.func.grad(example_loss) over the examples with in_dims=(None, 0, 0)"
        if isinstance(per_sample, torch.Tensor) and per_sample.shape == right.shape[1:]:
            for name, total in (("sum", right.sum(0)), ("mean", right.mean(0))):
                if torch.allclose(per_sample, total, rtol=1e-4, atol=1e-5):
                    why = (
                        f"yours is the gradient of the batch's {name} loss, one gradient in "
                        "which the examples' gradients are mixed; vmap keeps them apart"
                    )
        return (
            f"Not quite: expected per_sample of shape {tuple(right.shape)}, one gradient of w "
            f"for each example, got {shape}: {why}."
        )
    if not torch.allclose(per_sample, right, rtol=1e-4, atol=1e-5):
        by_x = torch.func.vmap(torch.func.grad(_reference_loss, argnums=1), in_dims=(None, 0, 0))
        if torch.allclose(per_sample, by_x(w0, X0, t0), rtol=1e-4, atol=1e-5):
            why = (
                "those are the gradients by x; torch.func.grad differentiates by the first "
                "argument, w, unless argnums says otherwise"
            )
        else:
            why = "map torch.func.grad(example_loss) over the examples with in_dims=(None, 0, 0)"
        return (
            f"Not quite: expected the first row {[round(v, 3) for v in right[0].tolist()]}, "
            f"got {[round(v, 3) for v in per_sample[0].tolist()]}: {why}."
        )
    if passed is not True:
        return (
            "Not done yet: per_sample is right. Now run torch.autograd.gradcheck(SiLU.apply, "
            "(x64,)) on a float64 tensor x64 that requires grad, and store its result in passed."
        )
    return (
        "Correct: your SiLU works under torch.func.grad and torch.func.vmap, its per-sample "
        "gradients match those of torch's silu, and gradcheck passed."
    )


try:
    print(check())
except Exception as error:  # the check never crashes, whatever the cell above did
    print(f"Not done yet: the check could not read your answer ({type(error).__name__}: {error}).")
# --8<-- [end:check]

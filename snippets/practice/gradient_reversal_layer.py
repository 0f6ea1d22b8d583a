"""Exercise D.12: a gradient-reversal layer.
Run it: python snippets/practice/gradient_reversal_layer.py"""
# Each region is a self-contained cell (page, notebook), so imports repeat.
# ruff: noqa: E402, F811

# --8<-- [start:starter]
import torch
from torch.autograd.function import FunctionCtx


class GradReverse(torch.autograd.Function):
    """The identity in the forward pass; the gradient times -lam in the backward pass."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: torch.Tensor, lam: float) -> torch.Tensor:
        ctx.lam = lam  # a plain number: keep it on ctx (save_for_backward is for tensors)
        return ...  # replace ...: the identity, as a new tensor

    @staticmethod
    def backward(ctx: FunctionCtx, grad_out: torch.Tensor):
        return ...  # replace ...: one gradient per input of forward, for x and for lam


# When it works, try it:
# x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
# y = GradReverse.apply(x, 0.5)
# (3 * y).sum().backward()
# print(y, x.grad)  # y has the values of x; x.grad is -0.5 * 3 everywhere
# --8<-- [end:starter]

# --8<-- [start:solution]
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
        return -ctx.lam * grad_out, None  # None: lam is a number, it gets no gradient


x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
y = GradReverse.apply(x, 0.5)
(3 * y).sum().backward()
print("y:", y)
print("x.grad:", x.grad)  # 3 * (-0.5)

# A gradient that itself requires grad goes through too (create_graph=True):
u = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)  # the upstream gradient
(gx,) = torch.autograd.grad(GradReverse.apply(x, 0.5), x, u, create_graph=True)
(du,) = torch.autograd.grad(gx.sum(), u)
print("gx = -0.5 * u:", gx.detach(), " d(sum gx)/du:", du)

# gradcheck compares backward with finite differences of forward, in float64:
x64 = torch.tensor([0.2, 1.3, -0.7], dtype=torch.float64, requires_grad=True)


class Identity(torch.autograd.Function):
    """A plain identity: backward is the derivative of forward."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: torch.Tensor) -> torch.Tensor:
        return x.view_as(x)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_out: torch.Tensor) -> torch.Tensor:
        return grad_out


for name, function in [
    ("GradReverse, lam = 0.5", lambda t: GradReverse.apply(t, 0.5)),
    ("GradReverse, lam = -1.0", lambda t: GradReverse.apply(t, -1.0)),
    ("Identity", Identity.apply),
]:
    passed = torch.autograd.gradcheck(function, (x64,), raise_exception=False)
    print(f"gradcheck passes {name}: {passed}")
# --8<-- [end:solution]

# --8<-- [start:check]
# Checks your GradReverse: its forward pass against the identity, its backward pass
# against -lam times the incoming gradient (at lam = 0.7 and at lam = -1.3), with lam a
# plain number (no gradient for it) and with an incoming gradient that itself requires
# grad; then gradcheck, which must reject it (its backward pass is not the derivative of
# its forward pass) and accept a plain identity.
import torch


class _Identity(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad_out):
        return grad_out


def _show(t: torch.Tensor) -> list[float]:
    return [round(v, 4) + 0.0 for v in t.detach().flatten().tolist()]  # + 0.0: no -0.0


def _first_line(error: Exception) -> str:
    return str(error).splitlines()[0].rstrip(".")


def _why_backward_failed(error: Exception) -> str:
    text = str(error)
    if "incorrect number of gradients" in text:
        return (
            "backward must return one gradient per input of forward, x and lam: return a"
            " pair, the gradient for x and None for lam"
        )
    if "different than None" in text:
        return (
            "lam is a plain number, not a tensor, so it gets no gradient: return None in its place"
        )
    if any(
        clue in text
        for clue in ("once_differentiable", "not have been used", "does not require grad")
    ):
        return (
            "the gradient backward returns must be computed with differentiable tensor"
            " operations (no detach, no .data, no @once_differentiable), so that"
            " create_graph=True can record it"
        )
    if "in-place" in text:
        return "do not change grad_out in place (mul_, neg_): return a new tensor, -lam * grad_out"
    return "backward returns (-lam * grad_out, None)"


def check() -> str:
    layer = globals().get("GradReverse")
    if not (isinstance(layer, type) and issubclass(layer, torch.autograd.Function)):
        return "Not done yet: define the class GradReverse(torch.autograd.Function) above."
    generator = torch.Generator().manual_seed(0)
    lam = 0.7

    def draw() -> torch.Tensor:
        return torch.randn(5, generator=generator, dtype=torch.float64)

    values, upstream = draw(), draw()

    # The forward pass: the identity.
    x = values.clone().requires_grad_()
    y = layer.apply(x, lam)
    if y is Ellipsis or y is None:
        return "Not done yet: forward returns ...; return the identity of x, as a new tensor."
    if not isinstance(y, torch.Tensor):
        return f"Not quite: expected forward to return a tensor, got {type(y).__name__}."
    if y.shape != x.shape or not torch.equal(y.detach(), values):
        why = "the forward pass is the identity: the reversal happens in backward only"
        for factor, done in [(-1, "negates x"), (-lam, "multiplies x by -lam"), (lam, "scales x")]:
            if y.shape == x.shape and torch.allclose(y.detach(), factor * values):
                why = f"your forward pass {done}; {why}"
                break
        return f"Not quite: expected y = x = {_show(values)}, got {_show(y)}: {why}."
    if y.grad_fn is None:
        return "Not quite: expected y to have a grad_fn, got none: return x.view_as(x)."

    # The backward pass: -lam times the incoming gradient, and None for lam. The node is
    # also the ctx that forward filled: call backward once by hand, to see if it is done.
    try:
        returned = layer.backward(y.grad_fn, upstream.clone())
    except Exception:  # autograd's own call below says what is wrong
        returned = None
    if returned is Ellipsis:
        return "Not done yet: backward returns ...; return (-lam * grad_out, None)."
    expected = -lam * upstream
    try:
        (got,) = torch.autograd.grad(y, x, upstream.clone(), allow_unused=True)
    except (RuntimeError, TypeError) as error:
        return (
            f"Not quite: expected the gradient -lam * grad_out = {_show(expected)}, got"
            f" {type(error).__name__}: {_first_line(error)}: {_why_backward_failed(error)}."
        )
    if got is None:
        return "Not done yet: backward returns None for x; return (-lam * grad_out, None)."
    if not torch.allclose(got, expected):
        known = [
            (-upstream, "yours is -grad_out: the factor lam is missing"),
            (lam * upstream, "yours is lam * grad_out: the minus sign is missing"),
            (upstream, "yours passes the gradient through unchanged: multiply it by -lam"),
            (-upstream / lam, "yours divides by lam: multiply by it"),
        ]
        ratio = (got / upstream).mean().item()  # upstream has no zero entry
        fallback = "backward returns -lam * grad_out"
        if torch.allclose(got, ratio * upstream):
            fallback = (
                f"yours multiplies grad_out by {ratio:.4g}, a fixed number: multiply it by"
                " -lam, with lam read back from ctx.lam"
            )
        why = next((text for value, text in known if torch.allclose(got, value)), fallback)
        return (
            f"Not quite: at lam = {lam}, with grad_out = {_show(upstream)}, expected the"
            f" gradient {_show(expected)}, got {_show(got)}: {why}."
        )
    other = -1.3  # a negative lam: the factor -lam follows lam, whatever its sign
    (got,) = torch.autograd.grad(layer.apply(x, other), x, upstream.clone())
    if not torch.allclose(got, -other * upstream):
        return (
            f"Not quite: at lam = {other}, with grad_out = {_show(upstream)}, expected the"
            f" gradient {_show(-other * upstream)}, got {_show(got)}: backward returns"
            " -lam * grad_out, with lam as it is, whatever its sign."
        )

    # A gradient that itself requires grad: create_graph=True records backward's result.
    incoming = upstream.clone().requires_grad_()
    weights = draw()
    try:
        (got,) = torch.autograd.grad(layer.apply(x, lam), x, incoming, create_graph=True)
        (d_incoming,) = torch.autograd.grad((got * weights).sum(), incoming)
    except RuntimeError as error:
        return (
            "Not quite: expected the gradient of (gradient * w) by an incoming gradient that"
            f" requires grad to be -lam * w = {_show(-lam * weights)}, got RuntimeError:"
            f" {_first_line(error)}: {_why_backward_failed(error)}."
        )
    if not torch.allclose(d_incoming, -lam * weights):
        return (
            f"Not quite: expected -lam * w = {_show(-lam * weights)} as the derivative of"
            f" (gradient * w) by the incoming gradient, got {_show(d_incoming)}: backward"
            " returns -lam * grad_out, with grad_out used as it is."
        )

    # gradcheck: the layer's backward is not the derivative of its forward.
    point = values.clone().requires_grad_()
    verdict = torch.autograd.gradcheck(
        lambda t: layer.apply(t, lam), (point,), raise_exception=False
    )
    identity = torch.autograd.gradcheck(_Identity.apply, (point,), raise_exception=False)
    if verdict or not identity:
        return (
            "Not quite: expected gradcheck to reject the layer and accept a plain identity,"
            f" got {verdict} and {identity}."
        )
    return (
        f"Correct: y = x, the gradient is -{lam} times the incoming one, lam gets none, a"
        " gradient that requires grad goes through, and gradcheck rejects the layer (its"
        " backward is not the derivative of its forward) while it accepts a plain identity."
    )


try:
    print(check())
except Exception as error:  # the check never crashes, whatever the cell above did
    print(f"Not done yet: the check could not read your answer ({type(error).__name__}: {error}).")
# --8<-- [end:check]

"""Exercise D.9: a Gauss-Newton product without the Jacobian.
Run it: python snippets/practice/gauss_newton_product.py"""
# Each region is a self-contained cell (page, notebook), so imports repeat.
# ruff: noqa: E402

# --8<-- [start:starter]
import warnings

import torch

# PyTorch warns from inside torch the first time forward mode runs (not your code).
warnings.filterwarnings("ignore", "`torch.jit.script` is deprecated")

xs = torch.tensor([0.0, 0.5, 1.0, 1.5])  # 4 data points
ys = torch.tensor([1.0, 1.6, 2.9, 4.4])


def residuals(w: torch.Tensor) -> torch.Tensor:
    """The 4 residuals r_i = w0 * exp(w1 * x_i) + w2 - y_i of the 3 parameters w."""
    return w[0] * torch.exp(w[1] * xs) + w[2] - ys


w = torch.tensor([1.0, 0.5, 0.2])  # the point
v = torch.tensor([1.0, -1.0, 2.0])  # the direction, one entry per parameter


def gauss_newton_product(f, w: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """J^T J v, with J the Jacobian of f at w, without building J."""
    return ...  # torch.func.jvp for J v, then torch.func.vjp for J^T times it


gnv = gauss_newton_product(residuals, w, v)
explicit = ...  # the same product from the explicit Jacobian, torch.func.jacrev(residuals)(w)
# --8<-- [end:starter]

# --8<-- [start:solution]
import warnings

import torch

# PyTorch warns from inside torch the first time forward mode runs (not your code).
warnings.filterwarnings("ignore", "`torch.jit.script` is deprecated")

xs = torch.tensor([0.0, 0.5, 1.0, 1.5])
ys = torch.tensor([1.0, 1.6, 2.9, 4.4])


def residuals(w: torch.Tensor) -> torch.Tensor:
    """The 4 residuals r_i = w0 * exp(w1 * x_i) + w2 - y_i of the 3 parameters w."""
    return w[0] * torch.exp(w[1] * xs) + w[2] - ys


w = torch.tensor([1.0, 0.5, 0.2])
v = torch.tensor([1.0, -1.0, 2.0])


def gauss_newton_product(f, w: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """J^T J v, with J the Jacobian of f at w, without building J."""
    _, jv = torch.func.jvp(f, (w,), (v,))  # forward mode: J v, one entry per residual
    _, vjp_fn = torch.func.vjp(f, w)  # reverse mode: a function u -> J^T u
    (jtjv,) = vjp_fn(jv)  # a tuple: one gradient per input of f
    return jtjv


gnv = gauss_newton_product(residuals, w, v)

J = torch.func.jacrev(residuals)(w)  # 4 x 3: one row per residual
explicit = J.T @ (J @ v)
print("J^T J v with jvp and vjp:", gnv)
print("J^T J v from J:          ", explicit)
print("the same:", torch.allclose(gnv, explicit))

# The Hessian of the loss 0.5 * sum(r^2) is J^T J plus a term with the residuals' own
# second derivatives. Gauss-Newton leaves that term out, so H v is another vector:
hv = torch.func.jvp(torch.func.grad(lambda w: 0.5 * residuals(w).square().sum()), (w,), (v,))[1]
print("H v of 0.5 * sum(r^2):   ", hv)
# --8<-- [end:solution]

# --8<-- [start:check]
# Checks your gauss_newton_product on the exercise's residuals and on a function of the
# check's own (5 outputs of 2 inputs), against J^T (J v) with the explicit Jacobian from
# torch.func.jacrev, and the wrong answers it is easy to give instead. While your
# function runs, the functions that build a whole Jacobian raise: the task is never to
# build J.
import contextlib

import torch

_BUILDERS = {
    "torch.func.jacrev": (torch.func, "jacrev"),
    "torch.func.jacfwd": (torch.func, "jacfwd"),
    "torch.func.hessian": (torch.func, "hessian"),
    "torch.autograd.functional.jacobian": (torch.autograd.functional, "jacobian"),
    "torch.autograd.functional.hessian": (torch.autograd.functional, "hessian"),
}


class _BuiltJ(Exception):
    """Raised in place of a function that builds a whole Jacobian; its text is the name."""


@contextlib.contextmanager
def _jacobians_refused(namespace: dict):
    """Replace the Jacobian builders, in torch and in the notebook's names, while it runs."""
    originals = {name: getattr(module, attr) for name, (module, attr) in _BUILDERS.items()}

    def refuse(name):
        def stand_in(*args, **kwargs):
            raise _BuiltJ(name)

        return stand_in

    imported = {
        key: name
        for key, value in list(namespace.items())
        for name, original in originals.items()
        if value is original
    }
    try:
        for name, (module, attr) in _BUILDERS.items():
            setattr(module, attr, refuse(name))
        for key, name in imported.items():
            namespace[key] = refuse(name)
        yield
    finally:
        for name, (module, attr) in _BUILDERS.items():
            setattr(module, attr, originals[name])
        for key, name in imported.items():
            namespace[key] = originals[name]


def _other(w):
    a = torch.tensor([0.1, 0.4, 0.7, 1.0, 1.3])
    return torch.sin(w[0] * a) + w[1] ** 2 * a - 0.5


def _close(a, b) -> bool:
    return isinstance(a, torch.Tensor) and a.shape == b.shape and torch.allclose(a, b, 1e-4, 1e-5)


def _show(t) -> str:
    if not isinstance(t, torch.Tensor):
        return f"a {type(t).__name__}" if isinstance(t, tuple | list) else repr(t)
    return "(" + ", ".join(f"{x:.4g}" for x in t.detach().flatten().tolist()) + ")"


def _diagnose(f, w, v, got) -> str:
    """What a wrong answer is, among the plausible ones, for the function f."""
    J = torch.func.jacrev(f)(w)
    r = f(w)
    hessian = torch.func.hessian(lambda w: 0.5 * f(w).square().sum())(w)
    if isinstance(got, tuple | list):
        return (
            "torch.func.jvp returns the pair (f(w), J v), and the function that "
            "torch.func.vjp returns gives a tuple with one gradient per input: unpack them"
        )
    if _close(got, J @ v):
        return "that is J v, from jvp only: multiply it by J^T with the function vjp returns"
    if _close(got, 2 * J.T @ (J @ v)):
        return (
            "yours is twice J^T J v: the Gauss-Newton matrix of 0.5 * sum(r^2) is J^T J, "
            "with no factor 2"
        )
    if _close(got, hessian @ v):
        return (
            "that is H v, the Hessian of 0.5 * sum(r^2) times v: it adds a term with the "
            "residuals' second derivatives, which Gauss-Newton leaves out"
        )
    if _close(got, J.T @ r):
        return "that is J^T r, the gradient of 0.5 * sum(r^2): the cotangent for vjp is J v"
    return "compute J v with torch.func.jvp, then give it to the function torch.func.vjp returns"


def check() -> str:
    function, explicit = globals().get("gauss_newton_product"), globals().get("explicit")
    names = ("residuals", "w", "v")
    residuals, w, v = (globals().get(n) for n in names)
    if not callable(function) or not callable(residuals):
        return "Not done yet: run the starter cell; it defines residuals and gauss_newton_product."
    w, v = w.detach(), v.detach()
    torch.manual_seed(0)
    cases = (
        ("the exercise's residuals", residuals, w, v),
        ("a function of the check's own, 5 outputs of 2 inputs", _other, *torch.randn(2, 2)),
    )
    for name, f, at, direction in cases:
        J = torch.func.jacrev(f)(at)
        expected = J.T @ (J @ direction)
        try:
            with _jacobians_refused(globals()):
                got = function(f, at, direction)
        except _BuiltJ as built:
            return (
                f"Not quite: on {name}, expected J^T J v = {_show(expected)} without building "
                f"J, got a call to {built}, which builds the whole Jacobian: compute J v with "
                "torch.func.jvp, then give it to the function torch.func.vjp returns."
            )
        except Exception as error:
            message = f"{type(error).__name__}: {str(error).splitlines()[0][:160].rstrip('.')}"
            hint = ""
            if "shape" in str(error).lower():
                hint = (
                    ": the function vjp returns takes a vector with one entry per output of "
                    f"f ({J.shape[0]} here), such as J v; v has one entry per input"
                )
            return (
                f"Not quite: on {name}, expected J^T J v = {_show(expected)}, got {message}{hint}."
            )
        if got is ... or got is None:
            return "Not done yet: gauss_newton_product returns ...; return J^T J v."
        if not _close(got, expected):
            return (
                f"Not quite: on {name}, expected J^T J v = {_show(expected)}, got {_show(got)}: "
                f"{_diagnose(f, at, direction, got)}."
            )
    J = torch.func.jacrev(residuals)(w)
    expected = J.T @ (J @ v)
    if explicit is ... or explicit is None:
        return "Not done yet: your product is right; now compute explicit from the Jacobian."
    if not _close(explicit, expected):
        what = ""
        if _close(explicit, J @ v):
            what = ": that is J v; multiply it by J.T"
        elif isinstance(explicit, torch.Tensor) and explicit.shape == (J.shape[1],) * 2:
            what = ": that is the matrix J^T J; multiply it by v"
        return (
            f"Not quite: expected explicit = J.T @ (J @ v) = {_show(expected)}, got "
            f"{_show(explicit)}{what}."
        )
    return (
        f"Correct: J^T J v = {_show(expected)}, from jvp and vjp without the Jacobian, and "
        "from the explicit Jacobian; your function also works on another function."
    )


try:
    print(check())
except Exception as error:  # the check never crashes, whatever the cell above did
    print(f"Not done yet: the check could not read your answer ({type(error).__name__}: {error}).")
# --8<-- [end:check]

"""Exercise 2.11: check a gradient. Run it: python snippets/practice/check_a_gradient.py"""
# Each region is a self-contained cell (page, notebook), so imports repeat.
# ruff: noqa: E402, F811

# --8<-- [start:starter]
from collections.abc import Callable

import torch


def f(t: torch.Tensor) -> torch.Tensor:
    return torch.tanh(t) * t**2


x = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)
h = 1e-5


def central_difference(
    f: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor, h: float
) -> torch.Tensor:
    return ...  # replace ... with (f(x + h) - f(x - h)) / (2 * h)


from_autograd = ...  # replace ...: call backward() on f(x), then read x.grad
estimate = ...  # replace ...: central_difference(f, x.detach(), h)

# Print from_autograd, estimate and their difference.
# --8<-- [end:starter]

# --8<-- [start:solution]
from collections.abc import Callable

import torch


def f(t: torch.Tensor) -> torch.Tensor:
    return torch.tanh(t) * t**2


x = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)
h = 1e-5


def central_difference(
    f: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor, h: float
) -> torch.Tensor:
    return (f(x + h) - f(x - h)) / (2 * h)


f(x).backward()
from_autograd = x.grad
estimate = central_difference(f, x.detach(), h)

# Ten decimals show how far the two agree; the difference's order of magnitude is what
# counts (its digits depend on how the CPU rounds).
print(f"autograd:           {from_autograd.item():.10f}")
print(f"central difference: {estimate.item():.10f}")
print(f"difference:         {(estimate - from_autograd).item():.0e}")
# --8<-- [end:solution]

# --8<-- [start:check]
# Checks your answer against PyTorch: autograd's derivative of your own f at a fresh
# float64 copy of x, and your central_difference on that f and on sin (whose derivative
# is cos). A central difference in float64 with h = 1e-5 is within 1e-6 of the truth;
# a one-sided difference, a missing factor 2 or float32 is not.
import math

import torch

TOLERANCE = 1e-6


def check() -> str:
    names = ("f", "x", "central_difference", "from_autograd", "estimate")
    values = [globals().get(name) for name in names]
    if any(value is Ellipsis for value in values) or any(
        globals().get(name) is None for name in ("f", "x", "central_difference", "estimate")
    ):
        missing = [n for n, v in zip(names, values, strict=True) if v is None or v is ...]
        return f"Not done yet: replace the ... in the cell above ({', '.join(missing)})."
    f, x, central_difference, from_autograd, estimate = values
    point = x.detach().double().requires_grad_()
    (truth,) = torch.autograd.grad(f(point), point)
    if from_autograd is None:  # x.grad read before backward() had filled it
        return (
            f"Not quite: expected from_autograd = {truth.item():.10f} (x.grad after "
            "f(x).backward()), got None. x.grad was read before backward() ran: call "
            "f(x).backward() first, then read x.grad."
        )
    # A Python number (from .item()) is as good as a one-element tensor.
    if isinstance(from_autograd, int | float):
        from_autograd = torch.tensor(float(from_autograd), dtype=torch.float64)
    if isinstance(estimate, int | float):
        estimate = torch.tensor(float(estimate), dtype=torch.float64)
    if not isinstance(from_autograd, torch.Tensor) or not isinstance(estimate, torch.Tensor):
        kinds = f"{type(from_autograd).__name__} and {type(estimate).__name__}"
        return f"Not quite: expected from_autograd and estimate to be tensors, got {kinds}."
    if not math.isclose(from_autograd.item(), truth.item(), rel_tol=1e-5, abs_tol=1e-9):
        twice = math.isclose(from_autograd.item(), 2 * truth.item(), rel_tol=1e-5)
        why = " That is twice as much: backward() ran twice, and .grad added both." if twice else ""
        return (
            f"Not quite: expected from_autograd = {truth.item():.10f} (x.grad after "
            f"f(x).backward()), got {from_autograd.item():.10f}.{why}"
        )
    if abs(estimate.item() - truth.item()) > TOLERANCE:
        if math.isclose(estimate.item(), 2 * truth.item(), rel_tol=1e-4):
            why = "That is twice the slope: divide f(x + h) - f(x - h) by 2 * h, not by h."
        elif estimate.dtype != torch.float64:
            why = (
                f"estimate is {estimate.dtype}: in float32, rounding swamps a difference "
                "divided by 2h. Create x with dtype=torch.float64."
            )
        else:
            why = "Use the central difference, (f(x + h) - f(x - h)) / (2 * h), in float64."
        return (
            f"Not quite: expected estimate within {TOLERANCE:g} of {truth.item():.10f}, got "
            f"{estimate.item():.10f} (off by {estimate.item() - truth.item():.2e}). {why}"
        )
    one = torch.tensor(1.0, dtype=torch.float64)
    on_sin = central_difference(torch.sin, one, 1e-5)
    if abs(float(on_sin) - math.cos(1.0)) > TOLERANCE:
        return (
            f"Not quite: expected central_difference(torch.sin, 1.0, 1e-5) to be close to "
            f"cos(1) = {math.cos(1.0):.10f}, got {float(on_sin):.10f}."
        )
    difference = estimate.item() - from_autograd.item()
    return (
        f"Correct: autograd gives {from_autograd.item():.10f} and your central difference "
        f"{estimate.item():.10f}; they differ by {difference:.1e}, well within {TOLERANCE:g}."
    )


try:
    print(check())
except Exception as error:  # the check never crashes, whatever the cell above did
    print(f"Not done yet: the check could not read your answer ({type(error).__name__}: {error}).")
# --8<-- [end:check]

"""Exercise 2.10: derive a gradient by hand, then check it.

Run it: python snippets/practice/derive_a_gradient.py
"""
# Each region is a self-contained cell (page, notebook), so imports repeat.
# ruff: noqa: E402, F811

# --8<-- [start:starter]
import math


def sigmoid(z: float) -> float:
    return 1 / (1 + math.exp(-z))


# loss = (sigmoid(w * x + b) - t) ** 2. Derive its gradients by hand, then write them
# as plain Python: no torch, no autograd.
def grad_w(x: float, w: float, b: float, t: float) -> float:
    """d loss / d w."""
    ...  # replace ... with return <your formula>


def grad_b(x: float, w: float, b: float, t: float) -> float:
    """d loss / d b."""
    ...  # replace ... with return <your formula>


print(grad_w(2.0, 0.5, -1.0, 1.0), grad_b(2.0, 0.5, -1.0, 1.0))
# --8<-- [end:starter]

# --8<-- [start:solution]
import math


def sigmoid(z: float) -> float:
    return 1 / (1 + math.exp(-z))


def grad_w(x: float, w: float, b: float, t: float) -> float:
    """d loss / d w = 2(s - t) * s(1 - s) * x, with s = sigmoid(w * x + b)."""
    s = sigmoid(w * x + b)
    return 2 * (s - t) * s * (1 - s) * x


def grad_b(x: float, w: float, b: float, t: float) -> float:
    """d loss / d b = 2(s - t) * s(1 - s), the same chain without the factor x."""
    s = sigmoid(w * x + b)
    return 2 * (s - t) * s * (1 - s)


print(grad_w(2.0, 0.5, -1.0, 1.0), grad_b(2.0, 0.5, -1.0, 1.0))
# --8<-- [end:solution]

# --8<-- [start:check]
# Checks your two formulas against autograd at 20 random points (x, w, b, t), in float64.
import math

import torch


def autograd_gradients(x: float, w: float, b: float, t: float) -> tuple[float, float]:
    w_, b_ = (torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in (w, b))
    loss = (torch.sigmoid(w_ * x + b_) - t) ** 2
    loss.backward()
    return w_.grad.item(), b_.grad.item()


def check() -> str:
    functions = globals().get("grad_w"), globals().get("grad_b")
    if not all(callable(f) for f in functions):
        return "Not done yet: define grad_w and grad_b in the cell above and run it."
    generator = torch.Generator().manual_seed(0)
    xwb = torch.randn(20, 3, generator=generator, dtype=torch.float64) * 2
    targets = torch.rand(20, generator=generator, dtype=torch.float64)  # between 0 and 1
    for (x, w, b), t in zip(xwb.tolist(), targets.tolist(), strict=True):
        mine = [f(x, w, b, t) for f in functions]
        if any(value is None or value is ... for value in mine):
            return "Not done yet: grad_w or grad_b returns nothing; replace ... with a return."
        expected = autograd_gradients(x, w, b, t)
        for name, got, want in zip(("grad_w", "grad_b"), mine, expected, strict=True):
            if not math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-12):
                return (
                    f"Not quite: at x={x:.3f}, w={w:.3f}, b={b:.3f}, t={t:.3f} expected "
                    f"{name} = {want:.6f} (autograd), got {got:.6f} from your formula. "
                    "Check each link of the chain: 2(s − t), the sigmoid's derivative, "
                    "and x (for w)."
                )
    return "Correct: both formulas match autograd at all 20 points."


try:
    print(check())
except Exception as error:  # the check never crashes, whatever the cell above did
    print(f"Not done yet: the check could not read your answer ({type(error).__name__}: {error}).")
# --8<-- [end:check]

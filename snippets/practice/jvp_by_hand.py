"""Exercise D.1: a JVP by hand. Run it: python snippets/practice/jvp_by_hand.py"""
# Each region is a self-contained cell (page, notebook), so imports repeat.
# ruff: noqa: E402, F811

# --8<-- [start:starter]
import warnings

import torch

# PyTorch warns from inside torch the first time forward mode runs (not your code).
warnings.filterwarnings("ignore", "`torch.jit.script` is deprecated")


def f(x):
    x1, x2 = x
    return torch.stack([x1**2 * x2, 3 * x1 + x2**3])


x = torch.tensor([1.0, 2.0])  # the point
u = torch.tensor([1.0, -1.0])  # the direction (the tangent)

J = ...  # the Jacobian at x, by hand: torch.tensor([[dy1/dx1, dy1/dx2], [dy2/dx1, dy2/dx2]])
by_hand = ...  # J times u
from_torch = ...  # the JVP from torch.func.jvp
# --8<-- [end:starter]

# --8<-- [start:solution]
import warnings

import torch

# PyTorch warns from inside torch the first time forward mode runs (not your code).
warnings.filterwarnings("ignore", "`torch.jit.script` is deprecated")


def f(x):
    x1, x2 = x
    return torch.stack([x1**2 * x2, 3 * x1 + x2**3])


x = torch.tensor([1.0, 2.0])
u = torch.tensor([1.0, -1.0])

x1, x2 = x.tolist()
J = torch.tensor([[2 * x1 * x2, x1**2], [3.0, 3 * x2**2]])  # row i: the derivatives of y_i
by_hand = J @ u
value, from_torch = torch.func.jvp(f, (x,), (u,))  # returns the pair (f(x), J u)
print("J =", J)
print("J @ u by hand:  ", by_hand)
print("torch.func.jvp: ", from_torch)
# --8<-- [end:solution]

# --8<-- [start:check]
# Checks your J, by_hand and from_torch. The right Jacobian comes from PyTorch, computed
# with reverse mode (torch.func.jacrev) at your own x, so the check never repeats your JVP.
import torch


def _close(a, b):
    return isinstance(a, torch.Tensor) and a.shape == b.shape and torch.allclose(a.float(), b)


def _show(t):
    return "(" + ", ".join(f"{v:g}" for v in t.detach().flatten().tolist()) + ")"


def check() -> str:
    names = ("f", "x", "u", "J", "by_hand", "from_torch")
    f, x, u, J, by_hand, from_torch = (globals().get(name) for name in names)
    if not callable(f) or not isinstance(x, torch.Tensor) or not isinstance(u, torch.Tensor):
        return "Not done yet: run the starter cell first; it defines f, x and u."
    x, u = x.detach(), u.detach()
    right = torch.func.jacrev(f)(x).detach()  # row i: the derivatives of output i
    ju, jtu, value = right @ u, right.T @ u, f(x).detach()
    if J is None or J is Ellipsis:
        return "Not done yet: set J to your hand Jacobian, a 2 x 2 tensor."
    if not isinstance(J, torch.Tensor):
        return f"Not quite: expected J to be a 2 x 2 tensor, got a {type(J).__name__}."
    if J.shape != right.shape:
        return f"Not quite: expected J of shape (2, 2), one row per output, got {tuple(J.shape)}."
    if not _close(J, right):
        if _close(J, right.T):
            return (
                f"Not quite: your J is transposed. Row i holds the derivatives of output i, "
                f"so expected J = {right.tolist()}, got {J.tolist()}."
            )
        i, j = next((i, j) for i in range(2) for j in range(2) if abs(J[i, j] - right[i, j]) > 1e-5)
        return (
            f"Not quite: expected J[{i}][{j}] = dy{i + 1}/dx{j + 1} = {right[i, j].item():g} at "
            f"x = {_show(x)}, got {J[i, j].item():g}."
        )
    if by_hand is None or by_hand is Ellipsis:
        return "Not done yet: J is right; now set by_hand = J @ u."
    if not _close(by_hand, ju):
        if _close(by_hand, right * u):
            return (
                f"Not quite: expected by_hand = J @ u = {_show(ju)}, got J * u, a 2 x 2 tensor "
                f"{by_hand.tolist()}: * multiplies entry by entry (u is repeated for every row "
                "of J). The matrix-vector product is J @ u."
            )
        if not isinstance(by_hand, torch.Tensor):
            try:
                numbers = torch.as_tensor(by_hand, dtype=torch.float32)
            except (TypeError, ValueError, RuntimeError):
                numbers = None
            if numbers is not None and _close(numbers, ju):
                return (
                    f"Not quite: expected by_hand = J @ u, a tensor {_show(ju)}, got a "
                    f"{type(by_hand).__name__} {by_hand!r}: the numbers are right, but compute "
                    "them with J @ u, so that by_hand is a tensor."
                )
        if _close(by_hand, jtu):
            return (
                f"Not quite: expected by_hand = J @ u = {_show(ju)}, got {_show(by_hand)}, "
                "which is u @ J: a vector-Jacobian product, with u weighting the outputs."
            )
        got = _show(by_hand) if isinstance(by_hand, torch.Tensor) else repr(by_hand)
        return f"Not quite: expected by_hand = J @ u = {_show(ju)}, got {got}."
    if from_torch is None or from_torch is Ellipsis:
        return "Not done yet: by_hand is right; now set from_torch with torch.func.jvp."
    if isinstance(from_torch, tuple):
        return (
            f"Not quite: expected from_torch = J u = {_show(ju)}, got a tuple: torch.func.jvp "
            "returns the pair (f(x), J u), and the JVP is its second element."
        )
    if _close(from_torch, ju):
        return f"Correct: J u = {_show(ju)}, by hand and from torch.func.jvp."
    if _close(from_torch, value):
        return (
            f"Not quite: expected from_torch = J u = {_show(ju)}, got f(x) = {_show(value)}: "
            "the first element of the pair torch.func.jvp returns. The JVP is the second."
        )
    if _close(from_torch, jtu):
        return (
            f"Not quite: expected from_torch = J u = {_show(ju)}, got u @ J = {_show(jtu)}: a "
            "vector-Jacobian product (torch.func.vjp or backward), not a JVP."
        )
    if _close(from_torch, torch.func.jacrev(f)(u).detach() @ x):
        return (
            f"Not quite: expected from_torch = {_show(ju)}, got {_show(from_torch)}: x and u "
            "swapped. Call torch.func.jvp(f, (x,), (u,)): the point first, then the direction."
        )
    got = _show(from_torch) if isinstance(from_torch, torch.Tensor) else repr(from_torch)
    return f"Not quite: expected from_torch = J u = {_show(ju)}, got {got}."


try:
    print(check())
except Exception as error:  # the check never crashes, whatever the cell above did
    print(f"Not done yet: the check could not read your answer ({type(error).__name__}: {error}).")
# --8<-- [end:check]

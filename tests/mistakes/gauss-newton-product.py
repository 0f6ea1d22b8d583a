"""Plausible mistakes for Exercise D.9 (snippets/practice/gauss_newton_product.py).

Each region replaces the starter cell. Run with the exercise's check cell, each must make
the check print "Not quite" (or "Not done yet" where that is the honest verdict) with an
accurate diagnosis. One of them raises in the learner's cell, as it would in a notebook.
"""
# ruff: noqa: E402

# --8<-- [start:forward-half-only]
# Mistake: stops after forward mode and returns J v.
import torch

xs = torch.tensor([0.0, 0.5, 1.0, 1.5])
ys = torch.tensor([1.0, 1.6, 2.9, 4.4])


def residuals(w: torch.Tensor) -> torch.Tensor:
    return w[0] * torch.exp(w[1] * xs) + w[2] - ys


w = torch.tensor([1.0, 0.5, 0.2])
v = torch.tensor([1.0, -1.0, 2.0])


def gauss_newton_product(f, w: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    _, jv = torch.func.jvp(f, (w,), (v,))
    return jv


gnv = gauss_newton_product(residuals, w, v)
J = torch.func.jacrev(residuals)(w)
explicit = J.T @ (J @ v)
# --8<-- [end:forward-half-only]

# --8<-- [start:tuple-from-vjp]
# Mistake: returns what the vjp function gives, a tuple, without unpacking it.
import torch

xs = torch.tensor([0.0, 0.5, 1.0, 1.5])
ys = torch.tensor([1.0, 1.6, 2.9, 4.4])


def residuals(w: torch.Tensor) -> torch.Tensor:
    return w[0] * torch.exp(w[1] * xs) + w[2] - ys


w = torch.tensor([1.0, 0.5, 0.2])
v = torch.tensor([1.0, -1.0, 2.0])


def gauss_newton_product(f, w: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    _, jv = torch.func.jvp(f, (w,), (v,))
    _, vjp_fn = torch.func.vjp(f, w)
    return vjp_fn(jv)


gnv = gauss_newton_product(residuals, w, v)
J = torch.func.jacrev(residuals)(w)
explicit = J.T @ (J @ v)
# --8<-- [end:tuple-from-vjp]

# --8<-- [start:v-as-cotangent]
# Mistake: gives v itself to the vjp function, as if J^T J v were J^T v.
import torch

xs = torch.tensor([0.0, 0.5, 1.0, 1.5])
ys = torch.tensor([1.0, 1.6, 2.9, 4.4])


def residuals(w: torch.Tensor) -> torch.Tensor:
    return w[0] * torch.exp(w[1] * xs) + w[2] - ys


w = torch.tensor([1.0, 0.5, 0.2])
v = torch.tensor([1.0, -1.0, 2.0])


def gauss_newton_product(f, w: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    _, vjp_fn = torch.func.vjp(f, w)
    (jtv,) = vjp_fn(v)
    return jtv


gnv = gauss_newton_product(residuals, w, v)
J = torch.func.jacrev(residuals)(w)
explicit = J.T @ (J @ v)
# --8<-- [end:v-as-cotangent]

# --8<-- [start:full-hessian]
# Mistake: the Hessian of 0.5 * sum(r^2) times v (forward over reverse), not Gauss-Newton.
import torch

xs = torch.tensor([0.0, 0.5, 1.0, 1.5])
ys = torch.tensor([1.0, 1.6, 2.9, 4.4])


def residuals(w: torch.Tensor) -> torch.Tensor:
    return w[0] * torch.exp(w[1] * xs) + w[2] - ys


w = torch.tensor([1.0, 0.5, 0.2])
v = torch.tensor([1.0, -1.0, 2.0])


def gauss_newton_product(f, w: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    def loss(w):
        return 0.5 * f(w).square().sum()

    _, hv = torch.func.jvp(torch.func.grad(loss), (w,), (v,))
    return hv


gnv = gauss_newton_product(residuals, w, v)
J = torch.func.jacrev(residuals)(w)
explicit = J.T @ (J @ v)
# --8<-- [end:full-hessian]

# --8<-- [start:residuals-as-cotangent]
# Mistake: gives the residuals to the vjp function: J^T r, the gradient of the loss.
import torch

xs = torch.tensor([0.0, 0.5, 1.0, 1.5])
ys = torch.tensor([1.0, 1.6, 2.9, 4.4])


def residuals(w: torch.Tensor) -> torch.Tensor:
    return w[0] * torch.exp(w[1] * xs) + w[2] - ys


w = torch.tensor([1.0, 0.5, 0.2])
v = torch.tensor([1.0, -1.0, 2.0])


def gauss_newton_product(f, w: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    r, vjp_fn = torch.func.vjp(f, w)
    (jtr,) = vjp_fn(r)
    return jtr


gnv = gauss_newton_product(residuals, w, v)
J = torch.func.jacrev(residuals)(w)
explicit = J.T @ (J @ v)
# --8<-- [end:residuals-as-cotangent]

# --8<-- [start:factor-two]
# Mistake: a factor 2 from the derivative of sum(r^2), carried into the product.
import torch

xs = torch.tensor([0.0, 0.5, 1.0, 1.5])
ys = torch.tensor([1.0, 1.6, 2.9, 4.4])


def residuals(w: torch.Tensor) -> torch.Tensor:
    return w[0] * torch.exp(w[1] * xs) + w[2] - ys


w = torch.tensor([1.0, 0.5, 0.2])
v = torch.tensor([1.0, -1.0, 2.0])


def gauss_newton_product(f, w: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    _, jv = torch.func.jvp(f, (w,), (v,))
    _, vjp_fn = torch.func.vjp(f, w)
    (jtjv,) = vjp_fn(jv)
    return 2 * jtjv


gnv = gauss_newton_product(residuals, w, v)
J = torch.func.jacrev(residuals)(w)
explicit = J.T @ (J @ v)
# --8<-- [end:factor-two]

# --8<-- [start:explicit-without-v]
# Mistake: the explicit side stops at the matrix J^T J and forgets v.
import torch

xs = torch.tensor([0.0, 0.5, 1.0, 1.5])
ys = torch.tensor([1.0, 1.6, 2.9, 4.4])


def residuals(w: torch.Tensor) -> torch.Tensor:
    return w[0] * torch.exp(w[1] * xs) + w[2] - ys


w = torch.tensor([1.0, 0.5, 0.2])
v = torch.tensor([1.0, -1.0, 2.0])


def gauss_newton_product(f, w: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    _, jv = torch.func.jvp(f, (w,), (v,))
    _, vjp_fn = torch.func.vjp(f, w)
    (jtjv,) = vjp_fn(jv)
    return jtjv


gnv = gauss_newton_product(residuals, w, v)
J = torch.func.jacrev(residuals)(w)
explicit = J.T @ J
# --8<-- [end:explicit-without-v]

# --8<-- [start:jacobian-inside]
# Mistake: builds the whole Jacobian with torch.func.jacrev inside the function.
import torch

xs = torch.tensor([0.0, 0.5, 1.0, 1.5])
ys = torch.tensor([1.0, 1.6, 2.9, 4.4])


def residuals(w: torch.Tensor) -> torch.Tensor:
    return w[0] * torch.exp(w[1] * xs) + w[2] - ys


w = torch.tensor([1.0, 0.5, 0.2])
v = torch.tensor([1.0, -1.0, 2.0])


def gauss_newton_product(f, w: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    J = torch.func.jacrev(f)(w)
    return J.T @ (J @ v)


gnv = gauss_newton_product(residuals, w, v)
J = torch.func.jacrev(residuals)(w)
explicit = J.T @ (J @ v)
# --8<-- [end:jacobian-inside]

# --8<-- [start:jacobian-imported]
# Mistake: builds the whole Jacobian with an imported torch.autograd.functional.jacobian.
import torch
from torch.autograd.functional import jacobian

xs = torch.tensor([0.0, 0.5, 1.0, 1.5])
ys = torch.tensor([1.0, 1.6, 2.9, 4.4])


def residuals(w: torch.Tensor) -> torch.Tensor:
    return w[0] * torch.exp(w[1] * xs) + w[2] - ys


w = torch.tensor([1.0, 0.5, 0.2])
v = torch.tensor([1.0, -1.0, 2.0])


def gauss_newton_product(f, w: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    J = jacobian(f, w)
    return J.T @ (J @ v)


gnv = gauss_newton_product(residuals, w, v)
J = torch.func.jacrev(residuals)(w)
explicit = J.T @ (J @ v)
# --8<-- [end:jacobian-imported]

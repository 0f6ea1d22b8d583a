"""Plausible mistakes for Exercise D.13 (snippets/practice/hutchinsons_trace_estimate.py).

Each region replaces the starter cell. Run with the exercise's check cell, each must make
the check print "Not quite" with an accurate diagnosis. (Gaussian vectors instead of
+1 and -1 are not a mistake: the estimate is unbiased with them too, and the check
accepts them; tests/maths/test_claims_exercises_deeper.py runs that case.)
"""
# ruff: noqa: E402, F811

# --8<-- [start:v-dot-gradient]
# Mistake: multiplies v by the gradient, v^T g, instead of by H v.
import warnings

import torch

# PyTorch warns from inside torch the first time forward mode runs (not your code).
warnings.filterwarnings("ignore", "`torch.jit.script` is deprecated")

torch.manual_seed(0)
X = torch.randn(8, 3, dtype=torch.float64)  # 8 examples, 3 features
Y = torch.randn(8, dtype=torch.float64)  # their targets


def loss(w: torch.Tensor) -> torch.Tensor:
    """A 3-3-1 tanh network whose 16 parameters are the entries of w: its mean squared
    error, plus the penalty 0.5 * |w|^2 (weight decay)."""
    W1, b1, w2, b2 = w[:9].reshape(3, 3), w[9:12], w[12:15], w[15]
    prediction = torch.tanh(X @ W1 + b1) @ w2 + b2
    return ((prediction - Y) ** 2).mean() + 0.5 * (w**2).sum()


w = torch.randn(16, dtype=torch.float64)  # the point


def hvp(f, w: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """H v: the JVP of the gradient function in the direction v (forward over reverse)."""
    return torch.func.jvp(torch.func.grad(f), (w,), (v,))[1]


def hutchinson_trace(f, w: torch.Tensor, num_samples: int) -> torch.Tensor:
    """An estimate of the trace of the Hessian of f at w, from num_samples products of
    the Hessian with random vectors v of +1 and -1. It never builds the Hessian."""
    total = torch.zeros((), dtype=w.dtype)
    for _ in range(num_samples):
        v = torch.randint(0, 2, w.shape).to(w.dtype) * 2 - 1  # +1 or -1, half and half
        total = total + v @ torch.func.grad(f)(w)
    return total / num_samples


# --8<-- [end:v-dot-gradient]

# --8<-- [start:norm-of-hv]
# Mistake: averages the length of H v instead of v^T H v.
import warnings

import torch

# PyTorch warns from inside torch the first time forward mode runs (not your code).
warnings.filterwarnings("ignore", "`torch.jit.script` is deprecated")

torch.manual_seed(0)
X = torch.randn(8, 3, dtype=torch.float64)  # 8 examples, 3 features
Y = torch.randn(8, dtype=torch.float64)  # their targets


def loss(w: torch.Tensor) -> torch.Tensor:
    """A 3-3-1 tanh network whose 16 parameters are the entries of w: its mean squared
    error, plus the penalty 0.5 * |w|^2 (weight decay)."""
    W1, b1, w2, b2 = w[:9].reshape(3, 3), w[9:12], w[12:15], w[15]
    prediction = torch.tanh(X @ W1 + b1) @ w2 + b2
    return ((prediction - Y) ** 2).mean() + 0.5 * (w**2).sum()


w = torch.randn(16, dtype=torch.float64)  # the point


def hvp(f, w: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """H v: the JVP of the gradient function in the direction v (forward over reverse)."""
    return torch.func.jvp(torch.func.grad(f), (w,), (v,))[1]


def hutchinson_trace(f, w: torch.Tensor, num_samples: int) -> torch.Tensor:
    """An estimate of the trace of the Hessian of f at w, from num_samples products of
    the Hessian with random vectors v of +1 and -1. It never builds the Hessian."""
    total = torch.zeros((), dtype=w.dtype)
    for _ in range(num_samples):
        v = torch.randint(0, 2, w.shape).to(w.dtype) * 2 - 1  # +1 or -1, half and half
        total = total + hvp(f, w, v).norm()
    return total / num_samples


# --8<-- [end:norm-of-hv]

# --8<-- [start:sum-not-mean]
# Mistake: sums v^T H v over the samples and forgets to divide by their number.
import warnings

import torch

# PyTorch warns from inside torch the first time forward mode runs (not your code).
warnings.filterwarnings("ignore", "`torch.jit.script` is deprecated")

torch.manual_seed(0)
X = torch.randn(8, 3, dtype=torch.float64)  # 8 examples, 3 features
Y = torch.randn(8, dtype=torch.float64)  # their targets


def loss(w: torch.Tensor) -> torch.Tensor:
    """A 3-3-1 tanh network whose 16 parameters are the entries of w: its mean squared
    error, plus the penalty 0.5 * |w|^2 (weight decay)."""
    W1, b1, w2, b2 = w[:9].reshape(3, 3), w[9:12], w[12:15], w[15]
    prediction = torch.tanh(X @ W1 + b1) @ w2 + b2
    return ((prediction - Y) ** 2).mean() + 0.5 * (w**2).sum()


w = torch.randn(16, dtype=torch.float64)  # the point


def hvp(f, w: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """H v: the JVP of the gradient function in the direction v (forward over reverse)."""
    return torch.func.jvp(torch.func.grad(f), (w,), (v,))[1]


def hutchinson_trace(f, w: torch.Tensor, num_samples: int) -> torch.Tensor:
    """An estimate of the trace of the Hessian of f at w, from num_samples products of
    the Hessian with random vectors v of +1 and -1. It never builds the Hessian."""
    total = torch.zeros((), dtype=w.dtype)
    for _ in range(num_samples):
        v = torch.randint(0, 2, w.shape).to(w.dtype) * 2 - 1  # +1 or -1, half and half
        total = total + v @ hvp(f, w, v)  # v^T H v: one number
    return total


# --8<-- [end:sum-not-mean]

# --8<-- [start:builds-the-hessian]
# Mistake: builds the whole Hessian with torch.func.hessian, then takes v^T H v.
import warnings

import torch

# PyTorch warns from inside torch the first time forward mode runs (not your code).
warnings.filterwarnings("ignore", "`torch.jit.script` is deprecated")

torch.manual_seed(0)
X = torch.randn(8, 3, dtype=torch.float64)  # 8 examples, 3 features
Y = torch.randn(8, dtype=torch.float64)  # their targets


def loss(w: torch.Tensor) -> torch.Tensor:
    """A 3-3-1 tanh network whose 16 parameters are the entries of w: its mean squared
    error, plus the penalty 0.5 * |w|^2 (weight decay)."""
    W1, b1, w2, b2 = w[:9].reshape(3, 3), w[9:12], w[12:15], w[15]
    prediction = torch.tanh(X @ W1 + b1) @ w2 + b2
    return ((prediction - Y) ** 2).mean() + 0.5 * (w**2).sum()


w = torch.randn(16, dtype=torch.float64)  # the point


def hvp(f, w: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """H v: the JVP of the gradient function in the direction v (forward over reverse)."""
    return torch.func.jvp(torch.func.grad(f), (w,), (v,))[1]


def hutchinson_trace(f, w: torch.Tensor, num_samples: int) -> torch.Tensor:
    """An estimate of the trace of the Hessian of f at w, from num_samples products of
    the Hessian with random vectors v of +1 and -1. It never builds the Hessian."""
    total = torch.zeros((), dtype=w.dtype)
    for _ in range(num_samples):
        v = torch.randint(0, 2, w.shape).to(w.dtype) * 2 - 1  # +1 or -1, half and half
        total = total + v @ (torch.func.hessian(f)(w) @ v)
    return total / num_samples


# --8<-- [end:builds-the-hessian]

# --8<-- [start:diagonal-not-trace]
# Mistake: multiplies v and H v entry by entry, without the sum: a vector.
import warnings

import torch

# PyTorch warns from inside torch the first time forward mode runs (not your code).
warnings.filterwarnings("ignore", "`torch.jit.script` is deprecated")

torch.manual_seed(0)
X = torch.randn(8, 3, dtype=torch.float64)  # 8 examples, 3 features
Y = torch.randn(8, dtype=torch.float64)  # their targets


def loss(w: torch.Tensor) -> torch.Tensor:
    """A 3-3-1 tanh network whose 16 parameters are the entries of w: its mean squared
    error, plus the penalty 0.5 * |w|^2 (weight decay)."""
    W1, b1, w2, b2 = w[:9].reshape(3, 3), w[9:12], w[12:15], w[15]
    prediction = torch.tanh(X @ W1 + b1) @ w2 + b2
    return ((prediction - Y) ** 2).mean() + 0.5 * (w**2).sum()


w = torch.randn(16, dtype=torch.float64)  # the point


def hvp(f, w: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """H v: the JVP of the gradient function in the direction v (forward over reverse)."""
    return torch.func.jvp(torch.func.grad(f), (w,), (v,))[1]


def hutchinson_trace(f, w: torch.Tensor, num_samples: int) -> torch.Tensor:
    """An estimate of the trace of the Hessian of f at w, from num_samples products of
    the Hessian with random vectors v of +1 and -1. It never builds the Hessian."""
    total = torch.zeros_like(w)
    for _ in range(num_samples):
        v = torch.randint(0, 2, w.shape).to(w.dtype) * 2 - 1  # +1 or -1, half and half
        total = total + v * hvp(f, w, v)
    return total / num_samples


# --8<-- [end:diagonal-not-trace]

# --8<-- [start:uses-the-page-loss]
# Mistake: differentiates the page's loss, not the function f it is given.
import warnings

import torch

# PyTorch warns from inside torch the first time forward mode runs (not your code).
warnings.filterwarnings("ignore", "`torch.jit.script` is deprecated")

torch.manual_seed(0)
X = torch.randn(8, 3, dtype=torch.float64)  # 8 examples, 3 features
Y = torch.randn(8, dtype=torch.float64)  # their targets


def loss(w: torch.Tensor) -> torch.Tensor:
    """A 3-3-1 tanh network whose 16 parameters are the entries of w: its mean squared
    error, plus the penalty 0.5 * |w|^2 (weight decay)."""
    W1, b1, w2, b2 = w[:9].reshape(3, 3), w[9:12], w[12:15], w[15]
    prediction = torch.tanh(X @ W1 + b1) @ w2 + b2
    return ((prediction - Y) ** 2).mean() + 0.5 * (w**2).sum()


w = torch.randn(16, dtype=torch.float64)  # the point


def hvp(f, w: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """H v: the JVP of the gradient function in the direction v (forward over reverse)."""
    return torch.func.jvp(torch.func.grad(f), (w,), (v,))[1]


def hutchinson_trace(f, w: torch.Tensor, num_samples: int) -> torch.Tensor:
    """An estimate of the trace of the Hessian of f at w, from num_samples products of
    the Hessian with random vectors v of +1 and -1. It never builds the Hessian."""
    total = torch.zeros((), dtype=w.dtype)
    for _ in range(num_samples):
        v = torch.randint(0, 2, w.shape).to(w.dtype) * 2 - 1  # +1 or -1, half and half
        total = total + v @ hvp(loss, w, v)
    return total / num_samples


# --8<-- [end:uses-the-page-loss]

# --8<-- [start:one-vector-reused]
# Mistake: draws one vector v before the loop and uses it for every sample.
import warnings

import torch

warnings.filterwarnings("ignore", "`torch.jit.script` is deprecated")

torch.manual_seed(0)
X = torch.randn(8, 3, dtype=torch.float64)
Y = torch.randn(8, dtype=torch.float64)


def loss(w: torch.Tensor) -> torch.Tensor:
    W1, b1, w2, b2 = w[:9].reshape(3, 3), w[9:12], w[12:15], w[15]
    prediction = torch.tanh(X @ W1 + b1) @ w2 + b2
    return ((prediction - Y) ** 2).mean() + 0.5 * (w**2).sum()


w = torch.randn(16, dtype=torch.float64)


def hutchinson_trace(f, w: torch.Tensor, num_samples: int) -> torch.Tensor:
    v = torch.randint(0, 2, w.shape).to(w.dtype) * 2 - 1  # drawn once: one sample only
    total = torch.zeros((), dtype=w.dtype)
    for _ in range(num_samples):
        total = total + v @ torch.func.jvp(torch.func.grad(f), (w,), (v,))[1]
    return total / num_samples


# --8<-- [end:one-vector-reused]

# --8<-- [start:exact-from-basis-vectors]
# Mistake: sums e_i^T H e_i over the basis vectors: the exact trace, no random vector.
import warnings

import torch

warnings.filterwarnings("ignore", "`torch.jit.script` is deprecated")

torch.manual_seed(0)
X = torch.randn(8, 3, dtype=torch.float64)
Y = torch.randn(8, dtype=torch.float64)


def loss(w: torch.Tensor) -> torch.Tensor:
    W1, b1, w2, b2 = w[:9].reshape(3, 3), w[9:12], w[12:15], w[15]
    prediction = torch.tanh(X @ W1 + b1) @ w2 + b2
    return ((prediction - Y) ** 2).mean() + 0.5 * (w**2).sum()


w = torch.randn(16, dtype=torch.float64)


def hutchinson_trace(f, w: torch.Tensor, num_samples: int) -> torch.Tensor:
    basis = torch.eye(w.numel(), dtype=w.dtype)  # num_samples is ignored
    return sum(e @ torch.func.jvp(torch.func.grad(f), (w,), (e,))[1] for e in basis)


# --8<-- [end:exact-from-basis-vectors]

# --8<-- [start:global-w]
# Mistake: a helper reads the page's global w, not the point hutchinson_trace is given.
import warnings

import torch

warnings.filterwarnings("ignore", "`torch.jit.script` is deprecated")

torch.manual_seed(0)
X = torch.randn(8, 3, dtype=torch.float64)
Y = torch.randn(8, dtype=torch.float64)


def loss(w: torch.Tensor) -> torch.Tensor:
    W1, b1, w2, b2 = w[:9].reshape(3, 3), w[9:12], w[12:15], w[15]
    prediction = torch.tanh(X @ W1 + b1) @ w2 + b2
    return ((prediction - Y) ** 2).mean() + 0.5 * (w**2).sum()


w = torch.randn(16, dtype=torch.float64)


def hvp(f, v: torch.Tensor) -> torch.Tensor:
    return torch.func.jvp(torch.func.grad(f), (w,), (v,))[1]  # the global w


def hutchinson_trace(f, point: torch.Tensor, num_samples: int) -> torch.Tensor:
    total = torch.zeros((), dtype=point.dtype)
    for _ in range(num_samples):
        v = torch.randint(0, 2, point.shape).to(point.dtype) * 2 - 1
        total = total + v @ hvp(f, v)
    return total / num_samples


# --8<-- [end:global-w]

"""Plausible wrong answers to Exercise D.3 (snippets/practice/broadcasting_gradient.py).

Each region replaces the starter cell; the check must answer "Not quite" with the right
diagnosis.
"""
# ruff: noqa: E402, F811, F401

# --8<-- [start:no-keepdim]
# Forgets keepdim: the expanded dimensions of size 1 are summed away, not kept.
import torch


def unbroadcast(grad, shape):
    shape = tuple(shape)
    extra = grad.dim() - len(shape)
    if extra > 0:
        grad = grad.sum(dim=tuple(range(extra)))
    copied = tuple(i for i, size in enumerate(shape) if size == 1 and grad.shape[i] != 1)
    if copied:
        grad = grad.sum(dim=copied)
    return grad


# --8<-- [end:no-keepdim]

# --8<-- [start:leading-only]
# Sums only the leading dimensions, and forgets the expanded dimensions of size 1.
import torch


def unbroadcast(grad, shape):
    extra = grad.dim() - len(tuple(shape))
    if extra > 0:
        grad = grad.sum(dim=tuple(range(extra)))
    return grad


# --8<-- [end:leading-only]

# --8<-- [start:empty-dims]
# No guard on the first sum: with no leading dimension, grad.sum(dim=()) sums everything.
import torch


def unbroadcast(grad, shape):
    shape = tuple(shape)
    extra = grad.dim() - len(shape)
    grad = grad.sum(dim=tuple(range(extra)))
    copied = tuple(i for i, size in enumerate(shape) if size == 1 and grad.shape[i] != 1)
    if copied:
        grad = grad.sum(dim=copied, keepdim=True)
    return grad


# --8<-- [end:empty-dims]

# --8<-- [start:mean]
# Averages over the copies instead of adding them.
import torch


def unbroadcast(grad, shape):
    shape = tuple(shape)
    extra = grad.dim() - len(shape)
    if extra > 0:
        grad = grad.mean(dim=tuple(range(extra)))
    copied = tuple(i for i, size in enumerate(shape) if size == 1 and grad.shape[i] != 1)
    if copied:
        grad = grad.mean(dim=copied, keepdim=True)
    return grad


# --8<-- [end:mean]

# --8<-- [start:unchanged]
# Returns the gradient as it came, as if the shapes were the same.
import torch


def unbroadcast(grad, shape):
    return grad


# --8<-- [end:unchanged]

# --8<-- [start:from-the-left]
# Lines the shapes up from the left: the extra dimensions summed are the last ones.
import torch


def unbroadcast(grad, shape):
    shape = tuple(shape)
    extra = grad.dim() - len(shape)
    if extra > 0:
        grad = grad.sum(dim=tuple(range(len(shape), grad.dim())))
    copied = tuple(i for i, size in enumerate(shape) if size == 1 and grad.shape[i] != 1)
    if copied:
        grad = grad.sum(dim=copied, keepdim=True)
    return grad


# --8<-- [end:from-the-left]

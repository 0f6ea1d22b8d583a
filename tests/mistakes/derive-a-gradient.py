"""Plausible mistakes for Exercise 2.10 (derive-a-gradient), one per region.

Each region replaces the starter cell; the exercise's check cell must then print an
accurate "Not quite: ..." (or "Not done yet: ..." where that is the honest verdict).
"""
# ruff: noqa: E402, F811

# --8<-- [start:sigmoid-derivative-missing]
# The sigmoid's own derivative s(1 - s) is missing.
import math


def grad_w(x, w, b, t):
    s = 1 / (1 + math.exp(-(w * x + b)))
    return 2 * (s - t) * x


def grad_b(x, w, b, t):
    s = 1 / (1 + math.exp(-(w * x + b)))
    return 2 * (s - t)


# --8<-- [end:sigmoid-derivative-missing]

# --8<-- [start:factor-two-missing]
# The 2 of the square's derivative 2(s - t) is missing.
import math


def sigmoid(z: float) -> float:
    return 1 / (1 + math.exp(-z))


def grad_w(x: float, w: float, b: float, t: float) -> float:
    s = sigmoid(w * x + b)
    return (s - t) * s * (1 - s) * x


def grad_b(x: float, w: float, b: float, t: float) -> float:
    s = sigmoid(w * x + b)
    return (s - t) * s * (1 - s)


# --8<-- [end:factor-two-missing]

# --8<-- [start:x-in-the-bias]
# The factor x is copied into grad_b too, although b enters w * x + b with slope 1.
import math


def sigmoid(z: float) -> float:
    return 1 / (1 + math.exp(-z))


def grad_w(x: float, w: float, b: float, t: float) -> float:
    s = sigmoid(w * x + b)
    return 2 * (s - t) * s * (1 - s) * x


def grad_b(x: float, w: float, b: float, t: float) -> float:
    s = sigmoid(w * x + b)
    return 2 * (s - t) * s * (1 - s) * x


# --8<-- [end:x-in-the-bias]

"""Plausible mistakes for Exercise D.11 (snippets/practice/batch_norm_backward.py).

Each region replaces the starter cell. Run with the exercise's check cell, each must make
the check print "Not quite" with an accurate diagnosis.
"""
# ruff: noqa: E402, F811, F401

# --8<-- [start:unbiased-variance]
# Mistake: the normalisation uses x.var(dim=0), whose default divides by N - 1 (Bessel).
import torch


def batch_norm_forward(x, gamma, beta, eps=1e-5):
    """Training-mode batch norm of x, shape (N, C), over the batch (dim 0)."""
    mu = x.mean(dim=0)  # one mean per feature
    sigma = (x.var(dim=0) + eps).sqrt()
    x_hat = (x - mu) / sigma
    return gamma * x_hat + beta, x_hat, sigma


def batch_norm_backward(dy, x_hat, sigma, gamma):
    """dx, dgamma and dbeta for y = gamma * x_hat + beta, x_hat = (x - mu) / sigma."""
    dgamma = (dy * x_hat).sum(dim=0)  # one sum per feature, over the batch
    dbeta = dy.sum(dim=0)
    g = dy * gamma  # the gradient arriving at x_hat
    dx = (
        g
        - g.mean(dim=0)  # mu depends on every x of the feature
        - x_hat * (g * x_hat).mean(dim=0)  # so does sigma
    ) / sigma
    return dx, dgamma, dbeta


# --8<-- [end:unbiased-variance]

# --8<-- [start:bessel-in-backward]
# Mistake: the backward divides by N - 1 in sigma's term, as if the variance were unbiased.
import torch


def batch_norm_forward(x, gamma, beta, eps=1e-5):
    """Training-mode batch norm of x, shape (N, C), over the batch (dim 0)."""
    mu = x.mean(dim=0)  # one mean per feature
    sigma = (((x - mu) ** 2).mean(dim=0) + eps).sqrt()  # the variance divides by N
    x_hat = (x - mu) / sigma
    return gamma * x_hat + beta, x_hat, sigma


def batch_norm_backward(dy, x_hat, sigma, gamma):
    """dx, dgamma and dbeta for y = gamma * x_hat + beta, x_hat = (x - mu) / sigma."""
    dgamma = (dy * x_hat).sum(dim=0)  # one sum per feature, over the batch
    dbeta = dy.sum(dim=0)
    g = dy * gamma  # the gradient arriving at x_hat
    n = dy.shape[0]
    dx = (g - g.mean(dim=0) - x_hat * (g * x_hat).sum(dim=0) / (n - 1)) / sigma
    return dx, dgamma, dbeta


# --8<-- [end:bessel-in-backward]

# --8<-- [start:statistics-as-constants]
# Mistake: treats mu and sigma as constants: dx = gamma * dy / sigma, no coupling terms.
import torch


def batch_norm_forward(x, gamma, beta, eps=1e-5):
    """Training-mode batch norm of x, shape (N, C), over the batch (dim 0)."""
    mu = x.mean(dim=0)  # one mean per feature
    sigma = (((x - mu) ** 2).mean(dim=0) + eps).sqrt()  # the variance divides by N
    x_hat = (x - mu) / sigma
    return gamma * x_hat + beta, x_hat, sigma


def batch_norm_backward(dy, x_hat, sigma, gamma):
    """dx, dgamma and dbeta for y = gamma * x_hat + beta, x_hat = (x - mu) / sigma."""
    dgamma = (dy * x_hat).sum(dim=0)  # one sum per feature, over the batch
    dbeta = dy.sum(dim=0)
    g = dy * gamma  # the gradient arriving at x_hat
    dx = g / sigma
    return dx, dgamma, dbeta


# --8<-- [end:statistics-as-constants]

# --8<-- [start:sigma-term-missing]
# Mistake: keeps the mean's term but treats sigma as a constant.
import torch


def batch_norm_forward(x, gamma, beta, eps=1e-5):
    """Training-mode batch norm of x, shape (N, C), over the batch (dim 0)."""
    mu = x.mean(dim=0)  # one mean per feature
    sigma = (((x - mu) ** 2).mean(dim=0) + eps).sqrt()  # the variance divides by N
    x_hat = (x - mu) / sigma
    return gamma * x_hat + beta, x_hat, sigma


def batch_norm_backward(dy, x_hat, sigma, gamma):
    """dx, dgamma and dbeta for y = gamma * x_hat + beta, x_hat = (x - mu) / sigma."""
    dgamma = (dy * x_hat).sum(dim=0)  # one sum per feature, over the batch
    dbeta = dy.sum(dim=0)
    g = dy * gamma  # the gradient arriving at x_hat
    dx = (g - g.mean(dim=0)) / sigma
    return dx, dgamma, dbeta


# --8<-- [end:sigma-term-missing]

# --8<-- [start:sums-over-features]
# Mistake: sums dgamma and dbeta over the features (dim=1) instead of over the batch.
import torch


def batch_norm_forward(x, gamma, beta, eps=1e-5):
    """Training-mode batch norm of x, shape (N, C), over the batch (dim 0)."""
    mu = x.mean(dim=0)  # one mean per feature
    sigma = (((x - mu) ** 2).mean(dim=0) + eps).sqrt()  # the variance divides by N
    x_hat = (x - mu) / sigma
    return gamma * x_hat + beta, x_hat, sigma


def batch_norm_backward(dy, x_hat, sigma, gamma):
    """dx, dgamma and dbeta for y = gamma * x_hat + beta, x_hat = (x - mu) / sigma."""
    dgamma = (dy * x_hat).sum(dim=1)
    dbeta = dy.sum(dim=1)
    g = dy * gamma  # the gradient arriving at x_hat
    dx = (
        g
        - g.mean(dim=0)  # mu depends on every x of the feature
        - x_hat * (g * x_hat).mean(dim=0)  # so does sigma
    ) / sigma
    return dx, dgamma, dbeta


# --8<-- [end:sums-over-features]

# --8<-- [start:means-over-features]
# Mistake: the means of dx are taken over the features (dim=1), as in layer norm.
import torch


def batch_norm_forward(x, gamma, beta, eps=1e-5):
    """Training-mode batch norm of x, shape (N, C), over the batch (dim 0)."""
    mu = x.mean(dim=0)  # one mean per feature
    sigma = (((x - mu) ** 2).mean(dim=0) + eps).sqrt()  # the variance divides by N
    x_hat = (x - mu) / sigma
    return gamma * x_hat + beta, x_hat, sigma


def batch_norm_backward(dy, x_hat, sigma, gamma):
    """dx, dgamma and dbeta for y = gamma * x_hat + beta, x_hat = (x - mu) / sigma."""
    dgamma = (dy * x_hat).sum(dim=0)  # one sum per feature, over the batch
    dbeta = dy.sum(dim=0)
    g = dy * gamma  # the gradient arriving at x_hat
    dx = (g - g.mean(dim=1, keepdim=True) - x_hat * (g * x_hat).mean(dim=1, keepdim=True)) / sigma
    return dx, dgamma, dbeta


# --8<-- [end:means-over-features]

# --8<-- [start:forgot-gamma]
# Mistake: dx is computed from dy, without the factor gamma: g = dy.
import torch


def batch_norm_forward(x, gamma, beta, eps=1e-5):
    """Training-mode batch norm of x, shape (N, C), over the batch (dim 0)."""
    mu = x.mean(dim=0)  # one mean per feature
    sigma = (((x - mu) ** 2).mean(dim=0) + eps).sqrt()  # the variance divides by N
    x_hat = (x - mu) / sigma
    return gamma * x_hat + beta, x_hat, sigma


def batch_norm_backward(dy, x_hat, sigma, gamma):
    """dx, dgamma and dbeta for y = gamma * x_hat + beta, x_hat = (x - mu) / sigma."""
    dgamma = (dy * x_hat).sum(dim=0)  # one sum per feature, over the batch
    dbeta = dy.sum(dim=0)
    g = dy  # gamma forgotten
    dx = (
        g
        - g.mean(dim=0)  # mu depends on every x of the feature
        - x_hat * (g * x_hat).mean(dim=0)  # so does sigma
    ) / sigma
    return dx, dgamma, dbeta


# --8<-- [end:forgot-gamma]

# --8<-- [start:fixed-eps]
# Mistake: writes eps = 1e-5 into sigma instead of using the argument eps.
import torch


def batch_norm_forward(x, gamma, beta, eps=1e-5):
    """Training-mode batch norm of x, shape (N, C), over the batch (dim 0)."""
    mu = x.mean(dim=0)  # one mean per feature
    sigma = (((x - mu) ** 2).mean(dim=0) + 1e-5).sqrt()  # the argument eps is ignored
    x_hat = (x - mu) / sigma
    return gamma * x_hat + beta, x_hat, sigma


def batch_norm_backward(dy, x_hat, sigma, gamma):
    """dx, dgamma and dbeta for y = gamma * x_hat + beta, x_hat = (x - mu) / sigma."""
    dgamma = (dy * x_hat).sum(dim=0)  # one sum per feature, over the batch
    dbeta = dy.sum(dim=0)
    g = dy * gamma  # the gradient arriving at x_hat
    dx = (
        g
        - g.mean(dim=0)  # mu depends on every x of the feature
        - x_hat * (g * x_hat).mean(dim=0)  # so does sigma
    ) / sigma
    return dx, dgamma, dbeta


# --8<-- [end:fixed-eps]

# --8<-- [start:variance-as-sigma]
# Mistake: y is right, but the forward pass returns the variance + eps in place of sigma.
import torch


def batch_norm_forward(x, gamma, beta, eps=1e-5):
    """Training-mode batch norm of x, shape (N, C), over the batch (dim 0)."""
    mu = x.mean(dim=0)  # one mean per feature
    sigma = ((x - mu) ** 2).mean(dim=0) + eps  # the variance, not its square root
    x_hat = (x - mu) / sigma.sqrt()
    return gamma * x_hat + beta, x_hat, sigma


def batch_norm_backward(dy, x_hat, sigma, gamma):
    """dx, dgamma and dbeta for y = gamma * x_hat + beta, x_hat = (x - mu) / sigma."""
    dgamma = (dy * x_hat).sum(dim=0)  # one sum per feature, over the batch
    dbeta = dy.sum(dim=0)
    g = dy * gamma  # the gradient arriving at x_hat
    dx = (
        g
        - g.mean(dim=0)  # mu depends on every x of the feature
        - x_hat * (g * x_hat).mean(dim=0)  # so does sigma
    ) / sigma
    return dx, dgamma, dbeta


# --8<-- [end:variance-as-sigma]

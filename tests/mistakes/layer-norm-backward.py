"""Plausible wrong answers to Exercise D.5 (snippets/practice/layer_norm_backward.py).

Each region replaces the starter cell; the check must answer "Not quite" with the right
diagnosis.
"""
# ruff: noqa: E402, F811, F401

# --8<-- [start:sigma-constant]
# Treats sigma as a constant: the x_hat * mean(dx_hat * x_hat) term is missing.
import torch


def layer_norm_forward(x, gamma, beta, eps=1e-5):
    """Layer norm over the last dimension; returns y and what the backward pass needs."""
    mu = x.mean(dim=-1, keepdim=True)
    sigma = (((x - mu) ** 2).mean(dim=-1, keepdim=True) + eps).sqrt()
    x_hat = (x - mu) / sigma
    return gamma * x_hat + beta, x_hat, sigma


def layer_norm_backward(dy, x_hat, sigma, gamma):
    """dx, dgamma and dbeta for y = gamma * x_hat + beta, x_hat = (x - mean) / sigma."""
    dgamma = (dy * x_hat).sum(dim=0)  # one sum per feature, over the rows
    dbeta = dy.sum(dim=0)
    dx_hat = dy * gamma
    dx = (
        dx_hat - dx_hat.mean(dim=-1, keepdim=True)  # the mean depends on x
    ) / sigma
    return dx, dgamma, dbeta


# --8<-- [end:sigma-constant]

# --8<-- [start:mean-constant]
# Treats the mean as a constant: the - mean(dx_hat) term is missing.
import torch


def layer_norm_forward(x, gamma, beta, eps=1e-5):
    """Layer norm over the last dimension; returns y and what the backward pass needs."""
    mu = x.mean(dim=-1, keepdim=True)
    sigma = (((x - mu) ** 2).mean(dim=-1, keepdim=True) + eps).sqrt()
    x_hat = (x - mu) / sigma
    return gamma * x_hat + beta, x_hat, sigma


def layer_norm_backward(dy, x_hat, sigma, gamma):
    """dx, dgamma and dbeta for y = gamma * x_hat + beta, x_hat = (x - mean) / sigma."""
    dgamma = (dy * x_hat).sum(dim=0)  # one sum per feature, over the rows
    dbeta = dy.sum(dim=0)
    dx_hat = dy * gamma
    dx = (
        dx_hat - x_hat * (dx_hat * x_hat).mean(dim=-1, keepdim=True)  # sigma depends on x
    ) / sigma
    return dx, dgamma, dbeta


# --8<-- [end:mean-constant]

# --8<-- [start:forgot-gamma]
# Uses dy where the formula needs dx_hat = dy * gamma.
import torch


def layer_norm_forward(x, gamma, beta, eps=1e-5):
    """Layer norm over the last dimension; returns y and what the backward pass needs."""
    mu = x.mean(dim=-1, keepdim=True)
    sigma = (((x - mu) ** 2).mean(dim=-1, keepdim=True) + eps).sqrt()
    x_hat = (x - mu) / sigma
    return gamma * x_hat + beta, x_hat, sigma


def layer_norm_backward(dy, x_hat, sigma, gamma):
    """dx, dgamma and dbeta for y = gamma * x_hat + beta, x_hat = (x - mean) / sigma."""
    dgamma = (dy * x_hat).sum(dim=0)  # one sum per feature, over the rows
    dbeta = dy.sum(dim=0)
    dx_hat = dy  # gamma forgotten
    dx = (
        dx_hat
        - dx_hat.mean(dim=-1, keepdim=True)  # the mean depends on x
        - x_hat * (dx_hat * x_hat).mean(dim=-1, keepdim=True)  # sigma depends on x
    ) / sigma
    return dx, dgamma, dbeta


# --8<-- [end:forgot-gamma]

# --8<-- [start:dgamma-not-summed]
# dgamma not summed over the rows: it keeps one row per example.
import torch


def layer_norm_forward(x, gamma, beta, eps=1e-5):
    """Layer norm over the last dimension; returns y and what the backward pass needs."""
    mu = x.mean(dim=-1, keepdim=True)
    sigma = (((x - mu) ** 2).mean(dim=-1, keepdim=True) + eps).sqrt()
    x_hat = (x - mu) / sigma
    return gamma * x_hat + beta, x_hat, sigma


def layer_norm_backward(dy, x_hat, sigma, gamma):
    """dx, dgamma and dbeta for y = gamma * x_hat + beta, x_hat = (x - mean) / sigma."""
    dgamma = dy * x_hat
    dbeta = dy.sum(dim=0)
    dx_hat = dy * gamma
    dx = (
        dx_hat
        - dx_hat.mean(dim=-1, keepdim=True)  # the mean depends on x
        - x_hat * (dx_hat * x_hat).mean(dim=-1, keepdim=True)  # sigma depends on x
    ) / sigma
    return dx, dgamma, dbeta


# --8<-- [end:dgamma-not-summed]

# --8<-- [start:dgamma-without-x-hat]
# dgamma = the sum of dy, like dbeta: the factor x_hat is missing.
import torch


def layer_norm_forward(x, gamma, beta, eps=1e-5):
    """Layer norm over the last dimension; returns y and what the backward pass needs."""
    mu = x.mean(dim=-1, keepdim=True)
    sigma = (((x - mu) ** 2).mean(dim=-1, keepdim=True) + eps).sqrt()
    x_hat = (x - mu) / sigma
    return gamma * x_hat + beta, x_hat, sigma


def layer_norm_backward(dy, x_hat, sigma, gamma):
    """dx, dgamma and dbeta for y = gamma * x_hat + beta, x_hat = (x - mean) / sigma."""
    dgamma = dy.sum(dim=0)
    dbeta = dy.sum(dim=0)
    dx_hat = dy * gamma
    dx = (
        dx_hat
        - dx_hat.mean(dim=-1, keepdim=True)  # the mean depends on x
        - x_hat * (dx_hat * x_hat).mean(dim=-1, keepdim=True)  # sigma depends on x
    ) / sigma
    return dx, dgamma, dbeta


# --8<-- [end:dgamma-without-x-hat]

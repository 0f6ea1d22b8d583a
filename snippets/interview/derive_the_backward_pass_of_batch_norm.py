"""Interview: Derive the backward pass of batch norm.
(docs/interview/derive-the-backward-pass-of-batch-norm.md)"""

# --8<-- [start:coupling]
import torch
import torch.nn.functional as F

torch.manual_seed(0)
N, D = 4, 3  # a batch of 4 examples, 3 features
x = torch.randn(N, D, dtype=torch.float64)
gamma = torch.tensor([1.5, -0.5, 2.0], dtype=torch.float64)  # the scale, one per feature
beta = torch.tensor([0.1, 0.2, 0.3], dtype=torch.float64)  # the shift, one per feature


def batch_norm(x):
    """Training mode: normalise with the batch's own mean and variance."""
    return F.batch_norm(x, None, None, gamma, beta, training=True)


J = torch.func.jacrev(batch_norm)(x)  # shape (N, D, N, D): d y[i, k] / d x[j, l]
print("d y[i, 0] / d x[j, 0], feature 0 (rows i, columns j):")
print(J[:, 0, :, 0].round(decimals=4))
print("entries that link two different features: all 0?", bool(J[:, 0, :, 1:].eq(0).all()))
# --8<-- [end:coupling]

# --8<-- [start:eval-mode]
running_mean, running_var = x.mean(0), x.var(0)  # any fixed statistics will do


def batch_norm_eval(x):
    """Eval mode: normalise with fixed running statistics."""
    return F.batch_norm(x, running_mean, running_var, gamma, beta, training=False)


J_eval = torch.func.jacrev(batch_norm_eval)(x)
print("eval mode, feature 0:")
print(J_eval[:, 0, :, 0].round(decimals=4))
# --8<-- [end:eval-mode]


# --8<-- [start:formula]
def norm_backward(dy, x, gamma, eps=1e-5, dim=0):
    """The backward pass of a normalisation over `dim`, by hand.

    dim=0: batch norm in training mode (the statistics of each feature over the batch of
    an (N, D) input). dim=-1: layer norm (the statistics of each example over its
    features, for an input of any shape (..., D)).
    """
    n = x.shape[dim]
    mu = x.mean(dim, keepdim=True)
    sigma = (x.var(dim, unbiased=False, keepdim=True) + eps).sqrt()  # divides by n
    xhat = (x - mu) / sigma
    g = gamma * dy  # dy', the gradient that reaches xhat
    dx = (n * g - g.sum(dim, keepdim=True) - xhat * (g * xhat).sum(dim, keepdim=True)) / (n * sigma)
    rows = (-1, x.shape[-1])  # gamma and beta hold one number per feature, the last dimension
    return dx, (dy * xhat).reshape(rows).sum(0), dy.reshape(rows).sum(0)  # dx, dgamma, dbeta


# --8<-- [end:formula]


# --8<-- [start:check]
bn = torch.nn.BatchNorm1d(D, dtype=torch.float64)  # in training mode, as a new module is
with torch.no_grad():
    bn.weight.copy_(gamma)
    bn.bias.copy_(beta)
x_leaf = x.clone().requires_grad_()
dy = torch.randn(N, D, dtype=torch.float64)  # an upstream gradient
bn(x_leaf).backward(dy)

dx, dgamma, dbeta = norm_backward(dy, x, gamma)
print("dx by hand:")
print(dx)


def agree(a, b):
    """Equal to within 1e-12: float64 rounding, far below any wrong term."""
    return bool((a - b).abs().max() < 1e-12)


print(
    "dx, dgamma, dbeta equal autograd's:",
    agree(dx, x_leaf.grad),
    agree(dgamma, bn.weight.grad),
    agree(dbeta, bn.bias.grad),
)
print("each feature's dx sums over the batch to 0:", agree(dx.sum(0), torch.zeros(D)))
# --8<-- [end:check]


# --8<-- [start:orthogonal]
def dx_dot_xhat(eps):
    """Per feature, the sum over the batch of dx * xhat, and the same by hand."""
    dx_eps, _, _ = norm_backward(dy, x, gamma, eps=eps)
    var = x.var(0, unbiased=False)  # divided by N
    sigma_eps = (var + eps).sqrt()
    xhat_eps = (x - x.mean(0)) / sigma_eps
    by_hand = (gamma * dy * xhat_eps).sum(0) / sigma_eps * eps / (var + eps)
    return (dx_eps * xhat_eps).sum(0), by_hand


dot, by_hand = dx_dot_xhat(1e-5)
print("eps = 1e-5, sum of dx * xhat over the batch:", dot)
print("by hand, sum(g xhat) / sigma * eps / (var + eps):", by_hand)
dot_0, _ = dx_dot_xhat(0.0)
print("eps = 0: each feature's dx is orthogonal to its xhat:", agree(dot_0, torch.zeros(D)))
# --8<-- [end:orthogonal]

# --8<-- [start:variances]
bn_once = torch.nn.BatchNorm1d(D, momentum=1.0, dtype=torch.float64)  # keep only this batch
y = bn_once(x)
print("running_var:                     ", bn_once.running_var)
print("x.var(0), divided by N - 1:      ", x.var(0))
print("x.var(0, unbiased=False), by N:  ", x.var(0, unbiased=False))
xhat_biased = (x - x.mean(0)) / (x.var(0, unbiased=False) + bn_once.eps).sqrt()
xhat_unbiased = (x - x.mean(0)) / (x.var(0) + bn_once.eps).sqrt()
print("y normalised with the variance over N:    ", torch.allclose(y, xhat_biased))
print("y normalised with the variance over N - 1:", torch.allclose(y, xhat_unbiased))
print("running_var requires grad:", bn_once.running_var.requires_grad)
# --8<-- [end:variances]

# --8<-- [start:bessel-variant]
# Normalising with the unbiased variance (as "backprop ninja" does): N/(N - 1) on the last term.
x_leaf = x.clone().requires_grad_()
sigma_u = (x_leaf.var(0) + 1e-5).sqrt()  # unbiased: divides by N - 1
(gamma * (x_leaf - x_leaf.mean(0)) / sigma_u + beta).backward(dy)
with torch.no_grad():
    xhat_u = (x - x.mean(0)) / sigma_u
    g = gamma * dy
    dx_u = (N * g - g.sum(0) - N / (N - 1) * xhat_u * (g * xhat_u).sum(0)) / (N * sigma_u)
print("the unbiased variant equals autograd's:", agree(dx_u, x_leaf.grad))
# --8<-- [end:bessel-variant]

# --8<-- [start:batch-of-one]
one = torch.tensor([[0.7, -1.2, 3.0]], dtype=torch.float64)  # N = 1
xhat_one = (one - one.mean(0)) / (one.var(0, unbiased=False) + 1e-5).sqrt()
print("xhat:", xhat_one, " so y = gamma * 0 + beta =", gamma * xhat_one + beta)
dx_one, _, _ = norm_backward(torch.tensor([[1.0, 2.0, 3.0]], dtype=torch.float64), one, gamma)
print("dx by the formula:", dx_one)
# --8<-- [end:batch-of-one]

# --8<-- [start:layer-norm]
x_leaf = x.clone().requires_grad_()
F.layer_norm(x_leaf, (D,), gamma, beta).backward(dy)  # over the D features of each row
dx_ln, _, _ = norm_backward(dy, x, gamma, dim=-1)
print("layer norm: dx equals autograd's:", agree(dx_ln, x_leaf.grad))
print("each example's dx sums over its features to 0:", agree(dx_ln.sum(1), torch.zeros(N)))

# A (batch, tokens, features) input, as in a transformer: gamma and beta are per feature.
x3 = torch.randn(2, N, D, dtype=torch.float64, requires_grad=True)
dy3 = torch.randn(2, N, D, dtype=torch.float64)
gamma_leaf, beta_leaf = gamma.clone().requires_grad_(), beta.clone().requires_grad_()
F.layer_norm(x3, (D,), gamma_leaf, beta_leaf).backward(dy3)
dx3, dgamma3, dbeta3 = norm_backward(dy3, x3.detach(), gamma, dim=-1)
print(
    f"a {tuple(x3.shape)} input: dx, dgamma, dbeta equal autograd's:",
    agree(dx3, x3.grad),
    agree(dgamma3, gamma_leaf.grad),
    agree(dbeta3, beta_leaf.grad),
)
# --8<-- [end:layer-norm]

"""Exercise D.11: batch norm's backward by hand.
Run it: python snippets/practice/batch_norm_backward.py"""
# Each region is a self-contained cell (page, notebook), so imports repeat.
# ruff: noqa: E402, F811

# --8<-- [start:starter]
import torch


def batch_norm_forward(x, gamma, beta, eps=1e-5):
    """Training-mode batch norm of x, shape (N, C): each feature (column) is normalised
    with the mean and the variance of its N values in the batch.
    Returns y and what the backward pass needs: x_hat, shape (N, C), and sigma, shape (C,).
    """
    mu = ...  # replace ...: the mean of each feature over the batch, shape (C,)
    sigma = ...  # replace ...: sqrt(variance + eps), the variance of each feature over the batch
    x_hat = (x - mu) / sigma
    return gamma * x_hat + beta, x_hat, sigma


def batch_norm_backward(dy, x_hat, sigma, gamma):
    """dx, dgamma and dbeta for y = gamma * x_hat + beta, x_hat = (x - mu) / sigma.

    dy, x_hat: shape (N, C); sigma, gamma: shape (C,). No autograd.
    """
    dgamma = ...  # replace ...: gamma was broadcast over the N examples
    dbeta = ...  # replace ...
    dx = ...  # replace ...: mu and sigma depend on every x of their feature
    return dx, dgamma, dbeta


# When it works, compare with autograd:
# import torch.nn.functional as F
# torch.manual_seed(0)
# x = torch.randn(6, 3, dtype=torch.float64, requires_grad=True)
# gamma, beta = torch.randn(3, dtype=torch.float64), torch.randn(3, dtype=torch.float64)
# dy = torch.randn(6, 3, dtype=torch.float64)
# F.batch_norm(x, None, None, gamma, beta, training=True).backward(dy)
# with torch.no_grad():
#     y, x_hat, sigma = batch_norm_forward(x, gamma, beta)
#     dx, dgamma, dbeta = batch_norm_backward(dy, x_hat, sigma, gamma)
# torch.testing.assert_close(dx, x.grad)
# --8<-- [end:starter]

# --8<-- [start:solution]
import torch
import torch.nn.functional as F
from torch import nn


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
    dx = (
        g
        - g.mean(dim=0)  # mu depends on every x of the feature
        - x_hat * (g * x_hat).mean(dim=0)  # so does sigma
    ) / sigma
    return dx, dgamma, dbeta


torch.manual_seed(0)
N, C = 6, 3  # 6 examples, 3 features
x = torch.randn(N, C, dtype=torch.float64, requires_grad=True)
gamma = torch.randn(C, dtype=torch.float64, requires_grad=True)
beta = torch.randn(C, dtype=torch.float64, requires_grad=True)
dy = torch.randn(N, C, dtype=torch.float64)
y = F.batch_norm(x, None, None, gamma, beta, training=True)  # PyTorch's own batch norm
y.backward(dy)

with torch.no_grad():
    mine, x_hat, sigma = batch_norm_forward(x, gamma, beta)
    dx, dgamma, dbeta = batch_norm_backward(dy, x_hat, sigma, gamma)
print("y      matches F.batch_norm:", torch.allclose(mine, y))
for name, ours, theirs in [
    ("dx", dx, x.grad),
    ("dgamma", dgamma, gamma.grad),
    ("dbeta", dbeta, beta.grad),
]:
    torch.testing.assert_close(ours, theirs)  # raises if they differ
    print(f"{name:<6} {tuple(ours.shape)} matches autograd")
print("every column of dx sums to 0 (to 1e-12):", bool(dx.sum(dim=0).abs().max() < 1e-12))

# The two variances: momentum=1.0 makes the running statistics those of this batch.
bn = nn.BatchNorm1d(C, momentum=1.0, dtype=torch.float64)
with torch.no_grad():
    bn(x)
    biased = x.var(dim=0, correction=0)  # divides by N: what the normalisation uses
    print("sigma**2 - eps is the variance / N:  ", torch.allclose(sigma**2 - 1e-5, biased))
    print("running_var is the variance / (N - 1):", torch.allclose(bn.running_var, x.var(dim=0)))
    print("running_var / (variance / N):", bn.running_var / biased)
# --8<-- [end:solution]

# --8<-- [start:check]
# Checks batch_norm_forward against F.batch_norm (training mode) and batch_norm_backward
# against autograd's gradients of F.batch_norm, in float64, on a batch of the check's own.
# When an answer is wrong, it compares it with the plausible wrong answers, to say which.
import torch
import torch.nn.functional as F


def check() -> str:
    forward = globals().get("batch_norm_forward")
    backward = globals().get("batch_norm_backward")
    if not callable(forward) or not callable(backward):
        return (
            "Not done yet: run the cell above first; it defines batch_norm_forward and"
            " batch_norm_backward."
        )
    generator = torch.Generator().manual_seed(0)
    n, c, eps = 8, 3, 1e-3  # N != C, so that a sum over the wrong dimension shows

    def draw(*shape: int) -> torch.Tensor:
        return torch.randn(*shape, generator=generator, dtype=torch.float64)

    x_leaf = (draw(n, c) * 2 + 1).requires_grad_()
    gamma, beta, dy = draw(c).requires_grad_(), draw(c).requires_grad_(), draw(n, c)
    y = F.batch_norm(x_leaf, None, None, gamma, beta, training=True, eps=eps)  # PyTorch's own
    y.backward(dy)
    x, g, expected_dx = x_leaf.detach(), gamma.detach(), x_leaf.grad
    mu = x.mean(dim=0)
    sigma = (x.var(dim=0, correction=0) + eps).sqrt()  # the variance divided by N
    x_hat = (x - mu) / sigma

    def short(t: torch.Tensor) -> list[float]:
        return [round(v, 4) + 0.0 for v in t.flatten().tolist()[:3]]  # + 0.0: no -0.0

    # The forward pass: its output, then its sigma.
    try:
        result = forward(x.clone(), g.clone(), beta.detach().clone(), eps)
    except TypeError as error:
        if "ellipsis" in str(error):
            return "Not done yet: replace the ... of mu and sigma in batch_norm_forward."
        return f"Not quite: expected batch_norm_forward to run, got TypeError: {error}."
    except Exception as error:  # the learner's function may raise anything
        return (
            "Not quite: expected batch_norm_forward to return y, x_hat and sigma, got an"
            f" error: {type(error).__name__}: {error}."
        )
    if not isinstance(result, tuple) or len(result) != 3:
        return "Not quite: expected batch_norm_forward to return three tensors, y, x_hat and sigma."
    yours_y, yours_x_hat, yours_sigma = (torch.as_tensor(part).detach() for part in result)
    if yours_y.shape != y.shape or not torch.allclose(yours_y, y.detach()):
        known = [
            (
                (x.var(dim=0) + eps).sqrt(),
                "your variance divides by N - 1 (Bessel's correction, the default of"
                " x.var): the normalisation divides by N; only running_var uses N - 1",
            ),
            (
                (x.var(dim=0, correction=0) + 1e-5).sqrt(),
                f"your eps is fixed at 1e-5: use the argument eps (the check passes eps={eps})",
            ),
            (
                x.var(dim=0, correction=0).sqrt(),
                "eps is missing: sigma = sqrt(variance + eps)",
            ),
            (
                (x.var(dim=1, correction=0, keepdim=True) + eps).sqrt(),
                "your statistics are over the features of each example (dim=1), as in"
                " layer norm: batch norm takes them over the batch, dim=0",
            ),
        ]
        for candidate, diagnosis in known:
            if yours_sigma.numel() == candidate.numel() and torch.allclose(
                yours_sigma.reshape(candidate.shape), candidate, rtol=1e-9, atol=1e-12
            ):  # a tight tolerance: eps = 1e-5 moves sigma by about 1e-6 only
                return (
                    f"Not quite: expected sigma = {short(sigma)}, got {short(yours_sigma)}:"
                    f" {diagnosis}."
                )
        return (
            f"Not quite: expected y = {short(y.detach())}... (row 0), got {short(yours_y)}...:"
            " mu = x.mean(dim=0) and sigma = sqrt(mean((x - mu)**2, dim=0) + eps)."
        )

    # What the forward pass returns for the backward pass: x_hat, then sigma, shape (C,).
    if yours_x_hat.shape != x.shape or not torch.allclose(yours_x_hat, x_hat):
        return (
            f"Not quite: y is right, but expected the x_hat it returns to be {short(x_hat)}..."
            f" (row 0), got {short(yours_x_hat)}...: return x_hat = (x - mu) / sigma."
        )
    if yours_sigma.numel() != c or not torch.allclose(yours_sigma.reshape(c), sigma):
        why = "return sigma = sqrt(variance + eps), one number per feature"
        if yours_sigma.numel() == c and torch.allclose(yours_sigma.reshape(c), sigma**2):
            why = f"that is the variance + eps, sigma squared; {why}"
        return (
            f"Not quite: y is right, but expected the sigma it returns to be {short(sigma)},"
            f" got {short(yours_sigma)}: {why}."
        )

    # The backward pass, from the check's own x_hat and sigma.
    try:
        result = backward(dy.clone(), x_hat.clone(), sigma.clone(), g.clone())
    except Exception as error:  # the learner's function may raise anything
        return (
            "Not quite: expected dx, dgamma and dbeta from batch_norm_backward, got an"
            f" error: {type(error).__name__}: {error}."
        )
    if not isinstance(result, tuple) or len(result) != 3:
        return "Not quite: expected batch_norm_backward to return three tensors, dx, dgamma, dbeta."
    if any(part is Ellipsis or part is None for part in result):
        return "Not done yet: batch_norm_backward still returns a ...; replace each ... in it."
    if not all(isinstance(part, torch.Tensor) for part in result):
        kinds = ", ".join(type(part).__name__ for part in result)
        return f"Not quite: expected three tensors, dx, dgamma and dbeta, got {kinds}."
    dx, dgamma, dbeta = (part.detach().to(torch.float64) for part in result)
    for name, got, expected, rule in [
        ("dbeta", dbeta, beta.grad, "beta was added to every example: sum dy over dim=0"),
        (
            "dgamma",
            dgamma,
            gamma.grad,
            "gamma multiplied every example's x_hat: sum dy * x_hat over dim=0",
        ),
    ]:
        if got.shape != expected.shape:
            wrong_dim = got.shape == (n,) or got.shape == (n, 1)
            why = ", the sum over the features (dim=1)" if wrong_dim else ""
            return (
                f"Not quite: expected {name} of shape {tuple(expected.shape)}, one number per"
                f" feature, got {tuple(got.shape)}{why}: {rule}."
            )
        if not torch.allclose(got, expected):
            return f"Not quite: expected {name} = {short(expected)}, got {short(got)}: {rule}."
    if dx.shape != x.shape:
        return (
            f"Not quite: expected dx of shape {tuple(x.shape)}, the shape of x,"
            f" got {tuple(dx.shape)}."
        )
    if torch.allclose(dx, expected_dx):
        return (
            "Correct: your forward pass matches F.batch_norm, and dx, dgamma and dbeta match"
            " autograd's gradients of it."
        )

    def formula(
        up: torch.Tensor,
        mean_term: bool = True,
        sigma_term: bool = True,
        dim: int = 0,
        count: int = n,
        divide: bool = True,
    ) -> torch.Tensor:
        out = up.clone()
        if mean_term:
            out = out - up.mean(dim=dim, keepdim=True)
        if sigma_term:
            out = out - x_hat * (up * x_hat).sum(dim=dim, keepdim=True) / count
        return out / sigma if divide else out

    up = dy * g  # the gradient arriving at x_hat
    known = [
        (
            formula(up, mean_term=False, sigma_term=False),
            "that is gamma * dy / sigma, as if mu and sigma were constants: both come from"
            " the whole batch, which adds - mean(g) - x_hat * mean(g * x_hat), with"
            " g = gamma * dy and the means over dim=0",
        ),
        (
            formula(up, sigma_term=False),
            "the term - x_hat * mean(g * x_hat) is missing: sigma depends on x too",
        ),
        (
            formula(up, mean_term=False),
            "the term - mean(g) is missing: the mean depends on x too",
        ),
        (
            formula(up, count=n - 1),
            "your last term divides by N - 1: that is the derivative of the unbiased"
            " variance (Bessel's correction), but the normalisation divides by N, so"
            " d sigma / d x_j = x_hat_j / N",
        ),
        (
            formula(up, dim=1, count=c),
            "your means are over the features of each example (dim=1), as in layer norm:"
            " batch norm's mean and sigma come from the batch, so take them over dim=0",
        ),
        (formula(dy), "dx uses dy where it needs g = gamma * dy, the gradient at x_hat"),
        (formula(up, divide=False), "the division by sigma is missing"),
    ]
    for candidate, diagnosis in known:
        if torch.allclose(dx, candidate):
            return (
                f"Not quite: expected dx = {short(expected_dx)}..., got {short(dx)}...:"
                f" {diagnosis}."
            )
    return (
        f"Not quite: expected dx = {short(expected_dx)}... (row 0), got {short(dx)}...."
        " With g = gamma * dy, dx = (g - mean(g) - x_hat * mean(g * x_hat)) / sigma, the"
        " means over the batch (dim=0)."
    )


try:
    print(check())
except Exception as error:  # the check never crashes, whatever the cell above did
    print(f"Not done yet: the check could not read your answer ({type(error).__name__}: {error}).")
# --8<-- [end:check]

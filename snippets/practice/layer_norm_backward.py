"""Exercise D.5: layer norm backward. Run it: python snippets/practice/layer_norm_backward.py"""
# Each region is a self-contained cell (page, notebook), so imports repeat.
# ruff: noqa: E402, F811, F841

# --8<-- [start:starter]
import torch


def layer_norm_forward(x, gamma, beta, eps=1e-5):
    """Layer norm over the last dimension; returns y and what the backward pass needs."""
    mu = x.mean(dim=-1, keepdim=True)
    sigma = (((x - mu) ** 2).mean(dim=-1, keepdim=True) + eps).sqrt()
    x_hat = (x - mu) / sigma
    return gamma * x_hat + beta, x_hat, sigma


def layer_norm_backward(dy, x_hat, sigma, gamma):
    """dx, dgamma and dbeta for y = gamma * x_hat + beta, x_hat = (x - mean) / sigma.

    dy, x_hat: shape (N, D); sigma: shape (N, 1); gamma: shape (D,).
    """
    dgamma = ...  # replace ...: gamma was broadcast over the N rows
    dbeta = ...  # replace ...
    dx_hat = ...  # replace ...: the gradient arriving at x_hat
    dx = ...  # replace ...: through the mean and sigma, which both depend on x
    return dx, dgamma, dbeta


# When it works, compare with autograd:
# torch.manual_seed(0)
# x = torch.randn(4, 5, requires_grad=True)
# gamma, beta = torch.randn(5), torch.randn(5)
# y, x_hat, sigma = layer_norm_forward(x, gamma, beta)
# dy = torch.randn(4, 5)
# y.backward(dy)
# dx, dgamma, dbeta = layer_norm_backward(dy, x_hat.detach(), sigma.detach(), gamma)
# torch.testing.assert_close(dx, x.grad)
# --8<-- [end:starter]

# --8<-- [start:solution]
import torch
import torch.nn.functional as F


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
        dx_hat
        - dx_hat.mean(dim=-1, keepdim=True)  # the mean depends on x
        - x_hat * (dx_hat * x_hat).mean(dim=-1, keepdim=True)  # sigma depends on x
    ) / sigma
    return dx, dgamma, dbeta


torch.manual_seed(0)
x = torch.randn(4, 5, requires_grad=True)
gamma = torch.randn(5, requires_grad=True)
beta = torch.randn(5, requires_grad=True)
dy = torch.randn(4, 5)
F.layer_norm(x, (5,), gamma, beta).backward(dy)  # PyTorch's own layer norm

with torch.no_grad():
    _, x_hat, sigma = layer_norm_forward(x, gamma, beta)
    dx, dgamma, dbeta = layer_norm_backward(dy, x_hat, sigma, gamma)
for name, mine, theirs in [
    ("dx", dx, x.grad),
    ("dgamma", dgamma, gamma.grad),
    ("dbeta", dbeta, beta.grad),
]:
    torch.testing.assert_close(mine, theirs)  # raises if they differ
    print(f"{name:<6} {tuple(mine.shape)} matches autograd")
print("every row of dx sums to 0 (to 1e-6):", bool(dx.sum(dim=1).abs().max() < 1e-6))
# --8<-- [end:solution]

# --8<-- [start:check]
# Checks layer_norm_backward against autograd's gradients of F.layer_norm (float64). When
# dx is wrong, it also compares dx with the formula minus one of its terms, to say which.
import torch
import torch.nn.functional as F


def check() -> str:
    function = globals().get("layer_norm_backward")
    if not callable(function):
        return "Not done yet: run the cell above first; it defines layer_norm_backward."
    generator = torch.Generator().manual_seed(0)
    n, d, eps = 4, 5, 1e-5
    x = torch.randn(n, d, generator=generator, dtype=torch.float64, requires_grad=True)
    gamma = torch.randn(d, generator=generator, dtype=torch.float64, requires_grad=True)
    beta = torch.randn(d, generator=generator, dtype=torch.float64, requires_grad=True)
    dy = torch.randn(n, d, generator=generator, dtype=torch.float64)
    F.layer_norm(x, (d,), gamma, beta, eps=eps).backward(dy)
    with torch.no_grad():
        mu = x.mean(dim=-1, keepdim=True)
        sigma = (x.var(dim=-1, unbiased=False, keepdim=True) + eps).sqrt()
        x_hat = (x - mu) / sigma
    try:
        result = function(dy.clone(), x_hat.clone(), sigma.clone(), gamma.detach().clone())
    except Exception as error:  # the learner's function may raise anything
        return (
            f"Not quite: expected dx, dgamma and dbeta, got an error:"
            f" {type(error).__name__}: {error}."
        )
    if not isinstance(result, tuple) or len(result) != 3:
        return (
            "Not quite: expected layer_norm_backward to return three tensors, dx, dgamma"
            f" and dbeta, got {type(result).__name__}"
            f"{f' of length {len(result)}' if isinstance(result, tuple) else ''}."
        )
    if any(part is Ellipsis or part is None for part in result):
        return "Not done yet: layer_norm_backward still returns a ...; replace each ... in it."
    if not all(isinstance(part, torch.Tensor) for part in result):
        kinds = ", ".join(type(part).__name__ for part in result)
        return f"Not quite: expected three tensors, dx, dgamma and dbeta, got {kinds}."
    dx, dgamma, dbeta = (part.detach().to(torch.float64) for part in result)

    def short(t: torch.Tensor) -> list[float]:
        return [round(v, 4) for v in t.flatten().tolist()[:3]]

    for name, got, expected, rule in [
        ("dbeta", dbeta, beta.grad, "beta was added to every row: sum dy over the rows"),
        (
            "dgamma",
            dgamma,
            gamma.grad,
            "gamma multiplied x_hat in every row: sum dy * x_hat over the rows",
        ),
    ]:
        if got.shape != expected.shape:
            return (
                f"Not quite: expected {name} of shape {tuple(expected.shape)}, got"
                f" {tuple(got.shape)}: {rule}."
            )
        if not torch.allclose(got, expected):
            return (
                f"Not quite: expected {name} = {short(expected)}..., got {short(got)}...: {rule}."
            )
    if dx.shape != x.shape:
        return (
            f"Not quite: expected dx of shape {tuple(x.shape)}, the shape of x,"
            f" got {tuple(dx.shape)}."
        )
    if torch.allclose(dx, x.grad):
        return "Correct: dx, dgamma and dbeta match autograd's gradients of F.layer_norm."
    g = gamma.detach()

    def formula(
        dx_hat: torch.Tensor, mean_term: bool = True, sigma_term: bool = True, divide: bool = True
    ) -> torch.Tensor:
        out = dx_hat.clone()
        if mean_term:
            out = out - dx_hat.mean(dim=-1, keepdim=True)
        if sigma_term:
            out = out - x_hat * (dx_hat * x_hat).mean(dim=-1, keepdim=True)
        return out / sigma if divide else out

    known = [
        (
            formula(dy * g, sigma_term=False),
            "the term - x_hat * mean(dx_hat * x_hat) is missing: sigma depends on x too",
        ),
        (
            formula(dy * g, mean_term=False),
            "the term - mean(dx_hat) is missing: the mean depends on x too",
        ),
        (
            formula(dy * g, mean_term=False, sigma_term=False),
            "both correction terms are missing: the mean and sigma depend on x",
        ),
        (formula(dy), "dx uses dy where it needs dx_hat = dy * gamma"),
        (formula(dy * g, divide=False), "the division by sigma is missing"),
    ]
    for candidate, diagnosis in known:
        if torch.allclose(dx, candidate):
            return f"Not quite: expected dx = {short(x.grad)}..., got {short(dx)}...: {diagnosis}."
    return (
        f"Not quite: expected dx = {short(x.grad)}... (row 0), got {short(dx)}...."
        " dx = (dx_hat - mean(dx_hat) - x_hat * mean(dx_hat * x_hat)) / sigma, with the"
        " means along each row (keepdim=True)."
    )


try:
    print(check())
except Exception as error:  # the check never crashes, whatever the cell above did
    print(f"Not done yet: the check could not read your answer ({type(error).__name__}: {error}).")
# --8<-- [end:check]

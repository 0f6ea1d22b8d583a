"""Plausible mistakes for Exercise D.10 (snippets/practice/reparameterisation_vs_score_function.py).

Each region replaces the starter cell. Run with the exercise's check cell, each must make
the check print "Not quite" with an accurate diagnosis. Some of them raise in the
learner's cell, as they would in a notebook.
"""
# ruff: noqa: E402, F811

# --8<-- [start:reparam-with-sample]
# Mistake: the reparameterisation estimator draws z with sample(), which has no graph.
import torch
from torch.distributions import Normal


def f(z: torch.Tensor) -> torch.Tensor:
    return torch.sin(z)


def reparam_grads(mu: torch.Tensor, sigma: torch.Tensor, n: int) -> torch.Tensor:
    mu = mu.detach().requires_grad_()
    sigma = sigma.detach().requires_grad_()
    z = Normal(mu, sigma).sample((n,))
    return torch.stack(torch.autograd.grad(f(z).mean(), (mu, sigma)))


def score_grads(mu: torch.Tensor, sigma: torch.Tensor, n: int) -> torch.Tensor:
    mu = mu.detach().requires_grad_()
    sigma = sigma.detach().requires_grad_()
    dist = Normal(mu, sigma)
    z = dist.sample((n,))
    return torch.stack(torch.autograd.grad((f(z).detach() * dist.log_prob(z)).mean(), (mu, sigma)))


mu = torch.tensor(1.0)
sigma = torch.tensor(0.5)
runs = 200


def variance_of_d_mu(estimator):
    estimates = []
    for seed in range(runs):
        torch.manual_seed(seed)
        estimates.append(estimator(mu, sigma, 100)[0])
    return torch.stack(estimates).var()


reparam_variance = variance_of_d_mu(reparam_grads)
score_variance = variance_of_d_mu(score_grads)
# --8<-- [end:reparam-with-sample]

# --8<-- [start:score-without-detach]
# Mistake: the score function draws z with rsample() and does not detach f(z).
import torch
from torch.distributions import Normal


def f(z: torch.Tensor) -> torch.Tensor:
    return torch.sin(z)


def reparam_grads(mu: torch.Tensor, sigma: torch.Tensor, n: int) -> torch.Tensor:
    mu = mu.detach().requires_grad_()
    sigma = sigma.detach().requires_grad_()
    z = Normal(mu, sigma).rsample((n,))
    return torch.stack(torch.autograd.grad(f(z).mean(), (mu, sigma)))


def score_grads(mu: torch.Tensor, sigma: torch.Tensor, n: int) -> torch.Tensor:
    mu = mu.detach().requires_grad_()
    sigma = sigma.detach().requires_grad_()
    dist = Normal(mu, sigma)
    z = dist.rsample((n,))
    return torch.stack(torch.autograd.grad((f(z) * dist.log_prob(z)).mean(), (mu, sigma)))


mu = torch.tensor(1.0)
sigma = torch.tensor(0.5)
runs = 200


def variance_of_d_mu(estimator):
    estimates = []
    for seed in range(runs):
        torch.manual_seed(seed)
        estimates.append(estimator(mu, sigma, 100)[0])
    return torch.stack(estimates).var()


reparam_variance = variance_of_d_mu(reparam_grads)
score_variance = variance_of_d_mu(score_grads)
# --8<-- [end:score-without-detach]

# --8<-- [start:product-of-means]
# Mistake: the surrogate multiplies the average of f(z) by the average log-probability.
import torch
from torch.distributions import Normal


def f(z: torch.Tensor) -> torch.Tensor:
    return torch.sin(z)


def reparam_grads(mu: torch.Tensor, sigma: torch.Tensor, n: int) -> torch.Tensor:
    mu = mu.detach().requires_grad_()
    sigma = sigma.detach().requires_grad_()
    z = Normal(mu, sigma).rsample((n,))
    return torch.stack(torch.autograd.grad(f(z).mean(), (mu, sigma)))


def score_grads(mu: torch.Tensor, sigma: torch.Tensor, n: int) -> torch.Tensor:
    mu = mu.detach().requires_grad_()
    sigma = sigma.detach().requires_grad_()
    dist = Normal(mu, sigma)
    z = dist.sample((n,))
    surrogate = f(z).mean().detach() * dist.log_prob(z).mean()
    return torch.stack(torch.autograd.grad(surrogate, (mu, sigma)))


mu = torch.tensor(1.0)
sigma = torch.tensor(0.5)
runs = 200


def variance_of_d_mu(estimator):
    estimates = []
    for seed in range(runs):
        torch.manual_seed(seed)
        estimates.append(estimator(mu, sigma, 100)[0])
    return torch.stack(estimates).var()


reparam_variance = variance_of_d_mu(reparam_grads)
score_variance = variance_of_d_mu(score_grads)
# --8<-- [end:product-of-means]

# --8<-- [start:score-with-rsample]
# Mistake: the score function draws z with rsample(): log_prob(z) then ignores mu.
import torch
from torch.distributions import Normal


def f(z: torch.Tensor) -> torch.Tensor:
    return torch.sin(z)


def reparam_grads(mu: torch.Tensor, sigma: torch.Tensor, n: int) -> torch.Tensor:
    mu = mu.detach().requires_grad_()
    sigma = sigma.detach().requires_grad_()
    z = Normal(mu, sigma).rsample((n,))
    return torch.stack(torch.autograd.grad(f(z).mean(), (mu, sigma)))


def score_grads(mu: torch.Tensor, sigma: torch.Tensor, n: int) -> torch.Tensor:
    mu = mu.detach().requires_grad_()
    sigma = sigma.detach().requires_grad_()
    dist = Normal(mu, sigma)
    z = dist.rsample((n,))
    return torch.stack(torch.autograd.grad((f(z).detach() * dist.log_prob(z)).mean(), (mu, sigma)))


mu = torch.tensor(1.0)
sigma = torch.tensor(0.5)
runs = 200


def variance_of_d_mu(estimator):
    estimates = []
    for seed in range(runs):
        torch.manual_seed(seed)
        estimates.append(estimator(mu, sigma, 100)[0])
    return torch.stack(estimates).var()


reparam_variance = variance_of_d_mu(reparam_grads)
score_variance = variance_of_d_mu(score_grads)
# --8<-- [end:score-with-rsample]

# --8<-- [start:same-seed-every-run]
# Mistake: every run is seeded with the same seed, so every run draws the same samples.
import torch
from torch.distributions import Normal


def f(z: torch.Tensor) -> torch.Tensor:
    return torch.sin(z)


def reparam_grads(mu: torch.Tensor, sigma: torch.Tensor, n: int) -> torch.Tensor:
    mu = mu.detach().requires_grad_()
    sigma = sigma.detach().requires_grad_()
    z = Normal(mu, sigma).rsample((n,))
    return torch.stack(torch.autograd.grad(f(z).mean(), (mu, sigma)))


def score_grads(mu: torch.Tensor, sigma: torch.Tensor, n: int) -> torch.Tensor:
    mu = mu.detach().requires_grad_()
    sigma = sigma.detach().requires_grad_()
    dist = Normal(mu, sigma)
    z = dist.sample((n,))
    return torch.stack(torch.autograd.grad((f(z).detach() * dist.log_prob(z)).mean(), (mu, sigma)))


mu = torch.tensor(1.0)
sigma = torch.tensor(0.5)
runs = 200


def variance_of_d_mu(estimator):
    estimates = []
    for _ in range(runs):
        torch.manual_seed(0)
        estimates.append(estimator(mu, sigma, 100)[0])
    return torch.stack(estimates).var()


reparam_variance = variance_of_d_mu(reparam_grads)
score_variance = variance_of_d_mu(score_grads)
# --8<-- [end:same-seed-every-run]

# --8<-- [start:one-sample-per-run]
# Mistake: each run's estimate uses one sample (n = 1) instead of 100.
import torch
from torch.distributions import Normal


def f(z: torch.Tensor) -> torch.Tensor:
    return torch.sin(z)


def reparam_grads(mu: torch.Tensor, sigma: torch.Tensor, n: int) -> torch.Tensor:
    mu = mu.detach().requires_grad_()
    sigma = sigma.detach().requires_grad_()
    z = Normal(mu, sigma).rsample((n,))
    return torch.stack(torch.autograd.grad(f(z).mean(), (mu, sigma)))


def score_grads(mu: torch.Tensor, sigma: torch.Tensor, n: int) -> torch.Tensor:
    mu = mu.detach().requires_grad_()
    sigma = sigma.detach().requires_grad_()
    dist = Normal(mu, sigma)
    z = dist.sample((n,))
    return torch.stack(torch.autograd.grad((f(z).detach() * dist.log_prob(z)).mean(), (mu, sigma)))


mu = torch.tensor(1.0)
sigma = torch.tensor(0.5)
runs = 200


def variance_of_d_mu(estimator):
    estimates = []
    for seed in range(runs):
        torch.manual_seed(seed)
        estimates.append(estimator(mu, sigma, 1)[0])
    return torch.stack(estimates).var()


reparam_variance = variance_of_d_mu(reparam_grads)
score_variance = variance_of_d_mu(score_grads)
# --8<-- [end:one-sample-per-run]

# --8<-- [start:variance-as-std]
# Mistake: the variances are standard deviations, .std() instead of .var().
import torch
from torch.distributions import Normal


def f(z: torch.Tensor) -> torch.Tensor:
    return torch.sin(z)


def reparam_grads(mu: torch.Tensor, sigma: torch.Tensor, n: int) -> torch.Tensor:
    mu = mu.detach().requires_grad_()
    sigma = sigma.detach().requires_grad_()
    z = Normal(mu, sigma).rsample((n,))
    return torch.stack(torch.autograd.grad(f(z).mean(), (mu, sigma)))


def score_grads(mu: torch.Tensor, sigma: torch.Tensor, n: int) -> torch.Tensor:
    mu = mu.detach().requires_grad_()
    sigma = sigma.detach().requires_grad_()
    dist = Normal(mu, sigma)
    z = dist.sample((n,))
    return torch.stack(torch.autograd.grad((f(z).detach() * dist.log_prob(z)).mean(), (mu, sigma)))


mu = torch.tensor(1.0)
sigma = torch.tensor(0.5)
runs = 200


def variance_of_d_mu(estimator):
    estimates = []
    for seed in range(runs):
        torch.manual_seed(seed)
        estimates.append(estimator(mu, sigma, 100)[0])
    return torch.stack(estimates).std()


reparam_variance = variance_of_d_mu(reparam_grads)
score_variance = variance_of_d_mu(score_grads)
# --8<-- [end:variance-as-std]

# --8<-- [start:surrogate-sum]
# Mistake: the surrogate sums over the samples instead of averaging.
import torch
from torch.distributions import Normal


def f(z: torch.Tensor) -> torch.Tensor:
    return torch.sin(z)


def reparam_grads(mu: torch.Tensor, sigma: torch.Tensor, n: int) -> torch.Tensor:
    mu = mu.detach().requires_grad_()
    sigma = sigma.detach().requires_grad_()
    z = Normal(mu, sigma).rsample((n,))
    return torch.stack(torch.autograd.grad(f(z).mean(), (mu, sigma)))


def score_grads(mu: torch.Tensor, sigma: torch.Tensor, n: int) -> torch.Tensor:
    mu = mu.detach().requires_grad_()
    sigma = sigma.detach().requires_grad_()
    dist = Normal(mu, sigma)
    z = dist.sample((n,))
    return torch.stack(torch.autograd.grad((f(z).detach() * dist.log_prob(z)).sum(), (mu, sigma)))


mu = torch.tensor(1.0)
sigma = torch.tensor(0.5)
runs = 200


def variance_of_d_mu(estimator):
    estimates = []
    for seed in range(runs):
        torch.manual_seed(seed)
        estimates.append(estimator(mu, sigma, 100)[0])
    return torch.stack(estimates).var()


reparam_variance = variance_of_d_mu(reparam_grads)
score_variance = variance_of_d_mu(score_grads)
# --8<-- [end:surrogate-sum]

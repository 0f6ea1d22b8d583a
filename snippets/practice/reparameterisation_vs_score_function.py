"""Exercise D.10: reparameterisation against the score function.
Run it: python snippets/practice/reparameterisation_vs_score_function.py"""
# Each region is a self-contained cell (page, notebook), so imports repeat.
# ruff: noqa: E402, F811

# --8<-- [start:starter]
import torch
from torch.distributions import Normal


def f(z: torch.Tensor) -> torch.Tensor:
    """The function inside the expectation: we want the gradient of E[sin z]."""
    return torch.sin(z)


def reparam_grads(mu: torch.Tensor, sigma: torch.Tensor, n: int) -> torch.Tensor:
    """Estimate [dE/dmu, dE/dsigma], z ~ N(mu, sigma^2), from n samples, by
    reparameterisation. Returns a tensor of shape (2,)."""
    ...  # your code


def score_grads(mu: torch.Tensor, sigma: torch.Tensor, n: int) -> torch.Tensor:
    """The same two numbers, by the score-function estimator (REINFORCE)."""
    ...  # your code


mu = torch.tensor(1.0)
sigma = torch.tensor(0.5)
runs = 200  # independent estimates, seeds 0 to 199

reparam_variance = ...  # variance over the runs of reparam_grads(mu, sigma, 100)[0]
score_variance = ...  # the same for score_grads
# --8<-- [end:starter]

# --8<-- [start:solution]
import torch
from torch.distributions import Normal


def f(z: torch.Tensor) -> torch.Tensor:
    """The function inside the expectation: we want the gradient of E[sin z]."""
    return torch.sin(z)


def reparam_grads(mu: torch.Tensor, sigma: torch.Tensor, n: int) -> torch.Tensor:
    """Estimate [dE/dmu, dE/dsigma], z ~ N(mu, sigma^2), from n samples, by
    reparameterisation. Returns a tensor of shape (2,)."""
    mu = mu.detach().requires_grad_()
    sigma = sigma.detach().requires_grad_()
    z = Normal(mu, sigma).rsample((n,))  # mu + sigma * eps: a graph back to mu and sigma
    return torch.stack(torch.autograd.grad(f(z).mean(), (mu, sigma)))


def score_grads(mu: torch.Tensor, sigma: torch.Tensor, n: int) -> torch.Tensor:
    """The same two numbers, by the score-function estimator (REINFORCE)."""
    mu = mu.detach().requires_grad_()
    sigma = sigma.detach().requires_grad_()
    dist = Normal(mu, sigma)
    z = dist.sample((n,))  # no graph
    surrogate = (f(z).detach() * dist.log_prob(z)).mean()  # its gradient is the estimate
    return torch.stack(torch.autograd.grad(surrogate, (mu, sigma)))


mu = torch.tensor(1.0)
sigma = torch.tensor(0.5)
runs = 200


def variance_of_d_mu(estimator) -> torch.Tensor:
    estimates = []
    for seed in range(runs):
        torch.manual_seed(seed)  # a different seed for every run
        estimates.append(estimator(mu, sigma, 100)[0])
    return torch.stack(estimates).var()


reparam_variance = variance_of_d_mu(reparam_grads)
score_variance = variance_of_d_mu(score_grads)

# The exact gradient, from E[sin z] = sin(mu) exp(-sigma^2 / 2):
m, s = mu.clone().requires_grad_(), sigma.clone().requires_grad_()
exact = torch.stack(torch.autograd.grad(torch.sin(m) * torch.exp(-(s**2) / 2), (m, s)))
torch.manual_seed(0)
print("reparameterisation, 100000 samples:", reparam_grads(mu, sigma, 100_000))
print("score function,     100000 samples:", score_grads(mu, sigma, 100_000))
print("exact:                             ", exact)
# The variances by hand (see the solution's text), divided by the 100 samples:
grad_mu_sq = (torch.cos(mu) * torch.exp(-(sigma**2) / 2)) ** 2  # (dE/dmu)^2
decay = torch.exp(-2 * sigma**2)
reparam_by_hand = ((1 + torch.cos(2 * mu) * decay) / 2 - grad_mu_sq) / 100
score_by_hand = (
    (1 - torch.cos(2 * mu) * (1 - 4 * sigma**2) * decay) / 2 / sigma**2 - grad_mu_sq
) / 100
print(f"variance of d/d mu from 100 samples, over {runs} seeds:")
print(f"  reparameterisation {reparam_variance:.5f}   by hand {reparam_by_hand:.5f}")
print(f"  score function     {score_variance:.5f}   by hand {score_by_hand:.5f}")
print(f"  ratio              {score_variance / reparam_variance:.1f}")
# --8<-- [end:solution]

# --8<-- [start:check]
# Checks your two estimators at a mu and sigma of the check's own against the exact
# gradient of E[sin z] = sin(mu) exp(-sigma^2 / 2), which PyTorch differentiates here,
# within 5 standard errors; then your variances against the variances that the maths
# gives for 100 samples. No number in this cell is typed in: each comes from a formula.
import math

import torch


def _exact(mu: float, sigma: float) -> torch.Tensor:
    m = torch.tensor(mu, dtype=torch.float64, requires_grad=True)
    s = torch.tensor(sigma, dtype=torch.float64, requires_grad=True)
    return torch.stack(torch.autograd.grad(torch.sin(m) * torch.exp(-(s**2) / 2), (m, s)))


def _per_sample_variances(mu: float, sigma: float) -> tuple[float, float]:
    """Var of one sample's d/dmu: cos(z) by reparameterisation, sin(z) eps / sigma by the
    score function. From E[cos(a + b eps)] = cos(a) e^(-b^2/2) and
    E[cos(a + b eps) eps^2] = cos(a) (1 - b^2) e^(-b^2/2), with a = 2 mu, b = 2 sigma."""
    mean_sq = (math.cos(mu) * math.exp(-(sigma**2) / 2)) ** 2  # (dE/dmu)^2 for both
    cos_sq = 0.5 + 0.5 * math.cos(2 * mu) * math.exp(-2 * sigma**2)  # E[cos^2 z]
    sin_sq_eps_sq = 0.5 - 0.5 * math.cos(2 * mu) * (1 - 4 * sigma**2) * math.exp(-2 * sigma**2)
    return cos_sq - mean_sq, sin_sq_eps_sq / sigma**2 - mean_sq


def _show(t) -> str:
    return "[" + ", ".join(f"{x:.3f}" for x in t.tolist()) + "]"


def _first_line(error: Exception) -> str:
    return f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"


def _check_estimator(name: str, estimator, mu: float, sigma: float, n: int) -> str | None:
    """None if estimator is right at (mu, sigma), else what is wrong."""
    exact = _exact(mu, sigma)
    try:
        torch.manual_seed(0)
        got = estimator(torch.tensor(mu), torch.tensor(sigma), n)
    except Exception as error:
        why = ""
        if "grad" in str(error) and name == "reparam_grads":
            why = ": a z drawn with sample() has no graph back to mu and sigma; use rsample()"
        elif "grad" in str(error):
            why = ": the surrogate's only path to mu and sigma is dist.log_prob(z)"
        expected = f"expected {name}(mu, sigma, n) to return about {_show(exact)}"
        return f"{expected} at mu = {mu}, sigma = {sigma}, got {_first_line(error)}{why}"
    if got is None or got is ...:
        return "nothing"
    if not isinstance(got, torch.Tensor) or got.shape != (2,):
        shape = tuple(got.shape) if isinstance(got, torch.Tensor) else type(got).__name__
        return (
            f"expected {name} to return a tensor of shape (2,), [dE/dmu, dE/dsigma], got "
            f"{shape} (torch.stack the two gradients)"
        )
    got = got.detach().double()
    # Standard errors, bounded since |sin|, |cos| <= 1: one sample's d/dmu and d/dsigma
    # have variance at most 1 and 1 (reparameterisation), 1/sigma^2 and 2/sigma^2 (score).
    bound = [1.0, 1.0] if name == "reparam_grads" else [1 / sigma**2, 2 / sigma**2]
    se = torch.tensor([math.sqrt(b / n) for b in bound], dtype=torch.float64)
    if ((got - exact).abs() <= 5 * se).all():
        return None
    why = ""
    if ((got - n * exact).abs() <= 5 * n * se).all():
        why = f": about {n} times too large. Average over the n samples with .mean(), not .sum()"
    elif name == "score_grads" and (got.abs() <= 5 * se).all():
        why = (
            ": it is close to 0. Average f(z) * log_prob(z) sample by sample: the product "
            "of two averages loses the gradient"
        )
    elif name == "score_grads":
        # z from rsample(): along z = mu + sigma * eps, log p(z) = -log(sigma) - eps^2 / 2
        # + const, so with f(z) detached the estimate is [0, -E[f] / sigma].
        mean_f = math.sin(mu) * math.exp(-(sigma**2) / 2)  # E[sin z]
        from_rsample = torch.tensor([0.0, -mean_f / sigma], dtype=torch.float64)
        # z from rsample() and f(z) not detached: autograd adds the derivative of f too.
        eps = torch.randn(n, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
        z = mu + sigma * eps
        log_p = -math.log(sigma) - 0.5 * math.log(2 * math.pi) - eps**2 / 2
        both = torch.stack(
            [
                (torch.cos(z) * log_p).mean(),
                (torch.cos(z) * eps * log_p - torch.sin(z) / sigma).mean(),
            ]
        )
        if ((got - from_rsample).abs() <= 5 * se).all():
            why = (
                ": z came from rsample(), and along z = mu + sigma * eps, log_prob(z) does "
                "not change with mu at all. Draw z with sample(), so that the only path to "
                "mu and sigma is log_prob's"
            )
        elif ((got - both).abs() <= 10 * se).all():
            why = (
                ": z came from rsample() and f(z) was not detached, so autograd also "
                "differentiated f(z) and z. Draw z with sample() and detach f(z)"
            )
    where = f"{name} at mu = {mu}, sigma = {sigma}"
    return f"{where}: expected about {_show(exact)}, got {_show(got)}{why}"


def check() -> str:
    names = ("reparam_grads", "score_grads", "reparam_variance", "score_variance", "mu", "sigma")
    reparam, score, reparam_var, score_var, mu, sigma = (globals().get(n) for n in names)
    if not callable(reparam) or not callable(score):
        return "Not done yet: run the starter cell; it defines reparam_grads and score_grads."
    torch.manual_seed(0)
    try:
        untouched = reparam(torch.tensor(1.0), torch.tensor(0.5), 10) is None
        untouched = untouched and score(torch.tensor(1.0), torch.tensor(0.5), 10) is None
    except Exception:
        untouched = False
    if untouched:
        return "Not done yet: write reparam_grads and score_grads in the cell above."
    for name, estimator in (("reparam_grads", reparam), ("score_grads", score)):
        problem = _check_estimator(name, estimator, 0.3, 0.8, 100_000)
        if problem == "nothing":
            return f"Not done yet: {name} returns nothing yet; write it in the cell above."
        if problem:
            return f"Not quite: {problem}."

    if reparam_var is ... or score_var is ...:
        return "Not done yet: both estimators are right; now measure their variances."
    if not isinstance(mu, torch.Tensor) or not isinstance(sigma, torch.Tensor):
        return "Not done yet: run the starter cell; it defines mu and sigma."
    values = []
    for name, value in (("reparam_variance", reparam_var), ("score_variance", score_var)):
        try:
            values.append(float(value))
        except (TypeError, ValueError, RuntimeError):
            return (
                f"Not quite: expected {name} to be one number, the variance of the d/d mu "
                f"entry, got {type(value).__name__} {value!r}."
            )
    expected = [v / 100 for v in _per_sample_variances(mu.item(), sigma.item())]
    shown = f"about {expected[0]:.5f} and {expected[1]:.5f}"
    got = f"{values[0]:.5f} and {values[1]:.5f}"
    if min(values) < 1e-6 * min(expected):
        return (
            f"Not quite: expected variances {shown}, got {got}. A variance of 0 means "
            "every run drew the same samples: seed each run with its own seed."
        )
    ratios = [g / e for g, e in zip(values, expected, strict=True)]
    if all(1 / 1.6 < r < 1.6 for r in ratios):
        return (
            f"Correct: both estimators agree with the exact gradient, and from 100 samples "
            f"the score function's variance is {values[1] / values[0]:.1f} times the "
            "reparameterisation's."
        )
    if all(1 / 1.6 < g / e < 1.6 for g, e in zip(values, expected[::-1], strict=True)):
        return f"Not quite: expected variances {shown}, got {got}: they are swapped."
    if all(1 / 1.6 < g**2 / e < 1.6 for g, e in zip(values, expected, strict=True)):
        return (
            f"Not quite: expected variances {shown}, got {got}: those are standard "
            "deviations, their squares are right. Use .var(), not .std()."
        )
    if all(50 < r < 200 for r in ratios):
        return (
            f"Not quite: expected variances {shown}, got {got}, about 100 times too large: "
            "each run should average 100 samples, n = 100."
        )
    return (
        f"Not quite: expected variances {shown} (for 100 samples, at your mu and sigma), "
        f"got {got}: take entry [0], d/d mu, of each run's estimate, one run per seed."
    )


try:
    print(check())
except Exception as error:  # the check never crashes, whatever the cell above did
    print(f"Not done yet: the check could not read your answer ({type(error).__name__}: {error}).")
# --8<-- [end:check]

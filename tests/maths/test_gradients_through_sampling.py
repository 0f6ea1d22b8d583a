"""docs/deeper/gradients-through-sampling.md and its interview page, at the edges of their claims.

Every estimate is compared with the hand formula within a number of standard errors that
the hand variance formula gives (so a wrong formula fails here too), from fixed seeds: the
verdicts do not depend on the machine. Float64 where an average runs over many samples.
"""

from __future__ import annotations

import contextlib
import io
import math
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st
from torch.distributions import (
    Bernoulli,
    Beta,
    Categorical,
    Exponential,
    Gamma,
    Normal,
    OneHotCategorical,
    Poisson,
    RelaxedBernoulli,
    RelaxedOneHotCategorical,
    Uniform,
    VonMises,
)

from coursekit.notebooks.exercises import region
from tests.maths import run_region

ROOT = Path(__file__).resolve().parents[2]
PAGE = "docs/deeper/gradients-through-sampling.md"
SNIPPET = "deeper/gradients_through_sampling"
INTERVIEW = "docs/interview/how-do-you-backpropagate-through-random-sampling.md"
INTERVIEW_SNIPPET = "interview/how_do_you_backpropagate_through_random_sampling"
F64 = torch.float64

mus = st.sampled_from([0.0, 1.0, -1.5, 0.3, 2.0])
sigmas = st.sampled_from([0.25, 0.5, 1.0, 1.7])


PRELUDE = ("sample-vs-rsample", "has-rsample")  # the page's imports


def _estimators() -> dict:
    return run_region(SNIPPET, *PRELUDE, "reparam", "score")


def _square(z: torch.Tensor) -> torch.Tensor:
    return z**2


# The hand formulas, per sample, for f(z) = z^2 and z ~ N(mu, sigma^2):
def _var_reparam(mu: float, sigma: float) -> tuple[float, float]:
    # d/dmu: 2z = 2mu + 2 sigma eps; d/dsigma: 2 z eps = 2 mu eps + 2 sigma eps^2
    return 4 * sigma**2, 4 * mu**2 + 8 * sigma**2


def _var_score_mu(mu: float, sigma: float) -> float:
    return mu**4 / sigma**2 + 14 * mu**2 + 15 * sigma**2


def _var_score_mu_baseline(mu: float, sigma: float) -> float:
    return 8 * mu**2 + 10 * sigma**2  # with b = E[f] = mu^2 + sigma^2


# --- sample() and rsample() -----------------------------------------------------------


def _distributions(requires_grad: bool) -> list:
    def p(value: float) -> torch.Tensor:
        return torch.tensor(value, requires_grad=requires_grad)

    three = torch.tensor([0.2, 0.3, 0.5], requires_grad=requires_grad)
    return [
        Normal(p(1.0), p(0.5)),
        Uniform(p(0.0), p(2.0)),
        Exponential(p(1.5)),
        Gamma(p(2.0), p(1.0)),
        Beta(p(2.0), p(3.0)),
        RelaxedOneHotCategorical(torch.tensor(0.5), probs=three),
        RelaxedBernoulli(torch.tensor(0.5), probs=p(0.3)),
        Bernoulli(probs=p(0.3)),
        Categorical(probs=three),
        OneHotCategorical(probs=three),
        Poisson(p(3.0)),
    ]


@pytest.mark.claim(PAGE, "the draw from `sample()` does not require grad and has no `grad_fn`")
@pytest.mark.parametrize("shape", [(), (0,), (1,), (3, 2)])
@pytest.mark.parametrize("grad_mode", [True, False])
def test_sample_has_no_graph(shape: tuple[int, ...], grad_mode: bool) -> None:
    page = run_region(SNIPPET, "sample-vs-rsample")
    assert page["z_sample"].grad_fn is None and not page["z_sample"].requires_grad
    assert page["z_rsample"].grad_fn is not None
    with torch.set_grad_enabled(grad_mode):
        for dist in _distributions(requires_grad=True):
            if shape == (0,) and isinstance(dist, Categorical | OneHotCategorical):
                with pytest.raises(RuntimeError, match="n_sample <= 0"):
                    dist.sample(torch.Size(shape))  # PyTorch refuses to draw no categories
                continue
            z = dist.sample(torch.Size(shape))
            assert z.grad_fn is None and not z.requires_grad, type(dist).__name__


@pytest.mark.claim(PAGE, "Both give the same number, about 1.77.")
@settings(max_examples=15, deadline=None)
@given(mus, sigmas, st.integers(0, 2**16))
def test_sample_and_rsample_draw_the_same_number(mu: float, sigma: float, seed: int) -> None:
    inputs = {
        "torch": torch,
        "Normal": Normal,
        "mu": torch.tensor(mu, requires_grad=True),
        "sigma": torch.tensor(sigma, requires_grad=True),
    }
    page = run_region(
        SNIPPET, "sample-vs-rsample-maths", inputs={**inputs, "torch": _SeededTorch(seed)}
    )
    assert torch.equal(page["z_sample"], page["z_rsample"].detach())


class _SeededTorch:
    """``torch``, except that ``manual_seed(0)`` seeds with a seed of the test's choosing."""

    def __init__(self, seed: int) -> None:
        self._seed = seed

    def manual_seed(self, _: int) -> torch.Generator:
        return torch.manual_seed(self._seed)

    def __getattr__(self, name: str):
        return getattr(torch, name)


@pytest.mark.claim(
    PAGE,
    "`mu.grad` is ${2z \\approx 3.54}$ and "
    "`sigma.grad` is ${2z\\varepsilon \\approx 5.46}$, as by hand",
)
@settings(max_examples=20, deadline=None)
@given(mus, sigmas, st.sampled_from([torch.float32, F64]), st.integers(0, 2**16))
def test_rsample_gradient_is_2z_and_2z_eps(mu: float, sigma: float, dtype, seed: int) -> None:
    mu_t = torch.tensor(mu, dtype=dtype, requires_grad=True)
    sigma_t = torch.tensor(sigma, dtype=dtype, requires_grad=True)
    inputs = {"torch": _SeededTorch(seed), "Normal": Normal, "mu": mu_t, "sigma": sigma_t}
    page = run_region(SNIPPET, "sample-vs-rsample-maths", "rsample-backward", inputs=inputs)
    z = page["z_rsample"].detach()
    eps = (z - mu) / sigma  # z = mu + sigma eps
    tol = {"rtol": 1e-5, "atol": 1e-5} if dtype == torch.float32 else {}
    torch.testing.assert_close(mu_t.grad, 2 * z, **tol)  # d z^2 / d mu = 2z
    torch.testing.assert_close(sigma_t.grad, 2 * z * eps, **tol)  # d z^2 / d sigma = 2z eps


@pytest.mark.claim(
    PAGE,
    "The continuous ones here have it (not every continuous one does: `VonMises`, drawn by "
    "rejection, does not).",
)
def test_continuous_distributions_have_rsample() -> None:
    output = run_region(SNIPPET, *PRELUDE).output
    for name in ["Normal", "Uniform", "Exponential", "Gamma", "RelaxedOneHotCategorical"]:
        assert f"{name:<25} has_rsample = True" in output
    vonmises = VonMises(torch.tensor(0.0, requires_grad=True), torch.tensor(1.0))
    assert not vonmises.has_rsample
    with pytest.raises(NotImplementedError):
        vonmises.rsample()
    for dist in _distributions(requires_grad=True)[:7]:
        assert dist.has_rsample, type(dist).__name__
        z = dist.rsample()
        assert z.grad_fn is not None, type(dist).__name__


@pytest.mark.claim(
    PAGE,
    "The discrete ones, `Bernoulli`, `Categorical` and `Poisson`, do not: "
    "their `rsample()` raises `NotImplementedError`.",
)
def test_discrete_distributions_have_no_rsample() -> None:
    output = run_region(SNIPPET, *PRELUDE).output
    for name in ["Bernoulli", "Categorical", "Poisson"]:
        assert f"{name:<25} has_rsample = False" in output
    for dist in _distributions(requires_grad=True)[7:]:
        assert not dist.has_rsample, type(dist).__name__
        with pytest.raises(NotImplementedError):
            dist.rsample()


@pytest.mark.claim(PAGE, "A comparison has no derivative in autograd, so `z` has no graph.")
@pytest.mark.parametrize("p", [0.0, 0.3, 1.0])
@pytest.mark.parametrize("dtype", [torch.float32, F64])
def test_a_comparison_has_no_graph(p: float, dtype: torch.dtype) -> None:
    page = run_region(SNIPPET, *PRELUDE, "bernoulli-step")
    assert page["z"].grad_fn is None and not page["z"].requires_grad
    p_t = torch.tensor(p, dtype=dtype, requires_grad=True)
    u = torch.rand(4, dtype=dtype)
    for z in (u < p_t, u <= p_t, torch.lt(u, p_t).to(dtype)):
        assert z.grad_fn is None and not z.requires_grad


# --- The two estimators are unbiased --------------------------------------------------


@pytest.mark.claim(
    PAGE,
    "\\frac{\\partial}{\\partial \\mu} = 2\\mu, \\qquad "
    "\\frac{\\partial}{\\partial \\sigma} = 2\\sigma .",
)
@settings(max_examples=10, deadline=None)
@given(mus, sigmas)
def test_reparameterisation_converges_to_2mu_2sigma(mu: float, sigma: float) -> None:
    page = _estimators()
    n = 200_000
    torch.manual_seed(1)
    d_mu, d_sigma = page["reparam_estimate"](
        torch.tensor(mu, dtype=F64), torch.tensor(sigma, dtype=F64), _square, n
    )
    var_mu, var_sigma = _var_reparam(mu, sigma)
    assert abs(d_mu.item() - 2 * mu) < 5 * math.sqrt(var_mu / n)
    assert abs(d_sigma.item() - 2 * sigma) < 5 * math.sqrt(var_sigma / n)


@pytest.mark.claim(PAGE, "from 100,000 it is within a few thousandths of $(2, 1)$")
def test_reparameterisation_table_at_100000() -> None:
    last = run_region(SNIPPET, *PRELUDE, "reparam").output.splitlines()[-2].split()
    assert last[0] == "100000"
    assert abs(float(last[1]) - 2) < 0.01 and abs(float(last[2]) - 1) < 0.01


@pytest.mark.claim(
    PAGE,
    "\\frac{\\partial \\log p}{\\partial \\mu} = \\frac{z - \\mu}{\\sigma^2},",
)
@settings(max_examples=30, deadline=None)
@given(mus, sigmas, st.floats(-4, 4, allow_nan=False))
def test_score_of_the_normal(mu: float, sigma: float, z: float) -> None:
    mu_t = torch.tensor(mu, dtype=F64, requires_grad=True)
    sigma_t = torch.tensor(sigma, dtype=F64, requires_grad=True)
    inputs = {"torch": torch, "Normal": Normal, "mu": mu_t, "sigma": sigma_t}
    page = run_region(
        SNIPPET, "score-of-normal-maths", inputs={**inputs, "z": torch.tensor([z], dtype=F64)}
    )
    assert math.isclose(page["d_mu"].item(), (z - mu) / sigma**2, rel_tol=1e-9, abs_tol=1e-9)
    by_hand_sigma = ((z - mu) ** 2 - sigma**2) / sigma**3
    assert math.isclose(page["d_sigma"].item(), by_hand_sigma, rel_tol=1e-9, abs_tol=1e-9)


@pytest.mark.claim(PAGE, "The estimate converges to the same $(2, 1)$, but more slowly")
@settings(max_examples=10, deadline=None)
@given(mus, sigmas, st.sampled_from([0.0, "E[f]", 10.0]))
def test_score_function_is_unbiased_with_any_baseline(mu: float, sigma: float, b) -> None:
    page = _estimators()
    n = 400_000
    baseline = mu**2 + sigma**2 if b == "E[f]" else b
    torch.manual_seed(2)
    d_mu, d_sigma = page["score_estimate"](
        torch.tensor(mu, dtype=F64), torch.tensor(sigma, dtype=F64), _square, n, baseline
    )
    # The variance with a constant baseline b, from the same expansion as on the page:
    # one sample of d/dmu is (f - b) eps / sigma; E[(f - b)^2 eps^2] / sigma^2 - (2 mu)^2.
    eps = torch.randn(2_000_000, dtype=F64, generator=torch.Generator().manual_seed(0))
    z = mu + sigma * eps
    var_mu = (((z**2 - baseline) * eps / sigma) ** 2).mean().item() - 4 * mu**2
    var_sigma = (((z**2 - baseline) * (eps**2 - 1) / sigma) ** 2).mean().item() - 4 * sigma**2
    assert abs(d_mu.item() - 2 * mu) < 6 * math.sqrt(var_mu / n)
    assert abs(d_sigma.item() - 2 * sigma) < 6 * math.sqrt(var_sigma / n)


@pytest.mark.claim(
    PAGE,
    "if `z` came from `rsample()`, or if $f$ were computed from $\\theta$, "
    "autograd would add a term with the derivative of $f$: $\\log p(z)$ times "
    "the derivative of $f(z)$ by $\\theta$, which is $f'(z)\\, \\partial z / \\partial \\theta$ "
    "for a `z` from `rsample()`.",
)
def test_without_detach_an_rsample_adds_the_pathwise_term() -> None:
    page = _estimators()
    mu = torch.tensor(1.0, dtype=F64, requires_grad=True)
    sigma = torch.tensor(0.5, dtype=F64, requires_grad=True)
    dist = Normal(mu, sigma)
    torch.manual_seed(3)
    z = dist.rsample((200_000,))
    wrong = torch.autograd.grad((_square(z) * dist.log_prob(z)).mean(), (mu, sigma))
    torch.manual_seed(3)
    right = page["score_estimate"](mu, sigma, _square, 200_000)
    assert abs(wrong[0].item() - right[0].item()) > 1.0  # not the score-function estimate
    assert abs(wrong[0].item() - 2.0) > 1.0  # nor the gradient, (2, 1)
    # By hand: along z = mu + sigma eps, log p(z) = -log sigma - log(2 pi)/2 - eps^2/2 does
    # not move with mu, so d/dmu is only the added term, log p(z) f'(z) dz/dmu = log p(z) 2z.
    with torch.no_grad():
        eps = (z - mu) / sigma
        log_p = -math.log(0.5) - 0.5 * math.log(2 * math.pi) - eps**2 / 2
        added = (log_p * 2 * z).mean().item()
    assert math.isclose(wrong[0].item(), added, rel_tol=1e-9, abs_tol=1e-12)
    # and f computed from theta, z from sample(): the score estimate plus log p(z) df/dmu
    torch.manual_seed(3)
    z = dist.sample((200_000,))
    (with_f,) = torch.autograd.grad(((z - mu) ** 2 * dist.log_prob(z)).mean(), mu)
    torch.manual_seed(3)
    (score_part,) = page["score_estimate"](mu, sigma, lambda v: (v - 1.0) ** 2, 200_000)[:1]
    with torch.no_grad():
        added = (dist.log_prob(z) * -2 * (z - mu)).mean().item()
    assert math.isclose(with_f.item(), score_part.item() + added, rel_tol=1e-9)


@pytest.mark.claim(PAGE, "g(1) - g(0) = 0.55^2 - 0.45^2 .")
@settings(max_examples=20, deadline=None)
@given(st.floats(0.02, 0.98))
def test_bernoulli_gradient_is_a_difference(p: float) -> None:
    g = run_region(SNIPPET, *PRELUDE, "discrete")["g"]
    p_t = torch.tensor(p, dtype=F64, requires_grad=True)
    inputs = {"torch": torch, "Bernoulli": Bernoulli, "g": g, "p": p_t}
    page = run_region(SNIPPET, "bernoulli-maths", inputs=inputs)
    # (the page writes g(1) and g(0) with float32 tensors: float32 rounding)
    assert math.isclose(page["exact"].item(), 0.55**2 - 0.45**2, rel_tol=1e-6)
    # the score estimate: per sample g(z) (z/p - (1-z)/(1-p)), variance below, by hand
    second_moment = p * (g(1.0) / p) ** 2 + (1 - p) * (g(0.0) / (1 - p)) ** 2
    se = math.sqrt((second_moment - 0.1**2) / 100_000)
    assert abs(page["score"].item() - 0.1) < 6 * se


@pytest.mark.claim(
    PAGE,
    "\\frac{\\partial}{\\partial \\theta_i} \\sum_j p_j r_j "
    "= p_i \\bigl(r_i - \\mathbb{E}[r]\\bigr).",
)
@settings(max_examples=20, deadline=None)
@given(
    st.lists(st.floats(-2, 2), min_size=2, max_size=5),
    st.lists(st.floats(-3, 6), min_size=5, max_size=5),
)
def test_categorical_gradient_by_hand(logits: list[float], rewards: list[float]) -> None:
    k = len(logits)
    theta = torch.tensor(logits, dtype=F64, requires_grad=True)
    reward = torch.tensor(rewards[:k], dtype=F64)
    inputs = {"torch": torch, "Categorical": Categorical, "logits": theta, "reward": reward}
    page = run_region(SNIPPET, "categorical-maths", inputs=inputs)
    p = torch.softmax(theta.detach(), -1)
    by_hand = p * (reward - p @ reward)  # the test's own formula
    torch.testing.assert_close(page["exact"], by_hand)
    # the score estimate, within 6 standard errors of one sample's variance
    score_samples = reward.unsqueeze(1) * (torch.eye(k, dtype=F64) - p)  # row j: r_j (e_j - p)
    second = (p.unsqueeze(1) * score_samples**2).sum(0)
    se = ((second - by_hand**2) / 100_000).sqrt()
    assert ((page["score"] - by_hand).abs() <= 6 * se + 1e-12).all()


# --- Variance ---------------------------------------------------------------------------


def _spread(page: dict, mu: float, sigma: float, seed: int, runs: int = 4000, n: int = 100):
    mus, sigmas = torch.full((runs,), mu, dtype=F64), torch.full((runs,), sigma, dtype=F64)
    torch.manual_seed(seed)
    reparam = page["reparam_estimate"](mus, sigmas, _square, n)
    score = page["score_estimate"](mus, sigmas, _square, n)
    exact_b = page["score_estimate"](mus, sigmas, _square, n, mu**2 + sigma**2)
    return reparam, score, exact_b


@pytest.mark.claim(
    PAGE,
    "\\frac{\\mu^4 + 18\\mu^2\\sigma^2 + 15\\sigma^4}{\\sigma^2} - 4\\mu^2 "
    "= \\frac{\\mu^4}{\\sigma^2} + 14\\mu^2 + 15\\sigma^2 .",
)
@pytest.mark.parametrize(("mu", "sigma"), [(1.0, 0.5), (0.0, 1.0), (-1.5, 0.7), (2.0, 1.5)])
def test_variances_match_the_hand_formulas(mu: float, sigma: float) -> None:
    page = _estimators()
    n = 100
    reparam, score, exact_b = _spread(page, mu, sigma, seed=0, n=n)
    for measured, by_hand in [
        (reparam[0].var().item(), _var_reparam(mu, sigma)[0] / n),
        (reparam[1].var().item(), _var_reparam(mu, sigma)[1] / n),
        (score[0].var().item(), _var_score_mu(mu, sigma) / n),
        (exact_b[0].var().item(), _var_score_mu_baseline(mu, sigma) / n),
    ]:
        assert math.isclose(measured, by_hand, rel_tol=0.15), (measured, by_hand)


@pytest.mark.claim(PAGE, "its error shrinks like ${1/\\sqrt{n}}$")
def test_variance_falls_like_one_over_n() -> None:
    page = _estimators()
    small = _spread(page, 1.0, 0.5, seed=0, n=25)[0][0].var().item()
    large = _spread(page, 1.0, 0.5, seed=0, n=400)[0][0].var().item()
    assert math.isclose(small / large, 16, rel_tol=0.2)


@pytest.mark.claim(
    PAGE,
    "For this $f$ the score function's variance is the larger one at every $\\mu$ and $\\sigma$",
)
@settings(max_examples=10, deadline=None)
@given(st.floats(-3, 3), st.floats(0.1, 3))
def test_score_variance_is_larger_everywhere(mu: float, sigma: float) -> None:
    # by hand, the difference is mu^4/sigma^2 + 14 mu^2 + 11 sigma^2 > 0 ...
    assert _var_score_mu(mu, sigma) >= 15 / 4 * _var_reparam(mu, sigma)[0]
    # ... and measured with the page's estimators (the ratio is at least 3.75 by hand)
    reparam, score, _ = _spread(_estimators(), mu, sigma, seed=0, runs=2000)
    assert score[0].var() > 2.5 * reparam[0].var()


def _var_sin_mu(w: float, mu: float, sigma: float) -> tuple[float, float]:
    """One sample's variance of d/dmu for f(z) = sin(w z): w cos(w z) by reparameterisation,
    sin(w z) eps / sigma by the score function; from E[cos(a + b eps)] = cos(a) e^(-b^2/2)
    and E[cos(a + b eps) eps^2] = cos(a) (1 - b^2) e^(-b^2/2), a = 2 w mu, b = 2 w sigma."""
    a, b = 2 * w * mu, 2 * w * sigma
    mean_sq = (w * math.cos(w * mu) * math.exp(-((w * sigma) ** 2) / 2)) ** 2
    reparam = w**2 * (1 + math.cos(a) * math.exp(-(b**2) / 2)) / 2 - mean_sq
    score = (1 - math.cos(a) * (1 - b**2) * math.exp(-(b**2) / 2)) / (2 * sigma**2) - mean_sq
    return reparam, score


@pytest.mark.claim(
    PAGE, "That makes the reparameterisation usually, not always, the less noisy one."
)
@pytest.mark.claim(
    PAGE,
    "one sample's variance is about 50 by reparameterisation and about 2 by the score function",
)
@pytest.mark.claim(
    INTERVIEW, "usually, not always, the one with the lower variance: for a fast-oscillating"
)
@pytest.mark.parametrize(
    ("w", "mu", "sigma"), [(10.0, 1.0, 0.5), (10.0, 0.0, 0.5), (6.0, 1.0, 1.0)]
)
def test_the_score_function_wins_for_a_fast_oscillating_f(
    w: float, mu: float, sigma: float
) -> None:
    page = _estimators()
    runs, n = 4000, 100
    mus, sigmas = torch.full((runs,), mu, dtype=F64), torch.full((runs,), sigma, dtype=F64)
    torch.manual_seed(0)
    reparam = page["reparam_estimate"](mus, sigmas, lambda z: torch.sin(w * z), n)[0]
    score = page["score_estimate"](mus, sigmas, lambda z: torch.sin(w * z), n)[0]
    by_hand = _var_sin_mu(w, mu, sigma)
    for measured, expected in zip((reparam.var().item(), score.var().item()), by_hand, strict=True):
        assert math.isclose(measured, expected / n, rel_tol=0.15), (measured, expected / n)
    assert score.var() * 10 < reparam.var()  # the score function is the less noisy one
    exact = w * math.cos(w * mu) * math.exp(-((w * sigma) ** 2) / 2)  # both stay unbiased
    assert abs(reparam.mean().item() - exact) < 5 * math.sqrt(by_hand[0] / n / runs)
    assert abs(score.mean().item() - exact) < 5 * math.sqrt(by_hand[1] / n / runs)
    if (w, mu, sigma) == (10.0, 1.0, 0.5):  # the page's numbers, "about 50" and "about 2"
        assert round(by_hand[0]) == 50 and round(by_hand[1]) == 2


@pytest.mark.claim(
    PAGE, "about 0.221, against 0.0100 for the reparameterisation: about 22 times larger"
)
@pytest.mark.parametrize("seed", range(8))
def test_variance_ordering_holds_on_every_seed(seed: int) -> None:
    page = _estimators()
    page = run_region(SNIPPET, "variance", inputs={**page, "torch": _SeededTorch(seed)})
    estimates = page["estimates"]
    reparam = estimates["reparameterisation"][0].var()
    score = estimates["score function"][0].var()
    baseline = estimates["score, with baseline"][0].var()
    assert 15 < score / reparam < 30  # 21.75 by hand
    assert 7 < baseline / reparam < 14  # 10.5 by hand, with the exact E[f]
    assert 0.35 < baseline / score < 0.65  # "about half"
    if seed == 0:
        assert "score function / reparameterisation: 22.0" in page.output


def _per_sample_scores(make, values: list, n: int, seed: int) -> torch.Tensor:
    """One score per sample, by every parameter: each sample gets its own copy of them."""
    leaves = [
        torch.tensor(v, dtype=F64).expand(n, *torch.tensor(v).shape).clone().requires_grad_()
        for v in values
    ]
    dist = make(*leaves)
    torch.manual_seed(seed)
    z = dist.sample()
    grads = torch.autograd.grad(dist.log_prob(z).sum(), leaves)
    return torch.cat([g.reshape(n, -1) for g in grads], dim=1)


FIXED_SUPPORT = {
    "Normal": (Normal, [1.0, 0.5]),
    "Exponential": (Exponential, [1.5]),
    "Gamma": (Gamma, [2.0, 1.0]),
    "Beta": (Beta, [2.0, 3.0]),
    "Bernoulli": (lambda p: Bernoulli(probs=p), [0.3]),
    "Categorical": (lambda p: Categorical(probs=p), [[0.2, 0.3, 0.5]]),
    "Poisson": (Poisson, [3.0]),
}


@pytest.mark.claim(
    PAGE,
    "The score has mean zero whenever the set of values that $z$ can take "
    "does not depend on $\\theta$",
)
@pytest.mark.parametrize("name", FIXED_SUPPORT)
def test_score_has_mean_zero(name: str) -> None:
    page = run_region(SNIPPET, *PRELUDE, "score-mean-zero")
    assert abs(page["d_mu"].item()) < 5 * math.sqrt(1 / 0.25 / 100_000)  # Var = 1/sigma^2
    make, values = FIXED_SUPPORT[name]
    scores = _per_sample_scores(make, values, 200_000, seed=4)
    se = scores.std(0) / math.sqrt(len(scores))
    assert (scores.mean(0).abs() < 6 * se).all(), (scores.mean(0), se)


@pytest.mark.claim(PAGE, "not for a uniform distribution whose ends are parameters")
def test_uniform_score_does_not_have_mean_zero() -> None:
    scores = _per_sample_scores(Uniform, [0.0, 2.0], 1000, seed=4)
    # log p = -log(b - a) on [a, b]: d/da = 1 / (b - a), d/db = -1 / (b - a), for every z
    torch.testing.assert_close(scores.mean(0), torch.tensor([0.5, -0.5], dtype=F64))


# --- Gumbel ------------------------------------------------------------------------------


@pytest.mark.claim(PAGE, "is distributed as $\\mathrm{Categorical}(\\mathrm{softmax}(\\theta))$")
@settings(max_examples=8, deadline=None)
@given(st.lists(st.floats(-2, 2), min_size=3, max_size=3))
def test_gumbel_max_samples_the_softmax(logits: list[float]) -> None:
    from torch.distributions import Gumbel

    theta = torch.tensor(logits)
    inputs = {"torch": torch, "Gumbel": Gumbel, "logits": theta}
    page = run_region(SNIPPET, "gumbel-max-maths", inputs=inputs)
    frequency = torch.bincount(page["choice"], minlength=3) / 100_000
    p = torch.softmax(theta, -1)
    assert ((frequency - p).abs() <= 6 * (p * (1 - p) / 100_000).sqrt() + 1e-6).all()


@pytest.mark.claim(
    PAGE, "As $\\tau \\to 0$ it tends to the one-hot vector of the Gumbel-max sample"
)
@settings(max_examples=10, deadline=None)
@given(st.lists(st.floats(-2, 2), min_size=3, max_size=3), st.integers(0, 1000))
def test_gumbel_softmax_between_one_hot_and_uniform(logits: list[float], seed: int) -> None:
    theta = torch.tensor(logits, requires_grad=True)
    inputs = {"torch": _SeededTorch(seed), "F": F, "logits": theta}
    page = run_region(SNIPPET, "gumbel-softmax-maths", inputs=inputs)
    assert page["y"].grad_fn is not None
    draws = {}
    for tau in (1000.0, 1.0, 0.01, 0.001):
        torch.manual_seed(seed)
        y = F.gumbel_softmax(theta, tau=tau)
        assert (y >= 0).all() and math.isclose(y.sum().item(), 1.0, rel_tol=1e-5)
        draws[tau] = y.detach()
    argmaxes = {int(y.argmax()) for y in draws.values()}
    assert len(argmaxes) == 1  # the same Gumbel-max choice at every temperature
    assert (draws[1000.0] - 1 / 3).abs().max() < 0.01  # nearly uniform
    top, second = torch.sort(draws[1.0], descending=True).values[:2]
    gap = math.log(top / second)  # the gap between the two largest perturbed logits
    if gap > 0.02:  # at tau = 0.001 the ratio of the two largest is exp(gap / tau)
        assert draws[0.001].max() > 0.99


@pytest.mark.claim(PAGE, "The temperature trades bias against variance")
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_temperature_trades_bias_for_variance(seed: int) -> None:
    page = run_region(SNIPPET, *PRELUDE, "discrete", "gumbel-softmax", "temperature")
    gumbel_gradients, exact = page["gumbel_gradients"], page["exact"]
    offs, variances, noises = [], [], []
    for tau in [10.0, 3.0, 1.0, 0.3, 0.1]:
        torch.manual_seed(seed)
        grads = gumbel_gradients(tau)
        offs.append((grads.mean(0) - exact).norm().item())
        variances.append(grads.var(0).sum().item())
        noises.append(math.sqrt(variances[-1] / len(grads)))
    assert offs[:4] == sorted(offs[:4], reverse=True)  # bias falls with tau
    assert variances == sorted(variances)  # variance rises as tau falls
    assert all(off > 10 * noise for off, noise in zip(offs[:3], noises[:3], strict=True))
    assert offs[4] < 3 * noises[4]  # at tau = 0.1 no bias shows above the noise


@pytest.mark.claim(PAGE, "and the two gradients are identical")
@settings(max_examples=15, deadline=None)
@given(
    st.lists(st.floats(-2, 2), min_size=2, max_size=5),
    st.sampled_from([0.1, 0.5, 1.0, 5.0]),
    st.integers(0, 1000),
)
def test_hard_gumbel_softmax_is_one_hot_with_the_soft_gradient(
    logits: list[float], tau: float, seed: int
) -> None:
    names = ("discrete", "gumbel-softmax", "temperature", "straight-through")
    page = run_region(SNIPPET, *PRELUDE, *names)
    assert "the same gradient: True" in page.output
    theta = torch.tensor(logits, requires_grad=True)
    torch.manual_seed(seed)
    y_hard = F.gumbel_softmax(theta, tau=tau, hard=True)
    torch.manual_seed(seed)
    y_soft = F.gumbel_softmax(theta, tau=tau)
    assert torch.equal(y_hard.detach(), F.one_hot(y_soft.argmax(), len(logits)).float())
    for i in range(len(logits)):  # every row of the Jacobian
        (hard_row,) = torch.autograd.grad(y_hard[i], theta, retain_graph=True)
        (soft_row,) = torch.autograd.grad(y_soft[i], theta, retain_graph=True)
        torch.testing.assert_close(hard_row, soft_row)


@pytest.mark.claim(PAGE, "so the value is an exact draw from the categorical distribution")
def test_hard_samples_have_the_categorical_frequencies() -> None:
    theta = torch.tensor([1.0, 0.0, -1.0, 0.5]).expand(100_000, 4)
    torch.manual_seed(5)
    y = F.gumbel_softmax(theta, tau=0.7, hard=True)
    frequency = y.mean(0)
    p = torch.softmax(theta[0], -1)
    assert ((frequency - p).abs() <= 6 * (p * (1 - p) / 100_000).sqrt()).all()


# --- The VAE ---------------------------------------------------------------------------


@pytest.mark.claim(
    PAGE,
    "because the KL term reaches the encoder through $\\mu$ and $\\sigma$ directly",
)
def test_vae_with_sample_gets_only_the_kl_gradient() -> None:
    page = run_region(SNIPPET, *PRELUDE, "vae")
    assert " sample: encoder gradient from the reconstruction: None" in page.output
    assert "rsample: encoder gradient from the reconstruction: norm" in page.output
    encoder, vae_terms = page["encoder"], page["vae_terms"]
    for seed in range(3):
        torch.manual_seed(seed)
        reconstruction, kl = vae_terms(Normal.sample)
        encoder.zero_grad()
        (reconstruction + kl).backward()
        total = encoder.weight.grad.clone()
        torch.manual_seed(seed)
        _, kl_alone = vae_terms(Normal.sample)
        (from_kl,) = torch.autograd.grad(kl_alone, encoder.weight)
        torch.testing.assert_close(total, from_kl)
        torch.manual_seed(seed)
        reconstruction, _ = vae_terms(Normal.rsample)
        (from_reconstruction,) = torch.autograd.grad(reconstruction, encoder.weight)
        assert from_reconstruction.norm() > 0


# --- The interview page --------------------------------------------------------------


@pytest.mark.claim(
    INTERVIEW,
    "only distributions whose `has_rsample` is `True` offer it",
)
def test_interview_rsample_exactly_when_has_rsample() -> None:
    page = run_region(INTERVIEW_SNIPPET, "problem")
    assert "sample():  grad_fn None   requires_grad False" in page.output
    for dist in _distributions(requires_grad=True):
        if dist.has_rsample:
            assert dist.rsample().grad_fn is not None, type(dist).__name__
        else:
            with pytest.raises(NotImplementedError):
                dist.rsample()


@pytest.mark.claim(
    INTERVIEW,
    "For $f(z) = z^2$, $\\mathbb{E}[z^2] = \\mu^2 + \\sigma^2$, whose gradient is "
    "$(2\\mu, 2\\sigma)$.",
)
@settings(max_examples=10, deadline=None)
@given(mus, sigmas)
def test_interview_reparameterisation(mu: float, sigma: float) -> None:
    mu_t = torch.tensor(mu, dtype=F64, requires_grad=True)
    sigma_t = torch.tensor(sigma, dtype=F64, requires_grad=True)
    inputs = {"torch": torch, "Normal": Normal, "mu": mu_t, "sigma": sigma_t}
    run_region(INTERVIEW_SNIPPET, "reparameterisation", inputs=inputs)
    var_mu, var_sigma = _var_reparam(mu, sigma)
    assert abs(mu_t.grad.item() - 2 * mu) < 5 * math.sqrt(var_mu / 100_000)
    assert abs(sigma_t.grad.item() - 2 * sigma) < 5 * math.sqrt(var_sigma / 100_000)


@pytest.mark.claim(
    INTERVIEW,
    "subtracting a baseline $b$ that does not depend on the sample keeps the estimate unbiased",
)
@settings(max_examples=10, deadline=None)
@given(
    st.lists(st.floats(-2, 2), min_size=3, max_size=3),
    st.lists(st.floats(-3, 6), min_size=3, max_size=3),
)
def test_interview_score_function_with_baseline(logits: list[float], rewards: list[float]) -> None:
    theta = torch.tensor(logits, dtype=F64, requires_grad=True)
    reward = torch.tensor(rewards, dtype=F64)
    inputs = {"torch": torch, "Categorical": Categorical, "logits": theta, "reward": reward}
    run_region(INTERVIEW_SNIPPET, "score-function-maths", inputs=inputs)
    p = torch.softmax(theta.detach(), -1)
    by_hand = p * (reward - p @ reward)
    # one sample with baseline b: (r_j - b)(e_j - p); b is an average of 100,000 rewards
    b = p @ reward
    rows = (reward - b).unsqueeze(1) * (torch.eye(3, dtype=F64) - p)
    se = (((p.unsqueeze(1) * rows**2).sum(0) - by_hand**2).clamp(min=0) / 100_000).sqrt()
    # (the baseline is itself an average of 100,000 rewards: its own error adds ~1e-5 |r|)
    slack = 1e-4 * (1 + reward.abs().max())
    assert ((theta.grad - by_hand).abs() <= 6 * se + slack).all()


@pytest.mark.claim(
    INTERVIEW,
    "the score function's variance, about 0.221, is about 22 times the reparameterisation's",
)
@pytest.mark.parametrize("seed", range(6))
def test_interview_variance_ratio(seed: int) -> None:
    inputs = {"torch": _SeededTorch(seed), "Normal": Normal}
    page = run_region(INTERVIEW_SNIPPET, "variance", inputs=inputs)
    ratio = (page["score"].var() / page["reparam"].var()).item()
    assert 15 < ratio < 30  # 21.75 by hand
    assert abs(page["score"].mean().item() - 2) < 0.1
    assert abs(page["reparam"].mean().item() - 2) < 0.1
    if seed == 0:
        assert "score / reparameterisation: 22.0" in page.output


@pytest.mark.claim(
    INTERVIEW,
    "With `hard=True` the value is the exact one-hot draw and the gradient is the relaxed sample's",
)
@pytest.mark.parametrize("seed", range(5))
def test_interview_hard_gumbel_softmax(seed: int) -> None:
    reward = torch.tensor([1.0, 2.0, 5.0])
    page = run_region(
        INTERVIEW_SNIPPET, "relaxation", inputs={"torch": _SeededTorch(seed), "reward": reward}
    )
    y, theta = page["y"].detach(), page["logits"]
    assert sorted(y.tolist()) == [0.0, 0.0, 1.0]
    soft_logits = theta.detach().clone().requires_grad_()
    torch.manual_seed(seed)
    y_soft = F.gumbel_softmax(soft_logits, tau=0.5)
    (y_soft @ reward).backward()
    assert int(y.argmax()) == int(y_soft.argmax())
    torch.testing.assert_close(theta.grad, soft_logits.grad)


@pytest.mark.claim(
    INTERVIEW,
    "trains without an error, but its encoder gets no gradient from the reconstruction loss",
)
def test_interview_vae_bug() -> None:
    page = run_region(SNIPPET, *PRELUDE, "vae")
    torch.manual_seed(0)
    reconstruction, kl = page["vae_terms"](Normal.sample)
    (none,) = torch.autograd.grad(
        reconstruction, page["encoder"].weight, retain_graph=True, allow_unused=True
    )
    assert none is None
    (reconstruction + kl).backward()  # no error
    assert page["encoder"].weight.grad is not None


# --- The exercise ------------------------------------------------------------------------

EXERCISE = "docs/practice/exercises/reparameterisation-vs-score-function.md"
EXERCISE_SNIPPET = "practice/reparameterisation_vs_score_function"


@pytest.mark.claim(
    EXERCISE,
    "\\mathrm{Var}_{\\text{reparam}} = \\frac{1 + \\cos(2\\mu)\\, e^{-2\\sigma^2}}{2} "
    "- \\cos^2(\\mu)\\, e^{-\\sigma^2},",
)
@pytest.mark.parametrize(("mu", "sigma"), [(1.0, 0.5), (0.3, 0.8), (-2.0, 0.3), (0.0, 1.2)])
def test_exercise_variance_formulas(mu: float, sigma: float) -> None:
    page = run_region(EXERCISE_SNIPPET, "solution")
    runs, n = 4000, 100
    mus, sigmas = torch.full((runs,), mu, dtype=F64), torch.full((runs,), sigma, dtype=F64)
    torch.manual_seed(6)
    # one entry of mu per run: the solution averages over all runs, so scale by runs
    reparam = page["reparam_grads"](mus, sigmas, n)[0] * runs
    score = page["score_grads"](mus, sigmas, n)[0] * runs
    # the hand formulas, per sample, then over n samples
    grad_mu_sq = (math.cos(mu) * math.exp(-(sigma**2) / 2)) ** 2
    decay = math.exp(-2 * sigma**2)
    by_hand_reparam = (1 + math.cos(2 * mu) * decay) / 2 - grad_mu_sq
    by_hand_score = (1 - math.cos(2 * mu) * (1 - 4 * sigma**2) * decay) / (2 * sigma**2)
    by_hand_score -= grad_mu_sq
    assert math.isclose(reparam.var().item(), by_hand_reparam / n, rel_tol=0.15)
    assert math.isclose(score.var().item(), by_hand_score / n, rel_tol=0.15)
    # both unbiased: d/dmu E[sin z] = cos(mu) exp(-sigma^2 / 2)
    exact = math.cos(mu) * math.exp(-(sigma**2) / 2)
    assert abs(reparam.mean().item() - exact) < 5 * math.sqrt(by_hand_reparam / n / runs)
    assert abs(score.mean().item() - exact) < 5 * math.sqrt(by_hand_score / n / runs)


def _exercise_check_says(starter: str) -> str:
    """What the exercise's check cell prints after `starter` ran in place of the starter."""
    check = region(ROOT / "snippets" / f"{EXERCISE_SNIPPET}.py", "check")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(starter + "\n" + check, "<exercise>", "exec"), {"__name__": "__exercise__"})
    return out.getvalue().strip().splitlines()[-1]


DIAGNOSES = {
    "variance-as-std": "those are standard deviations",
    "surrogate-sum": "not .sum()",
    "product-of-means": "the product of two averages",
    "score-with-rsample": "log_prob(z) does not change with mu",
    "one-sample-per-run": "about 100 times too large",
}


@pytest.mark.parametrize(("mistake", "phrase"), DIAGNOSES.items())
def test_exercise_check_diagnoses_each_mistake(mistake: str, phrase: str) -> None:
    mistakes = ROOT / "tests" / "mistakes" / "reparameterisation-vs-score-function.py"
    said = _exercise_check_says(region(mistakes, mistake))
    assert said.startswith("Not quite:") and phrase in said, said
    # and no other mistake's diagnosis
    assert not [p for p in DIAGNOSES.values() if p in said and p != phrase], said


def test_exercise_check_gives_the_near_zero_diagnosis_to_the_score_function_only() -> None:
    """A reparam_grads that returns zeros is not told about f(z) * log_prob(z)."""
    code = region(ROOT / "snippets" / f"{EXERCISE_SNIPPET}.py", "solution")
    old = "torch.autograd.grad(f(z).mean(), (mu, sigma))"
    assert code.count(old) == 1
    said = _exercise_check_says(
        code.replace(old, "torch.autograd.grad(0 * f(z).mean(), (mu, sigma))")
    )
    assert said.startswith("Not quite: reparam_grads") and "log_prob" not in said, said

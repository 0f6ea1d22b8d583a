"""Going deeper: gradients through random sampling (docs/deeper/gradients-through-sampling.md)."""
# ruff: noqa: E402

# --8<-- [start:sample-vs-rsample]
import torch
from torch.distributions import Normal

mu = torch.tensor(1.0, requires_grad=True)
sigma = torch.tensor(0.5, requires_grad=True)
# --8<-- [start:sample-vs-rsample-maths]
dist = Normal(mu, sigma)  # z ~ N(mu, sigma^2)

torch.manual_seed(0)
z_sample = dist.sample()
torch.manual_seed(0)
z_rsample = dist.rsample()

print("sample(): ", z_sample, " requires_grad:", z_sample.requires_grad)
print("           grad_fn:", z_sample.grad_fn)
print("rsample():", z_rsample)
print("           grad_fn:", type(z_rsample.grad_fn).__name__)
# --8<-- [end:sample-vs-rsample-maths]
# --8<-- [end:sample-vs-rsample]

# --8<-- [start:rsample-backward]
with torch.no_grad():
    eps = (z_rsample - mu) / sigma  # the standard normal draw behind z
(z_rsample**2).backward()  # f(z) = z^2
print(f"z = {z_rsample.item():.4f}, eps = {eps.item():.4f}")
print(f"mu.grad    = {mu.grad.item():.4f}   by hand 2z       = {2 * z_rsample.item():.4f}")
print(f"sigma.grad = {sigma.grad.item():.4f}   by hand 2z * eps = {2 * z_rsample.item() * eps:.4f}")
# --8<-- [end:rsample-backward]

# --8<-- [start:has-rsample]
from torch.distributions import (
    Bernoulli,
    Categorical,
    Exponential,
    Gamma,
    Poisson,
    RelaxedOneHotCategorical,
    Uniform,
)

three = torch.tensor([0.2, 0.3, 0.5])
for d in [
    Normal(0.0, 1.0),
    Uniform(0.0, 1.0),
    Exponential(1.0),
    Gamma(2.0, 1.0),
    RelaxedOneHotCategorical(torch.tensor(0.5), probs=three),
    Bernoulli(0.3),
    Categorical(probs=three),
    Poisson(3.0),
]:
    print(f"{type(d).__name__:<25} has_rsample = {d.has_rsample}")
# --8<-- [end:has-rsample]

# --8<-- [start:bernoulli-step]
p = torch.tensor(0.3, requires_grad=True)
torch.manual_seed(0)
u = torch.rand(5)
z = (u < p).float()  # a Bernoulli(p) sample: 1 when u < p
print("u:", u)
print("z:", z, " requires_grad:", z.requires_grad)
# --8<-- [end:bernoulli-step]


# --8<-- [start:reparam]
def f(z):
    return z**2


def reparam_estimate(mu, sigma, f, n):
    """Estimate d E[f(z)] / d mu and d / d sigma, z ~ N(mu, sigma^2), from n samples.

    mu and sigma may hold a batch of independent runs: one estimate per entry.
    """
    mu = mu.detach().requires_grad_()
    sigma = sigma.detach().requires_grad_()
    z = Normal(mu, sigma).rsample((n,))  # z = mu + sigma * eps, recorded in the graph
    objective = f(z).mean(0).sum()  # each run's average of f; the runs summed
    return torch.autograd.grad(objective, (mu, sigma))


mu, sigma = torch.tensor(1.0), torch.tensor(0.5)
print("      n    d/d mu  d/d sigma")
for n in [10, 100, 1_000, 10_000, 100_000]:
    torch.manual_seed(0)
    d_mu, d_sigma = reparam_estimate(mu, sigma, f, n)
    print(f"{n:7d}  {d_mu.item():8.4f}  {d_sigma.item():9.4f}")
print(f"  exact  {2 * mu.item():8.4f}  {2 * sigma.item():9.4f}   (2 mu and 2 sigma)")
# --8<-- [end:reparam]

# --8<-- [start:score-of-normal]
mu = torch.tensor(1.0, requires_grad=True)
sigma = torch.tensor(0.5, requires_grad=True)
z = torch.tensor([0.0, 1.0, 1.5, 2.5])  # four fixed points
# --8<-- [start:score-of-normal-maths]
for zi in z:
    d_mu, d_sigma = torch.autograd.grad(Normal(mu, sigma).log_prob(zi), (mu, sigma))
    hand_mu = (zi - mu) / sigma**2
    hand_sigma = ((zi - mu) ** 2 - sigma**2) / sigma**3
    print(
        f"z = {zi.item():3}:  d/d mu {d_mu.item():5.1f} (by hand {hand_mu.item():5.1f}),"
        f"  d/d sigma {d_sigma.item():5.1f} (by hand {hand_sigma.item():5.1f})"
    )
# --8<-- [end:score-of-normal-maths]
# --8<-- [end:score-of-normal]


# --8<-- [start:score]
def score_estimate(mu, sigma, f, n, baseline=0.0):
    """The same gradient by the score function (REINFORCE): only f's values are used."""
    mu = mu.detach().requires_grad_()
    sigma = sigma.detach().requires_grad_()
    dist = Normal(mu, sigma)
    z = dist.sample((n,))  # no graph: z is just data
    weight = (f(z) - baseline).detach()  # a constant for autograd
    surrogate = (weight * dist.log_prob(z)).mean(0).sum()
    return torch.autograd.grad(surrogate, (mu, sigma))


mu, sigma = torch.tensor(1.0), torch.tensor(0.5)
print("      n    d/d mu  d/d sigma")
for n in [10, 100, 1_000, 10_000, 100_000]:
    torch.manual_seed(0)
    d_mu, d_sigma = score_estimate(mu, sigma, f, n)
    print(f"{n:7d}  {d_mu.item():8.4f}  {d_sigma.item():9.4f}")
print(f"  exact  {2 * mu.item():8.4f}  {2 * sigma.item():9.4f}   (2 mu and 2 sigma)")
# --8<-- [end:score]


# --8<-- [start:discrete]
def g(z):
    return (z - 0.45) ** 2


p = torch.tensor(0.3, requires_grad=True)
# --8<-- [start:bernoulli-maths]
bernoulli = Bernoulli(probs=p)
torch.manual_seed(0)
z = bernoulli.sample((100_000,))  # 0s and 1s, no graph
surrogate = (g(z).detach() * bernoulli.log_prob(z)).mean()
(score,) = torch.autograd.grad(surrogate, p)

exact_objective = p * g(torch.tensor(1.0)) + (1 - p) * g(torch.tensor(0.0))  # two terms
(exact,) = torch.autograd.grad(exact_objective, p)
print(f"Bernoulli: score estimate {score.item():.4f}, exact {exact.item():.4f}")
# --8<-- [end:bernoulli-maths]

logits = torch.tensor([1.0, 0.0, -1.0], requires_grad=True)
reward = torch.tensor([1.0, 2.0, 5.0])  # the value of each of the 3 choices
# --8<-- [start:categorical-maths]
categorical = Categorical(logits=logits)
torch.manual_seed(0)
k = categorical.sample((100_000,))  # indices 0, 1 or 2
surrogate = (reward[k] * categorical.log_prob(k)).mean()
(score,) = torch.autograd.grad(surrogate, logits)

probs = torch.softmax(logits, -1)
(exact,) = torch.autograd.grad(probs @ reward, logits)  # sum over the 3 choices
by_hand = (probs * (reward - probs @ reward)).detach()  # p_j (r_j - E[r])
print("Categorical: score estimate", score)
print("             exact         ", exact)
print("             by hand       ", by_hand)
# --8<-- [end:categorical-maths]
# --8<-- [end:discrete]

# --8<-- [start:variance]
runs, n = 2000, 100
mus, sigmas = torch.full((runs,), 1.0), torch.full((runs,), 0.5)  # one entry per run

torch.manual_seed(0)
estimates = {
    "reparameterisation": reparam_estimate(mus, sigmas, f, n),
    "score function": score_estimate(mus, sigmas, f, n),
}
earlier = f(Normal(mus, sigmas).sample((n,))).mean(0)  # each run's average f, earlier batch
estimates["score, with baseline"] = score_estimate(mus, sigmas, f, n, baseline=earlier)

print(f"{runs} runs of {n} samples each:")
print("                        mean of d/d mu  variance   mean of d/d sigma  variance")
for name, (d_mu, d_sigma) in estimates.items():
    print(
        f"{name:<22}  {d_mu.mean():14.3f}  {d_mu.var():8.4f}"
        f"   {d_sigma.mean():17.3f}  {d_sigma.var():8.4f}"
    )
reference = estimates["reparameterisation"][0].var()
for name in ["score function", "score, with baseline"]:
    ratio = estimates[name][0].var() / reference
    print(f"variance of d/d mu, {name} / reparameterisation: {ratio:.1f}")
m, s = 1.0, 0.5  # mu and sigma
by_hand = {
    "reparameterisation": ("4 sigma^2 / n", 4 * s**2 / n),
    "score function": (
        "(mu^4 / sigma^2 + 14 mu^2 + 15 sigma^2) / n",
        (m**4 / s**2 + 14 * m**2 + 15 * s**2) / n,
    ),
    "score, baseline E[f]": ("(8 mu^2 + 10 sigma^2) / n", (8 * m**2 + 10 * s**2) / n),
}
print("by hand, the variance of d/d mu:")
for name, (formula, value) in by_hand.items():
    print(f"  {name:<20}  {formula:<43} = {value:.4f}")
# --8<-- [end:variance]

# --8<-- [start:score-mean-zero]
torch.manual_seed(0)
mu = torch.tensor(1.0, requires_grad=True)
sigma = torch.tensor(0.5, requires_grad=True)
dist = Normal(mu, sigma)
z = dist.sample((100_000,))
d_mu, d_sigma = torch.autograd.grad(dist.log_prob(z).mean(), (mu, sigma))
print(f"mean score: d/d mu {d_mu.item():.4f}, d/d sigma {d_sigma.item():.4f}")
# --8<-- [end:score-mean-zero]

# --8<-- [start:gumbel-max]
from torch.distributions import Gumbel

logits = torch.tensor([1.0, 0.0, -1.0])
# --8<-- [start:gumbel-max-maths]
torch.manual_seed(0)
noise = Gumbel(0.0, 1.0).sample((100_000, 3))  # g = -log(-log u), u uniform
choice = (logits + noise).argmax(-1)
print("frequency of each choice:", torch.bincount(choice, minlength=3) / 100_000)
print("softmax(logits):         ", torch.softmax(logits, -1))
# --8<-- [end:gumbel-max-maths]
# --8<-- [end:gumbel-max]

# --8<-- [start:gumbel-softmax]
import torch.nn.functional as F

logits = torch.tensor([1.0, 0.0, -1.0], requires_grad=True)
# --8<-- [start:gumbel-softmax-maths]
for tau in [10.0, 1.0, 0.1]:
    torch.manual_seed(1)  # the same Gumbel noise for each temperature
    y = F.gumbel_softmax(logits, tau=tau)
    print(f"tau = {tau:4}: y = {[round(v, 3) for v in y.tolist()]}, grad_fn {y.grad_fn.name()}")
# --8<-- [end:gumbel-softmax-maths]
# --8<-- [end:gumbel-softmax]


# --8<-- [start:temperature]
def gumbel_gradients(tau, runs=20_000, hard=False):
    """One Gumbel-softmax gradient of E[y . reward] by the logits per run."""
    batch = logits.detach().expand(runs, 3).clone().requires_grad_()  # one row per run
    y = F.gumbel_softmax(batch, tau=tau, hard=hard)
    (y @ reward).sum().backward()
    return batch.grad


probs = torch.softmax(logits, -1).detach()
exact = probs * (reward - probs @ reward)  # p_j (r_j - E[r])


def report(name, grads):
    mean = grads.mean(0)
    off_by = (mean - exact).norm()  # distance of the average from the exact gradient
    variance = grads.var(0).sum()  # of one run's gradient, summed over the 3 logits
    noise = (variance / len(grads)) ** 0.5  # the typical error of an average of len(grads) runs
    shown = str([round(v, 3) for v in mean.tolist()])
    print(f"{name:<16} {shown:<24} {off_by:6.3f}  {noise:7.2g}  {variance:8.3g}")


print("exact gradient:", [round(v, 3) for v in exact.tolist()])
print("                 average of 20000 runs    off by    noise  variance")
for tau in [10.0, 3.0, 1.0, 0.3, 0.1]:
    torch.manual_seed(0)
    report(f"tau = {tau}", gumbel_gradients(tau))

torch.manual_seed(0)
batch = logits.detach().expand(20_000, 3).clone().requires_grad_()
categorical = Categorical(logits=batch)
baseline = reward[categorical.sample()].mean()  # the average reward of an earlier batch
k = categorical.sample()  # one choice per run
log_p = categorical.log_prob(k)
for name, b in [("score", 0.0), ("score, baseline", baseline)]:
    (grads,) = torch.autograd.grad(((reward[k] - b) * log_p).sum(), batch, retain_graph=True)
    report(name, grads)
# --8<-- [end:temperature]

# --8<-- [start:straight-through]
torch.manual_seed(0)
y_hard = F.gumbel_softmax(logits, tau=1.0, hard=True)
(grad_hard,) = torch.autograd.grad(y_hard @ reward, logits)
torch.manual_seed(0)  # the same noise
y_soft = F.gumbel_softmax(logits, tau=1.0)
(grad_soft,) = torch.autograd.grad(y_soft @ reward, logits)

print("hard value:   ", y_hard.detach())
print("soft value:   ", [round(v, 3) for v in y_soft.tolist()])
print("hard gradient:", grad_hard)
print("soft gradient:", grad_soft)
print("the same gradient:", torch.equal(grad_hard, grad_soft))
# --8<-- [end:straight-through]

# --8<-- [start:vae]
from torch.distributions import kl_divergence

torch.manual_seed(0)
encoder = torch.nn.Linear(4, 2)  # gives mu and log sigma of a 1-d latent z
decoder = torch.nn.Linear(1, 4)
x = torch.randn(8, 4)


def vae_terms(draw):
    mu, log_sigma = encoder(x).unbind(-1)
    q = Normal(mu, log_sigma.exp())
    z = draw(q)
    reconstruction = ((decoder(z.unsqueeze(-1)) - x) ** 2).sum(-1).mean()
    kl = kl_divergence(q, Normal(0.0, 1.0)).mean()  # a formula: no sampling
    return reconstruction, kl


for name, draw in [("rsample", Normal.rsample), ("sample", Normal.sample)]:
    torch.manual_seed(1)
    reconstruction, kl = vae_terms(draw)
    (from_reconstruction,) = torch.autograd.grad(
        reconstruction, encoder.weight, retain_graph=True, allow_unused=True
    )
    encoder.zero_grad()
    (reconstruction + kl).backward()  # runs in both cases
    shown = None if from_reconstruction is None else f"norm {from_reconstruction.norm():.3f}"
    print(f"{name:>7}: encoder gradient from the reconstruction: {shown}")
    print(f"         encoder.weight.grad after backward(): norm {encoder.weight.grad.norm():.3f}")
# --8<-- [end:vae]

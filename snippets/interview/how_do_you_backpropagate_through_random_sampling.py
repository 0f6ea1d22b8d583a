"""Interview: How do you backpropagate through random sampling?
(docs/interview/how-do-you-backpropagate-through-random-sampling.md)"""
# ruff: noqa: E402

# --8<-- [start:problem]
import torch
from torch.distributions import Bernoulli, Categorical, Normal

mu = torch.tensor(1.0, requires_grad=True)
sigma = torch.tensor(0.5, requires_grad=True)
dist = Normal(mu, sigma)

torch.manual_seed(0)
z = dist.sample()
print("sample():  grad_fn", z.grad_fn, "  requires_grad", z.requires_grad)
z = dist.rsample()  # mu + sigma * eps, eps ~ N(0, 1)
print("rsample(): grad_fn", type(z.grad_fn).__name__)
for d in [Normal(0.0, 1.0), Bernoulli(0.3), Categorical(logits=torch.zeros(3))]:
    print(f"{type(d).__name__:<11} has_rsample = {d.has_rsample}")
# --8<-- [end:problem]

# --8<-- [start:reparameterisation]
torch.manual_seed(0)
z = Normal(mu, sigma).rsample((100_000,))
(z**2).mean().backward()  # E[z^2] = mu^2 + sigma^2
print(f"mu.grad    {mu.grad.item():.3f}   by hand 2 mu    = {2 * mu.item():.3f}")
print(f"sigma.grad {sigma.grad.item():.3f}   by hand 2 sigma = {2 * sigma.item():.3f}")
# --8<-- [end:reparameterisation]

# --8<-- [start:score-function]
logits = torch.tensor([1.0, 0.0, -1.0], requires_grad=True)
reward = torch.tensor([1.0, 2.0, 5.0])  # a black box: no gradient by the choice
# --8<-- [start:score-function-maths]
policy = Categorical(logits=logits)

torch.manual_seed(0)
action = policy.sample((100_000,))  # discrete: no rsample
baseline = reward[policy.sample((100_000,))].mean()  # from an earlier, independent batch
surrogate = ((reward[action] - baseline).detach() * policy.log_prob(action)).mean()
surrogate.backward()

p = torch.softmax(logits, -1).detach()
print("score function:", logits.grad)
print("exact, p (r - E[r]):", p * (reward - p @ reward))
# --8<-- [end:score-function-maths]
# --8<-- [end:score-function]

# --8<-- [start:variance]
runs, n = 2000, 100
mus = torch.full((runs,), 1.0, requires_grad=True)  # one independent run per entry
sigmas = torch.full((runs,), 0.5)

torch.manual_seed(0)
z = Normal(mus, sigmas).rsample((n,))
(reparam,) = torch.autograd.grad((z**2).mean(0).sum(), mus)

dist = Normal(mus, sigmas)
z = dist.sample((n,))
(score,) = torch.autograd.grad(((z**2).detach() * dist.log_prob(z)).mean(0).sum(), mus)

print(f"d/d mu over {runs} runs of {n} samples: mean, variance")
print(f"  reparameterisation  {reparam.mean():.3f}  {reparam.var():.4f}")
print(f"  score function      {score.mean():.3f}  {score.var():.4f}")
print(f"variance ratio, score / reparameterisation: {score.var() / reparam.var():.1f}")
# --8<-- [end:variance]

# --8<-- [start:relaxation]
import torch.nn.functional as F

logits = torch.tensor([1.0, 0.0, -1.0], requires_grad=True)
torch.manual_seed(1)
y = F.gumbel_softmax(logits, tau=0.5, hard=True)  # one-hot forward, soft gradient
(y @ reward).backward()
print("value:", y.detach(), "  gradient:", logits.grad)
# --8<-- [end:relaxation]

"""Interview: How do you compute per-sample gradients?
(docs/interview/how-do-you-compute-per-sample-gradients.md)"""

# --8<-- [start:demonstration]
import torch
from torch.func import functional_call, grad, vmap

torch.manual_seed(0)
model = torch.nn.Linear(2, 1)
X = torch.randn(4, 2)  # 4 examples
target = torch.randn(4)


def example_loss(params, x, t):
    """The loss of ONE example, as a function of the parameters."""
    prediction = functional_call(model, params, (x.unsqueeze(0),)).squeeze()
    return (prediction - t) ** 2


params = {name: p.detach() for name, p in model.named_parameters()}
per_sample = vmap(grad(example_loss), in_dims=(None, 0, 0))(params, X, target)
print("per-sample weight gradients, shape", tuple(per_sample["weight"].shape))
print(per_sample["weight"].squeeze(1))

loop = []
for i in range(4):  # the slow way: one backward() per example
    model.zero_grad()
    ((model(X[i : i + 1]).squeeze() - target[i]) ** 2).backward()
    loop.append(model.weight.grad.clone())
torch.testing.assert_close(per_sample["weight"], torch.stack(loop))
print("equal to a loop of backward() calls (assert_close passed)")
# --8<-- [end:demonstration]

# --8<-- [start:by-hand]
with torch.no_grad():
    r = model(X).squeeze(1) - target  # the residuals
torch.testing.assert_close(per_sample["weight"].squeeze(1), 2 * r.unsqueeze(1) * X)
torch.testing.assert_close(per_sample["bias"].squeeze(1), 2 * r)
print("equal to 2 r_i x_i and 2 r_i (assert_close passed)")
# --8<-- [end:by-hand]

# --8<-- [start:batch]
model.zero_grad()
((model(X).squeeze(1) - target) ** 2).sum().backward()
print("weight.grad of the summed loss:      ", model.weight.grad.squeeze(0))
print("sum of the per-sample gradients:     ", per_sample["weight"].sum(dim=0).squeeze(0))
# --8<-- [end:batch]

# --8<-- [start:clip]
# DP-SGD (Abadi et al. 2016): clip each example's gradient to norm at most C, add them up,
# add Gaussian noise of standard deviation sigma * C, and divide by the batch size.
C, sigma = 1.0, 1.0  # the clipping norm and the noise multiplier
flat = torch.cat([per_sample["weight"].flatten(1), per_sample["bias"].flatten(1)], dim=1)
norms = flat.norm(dim=1)
clipped = flat * (C / norms).clamp(max=1.0).unsqueeze(1)
noisy_mean = (clipped.sum(dim=0) + sigma * C * torch.randn(flat.shape[1])) / len(flat)
print("norms before clipping:", norms)
print("norms after clipping: ", clipped.norm(dim=1))
print("the noisy mean gradient for the step:", noisy_mean)
# --8<-- [end:clip]

"""Interview: how do you debug a loss or gradients that become NaN?

docs/interview/how-do-you-debug-nan-gradients.md
"""

# --8<-- [start:diverge]
import torch
from torch import nn

torch.manual_seed(0)
x = torch.rand(32, 1) * 100  # inputs left unnormalised, between 0 and 100
y = 2 * x + 1
model = nn.Linear(1, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)

for step in range(30):
    optimizer.zero_grad()
    loss = (model(x) - y).pow(2).mean()
    loss.backward()
    norms = ", ".join(f"{name} {p.grad.norm():.2g}" for name, p in model.named_parameters())
    print(f"step {step:2}: loss {loss.item():.2g}; gradient norms: {norms}")
    if not torch.isfinite(loss):  # stop at the first bad step, before it spreads
        print("non-finite loss at step", step)
        break
    optimizer.step()
# --8<-- [end:diverge]

# --8<-- [start:smaller-step]
curvature = 2 * x.pow(2).mean()  # the second derivative of the loss in the weight
print(f"curvature {curvature:.2g}: stable while lr < 2 / curvature = {2 / curvature:.1g}")

torch.manual_seed(0)
model = nn.Linear(1, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=1e-4)  # 100 times smaller

for step in range(30):
    optimizer.zero_grad()
    loss = (model(x) - y).pow(2).mean()
    loss.backward()
    if step % 10 == 0 or step == 29:
        weight, bias = model.weight.item(), model.bias.item()
        print(f"step {step:2}: loss {loss.item():.2g}, weight {weight:.3f}, bias {bias:.3f}")
    optimizer.step()
# --8<-- [end:smaller-step]

# --8<-- [start:plateau]
# The loss is a quadratic in (weight, bias): its Hessian is 2/n times X^T X, where the
# columns of X are what the weight and the bias multiply (x, and 1).
X = torch.cat([x, torch.ones_like(x)], dim=1).double()
hessian = 2 * X.T @ X / len(x)
curvatures = torch.linalg.eigvalsh(hessian)  # along the Hessian's two eigenvectors
print("curvatures:", ", ".join(f"{c:.2g}" for c in curvatures.tolist()))
flat = 1e-4 * curvatures[0]  # the share of the error along the flat direction a step removes
print(f"each step of lr 1e-4 multiplies the error along the flat direction by 1 - {flat:.1g}")
# --8<-- [end:plateau]

# --8<-- [start:normalise]
x_scaled = (x - x.mean()) / x.std()  # inputs with mean 0 and standard deviation 1
X = torch.cat([x_scaled, torch.ones_like(x_scaled)], dim=1).double()
curvatures = torch.linalg.eigvalsh(2 * X.T @ X / len(x))
print("curvatures after normalising:", ", ".join(f"{c:.2g}" for c in curvatures.tolist()))

torch.manual_seed(0)
model = nn.Linear(1, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)  # 1000 times larger
for step in range(41):
    optimizer.zero_grad()
    loss = (model(x_scaled) - y).pow(2).mean()
    loss.backward()
    if step % 10 == 0:
        print(f"step {step:2}: loss {loss.item():.2g}")
    optimizer.step()
# --8<-- [end:normalise]

# --8<-- [start:entropy]
p = torch.tensor([0.5, 0.5, 0.0], requires_grad=True)  # a probability can be 0
terms = torch.where(p > 0, p * p.log(), 0.0)  # 0 log 0 is taken to be 0
entropy = -terms.sum()
entropy.backward()
print("entropy:", f"{entropy.item():.4f}", "| p.grad:", p.grad)
# --8<-- [end:entropy]

# --8<-- [start:fix]
p.grad = None
safe = torch.where(p > 0, p, 1.0)  # a value whose log has a finite gradient
entropy = -torch.where(p > 0, p * safe.log(), 0.0).sum()
entropy.backward()
print("entropy:", f"{entropy.item():.4f}", "| p.grad:", p.grad)
# --8<-- [end:fix]

# --8<-- [start:inf]
r = torch.tensor([0.0, 4.0], requires_grad=True)
# --8<-- [start:inf-maths]
with torch.autograd.detect_anomaly():
    r.sqrt().sum().backward()  # the slope of sqrt(r) is 1 / (2 sqrt(r)): inf at r = 0
print("gradient, under anomaly mode:", r.grad)
print("all finite:", torch.isfinite(r.grad).all().item())
# --8<-- [end:inf-maths]
# --8<-- [end:inf]

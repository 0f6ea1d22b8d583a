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
        print(f"step {step:2}: loss {loss.item():.2g}")
    optimizer.step()
# --8<-- [end:smaller-step]

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

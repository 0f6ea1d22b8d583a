"""Interview: What does create_graph=True do?
(docs/interview/what-does-create-graph-do.md)"""
# ruff: noqa: E402

# --8<-- [start:demonstration]
import torch

x = torch.tensor(2.0, requires_grad=True)
first = torch.autograd.grad(x**3, x, create_graph=True)[0]  # 3x^2 = 12
print("first:", first.item(), " grad_fn:", first.grad_fn.name())
second = torch.autograd.grad(first, x)[0]  # 6x = 12
print("second:", second.item())

plain = torch.autograd.grad(x**3, x)[0]  # the default: create_graph=False
print("without create_graph: grad_fn is", plain.grad_fn)
# --8<-- [end:demonstration]

# --8<-- [start:saved]
from torch.autograd.graph import saved_tensors_hooks

saved = []


def pack(tensor):
    """Runs for every tensor that an operation saves for a later backward pass."""
    saved.append(tensor)
    return tensor


for create_graph in (False, True):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = (torch.sin(x) * x).sum()
    saved.clear()
    with saved_tensors_hooks(pack, lambda tensor: tensor):
        torch.autograd.grad(y, x, create_graph=create_graph)
    print(f"create_graph={create_graph}: the backward pass saved {len(saved)} tensors")
# --8<-- [end:saved]

# --8<-- [start:retain-default]
x = torch.tensor(2.0, requires_grad=True)
y = x**3
torch.autograd.grad(y, x, create_graph=True)  # retain_graph defaults to create_graph: True
y.backward()  # the graph of y was kept, so a second pass through it works
print("x.grad:", x.grad.item())
# --8<-- [end:retain-default]

# --8<-- [start:silent]
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(2, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))
inputs = torch.randn(16, 2, requires_grad=True)
targets = torch.randn(16, 1)

prediction = model(inputs)
mse = ((prediction - targets) ** 2).mean()
slope = torch.autograd.grad(prediction.sum(), inputs, retain_graph=True)[0]  # no create_graph
penalty = (slope**2).sum(dim=1).mean()
weight = model[0].weight
with_penalty = torch.autograd.grad(mse + penalty, weight, retain_graph=True)[0]
mse_only = torch.autograd.grad(mse, weight)[0]
print("penalty has a grad_fn:", penalty.grad_fn is not None)
print("the penalty changed the weight's gradient:", not torch.equal(with_penalty, mse_only))
# --8<-- [end:silent]

# --8<-- [start:backward]
torch.set_warn_always(True)  # show this warning every time, not once per process
x = torch.tensor(2.0, requires_grad=True)
(x**3).backward(create_graph=True)  # x.grad = 12, with a graph
torch.set_warn_always(False)
x.grad.backward()  # adds the second derivative, 12, into the same x.grad
print("x.grad:", x.grad.item())
# --8<-- [end:backward]

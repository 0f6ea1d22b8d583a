"""Interview: x.grad.zero_() vs optimizer.zero_grad()
(docs/interview/grad-zero-vs-optimizer-zero-grad.md)"""

# --8<-- [start:tensor]
import torch
from torch import nn

x = torch.tensor(2.0, requires_grad=True)
(x**2).backward()
print("before zero_():", x.grad)  # 2x = 4
x.grad.zero_()  # in place: the same tensor, now filled with zeros
print("after zero_(): ", x.grad)
# --8<-- [end:tensor]

# --8<-- [start:fresh]
fresh = torch.tensor(1.0, requires_grad=True)
print("fresh.grad:", fresh.grad)
# --8<-- [end:fresh]

# --8<-- [start:optimizer]
torch.manual_seed(0)
model = nn.Linear(2, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)


def backward_pass() -> None:
    loss = model(torch.randn(3, 2)).pow(2).mean()
    loss.backward()


backward_pass()
print("after backward:  ", {n: tuple(p.grad.shape) for n, p in model.named_parameters()})
optimizer.zero_grad()  # every parameter the optimizer holds
print("after zero_grad():", {n: p.grad for n, p in model.named_parameters()})
# --8<-- [end:optimizer]

# --8<-- [start:zeros]
backward_pass()
optimizer.zero_grad(set_to_none=False)  # the older behaviour: fill with zeros
print({n: p.grad.tolist() for n, p in model.named_parameters()})
# --8<-- [end:zeros]

# --8<-- [start:only-its-own]
weight_only = torch.optim.SGD([model.weight], lr=0.1)  # holds the weight, not the bias
backward_pass()
weight_only.zero_grad()
print("weight.grad:", model.weight.grad)
print("bias.grad:  ", model.bias.grad)  # untouched: this optimizer does not hold it
# --8<-- [end:only-its-own]

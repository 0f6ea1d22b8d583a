"""Interview: What is the gradient of a parameter used twice?
(docs/interview/gradient-of-a-parameter-used-twice.md)"""

# --8<-- [start:twice]
import copy

import torch
from torch import nn

w = torch.tensor(3.0, requires_grad=True)
x = 2.0
# --8<-- [start:twice-maths]
loss = w * x + w**2  # w is used in two places
loss.backward()
print("w.grad:", w.grad)  # x + 2w = 2 + 6
# --8<-- [end:twice-maths]
# --8<-- [end:twice]

# --8<-- [start:per-path]
w2 = torch.tensor(3.0, requires_grad=True)
(via_product,) = torch.autograd.grad(w2 * x, w2)  # path 1: d(wx)/dw = x
(via_square,) = torch.autograd.grad(w2**2, w2)  # path 2: d(w²)/dw = 2w
print("path 1:", via_product.item(), " path 2:", via_square.item())
print("sum:   ", (via_product + via_square).item())
# --8<-- [end:per-path]

# --8<-- [start:shared-layer]
torch.manual_seed(0)
layer = nn.Linear(2, 2)
first, second = copy.deepcopy(layer), copy.deepcopy(layer)  # untied copies
inputs = torch.randn(3, 2)
# --8<-- [start:shared-layer-maths]

layer(layer(inputs)).sum().backward()  # one layer, applied twice
second(first(inputs)).sum().backward()  # two copies, each applied once

tied = layer.weight.grad
summed = first.weight.grad + second.weight.grad
print("tied gradient = sum of both uses:", torch.allclose(tied, summed))
# --8<-- [end:shared-layer-maths]
# --8<-- [end:shared-layer]

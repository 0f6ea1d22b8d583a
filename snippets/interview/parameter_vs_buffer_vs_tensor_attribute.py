"""Interview: nn.Parameter vs a plain tensor attribute vs register_buffer.

docs/interview/parameter-vs-buffer-vs-tensor-attribute.md
"""

# --8<-- [start:module]
import torch
from torch import nn


class Scaler(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(2))  # learned
        self.register_buffer("running_mean", torch.zeros(2))  # state, not learned
        self.offset = torch.ones(2)  # a plain tensor attribute

    def forward(self, x):
        return (x - self.running_mean) * self.weight + self.offset


m = Scaler()
print("parameters():", [name for name, _ in m.named_parameters()])
print("buffers():   ", [name for name, _ in m.named_buffers()])
print("state_dict():", list(m.state_dict()))
print(
    "requires_grad:", m.weight.requires_grad, m.running_mean.requires_grad, m.offset.requires_grad
)
# --8<-- [end:module]

# --8<-- [start:move]
# "meta" is a device every machine has: its tensors have a shape but no data. .to()
# moves parameters and buffers to it, as .to("cuda") would to a GPU.
m = Scaler().to("meta")
for name in ["weight", "running_mean", "offset"]:
    print(f"{name:12} on {getattr(m, name).device}")
# --8<-- [end:move]


# --8<-- [start:optimizer]
class Forgotten(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = torch.ones(2, requires_grad=True)  # meant to be learned

    def forward(self, x):
        return x * self.scale


m = Forgotten()
m(torch.tensor([3.0, 4.0])).sum().backward()
print("scale.grad:  ", m.scale.grad)  # autograd computed it
print("parameters():", list(m.parameters()))  # but the module does not list it
# --8<-- [end:optimizer]

# --8<-- [start:batchnorm]
bn = nn.BatchNorm1d(2)
print("BatchNorm1d parameters:", [name for name, _ in bn.named_parameters()])
print("BatchNorm1d buffers:   ", [name for name, _ in bn.named_buffers()])

m = nn.Module()
m.register_buffer("mask", torch.ones(2), persistent=False)
print(
    "buffers():", [name for name, _ in m.named_buffers()], "| state_dict():", list(m.state_dict())
)
# --8<-- [end:batchnorm]

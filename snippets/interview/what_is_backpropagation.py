"""Interview: What is backpropagation? (docs/interview/what-is-backpropagation.md)"""
# ruff: noqa: E402

# --8<-- [start:forward]
import torch
from torch import nn

x = torch.tensor(2.0, requires_grad=True)
y = x * 3
z = y + 4
loss = z**2  # forward pass: 2 -> 6 -> 10 -> 100

for name, tensor in [("y", y), ("z", z), ("loss", loss)]:
    print(f"{name:>4} = {tensor.item():5}  recorded by {tensor.grad_fn.name()}")
# --8<-- [end:forward]

# --8<-- [start:backward]
loss.backward()  # backward pass: from loss back to x

by_hand = 2 * z.item() * 3  # dloss/dz * dz/dy * dy/dx
print("autograd:", x.grad.item())
print("by hand: ", by_hand)
# --8<-- [end:backward]

# --8<-- [start:every-parameter]
torch.manual_seed(0)
model = nn.Linear(3, 1)  # 3 weights and 1 bias
inputs = torch.randn(8, 3)
targets = torch.randn(8, 1)

loss = ((model(inputs) - targets) ** 2).mean()
loss.backward()  # one backward pass ...

for name, param in model.named_parameters():  # ... fills every parameter's gradient
    grad = [round(g, 4) for g in param.grad.flatten().tolist()]
    print(f"{name:>6}: shape {tuple(param.shape)}, gradient {grad}")
# --8<-- [end:every-parameter]

# --8<-- [start:check]
# The same gradients from the formula for the mean squared error:
# dL/dW = 2/N * errorᵀ X and dL/db = 2/N * sum(error).
with torch.no_grad():
    error = model(inputs) - targets
    n = len(inputs)
    grad_weight = 2 / n * error.T @ inputs
    grad_bias = 2 / n * error.sum(dim=0)

print("weight matches:", torch.allclose(model.weight.grad, grad_weight))
print("bias matches:  ", torch.allclose(model.bias.grad, grad_bias))
# --8<-- [end:check]

# --8<-- [start:cost]
from torch.utils.flop_counter import FlopCounterMode


def forward_and_backward_flops(network: nn.Module, batch: torch.Tensor) -> tuple[int, int]:
    """Floating-point operations of the matrix products in each pass."""
    forward_count, backward_count = FlopCounterMode(display=False), FlopCounterMode(display=False)
    with forward_count:
        loss = network(batch).pow(2).mean()
    with backward_count:
        loss.backward()
    return forward_count.get_total_flops(), backward_count.get_total_flops()


torch.manual_seed(0)
network = nn.Sequential(
    nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10)
)
for input_needs_grad in (True, False):
    batch = torch.randn(64, 256, requires_grad=input_needs_grad)
    forward, backward = forward_and_backward_flops(network, batch)
    print(
        f"input needs grad: {input_needs_grad!s:5}  backward / forward = {backward / forward:.2f}"
    )
# --8<-- [end:cost]

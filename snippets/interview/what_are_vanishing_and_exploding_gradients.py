"""Interview: What are vanishing and exploding gradients?

Included by docs/interview/what-are-vanishing-and-exploding-gradients.md.
"""
# ruff: noqa: E402

# --8<-- [start:factor]
import torch

for name, f in [("sigmoid", torch.sigmoid), ("tanh", torch.tanh)]:
    z = torch.linspace(-6, 6, 1201, requires_grad=True)
    f(z).sum().backward()
    print(f"largest slope of {name}: {z.grad.max().item():.4f}")
# --8<-- [end:factor]

# --8<-- [start:stacks]
import copy

import torch.nn as nn


def deep_stack(activation: type[nn.Module], weight_std: float | None = None) -> nn.Sequential:
    """10 x (Linear(32, 32), activation); weights drawn with std weight_std, if given."""
    layers: list[nn.Module] = []
    for _ in range(10):
        linear = nn.Linear(32, 32)
        if weight_std is not None:  # otherwise PyTorch's default initialisation
            nn.init.normal_(linear.weight, std=weight_std)
            nn.init.zeros_(linear.bias)
        layers += [linear, activation()]
    return nn.Sequential(*layers)


def weight_grad_norms(model: nn.Sequential, inputs: torch.Tensor) -> list[float]:
    """The norm of each Linear layer's weight gradient, first layer first."""
    model.zero_grad()
    model(inputs).pow(2).mean().backward()  # any scalar loss will do for the check
    return [m.weight.grad.norm().item() for m in model if isinstance(m, nn.Linear)]


torch.manual_seed(0)
inputs = torch.randn(64, 32)
models = {
    "sigmoid": deep_stack(nn.Sigmoid),
    "tanh": deep_stack(nn.Tanh),
    "tanh, Xavier": deep_stack(nn.Tanh, weight_std=(1 / 32) ** 0.5),  # std 1/sqrt(inputs)
    "relu, std 1": deep_stack(nn.ReLU, weight_std=1.0),  # far too large for 32 inputs
}
columns = {name: weight_grad_norms(model, inputs) for name, model in models.items()}
print("layer" + "".join(f"{name:>14}" for name in columns))
for layer in range(10):
    print(f"{layer + 1:>5}" + "".join(f"{norms[layer]:14.1e}" for norms in columns.values()))
# --8<-- [end:stacks]


# --8<-- [start:clip]
exploding = models["relu, std 1"]
weight_grad_norms(exploding, inputs)  # fills .grad again
params = list(exploding.parameters())
before = torch.cat([p.grad.flatten() for p in params])

total = torch.nn.utils.clip_grad_norm_(params, max_norm=1.0)  # returns the norm before
after = torch.cat([p.grad.flatten() for p in params])
print(f"total norm before: {total:.2e}   after: {after.norm():.4f}")
print(f"same direction (cosine): {torch.cosine_similarity(before, after, dim=0):.4f}")
# --8<-- [end:clip]

# --8<-- [start:clip-value]
weight_grad_norms(exploding, inputs)
torch.nn.utils.clip_grad_value_(params, clip_value=1.0)  # clamp every entry to [-1, 1]
clamped = torch.cat([p.grad.flatten() for p in params])
print(f"clip_grad_value_: largest entry {clamped.abs().max():.1f}, norm {clamped.norm():.1f}")
print(f"same direction (cosine): {torch.cosine_similarity(before, clamped, dim=0):.4f}")
# --8<-- [end:clip-value]

# --8<-- [start:one-step]
for clip in (False, True):
    model = copy.deepcopy(models["relu, std 1"])  # the same start for both runs
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    losses = []
    for _ in range(3):
        optimizer.zero_grad()
        loss = model(inputs).pow(2).mean()
        loss.backward()
        if clip:
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        optimizer.step()
        losses.append(f"{loss.item():.3e}")
    print(f"clipping {'on ' if clip else 'off'}: losses {losses}")
# --8<-- [end:one-step]

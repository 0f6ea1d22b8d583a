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

# --8<-- [start:exploding-path]
exploding = models["relu, std 1"]
h, outputs = inputs, []
for module in exploding:  # the same forward pass as exploding(inputs), step by step
    h = module(h)
    if isinstance(module, nn.ReLU):
        h.retain_grad()  # keep dL/dh_k, the gradient arriving at this layer's output
        outputs.append(h)
exploding.zero_grad()
h.pow(2).mean().backward()
print("layer  |dL/dh_k|    |h_k|")
for k, h_k in enumerate(outputs, start=1):
    print(f"{k:>5}  {h_k.grad.norm():9.1e}  {h_k.norm():7.1e}")
# --8<-- [end:exploding-path]


# --8<-- [start:remedies]
class Residual(nn.Module):
    """A residual block: its output is its input plus what the block computes."""

    def __init__(self, block: nn.Module) -> None:
        super().__init__()
        self.block = block

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        return h + self.block(h)


def relu_layer(*between: nn.Module, kaiming: bool = False) -> nn.Sequential:
    """Linear(32, 32) with std-1 (or Kaiming) weights, the modules between, then relu."""
    linear = nn.Linear(32, 32)
    if kaiming:
        nn.init.kaiming_normal_(linear.weight, nonlinearity="relu")  # std sqrt(2 / 32)
    else:
        nn.init.normal_(linear.weight, std=1.0)
    nn.init.zeros_(linear.bias)
    return nn.Sequential(linear, *between, nn.ReLU())


def output_grad_norms(make_block) -> list[float]:
    """|dL/dh_k| at the output of each of 10 blocks made by make_block()."""
    torch.manual_seed(1)
    h, outputs = inputs, []
    for _ in range(10):
        h = make_block()(h)
        h.retain_grad()
        outputs.append(h)
    h.pow(2).mean().backward()
    return [h_k.grad.norm().item() for h_k in outputs]


remedies = {
    "sigmoid": lambda: nn.Sequential(nn.Linear(32, 32), nn.Sigmoid()),
    "sigmoid, residual": lambda: Residual(nn.Sequential(nn.Linear(32, 32), nn.Sigmoid())),
    "relu, std 1": relu_layer,
    "relu, std 1, LayerNorm": lambda: relu_layer(nn.LayerNorm(32)),
    "relu, Kaiming": lambda: relu_layer(kaiming=True),
}
print(f"{'':22}  |dL/dh_1|  |dL/dh_10|  first / last")
for name, make_block in remedies.items():
    norms = output_grad_norms(make_block)
    print(f"{name:22}  {norms[0]:9.1e}  {norms[-1]:10.1e}  {norms[0] / norms[-1]:12.2g}")
# --8<-- [end:remedies]


# --8<-- [start:clip]
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

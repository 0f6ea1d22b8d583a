"""Interview: What is the gradient of relu at zero?

Included by docs/interview/what-is-the-gradient-of-relu-at-zero.md.
"""

# --8<-- [start:relu]
import torch
import torch.nn.functional as F


def grad_at(f, values: list[float]) -> list[float]:
    """The gradient of f(x).sum() with respect to x, at each of the values."""
    x = torch.tensor(values, requires_grad=True)
    f(x).sum().backward()
    return x.grad.tolist()


points = [-1.0, 0.0, 1.0]
print("at x =", points)
print("torch.relu  ", grad_at(torch.relu, points))
print("F.relu      ", grad_at(F.relu, points))
print("nn.ReLU()   ", grad_at(torch.nn.ReLU(), points))
# --8<-- [end:relu]

# --8<-- [start:other-spellings]
spellings = {
    "x.clamp(min=0)": lambda x: x.clamp(min=0),
    "torch.where(x > 0, x, 0)": lambda x: torch.where(x > 0, x, 0.0),
    "x * (x > 0)": lambda x: x * (x > 0),
    "torch.maximum(x, 0)": lambda x: torch.maximum(x, torch.zeros_like(x)),
    "F.leaky_relu(x)": F.leaky_relu,  # negative_slope=0.01
}
for name, f in spellings.items():
    x = torch.tensor([-1.0, 0.0, 1.0])
    same_values = torch.equal(f(x), torch.relu(x))  # at -1, 0 and 1
    print(
        f"{name:<25} gradient at 0: {grad_at(f, [0.0])[0]:<5g}  same values as relu: {same_values}"
    )
# --8<-- [end:other-spellings]

# --8<-- [start:abs-and-max]
print("abs at 0:        ", grad_at(torch.abs, [0.0]))  # sign(0) = 0
print("max(), a tie:    ", grad_at(lambda x: x.max(), [2.0, 2.0, 1.0]))  # shared evenly
print("max(dim=0), tie: ", grad_at(lambda x: x.max(dim=0).values, [2.0, 2.0, 1.0]))  # one index
print("which index:     ", torch.tensor([2.0, 2.0, 1.0]).max(dim=0).indices.item())

a = torch.tensor(3.0, requires_grad=True)
b = torch.tensor(3.0, requires_grad=True)
torch.maximum(a, b).backward()  # elementwise, with a tie
print("maximum(a, b), a = b:", a.grad.item(), b.grad.item())
# --8<-- [end:abs-and-max]

# --8<-- [start:when-it-matters]
torch.manual_seed(0)
layer = torch.nn.Linear(3, 2)
torch.nn.init.zeros_(layer.bias)  # a common initialisation
padding = torch.zeros(4, 3)  # four all-zero inputs, such as padding
activations = {
    "torch.relu": torch.relu,
    "x.clamp(min=0)": lambda z: z.clamp(min=0),
    "torch.maximum(x, 0)": lambda z: torch.maximum(z, torch.zeros_like(z)),
}
for name, activation in activations.items():
    layer.zero_grad()
    pre = layer(padding)  # exactly 0 everywhere: W @ 0 + 0
    activation(pre).sum().backward()
    print(
        f"{name:<20} pre-activations all 0: {bool((pre == 0).all())}",
        f" bias.grad = {layer.bias.grad.tolist()}",
    )

z = torch.randn(1_000_000)  # a typical pre-activation: random floats
print("exact zeros among a million random pre-activations:", int((z == 0).sum()))
# --8<-- [end:when-it-matters]

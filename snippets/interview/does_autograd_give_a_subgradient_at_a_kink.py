"""Interview: Does autograd give a subgradient at a kink?

Included by docs/interview/does-autograd-give-a-subgradient-at-a-kink.md.
"""

# --8<-- [start:same-function]
import torch


def grad_at(f, values: list[float]) -> list[float]:
    """The gradient of f(x).sum() with respect to x, at each of the values."""
    x = torch.tensor(values, requires_grad=True)
    f(x).sum().backward()
    return x.grad.tolist()


def identity(x):
    return torch.relu(x) - torch.relu(-x)  # equals x exactly


def absolute(x):
    return torch.sqrt(x * x)  # |x|: exactly in float64, to one ulp in float32


points = [-1.0, 0.0, 1.0]
x = torch.tensor(points)
print("relu(x) - relu(-x) equals x:", torch.equal(identity(x), x))
print("sqrt(x * x) equals |x|:     ", torch.equal(absolute(x), x.abs()))
print("at x =", points)
print("gradient of relu(x) - relu(-x):", grad_at(identity, points))
print("gradient of sqrt(x * x):       ", grad_at(absolute, points))
print("gradient of torch.abs:         ", grad_at(torch.abs, points))
# --8<-- [end:same-function]

# --8<-- [start:single-kinks]
tie = "t(1,0,0) + (1-t)(0,1,0)"  # the subdifferential of a max at (2, 2, 1)
kinks = [
    # (operation, its kink, the subdifferential there, the function, the point)
    ("relu", "0", "[0, 1]", torch.relu, [0.0]),
    ("abs", "0", "[-1, 1]", torch.abs, [0.0]),
    ("clamp(min=0)", "0", "[0, 1]", lambda t: t.clamp(min=0), [0.0]),
    ("vector_norm", "(0, 0)", "the unit disc", torch.linalg.vector_norm, [0.0, 0.0]),
    ("max()", "(2, 2, 1)", tie, torch.max, [2.0, 2.0, 1.0]),
    ("max(dim=0)", "(2, 2, 1)", tie, lambda t: t.max(dim=0).values, [2.0, 2.0, 1.0]),
    ("maximum(a, b)", "(3, 3)", "t(1,0) + (1-t)(0,1)", lambda t: torch.maximum(*t), [3.0, 3.0]),
    ("sqrt", "0", "none: infinite slope", torch.sqrt, [0.0]),
]
print(f"{'operation':13} {'at':10} {'subdifferential':24} autograd")
for name, where, subdifferential, f, values in kinks:
    print(f"{name:13} {where:10} {subdifferential:24} {grad_at(f, values)}")
# --8<-- [end:single-kinks]

# --8<-- [start:norm]
zero = [0.0, 0.0]
print("sqrt((x**2).sum()) at 0:", grad_at(lambda t: torch.sqrt((t**2).sum()), zero))
print("vector_norm(x) at 0:    ", grad_at(torch.linalg.vector_norm, zero))
# --8<-- [end:norm]


# --8<-- [start:stuck]
def descend(start: float, steps: int = 20, lr: float = 0.1) -> float:
    """Gradient descent on (relu(x) - relu(-x) - 1)², which is (x - 1)²."""
    x = torch.tensor(start, requires_grad=True)
    for _ in range(steps):
        loss = (identity(x) - 1) ** 2
        (g,) = torch.autograd.grad(loss, x)
        with torch.no_grad():
            x -= lr * g
    return x.item()


print("start at 0:    x after 20 steps =", round(descend(0.0), 4))
print("start at 0.001: x after 20 steps =", round(descend(0.001), 4))
# --8<-- [end:stuck]

# --8<-- [start:probability]
torch.manual_seed(0)
x = torch.randn(1_000_000, requires_grad=True)  # continuous random inputs
identity(x).sum().backward()
misses = int((x.grad != 1).sum())
print("random float32 inputs where relu(x) - relu(-x) gets a gradient other than 1:", misses)

a, b = torch.randn(1_000_000), torch.randn(1_000_000)  # a million pairs of values
for dtype in (torch.float64, torch.float32, torch.float16, torch.bfloat16):
    ties = int((a.to(dtype) == b.to(dtype)).sum())  # the kink of maximum(a, b)
    print(f"{dtype!s:15} pairs rounded to the same value: {ties}")
# --8<-- [end:probability]

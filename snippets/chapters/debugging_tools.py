"""Examples for the chapter "Debugging tools".

Each region is included by docs/chapters/debugging-tools.md. The file also runs top to
bottom on its own: `python snippets/chapters/debugging_tools.py`. The calls that fail on
purpose live in the page, in `raises=` blocks. tests/maths/test_debugging_tools.py
imports `central_difference`, `sigmoid_chain` and `Cube` from here.

A region named ``<name>-maths`` lies inside region ``<name>`` and holds its computation
without the input the page gives it, so that tests/maths can run the page's own code on
inputs of its own. The page never shows these markers.
"""

# --8<-- [start:hook]
from collections.abc import Callable

import torch
import torch.nn.functional as F
from torch import nn

x = torch.tensor(2.0, requires_grad=True)
# --8<-- [start:hook-maths]
y = x * 3
# The hook runs during backward(), with the gradient that arrives at y.
handle = y.register_hook(lambda grad: print("gradient arriving at y:", grad))
loss = y**2
loss.backward()
print("x.grad:", x.grad)
handle.remove()  # hooks stay until removed
# --8<-- [end:hook-maths]
# --8<-- [end:hook]

# --8<-- [start:hook-modify]
x = torch.tensor(2.0, requires_grad=True)
# --8<-- [start:hook-modify-maths]
y = x * 3
# A hook that returns a tensor replaces the gradient with it.
y.register_hook(lambda grad: grad.clamp(max=5.0))
loss = y**2
loss.backward()
print("x.grad with the clamp:", x.grad)
# --8<-- [end:hook-modify-maths]
# --8<-- [end:hook-modify]

# --8<-- [start:parameter-norms]
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
inputs, targets = torch.randn(16, 4), torch.randn(16, 1)

# --8<-- [start:parameter-norms-maths]
loss = F.mse_loss(model(inputs), targets)
loss.backward()

for name, param in model.named_parameters():
    print(f"{name:9} {tuple(param.shape)!s:7} grad norm {param.grad.norm():.4f}")
total = torch.nn.utils.get_total_norm([p.grad for p in model.parameters()])  # PyTorch 2.6+
print(f"total grad norm {total:.4f}")
# --8<-- [end:parameter-norms-maths]
# --8<-- [end:parameter-norms]

# --8<-- [start:total-norm-by-hand]
# The same total on any PyTorch version: the square root of the sum of squared norms.
by_hand = torch.stack([p.grad.norm() for p in model.parameters()]).pow(2).sum().sqrt()
print(f"total grad norm {by_hand:.4f} (by hand)")
# --8<-- [end:total-norm-by-hand]


# --8<-- [start:sigmoid-chain]
def sigmoid_chain(weights: list[float], bias: float, start: float) -> list[float]:
    """h_k = sigmoid(w_k * h_(k-1) + b); return dh_L/dh_k for k = 0 .. L, from the input."""
    h = torch.tensor(start, dtype=torch.float64, requires_grad=True)
    layers = [h]
    for weight in weights:
        h = torch.sigmoid(weight * h + bias)
        h.retain_grad()  # keep the gradient that arrives at every layer
        layers.append(h)
    h.backward()
    return [layer.grad.item() for layer in layers]


# (weight, bias): with b = -w/2 and a start of 0.5, every z_k is 0, where sigmoid' = 1/4.
chains = [(1.0, -0.5), (4.0, -2.0), (8.0, -4.0), (8.0, 0.0)]
columns = [sigmoid_chain([w] * 8, bias=b, start=0.5) for w, b in chains]
print("layer " + "".join(f"{f'w={w:g}, b={b:g}':>14}" for w, b in chains))
for layer, grads in enumerate(zip(*columns, strict=True)):
    print(f"{layer:>5} " + "".join(f"{grad:14.3g}" for grad in grads))
# --8<-- [end:sigmoid-chain]


# --8<-- [start:deep-stacks]
def deep_stack(
    activation: type[nn.Module],
    weight_std: float | None = None,
) -> nn.Sequential:
    """8 x (Linear(32, 32), activation); weights with std `weight_std`, if given."""
    layers: list[nn.Module] = []
    for _ in range(8):
        linear = nn.Linear(32, 32)
        if weight_std is not None:  # otherwise keep PyTorch's default initialisation
            nn.init.normal_(linear.weight, std=weight_std)
            nn.init.zeros_(linear.bias)
        layers += [linear, activation()]
    return nn.Sequential(*layers)


def layer_grad_norms(model: nn.Sequential, inputs: torch.Tensor) -> list[float]:
    """Gradient norm of each Linear layer's weight, first layer first."""
    model.zero_grad()
    model(inputs).pow(2).mean().backward()  # any scalar will do for a health check
    return [m.weight.grad.norm().item() for m in model if isinstance(m, nn.Linear)]


torch.manual_seed(0)
inputs = torch.randn(64, 32)
sigmoid_stack = deep_stack(nn.Sigmoid)
too_large = deep_stack(nn.ReLU, weight_std=1.0)
kaiming = deep_stack(nn.ReLU, weight_std=(2 / 32) ** 0.5)  # Kaiming: sqrt(2 / inputs)

columns = [layer_grad_norms(m, inputs) for m in (sigmoid_stack, too_large, kaiming)]
print("layer   sigmoid   std=1.0   kaiming")
for layer, norms in enumerate(zip(*columns, strict=True), start=1):
    print(f"{layer:>5} " + " ".join(f"{norm:9.1e}" for norm in norms))
# --8<-- [end:deep-stacks]


# --8<-- [start:two-factors]
def weight_grad_factors(model: nn.Sequential, inputs: torch.Tensor) -> None:
    """Per Linear layer: print the norm of its input and of its output's gradient."""
    layer_inputs, layer_outputs = [], []
    h = inputs
    for module in model:
        if isinstance(module, nn.Linear):
            layer_inputs.append(h)
            h = module(h)
            h.retain_grad()  # keep the gradient that arrives at this layer's output
            layer_outputs.append(h)
        else:
            h = module(h)
    h.pow(2).mean().backward()  # the same scalar as in layer_grad_norms

    print("layer  input norm  gradient at output")
    pairs = zip(layer_inputs, layer_outputs, strict=True)
    for layer, (layer_input, output) in enumerate(pairs, start=1):
        print(f"{layer:>5} {layer_input.norm():11.1e} {output.grad.norm():19.1e}")


weight_grad_factors(too_large, inputs)
# --8<-- [end:two-factors]

# --8<-- [start:clipping]
layer_grad_norms(too_large, inputs)  # fills .grad with exploding gradients
params = list(too_large.parameters())

before = torch.nn.utils.clip_grad_norm_(params, max_norm=1.0)  # returns the norm before
after = torch.stack([p.grad.norm() for p in params]).pow(2).sum().sqrt()
print(f"total grad norm before clipping: {before:.3e}")
print(f"total grad norm after clipping:  {after:.4f}")
# --8<-- [end:clipping]

# --8<-- [start:silent-nan]
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([1.0, 2.0])  # the same point
distance = torch.sqrt((a - b).pow(2).sum())
distance.backward()

print("distance:", distance.item())
print("a.grad:", a.grad)
# --8<-- [end:silent-nan]

# --8<-- [start:nan-fix]
a.grad = None
distance = torch.linalg.vector_norm(a - b)  # defines the gradient at 0 as 0
distance.backward()
print("a.grad with vector_norm:      ", a.grad)

a.grad = None
distance = torch.sqrt((a - b).pow(2).sum() + 1e-12)  # the slope at 0 is now finite
distance.backward()
print("a.grad with sqrt(... + 1e-12):", a.grad)
# --8<-- [end:nan-fix]

# --8<-- [start:inplace-saved]
x = torch.tensor([-1.0, 0.0, 2.0], requires_grad=True)
s = torch.sigmoid(x)  # the backward of sigmoid needs its output: s * (1 - s)
print("s:", s)
print("saved by", s.grad_fn.name(), "->", s.grad_fn._saved_result)
print("version of s before mul_():", s._version)
s.mul_(2)  # in place: changes the very tensor the graph saved
print("version of s after mul_(): ", s._version)
# --8<-- [end:inplace-saved]

# --8<-- [start:inplace-out-of-place]
x = torch.tensor([-1.0, 0.0, 2.0], requires_grad=True)
# --8<-- [start:inplace-out-of-place-maths]
s = torch.sigmoid(x)
doubled = s * 2  # a new tensor; the saved s is left alone
doubled.sum().backward()
print("x.grad:", x.grad)
with torch.no_grad():  # a plain value to compare with, not part of the graph
    print("by hand, 2 s (1 - s):", 2 * s * (1 - s))
# --8<-- [end:inplace-out-of-place-maths]
# --8<-- [end:inplace-out-of-place]

# --8<-- [start:inplace-clone]
x = torch.tensor([-1.0, 0.0, 2.0], requires_grad=True)
s = torch.sigmoid(x)
doubled = s.clone()  # a copy that nothing saved
doubled.mul_(2)  # in place on the copy: allowed
doubled.sum().backward()
print("x.grad:", x.grad)
# --8<-- [end:inplace-clone]

# --8<-- [start:inplace-not-saved]
x = torch.tensor([-1.0, 0.0, 2.0], requires_grad=True)
a = x + 1  # the derivative of x + 1 is 1: AddBackward0 saves no tensor
a.mul_(2)  # in place, and recorded in the graph like any operation
print("a:", a)
a.sum().backward()
print("x.grad:", x.grad)
# --8<-- [end:inplace-not-saved]


# --8<-- [start:central-difference]
def central_difference(
    f: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor, h: float
) -> torch.Tensor:
    """Estimate f'(x) from two nearby values: (f(x + h) - f(x - h)) / 2h."""
    return (f(x + h) - f(x - h)) / (2 * h)


def f(t: torch.Tensor) -> torch.Tensor:
    return torch.sin(t) * torch.exp(t)


x = torch.tensor(1.0, dtype=torch.float64, requires_grad=True)  # float64: see below
f(x).backward()
estimate = central_difference(f, x.detach(), h=1e-2)
print(f"autograd:           {x.grad.item():.7f}")
print(f"central difference: {estimate.item():.7f}")
print(f"difference:         {(estimate - x.grad).item():.2e}")
# --8<-- [end:central-difference]

# --8<-- [start:float32-vs-float64]
# The exact derivative of sin(t) e^t is e^t (sin t + cos t); computed in float64.
one = torch.tensor(1.0, dtype=torch.float64)
exact = torch.exp(one) * (torch.sin(one) + torch.cos(one))

print("     h   error float32   error float64")
for h in (1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7):
    errors = [
        (central_difference(f, one.to(dtype), h).double() - exact).abs().item()
        for dtype in (torch.float32, torch.float64)
    ]
    print(f"{h:6.0e} {errors[0]:15.2e} {errors[1]:15.2e}")
# --8<-- [end:float32-vs-float64]


# --8<-- [start:cube]
class Cube(torch.autograd.Function):
    """y = x³, with a backward written by hand."""

    @staticmethod
    def forward(ctx: torch.autograd.function.FunctionCtx, x: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx: torch.autograd.function.FunctionCtx, grad: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        return grad * 3 * x**2  # dy/dx = 3x², times the gradient arriving at y


torch.manual_seed(0)
x = torch.randn(3, dtype=torch.float64, requires_grad=True)
print("gradcheck passed:", torch.autograd.gradcheck(Cube.apply, (x,)))
# --8<-- [end:cube]


# --8<-- [start:wrong-cube]
class WrongCube(Cube):
    """The same forward, and a backward with a mistake in it."""

    @staticmethod
    def backward(ctx: torch.autograd.function.FunctionCtx, grad: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        return grad * 2 * x**2  # wrong: the power rule gives 3x², not 2x²


# --8<-- [end:wrong-cube]

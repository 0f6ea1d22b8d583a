"""Examples for the chapter "Debugging gradients".

Each region is included by docs/chapters/debugging-gradients.md. The file also runs
top to bottom on its own: `python snippets/chapters/debugging_gradients.py` (PyTorch's
warnings then go to the terminal). The calls that fail on purpose live in the page,
in `raises=` blocks.
"""

# --8<-- [start:inspect]
import torch
import torch.nn.functional as F
from torch import nn

x = torch.tensor(3.0, requires_grad=True)
y = x**2

print("x.grad before backward():", x.grad)
y.backward()
print("x.grad after backward(): ", x.grad)
# --8<-- [end:inspect]

# --8<-- [start:twice]
x = torch.tensor(2.0, requires_grad=True)
y = x**2
y.backward()  # uses the graph, then frees what it saved
print("after the first backward():", x.grad)
# --8<-- [end:twice]

# --8<-- [start:twice-fix]
x.grad.zero_()
y = x**2  # a new forward pass records a new graph
y.backward()
print("after a new forward pass and backward():", x.grad)
# --8<-- [end:twice-fix]

# --8<-- [start:no-zero]
w = torch.tensor(1.0, requires_grad=True)

for batch in range(1, 4):
    loss = (w * 2 - 10) ** 2  # the same model and data every time
    loss.backward()
    print(f"batch {batch}: w.grad = {w.grad.item()}")
# --8<-- [end:no-zero]

# --8<-- [start:no-zero-fix]
w = torch.tensor(1.0, requires_grad=True)
optimizer = torch.optim.SGD([w], lr=0.01)

for batch in range(1, 4):
    optimizer.zero_grad()  # first thing in every iteration
    loss = (w * 2 - 10) ** 2
    loss.backward()
    print(f"batch {batch}: w.grad = {w.grad.item()}")
# --8<-- [end:no-zero-fix]


# --8<-- [start:no-zero-training]
def train(clear_gradients: bool, steps: int) -> list[float]:
    """Fit w*2 + b to 10 with SGD; return the loss of every step."""
    w = torch.tensor(1.0, requires_grad=True)
    b = torch.tensor(0.0, requires_grad=True)
    optimizer = torch.optim.SGD([w, b], lr=0.01)
    losses = []
    for _ in range(steps):
        if clear_gradients:
            optimizer.zero_grad()
        loss = (w * 2 + b - 10) ** 2
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


with_clearing = train(clear_gradients=True, steps=12)
without_clearing = train(clear_gradients=False, steps=12)
print("step  with zero_grad()  without")
for step, (good, bad) in enumerate(zip(with_clearing, without_clearing, strict=True), 1):
    print(f"{step:>4} {good:16.4f} {bad:8.4f}")
# --8<-- [end:no-zero-training]

# --8<-- [start:non-scalar]
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x**2  # three numbers, not one
print("y:", y)
# --8<-- [end:non-scalar]

# --8<-- [start:non-scalar-fix]
y.sum().backward()  # fix 1: reduce to one number first
print("with sum():", x.grad)

x.grad.zero_()
y = x**2
y.backward(torch.ones_like(y))  # fix 2: say how to weight each element
print("with ones_like(y):", x.grad)
# --8<-- [end:non-scalar-fix]

# --8<-- [start:too-early]
w = torch.tensor(3.0, requires_grad=True)
loss = (w * 2 - 10) ** 2
print("w.grad before backward():", w.grad)
# --8<-- [end:too-early]

# --8<-- [start:too-early-fix]
loss.backward()
print("w.grad after backward(): ", w.grad.item())
# --8<-- [end:too-early-fix]

# --8<-- [start:non-leaf]
x = torch.tensor(2.0, requires_grad=True)
y = x * 3  # made by an operation: not a leaf
loss = y**2
loss.backward()

print("x.grad:", x.grad)
print("y.grad:", y.grad)
# --8<-- [end:non-leaf]

# --8<-- [start:non-leaf-fix]
x = torch.tensor(2.0, requires_grad=True)
y = x * 3
y.retain_grad()  # before backward(): ask autograd to keep dloss/dy
loss = y**2
loss.backward()

print("x.grad:", x.grad)
print("y.grad:", y.grad)
# --8<-- [end:non-leaf-fix]


# --8<-- [start:saved-counter]
class Saved:
    """Wraps each tensor autograd saves for backward, and counts how many are alive."""

    alive = 0

    def __init__(self, tensor: torch.Tensor) -> None:
        self.tensor = tensor
        Saved.alive += 1

    def __del__(self) -> None:  # runs when the graph lets go of the tensor
        Saved.alive -= 1


def unpack(saved: Saved) -> torch.Tensor:
    return saved.tensor


def saved_tensors_after_training(retain_graph: bool) -> list[int]:
    """Train for 5 steps, keeping every loss; count the saved tensors after each step."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(100, 100), nn.ReLU(), nn.Linear(100, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    losses, alive = [], []
    with torch.autograd.graph.saved_tensors_hooks(Saved, unpack):
        for _ in range(5):
            optimizer.zero_grad()
            inputs, targets = torch.randn(64, 100), torch.randn(64, 1)
            loss = F.mse_loss(model(inputs), targets)
            loss.backward(retain_graph=retain_graph)
            optimizer.step()
            losses.append(loss)  # the loss tensor keeps its graph reachable
            alive.append(Saved.alive)
    return alive


# --8<-- [end:saved-counter]

# --8<-- [start:retain-everywhere]
print("saved tensors alive, step by step")
print("without retain_graph:", saved_tensors_after_training(retain_graph=False))
print("with retain_graph:   ", saved_tensors_after_training(retain_graph=True))
# --8<-- [end:retain-everywhere]

# --8<-- [start:retain-hides-bug]
x = torch.tensor(2.0, requires_grad=True)
y = x**2
y.backward(retain_graph=True)
y.backward(retain_graph=True)  # a mistake, but nothing stops it
print("x.grad:", x.grad, "(dy/dx is 4)")
# --8<-- [end:retain-hides-bug]

# --8<-- [start:hook]
x = torch.tensor(2.0, requires_grad=True)
y = x * 3
# The hook runs during backward(), with the gradient that arrives at y.
handle = y.register_hook(lambda grad: print("gradient arriving at y:", grad))
loss = y**2
loss.backward()
print("x.grad:", x.grad)
handle.remove()  # hooks stay until removed
# --8<-- [end:hook]

# --8<-- [start:hook-modify]
x = torch.tensor(2.0, requires_grad=True)
y = x * 3
# A hook that returns a tensor replaces the gradient with it.
y.register_hook(lambda grad: grad.clamp(max=5.0))
loss = y**2
loss.backward()
print("x.grad with the clamp:", x.grad)
# --8<-- [end:hook-modify]

# --8<-- [start:parameter-norms]
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
inputs, targets = torch.randn(16, 4), torch.randn(16, 1)

loss = F.mse_loss(model(inputs), targets)
loss.backward()

for name, param in model.named_parameters():
    print(f"{name:9} {tuple(param.shape)!s:7} grad norm {param.grad.norm():.4f}")
total = torch.nn.utils.get_total_norm([p.grad for p in model.parameters()])
print(f"total grad norm {total:.4f}")
# --8<-- [end:parameter-norms]


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
print("a.grad:", a.grad)
# --8<-- [end:nan-fix]

# --8<-- [start:clipping]
layer_grad_norms(too_large, inputs)  # fills .grad with exploding gradients
params = list(too_large.parameters())

before = torch.nn.utils.clip_grad_norm_(params, max_norm=1.0)  # returns the norm before
after = torch.nn.utils.get_total_norm([p.grad for p in params])
print(f"total grad norm before clipping: {before:.3e}")
print(f"total grad norm after clipping:  {after:.4f}")
# --8<-- [end:clipping]

"""Examples for the chapter "Leaf tensors, non-leaf tensors and retain_grad()".

Each region is included by docs/chapters/leaf-tensors.md. The file also runs top
to bottom on its own: `python snippets/chapters/leaf_tensors.py` (PyTorch's
warning then goes to the terminal). The call that fails on purpose lives in the
page, in a `raises=` block.

A region named ``<name>-maths`` lies inside region ``<name>`` and holds its computation
without the input the page gives it, so that tests/maths can run the page's own code on
inputs of its own. The page never shows these markers.
"""

# --8<-- [start:describe]
import torch


def describe(name: str, t: torch.Tensor) -> None:
    """Print the three attributes that tell leaves and non-leaves apart."""
    node = t.grad_fn.name() if t.grad_fn is not None else None  # the node's name
    flags = f"is_leaf={t.is_leaf}, requires_grad={t.requires_grad}"
    print(f"{name}: {flags}, grad_fn={node}")


# --8<-- [end:describe]


# --8<-- [start:leaf]
x = torch.tensor(2.0, requires_grad=True)  # created by you
# --8<-- [start:leaf-maths]
y = x * 3  # created by an operation

describe("x", x)
describe("y", y)
# --8<-- [end:leaf-maths]
# --8<-- [end:leaf]

# --8<-- [start:created-by]
torch.manual_seed(0)

data = torch.tensor([1.0, 2.0])  # created by you, no gradient wanted
weights = torch.randn(2, requires_grad=True)  # created by you, gradient wanted
scaled_data = data * 2  # an operation, but nothing in it needs a gradient
scaled_weights = weights * 2  # an operation on a tensor that needs a gradient
layer = torch.nn.Linear(2, 1)  # a layer creates its parameters for you
# Computed first, and only then asked to require grad: nothing was recorded.
small_init = (torch.randn(3) * 0.01).requires_grad_()

describe("data", data)
describe("weights", weights)
describe("scaled_data", scaled_data)
describe("scaled_weights", scaled_weights)
describe("layer.weight", layer.weight)
describe("small_init", small_init)
# --8<-- [end:created-by]

# --8<-- [start:grad-leaf-only]
x = torch.tensor(2.0, requires_grad=True)
# --8<-- [start:grad-leaf-only-maths]
y = x * 3
loss = y**2
loss.backward()

print("x.grad:", x.grad)
print("y.grad:", y.grad)
# --8<-- [end:grad-leaf-only-maths]
# --8<-- [end:grad-leaf-only]

# --8<-- [start:retain-grad]
x = torch.tensor(2.0, requires_grad=True)
# --8<-- [start:retain-grad-maths]
y = x * 3
y.retain_grad()  # ask for y's gradient, before backward()
loss = y**2
loss.backward()

print("y.grad:", y.grad)
print("x.grad:", x.grad)
describe("y", y)  # retain_grad() does not turn y into a leaf
# --8<-- [end:retain-grad-maths]
# --8<-- [end:retain-grad]

# --8<-- [start:too-late]
x = torch.tensor(2.0, requires_grad=True)
# --8<-- [start:too-late-maths]
y = x * 3
loss = y**2
loss.backward()
y.retain_grad()  # too late: the backward pass has already run

print("y.grad:", y.grad)
# --8<-- [end:too-late-maths]
# --8<-- [end:too-late]

# --8<-- [start:retain-graph]
x = torch.tensor(2.0, requires_grad=True)
# --8<-- [start:retain-graph-maths]
y = x * 3
y.retain_grad()
loss = y**2

loss.backward(retain_graph=True)  # keep the graph for one more pass
print("after pass 1: y.grad =", y.grad, "| x.grad =", x.grad)

loss.backward()  # the last pass may free the graph
print("after pass 2: y.grad =", y.grad, "| x.grad =", x.grad)
# --8<-- [end:retain-graph-maths]
# --8<-- [end:retain-graph]

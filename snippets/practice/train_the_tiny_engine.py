"""Exercise D.6: train the tiny engine. Run it: python snippets/practice/train_the_tiny_engine.py"""
# Each region is a self-contained cell (page, notebook), so the engine and imports repeat.
# ruff: noqa: E402, F811

# --8<-- [start:starter]
import random


class Value:
    """A compact version of the chapter's engine, with what a small MLP needs."""

    def __init__(self, data, parents=(), op=""):
        self.data, self.grad, self.parents, self.op = float(data), 0.0, parents, op
        self.local_backward = lambda: None

    def __repr__(self):
        return f"Value(data={self.data:.6g}, grad={self.grad:.6g})"

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data + other.data, (self, other), "+")

        def local_backward():
            self.grad += out.grad
            other.grad += out.grad

        out.local_backward = local_backward
        return out

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data * other.data, (self, other), "*")

        def local_backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad

        out.local_backward = local_backward
        return out

    def relu(self):
        out = Value(max(self.data, 0.0), (self,), "relu")

        def local_backward():
            self.grad += (1.0 if self.data > 0 else 0.0) * out.grad

        out.local_backward = local_backward
        return out

    __radd__ = __add__
    __rmul__ = __mul__

    def __neg__(self):
        return self * -1

    def __sub__(self, other):
        return self + (-other)

    def __rsub__(self, other):
        return (-self) + other

    def __truediv__(self, n):  # division by a plain number only
        return self * (1 / n)

    def backward(self):
        order, visited, stack = [], set(), [(self, False)]
        while stack:  # a depth-first search with its own stack
            node, parents_listed = stack.pop()
            if parents_listed:
                order.append(node)
            elif node not in visited:
                visited.add(node)
                stack.append((node, True))
                stack.extend((parent, False) for parent in node.parents)
        for node in order:
            if node.parents:
                node.grad = 0.0  # intermediate gradients belong to this pass; leaves add up
        self.grad = 1.0
        for node in reversed(order):
            node.local_backward()


class Module:
    def parameters(self):
        return []

    def zero_grad(self): ...  # replace ...: set the gradient of every parameter to 0


class Neuron(Module):
    def __init__(self, n_inputs, rng, nonlinear=True):
        self.w = [Value(rng.uniform(-1, 1)) for _ in range(n_inputs)]
        self.b = Value(0.0)
        self.nonlinear = nonlinear

    def __call__(self, x):
        z = sum(wi * xi for wi, xi in zip(self.w, x, strict=True)) + self.b
        return z.relu() if self.nonlinear else z

    def parameters(self):
        return [*self.w, self.b]


class Layer(Module):
    def __init__(self, n_inputs, n_outputs, rng, nonlinear=True):
        self.neurons = [Neuron(n_inputs, rng, nonlinear) for _ in range(n_outputs)]

    def __call__(self, x):
        return [neuron(x) for neuron in self.neurons]

    def parameters(self):
        return [p for neuron in self.neurons for p in neuron.parameters()]


class MLP(Module):
    def __init__(self, n_inputs, sizes, seed=0):
        rng = random.Random(seed)
        dims = [n_inputs, *sizes]
        self.layers = [
            Layer(dims[i], dims[i + 1], rng, nonlinear=i < len(sizes) - 1)
            for i in range(len(sizes))
        ]

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x[0]  # the one output neuron's score

    def parameters(self):
        return [p for layer in self.layers for p in layer.parameters()]


def xor_clusters(n_per_cluster, noise, seed=0):
    """Points around (±1, ±1); the label is the sign of x * y."""
    rng = random.Random(seed)
    points, labels = [], []
    for _ in range(n_per_cluster):
        for cx, cy in [(1, 1), (-1, -1), (1, -1), (-1, 1)]:
            points.append([cx + rng.gauss(0, noise), cy + rng.gauss(0, noise)])
            labels.append(1 if cx * cy > 0 else -1)
    return points, labels


def hinge_loss(model, points, labels):
    """The mean of max(0, 1 - y * score) over the points."""
    losses = [(1 - y * model(x)).relu() for x, y in zip(points, labels, strict=True)]
    return sum(losses) / len(losses)


def train_step(model, points, labels, lr):
    """One step of gradient descent on the hinge loss; returns the loss before the step."""
    loss = hinge_loss(model, points, labels)
    ...  # replace ...: clear the gradients, run the backward pass, update every parameter
    return loss.data


# When both work, train: the loss should reach 0 within 40 steps.
# model = MLP(2, [4, 4, 1], seed=0)
# points, labels = xor_clusters(5, noise=0.35, seed=0)
# for step in range(41):
#     loss = train_step(model, points, labels, lr=0.2)
#     if step % 10 == 0:
#         print(f"step {step:2}  loss {loss:.4f}")
# --8<-- [end:starter]

# --8<-- [start:solution]
import random


class Value:
    """A compact version of the chapter's engine, with what a small MLP needs."""

    def __init__(self, data, parents=(), op=""):
        self.data, self.grad, self.parents, self.op = float(data), 0.0, parents, op
        self.local_backward = lambda: None

    def __repr__(self):
        return f"Value(data={self.data:.6g}, grad={self.grad:.6g})"

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data + other.data, (self, other), "+")

        def local_backward():
            self.grad += out.grad
            other.grad += out.grad

        out.local_backward = local_backward
        return out

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data * other.data, (self, other), "*")

        def local_backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad

        out.local_backward = local_backward
        return out

    def relu(self):
        out = Value(max(self.data, 0.0), (self,), "relu")

        def local_backward():
            self.grad += (1.0 if self.data > 0 else 0.0) * out.grad

        out.local_backward = local_backward
        return out

    __radd__ = __add__
    __rmul__ = __mul__

    def __neg__(self):
        return self * -1

    def __sub__(self, other):
        return self + (-other)

    def __rsub__(self, other):
        return (-self) + other

    def __truediv__(self, n):  # division by a plain number only
        return self * (1 / n)

    def backward(self):
        order, visited, stack = [], set(), [(self, False)]
        while stack:  # a depth-first search with its own stack
            node, parents_listed = stack.pop()
            if parents_listed:
                order.append(node)
            elif node not in visited:
                visited.add(node)
                stack.append((node, True))
                stack.extend((parent, False) for parent in node.parents)
        for node in order:
            if node.parents:
                node.grad = 0.0  # intermediate gradients belong to this pass; leaves add up
        self.grad = 1.0
        for node in reversed(order):
            node.local_backward()


class Module:
    def parameters(self):
        return []

    def zero_grad(self):
        for p in self.parameters():
            p.grad = 0.0  # the gradient only: the value p.data stays


class Neuron(Module):
    def __init__(self, n_inputs, rng, nonlinear=True):
        self.w = [Value(rng.uniform(-1, 1)) for _ in range(n_inputs)]
        self.b = Value(0.0)
        self.nonlinear = nonlinear

    def __call__(self, x):
        z = sum(wi * xi for wi, xi in zip(self.w, x, strict=True)) + self.b
        return z.relu() if self.nonlinear else z

    def parameters(self):
        return [*self.w, self.b]


class Layer(Module):
    def __init__(self, n_inputs, n_outputs, rng, nonlinear=True):
        self.neurons = [Neuron(n_inputs, rng, nonlinear) for _ in range(n_outputs)]

    def __call__(self, x):
        return [neuron(x) for neuron in self.neurons]

    def parameters(self):
        return [p for neuron in self.neurons for p in neuron.parameters()]


class MLP(Module):
    def __init__(self, n_inputs, sizes, seed=0):
        rng = random.Random(seed)
        dims = [n_inputs, *sizes]
        self.layers = [
            Layer(dims[i], dims[i + 1], rng, nonlinear=i < len(sizes) - 1)
            for i in range(len(sizes))
        ]

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x[0]  # the one output neuron's score

    def parameters(self):
        return [p for layer in self.layers for p in layer.parameters()]


def xor_clusters(n_per_cluster, noise, seed=0):
    """Points around (±1, ±1); the label is the sign of x * y."""
    rng = random.Random(seed)
    points, labels = [], []
    for _ in range(n_per_cluster):
        for cx, cy in [(1, 1), (-1, -1), (1, -1), (-1, 1)]:
            points.append([cx + rng.gauss(0, noise), cy + rng.gauss(0, noise)])
            labels.append(1 if cx * cy > 0 else -1)
    return points, labels


def hinge_loss(model, points, labels):
    """The mean of max(0, 1 - y * score) over the points."""
    losses = [(1 - y * model(x)).relu() for x, y in zip(points, labels, strict=True)]
    return sum(losses) / len(losses)


def train_step(model, points, labels, lr):
    """One step of gradient descent on the hinge loss; returns the loss before the step."""
    loss = hinge_loss(model, points, labels)
    model.zero_grad()  # first: the leaves would otherwise add to the last step's gradients
    loss.backward()
    for p in model.parameters():
        p.data -= lr * p.grad  # against the gradient
    return loss.data


model = MLP(2, [4, 4, 1], seed=0)
points, labels = xor_clusters(5, noise=0.35, seed=0)
for step in range(41):
    loss = train_step(model, points, labels, lr=0.2)
    if step % 10 == 0:
        print(f"step {step:2}  loss {loss:.4f}")
right = sum((model(x).data > 0) == (y > 0) for x, y in zip(points, labels, strict=True))
print(f"{right} of {len(points)} points classified right")
# --8<-- [end:solution]

# --8<-- [start:check]
# Checks zero_grad on its own, then three calls of train_step against the same network
# trained by PyTorch (float64) from the same weights. If the weights differ, it also
# trains PyTorch's copy the usual wrong ways, to say which mistake yours matches.
import torch


def torch_run(start: list, points: list, labels: list, lr: float, steps: int, mode: str) -> tuple:
    """Train the network's copy in PyTorch; return the losses and the final weights."""
    layers = [
        (
            torch.tensor(w, dtype=torch.float64, requires_grad=True),
            torch.tensor(b, dtype=torch.float64, requires_grad=True),
        )
        for w, b in start
    ]
    X = torch.tensor(points, dtype=torch.float64)
    y = torch.tensor(labels, dtype=torch.float64)
    params = [t for pair in layers for t in pair]
    losses = []
    for _ in range(steps):
        h = X
        for i, (W, b) in enumerate(layers):
            h = h @ W.T + b
            h = torch.relu(h) if i < len(layers) - 1 else h
        loss = torch.relu(1 - y * h[:, 0]).mean()
        losses.append(loss.item())
        if mode != "no zero_grad":
            for p in params:
                p.grad = None
        loss.backward()
        with torch.no_grad():
            for p in params:
                p += lr * p.grad if mode == "ascent" else -lr * p.grad
    flat = []  # in the order of model.parameters(): per neuron, its w then its b
    for W, b in layers:
        for row in range(W.shape[0]):
            flat += [*W[row].tolist(), b[row].item()]
    return losses, flat


def check() -> str:
    names = ("Value", "MLP", "xor_clusters", "train_step")
    found = {name: globals().get(name) for name in names}
    if not all(callable(f) for f in found.values()):
        return "Not done yet: run the cell above first; it defines Value, MLP and train_step."
    value_class, mlp_class = found["Value"], found["MLP"]

    # 1. zero_grad alone.
    model = mlp_class(2, [3, 1], seed=1)
    params = model.parameters()
    values = [p.data for p in params]
    for p in params:
        p.grad = 1.5
    model.zero_grad()
    if any(p.data != v for p, v in zip(params, values, strict=True)):
        return (
            "Not quite: zero_grad() should leave the parameters' values alone, expected"
            " p.data unchanged, got new values: set p.grad to 0, not p.data."
        )
    if all(p.grad == 1.5 for p in params):
        return "Not done yet: zero_grad() does not clear the gradients yet; replace the ... in it."
    if any(p.grad is None for p in params):
        return (
            "Not quite: zero_grad() should set every gradient to 0, expected p.grad == 0.0,"
            " got None. PyTorch can use None, but this engine adds into p.grad with +=,"
            " which fails on None: set p.grad = 0.0."
        )
    cleared = sum(p.grad == 0 for p in params)
    if cleared != len(params):
        return (
            f"Not quite: zero_grad() should set every gradient to 0, expected"
            f" {len(params)} cleared, got {cleared}: loop over all of self.parameters()."
        )

    # 2. three training steps, next to PyTorch.
    model = mlp_class(2, [4, 4, 1], seed=0)
    start = [
        ([[w.data for w in n.w] for n in layer.neurons], [n.b.data for n in layer.neurons])
        for layer in model.layers
    ]
    points, labels = found["xor_clusters"](5, noise=0.35, seed=0)
    lr, steps = 0.2, 3
    original_backward, calls = value_class.backward, []

    def counting_backward(self: object) -> None:
        calls.append(1)
        original_backward(self)

    value_class.backward = counting_backward
    try:
        returned = [found["train_step"](model, points, labels, lr) for _ in range(steps)]
    finally:
        value_class.backward = original_backward
    if not calls:
        return "Not done yet: train_step() never calls loss.backward(); replace the ... in it."
    got = [p.data for p in model.parameters()]
    start_flat = [w for ws, bs in start for row, b in zip(ws, bs, strict=True) for w in [*row, b]]
    expected_losses, expected = torch_run(start, points, labels, lr, steps, "right")

    def same(a: list, b: list) -> bool:
        return len(a) == len(b) and all(
            abs(u - v) <= 1e-9 * (1 + abs(v)) for u, v in zip(a, b, strict=True)
        )

    if same(got, expected):
        if not all(isinstance(r, float) for r in returned) or not same(returned, expected_losses):
            return (
                f"Not quite: the weights are right, but train_step should return the loss"
                f" before each step, expected {[round(v, 4) for v in expected_losses]},"
                f" got {returned}."
            )
        return (
            f"Correct: after {steps} steps every weight equals PyTorch's, and the loss fell"
            f" from {expected_losses[0]:.4f} to {expected_losses[-1]:.4f}."
        )
    head = (
        f"Not quite: after {steps} steps, expected the first weight to be {expected[0]:.6f}"
        f" (PyTorch, from {start_flat[0]:.6f}), got {got[0]:.6f}."
    )
    if same(got, start_flat):
        if all(p.grad == 0 for p in model.parameters()):
            return head + (
                " No weight moved, because every gradient was 0 when the update ran:"
                " zero_grad() must come before backward(), not between backward()"
                " and the update."
            )
        return head + " No weight moved: update each p.data with lr * p.grad after backward()."
    if same(got, torch_run(start, points, labels, lr, steps, "no zero_grad")[1]):
        return head + (
            " Your weights are those of a run that never clears the gradients: call"
            " model.zero_grad() in every step, before loss.backward()."
        )
    if same(got, torch_run(start, points, labels, lr, steps, "ascent")[1]):
        return head + (
            " Your weights moved up the gradient, so the loss grows: subtract,"
            " p.data -= lr * p.grad."
        )
    return head + " Each step: model.zero_grad(), loss.backward(), then p.data -= lr * p.grad."


try:
    print(check())
except Exception as error:  # the check never crashes, whatever the cell above did
    print(f"Not done yet: the check could not read your answer ({type(error).__name__}: {error}).")
# --8<-- [end:check]

"""Examples for the page "The tiny engine trains".

Each region is included by docs/deeper/tiny-engine-trains.md. Run the whole file with
`python snippets/deeper/tiny_engine_trains.py`. It imports nothing from Part 2's
snippets/chapters/tiny_autograd.py: the engine is defined again here, extended. The
engine, the network classes, the data set and the loss are at the top level, so that a
test can import them; the demos run only when the file is run as a script.
"""

# --8<-- [start:value]
from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable


class Value:
    """A number that remembers how it was made, so that a gradient can flow back to it."""

    def __init__(self, data: float, parents: tuple[Value, ...] = (), op: str = "") -> None:
        self.data = float(data)  # the forward value
        self.grad = 0.0  # d(output)/d(self); the backward pass adds into it
        self.parents = parents  # the values this one was computed from
        self.op = op  # the operation that made it ("" for a leaf)
        self.local_backward: Callable[[], None] = lambda: None  # a leaf passes nothing on

    def __repr__(self) -> str:
        return f"Value(data={self.data:.6g}, grad={self.grad:.6g})"

    # a + b calls a.__add__(b). If a is a plain number, Python calls b.__radd__(a): the
    # "reflected" operators below make 2 * x, 1 - x and sum([...]) work.
    def __add__(self, other: Value | float) -> Value:
        return add(self, other)

    def __radd__(self, other: float) -> Value:
        return add(other, self)

    def __mul__(self, other: Value | float) -> Value:
        return mul(self, other)

    def __rmul__(self, other: float) -> Value:
        return mul(other, self)

    def __pow__(self, n: float) -> Value:
        return power(self, n)

    def __neg__(self) -> Value:
        return neg(self)

    def __sub__(self, other: Value | float) -> Value:
        return sub(self, other)

    def __rsub__(self, other: float) -> Value:
        return sub(other, self)

    def __truediv__(self, other: Value | float) -> Value:
        return div(self, other)

    def __rtruediv__(self, other: float) -> Value:
        return div(other, self)

    def relu(self) -> Value:
        return relu(self)

    def backward(self) -> None:
        backpropagate(self)


def as_value(x: Value | float) -> Value:
    """A plain number, such as the 1 in 1 - x, becomes a leaf Value."""
    return x if isinstance(x, Value) else Value(x)


# --8<-- [end:value]


# --8<-- [start:add-mul-power]
def add(a: Value | float, b: Value | float) -> Value:
    a, b = as_value(a), as_value(b)
    out = Value(a.data + b.data, (a, b), "+")

    def local_backward() -> None:
        a.grad += out.grad
        b.grad += out.grad

    out.local_backward = local_backward
    return out


def mul(a: Value | float, b: Value | float) -> Value:
    a, b = as_value(a), as_value(b)
    out = Value(a.data * b.data, (a, b), "*")

    def local_backward() -> None:
        a.grad += b.data * out.grad
        b.grad += a.data * out.grad

    out.local_backward = local_backward
    return out


def power(a: Value, n: float) -> Value:
    out = Value(a.data**n, (a,), f"**{n:g}")

    def local_backward() -> None:
        a.grad += n * a.data ** (n - 1) * out.grad

    out.local_backward = local_backward
    return out


# --8<-- [end:add-mul-power]


# --8<-- [start:new-ops]
def neg(a: Value | float) -> Value:
    a = as_value(a)
    out = Value(-a.data, (a,), "neg")

    def local_backward() -> None:
        a.grad += -out.grad  # d(-a)/da = -1

    out.local_backward = local_backward
    return out


def sub(a: Value | float, b: Value | float) -> Value:
    a, b = as_value(a), as_value(b)
    out = Value(a.data - b.data, (a, b), "-")

    def local_backward() -> None:
        a.grad += out.grad  # d(a - b)/da = 1
        b.grad += -out.grad  # d(a - b)/db = -1

    out.local_backward = local_backward
    return out


def div(a: Value | float, b: Value | float) -> Value:
    a, b = as_value(a), as_value(b)
    out = Value(a.data / b.data, (a, b), "/")

    def local_backward() -> None:
        a.grad += out.grad / b.data  # d(a/b)/da = 1/b
        b.grad += -a.data / b.data**2 * out.grad  # d(a/b)/db = -a/b²

    out.local_backward = local_backward
    return out


def relu(a: Value) -> Value:
    out = Value(max(a.data, 0.0), (a,), "relu")

    def local_backward() -> None:
        # The slope is 1 where a > 0 and 0 where a < 0. At a = 0 there is a kink;
        # like PyTorch, the engine uses 0 there.
        a.grad += (1.0 if a.data > 0 else 0.0) * out.grad

    out.local_backward = local_backward
    return out


# --8<-- [end:new-ops]


# --8<-- [start:engine]
def topological_order(root: Value) -> list[Value]:
    """root and every value it depends on, each after the values it was made from.

    The same depth-first search as a recursive visit(), with its own stack instead of
    Python's call stack: an entry (node, True) means "all its parents are listed".
    """
    order: list[Value] = []
    visited: set[Value] = set()
    stack: list[tuple[Value, bool]] = [(root, False)]
    while stack:
        node, parents_listed = stack.pop()
        if parents_listed:
            order.append(node)
        elif node not in visited:
            visited.add(node)
            stack.append((node, True))  # comes off the stack after all its parents
            stack.extend((parent, False) for parent in node.parents)
    return order


def backpropagate(root: Value) -> None:
    """Fill in d(root)/d(node) for every node that root depends on."""
    order = topological_order(root)
    for node in order:
        if node.parents:
            node.grad = 0.0  # an intermediate gradient belongs to this pass only
    root.grad += 1.0
    for node in reversed(order):
        node.local_backward()


# --8<-- [end:engine]


# --8<-- [start:nn]
class Module:
    """What every part of a network can do: list its parameters, and clear their grads."""

    def parameters(self) -> list[Value]:
        return []

    def zero_grad(self) -> None:
        for p in self.parameters():
            p.grad = 0.0  # the leaves keep adding into grad until someone clears it


class Neuron(Module):
    """relu(w · x + b), or w · x + b for an output neuron (nonlinear=False)."""

    def __init__(self, n_inputs: int, rng: random.Random, nonlinear: bool = True) -> None:
        self.w = [Value(rng.uniform(-1, 1)) for _ in range(n_inputs)]
        self.b = Value(0.0)
        self.nonlinear = nonlinear

    def __call__(self, x: Iterable[Value | float]) -> Value:
        z = sum(wi * xi for wi, xi in zip(self.w, x, strict=True)) + self.b
        return z.relu() if self.nonlinear else z

    def parameters(self) -> list[Value]:
        return [*self.w, self.b]


class Layer(Module):
    """n_outputs neurons, each looking at the same inputs."""

    def __init__(
        self, n_inputs: int, n_outputs: int, rng: random.Random, nonlinear: bool = True
    ) -> None:
        self.neurons = [Neuron(n_inputs, rng, nonlinear) for _ in range(n_outputs)]

    def __call__(self, x: Iterable[Value | float]) -> list[Value]:
        x = list(x)
        return [neuron(x) for neuron in self.neurons]

    def parameters(self) -> list[Value]:
        return [p for neuron in self.neurons for p in neuron.parameters()]


class MLP(Module):
    """Layers of the given sizes; relu after every layer but the last."""

    def __init__(self, n_inputs: int, sizes: list[int], seed: int = 0) -> None:
        rng = random.Random(seed)  # the weights are random, but the same on every run
        dims = [n_inputs, *sizes]
        self.layers = [
            Layer(dims[i], dims[i + 1], rng, nonlinear=i < len(sizes) - 1)
            for i in range(len(sizes))
        ]

    def __call__(self, x: Iterable[Value | float]) -> list[Value]:
        for layer in self.layers:
            x = layer(x)
        return list(x)

    def parameters(self) -> list[Value]:
        return [p for layer in self.layers for p in layer.parameters()]


# --8<-- [end:nn]


# --8<-- [start:data]
def xor_clusters(
    n_per_cluster: int, noise: float, seed: int = 0
) -> tuple[list[list[float]], list[int]]:
    """Points around the four corners (±1, ±1); the label is the sign of x * y."""
    rng = random.Random(seed)
    points, labels = [], []
    for _ in range(n_per_cluster):
        for cx, cy in [(1, 1), (-1, -1), (1, -1), (-1, 1)]:
            points.append([cx + rng.gauss(0, noise), cy + rng.gauss(0, noise)])
            labels.append(1 if cx * cy > 0 else -1)
    return points, labels


# --8<-- [end:data]


# --8<-- [start:loss]
def hinge_loss(model: MLP, points: list[list[float]], labels: list[int]) -> tuple[Value, float]:
    """The mean of max(0, 1 - y * score), and the fraction classified right."""
    scores = [model(x)[0] for x in points]
    losses = [(1 - y * score).relu() for y, score in zip(labels, scores, strict=True)]
    loss = sum(losses) / len(losses)
    right = sum((score.data > 0) == (y > 0) for y, score in zip(labels, scores, strict=True))
    return loss, right / len(labels)


# --8<-- [end:loss]


# --8<-- [start:torch-twin]
def torch_gradients(
    model: MLP, points: list[list[float]], labels: list[int]
) -> tuple[float, list[float]]:
    """The same network and loss in PyTorch (float64), with the engine's current weights."""
    import torch

    X = torch.tensor(points, dtype=torch.float64)
    y = torch.tensor(labels, dtype=torch.float64)
    weights, biases = [], []
    for layer in model.layers:  # copy: one row of W per neuron, one entry of b
        weights.append(
            torch.tensor(
                [[w.data for w in n.w] for n in layer.neurons],
                dtype=torch.float64,
                requires_grad=True,
            )
        )
        biases.append(
            torch.tensor([n.b.data for n in layer.neurons], dtype=torch.float64, requires_grad=True)
        )
    h = X
    for i, (W, b) in enumerate(zip(weights, biases, strict=True)):
        h = h @ W.T + b
        if i < len(weights) - 1:
            h = torch.relu(h)
    loss = torch.relu(1 - y * h[:, 0]).mean()
    loss.backward()
    # The gradients in the order of model.parameters(): per neuron, its w then its b.
    grads = []
    for W, b in zip(weights, biases, strict=True):
        for row in range(W.shape[0]):
            grads += [*W.grad[row].tolist(), b.grad[row].item()]
    return loss.item(), grads


# --8<-- [end:torch-twin]


if __name__ == "__main__":
    # --8<-- [start:check-ops]
    import torch

    def engine_and_torch(f: Callable, a: float, b: float) -> None:
        """f(a, b) and its gradients, in the engine and in PyTorch (float64)."""
        x, y = Value(a), Value(b)
        out = f(x, y)
        out.backward()
        x_t = torch.tensor(a, dtype=torch.float64, requires_grad=True)
        y_t = torch.tensor(b, dtype=torch.float64, requires_grad=True)
        out_t = f(x_t, y_t)
        out_t.backward()
        same = (
            math.isclose(out.data, out_t.item(), rel_tol=1e-12)
            and math.isclose(x.grad, x_t.grad.item(), rel_tol=1e-12, abs_tol=1e-15)
            and math.isclose(y.grad, y_t.grad.item(), rel_tol=1e-12, abs_tol=1e-15)
        )
        print(
            f"  a={a:<4g} b={b:<4g} out {out.data:<8.4g} grads {x.grad:<7.4g} {y.grad:<8.4g}"
            f" same as PyTorch: {same}"
        )

    cases = {
        "-a + b": lambda a, b: -a + b,
        "a - b": lambda a, b: a - b,
        "a / b": lambda a, b: a / b,
        "relu(a) * b": lambda a, b: a.relu() * b,
        "1 - a / (2 * b)": lambda a, b: 1 - a / (2 * b),
    }
    for name, f in cases.items():
        print(name)
        for a, b in [(3.0, 2.0), (-1.5, 4.0), (0.0, 0.5)]:
            engine_and_torch(f, a, b)
    # --8<-- [end:check-ops]

    # --8<-- [start:node-count]
    a, b, c = Value(6.0), Value(2.0), Value(4.0)
    out = (a - b) / c
    order = topological_order(out)
    print("ops:", [node.op for node in order if node.parents])
    out.backward()
    print("out =", out.data, " a.grad =", a.grad, " b.grad =", b.grad, " c.grad =", c.grad)
    # --8<-- [end:node-count]

    # --8<-- [start:radd]
    values = [Value(1.0), Value(2.0), Value(4.0)]
    total = sum(values)  # 0 + values[0] first: int + Value calls Value.__radd__
    print("sum =", total.data, " made by", repr(total.op), "from", total.parents)
    leaves = sorted(node.data for node in topological_order(total) if not node.parents)
    print("the leaves of its graph:", leaves)  # the 0 that sum() started from is one
    # --8<-- [end:radd]

    # --8<-- [start:deep-chain]
    x = Value(1.0)
    y = x
    for _ in range(10_000):
        y = y + 1
    y.backward()  # no recursion: the explicit stack has no depth limit
    print("a chain of 10,000 additions: y =", y.data, " x.grad =", x.grad)
    # --8<-- [end:deep-chain]

    # --8<-- [start:make-model]
    model = MLP(2, [4, 4, 1], seed=0)
    sizes = [(len(layer.neurons), len(layer.neurons[0].w)) for layer in model.layers]
    print("layers (neurons, inputs each):", sizes)
    print("parameters:", len(model.parameters()))
    print("score of the point (1, 0):", model([1.0, 0.0])[0])
    # --8<-- [end:make-model]

    # --8<-- [start:make-data]
    points, labels = xor_clusters(5, noise=0.35, seed=0)
    print(
        len(points), "points,", labels.count(1), "labelled +1 and", labels.count(-1), "labelled -1"
    )
    for x, y in list(zip(points, labels, strict=True))[:4]:
        print(f"  ({x[0]:6.3f}, {x[1]:6.3f})  label {y:+d}")
    # --8<-- [end:make-data]

    # --8<-- [start:first-gradients]
    loss, accuracy = hinge_loss(model, points, labels)
    model.zero_grad()
    loss.backward()
    torch_loss, torch_grads = torch_gradients(model, points, labels)
    mine = [p.grad for p in model.parameters()]
    difference = max(abs(g - t) for g, t in zip(mine, torch_grads, strict=True))
    print(f"loss: engine {loss.data:.10f}  PyTorch {torch_loss:.10f}")
    print(f"accuracy before training: {accuracy:.0%}")
    print("the first three gradients:", [round(g, 6) for g in mine[:3]])
    print(f"all {len(mine)} gradients agree with PyTorch to 1e-12: {difference < 1e-12}")
    # --8<-- [end:first-gradients]

    # --8<-- [start:forgot-zero-grad]
    loss, _ = hinge_loss(model, points, labels)
    loss.backward()  # a second backward pass, without zero_grad()
    print("without zero_grad:", [round(p.grad, 6) for p in model.parameters()[:3]])
    model.zero_grad()
    print("after zero_grad:  ", [p.grad for p in model.parameters()[:3]])
    # --8<-- [end:forgot-zero-grad]

    # --8<-- [start:train]
    model = MLP(2, [4, 4, 1], seed=0)
    steps, lr = 40, 0.2
    losses, accuracies, checks = [], [], []
    for step in range(steps + 1):
        loss, accuracy = hinge_loss(model, points, labels)
        model.zero_grad()
        loss.backward()
        losses.append(loss.data)
        accuracies.append(accuracy)
        if step % 10 == 0:  # every 10 steps: PyTorch's gradients at the same weights
            torch_loss, torch_grads = torch_gradients(model, points, labels)
            difference = max(
                abs(p.grad - t) for p, t in zip(model.parameters(), torch_grads, strict=True)
            )
            checks.append((step, torch_loss))
            print(
                f"step {step:2}  loss {loss.data:.4f}  accuracy {accuracy:4.0%}  "
                f"PyTorch's loss {torch_loss:.4f}  gradients agree to 1e-12: {difference < 1e-12}"
            )
        if step < steps:
            for p in model.parameters():
                p.data -= lr * p.grad
    # --8<-- [end:train]

    # --8<-- [start:decision-map]
    def decision_map(model: MLP, size: int = 11) -> str:
        """The sign of the score on a grid over [-2, 2]²: + where positive, . elsewhere."""
        ticks = [-2 + 4 * k / (size - 1) for k in range(size)]
        return "\n".join(
            " ".join("+" if model([x, y])[0].data > 0 else "." for x in ticks)
            for y in reversed(ticks)  # the top row is y = 2
        )

    print(decision_map(model))
    # --8<-- [end:decision-map]

    # --8<-- [start:linear-fails]
    linear = MLP(2, [1], seed=0)  # one neuron, no hidden layer: a straight boundary
    for step in range(steps + 1):  # the same loop as above: 40 updates
        loss, accuracy = hinge_loss(linear, points, labels)
        linear.zero_grad()
        loss.backward()
        if step < steps:
            for p in linear.parameters():
                p.data -= lr * p.grad
    print(f"one neuron after {steps} steps: loss {loss.data:.4f}, accuracy {accuracy:.0%}")
    print(decision_map(linear))
    # --8<-- [end:linear-fails]

"""Plausible wrong answers to Exercise D.6 (snippets/practice/train_the_tiny_engine.py).

Each region replaces the starter cell; the check must answer "Not quite" with the right
diagnosis.
"""
# ruff: noqa: E402, F811

# --8<-- [start:forgot-zero-grad]
# train_step never calls zero_grad(): the gradients of every step add up.
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
    loss.backward()
    for p in model.parameters():
        p.data -= lr * p.grad  # against the gradient
    return loss.data


# --8<-- [end:forgot-zero-grad]

# --8<-- [start:gradient-ascent]
# The update adds the gradient: it climbs the loss instead of descending.
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
        p.data += lr * p.grad
    return loss.data


# --8<-- [end:gradient-ascent]

# --8<-- [start:zero-grad-too-late]
# zero_grad() between backward() and the update: the update sees zero gradients.
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
    loss.backward()
    model.zero_grad()
    for p in model.parameters():
        p.data -= lr * p.grad  # against the gradient
    return loss.data


# --8<-- [end:zero-grad-too-late]

# --8<-- [start:zero-grad-clears-data]
# zero_grad() sets p.data instead of p.grad.
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
            p.data = 0.0


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


# --8<-- [end:zero-grad-clears-data]

# --8<-- [start:zero-grad-first-layer]
# zero_grad() clears only the first four parameters (a slice that stops too early).
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
        for p in self.parameters()[:4]:
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


# --8<-- [end:zero-grad-first-layer]

# --8<-- [start:zero-grad-none]
# zero_grad() sets each gradient to None, as PyTorch's set_to_none does; this engine adds into grad.
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
            p.grad = None  # PyTorch's habit; but here backward() adds into p.grad


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


# --8<-- [end:zero-grad-none]

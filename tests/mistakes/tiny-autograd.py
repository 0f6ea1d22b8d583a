"""Plausible mistakes for Exercise 2.13 (tiny-autograd), one per region.

Each region replaces the starter cell; the exercise's check cell must then print an
accurate "Not quite: ..." (or "Not done yet: ..." where that is the honest verdict).
"""
# ruff: noqa: E402, F811

# --8<-- [start:overwrite-instead-of-add]
# exp overwrites a.grad (= instead of +=): with x used twice, the product's path is lost.
import math
from collections.abc import Callable


# A compact version of the chapter's engine: the operations are written as methods,
# as in micrograd, and only addition and multiplication are kept.
class Value:
    def __init__(self, data: float, parents: tuple["Value", ...] = (), op: str = "") -> None:
        self.data = float(data)
        self.grad = 0.0
        self.parents = parents
        self.op = op
        self.local_backward: Callable[[], None] = lambda: None

    def __repr__(self) -> str:
        return f"Value(data={self.data:g}, grad={self.grad:g})"

    def __add__(self, other: "Value | float") -> "Value":
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data + other.data, (self, other), "+")

        def local_backward() -> None:
            self.grad += out.grad
            other.grad += out.grad

        out.local_backward = local_backward
        return out

    def __mul__(self, other: "Value | float") -> "Value":
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data * other.data, (self, other), "*")

        def local_backward() -> None:
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad

        out.local_backward = local_backward
        return out

    __radd__ = __add__
    __rmul__ = __mul__

    def backward(self) -> None:
        order: list[Value] = []
        visited: set[Value] = set()

        def visit(node: Value) -> None:
            if node not in visited:
                visited.add(node)
                for parent in node.parents:
                    visit(parent)
                order.append(node)

        visit(self)
        self.grad = 1.0
        for node in reversed(order):
            node.local_backward()


def exp(a: Value) -> Value:
    e = math.exp(a.data)
    out = Value(e, (a,), "exp")

    def local_backward() -> None:
        a.grad = e * out.grad  # d(e^a)/da = e^a, saved from the forward pass

    out.local_backward = local_backward
    return out


x = Value(1.0)
y = x * exp(x)
y.backward()
print(x.grad, 2 * math.e)
# --8<-- [end:overwrite-instead-of-add]

# --8<-- [start:parents-missing]
# The new Value has no parents, so the backward walk never reaches a.
import math
from collections.abc import Callable


# A compact version of the chapter's engine: the operations are written as methods,
# as in micrograd, and only addition and multiplication are kept.
class Value:
    def __init__(self, data: float, parents: tuple["Value", ...] = (), op: str = "") -> None:
        self.data = float(data)
        self.grad = 0.0
        self.parents = parents
        self.op = op
        self.local_backward: Callable[[], None] = lambda: None

    def __repr__(self) -> str:
        return f"Value(data={self.data:g}, grad={self.grad:g})"

    def __add__(self, other: "Value | float") -> "Value":
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data + other.data, (self, other), "+")

        def local_backward() -> None:
            self.grad += out.grad
            other.grad += out.grad

        out.local_backward = local_backward
        return out

    def __mul__(self, other: "Value | float") -> "Value":
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data * other.data, (self, other), "*")

        def local_backward() -> None:
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad

        out.local_backward = local_backward
        return out

    __radd__ = __add__
    __rmul__ = __mul__

    def backward(self) -> None:
        order: list[Value] = []
        visited: set[Value] = set()

        def visit(node: Value) -> None:
            if node not in visited:
                visited.add(node)
                for parent in node.parents:
                    visit(parent)
                order.append(node)

        visit(self)
        self.grad = 1.0
        for node in reversed(order):
            node.local_backward()


def exp(a: Value) -> Value:
    e = math.exp(a.data)
    out = Value(e)

    def local_backward() -> None:
        a.grad += e * out.grad  # d(e^a)/da = e^a, saved from the forward pass

    out.local_backward = local_backward
    return out


x = Value(1.0)
y = x * exp(x)
y.backward()
print(x.grad, 2 * math.e)
# --8<-- [end:parents-missing]

# --8<-- [start:input-instead-of-result]
# The local derivative is taken as a.data instead of e^a.
import math
from collections.abc import Callable


# A compact version of the chapter's engine: the operations are written as methods,
# as in micrograd, and only addition and multiplication are kept.
class Value:
    def __init__(self, data: float, parents: tuple["Value", ...] = (), op: str = "") -> None:
        self.data = float(data)
        self.grad = 0.0
        self.parents = parents
        self.op = op
        self.local_backward: Callable[[], None] = lambda: None

    def __repr__(self) -> str:
        return f"Value(data={self.data:g}, grad={self.grad:g})"

    def __add__(self, other: "Value | float") -> "Value":
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data + other.data, (self, other), "+")

        def local_backward() -> None:
            self.grad += out.grad
            other.grad += out.grad

        out.local_backward = local_backward
        return out

    def __mul__(self, other: "Value | float") -> "Value":
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data * other.data, (self, other), "*")

        def local_backward() -> None:
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad

        out.local_backward = local_backward
        return out

    __radd__ = __add__
    __rmul__ = __mul__

    def backward(self) -> None:
        order: list[Value] = []
        visited: set[Value] = set()

        def visit(node: Value) -> None:
            if node not in visited:
                visited.add(node)
                for parent in node.parents:
                    visit(parent)
                order.append(node)

        visit(self)
        self.grad = 1.0
        for node in reversed(order):
            node.local_backward()


def exp(a: Value) -> Value:
    e = math.exp(a.data)
    out = Value(e, (a,), "exp")

    def local_backward() -> None:
        a.grad += a.data * out.grad  # d(e^a)/da = e^a, saved from the forward pass

    out.local_backward = local_backward
    return out


x = Value(1.0)
y = x * exp(x)
y.backward()
print(x.grad, 2 * math.e)
# --8<-- [end:input-instead-of-result]

# --8<-- [start:upstream-gradient-missing]
# out.grad is left out: the chain rule's upstream factor is missing.
import math
from collections.abc import Callable


# A compact version of the chapter's engine: the operations are written as methods,
# as in micrograd, and only addition and multiplication are kept.
class Value:
    def __init__(self, data: float, parents: tuple["Value", ...] = (), op: str = "") -> None:
        self.data = float(data)
        self.grad = 0.0
        self.parents = parents
        self.op = op
        self.local_backward: Callable[[], None] = lambda: None

    def __repr__(self) -> str:
        return f"Value(data={self.data:g}, grad={self.grad:g})"

    def __add__(self, other: "Value | float") -> "Value":
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data + other.data, (self, other), "+")

        def local_backward() -> None:
            self.grad += out.grad
            other.grad += out.grad

        out.local_backward = local_backward
        return out

    def __mul__(self, other: "Value | float") -> "Value":
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data * other.data, (self, other), "*")

        def local_backward() -> None:
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad

        out.local_backward = local_backward
        return out

    __radd__ = __add__
    __rmul__ = __mul__

    def backward(self) -> None:
        order: list[Value] = []
        visited: set[Value] = set()

        def visit(node: Value) -> None:
            if node not in visited:
                visited.add(node)
                for parent in node.parents:
                    visit(parent)
                order.append(node)

        visit(self)
        self.grad = 1.0
        for node in reversed(order):
            node.local_backward()


def exp(a: Value) -> Value:
    e = math.exp(a.data)
    out = Value(e, (a,), "exp")

    def local_backward() -> None:
        a.grad += e  # d(e^a)/da = e^a, saved from the forward pass

    out.local_backward = local_backward
    return out


x = Value(1.0)
y = x * exp(x)
y.backward()
print(x.grad, 2 * math.e)
# --8<-- [end:upstream-gradient-missing]

"""Exercise 2.13: add exp to the tiny autograd. Run it: python snippets/practice/tiny_autograd.py"""
# Each region is a self-contained cell (page, notebook), so the engine and imports repeat.
# ruff: noqa: E402, F811

# --8<-- [start:starter]
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


# Your task: the exponential, out = e^a.
def exp(a: Value) -> Value:
    out = ...  # replace ... with a new Value: its data, its parents and its op name

    def local_backward() -> None: ...  # replace ... with the chain rule: pass a gradient on to a

    out.local_backward = local_backward
    return out


# When exp works, try it: d/dx (x * e^x) at x = 1 is (1 + x) e^x = 2e.
# x = Value(1.0)
# y = x * exp(x)
# y.backward()
# print(x.grad, 2 * math.e)
# --8<-- [end:starter]

# --8<-- [start:solution]
import math
from collections.abc import Callable

import torch


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
        a.grad += e * out.grad  # d(e^a)/da = e^a, saved from the forward pass

    out.local_backward = local_backward
    return out


x = Value(1.0)
y = x * exp(x)  # x is used twice: as a factor, and as the input of exp
y.backward()

x_t = torch.tensor(1.0, dtype=torch.float64, requires_grad=True)
y_t = x_t * torch.exp(x_t)
y_t.backward()

print("y:      engine", y.data, "  PyTorch", y_t.item())
print("x.grad: engine", x.grad, "  PyTorch", x_t.grad.item())
print("by hand, 2e:   ", 2 * math.e)
# --8<-- [end:solution]

# --8<-- [start:check]
# Checks your exp against PyTorch (float64) at several points: e^x itself, x * e^x
# (x is used twice) and e^(x * x) (the gradient must flow through exp to x * x).
import math

import torch


def what_is_wrong(value_class, exp_function) -> str:
    """Runs exp's local_backward on its own, into an a.grad that already holds 1, to say
    which part of it is off."""
    a = value_class(0.5)
    out = exp_function(a)
    if a not in out.parents:
        return "the new Value needs its parents, (a,), for the walk to reach a"
    e = math.exp(0.5)
    a.grad, out.grad = 1.0, 2.0  # a already holds 1 (from another use); 2 arrives from above
    out.local_backward()
    if math.isclose(a.grad, 1.0 + 2.0 * e):
        return "exp itself looks right; check the data of the new Value"
    if math.isclose(a.grad, 2.0 * e):
        return (
            "a.grad must grow with +=: exp replaced the gradient that a already had "
            "from its other use"
        )
    if math.isclose(a.grad, 1.0 + e):
        return "multiply the local derivative by out.grad, the gradient arriving from above"
    if math.isclose(a.grad, 1.0 + 2.0 * 0.5):
        return "the local derivative of e^a is e^a itself, not a"
    return "the local derivative of e^a is e^a itself, times out.grad, added to a.grad with +="


def check() -> str:
    value_class, exp_function = globals().get("Value"), globals().get("exp")
    if value_class is None or not callable(exp_function):
        return "Not done yet: run the cell above first; it defines Value and exp."
    argument = value_class(0.5)
    try:
        trial = exp_function(argument)
    except (AttributeError, TypeError) as error:
        if "ellipsis" in str(error):  # out = ... is still in place
            return "Not done yet: exp does not return a Value yet; replace the first ... in exp."
        return f"Not done yet: exp does not run yet ({type(error).__name__}: {error})."
    if not isinstance(trial, value_class):
        return "Not done yet: exp must return a new Value (replace the first ... in exp)."
    cases = {
        "e^x": (lambda v: exp_function(v), torch.exp),
        "x * e^x": (lambda v: v * exp_function(v), lambda t: t * torch.exp(t)),
        "e^(x * x)": (lambda v: exp_function(v * v), lambda t: torch.exp(t * t)),
    }
    for point in (0.5, 1.5, -1.0, 0.0):
        for name, (with_engine, with_torch) in cases.items():
            x = value_class(point)
            y = with_engine(x)
            x_t = torch.tensor(point, dtype=torch.float64, requires_grad=True)
            y_t = with_torch(x_t)
            y_t.backward()
            if not math.isclose(y.data, y_t.item(), rel_tol=1e-9):
                return (
                    f"Not quite: for y = {name} at x = {point:g}, expected y = "
                    f"{y_t.item():.6g}, got {y.data:.6g}. Check the data of the new Value."
                )
            y.backward()
            if not math.isclose(x.grad, x_t.grad.item(), rel_tol=1e-9, abs_tol=1e-12):
                hint = what_is_wrong(value_class, exp_function)
                return (
                    f"Not quite: for y = {name} at x = {point:g}, expected x.grad = "
                    f"{x_t.grad.item():.6g} (PyTorch), got {x.grad:.6g}. Hint: {hint}."
                )
    return "Correct: exp agrees with PyTorch, alone, with x used twice, and inside a chain."


try:
    print(check())
except Exception as error:  # the check never crashes, whatever the cell above did
    print(f"Not done yet: the check could not read your answer ({type(error).__name__}: {error}).")
# --8<-- [end:check]

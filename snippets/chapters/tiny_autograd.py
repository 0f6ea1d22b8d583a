"""Examples for the page "Build a tiny autograd".

Each region is included by docs/chapters/tiny-autograd.md. Run the whole file with
`python snippets/chapters/tiny_autograd.py`. The engine (the class `Value`, one function
per operation, and `backpropagate`) is defined at the top level, so that
tests/maths/test_tiny_autograd.py can import the page's own code; the demos run only
when the file is run as a script.

A region named ``<name>-maths`` lies inside region ``<name>`` and holds its computation
without the input the page gives it, so that tests/maths can run the page's own code on
inputs of its own. The page never shows these markers.
"""

# --8<-- [start:value]
from __future__ import annotations

import math
from collections.abc import Callable


class Value:
    """A number that remembers how it was made, so that a gradient can flow back to it."""

    def __init__(self, data: float, parents: tuple[Value, ...] = (), op: str = "") -> None:
        self.data = float(data)  # the forward value
        self.grad = 0.0  # d(output)/d(self); the backward pass adds into it
        self.parents = parents  # the values this one was computed from
        self.op = op  # the operation that made it ("" for a leaf), for printing
        # Passes self.grad on to the parents. A leaf has nothing to pass on.
        self.local_backward: Callable[[], None] = lambda: None

    def __repr__(self) -> str:
        return f"Value(data={self.data:g}, grad={self.grad:g})"

    # Python turns a + b into a.__add__(b), 3 * x into x.__rmul__(3), and so on.
    # Each operator hands over to a function below, where the real work is done.
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

    def tanh(self) -> Value:
        return tanh(self)

    def backward(self) -> None:
        backpropagate(self)


def as_value(x: Value | float) -> Value:
    """A plain number, such as the 3 in 3 * x, becomes a leaf Value."""
    return x if isinstance(x, Value) else Value(x)


# --8<-- [end:value]


# --8<-- [start:mul]
def mul(a: Value | float, b: Value | float) -> Value:
    a, b = as_value(a), as_value(b)
    out = Value(a.data * b.data, (a, b), "*")

    def local_backward() -> None:
        # out = a * b: d(out)/da = b and d(out)/db = a, each times the gradient from above.
        a.grad += b.data * out.grad
        b.grad += a.data * out.grad

    out.local_backward = local_backward
    return out


# --8<-- [end:mul]


# --8<-- [start:add-power-tanh]
def add(a: Value | float, b: Value | float) -> Value:
    a, b = as_value(a), as_value(b)
    out = Value(a.data + b.data, (a, b), "+")

    def local_backward() -> None:
        # out = a + b: both local derivatives are 1, so the gradient passes through.
        a.grad += out.grad
        b.grad += out.grad

    out.local_backward = local_backward
    return out


def power(a: Value, n: float) -> Value:
    """a ** n for a fixed number n (the exponent is not a Value, so it gets no gradient)."""
    out = Value(a.data**n, (a,), f"**{n:g}")

    def local_backward() -> None:
        # The power rule: d(a^n)/da = n * a^(n - 1).
        a.grad += n * a.data ** (n - 1) * out.grad

    out.local_backward = local_backward
    return out


def tanh(a: Value) -> Value:
    t = math.tanh(a.data)
    out = Value(t, (a,), "tanh")

    def local_backward() -> None:
        # d tanh(a)/da = 1 - tanh(a)^2, computed from the saved forward value t.
        a.grad += (1 - t**2) * out.grad

    out.local_backward = local_backward
    return out


# --8<-- [end:add-power-tanh]


# --8<-- [start:composites]
# Built from the operations above: the chain rule through their nodes does the rest.
def neg(a: Value | float) -> Value:
    return mul(a, -1.0)


def sub(a: Value | float, b: Value | float) -> Value:
    return add(a, neg(b))


def div(a: Value | float, b: Value | float) -> Value:
    return mul(a, power(as_value(b), -1.0))


# --8<-- [end:composites]


# --8<-- [start:engine]
def topological_order(root: Value) -> list[Value]:
    """root and every value it depends on, each listed after the values it was made from."""
    order: list[Value] = []
    visited: set[Value] = set()

    def visit(node: Value) -> None:
        if node in visited:
            return
        visited.add(node)
        for parent in node.parents:
            visit(parent)
        order.append(node)  # only once all its parents are in the list

    visit(root)
    return order


def backpropagate(root: Value) -> None:
    """Fill in d(root)/d(node) for every node that root depends on."""
    order = topological_order(root)
    for node in order:
        if node.parents:
            node.grad = 0.0  # an intermediate gradient belongs to this pass only
    root.grad += 1.0  # d(root)/d(root) = 1
    for node in reversed(order):  # every node runs after all the nodes that used it
        node.local_backward()


# --8<-- [end:engine]


if __name__ == "__main__":
    # --8<-- [start:leaf]
    x = Value(2.0)
    print(x)
    print("parents:", x.parents, " op:", repr(x.op))
    # --8<-- [end:leaf]

    # --8<-- [start:one-op]
    x = Value(2.0)
    w = Value(3.0)
    p = x * w  # Python calls x.__mul__(w), which calls mul(x, w)
    print("p =", p, " made by", repr(p.op), "from", p.parents)

    p.grad = 1.0  # pretend p is the output: d(p)/d(p) = 1
    p.local_backward()  # one step of the chain rule
    print("x.grad =", x.grad, " (d(xw)/dx = w)")
    print("w.grad =", w.grad, " (d(xw)/dw = x)")
    # --8<-- [end:one-op]

    # --8<-- [start:pytorch-saves]
    import torch

    x_t = torch.tensor(2.0, requires_grad=True)
    w_t = torch.tensor(3.0, requires_grad=True)
    p_t = x_t * w_t
    t_t = torch.tanh(x_t)
    # The values each backward node keeps (PyTorch names them _saved_...).
    print(p_t.grad_fn.name(), "keeps", p_t.grad_fn._saved_self, "and", p_t.grad_fn._saved_other)
    print(t_t.grad_fn.name(), "keeps its result", t_t.grad_fn._saved_result)
    # With data that needs no gradient, x's gradient (which needs w) is never computed:
    q_t = torch.tensor(2.0) * w_t
    print(q_t.grad_fn.name(), "keeps", q_t.grad_fn._saved_self, "and", q_t.grad_fn._saved_other)
    # --8<-- [end:pytorch-saves]

    # --8<-- [start:chain-by-hand]
    x = Value(2.0)
    # --8<-- [start:chain-by-hand-maths]
    y = 3 * x  # y = 3x
    z = y + 4  # z = y + 4
    loss = z**2  # loss = z²
    print("forward: ", "y =", y.data, " z =", z.data, " loss =", loss.data)

    loss.grad = 1.0
    loss.local_backward()  # loss = z²: passes 2z * 1 to z
    print("after the square:        z.grad =", z.grad)
    z.local_backward()  # z = y + 4: passes z.grad * 1 to y
    print("after the addition:      y.grad =", y.grad)
    y.local_backward()  # y = 3 * x: passes y.grad * 3 to x
    print("after the multiplication: x.grad =", x.grad)
    # --8<-- [end:chain-by-hand-maths]
    # --8<-- [end:chain-by-hand]

    # --8<-- [start:order]
    def labels(nodes: list[Value], names: dict[Value, str]) -> list[str]:
        """The name of each node; a constant, which has no name, shows its value."""
        return [names.get(node, f"{node.data:g}") for node in nodes]

    x = Value(2.0)
    y = 3 * x
    z = y + 4
    loss = z**2
    names = {x: "x", y: "y", z: "z", loss: "loss"}

    order = topological_order(loss)
    print("topological order:", labels(order, names))
    print("backward walk:    ", labels(list(reversed(order)), names))

    loss.backward()
    print("x.grad =", x.grad)
    # --8<-- [end:order]

    # --8<-- [start:no-reset]
    def backpropagate_without_reset(root: Value) -> None:
        """backpropagate without its first loop: old intermediate gradients stay."""
        order = topological_order(root)
        root.grad += 1.0
        for node in reversed(order):
            node.local_backward()

    for run_backward in (backpropagate, backpropagate_without_reset):
        x = Value(2.0)
        loss = (3 * x + 4) ** 2
        run_backward(loss)
        after_one = x.grad
        run_backward(loss)  # a second pass through the same graph
        print(f"{run_backward.__name__:<27} x.grad: {after_one} after one pass, {x.grad} after two")
    # --8<-- [end:no-reset]

    # --8<-- [start:example-chain]
    # The tiny engine
    x = Value(2.0)
    # --8<-- [start:example-chain-maths]
    loss = (3 * x + 4) ** 2
    loss.backward()
    # --8<-- [end:example-chain-maths]

    # PyTorch
    x_t = torch.tensor(2.0, requires_grad=True)
    loss_t = (3 * x_t + 4) ** 2
    loss_t.backward()

    print("loss:   engine", loss.data, "  PyTorch", loss_t)
    print("x.grad: engine", x.grad, "  PyTorch", x_t.grad)
    # --8<-- [end:example-chain]

    # --8<-- [start:example-linear]
    x, w, b = Value(2.0), Value(3.0), Value(1.0)
    # --8<-- [start:example-linear-maths]
    loss = (x * w + b) ** 2
    loss.backward()
    # --8<-- [end:example-linear-maths]

    x_t = torch.tensor(2.0, requires_grad=True)
    w_t = torch.tensor(3.0, requires_grad=True)
    b_t = torch.tensor(1.0, requires_grad=True)
    loss_t = (x_t * w_t + b_t) ** 2
    loss_t.backward()

    print("loss:   engine", loss.data, "  PyTorch", loss_t)
    for name, mine, theirs in [("x", x, x_t), ("w", w, w_t), ("b", b, b_t)]:
        print(f"{name}.grad: engine {mine.grad}   PyTorch {theirs.grad!r}")
    # --8<-- [end:example-linear]

    # --8<-- [start:example-twice]
    x = Value(2.0)
    # --8<-- [start:example-twice-maths]
    y = x * x  # x is both inputs of the same multiplication
    y.backward()
    # --8<-- [end:example-twice-maths]

    x_t = torch.tensor(2.0, requires_grad=True)
    y_t = x_t * x_t
    y_t.backward()
    print("x.grad: engine", x.grad, "  PyTorch", x_t.grad)

    # The two uses, untied: two leaves with the same value, one for each path.
    first, second = Value(2.0), Value(2.0)
    (first * second).backward()
    print("path through the first factor: ", first.grad)
    print("path through the second factor:", second.grad)
    print("sum of the two paths:          ", first.grad + second.grad)
    # --8<-- [end:example-twice]

    # --8<-- [start:composites-check]
    x = Value(2.0)
    # --8<-- [start:composites-check-maths]
    out = ((x - 1) / x).tanh()  # sub, div, tanh: five operation nodes in all
    out.backward()
    # --8<-- [end:composites-check-maths]

    x_t = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
    out_t = ((x_t - 1) / x_t).tanh()
    out_t.backward()

    print(f"out:    engine {out.data:.12f}   PyTorch {out_t.item():.12f}")
    print(f"x.grad: engine {x.grad:.12f}   PyTorch {x_t.grad.item():.12f}")
    # math.ulp(v): the gap between v and the next float, one unit in the last place
    close = all(
        abs(mine - theirs) <= math.ulp(mine)
        for mine, theirs in [(out.data, out_t.item()), (x.grad, x_t.grad.item())]
    )
    print("at most one unit in the last place apart:", close)
    # --8<-- [end:composites-check]

    # --8<-- [start:wrong-order]
    def preorder(root: Value) -> list[Value]:
        """Each node listed the first time it is reached from root, BEFORE its parents."""
        walk: list[Value] = []
        visited: set[Value] = set()

        def visit(node: Value) -> None:
            if node in visited:
                return
            visited.add(node)
            walk.append(node)  # too early: another node that uses it may come later
            for parent in node.parents:
                visit(parent)

        visit(root)
        return walk

    def reverse_topological(root: Value) -> list[Value]:
        return list(reversed(topological_order(root)))

    for make_walk in (reverse_topological, preorder):
        x = Value(2.0)
        # --8<-- [start:wrong-order-maths]
        u = 3 * x
        m = u * u
        loss = u + m  # u feeds two nodes: this addition and the multiplication m
        walk = make_walk(loss)
        loss.grad = 1.0
        for node in walk:  # the loop of backpropagate, in the order given
            node.local_backward()
        # --8<-- [end:wrong-order-maths]
        print(make_walk.__name__, labels(walk, {x: "x", u: "u", m: "m", loss: "loss"}))
        print("    u.grad =", u.grad, "  x.grad =", x.grad)

    x_t = torch.tensor(2.0, requires_grad=True)
    u_t = 3 * x_t
    (u_t + u_t * u_t).backward()
    print("PyTorch: x.grad =", x_t.grad)
    # --8<-- [end:wrong-order]

    # --8<-- [start:pytorch-order]
    x_t = torch.tensor(2.0, requires_grad=True)
    u_t = 3 * x_t
    m_t = u_t * u_t
    loss_t = u_t + m_t

    def announce(label: str) -> Callable[[tuple[torch.Tensor, ...]], None]:
        def prehook(grad_outputs: tuple[torch.Tensor, ...]) -> None:
            print(f"{label:<16} runs with the gradient {grad_outputs[0]!r}")

        return prehook

    accumulate_x = u_t.grad_fn.next_functions[0][0]  # the AccumulateGrad node of x
    nodes = [
        (loss_t.grad_fn, "loss = u + m"),
        (m_t.grad_fn, "m = u * u"),
        (u_t.grad_fn, "u = 3 * x"),
        (accumulate_x, "AccumulateGrad x"),
    ]
    for node, label in nodes:
        node.register_prehook(announce(label))  # runs just before the node itself
    loss_t.backward()
    # --8<-- [end:pytorch-order]

    # --8<-- [start:no-visited]
    def order_without_visited(root: Value) -> list[Value]:
        """topological_order without the visited set: a node is listed once per path to it."""
        order: list[Value] = []

        def visit(node: Value) -> None:
            for parent in node.parents:
                visit(parent)
            order.append(node)

        visit(root)
        return order

    for make_order in (topological_order, order_without_visited):
        x = Value(2.0)
        u = 3 * x
        m = u * u
        loss = u + m  # u is reached three times: from loss, and twice from m
        order = make_order(loss)
        loss.grad = 1.0
        for node in reversed(order):  # the loop of backpropagate
            node.local_backward()
        walk = list(reversed(order))
        print(make_order.__name__, labels(walk, {x: "x", u: "u", m: "m", loss: "loss"}))
        print("    copies of u:", walk.count(u), "  u.grad =", u.grad, "  x.grad =", x.grad)
    # --8<-- [end:no-visited]

    # --8<-- [start:overwrite]
    def mul_overwriting(a: Value, b: Value) -> Value:
        """mul with = instead of +=: each contribution replaces the one before."""
        out = Value(a.data * b.data, (a, b), "*")

        def local_backward() -> None:
            a.grad = b.data * out.grad
            b.grad = a.data * out.grad

        out.local_backward = local_backward
        return out

    x = Value(2.0)
    y = mul_overwriting(x, x)
    y.backward()
    print("x * x with  = : x.grad =", x.grad)

    x = Value(2.0)
    y = x * x
    y.backward()
    print("x * x with += : x.grad =", x.grad)
    # --8<-- [end:overwrite]

    # --8<-- [start:hook]
    x_t = torch.tensor(2.0, requires_grad=True)

    def show_gradient(grad: torch.Tensor) -> None:
        print("  the hook on x receives", grad)

    x_t.register_hook(show_gradient)  # runs when x's gradient for this pass is complete

    y_t = 3 * x_t + x_t**2  # x is used twice: dy/dx = 3 + 2x = 3 + 4
    print("first backward():")
    y_t.backward()
    print("  x.grad =", x_t.grad)

    y_t = 3 * x_t + x_t**2  # a new forward pass, a new graph
    print("second backward():")
    y_t.backward()
    print("  x.grad =", x_t.grad)
    # --8<-- [end:hook]

    # --8<-- [start:engine-accumulates]
    x = Value(2.0)
    # --8<-- [start:engine-accumulates-maths]
    for attempt in ("first", "second"):
        y = 3 * x + x**2  # a new forward pass, a new graph, the same leaf x
        y.backward()
        print(f"{attempt} backward(): x.grad = {x.grad}")
    # --8<-- [end:engine-accumulates-maths]
    # --8<-- [end:engine-accumulates]

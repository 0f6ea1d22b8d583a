"""The tiny autograd engine of docs/chapters/tiny-autograd.md agrees with PyTorch and the maths.

The engine is the page's own code: the regions value, mul, add-power-tanh, composites
and engine of snippets/chapters/tiny_autograd.py, run as the page runs them.
Hypothesis builds random expression graphs: each new node applies an operation to
nodes drawn from all the earlier ones, so a node is often used twice or more (shared
subexpressions, and x * x). The same graph is built from the engine's `Value`s and from
float64 tensors, and every node's gradient must agree: the leaves' `.grad`, and the
intermediate nodes' through retain_grad().

Also checked: the page's worked examples (regions chain-by-hand, example-*,
composites-check, wrong-order, engine-accumulates, run on random x through their
``*-maths`` regions) against the formulas the page derives, and that a leaf's `grad`
accumulates across backward passes as PyTorch's `.grad` does.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import cache
from typing import Any

import pytest
import torch
from hypothesis import assume, event, given, settings
from hypothesis import strategies as st

from . import Session, run_region

SNIPPET = "chapters/tiny_autograd"
engine = run_region(SNIPPET, "value", "mul", "add-power-tanh", "composites", "engine")
Value = engine["Value"]

REL, ABS = 1e-9, 1e-9
BOUND = 1e3  # larger forward values are rejected: products of cubes would overflow

leaf_values = st.floats(min_value=-2.0, max_value=2.0, allow_nan=False, allow_infinity=False)

# Each operation works on the engine's Values and on tensors alike. Divisions divide by
# b² + 1 and roots take b² + 1, so no graph divides by zero or roots a negative number.
OPERATIONS: dict[str, Callable[[Any, Any], Any]] = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / (b * b + 1),
    "square": lambda a, b: a**2,
    "cube": lambda a, b: a**3,
    "root": lambda a, b: (b * b + 1) ** 0.5,
    "neg": lambda a, b: -a,
    "tanh": lambda a, b: a.tanh(),
    "constants": lambda a, b: 0.5 * a + 3,  # a number on the left: __rmul__, __radd__
    "from-constant": lambda a, b: 1 - a / (b * b + 2),  # __rsub__
    "reciprocal": lambda a, b: 2 / (a * a + 1),  # __rtruediv__
}

# The operations that use only their first operand; "root" uses only its second.
ONE_OPERAND = {"square", "cube", "neg", "tanh", "constants", "reciprocal"}


def operands(operation: str, first: int, second: int) -> tuple[int, ...]:
    if operation == "root":
        return (second,)
    return (first,) if operation in ONE_OPERAND else (first, second)


Program = tuple[list[float], list[tuple[str, int, int]]]


@st.composite
def programs(draw: st.DrawFn, max_ops: int = 12) -> Program:
    """Leaf values, then steps (operation, first operand, second operand).

    Operands are indices into all the nodes made so far, leaves first, so that earlier
    results are reused: the graph is a DAG with shared nodes, not a tree.
    """
    leaves = draw(st.lists(leaf_values, min_size=1, max_size=4))
    steps = []
    for made in range(draw(st.integers(min_value=1, max_value=max_ops))):
        available = len(leaves) + made
        operation = draw(st.sampled_from(sorted(OPERATIONS)))
        first = draw(st.integers(min_value=0, max_value=available - 1))
        second = draw(st.integers(min_value=0, max_value=available - 1))
        steps.append((operation, first, second))
    return leaves, steps


def grow(leaves: list[Any], steps: list[tuple[str, int, int]]) -> list[Any]:
    """Every node of the program, leaves first; the last one is the output."""
    nodes = list(leaves)
    for operation, first, second in steps:
        nodes.append(OPERATIONS[operation](nodes[first], nodes[second]))
    return nodes


def check_bounded(nodes: list[Any]) -> None:
    assume(all(math.isfinite(node.data) and abs(node.data) < BOUND for node in nodes))


def tensor_leaf(value: float) -> torch.Tensor:
    return torch.tensor(value, dtype=torch.float64, requires_grad=True)


def retain_grads(nodes: list[torch.Tensor]) -> None:
    for node in nodes:
        if not node.is_leaf:
            node.retain_grad()  # compare the intermediate gradients too


def grad_of(node: torch.Tensor) -> float:
    """A node that the output does not depend on gets no gradient: that is a 0."""
    return 0.0 if node.grad is None else node.grad.item()


def ancestors_of_output(n_leaves: int, steps: list[tuple[str, int, int]]) -> set[int]:
    """The indices of the output and of every node it depends on (nodes it ignores left out)."""
    output = n_leaves + len(steps) - 1
    needed = {output}
    for index in range(output, n_leaves - 1, -1):  # operands always come before their node
        if index in needed:
            needed.update(operands(*steps[index - n_leaves]))
    return needed


def test_ancestors_leave_out_the_nodes_the_output_ignores() -> None:
    # nodes 0, 1: leaves; 2 = 0 * 0 (unused by the output); 3 = 1 + 1 (the output)
    steps = [("mul", 0, 0), ("add", 1, 1)]
    assert ancestors_of_output(2, steps) == {1, 3}


def close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=REL, abs_tol=ABS)


def compare_with_pytorch(program: Program) -> None:
    """Build the program with both engines, backward from the last node, compare all."""
    leaves, steps = program
    mine = grow([Value(v) for v in leaves], steps)
    theirs = grow([tensor_leaf(v) for v in leaves], steps)
    retain_grads(theirs)
    mine[-1].backward()
    theirs[-1].backward()

    for index, (node, tensor) in enumerate(zip(mine, theirs, strict=True)):
        assert close(node.data, tensor.item()), f"value of node {index}"
        assert close(node.grad, grad_of(tensor)), (
            f"gradient of node {index}: engine {node.grad}, PyTorch {grad_of(tensor)}"
        )


@settings(max_examples=200, deadline=None)
@given(program=programs())
def test_random_graphs_have_pytorchs_values_and_gradients(program: Program) -> None:
    leaves, steps = program
    check_bounded(grow([Value(v) for v in leaves], steps))
    needed = ancestors_of_output(len(leaves), steps)
    uses = [
        index
        for made, step in enumerate(steps)
        if len(leaves) + made in needed
        for index in operands(*step)
    ]
    shared = any(uses.count(index) > 1 for index in set(uses))
    event("a node feeds two operands or more" if shared else "every node used once")
    compare_with_pytorch(program)


@settings(max_examples=100, deadline=None)
@given(program=programs(max_ops=8))
def test_leaf_gradients_accumulate_across_passes_as_in_pytorch(program: Program) -> None:
    """Two forward and backward passes from the same leaves: `grad` holds the sum."""
    leaves, steps = program
    mine_leaves = [Value(v) for v in leaves]
    theirs_leaves = [tensor_leaf(v) for v in leaves]
    for _ in range(2):  # a new graph each time, as in a training loop
        mine = grow(mine_leaves, steps)
        check_bounded(mine)
        mine[-1].backward()
        grow(theirs_leaves, steps)[-1].backward()

    for index, (leaf, tensor) in enumerate(zip(mine_leaves, theirs_leaves, strict=True)):
        assert close(leaf.grad, grad_of(tensor)), f"leaf {index}"


@settings(max_examples=100, deadline=None)
@given(program=programs(max_ops=8))
def test_a_second_pass_over_the_same_graph_is_like_retain_graph(program: Program) -> None:
    """The engine resets the intermediate gradients, so only the leaves double."""
    leaves, steps = program
    mine = grow([Value(v) for v in leaves], steps)
    check_bounded(mine)
    theirs = grow([tensor_leaf(v) for v in leaves], steps)
    mine[-1].backward()
    mine[-1].backward()
    theirs[-1].backward(retain_graph=True)
    theirs[-1].backward()

    for index in range(len(leaves)):
        assert close(mine[index].grad, grad_of(theirs[index])), f"leaf {index}"


# --- The page's worked examples and the formulas derived on the page -------------------

values = st.floats(min_value=-10.0, max_value=10.0, allow_nan=False, allow_infinity=False)


def run_on(region: str, **leaves: float) -> Session:
    """A region of the page, with the engine, on leaves Value(...) of the given values."""
    return run_region(
        SNIPPET, region, inputs={**engine, **{k: Value(v) for k, v in leaves.items()}}
    )


@settings(max_examples=50, deadline=None)
@given(x0=values)
def test_chain_node_by_node(x0: float) -> None:
    """loss = z², z = y + 4, y = 3x: each local_backward() multiplies in 2z, 1, then 3."""
    page = run_on("chain-by-hand-maths", x=x0)
    z = 3 * x0 + 4
    assert close(page["z"].grad, 2 * z)
    assert close(page["y"].grad, 2 * z * 1)
    assert close(page["x"].grad, 2 * z * 1 * 3)


@settings(max_examples=50, deadline=None)
@given(x0=values)
def test_chain(x0: float) -> None:
    """d/dx (3x + 4)² = 6(3x + 4)."""
    page = run_on("example-chain-maths", x=x0)
    assert close(page["loss"].data, (3 * x0 + 4) ** 2)
    assert close(page["x"].grad, 6 * (3 * x0 + 4))


@settings(max_examples=50, deadline=None)
@given(x0=values, w0=values, b0=values)
def test_several_variables(x0: float, w0: float, b0: float) -> None:
    """(xw + b)²: 2y·w, 2y·x and 2y with y = xw + b."""
    page = run_on("example-linear-maths", x=x0, w=w0, b=b0)
    y = x0 * w0 + b0
    assert close(page["x"].grad, 2 * y * w0)
    assert close(page["w"].grad, 2 * y * x0)
    assert close(page["b"].grad, 2 * y)


@cache
def walk_orders() -> Session:
    """The page's regions order and wrong-order: labels, preorder, reverse_topological."""
    return run_region(SNIPPET, "order", "wrong-order", inputs={**engine, "torch": torch})


@settings(max_examples=50, deadline=None)
@given(x0=values)
def test_used_twice(x0: float) -> None:
    """x·x: two paths of x each, summed to 2x; u + u·u with u = 3x: 3(1 + 2u)."""
    page = run_on("example-twice-maths", x=x0)
    assert close(page["x"].grad, 2 * x0)

    walks = walk_orders()
    page = run_region(
        SNIPPET,
        "wrong-order-maths",
        inputs={**walks, "x": Value(x0), "make_walk": walks["reverse_topological"]},
    )
    assert close(page["u"].grad, 1 + 2 * (3 * x0))
    assert close(page["x"].grad, 3 * (1 + 2 * (3 * x0)))


@settings(max_examples=50, deadline=None)
@given(x0=st.floats(min_value=0.1, max_value=10.0))
def test_every_operation_at_once(x0: float) -> None:
    """d/dx tanh((x - 1)/x) = (1 - tanh²((x - 1)/x)) / x²."""
    page = run_on("composites-check-maths", x=x0)
    assert close(page["x"].grad, (1 - math.tanh((x0 - 1) / x0) ** 2) / x0**2)


@settings(max_examples=50, deadline=None)
@given(x0=values)
def test_the_engine_accumulates_like_pytorch(x0: float) -> None:
    """Two passes of y = 3x + x², each on a new graph: x.grad = 2·(3 + 2x)."""
    page = run_on("engine-accumulates-maths", x=x0)
    assert close(page["x"].grad, 2 * (3 + 2 * x0))


def test_the_order_lists_every_node_after_its_parents() -> None:
    x = Value(2.0)
    u = 3 * x
    loss = u + u * u
    order = engine["topological_order"](loss)
    assert len(order) == len(set(order)) == 5  # x, the constant 3, u, u*u, loss
    for position, node in enumerate(order):
        assert all(order.index(parent) < position for parent in node.parents)


@pytest.mark.parametrize("operation", sorted(OPERATIONS))
def test_each_operation_on_its_own(operation: str) -> None:
    """Every operation of the random graphs, once, at a fixed point: a readable failure."""
    compare_with_pytorch(([0.7, -1.3], [(operation, 0, 1)]))


@pytest.mark.claim(
    "docs/chapters/tiny-autograd.md",
    "a multiplication keeps each input only if the *other* input requires grad",
)
@pytest.mark.parametrize(("x_requires", "w_requires"), [(True, True), (True, False), (False, True)])
@pytest.mark.parametrize("shape", [(), (3,), (2, 3)])
def test_a_multiplication_keeps_an_input_for_the_other_s_gradient_only(
    x_requires: bool, w_requires: bool, shape: tuple[int, ...]
) -> None:
    page = run_region(SNIPPET, "pytorch-saves")  # the page's own reading of the node
    assert page.output.splitlines()[-1] == "MulBackward0 keeps tensor(2.) and None"
    x = torch.full(shape, 2.0, requires_grad=x_requires)
    w = torch.full(shape, 3.0, requires_grad=w_requires)
    node = (x * w).grad_fn
    # x is needed only for w's gradient (d xw / dw = x), w only for x's.
    assert (node._saved_self is not None) == w_requires
    assert (node._saved_other is not None) == x_requires

"""docs/graph/grad-fn.md and its quiz, at the edges of their claims.

* graphs that exist at the same time share a leaf's AccumulateGrad node, whatever the
  operations and however many graphs; once none holds it, the next one gets a new node;
* in one graph a leaf has one AccumulateGrad node however many operations use it, and
  v.grad is the sum over the uses;
* next_functions follows the order of the operation's inputs, so the walk is the same on
  every run; an AccumulateGrad node adds to .grad;
* a node has neither .grad nor .grad_fn.
"""

from __future__ import annotations

import contextlib
import io

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from . import run_region

PAGE = "docs/graph/grad-fn.md"
QUIZ = "docs/practice/quizzes/grad-fn.md"
SNIPPET = "graph/grad_fn"

OPS = {
    "mul": lambda p: p * 2,
    "pow": lambda p: p**2,
    "add": lambda p: p + 1,
    "sin": lambda p: p.sin(),
    "view": lambda p: p.view(1),
    "sum": lambda p: p.sum(),
}


def _accumulate_grad(result: torch.Tensor):
    return result.grad_fn.next_functions[0][0]


@pytest.mark.claim(PAGE, "so graphs that exist at the same time share it")
@settings(max_examples=30, deadline=None)
@given(st.lists(st.sampled_from(sorted(OPS)), min_size=2, max_size=6))
def test_graphs_alive_at_the_same_time_share_the_node(ops: list[str]) -> None:
    page = run_region(SNIPPET, "forward", "held-weakly")
    assert "second graph, the same node: True {'note': 'seen before'}" in page.output
    p = page["p"]
    graphs = [OPS[op](p) for op in ops]
    graphs[0].backward(retain_graph=True)  # a backward pass does not replace it either
    nodes = [_accumulate_grad(g) for g in graphs] + [_accumulate_grad(p * 5)]
    assert all(node is nodes[0] for node in nodes)
    assert nodes[0].variable is p


@pytest.mark.claim(PAGE, "Once no graph holds it, it is freed, and the next operation makes a")
@pytest.mark.parametrize("op", sorted(OPS))
def test_once_no_graph_holds_the_node_a_new_one_is_made(op: str) -> None:
    page = run_region(SNIPPET, "forward", "held-weakly")
    assert "third graph, its node's notes: {}" in page.output
    p = torch.tensor(1.0, requires_grad=True)
    graph = OPS[op](p)
    _accumulate_grad(graph).metadata["note"] = "old"
    assert _accumulate_grad(OPS[op](p)).metadata == {"note": "old"}  # still held by `graph`
    del graph
    assert _accumulate_grad(OPS[op](p)).metadata == {}  # a new node


@pytest.mark.claim(PAGE, "however many operations of the graph use it")
@settings(max_examples=30, deadline=None)
@given(st.integers(1, 8), st.floats(-3, 3, allow_nan=False))
def test_one_node_per_leaf_in_a_graph_and_the_gradients_add(uses: int, value: float) -> None:
    walk = run_region(SNIPPET, "forward", "walker")["walk"]
    v = torch.tensor(value, dtype=torch.float64, requires_grad=True)
    total = sum((v * (k + 1) for k in range(uses)), torch.tensor(0.0, dtype=torch.float64))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        walk(total.grad_fn, {"v": v})
    lines = out.getvalue().splitlines()
    leaf_lines = [line for line in lines if "(leaf v)" in line]
    assert sum("already listed above" not in line for line in leaf_lines) == 1
    assert len(leaf_lines) == uses
    total.backward()
    assert v.grad.item() == pytest.approx(uses * (uses + 1) / 2)  # d/dv sum_k (k+1) v


@pytest.mark.claim(
    PAGE, "`next_functions` lists the inputs in the order the operation received them"
)
def test_next_functions_follow_the_order_of_the_inputs_and_the_walk_repeats() -> None:
    first = run_region(SNIPPET, "forward", "walker")
    second = run_region(SNIPPET, "forward", "walker")
    assert first.output == second.output  # the same walk on every run
    w, b = first["w"], first["b"]
    u = w * first["x"]
    names = lambda t: [None if n is None else n.name() for n, _ in t.grad_fn.next_functions]  # noqa: E731
    assert names(u + b) == ["MulBackward0", "torch::autograd::AccumulateGrad"]
    assert names(b + u) == ["torch::autograd::AccumulateGrad", "MulBackward0"]


@pytest.mark.claim(PAGE, "the node adds the gradient it receives to its leaf's `.grad`")
def test_accumulate_grad_adds() -> None:
    page = run_region(SNIPPET, "forward", "next-functions", "accumulate-grad")
    assert page["w"].grad.item() == 28.0 and page["b"].grad.item() == 14.0
    y = page["w"] * page["x"] + page["b"]
    (y**2).backward()  # a second graph, the same leaves: the gradients are added
    assert page["w"].grad.item() == 56.0 and page["b"].grad.item() == 28.0


@pytest.mark.claim(QUIZ, "Nodes have no `grad_fn`: tensors do.")
def test_a_node_has_neither_grad_nor_grad_fn() -> None:
    page = run_region(SNIPPET, "forward", "next-functions", "accumulate-grad")
    for node in (page["node_w"], page["u"].grad_fn):
        with pytest.raises(AttributeError):
            _ = node.grad
        with pytest.raises(AttributeError):
            _ = node.grad_fn
    assert page["w"].grad_fn is None

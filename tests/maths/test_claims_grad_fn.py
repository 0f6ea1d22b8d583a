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


# --- Nodes are objects: hooks, and the order of the backward pass ---

UNARY = {"sin": torch.sin, "exp": torch.exp, "square": lambda t: t * t, "neg": torch.neg}
BINARY = {"add": torch.add, "mul": torch.mul, "sub": torch.sub}


def _random_graph(data, leaves: int):
    """A graph of up to 8 operations on `leaves` leaves that require grad: each operation
    takes one or two earlier values (hypothesis picks them); the root sums the last one."""
    values = [
        torch.tensor(0.3 * (k + 1), dtype=torch.float64, requires_grad=True) for k in range(leaves)
    ]
    for _ in range(data.draw(st.integers(1, 8))):
        if data.draw(st.booleans()):
            op = UNARY[data.draw(st.sampled_from(sorted(UNARY)))]
            values.append(op(data.draw(st.sampled_from(values))))
        else:
            op = BINARY[data.draw(st.sampled_from(sorted(BINARY)))]
            values.append(
                op(data.draw(st.sampled_from(values)), data.draw(st.sampled_from(values)))
            )
    root = values[-1] * 1.0  # a node even when the last value is a leaf
    return root, values


def _real_order(page, root: torch.Tensor) -> list:
    ran = []
    for node in page["all_nodes"](root.grad_fn):
        node.register_prehook(lambda grad_outputs, node=node: ran.append(node))
    root.backward()
    return ran


@pytest.mark.claim(
    PAGE, "**It runs a node only when every gradient the node waits for has arrived.**"
)
@settings(max_examples=40, deadline=None)
@given(st.data(), st.integers(1, 3))
def test_a_node_runs_only_after_every_node_that_sends_it_a_gradient(data, leaves: int) -> None:
    page = run_region(SNIPPET, "forward", "walker", "node-hooks", "engine-order")
    assert "the engine ran:  ['AddBackward0', 'SinBackward0', 'ExpBackward0'" in page.output
    root, _ = _random_graph(data, leaves)
    order = _real_order(page, root)
    nodes = page["all_nodes"](root.grad_fn)
    assert sorted(map(id, order)) == sorted(map(id, nodes))  # each node runs once
    position = {id(node): i for i, node in enumerate(order)}
    for node in nodes:
        for child, _ in node.next_functions:
            if child is not None:
                assert position[id(node)] < position[id(child)]


@pytest.mark.claim(
    PAGE, "**Among the nodes ready to run, it runs the one with the highest *sequence"
)
@settings(max_examples=40, deadline=None)
@given(st.data(), st.integers(1, 3))
def test_among_ready_nodes_the_highest_sequence_number_runs_first(data, leaves: int) -> None:
    page = run_region(SNIPPET, "forward", "walker", "node-hooks", "engine-order")
    root, _ = _random_graph(data, leaves)
    order = _real_order(page, root)
    waiting = page["dependencies"](root.grad_fn)
    ready = {id(root.grad_fn): root.grad_fn}
    for node in order:  # the node that ran has the largest number among the ready ones
        assert node._sequence_nr() == max(n._sequence_nr() for n in ready.values())
        del ready[id(node)]
        for child, _ in node.next_functions:
            if child is not None:
                waiting[child] -= 1
                if waiting[child] == 0:
                    ready[id(child)] = child


@pytest.mark.claim(PAGE, "The two rules are enough to predict the order.")
@settings(max_examples=40, deadline=None)
@given(st.data())
def test_the_pages_model_of_the_engine_predicts_its_order(data) -> None:
    # one leaf, so no two AccumulateGrad nodes (which share the largest number) tie
    page = run_region(SNIPPET, "forward", "walker", "node-hooks", "engine-order", "engine-model")
    assert (
        "predicted for loss: ['PowBackward0', 'AddBackward0', 'AccumulateGrad (b)'" in page.output
    )
    root, _ = _random_graph(data, leaves=1)
    predicted = page["engine_order"](root.grad_fn)
    assert [id(n) for n in _real_order(page, root)] == [id(n) for n in predicted]


@pytest.mark.claim(PAGE, "one more than the node made before it in the same thread")
@settings(max_examples=30, deadline=None)
@given(st.data())
def test_each_new_node_gets_the_next_sequence_number(data) -> None:
    page = run_region(SNIPPET, "forward", "walker", "node-hooks", "engine-order")
    assert "MulBackward0            first + 0          2" in page.output
    root, values = _random_graph(data, leaves=2)
    made = [v.grad_fn for v in values[2:]] + [root.grad_fn]  # one node per operation, in order
    numbers = [n._sequence_nr() for n in made]
    assert numbers == list(range(numbers[0], numbers[0] + len(numbers)))
    for leaf in values[:2]:  # an AccumulateGrad node: the largest number there is
        assert (leaf * 1).grad_fn.next_functions[0][0]._sequence_nr() == 2**64 - 1


@pytest.mark.claim(PAGE, "one more than the node made before it in the same thread")
@pytest.mark.parametrize("made_elsewhere", [0, 1, 5])
def test_nodes_made_in_another_thread_do_not_advance_the_count(made_elsewhere: int) -> None:
    import threading

    page = run_region(SNIPPET, "forward", "walker", "node-hooks", "engine-order")
    p = page["p"]
    first = (p * 2).grad_fn._sequence_nr()

    def make_nodes() -> None:
        for _ in range(made_elsewhere):
            p.sin()

    thread = threading.Thread(target=make_nodes)
    thread.start()
    thread.join()
    assert (p * 2).grad_fn._sequence_nr() == first + 1


@pytest.mark.claim(PAGE, "the gradients it passes on as well: one per input of the operation")
@pytest.mark.parametrize("op", sorted(BINARY))
@pytest.mark.parametrize("second_requires_grad", [True, False])
def test_the_hooks_see_the_chain_rule_gradients(op: str, second_requires_grad: bool) -> None:
    page = run_region(SNIPPET, "forward", "walker", "node-hooks")
    assert "MulBackward0         passes on [28.0, None]" in page.output
    a = torch.tensor([0.5, -2.0], dtype=torch.float64, requires_grad=True)
    b = torch.tensor([1.5, 3.0], dtype=torch.float64, requires_grad=second_requires_grad)
    c = torch.tensor([2.0, -1.0], dtype=torch.float64)
    out = BINARY[op](a, b)
    seen = {}
    out.grad_fn.register_prehook(lambda grad_outputs: seen.update(received=grad_outputs))
    out.grad_fn.register_hook(lambda grad_inputs, _: seen.update(passed=grad_inputs))
    (out * c).sum().backward()
    assert torch.equal(seen["received"][0], c)  # d root / d out
    inputs = [a, b] if second_requires_grad else [a]
    expected = torch.autograd.grad(BINARY[op](a, b), inputs, c)
    assert len(seen["passed"]) == 2
    assert torch.allclose(seen["passed"][0], expected[0])
    if second_requires_grad:
        assert torch.allclose(seen["passed"][1], expected[1])
    else:
        assert seen["passed"][1] is None


@pytest.mark.claim(PAGE, "a pre-hook replaces what the node receives, a hook what it passes on")
@pytest.mark.parametrize("kind", ["prehook", "hook"])
def test_a_hook_that_returns_gradients_replaces_them(kind: str) -> None:
    page = run_region(SNIPPET, "forward", "walker", "node-hooks", "node-hook-replaces")
    assert "w.grad = 280.0  b.grad = 140.0" in page.output
    w = torch.tensor(3.0, requires_grad=True)
    b = torch.tensor(1.0, requires_grad=True)
    loss = (w * 2.0 + b) ** 2  # y = 7: d loss / dy = 14
    add = loss.grad_fn.next_functions[0][0]
    if kind == "prehook":
        add.register_prehook(lambda grad_outputs: (grad_outputs[0] * 10,))
        expected_w, expected_b = 280.0, 140.0
    else:
        add.register_hook(lambda grad_inputs, _: (grad_inputs[0] * 10, grad_inputs[1] * -1))
        expected_w, expected_b = 280.0, -14.0
    loss.backward()
    assert (w.grad.item(), b.grad.item()) == (expected_w, expected_b)


@pytest.mark.claim(PAGE, "The walk lists `MulBackward0` and the node of $w$ before the node of $b$")
@settings(max_examples=30, deadline=None)
@given(st.data(), st.integers(1, 3))
def test_all_nodes_lists_the_nodes_in_the_order_of_the_walk(data, leaves: int) -> None:
    page = run_region(SNIPPET, "forward", "walker", "node-hooks")
    root, _ = _random_graph(data, leaves)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        page["walk"](root.grad_fn, {})
    walked = [
        line.strip().split()[0]
        for line in out.getvalue().splitlines()
        if "already listed" not in line and not line.strip().startswith("None")
    ]
    assert walked == [type(n).__name__ for n in page["all_nodes"](root.grad_fn)]

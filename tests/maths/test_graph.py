"""Part 1, the computational graph: the hand derivations of docs/graph/*.md, checked on the
pages' own code (snippets/graph/*.py).

Each test runs regions of a page's snippet (stdout captured) and compares what the page's
code produced with the formula the page derives by hand, written here independently:

* requires-grad: loss = (wx - t)², dloss/dw = 2(wx - t)·x; h = a·w, p = h + c;
* grad-fn: loss = (wx + b)², dloss/dw = 2(wx + b)·x, dloss/db = 2(wx + b); d(vx + v²)/dv = x + 2v;
* leaves: the rule is_leaf = not requires_grad or grad_fn is None; for loss = Σ wᵢxᵢ the
  gradient is x, and 0.01·x for the hidden leaf r of w = 0.01·r;
* dynamic-graphs: f = w₊x (x > 0) or (w₋x)² with ∂f/∂w₊ = x, ∂f/∂w₋ = 2(w₋x)·x; grow(x) = x·wⁿ
  with dy/dw = n·x·wⁿ⁻¹; g(x) = 2x (Σx > 0) or -x, so each ∂Σg/∂xᵢ = 2 or -1; torch.jit.trace
  keeps 2x for every input, torch.compile gives g's gradients from 1 + 2 graphs;
* saved-tensors: a product saves each input only if the other requires grad; aⁿ saves a and n,
  and n·aⁿ⁻¹ from the saved values is the gradient; Σv twice gives 2 per element; a node
  saving its output keeps the memory, not the object; rebinding loss without backward() peaks
  at two graphs' saved tensors, backward() or del loss at one.
"""

from __future__ import annotations

import contextlib
import io
from typing import Any

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from . import run_region


def run_regions(snippet: str, *names: str, **inputs: Any) -> dict[str, Any]:
    """Run the named regions of snippets/graph/<snippet>.py, in order, in one namespace
    (tests/maths run_region: the engine's region reader), warnings swallowed.

    The namespace starts with ``torch`` and ``nn`` (imported by the first region of each
    snippet) and ``inputs``; it is returned, so a test can read the page's tensors and
    functions.
    """
    return run_region(
        f"graph/{snippet}", *names, inputs={"torch": torch, "nn": torch.nn, **inputs}, quiet=True
    )


values = st.floats(min_value=-5.0, max_value=5.0, allow_nan=False, allow_infinity=False)


def close(actual: torch.Tensor | float | None, expected: float) -> bool:
    assert actual is not None, "no gradient was stored"
    return torch.allclose(
        torch.as_tensor(actual, dtype=torch.float64),
        torch.tensor(expected, dtype=torch.float64),
        rtol=1e-5,
        atol=1e-5,
    )


# --- requires-grad --------------------------------------------------------------------


def test_requires_grad_chain_and_weight_gradient() -> None:
    ns = run_regions("requires_grad", "spread", "chain")
    # h = a·w = 2·4, p = h + c, loss = (p - 10)²
    assert ns["h"].item() == 2.0 * 4.0 and ns["p"].item() == 8.0 + 3.0
    assert ns["loss"].item() == (11.0 - 10.0) ** 2
    ns = run_regions("requires_grad", "what-for")
    # dloss/dw = 2(wx - t)·x at x = 3, t = 6, w = 1.5; x and target ask for nothing
    w, x, t = 1.5, 3.0, 6.0
    assert close(ns["w"].grad, 2 * (w * x - t) * x)
    assert ns["x"].grad is None and ns["target"].grad is None


def test_requires_grad_spread_rule() -> None:
    ns = run_regions("requires_grad", "spread")
    # a result requires grad exactly when an input does: w is the only tracked input
    for expression, result in ns["results"].items():
        assert result.requires_grad == ("w" in expression), expression


# --- grad-fn --------------------------------------------------------------------------


def test_grad_fn_gradients_of_the_affine_square() -> None:
    ns = run_regions("grad_fn", "forward", "next-functions", "walker", "accumulate-grad")
    x, w, b = 2.0, 3.0, 1.0
    y = w * x + b
    assert close(ns["w"].grad, 2 * y * x)  # dloss/dw = 2y·x
    assert close(ns["b"].grad, 2 * y)  # dloss/db = 2y
    assert ns["node_w"].variable is ns["w"] and ns["node_b"].variable is ns["b"]


@settings(max_examples=30, deadline=None)
@given(values, values)
def test_grad_fn_walker_lists_each_node_once(v_value: float, x_value: float) -> None:
    ns = run_regions(
        "grad_fn",
        "walker",
        w=torch.tensor(1.0),
        b=torch.tensor(1.0),
        loss=torch.tensor(1.0, requires_grad=True) * 2,
    )
    v = torch.tensor(v_value, requires_grad=True)
    twice = v * x_value + v**2
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        ns["walk"](twice.grad_fn, {"v": v})
    lines = out.getvalue().splitlines()
    assert lines[0] == "AddBackward0"
    assert sum("already listed above" in line for line in lines) == 1
    twice.backward()
    assert close(v.grad, x_value + 2 * v_value)  # d(vx + v²)/dv = x + 2v


# --- leaves ---------------------------------------------------------------------------


def test_leaves_rule_agrees_with_is_leaf() -> None:
    ns = run_regions("leaves", "table", "rule")
    rule = ns["leaf_by_the_rule"]
    for t in ns["cases"].values():
        assert rule(t) == t.is_leaf
    # and on tensors the page does not list
    w = torch.randn(2, requires_grad=True)
    for t in (w, w.detach(), w * 2, (w * 2).sum(), torch.nn.Parameter(torch.ones(2))):
        assert rule(t) == t.is_leaf


def test_leaves_bug_and_fix_gradients() -> None:
    ns = run_regions("leaves", "bug", "where-it-went", "fix")
    x = torch.tensor([1.0, 2.0, 3.0])
    with pytest.warns(UserWarning, match="not a leaf"):
        assert ns["w"].grad is None
    assert torch.allclose(ns["hidden"].grad, 0.01 * x)  # dloss/dr = 0.01·x
    assert torch.allclose(ns["w_fixed"].grad, x)  # dloss/dw = x


# --- dynamic-graphs -------------------------------------------------------------------


@settings(max_examples=50, deadline=None)
@given(st.floats(min_value=-5.0, max_value=5.0).filter(lambda v: abs(v) > 1e-3), values, values)
def test_branch_gradients(x_value: float, pos: float, neg: float) -> None:
    ns = run_regions("dynamic_graphs", "branch")
    ns["w_pos"] = torch.tensor(pos, dtype=torch.float64, requires_grad=True)
    ns["w_neg"] = torch.tensor(neg, dtype=torch.float64, requires_grad=True)
    ns["f"](torch.tensor(x_value, dtype=torch.float64)).backward()
    if x_value > 0:
        assert close(ns["w_pos"].grad, x_value) and ns["w_neg"].grad is None
    else:
        assert close(ns["w_neg"].grad, 2 * (neg * x_value) * x_value)
        assert ns["w_pos"].grad is None


@settings(max_examples=50, deadline=None)
@given(
    st.floats(min_value=0.05, max_value=9.5),
    st.floats(min_value=1.2, max_value=3.0),
)
def test_loop_gradient_is_n_x_w_to_the_n_minus_1(x_value: float, w_value: float) -> None:
    ns = run_regions("dynamic_graphs", "loop")
    w = torch.tensor(w_value, dtype=torch.float64, requires_grad=True)
    ns["w"] = w
    y = ns["grow"](torch.tensor(x_value, dtype=torch.float64))
    n = ns["multiplications"](y)
    expected_n = 0
    while x_value * w_value**expected_n < 10:
        expected_n += 1
    assert n == expected_n
    y.backward()
    assert torch.allclose(
        w.grad, torch.tensor(n * x_value * w_value ** (n - 1), dtype=torch.float64)
    )


def test_a_run_that_records_nothing() -> None:
    ns = run_regions("dynamic_graphs", "loop", "no-loop")
    assert ns["big"].grad_fn is None and not ns["big"].requires_grad
    with pytest.raises(RuntimeError, match="does not require grad"):
        ns["big"].backward()


vectors = st.lists(values, min_size=1, max_size=4).filter(lambda v: abs(sum(v)) > 1e-3)


def g_gradient_by_hand(x_values: list[float]) -> list[float]:
    """g(x) = 2x when Σx > 0, else -x: the gradient of Σg is 2, or -1, per element."""
    return [2.0 if sum(x_values) > 0 else -1.0] * len(x_values)


@settings(max_examples=50, deadline=None)
@given(vectors)
def test_static_g_gradient_is_the_branch_that_ran(x_values: list[float]) -> None:
    ns = run_regions("dynamic_graphs", "branch", "static-g")
    x = torch.tensor(x_values, dtype=torch.float64, requires_grad=True)
    ns["g"](x).sum().backward()
    assert torch.allclose(x.grad, torch.tensor(g_gradient_by_hand(x_values), dtype=torch.float64))


@settings(max_examples=20, deadline=None)
@given(st.lists(values, min_size=2, max_size=2).filter(lambda v: abs(sum(v)) > 1e-3))
def test_jit_trace_keeps_the_branch_of_its_example(x_values: list[float]) -> None:
    ns = run_regions("dynamic_graphs", "branch", "static-g", "jit-trace")
    x = torch.tensor(x_values, requires_grad=True)
    y = ns["traced"](x)  # traced on a positive sum: 2x, whatever the input
    y.sum().backward()
    assert torch.allclose(y, 2 * torch.tensor(x_values))
    assert torch.allclose(x.grad, torch.full((2,), 2.0))
    right = torch.tensor(g_gradient_by_hand(x_values))
    assert torch.equal(x.grad, right) == (sum(x_values) > 0)


def test_compile_breaks_the_graph_and_keeps_eager_gradients() -> None:
    ns = run_regions("dynamic_graphs", "branch", "static-g", "compile")
    # the page's three calls: the condition, then each branch once: 1 + 2 graphs
    assert [ns["ops"](graph) for graph in ns["graphs"]] == [["sum", "gt"], ["mul"], ["neg"]]
    for x_values in ([0.5, -3.0, 1.0], [4.0, -1.0, 0.25]):
        x = torch.tensor(x_values, requires_grad=True)
        ns["compiled_g"](x).sum().backward()
        assert torch.allclose(x.grad, torch.tensor(g_gradient_by_hand(x_values)))


# --- saved-tensors --------------------------------------------------------------------


def test_a_product_saves_each_input_only_if_the_other_requires_grad() -> None:
    run_regions("saved_tensors", "mul")
    for a_tracked, b_tracked in [(True, True), (True, False), (False, True)]:
        a = torch.tensor(2.0, requires_grad=a_tracked)
        b = torch.tensor(5.0, requires_grad=b_tracked)
        node = (a * b).grad_fn
        assert (node._saved_self is not None) == b_tracked
        assert (node._saved_other is not None) == a_tracked


@settings(max_examples=50, deadline=None)
@given(st.floats(min_value=0.1, max_value=5.0))
def test_power_gradient_from_the_saved_values(a_value: float) -> None:
    ns = run_regions("saved_tensors", "mul", "pow")
    node = ns["node"]
    assert node._saved_exponent == 3 and close(ns["from_saved"], 3 * 2.0**2)
    a = torch.tensor(a_value, dtype=torch.float64, requires_grad=True)
    y = a**3
    from_saved = y.grad_fn._saved_exponent * y.grad_fn._saved_self ** (
        y.grad_fn._saved_exponent - 1
    )
    y.backward()
    assert close(a.grad, 3 * a_value**2) and close(from_saved, 3 * a_value**2)


def test_sum_twice_and_retained_power() -> None:
    ns = run_regions("saved_tensors", "twice", "retain")
    assert torch.equal(ns["v"].grad, torch.full((3,), 2.0))  # 1 per element, per pass
    assert close(ns["a"].grad, 2 * 3 * 2.0**2)  # two passes of 3a²


def test_a_node_that_saves_its_output_keeps_the_memory_not_the_object() -> None:
    ns = run_regions("saved_tensors", "mul", "kept-alive", "saved-output")
    assert ns["watch"]() is None  # the object h is gone
    assert ns["saved"].untyped_storage().data_ptr() == ns["memory"]  # its memory is not
    assert torch.allclose(ns["saved"], ns["a"].detach().exp())


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_rebinding_loss_peaks_at_two_graphs(depth: int) -> None:
    ns = run_regions("saved_tensors", "mul", "kept-alive", "two-graphs")
    assert ns["count"] == {"alive": 0, "most": 2}  # the page's last loop: del loss
    pack, unpack, count = ns["pack"], ns["unpack"], ns["count"]
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)

    def forward() -> torch.Tensor:
        h = a
        for _ in range(depth):
            h = h.sin()  # each sin saves its input: depth saved tensors per graph
        return h.sum()

    for way in ("rebind", "backward", "del"):
        loss = None  # let the previous way's last graph go
        assert count["alive"] == 0
        count["most"] = 0
        with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
            for _ in range(3):
                loss = forward()
                if way == "backward":
                    loss.backward()
                elif way == "del":
                    del loss
        graphs_at_most = 2 if way == "rebind" else 1  # the old graph and the one being built
        assert count["most"] == graphs_at_most * depth, way

"""Interview pages on graphs and control flow, at the edges of their claims.

* docs/interview/static-vs-dynamic-computation-graphs.md: ``torch.compile(...,
  fullgraph=True)`` refuses the page's ``f`` (a Python ``if`` on the data) and accepts
  ``f_cond``, whose one graph gives eager ``f``'s values and gradients on both signs and
  at the tie ``x.sum() == 0`` (where ``>`` is false), in float32 and float64;
  ``torch.export`` of ``f_cond``, traced on a positive input, is right on a negative one,
  where ``torch.jit.trace`` of ``f`` is wrong.
* docs/interview/how-does-autograd-handle-if-statements-and-loops.md: the condition is
  never tracked; the loop's gradient is n x w^(n-1) by hand, with one product node per
  iteration; ``torch.where`` gives the branch not chosen 0, not None, at x = 0 too; the
  safe-input fix gives 1 / (2 sqrt x) for x > 0 and 0 elsewhere (0, -0 and tiny values
  included), where the unsafe version is NaN.

Each test takes the page's functions from its regions (snippets/interview/...).
"""

from __future__ import annotations

import warnings

import pytest
import torch
import torch._dynamo
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.maths import Session, run_region

PAGE = "docs/interview/static-vs-dynamic-computation-graphs.md"
GRAPHS = "interview/static_vs_dynamic_computation_graphs"
# Both signs, the tie at a sum of 0, and one element.
INPUTS = [[1.0, 2.0], [-1.0, -2.0], [1.0, -1.0], [0.0, 0.0], [-3.0]]


def _page() -> Session:
    return run_region(GRAPHS, "dynamic", "cond")


@pytest.mark.claim(PAGE, "compiled with `fullgraph=True`, which refuses any graph break")
def test_fullgraph_refuses_the_python_if_and_takes_cond() -> None:
    page = _page()
    torch._dynamo.reset()
    with pytest.raises(torch._dynamo.exc.Unsupported):
        torch.compile(page["f"], fullgraph=True, backend="eager")(torch.tensor([1.0, 2.0]))
    torch._dynamo.reset()
    assert len(page["cond_graphs"]) == 1  # the page's three calls, one graph
    assert page["operations"](page["cond_graphs"][0]) == ["sum", "gt", "cond", "getitem"]


@pytest.mark.claim(PAGE, "One graph serves both signs")
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_one_cond_graph_gives_eager_values_and_gradients(dtype: torch.dtype) -> None:
    page = _page()
    torch._dynamo.reset()
    graphs: list[torch.fx.GraphModule] = []

    def keep(graph_module: torch.fx.GraphModule, _: object) -> object:
        graphs.append(graph_module)
        return graph_module.forward

    compiled = torch.compile(page["f_cond"], fullgraph=True, backend=keep, dynamic=False)
    for values in INPUTS:
        x = torch.tensor(values, dtype=dtype, requires_grad=True)
        y = compiled(x)
        y.sum().backward()
        # By hand: 2x and gradient 2 where the sum is > 0, else -x and gradient -1.
        positive = sum(values) > 0
        expected = [2 * v for v in values] if positive else [-v for v in values]
        assert y.tolist() == expected
        assert x.grad.tolist() == [2.0 if positive else -1.0] * len(values)
        # ... the same as the page's eager f with its Python if.
        eager = x.detach().clone().requires_grad_()
        page["f"](eager).sum().backward()
        assert torch.equal(eager.grad, x.grad)
    assert len(graphs) == 2  # one per shape (2 elements, 1 element), never one per sign
    torch._dynamo.reset()


@pytest.mark.claim(PAGE, "`torch.export` captures such a graph too")
def test_export_keeps_both_branches() -> None:
    page = _page()

    class F(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return page["f_cond"](x)

    exported = torch.export.export(F(), (torch.tensor([1.0, 2.0]),)).module()
    negative = torch.tensor([-1.0, -2.0])
    assert exported(negative).tolist() == [1.0, 2.0]  # -x: the other branch
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        traced = torch.jit.trace(page["f"], torch.tensor([1.0, 2.0]), check_trace=False)
    assert traced(negative).tolist() == [-2.0, -4.0]  # jit.trace kept the branch it saw


IF_PAGE = "docs/interview/how-does-autograd-handle-if-statements-and-loops.md"
IF = "interview/how_does_autograd_handle_if_statements_and_loops"


@pytest.mark.claim(IF_PAGE, "The condition itself has no gradient: it gives a `bool`")
@pytest.mark.parametrize("value", [2.0, 0.0, -1.0])
def test_the_condition_is_not_tracked(value: float) -> None:
    page = run_region(IF, "branch")
    x = torch.tensor(value, requires_grad=True)
    condition = x > 0
    assert not condition.requires_grad and condition.grad_fn is None
    assert isinstance(bool(condition), bool)
    y = page["f"](x)  # the page's f, with the if, at the edge 0 too
    expected = "MulBackward0" if value > 0 else "PowBackward0"
    assert y.grad_fn.name() == expected


@pytest.mark.claim(IF_PAGE, "A loop records its body once per iteration that runs")
@settings(max_examples=40, deadline=None)
@given(st.floats(0.01, 9.99), st.sampled_from([torch.float32, torch.float64]))
def test_the_loop_gradient(x0: float, dtype: torch.dtype) -> None:
    page = run_region(IF, "branch", "loop")
    w = torch.tensor(2.0, dtype=dtype, requires_grad=True)
    page["w"] = w
    y = page["grow"](torch.tensor(x0, dtype=dtype))
    y.backward()
    x = torch.tensor(x0, dtype=dtype).item()
    n = 0  # the iterations, by hand: the smallest n with x 2^n >= 10
    while x * 2.0**n < 10:
        n += 1
    assert n >= 1
    assert w.grad.item() == pytest.approx(n * x * 2.0 ** (n - 1), rel=1e-6)  # n x w^(n-1)
    nodes, node = 0, y.grad_fn
    while node is not None and node.name() == "MulBackward0":  # one product per iteration
        nodes += 1
        node = node.next_functions[0][0]
    assert nodes == n


@pytest.mark.claim(IF_PAGE, "the one not chosen gets a zero gradient")
@pytest.mark.parametrize("value", [2.0, 0.0, -3.0])
def test_where_gives_zero_not_none(value: float) -> None:
    w_pos = torch.tensor(3.0, requires_grad=True)
    w_neg = torch.tensor(0.5, requires_grad=True)
    x = torch.tensor(value)
    run_region(IF, "where-maths", inputs={"torch": torch, "w_pos": w_pos, "w_neg": w_neg, "x": x})
    chosen, other = (w_pos, w_neg) if value > 0 else (w_neg, w_pos)
    assert other.grad is not None and other.grad.item() == 0.0
    by_hand = value if value > 0 else 2 * 0.5 * value**2  # d(w x)/dw = x; d(w x)²/dw = 2 w x²
    assert chosen.grad.item() == pytest.approx(by_hand)


@pytest.mark.claim(IF_PAGE, "here by giving the square root a harmless input, 1, wherever")
@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.one_of(st.sampled_from([0.0, -0.0, 1e-30, -1.0, 4.0]), st.floats(-1e6, 1e6)),
        min_size=1,
        max_size=6,
    ),
    st.sampled_from([torch.float32, torch.float64]),
)
def test_the_safe_input_gives_the_true_gradient(values: list[float], dtype: torch.dtype) -> None:
    x = torch.tensor(values, dtype=dtype, requires_grad=True)
    page = run_region(IF, "where-nan-maths", inputs={"torch": torch, "x": x})
    positive = x.detach() > 0
    by_hand = torch.where(positive, 0.5 / x.detach().sqrt(), 0.0)  # 1 / (2 sqrt x), else 0
    torch.testing.assert_close(page["x"].grad, by_hand)
    assert torch.isfinite(page["x"].grad).all()
    # ... where the unsafe version is NaN: below 0 (sqrt is NaN) and at 0 (its slope is inf).
    unsafe = x.detach().clone().requires_grad_()
    torch.where(unsafe > 0, unsafe.sqrt(), 0.0).sum().backward()
    assert torch.equal(unsafe.grad.isnan(), ~positive)

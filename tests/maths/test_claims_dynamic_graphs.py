"""docs/graph/dynamic-graphs.md, at the edges of its claims.

* two runs share only the leaf's AccumulateGrad node, and only while a graph holds it;
* the page's keep_graph backend runs each captured graph as it is, so autograd records
  the branch op by op; with an AOTAutograd backend (aot_eager) it records one
  CompiledFunctionBackward node per graph, with the same gradients, for either sign;
* a torch.jit.trace result warns once, when the trace is made: later calls, on any input,
  run the wrong branch without a warning.
"""

from __future__ import annotations

import contextlib
import inspect
import io
import logging
import sys
import types
import warnings

import pytest
import torch

from . import run_region

PAGE = "docs/graph/dynamic-graphs.md"
SNIPPET = "graph/dynamic_graphs"
INPUTS = ([1.0, 2.0], [-1.0, -2.0], [0.5, -3.0, 4.0], [-0.25])


def _by_hand(values: list[float]) -> list[float]:
    """g(x) = 2x when the sum is positive, else -x: the gradient of sum(g) per element."""
    return [2.0 if sum(values) > 0 else -1.0] * len(values)


@pytest.mark.claim(PAGE, "while one graph holds it, every new graph of `w` uses it again")
def test_runs_share_the_leafs_node_only_while_a_graph_holds_it() -> None:
    page = run_region(SNIPPET, "anew")
    assert "the same AccumulateGrad: True" in page.output
    assert "the same MulBackward0:   False" in page.output
    below = page["below"]
    node = below(below(page["first"].grad_fn))
    node.metadata["run"] = "first"
    assert below(below(page["model"](torch.tensor(3.0)).grad_fn)).metadata == {"run": "first"}
    del node
    page["first"] = page["second"] = None  # no graph holds the node any more
    assert below(below(page["model"](torch.tensor(3.0)).grad_fn)).metadata == {}


@pytest.mark.claim(PAGE, "because this backend runs each graph as it is")
def test_the_pages_backend_records_each_operation() -> None:
    page = run_region(SNIPPET, "anew", "branch", "static-g", "compile")
    for values in INPUTS:
        x = torch.tensor(values, requires_grad=True)
        y = page["compiled_g"](x)
        assert page["path"](y) == ("MulBackward0" if sum(values) > 0 else "NegBackward0")


@pytest.mark.claim(
    PAGE, "then records one node for a whole captured graph, `CompiledFunctionBackward`"
)
def test_an_aot_autograd_backend_records_one_compiled_node_and_the_same_gradients() -> None:
    page = run_region(SNIPPET, "anew", "branch", "static-g")
    torch._dynamo.reset()
    compiled = torch.compile(page["g"], backend="aot_eager")
    for values in INPUTS:
        x = torch.tensor(values, requires_grad=True)
        y = compiled(x)
        assert y.grad_fn.name() == "CompiledFunctionBackward"
        y.sum().backward()
        assert x.grad.tolist() == _by_hand(values)
    torch._dynamo.reset()


@pytest.mark.claim(PAGE, "apart from the warning, printed once when the trace was made, the wrong")
def test_a_trace_warns_when_it_is_made_and_never_again() -> None:
    with warnings.catch_warnings(record=True) as made:
        warnings.simplefilter("always")
        page = run_region(SNIPPET, "anew", "branch", "static-g", "jit-trace")
    assert any("might not generalize" in str(w.message) for w in made)
    with warnings.catch_warnings(record=True) as later:
        warnings.simplefilter("always")
        for values in INPUTS:
            x = torch.tensor(values, requires_grad=True)
            y = page["traced"](x)
            y.sum().backward()
            assert y.tolist() == [2 * v for v in values]  # the baked-in branch, for any input
            assert x.grad.tolist() == [2.0] * len(values)
    assert later == []


# --- scripting, an int argument, torch.cond and torch.export ---

SIGNED_INPUTS = (*INPUTS, [0.0, 0.0], [2.0, -2.0], [2.0**-20], [])  # sums > 0, < 0 and exactly 0


def _g_by_hand(values: list[float]) -> tuple[list[float], list[float]]:
    """g(x) = 2x if sum(x) > 0 else -x, and the gradient of sum(g(x)) per element."""
    positive = sum(values) > 0
    return [2 * v if positive else -v for v in values], [2.0 if positive else -1.0] * len(values)


def _page(*regions: str):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # TorchScript's deprecation warning
        page = run_region(SNIPPET, "anew", "branch", "static-g", *regions)
    page.pop("__name__")  # so that Dynamo reads the page's globals from the namespace itself
    torch._dynamo.reset()  # forget what the page compiled: the tests count new graphs
    return page


@pytest.mark.claim(PAGE, "on each input it takes the right one")
@pytest.mark.parametrize("values", SIGNED_INPUTS, ids=str)
def test_the_scripted_function_keeps_the_if(values: list[float]) -> None:
    page = _page("jit-script")
    assert "if bool(torch.gt(torch.sum(x), 0)):" in page.output
    x = torch.tensor(values, requires_grad=True)
    y = page["g_scripted"](x)
    y.sum().backward()
    assert (y.tolist(), x.grad.tolist()) == _g_by_hand(values)


@pytest.fixture
def fresh_dynamo():
    yield
    torch._dynamo.reset()


@pytest.mark.claim(PAGE, "so that every later value can reuse that graph")
@pytest.mark.usefixtures("fresh_dynamo")
@pytest.mark.parametrize("later", [[7, 2], [0, 1, -3], [10**6, 2, 5]], ids=str)
def test_after_one_recompile_an_int_is_a_symbolic_input(later: list[int]) -> None:
    page = _page("compile", "int-argument")
    assert "times: graphs after n = 5, 6, 7, 2: [1, 2, 2, 2]" in page.output
    graphs = page["graphs"]
    graphs.clear()
    compiled = torch.compile(page["times"], backend=page["keep_graph"])
    x = torch.tensor([1.0, -2.0])
    for n in [5, 6, *later]:
        assert compiled(x, n).tolist() == (x * n).tolist()
    assert len(graphs) == 2
    second = [
        node.meta["example_value"] for node in graphs[1].graph.nodes if node.op == "placeholder"
    ]
    assert isinstance(second[1], torch.SymInt)  # n, an input of the graph


@pytest.mark.claim(PAGE, "so each $n$ needs a graph of its own")
@pytest.mark.usefixtures("fresh_dynamo")
@pytest.mark.parametrize("ns", [[5, 6, 7, 2], [3, 3, 4, 4, 3], [2, 9]], ids=str)
def test_a_loop_over_an_int_needs_a_graph_per_value(ns: list[int]) -> None:
    page = _page("compile", "int-argument")
    assert "power: graphs after n = 5, 6, 7, 2: [1, 2, 3, 4]" in page.output
    graphs = page["graphs"]
    graphs.clear()
    compiled = torch.compile(page["power"], backend=page["keep_graph"])
    x = torch.tensor([1.5, -2.0])
    for n in ns:
        assert torch.allclose(compiled(x, n), x**n)
    assert len(graphs) == len(set(ns))
    for graph_module in graphs:  # the loop unrolled: n - 1 multiplications, no input n
        assert [node.op for node in graph_module.graph.nodes].count("placeholder") == 1


@pytest.mark.claim(PAGE, "One graph serves both signs.")
@pytest.mark.usefixtures("fresh_dynamo")
def test_torch_cond_holds_both_branches_in_one_graph() -> None:
    page = _page("compile", "cond")
    graphs = page["graphs"]
    graphs.clear()
    compiled = torch.compile(page["g_cond"], backend=page["keep_graph"], fullgraph=True)
    for values in SIGNED_INPUTS[:-1]:  # (torch.cond needs a tensor with elements)
        x = torch.tensor(values, requires_grad=True)
        y = compiled(x)
        assert y.grad_fn.name() == "CondAutogradOpBackward"  # one node for the whole cond
        y.sum().backward()
        assert (y.tolist(), x.grad.tolist()) == _g_by_hand(values)
    shapes = {len(values) for values in SIGNED_INPUTS[:-1]}
    assert len(graphs) <= len(shapes)  # a new graph only for a new shape, never for a sign
    branches = dict(graphs[0].named_children())
    assert [page["ops"](b) for b in branches.values()] == [["mul"], ["neg"]]


@pytest.mark.claim(PAGE, "`torch.compile(g, fullgraph=True)` refuses `g` with the same error.")
@pytest.mark.usefixtures("fresh_dynamo")
@pytest.mark.parametrize("values", [[1.0, 2.0], [-1.0, -2.0]], ids=str)
def test_export_and_fullgraph_refuse_the_if_and_point_to_torch_cond(values: list[float]) -> None:
    page = _page("compile", "cond")
    # Dynamo of 2.13 looks the page's globals up in the module named by __name__: register one
    module = types.ModuleType("snippet_graph_dynamic_graphs")
    module.__dict__.update(page)
    sys.modules[module.__name__] = module
    try:
        page = run_region(SNIPPET, "export", inputs={**page, "__name__": module.__name__})
    finally:
        del sys.modules[module.__name__]
    assert page.output.endswith(
        "Unsupported: Data-dependent branching\n"
        "Hint: Use `torch.cond` to express dynamic control flow.\n"
    )
    with pytest.raises(
        torch._dynamo.exc.Unsupported, match=r"Data-dependent branching(.|\n)*torch\.cond"
    ):
        torch.compile(page["g"], fullgraph=True, backend="eager")(torch.tensor(values))


class _Wrap(torch.nn.Module):
    def __init__(self, function) -> None:
        super().__init__()
        self.function = function

    def forward(self, x):
        return self.function(x)


@pytest.mark.claim(PAGE, "yet on a negative input it takes the other branch and gives 1 and 2")
@pytest.mark.usefixtures("fresh_dynamo")
def test_the_exported_cond_takes_the_branch_of_each_input() -> None:
    page = _page("compile", "cond")
    exported = torch.export.export(_Wrap(page["g_cond"]), (torch.tensor([1.0, 2.0]),), strict=True)
    for values in ([-1.0, -2.0], [0.0, 0.0], [3.0, -3.0], [3.0, -1.0], [-3.0, 1.0]):
        assert exported.module()(torch.tensor(values)).tolist() == _g_by_hand(values)[0]


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@pytest.mark.claim(
    PAGE, "one function gets at most 8 graphs (`torch._dynamo.config.recompile_limit`)"
)
@pytest.mark.claim(PAGE, "The results stay right; only the compiling stops.")
@pytest.mark.usefixtures("fresh_dynamo")
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
def test_a_loop_over_an_int_stops_compiling_at_the_recompile_limit(dtype: torch.dtype) -> None:
    page = _page("compile", "int-argument")
    assert torch._dynamo.config.recompile_limit == 8
    graphs = page["graphs"]
    graphs.clear()
    compiled = torch.compile(page["power"], backend=page["keep_graph"])
    x = torch.tensor([1.5, -2.0], dtype=dtype)
    records = _Records()
    logger = logging.getLogger("torch._dynamo")
    logger.addHandler(records)
    try:
        seen = set()
        for n in [*range(2, 14), 3, 12, 20]:  # 8 values fill the limit; old and new ones after
            seen.add(n)
            assert torch.allclose(compiled(x, n), x**n)  # right, compiled or not
            assert len(graphs) == min(len(seen), 8)  # a graph per value, 8 at most
    finally:
        logger.removeHandler(records)
    hits = [m for m in records.messages if "recompile_limit" in m]
    assert hits and "recompile_limit (8)" in hits[0]


@pytest.mark.claim(PAGE, "`strict=False` is the default: export then runs the Python code")
@pytest.mark.parametrize("values", [[1.0, 2.0], [-1.0, -2.0], [0.0]], ids=str)
def test_export_by_default_refuses_the_if_too_without_naming_torch_cond(
    values: list[float],
) -> None:
    page = _page("compile", "cond")
    module = types.ModuleType("snippet_graph_dynamic_graphs_default")
    module.__dict__.update(page)
    sys.modules[module.__name__] = module
    try:
        page = run_region(SNIPPET, "export", inputs={**page, "__name__": module.__name__})
    finally:
        del sys.modules[module.__name__]
    assert inspect.signature(torch.export.export).parameters["strict"].default is False
    from torch.fx.experimental.symbolic_shapes import GuardOnDataDependentSymNode

    with (
        contextlib.redirect_stderr(io.StringIO()),
        pytest.raises(GuardOnDataDependentSymNode) as error,
    ):
        torch.export.export(page["G"](), (torch.tensor(values),))
    assert "torch.cond" not in str(error.value)

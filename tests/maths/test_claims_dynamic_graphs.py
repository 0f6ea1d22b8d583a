"""docs/graph/dynamic-graphs.md, at the edges of its claims.

* two runs share only the leaf's AccumulateGrad node, and only while a graph holds it;
* the page's keep_graph backend runs each captured graph as it is, so autograd records
  the branch op by op; with an AOTAutograd backend (aot_eager) it records one
  CompiledFunctionBackward node per graph, with the same gradients, for either sign;
* a torch.jit.trace result warns once, when the trace is made: later calls, on any input,
  run the wrong branch without a warning.
"""

from __future__ import annotations

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

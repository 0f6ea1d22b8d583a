"""docs/graph/leaves.md and its quiz, at the edges of their claims.

* the page's rule, and grad_fn is None alone, agree with is_leaf on tensors the table does
  not list: views taken with recording off, inference tensors, detached and integer
  results, a plain tensor changed in place by a tracked one, a retain_grad() non-leaf;
* every tensor that does not require grad is a leaf;
* nn.Parameter makes a leaf that requires grad from any float tensor, a non-leaf too, and
  the usual layers make all their weights that way;
* every optimizer refuses a non-leaf; .grad is None before backward() for every tensor.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
import torch
from torch import nn

from . import run_region

PAGE = "docs/graph/leaves.md"
QUIZ = "docs/practice/quizzes/leaves.md"
SNIPPET = "graph/leaves"


def _edge_tensors() -> dict[str, torch.Tensor]:
    w = torch.randn(4, requires_grad=True)
    with torch.no_grad():
        view_under_no_grad = w[:2]
        result_under_no_grad = w * 2
    with torch.inference_mode():
        inference = w * 2
    changed = torch.zeros(4)
    changed.add_(w)  # an untracked leaf, changed in place by a tracked tensor
    kept = w * 3
    kept.retain_grad()
    return {
        "a view of w": w[:2],
        "a view under no_grad": view_under_no_grad,
        "a result under no_grad": result_under_no_grad,
        "an inference tensor": inference,
        "w.detach()": w.detach(),
        "w.argmax()": w.argmax(),
        "w > 0": w > 0,
        "zeros changed by add_(w)": changed,
        "a non-leaf with retain_grad()": kept,
        "w.clone()": w.clone(),
        "nn.Parameter(requires_grad=False)": nn.Parameter(torch.ones(2), requires_grad=False),
        "an empty tensor": torch.randn(0, requires_grad=True),
    }


@pytest.mark.claim(PAGE, "The whole rule therefore comes down to `grad_fn is None`")
@pytest.mark.parametrize("name", sorted(_edge_tensors()))
def test_the_rule_and_grad_fn_is_none_agree_with_is_leaf(name: str) -> None:
    page = run_region(SNIPPET, "table", "rule", "one-test")
    assert "is_leaf == (grad_fn is None) in every case: True" in page.output
    rule: Callable[[torch.Tensor], bool] = page["leaf_by_the_rule"]
    t = _edge_tensors()[name]
    assert rule(t) == t.is_leaf == (t.grad_fn is None)
    if t.grad_fn is not None:  # a grad_fn only on a tensor that requires grad
        assert t.requires_grad


@pytest.mark.claim(PAGE, "Every tensor that does not require grad is a leaf, whatever made it.")
def test_every_tensor_that_does_not_require_grad_is_a_leaf() -> None:
    page = run_region(SNIPPET, "table")
    tensors = [*page["cases"].values(), *_edge_tensors().values()]
    untracked = [t for t in tensors if not t.requires_grad]
    assert len(untracked) >= 8
    assert all(t.is_leaf for t in untracked)


@pytest.mark.claim(PAGE, "`nn.Parameter` wraps a tensor and switches tracking on, even")
@pytest.mark.parametrize(
    "wrapped",
    [
        lambda: torch.randn(3),
        lambda: torch.randn(3, dtype=torch.float64),
        lambda: torch.randn(3, requires_grad=True) * 2,  # even a non-leaf
        lambda: torch.zeros(0),
    ],
)
def test_a_parameter_is_a_leaf_that_requires_grad(wrapped) -> None:
    page = run_region(SNIPPET, "table", "parameter")
    assert page["weight"].is_leaf and page["weight"].requires_grad
    p = nn.Parameter(wrapped())
    assert p.requires_grad and p.is_leaf and p.grad_fn is None


@pytest.mark.claim(PAGE, "every layer makes its weights this way")
@pytest.mark.parametrize(
    "layer",
    [
        lambda: nn.Linear(3, 1),
        lambda: nn.Conv2d(2, 3, 3),
        lambda: nn.Embedding(5, 2),
        lambda: nn.BatchNorm1d(4),
        lambda: nn.LayerNorm(4),
        lambda: nn.LSTM(3, 4),
    ],
)
def test_every_layer_makes_its_weights_as_parameters(layer) -> None:
    run_region(SNIPPET, "table", "parameter")
    parameters = list(layer().parameters())
    assert parameters
    assert all(type(p) is nn.Parameter and p.is_leaf and p.requires_grad for p in parameters)


@pytest.mark.claim(PAGE, "An optimizer refuses a non-leaf outright")
@pytest.mark.parametrize(
    "optimizer", [torch.optim.SGD, torch.optim.Adam, torch.optim.AdamW], ids=lambda o: o.__name__
)
def test_an_optimizer_refuses_the_buggy_weight(optimizer) -> None:
    page = run_region(SNIPPET, "table", "bug")
    with pytest.raises(ValueError, match="can't optimize a non-leaf Tensor"):
        optimizer([page["w"]], lr=0.1)
    fixed = run_region(SNIPPET, "table", "bug", "fix")["w_fixed"]
    optimizer([fixed], lr=0.1)  # the fix is accepted


@pytest.mark.claim(QUIZ, "`.grad` is `None` before `backward()` for every tensor, leaf or not")
def test_grad_is_none_before_backward_for_every_tensor() -> None:
    page = run_region(SNIPPET, "table")
    tensors = [*page["cases"].values(), *_edge_tensors().values()]
    for t in tensors:
        if not t.is_leaf:
            t.retain_grad()
        assert t.grad is None

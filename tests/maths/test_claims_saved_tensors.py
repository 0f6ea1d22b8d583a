"""docs/graph/saved-tensors.md and its quiz, at the edges of their claims.

* a product saves each input only if the other requires grad, for any shapes, for mixed
  dtypes and for a plain number as the other factor;
* saved tensors are the inputs' or the result's own memory, not copies, also with a
  promoted dtype and for a matrix product;
* graphs whose nodes saved no tensor (sum, mean, add, neg, view, t) can be walked twice
  and .grad doubles; one that saved a tensor (even the 2 of v * 2) cannot;
* after backward() reading a saved tensor or a second backward() raises, whatever the
  node; retain_graph=True keeps them.
"""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from . import run_region

PAGE = "docs/graph/saved-tensors.md"
QUIZ = "docs/practice/quizzes/saved-tensors.md"
SNIPPET = "graph/saved_tensors"


def _memory(t: torch.Tensor) -> int:
    return t.untyped_storage().data_ptr()


@pytest.mark.claim(PAGE, "A product saves each input only if the other input requires grad.")
@settings(max_examples=40, deadline=None)
@given(
    st.booleans(),
    st.booleans(),
    st.sampled_from([(), (3,), (2, 3)]),
    st.sampled_from([torch.float32, torch.float64]),
)
def test_a_product_saves_each_input_only_if_the_other_requires_grad(
    a_tracked: bool, b_tracked: bool, shape: tuple, b_dtype: torch.dtype
) -> None:
    page = run_region(SNIPPET, "mul", "mul-cases")
    assert page["saved_names"](page["p"].grad_fn) == ["_saved_other", "_saved_self"]
    if not (a_tracked or b_tracked):
        return  # nothing is recorded at all
    a = torch.randn(shape).requires_grad_(a_tracked)
    b = torch.randn(shape, dtype=b_dtype).requires_grad_(b_tracked)
    node = (a * b).grad_fn
    assert (node._saved_self is not None) == b_tracked
    assert (node._saved_other is not None) == a_tracked
    with_a_number = (a * 2).grad_fn if a_tracked else None
    if with_a_number is not None:  # the 2 is not tracked: a is not saved, the 2 is
        assert with_a_number._saved_self is None and with_a_number._saved_other.item() == 2


@pytest.mark.claim(PAGE, "Saved tensors share memory with the tensors they were saved from")
def test_saved_tensors_are_not_copies() -> None:
    page = run_region(SNIPPET, "mul", "same-memory", "exp")
    assert "the saved b uses b's own memory: True" in page.output
    assert "the saved result uses e's memory: True" in page.output
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([3.0, 4.0], dtype=torch.float64, requires_grad=True)  # promoted product
    node = (a * b).grad_fn
    assert _memory(node._saved_self) == _memory(a) and _memory(node._saved_other) == _memory(b)
    x, w = torch.randn(4, 3, requires_grad=True), torch.randn(3, 2, requires_grad=True)
    node = (x @ w).grad_fn
    assert _memory(node._saved_self) == _memory(x) and _memory(node._saved_mat2) == _memory(w)
    s = torch.sigmoid(x)
    assert _memory(s.grad_fn._saved_result) == _memory(s)


NO_TENSOR = {
    "sum": lambda v: v.sum(),
    "mean": lambda v: v.mean(),
    "add": lambda v: (v + 1).sum(),
    "neg": lambda v: (-v).sum(),
    "view": lambda v: v.view(3, 1).sum(),
    "t": lambda v: v.view(3, 1).t().sum(),
}
SAVES_A_TENSOR = {
    "v * 2": lambda v: (v * 2).sum(),
    "v ** 3": lambda v: (v**3).sum(),
    "exp": lambda v: v.exp().sum(),
    "sin": lambda v: v.sin().sum(),
    "v * v": lambda v: (v * v).sum(),
}


@pytest.mark.claim(PAGE, "A graph whose nodes saved no tensor, such as a sum, can be walked twice")
@pytest.mark.parametrize("name", [*NO_TENSOR, *SAVES_A_TENSOR])
def test_only_a_graph_that_saved_no_tensor_can_be_walked_twice(name: str) -> None:
    page = run_region(SNIPPET, "mul", "twice")
    assert page["v"].grad.tolist() == [2.0, 2.0, 2.0]
    v = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    graph = {**NO_TENSOR, **SAVES_A_TENSOR}[name](v)
    graph.backward()
    once = v.grad.clone()
    if name in NO_TENSOR:
        graph.backward()
        assert torch.equal(v.grad, 2 * once)  # .grad doubles
    else:
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            graph.backward()


@pytest.mark.claim(PAGE, "Reading one afterwards, or a second backward pass that needs one, raises")
@pytest.mark.parametrize(
    ("make", "saved"),
    [
        (lambda a: a**3, "_saved_self"),
        (lambda a: a.exp(), "_saved_result"),
        (lambda a: a.sin(), "_saved_self"),
        (lambda a: a * a, "_saved_other"),
    ],
)
def test_after_backward_a_saved_tensor_is_gone(make, saved: str) -> None:
    page = run_region(SNIPPET, "mul", "freed")
    with pytest.raises(RuntimeError, match="after they have already been freed"):
        _ = page["y"].grad_fn._saved_self
    a = torch.tensor(2.0, requires_grad=True)
    y = make(a)
    y.backward()
    with pytest.raises(RuntimeError, match="after they have already been freed"):
        getattr(y.grad_fn, saved)
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()
    kept = make(a)
    kept.backward(retain_graph=True)  # keeps them for one more pass
    getattr(kept.grad_fn, saved)
    kept.backward()


@pytest.mark.claim(QUIZ, "`backward()` has no such argument and raises a `TypeError`.")
def test_backward_has_no_retain_grad_argument() -> None:
    page = run_region(SNIPPET, "mul", "retain")
    y = page["a"] ** 3
    with pytest.raises(TypeError, match="retain_grad"):
        y.backward(retain_grad=True)

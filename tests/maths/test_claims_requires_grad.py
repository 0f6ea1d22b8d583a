"""docs/graph/requires-grad.md and its quiz, at the edges of their claims.

* a created tensor starts with requires_grad False, whatever made it;
* a result requires grad exactly when one of its inputs does, for any mix of inputs,
  dtypes and shapes (0-d and empty included), unless its dtype is integer or bool;
* the *_like functions never track; round() is tracked with gradient 0, ties included;
* under no_grad() no new result requires grad, and a view is the exception;
* a gradient has its tensor's dtype, whatever dtype the computation used;
* only floating-point and complex tensors can require grad: every integer dtype and bool
  is refused, at creation and later.
"""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from . import run_region

PAGE = "docs/graph/requires-grad.md"
QUIZ = "docs/practice/quizzes/requires-grad.md"
SNIPPET = "graph/requires_grad"

INTEGER_DTYPES = [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.bool]
GRAD_DTYPES = [torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.complex64]

BINARY = {
    "add": lambda a, b: a + b,
    "mul": lambda a, b: a * b,
    "sub": lambda a, b: a - b,
    "div": lambda a, b: a / (b.abs() + 1),
    "maximum": torch.maximum,
    "cat": lambda a, b: torch.cat([a.reshape(-1), b.reshape(-1)]),
    "where": lambda a, b: torch.where(a > b, a, b),
    "atan2": torch.atan2,
}


@pytest.mark.claim(PAGE, "A tensor you create starts with `False`.")
@pytest.mark.parametrize(
    "make",
    [
        lambda: torch.tensor([1.0, 2.0]),
        lambda: torch.zeros(2),
        lambda: torch.ones(2, dtype=torch.float64),
        lambda: torch.randn(2, 3),
        lambda: torch.arange(3.0),
        lambda: torch.empty(0),
        lambda: torch.full((2,), 7.0),
        lambda: torch.linspace(0, 1, 5),
        lambda: torch.eye(3),
        lambda: torch.tensor(1 + 2j),
    ],
)
def test_a_created_tensor_starts_without_requires_grad(make) -> None:
    page = run_region(SNIPPET, "default")
    assert page["data"].requires_grad is False
    assert make().requires_grad is False


@pytest.mark.claim(PAGE, "the result requires grad if at least one input does.")
@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(sorted(BINARY)),
    st.booleans(),
    st.booleans(),
    st.sampled_from([(), (0,), (3,), (2, 3)]),
    st.sampled_from([torch.float32, torch.float64]),
)
def test_a_result_requires_grad_exactly_when_an_input_does(op, a_tracked, b_tracked, shape, dtype):
    page = run_region(SNIPPET, "default", "spread")
    for expression, result in page["results"].items():  # the page's own table
        assert result.requires_grad == ("w" in expression)
    a = torch.randn(shape, dtype=dtype).requires_grad_(a_tracked)
    b = torch.randn(shape).requires_grad_(b_tracked)  # float32: a mix of dtypes too
    assert BINARY[op](a, b).requires_grad == (a_tracked or b_tracked)


INTEGER_RESULTS = {
    "w > 0": lambda w: w > 0,
    "w == w": lambda w: w == w,
    "argmax": lambda w: w.argmax(),
    "argsort": lambda w: w.argsort(),
    "max(dim).indices": lambda w: w.max(dim=0).indices,
    "topk indices": lambda w: w.topk(2).indices,
    "long()": lambda w: w.long(),
    "to(int32)": lambda w: w.to(torch.int32),
    "bool()": lambda w: w.bool(),
    "isnan": lambda w: w.isnan(),
    "nonzero": lambda w: w.nonzero(),
    "bucketize": lambda w: torch.bucketize(w, torch.tensor([0.0])),
}


@pytest.mark.claim(
    PAGE, "a result whose dtype is an integer or `bool` never requires grad, whatever its inputs"
)
@pytest.mark.parametrize("op", INTEGER_RESULTS.values(), ids=list(INTEGER_RESULTS))
def test_an_integer_or_bool_result_never_requires_grad(op) -> None:
    page = run_region(SNIPPET, "default", "not-carried")
    w = page["w"]
    assert w.requires_grad
    result = op(w)
    assert not (result.is_floating_point() or result.is_complex())
    assert not result.requires_grad and result.grad_fn is None


@pytest.mark.claim(PAGE, "(with a gradient of zero, as")
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
def test_round_is_tracked_with_gradient_zero_at_ties_too(dtype: torch.dtype) -> None:
    page = run_region(SNIPPET, "default", "not-carried")
    assert "w.round():   torch.float32 requires_grad = True" in page.output
    w = torch.tensor([-2.5, -1.5, -0.5, 0.0, 0.5, 1.5, 2.49, 3.7], dtype=dtype, requires_grad=True)
    r = w.round()
    assert r.requires_grad and r.grad_fn is not None
    r.sum().backward()
    assert torch.equal(w.grad, torch.zeros_like(w))


@pytest.mark.claim(PAGE, "new tensors such as `torch.zeros_like(w)` that only copy a shape")
@pytest.mark.parametrize(
    "like",
    [
        torch.zeros_like,
        torch.ones_like,
        torch.randn_like,
        torch.rand_like,
        torch.empty_like,
        lambda w: torch.full_like(w, 3.0),
    ],
)
def test_like_functions_never_track(like) -> None:
    page = run_region(SNIPPET, "default", "not-carried", "like")
    assert like(page["w"]).requires_grad is False


@pytest.mark.claim(PAGE, "a view, which shares its base's memory, is the one exception")
def test_under_no_grad_only_a_view_requires_grad() -> None:
    page = run_region(SNIPPET, "default", "spread")
    w = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    with torch.no_grad():
        new = [w * 2, w.exp(), w.sum(), w.clone(), w + page["a"], page["w"] * page["c"]]
        views = [w[:2], w[1], w.view(2, 2), w.view(2, 2).t()]
    assert not any(t.requires_grad for t in new)
    assert all(t.requires_grad and t.grad_fn is None for t in views)


@pytest.mark.claim(PAGE, "a gradient is stored in a tensor of the same dtype as the tensor")
@pytest.mark.parametrize("dtype", GRAD_DTYPES, ids=str)
@pytest.mark.parametrize("computed_in", [None, torch.float64, torch.float32], ids=str)
def test_a_gradient_has_its_tensors_dtype(dtype: torch.dtype, computed_in) -> None:
    page = run_region(SNIPPET, "default", "grad-dtype")
    assert page["v"].grad.dtype == torch.float64
    v = torch.tensor([1.0, 2.0], dtype=dtype, requires_grad=True)
    x = v if computed_in is None else v.to(computed_in if not v.is_complex() else v.dtype)
    (x * 0.25).sum().abs().backward()
    assert v.grad.dtype == dtype


@pytest.mark.claim(QUIZ, "only floating-point and complex tensors can require grad")
@pytest.mark.parametrize("dtype", INTEGER_DTYPES + GRAD_DTYPES, ids=str)
def test_only_floating_point_and_complex_tensors_can_require_grad(dtype: torch.dtype) -> None:
    run_region(SNIPPET, "default", "dtypes")
    refused = dtype in INTEGER_DTYPES
    for make in (
        lambda: torch.zeros(2, dtype=dtype, requires_grad=True),
        lambda: torch.zeros(2, dtype=dtype).requires_grad_(),
    ):
        if refused:
            with pytest.raises(RuntimeError, match="floating point"):
                make()
        else:
            assert make().requires_grad


@pytest.mark.claim(QUIZ, "On a tensor that does not require grad it raises a `RuntimeError`.")
def test_retain_grad_refuses_a_tensor_that_does_not_require_grad() -> None:
    page = run_region(SNIPPET, "default", "later")
    with pytest.raises(RuntimeError, match="retain_grad"):
        page["b"].retain_grad()


@pytest.mark.claim(QUIZ, "`TypeError: 'bool' object is not callable`")
def test_calling_the_attribute_fails() -> None:
    page = run_region(SNIPPET, "default", "later")
    with pytest.raises(TypeError, match="'bool' object is not callable"):
        page["b"].requires_grad()

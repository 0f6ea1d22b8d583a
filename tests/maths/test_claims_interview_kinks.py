"""docs/interview/what-is-the-gradient-of-relu-at-zero.md, at the edges of its claims.

PyTorch's documented rule at a convex kink is the subgradient of minimum norm. By hand:
for a function of one input with slopes ``left`` and ``right`` at the kink, the
subgradients are the interval between them, and the one of minimum norm is 0 if the
interval holds 0, else its end nearer 0. For a maximum over k tied inputs, the
subgradients are the splits of 1 among them, and the one of minimum norm is 1/k each.
The page's ``grad_at`` measures each, in float32 and float64, with and without
``create_graph=True``; ``clamp`` gives 0 at a number bound only since PyTorch 2.14
(version note clamp-bounds); leaky relu takes its left slope whatever it is; ``max(dim)``
gives all of the gradient to the index it returns.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.maths import run_region

PAGE = "docs/interview/what-is-the-gradient-of-relu-at-zero.md"
RELU = "interview/what_is_the_gradient_of_relu_at_zero"
DTYPES = [torch.float32, torch.float64]


def minimum_norm(left: float, right: float) -> float:
    """The subgradient of minimum norm at a kink with these one-sided slopes, by hand."""
    low, high = min(left, right), max(left, right)
    return 0.0 if low <= 0 <= high else (low if low > 0 else high)


def gradient(
    f: Callable[[torch.Tensor], torch.Tensor],
    values: list[float],
    dtype: torch.dtype,
    create_graph: bool,
) -> list[float]:
    """The page's grad_at, in any dtype, and with create_graph if asked."""
    x = torch.tensor(values, dtype=dtype, requires_grad=True)
    (grad,) = torch.autograd.grad(f(x).sum(), x, create_graph=create_graph)
    return grad.tolist()


@pytest.mark.claim(PAGE, "PyTorch gives 0 in all three ways of calling relu")
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("create_graph", [False, True])
def test_relu_takes_the_minimum_norm_subgradient(dtype: torch.dtype, create_graph: bool) -> None:
    page = run_region(RELU, "relu")
    assert "torch.relu   [0.0, 0.0, 1.0]" in page.output
    for relu in (torch.relu, F.relu, torch.nn.ReLU()):
        assert gradient(relu, [0.0], dtype, create_graph) == [minimum_norm(0.0, 1.0)]
        assert gradient(relu, [-0.0], dtype, create_graph) == [0.0]
        # Either side of the kink, the smallest steps: the one-sided slopes.
        tiny = torch.finfo(dtype).tiny
        assert gradient(relu, [-tiny, tiny], dtype, create_graph) == [0.0, 1.0]
    assert page["grad_at"](torch.relu, [0.0]) == [0.0]


@pytest.mark.claim(PAGE, "`torch.maximum` splits a tie evenly between its two inputs")
@settings(max_examples=30, deadline=None)
@given(st.floats(-1e6, 1e6, allow_nan=False), st.sampled_from(DTYPES))
def test_maximum_splits_a_tie_in_two(value: float, dtype: torch.dtype) -> None:
    a = torch.tensor(value, dtype=dtype, requires_grad=True)
    b = torch.tensor(value, dtype=dtype, requires_grad=True)
    torch.maximum(a, b).backward()
    # The pairs (t, 1 - t): the one of minimum norm is t = 1/2.
    assert (a.grad.item(), b.grad.item()) == (0.5, 0.5)


@pytest.mark.claim(PAGE, "the even split has the minimum norm")
@settings(max_examples=30, deadline=None)
@given(st.integers(1, 6), st.integers(0, 3), st.sampled_from(DTYPES))
def test_max_shares_a_tie_evenly(ties: int, others: int, dtype: torch.dtype) -> None:
    page = run_region(RELU, "relu", "abs-and-max")
    assert "max(), a tie:     [0.5, 0.5, 0.0]" in page.output
    values = [2.0] * ties + [1.0] * others
    grad = gradient(lambda x: x.max(), values, dtype, create_graph=False)
    expected = torch.tensor([1 / ties] * ties + [0.0] * others, dtype=dtype)
    torch.testing.assert_close(torch.tensor(grad, dtype=dtype), expected, rtol=0, atol=0)


@pytest.mark.claim(PAGE, "`max(dim=0)` is the exception: it returns the index of one maximum")
@settings(max_examples=30, deadline=None)
@given(st.lists(st.sampled_from([1.0, 2.0]), min_size=1, max_size=6))
def test_max_dim_gives_all_to_its_index(values: list[float]) -> None:
    x = torch.tensor(values, requires_grad=True)
    result = x.max(dim=0)
    result.values.backward()
    expected = torch.zeros(len(values))
    expected[result.indices] = 1.0
    assert torch.equal(x.grad, expected)


@pytest.mark.claim(PAGE, "the subgradient of minimum norm between $-1$ and 1")
@pytest.mark.parametrize("dtype", DTYPES)
def test_abs_at_zero(dtype: torch.dtype) -> None:
    page = run_region(RELU, "relu", "abs-and-max")
    assert "abs at 0:         [0.0]" in page.output
    for create_graph in (False, True):
        assert (
            gradient(torch.abs, [0.0, -0.0], dtype, create_graph) == [minimum_norm(-1.0, 1.0)] * 2
        )


@pytest.mark.claim(
    PAGE,
    "With a number as its bound, `clamp` passes no gradient at the bound itself",
    note="clamp-bounds",
)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("bound", [0.0, -1.0, 2.5])
def test_clamp_at_a_number_bound(bound: float, dtype: torch.dtype) -> None:
    # clamp(min=c) at c: slopes 0 (left) and 1 (right), minimum norm 0.
    at_min = gradient(lambda x: x.clamp(min=bound), [bound], dtype, False)
    at_max = gradient(lambda x: x.clamp(max=bound), [bound], dtype, False)
    assert at_min == at_max == [minimum_norm(0.0, 1.0)]


@pytest.mark.claim(PAGE, "which is the minimum-norm one of the slopes between 0.01 and 1")
@pytest.mark.parametrize("dtype", DTYPES)
def test_leaky_relu_default_slope_is_the_minimum_norm(dtype: torch.dtype) -> None:
    page = run_region(RELU, "relu", "other-spellings")
    assert "F.leaky_relu(x)           gradient at 0: 0.01" in page.output
    (grad,) = gradient(F.leaky_relu, [0.0], dtype, False)
    assert grad == pytest.approx(minimum_norm(0.01, 1.0), rel=1e-6)


@pytest.mark.claim(PAGE, "Leaky relu takes its left slope at 0 whatever `negative_slope` is")
@settings(max_examples=30, deadline=None)
@given(st.floats(-3, 3, allow_nan=False, width=32))
def test_leaky_relu_takes_its_left_slope(slope: float) -> None:
    (grad,) = gradient(lambda x: F.leaky_relu(x, slope), [0.0], torch.float32, False)
    assert grad == slope  # slope is a float32 number: exact
    # The rule (minimum norm, or for slope > 1, concave, the minimum-norm supergradient 1)
    # agrees only for a slope between 0 and 1.
    assert (grad == minimum_norm(slope, 1.0)) == (0 <= slope <= 1)


@pytest.mark.claim(PAGE, "`torch.where` and `x * (x > 0)` have no kink of their own")
@pytest.mark.parametrize("dtype", DTYPES)
def test_where_and_mask_give_zero_at_zero(dtype: torch.dtype) -> None:
    page = run_region(RELU, "relu", "other-spellings")
    for name in ("torch.where(x > 0, x, 0)", "x * (x > 0)"):
        f = page["spellings"][name]
        assert gradient(f, [0.0, -0.0, 1.0, -1.0], dtype, False) == [0.0, 0.0, 1.0, 0.0]

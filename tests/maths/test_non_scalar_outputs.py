"""Scalar and non-scalar outputs: docs/chapters/non-scalar-outputs.md's code against its maths.

The page's regions (snippets/chapters/non_scalar_outputs.py) run on random shapes and
values: each ``*-maths`` region is the page's computation without its hard-coded
input. The expected values are the page's hand formulas, computed from the inputs:
2x for a square, J = diag(2x) and backward(v) = vᵀJ = v·2x, 1/n for a mean, 2x/n for
the mean of squares, 2·mean((w·xᵢ − tᵢ)·xᵢ) for the mean squared error of w·x, and
with SGD a summed loss moves the weights N times as far as the mean in the first step,
while Adam moves them the same distance.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from . import Session, run_region

SNIPPET = "chapters/non_scalar_outputs"
RTOL, ATOL = 1e-10, 1e-12

elements = st.floats(min_value=-100.0, max_value=100.0, allow_nan=False, allow_infinity=False)
weights = st.floats(min_value=-10.0, max_value=10.0, allow_nan=False, allow_infinity=False)
# Up to three dimensions of up to five elements each; min_dims=0 includes scalars.
shapes = hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=5)
non_scalar_shapes = hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=5).filter(
    lambda shape: int(np.prod(shape)) > 1
)


def leaf(array: np.ndarray | float) -> torch.Tensor:
    return torch.tensor(array, dtype=torch.float64, requires_grad=True)


def run(region: str, **inputs: Any) -> Session:
    return run_region(SNIPPET, region, inputs={"torch": torch, **inputs})


def close(actual: torch.Tensor | None, expected: torch.Tensor) -> bool:
    assert actual is not None, "backward() did not reach the leaf"
    return actual.shape == expected.shape and torch.allclose(actual, expected, rtol=RTOL, atol=ATOL)


@settings(max_examples=30, deadline=None)
@given(elements)
def test_a_scalar_output_starts_from_an_implicit_gradient_of_1(x_value: float) -> None:
    # y = x²: backward() and backward(tensor(1.)) both give dy/dx = 2x.
    implicit = run("scalar-maths", x=leaf(x_value))
    explicit = run("scalar-explicit-one-maths", x=leaf(x_value))
    assert implicit.output.startswith("torch.Size([])\n")  # no dimensions
    assert close(implicit["x"].grad, 2 * implicit["x"].detach())
    assert close(explicit["x"].grad, implicit["x"].grad)


@settings(max_examples=30, deadline=None)
@given(hnp.arrays(np.float64, non_scalar_shapes, elements=elements))
def test_a_non_scalar_output_cannot_start_backward_on_its_own(array: np.ndarray) -> None:
    page = run("vector-output-maths", x=leaf(array))
    assert page.output == f"{torch.Size(array.shape)}\n"
    with pytest.raises(RuntimeError, match="only for scalar outputs"):
        page["y"].backward()


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_a_gradient_of_another_shape_is_refused(data: st.DataObject) -> None:
    shape = data.draw(non_scalar_shapes, label="output shape")
    wrong = data.draw(shapes.filter(lambda s: s != shape), label="gradient shape")
    page = run("vector-output-maths", x=leaf(np.ones(shape)))
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        page["y"].backward(torch.ones(wrong, dtype=torch.float64))


@settings(max_examples=30, deadline=None)
@given(hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=1), weights)
def test_one_element_of_any_shape_needs_no_gradient_argument(
    shape: tuple[int, ...], w_value: float
) -> None:
    """The rule is numel() == 1, not zero dimensions: (1,), (1, 1), (1, 1, 1) all work."""
    page = run("one-element-maths", w=leaf(np.full(shape, w_value)))
    assert close(page["w"].grad, torch.full(shape, 3.0, dtype=torch.float64))  # d(3w)/dw = 3


@settings(max_examples=50, deadline=None)
@given(hnp.arrays(np.float64, shapes, elements=elements))
def test_sum_of_squares_gives_2x(array: np.ndarray) -> None:
    # s = Σ x_i²  ⇒  ∂s/∂x_i = 2x_i
    page = run("fix-sum-maths", x=leaf(array))
    assert close(page["x"].grad, 2 * page["x"].detach())


@settings(max_examples=50, deadline=None)
@given(hnp.arrays(np.float64, shapes, elements=elements))
def test_backward_with_ones_is_the_plain_sum(array: np.ndarray) -> None:
    # backward(ones) differentiates Σ 1·y_i: 2x again.
    page = run("fix-ones-maths", x=leaf(array))
    assert close(page["x"].grad, 2 * page["x"].detach())


@settings(max_examples=50, deadline=None)
@given(st.data())
def test_the_jacobian_of_squares_is_diag_2x_and_backward_gives_v_j(data: st.DataObject) -> None:
    n = data.draw(st.integers(min_value=1, max_value=6), label="n")
    x = leaf(data.draw(hnp.arrays(np.float64, n, elements=elements), label="x"))
    v = torch.tensor(data.draw(hnp.arrays(np.float64, n, elements=weights), label="v"))

    page = run("jacobian-maths", x=x)
    assert close(page["J"], torch.diag(2 * x.detach()))  # dy_i/dx_j = 2x_i if i = j, else 0
    page = run_region(SNIPPET, "vjp-maths", inputs={**page, "v": v})
    assert close(page["x"].grad, v * 2 * x.detach())  # vᵀJ = v·2x
    assert page.output.endswith("True\n")  # the page's own check of v·2x


@settings(max_examples=50, deadline=None)
@given(st.data())
def test_backward_v_is_the_gradient_of_the_weighted_sum(data: st.DataObject) -> None:
    # backward(v) differentiates s = Σ v_i y_i, so both give v·2x.
    shape = data.draw(shapes, label="shape")
    array = data.draw(hnp.arrays(np.float64, shape, elements=elements), label="x")
    v = torch.tensor(data.draw(hnp.arrays(np.float64, shape, elements=weights), label="v"))
    page = run("weighted-sum-maths", x=leaf(array), v=v)
    assert close(page["x"].grad, v * 2 * page["x"].detach())


@settings(max_examples=50, deadline=None)
@given(hnp.arrays(np.float64, shapes, elements=elements))
def test_the_mean_over_n_elements_gives_1_over_n_each(array: np.ndarray) -> None:
    # mean = Σ x_i / n  ⇒  ∂mean/∂x_i = 1/n, whatever the values
    page = run("mean-maths", x=leaf(array))
    assert close(page["x"].grad, torch.full(array.shape, 1 / array.size, dtype=torch.float64))


@settings(max_examples=50, deadline=None)
@given(hnp.arrays(np.float64, shapes, elements=elements))
def test_the_mean_of_squares_gives_2x_over_n(array: np.ndarray) -> None:
    # y = Σ x_i² / n  ⇒  ∂y/∂x_i = 2x_i / n  (for the page's x = [2, 4, 6, 8]: x/2)
    page = run("worked-practice-maths", x=leaf(array))
    x, n = torch.from_numpy(array), array.size
    assert torch.isclose(page["y"].detach(), (x**2).sum() / n, rtol=RTOL, atol=ATOL)
    assert close(page["x"].grad, 2 * x / n)


@settings(max_examples=50, deadline=None)
@given(
    weights,
    st.integers(min_value=1, max_value=8).flatmap(
        lambda n: st.tuples(
            hnp.arrays(np.float64, n, elements=weights), hnp.arrays(np.float64, n, elements=weights)
        )
    ),
)
def test_mean_squared_error_of_w_times_x(
    w_value: float, data: tuple[np.ndarray, np.ndarray]
) -> None:
    # loss = mean((w x_i - t_i)²)  ⇒  dloss/dw = 2·mean((w x_i - t_i)·x_i);
    # with the page's targets t = 2x that is 2(w - 2)·mean(x_i²).
    inputs, targets = (torch.from_numpy(a) for a in data)
    page = run("training-mean-maths", w=leaf(w_value), inputs=inputs, targets=targets)
    expected = 2 * ((w_value * inputs - targets) * inputs).mean()
    assert close(page["w"].grad, expected)
    assert page["loss"].shape == torch.Size([])  # a scalar


@cache
def optimizers() -> Session:
    """The page's weight_change(): a Linear(3, 1) on the page's seeded batch of N = 8."""
    return run("optimizers")


def distance_ratio(name: str, steps: int) -> float:
    """The page's weight_change() with the sum, divided by the same with the mean."""
    weight_change, optimizer = optimizers()["weight_change"], getattr(torch.optim, name)
    return (weight_change(optimizer, "sum", steps) / weight_change(optimizer, "mean", steps)).item()


def test_sgds_first_step_with_the_sum_is_n_times_the_means() -> None:
    # The sum's gradient is N times the mean's, and an SGD step is lr times the gradient.
    assert distance_ratio("SGD", steps=1) == pytest.approx(8, rel=1e-5)  # N = 8 examples


@settings(max_examples=10, deadline=None)
@given(st.sampled_from(["Adam", "AdamW"]), st.integers(min_value=1, max_value=10))
def test_adam_moves_the_same_distance_with_the_sum_or_the_mean(name: str, steps: int) -> None:
    # Adam divides m (a running mean of g) by sqrt(v) (of g²): scaling every g by N
    # scales both by N, so the whole path is the same, up to the eps added to sqrt(v).
    assert distance_ratio(name, steps) == pytest.approx(1, rel=1e-3)

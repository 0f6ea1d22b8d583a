"""Chapter 7: the hand-derived gradients of docs/chapters/non-scalar-outputs.md agree with autograd.

Shapes and values are random; the expected values are the chapter's formulas
(2x, v·2x, 1/n, 2x/n, ...), computed from the inputs, never recorded numbers.
"""

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

RTOL, ATOL = 1e-10, 1e-12

elements = st.floats(min_value=-100.0, max_value=100.0, allow_nan=False, allow_infinity=False)
weights = st.floats(min_value=-10.0, max_value=10.0, allow_nan=False, allow_infinity=False)
# Up to three dimensions of up to five elements each; min_dims=0 includes scalars.
shapes = hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=5)
non_scalar_shapes = hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=5).filter(
    lambda shape: int(np.prod(shape)) > 1
)


def leaf(array: np.ndarray) -> torch.Tensor:
    return torch.tensor(array, dtype=torch.float64, requires_grad=True)


def close(actual: torch.Tensor | None, expected: torch.Tensor) -> bool:
    assert actual is not None, "backward() did not reach the leaf"
    return actual.shape == expected.shape and torch.allclose(actual, expected, rtol=RTOL, atol=ATOL)


@settings(max_examples=50, deadline=None)
@given(elements)
def test_a_scalar_output_starts_from_an_implicit_gradient_of_1(x_value: float) -> None:
    # y = x²: backward() and backward(tensor(1.)) both give dy/dx = 2x.
    implicit = leaf(np.float64(x_value))
    (implicit**2).backward()
    explicit = leaf(np.float64(x_value))
    (explicit**2).backward(torch.tensor(1.0, dtype=torch.float64))
    assert close(implicit.grad, 2 * implicit.detach())
    assert close(explicit.grad, implicit.grad)


@settings(max_examples=50, deadline=None)
@given(hnp.arrays(np.float64, non_scalar_shapes, elements=elements))
def test_a_non_scalar_output_cannot_start_backward_on_its_own(array: np.ndarray) -> None:
    y = leaf(array) ** 2
    with pytest.raises(RuntimeError, match="only for scalar outputs"):
        y.backward()


@settings(max_examples=100, deadline=None)
@given(hnp.arrays(np.float64, shapes, elements=elements))
def test_sum_of_squares_gives_2x(array: np.ndarray) -> None:
    # s = Σ x_i²  ⇒  ∂s/∂x_i = 2x_i
    x = leaf(array)
    (x**2).sum().backward()
    assert close(x.grad, 2 * x.detach())


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_backward_v_on_squares_gives_v_times_2x(data: st.DataObject) -> None:
    # y = x², J = diag(2x)  ⇒  backward(v) stores vᵀJ = v·2x (any shape, any v)
    shape = data.draw(shapes, label="shape")
    x = leaf(data.draw(hnp.arrays(np.float64, shape, elements=elements), label="x"))
    v = torch.tensor(data.draw(hnp.arrays(np.float64, shape, elements=weights), label="v"))
    (x**2).backward(v)
    assert close(x.grad, v * 2 * x.detach())


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_backward_v_is_the_gradient_of_the_weighted_sum(data: st.DataObject) -> None:
    # backward(v) differentiates s = Σ v_i y_i; with v = 1 that is the plain sum.
    shape = data.draw(non_scalar_shapes, label="shape")
    array = data.draw(hnp.arrays(np.float64, shape, elements=elements), label="x")
    v = torch.tensor(data.draw(hnp.arrays(np.float64, shape, elements=weights), label="v"))

    by_vector, by_sum, by_ones, by_plain_sum = (leaf(array) for _ in range(4))
    (by_vector**2).backward(v)
    (v * by_sum**2).sum().backward()
    (by_ones**2).backward(torch.ones_like(by_ones))
    (by_plain_sum**2).sum().backward()
    assert close(by_vector.grad, by_sum.grad)
    assert close(by_ones.grad, by_plain_sum.grad)


@settings(max_examples=50, deadline=None)
@given(st.data())
def test_the_jacobian_of_squares_is_diag_2x_and_backward_gives_v_j(data: st.DataObject) -> None:
    n = data.draw(st.integers(min_value=1, max_value=6), label="n")
    x = leaf(data.draw(hnp.arrays(np.float64, n, elements=elements), label="x"))
    v = torch.tensor(data.draw(hnp.arrays(np.float64, n, elements=weights), label="v"))

    jacobian = torch.autograd.functional.jacobian(lambda t: t**2, x)
    assert close(jacobian, torch.diag(2 * x.detach()))
    (x**2).backward(v)
    assert close(x.grad, v @ jacobian)


@settings(max_examples=50, deadline=None)
@given(st.data())
def test_a_gradient_of_another_shape_is_refused(data: st.DataObject) -> None:
    shape = data.draw(non_scalar_shapes, label="output shape")
    wrong = data.draw(shapes.filter(lambda s: s != shape), label="gradient shape")
    y = leaf(np.ones(shape)) ** 2
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        y.backward(torch.ones(wrong, dtype=torch.float64))


@settings(max_examples=100, deadline=None)
@given(hnp.arrays(np.float64, shapes, elements=elements))
def test_the_mean_over_n_elements_gives_1_over_n_each(array: np.ndarray) -> None:
    # mean = Σ x_i / n  ⇒  ∂mean/∂x_i = 1/n, whatever the values
    x = leaf(array)
    x.mean().backward()
    assert close(x.grad, torch.full_like(x, 1 / x.numel()).detach())


@settings(max_examples=100, deadline=None)
@given(hnp.arrays(np.float64, shapes, elements=elements))
def test_the_mean_of_squares_gives_2x_over_n(array: np.ndarray) -> None:
    # y = Σ x_i² / n  ⇒  ∂y/∂x_i = 2x_i / n  (for x = [2, 4, 6, 8]: x/2)
    x = leaf(array)
    y = (x**2).mean()
    y.backward()
    n = x.numel()
    assert torch.isclose(y.detach(), (x.detach() ** 2).sum() / n, rtol=RTOL, atol=ATOL)
    assert close(x.grad, 2 * x.detach() / n)


@settings(max_examples=100, deadline=None)
@given(
    weights,
    hnp.arrays(np.float64, st.integers(min_value=1, max_value=8), elements=weights),
)
def test_mean_squared_error_of_w_x_against_2x(w_value: float, inputs: np.ndarray) -> None:
    # loss = mean((w x_i - 2x_i)²)  ⇒  dloss/dw = 2(w - 2)·mean(x_i²)
    w = leaf(np.float64(w_value))
    x = torch.tensor(inputs, dtype=torch.float64)
    loss = ((w * x - 2 * x) ** 2).mean()
    loss.backward()
    assert close(w.grad, 2 * (w.detach() - 2) * (x**2).mean())


@settings(max_examples=30, deadline=None)
@given(hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=1))
def test_one_element_of_any_shape_needs_no_gradient_argument(shape: tuple[int, ...]) -> None:
    """The rule is numel() == 1, not zero dimensions: (1,), (1, 1), (1, 1, 1) all work."""
    w = torch.ones(shape, dtype=torch.float64, requires_grad=True)
    (w * 3).backward()
    assert close(w.grad, torch.full(shape, 3.0, dtype=torch.float64))


def _distance_moved(
    make: type, inputs: np.ndarray, targets: np.ndarray, reduction: str, steps: int
) -> float:
    """How far the weights of a linear model move from zero in some optimizer steps."""
    w = torch.zeros(inputs.shape[1], dtype=torch.float64, requires_grad=True)
    optimizer = make([w], lr=0.01)
    for _ in range(steps):
        errors = (torch.from_numpy(inputs) @ w - torch.from_numpy(targets)) ** 2
        optimizer.zero_grad()
        (errors.sum() if reduction == "sum" else errors.mean()).backward()
        optimizer.step()
    return w.detach().norm().item()


@settings(max_examples=30, deadline=None)
@given(
    st.integers(min_value=2, max_value=16).flatmap(
        lambda n: st.tuples(
            hnp.arrays(np.float64, (n, 3), elements=st.floats(0.5, 5)),
            hnp.arrays(np.float64, (n,), elements=st.floats(1, 5)),
        )
    )
)
def test_sum_rescales_sgd_steps_by_n_but_not_adam_steps(
    data: tuple[np.ndarray, np.ndarray],
) -> None:
    """Chapter 7's pitfall: with SGD the sum's first step is N times the mean's; with Adam
    the sum and the mean move the weights the same distance, after one step or ten."""
    inputs, targets = data
    n = len(targets)
    sgd_sum = _distance_moved(torch.optim.SGD, inputs, targets, "sum", steps=1)
    sgd_mean = _distance_moved(torch.optim.SGD, inputs, targets, "mean", steps=1)
    assert sgd_sum == pytest.approx(n * sgd_mean, rel=1e-9, abs=1e-12)
    # Adam divides m (a running mean of g) by sqrt(v) (of g²): scaling every g by N
    # scales both by N, so the whole path is the same, up to the eps added to sqrt(v).
    # Positive inputs and targets keep the elements of the first g far from 0.
    for steps in (1, 10):
        adam_sum = _distance_moved(torch.optim.Adam, inputs, targets, "sum", steps)
        adam_mean = _distance_moved(torch.optim.Adam, inputs, targets, "mean", steps)
        assert adam_sum == pytest.approx(adam_mean, rel=1e-3, abs=1e-6)

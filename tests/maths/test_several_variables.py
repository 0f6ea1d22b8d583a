"""Several variables: docs/chapters/several-variables.md's code against its hand gradients.

The page derives

* z = x·y: ∂z/∂x = y and ∂z/∂y = x;
* loss = (x·w + b)² with y = x·w + b: ∂loss/∂x = 2y·w, ∂loss/∂w = 2y·x, ∂loss/∂b = 2y,

evaluates the second set in plain Python (region ``by_hand``), and shows nn.Linear(1, 1)
getting the same gradients. The regions run on random inputs (the ``*-maths`` regions
are the page's computations without its hard-coded inputs).
"""

from __future__ import annotations

import re

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from . import run_region

SNIPPET = "chapters/several_variables"
# Sensible magnitudes for float64: large enough to vary, small enough to stay exact-ish.
values = st.floats(min_value=-10.0, max_value=10.0, allow_nan=False, allow_infinity=False)
RTOL, ATOL = 1e-10, 1e-12


def leaf(value: float) -> torch.Tensor:
    return torch.tensor(value, dtype=torch.float64, requires_grad=True)


def close(actual: torch.Tensor | None, expected: torch.Tensor | float) -> bool:
    assert actual is not None, "no gradient was stored"
    expected_t = torch.as_tensor(expected, dtype=torch.float64).reshape(actual.shape)
    return torch.allclose(actual, expected_t, rtol=RTOL, atol=ATOL)


@settings(max_examples=50, deadline=None)
@given(values, values)
def test_product_gradients_are_the_other_input(x_value: float, y_value: float) -> None:
    page = run_region(SNIPPET, "product-maths", inputs={"x": leaf(x_value), "y": leaf(y_value)})
    assert close(page["z"].detach(), x_value * y_value)
    assert close(page["x"].grad, y_value)  # ∂z/∂x = y
    assert close(page["y"].grad, x_value)  # ∂z/∂y = x


@settings(max_examples=50, deadline=None)
@given(values, values, values)
def test_squared_linear_gradients(x_value: float, w_value: float, b_value: float) -> None:
    inputs = {"x": leaf(x_value), "w": leaf(w_value), "b": leaf(b_value)}
    page = run_region(SNIPPET, "linear-maths", inputs=inputs)
    y = x_value * w_value + b_value
    assert close(page["x"].grad, 2 * y * w_value)  # ∂loss/∂x = 2y·w
    assert close(page["w"].grad, 2 * y * x_value)  # ∂loss/∂w = 2y·x
    assert close(page["b"].grad, 2 * y)  # ∂loss/∂b = 2y


@settings(max_examples=50, deadline=None)
@given(values, values, values)
def test_the_plain_python_formulas_match_autograd(
    x_value: float, w_value: float, b_value: float
) -> None:
    inputs = {"x": leaf(x_value), "w": leaf(w_value), "b": leaf(b_value)}
    page = run_region(SNIPPET, "linear-maths", inputs=inputs)
    page = run_region(SNIPPET, "by_hand", inputs=page)
    printed = dict(re.findall(r"^(2y\S*) += (\S+)$", page.output, re.M))
    y = x_value * w_value + b_value
    assert page["y_value"] == y
    assert set(printed) == {"2y·w", "2y·x", "2y"}
    # What the page prints is what autograd stored, and the hand formula.
    for name, autograd, formula in [
        ("2y·w", page["x"].grad, 2 * y * w_value),
        ("2y·x", page["w"].grad, 2 * y * x_value),
        ("2y", page["b"].grad, 2 * y),
    ]:
        assert float(printed[name]) == formula, name
        assert close(autograd, formula), name


@settings(max_examples=30, deadline=None)
@given(values, values, values)
def test_linear_layer_gets_the_same_gradients(
    x_value: float, w_value: float, b_value: float
) -> None:
    # nn.Linear(1, 1) computes x·w + b: its weight and bias get 2y·x and 2y.
    layer = torch.nn.Linear(1, 1, dtype=torch.float64)
    with torch.no_grad():
        layer.weight.fill_(w_value)
        layer.bias.fill_(b_value)
    inputs = torch.tensor([[x_value]], dtype=torch.float64)
    page = run_region(SNIPPET, "layer-maths", inputs={"layer": layer, "inputs": inputs})
    y = x_value * w_value + b_value
    assert close(page["loss"].detach(), y**2)
    assert layer.weight.grad is not None and layer.weight.grad.shape == layer.weight.shape
    assert close(layer.weight.grad, 2 * y * x_value)
    assert close(layer.bias.grad, 2 * y)

"""The chain rule: docs/chapters/chain-rule.md's code against its hand derivation.

The page derives, for y = u² with u = 3x + 4,

    dy/dx = dy/du · du/dx = 2u · 3 = 6(3x + 4),

and, for the same function as the chain y = 3x, z = y + 4, loss = z², the local
derivatives 2z, 1 and 3 that autograd multiplies from the output back. The code under
test is the page's (snippets/chapters/chain_rule.py): `dy_dx`, and the regions that
compute u, y, x.grad and each node's gradient; the ``*-maths`` regions are those
computations without the page's hard-coded x = 2.
"""

from __future__ import annotations

import math
import re

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from . import run_region

SNIPPET = "chapters/chain_rule"
values = st.floats(min_value=-100.0, max_value=100.0, allow_nan=False, allow_infinity=False)
# The page's loop works in float32. Multiples of 1/16 keep x, 3x + 4 and 6(3x + 4) exact
# there: near 3x + 4 = 0, float32 rounding of an arbitrary x dominates the result.
sixteenths = st.integers(min_value=-1600, max_value=1600).map(lambda k: k / 16)
REL, ABS = 1e-12, 1e-9

dy_dx = run_region(SNIPPET, "formula")["dy_dx"]


def leaf(value: float) -> torch.Tensor:
    return torch.tensor(value, dtype=torch.float64, requires_grad=True)


def close(actual: torch.Tensor | float, expected: float) -> bool:
    number = actual.item() if isinstance(actual, torch.Tensor) else actual
    return math.isclose(number, expected, rel_tol=REL, abs_tol=ABS)


def by_hand(x: float) -> float:
    """The page's derivation: dy/dx = 2u · 3 with u = 3x + 4."""
    return 2 * (3 * x + 4) * 3


@settings(max_examples=50, deadline=None)
@given(values)
def test_dy_dx_is_the_chain_rule(x_value: float) -> None:
    assert close(dy_dx(x_value), by_hand(x_value))


@settings(max_examples=50, deadline=None)
@given(values)
def test_the_composite_region_and_dy_dx_agree_with_autograd(x_value: float) -> None:
    page = run_region(SNIPPET, "composite-maths", inputs={"x": leaf(x_value)})
    u = 3 * x_value + 4  # the inner function
    assert close(page["u"], u)
    assert close(page["y"], u**2)  # the outer function
    assert close(page["x"].grad, by_hand(x_value))
    assert close(page["x"].grad, dy_dx(x_value))


@settings(max_examples=50, deadline=None)
@given(sixteenths)
def test_each_of_many_points_agrees_with_the_formula(value: float) -> None:
    # The page's loop body, in float32 as on the page.
    page = run_region(SNIPPET, "many-points-maths", inputs={"torch": torch, "value": value})
    assert close(page["x"].grad, by_hand(value))


def test_the_printed_points_are_the_formulas_values() -> None:
    page = run_region(SNIPPET, "composite", "formula", "many-points")
    rows = re.findall(r"x = +(\S+): autograd +(\S+), formula +(\S+)", page.output)
    assert len(rows) == 5
    for x_text, autograd, formula in rows:
        assert float(autograd) == float(formula) == by_hand(float(x_text))


@settings(max_examples=50, deadline=None)
@given(values)
def test_node_by_node_multiplies_the_local_derivatives(x_value: float) -> None:
    page = run_region(SNIPPET, "graph-maths", inputs={"torch": torch, "x": leaf(x_value)})
    page = run_region(SNIPPET, "node-by-node", inputs=page)
    z = 3 * x_value + 4
    assert close(page["grad_z"], 2 * z)  # dloss/dz = 2z
    assert close(page["grad_y"], 2 * z * 1)  # · dz/dy = 1
    assert close(page["grad_x"], 2 * z * 1 * 3)  # · dy/dx = 3

    page = run_region(SNIPPET, "backward", inputs=page)
    assert close(page["x"].grad, by_hand(x_value))

"""Backprop by hand: docs/chapters/backprop-by-hand.md's backward passes against its maths.

The page walks two graphs node by node and writes each walk as a function without
autograd (snippets/chapters/backprop_by_hand.py), with the gradients

* loss = (3x + 4)²: ∂loss/∂z = 2z, ∂loss/∂y = 2z·1, ∂loss/∂x = 2z·1·3 = 6(3x + 4);
* loss = (xw + b)²: ∂loss/∂y = ∂loss/∂p = ∂loss/∂b = 2y, ∂loss/∂x = 2y·w, ∂loss/∂w = 2y·x.

These tests check the page's chain_by_hand and linear_by_hand against those formulas,
and run the page's autograd regions (the ``*-forward-maths`` regions are the page's
graphs without its hard-coded inputs) to check that autograd agrees with them at every
node, as the page prints.
"""

from __future__ import annotations

import math

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from . import Session, run_region

SNIPPET = "chapters/backprop_by_hand"
values = st.floats(min_value=-10.0, max_value=10.0, allow_nan=False, allow_infinity=False)
# The page's graphs are float32. Multiples of 1/16 up to 10 keep every node and gradient
# exact in float32, so the page's own comparison (allclose) is exact too: near 3x + 4 = 0,
# float32 rounding of arbitrary x would make it print False, rightly.
sixteenths = st.integers(min_value=-160, max_value=160).map(lambda k: k / 16)

functions = run_region(SNIPPET, "imports", "chain-by-hand", "linear-by-hand")
chain_by_hand, linear_by_hand = functions["chain_by_hand"], functions["linear_by_hand"]


def close(actual: torch.Tensor | float, expected: float) -> bool:
    number = actual.item() if isinstance(actual, torch.Tensor) else actual
    return math.isclose(number, expected, rel_tol=1e-12, abs_tol=1e-9)


def run_autograd(forward: str, by_hand: str, after: str, **leaves: float) -> Session:
    """The page's forward region on float32 leaves (as on the page), its function
    ``by_hand`` on the same numbers (as region <name>-run does), then region ``after``."""
    inputs = {name: torch.tensor(value, requires_grad=True) for name, value in leaves.items()}
    page = run_region(SNIPPET, forward, inputs={**functions, **inputs})
    page["values"], page["grads"] = functions[by_hand](*leaves.values())
    return run_region(SNIPPET, after, inputs=page)


@settings(max_examples=50, deadline=None)
@given(x0=values)
def test_chain_by_hand_is_the_chain_rule(x0: float) -> None:
    values_by_hand, grads = chain_by_hand(x0)
    z = 3 * x0 + 4
    assert values_by_hand == {"x": x0, "y": 3 * x0, "z": z, "loss": z**2}
    assert list(grads) == ["loss", "z", "y", "x"]  # output first, as the page walks it
    assert grads["loss"] == 1.0
    assert close(grads["z"], 2 * z)
    assert close(grads["y"], 2 * z * 1)
    assert close(grads["x"], 2 * z * 1 * 3)


@settings(max_examples=50, deadline=None)
@given(x0=sixteenths)
def test_autograd_agrees_with_chain_by_hand_at_every_node(x0: float) -> None:
    page = run_autograd("chain-forward-maths", "chain_by_hand", "chain-autograd", x=x0)
    z = 3 * x0 + 4
    for name, expected in [("loss", 1.0), ("z", 2 * z), ("y", 2 * z), ("x", 6 * z)]:
        assert close(page[name].grad, expected), name
    verdicts = [line.rsplit(maxsplit=1)[-1] for line in page.output.splitlines()]
    assert verdicts == ["True"] * 4  # the page's own comparison, node by node


@settings(max_examples=50, deadline=None)
@given(x0=values, w0=values, b0=values)
def test_linear_by_hand_is_the_chain_rule(x0: float, w0: float, b0: float) -> None:
    values_by_hand, grads = linear_by_hand(x0, w0, b0)
    y = x0 * w0 + b0
    assert values_by_hand == {"x": x0, "w": w0, "b": b0, "p": x0 * w0, "y": y, "loss": y**2}
    for name in ("y", "p", "b"):
        assert close(grads[name], 2 * y), name
    assert close(grads["x"], 2 * y * w0)
    assert close(grads["w"], 2 * y * x0)


@settings(max_examples=50, deadline=None)
@given(x0=sixteenths, w0=sixteenths, b0=sixteenths)
def test_autograd_agrees_with_linear_by_hand_at_every_node(x0: float, w0: float, b0: float) -> None:
    page = run_autograd(
        "linear-forward-maths", "linear_by_hand", "linear-autograd", x=x0, w=w0, b=b0
    )
    y = x0 * w0 + b0
    expected = {"y": 2 * y, "p": 2 * y, "b": 2 * y, "x": 2 * y * w0, "w": 2 * y * x0}
    for name, value in expected.items():
        assert close(page[name].grad, value), name
    verdicts = [line.rsplit(maxsplit=1)[-1] for line in page.output.splitlines()]
    assert verdicts == ["True"] * 6

    # torch.autograd.grad on a fresh graph returns the same leaf gradients, .grad untouched.
    before = {name: page[name].grad.clone() for name in "xwb"}
    page = run_region(SNIPPET, "autograd-grad", inputs=page)
    for name in "xwb":
        assert close(page[f"grad_{name}"], expected[name]), name
        assert torch.equal(page[name].grad, before[name]), name  # .grad left as it was

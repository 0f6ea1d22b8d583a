"""Backprop by hand: the plain-Python backward passes of docs/chapters/backprop-by-hand.md.

The page walks two graphs node by node and writes each walk as a function without
autograd (snippets/chapters/backprop_by_hand.py):

* loss = (3x + 4)²: ∂loss/∂z = 2z, ∂loss/∂y = 2z, ∂loss/∂x = 6(3x + 4);
* loss = (xw + b)²: ∂loss/∂y = ∂loss/∂p = ∂loss/∂b = 2y, ∂loss/∂x = 2y·w, ∂loss/∂w = 2y·x.

These tests check the functions against autograd (every node, intermediate ones through
retain_grad) and against the closed formulas, for random inputs.
"""

from __future__ import annotations

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from . import load_snippet

snippet = load_snippet("backprop_by_hand")

values = st.floats(min_value=-10.0, max_value=10.0, allow_nan=False, allow_infinity=False)
RTOL, ATOL = 1e-9, 1e-9


def leaf(value: float) -> torch.Tensor:
    return torch.tensor(value, dtype=torch.float64, requires_grad=True)


def close(actual: torch.Tensor | float, expected: float) -> bool:
    actual_t = torch.as_tensor(actual, dtype=torch.float64)
    return torch.allclose(
        actual_t, torch.tensor(expected, dtype=torch.float64), rtol=RTOL, atol=ATOL
    )


@settings(max_examples=100, deadline=None)
@given(x0=values)
def test_chain_by_hand_matches_autograd(x0: float) -> None:
    values_by_hand, grads = snippet.chain_by_hand(x0)

    x = leaf(x0)
    y = x * 3
    z = y + 4
    loss = z**2
    nodes = {"x": x, "y": y, "z": z, "loss": loss}
    for node in (y, z, loss):
        node.retain_grad()
    loss.backward()

    assert list(grads) == ["loss", "z", "y", "x"]  # output first, as the page walks it
    for name, node in nodes.items():
        assert close(node.detach(), values_by_hand[name]), name
        assert close(node.grad, grads[name]), name


@settings(max_examples=100, deadline=None)
@given(x0=values)
def test_chain_by_hand_matches_the_chain_rule(x0: float) -> None:
    _, grads = snippet.chain_by_hand(x0)
    assert close(grads["z"], 2 * (3 * x0 + 4))
    assert close(grads["y"], 2 * (3 * x0 + 4))
    assert close(grads["x"], 6 * (3 * x0 + 4))


@settings(max_examples=100, deadline=None)
@given(x0=values, w0=values, b0=values)
def test_linear_by_hand_matches_autograd(x0: float, w0: float, b0: float) -> None:
    values_by_hand, grads = snippet.linear_by_hand(x0, w0, b0)

    x, w, b = leaf(x0), leaf(w0), leaf(b0)
    p = x * w
    y = p + b
    loss = y**2
    nodes = {"x": x, "w": w, "b": b, "p": p, "y": y, "loss": loss}
    for node in (p, y, loss):
        node.retain_grad()
    loss.backward()

    for name, node in nodes.items():
        assert close(node.detach(), values_by_hand[name]), name
        assert close(node.grad, grads[name]), name
    # torch.autograd.grad on a fresh graph gives the same leaf gradients.
    fresh = torch.autograd.grad((x * w + b) ** 2, (x, w, b))
    for name, grad in zip("xwb", fresh, strict=True):
        assert close(grad, grads[name]), name


@settings(max_examples=100, deadline=None)
@given(x0=values, w0=values, b0=values)
def test_linear_by_hand_matches_the_formulas(x0: float, w0: float, b0: float) -> None:
    _, grads = snippet.linear_by_hand(x0, w0, b0)
    y = x0 * w0 + b0
    for name in ("y", "p", "b"):
        assert close(grads[name], 2 * y), name
    assert close(grads["x"], 2 * y * w0)
    assert close(grads["w"], 2 * y * x0)

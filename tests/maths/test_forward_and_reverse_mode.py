"""docs/deeper/forward-and-reverse-mode.md: the page's hand formulas agree with autograd.

The code under test is the page's: named regions of snippets/deeper/forward_and_reverse_mode.py
run in a fresh namespace (stdout captured), and the test takes the page's functions from
it. The maths the test writes itself is the hand derivation on the page.
"""

from __future__ import annotations

import contextlib
import io
import re
import warnings
from pathlib import Path
from typing import Any

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

SNIPPET = (
    Path(__file__).resolve().parents[2] / "snippets" / "deeper" / "forward_and_reverse_mode.py"
)


def run_regions(*names: str) -> dict[str, Any]:
    """Run the named regions of the page's snippet, in order, in one fresh namespace."""
    text = SNIPPET.read_text(encoding="utf-8")
    namespace: dict[str, Any] = {"__name__": "page"}
    for name in names:
        match = re.search(
            rf"^# --8<-- \[start:{name}\]\n(.*?)^# --8<-- \[end:{name}\]", text, re.S | re.M
        )
        assert match, f"no region {name!r} in {SNIPPET.name}"
        with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(compile(match[1], f"{SNIPPET.name}:{name}", "exec"), namespace)
    return namespace


PAGE = run_regions("quiet-start", "jacobian", "per-sample")
points = st.lists(st.floats(-3, 3, allow_nan=False), min_size=3, max_size=3)


@settings(max_examples=40, deadline=None)
@given(points)
def test_hand_jacobian_is_autograds(values: list[float]) -> None:
    # J = [[x2, x1, 1], [0, x3², 2 x2 x3]] for y1 = x1 x2 + x3, y2 = x2 x3².
    x = torch.tensor(values, dtype=torch.float64)
    hand = PAGE["jacobian_by_hand"](x).double()
    torch.testing.assert_close(hand, torch.func.jacrev(PAGE["f"])(x), rtol=1e-6, atol=1e-5)
    torch.testing.assert_close(hand, torch.func.jacfwd(PAGE["f"])(x), rtol=1e-6, atol=1e-5)


@settings(max_examples=40, deadline=None)
@given(points, st.lists(st.floats(-3, 3, allow_nan=False), min_size=2, max_size=2))
def test_vjp_and_jvp_are_rows_and_columns(values: list[float], weights: list[float]) -> None:
    # v^T J weighs the rows, J u the columns (u = the first three weights, padded).
    x = torch.tensor(values, dtype=torch.float64)
    v = torch.tensor(weights, dtype=torch.float64)
    u = torch.tensor([*weights, 1.0], dtype=torch.float64)
    hand = PAGE["jacobian_by_hand"](x).double()
    _, vjp_fn = torch.func.vjp(PAGE["f"], x)
    torch.testing.assert_close(vjp_fn(v)[0], v @ hand, rtol=1e-6, atol=1e-5)
    torch.testing.assert_close(
        torch.func.jvp(PAGE["f"], (x,), (u,))[1], hand @ u, rtol=1e-6, atol=1e-5
    )


def test_per_sample_gradients_are_two_r_x() -> None:
    # dloss_i/dw = 2 r_i x_i and dloss_i/db = 2 r_i, with r_i = w . x_i + b - t_i.
    model, X, target = PAGE["model"], PAGE["X"], PAGE["target"]
    grads = PAGE["per_sample"]
    with torch.no_grad():
        r = X @ model.weight.squeeze(0) + model.bias - target
    torch.testing.assert_close(grads["weight"].squeeze(1), 2 * r.unsqueeze(1) * X)
    torch.testing.assert_close(grads["bias"].squeeze(1), 2 * r)
    # Their mean is the gradient of the mean loss.
    model.zero_grad()
    ((model(X).squeeze(1) - target) ** 2).mean().backward()
    torch.testing.assert_close(grads["weight"].mean(dim=0), model.weight.grad)

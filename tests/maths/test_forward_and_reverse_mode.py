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

from . import run_region

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


PAGE = run_regions("quiet-start", "jacobian", "per-sample", "per-example-linear")
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


@settings(max_examples=25, deadline=None)
@given(
    st.integers(min_value=1, max_value=6).flatmap(
        lambda b: st.tuples(
            st.lists(st.floats(-2, 2, allow_nan=False), min_size=3 * b, max_size=3 * b),
            st.lists(st.floats(-2, 2, allow_nan=False), min_size=b, max_size=b),
        )
    )
)
def test_per_example_linear_gradient_is_delta_h_transpose(data: tuple[list, list]) -> None:
    # dl_i/dW = delta_i h_i^T, with delta2_i = 2 r_i at the output and
    # delta1_i = (W2^T delta2_i) * (1 - h_i^2) at z1 = W1 x_i + b1, h_i = tanh(z1_i).
    X = torch.tensor(data[0]).reshape(-1, 3)
    t = torch.tensor(data[1])
    run = run_region(
        "deeper/forward_and_reverse_mode",
        "per-example-linear-maths",
        "per-sample-memory",
        inputs={**PAGE, "X": X, "target": t},
    )
    mlp = PAGE["mlp"]
    W1, b1 = mlp[0].weight.detach(), mlp[0].bias.detach()
    W2, b2 = mlp[2].weight.detach(), mlp[2].bias.detach()
    h = torch.tanh(X @ W1.T + b1)
    r = (h @ W2.T + b2).squeeze(1) - t
    delta2 = 2 * r.unsqueeze(1)  # (B, 1)
    delta1 = (delta2 @ W2) * (1 - h**2)  # (B, 4)
    hand2 = delta2.unsqueeze(2) * h.unsqueeze(1)  # delta_i h_i^T
    hand1 = delta1.unsqueeze(2) * X.unsqueeze(1)  # delta_i x_i^T
    for name, hand in (("2.weight", hand2), ("0.weight", hand1)):
        torch.testing.assert_close(run["per_sample_mlp"][name], hand, rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(run["outer2"], hand2, rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(run["outer1"], hand1, rtol=1e-4, atol=1e-5)
    # Memory: B x P float32 numbers.
    assert run["stored"] == len(X) * 21 * 4

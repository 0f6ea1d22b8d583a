"""docs/deeper/tensor-level-backprop.md: the cross-entropy nodes and the layer norm's
dσ/dx = x̂ / D with any ε, on the page's own code (run_region)."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

from . import run_region

SNIPPET = "deeper/tensor_level_backprop"
rows = st.lists(st.floats(-5, 5, allow_nan=False), min_size=2, max_size=6).filter(
    lambda xs: max(xs) - min(xs) > 1e-3
)


@settings(max_examples=40, deadline=None)
@given(rows, st.floats(0, 10, allow_nan=False))
def test_dsigma_is_x_hat_over_d_for_any_eps(values: list[float], eps: float) -> None:
    # σ = sqrt(mean((x - μ)²) + ε): dσ/dx_j = (x_j - μ) / (D σ), which is x̂_j / D with
    # the same ε in x̂ = (x - μ) / σ.
    x = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    D = len(values)
    inputs = {"torch": torch, "x3": x, "eps": eps}
    page = run_region(SNIPPET, "layer-norm-eps-maths", inputs=inputs)
    mu = sum(values) / D
    sigma = (sum((v - mu) ** 2 for v in values) / D + eps) ** 0.5
    hand = torch.tensor([(v - mu) / (D * sigma) for v in values], dtype=torch.float64)
    torch.testing.assert_close(page["dsigma"], hand)
    # The page divides by 3, the D of its row: compare with the hand x̂ / D there.
    if D == 3:
        torch.testing.assert_close(page["formula"], hand)


def test_cross_entropy_is_nll_of_log_softmax_and_exact_when_p_underflows() -> None:
    # F.cross_entropy = nll_loss(log_softmax(z)); its gradient is (p - e_t) / N with no
    # 1/p: for z = (0, 200) and t = 0, p = (0, 1) in float32 and dz = (-1, 1) exactly,
    # while the Jacobian route through -1/p_t gives nan.
    session = run_region(SNIPPET, "imports", "softmax-jacobian", "cross-entropy-nodes")
    z, loss = session["z"], session["loss"]
    assert [loss.grad_fn.name(), loss.grad_fn.next_functions[0][0].name()] == [
        "NllLossBackward0",
        "LogSoftmaxBackward0",
    ]
    p = torch.softmax(z.detach(), dim=1)
    expected = p - F.one_hot(session["true_class"], 2)
    assert torch.equal(z.grad, expected)
    assert torch.equal(z.grad, torch.tensor([[-1.0, 1.0]]))
    assert "nan" in session.output

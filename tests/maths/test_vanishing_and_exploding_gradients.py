"""docs/interview/what-are-vanishing-and-exploding-gradients.md against the maths it derives.

The page derives

* the weight gradient of layer k, for h_k = f(W_k h_(k-1) + b_k) and a batch of rows, is
  δ_k h_(k-1)ᵀ summed over the batch, with δ_k = f'(z_k) ⊙ ∂L/∂h_k: the backward
  factor ∂L/∂h_k (growing towards the input) times the layer's input (growing towards
  the output), which is why the exploding stack's weight gradients are flat;
* a residual block h_k = h_(k-1) + F(h_(k-1)) has the Jacobian I + J_F.

The code under test is the page's
(snippets/interview/what_are_vanishing_and_exploding_gradients.py): its regions
`stacks` and `exploding-path` (the relu stack with std-1 weights, with ∂L/∂h_k kept by
retain_grad), and its `Residual` block.
"""

from __future__ import annotations

import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn

from tests.maths import run_region

SNIPPET = "interview/what_are_vanishing_and_exploding_gradients"
PAGE = run_region(SNIPPET, "factor", "stacks", "exploding-path", "remedies")


def test_weight_gradient_is_delta_times_the_layer_input() -> None:
    page = PAGE
    linears = [m for m in page["exploding"] if isinstance(m, nn.Linear)]
    layer_inputs = [page["inputs"], *page["outputs"][:-1]]
    for linear, h_in, h_out in zip(linears, layer_inputs, page["outputs"], strict=True):
        # relu'(z_k) is 1 where the output is positive, else 0.
        delta = (h_out > 0).float() * h_out.grad
        by_hand = delta.T @ h_in
        scale = by_hand.norm().item()
        torch.testing.assert_close(linear.weight.grad, by_hand, rtol=1e-4, atol=1e-5 * scale)


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_residual_jacobian_is_identity_plus_the_blocks(seed: int) -> None:
    torch.manual_seed(seed)
    block = nn.Sequential(nn.Linear(4, 4), nn.Sigmoid()).double()
    h = torch.randn(4, dtype=torch.float64)
    jacobian = torch.autograd.functional.jacobian(PAGE["Residual"](block), h)
    by_hand = torch.eye(4, dtype=torch.float64) + torch.autograd.functional.jacobian(block, h)
    torch.testing.assert_close(jacobian, by_hand)

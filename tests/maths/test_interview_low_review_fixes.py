"""Interview pages against the counts and formulas they state (low review findings).

* docs/interview/gradient-of-softmax-cross-entropy.md: with soft targets y that
  F.cross_entropy does not normalise, the gradient of the mean loss is
  (p · Σ_c y_c - y) / N, which is (p - y) / N only when every row of y sums to 1.
* docs/interview/why-does-a-validation-loop-use-no-grad.md: of the bytes saved, those
  made only for backward are, per batch, the hidden output (32 · 100), the
  log-softmax (32 · 3) and one scalar, 4 bytes each: 4 · 13,188 = 52,752.
* docs/interview/what-does-autograd-save-for-the-backward-pass.md: 5 + 14 b numbers
  saved for a batch of b, of which 6 b (the ReLU's output and the network's output) are
  made by the forward pass only for backward.

Each test runs the page's own regions (snippets/interview/...).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.maths import run_region

SOFTMAX = "interview/gradient_of_softmax_cross_entropy"
VALIDATION = "interview/why_does_a_validation_loop_use_no_grad"
SAVED = "interview/what_does_autograd_save_for_the_backward_pass"


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 5), st.integers(2, 6), st.integers(0, 10_000))
def test_unnormalised_soft_targets(n: int, classes: int, seed: int) -> None:
    generator = torch.Generator().manual_seed(seed)
    logits = torch.randn(n, classes, generator=generator, dtype=torch.float64)
    logits.requires_grad_()
    targets = 2 * torch.rand(n, classes, generator=generator, dtype=torch.float64)
    probs = torch.softmax(logits.detach(), dim=1)
    page = run_region(
        SOFTMAX,
        "unnormalised-maths",
        inputs={
            "torch": torch,
            "F": F,
            "logits": logits,
            "unnormalised": targets,
            "probs": probs,
            "n": n,
        },
    )
    by_hand = (probs * targets.sum(dim=1, keepdim=True) - targets) / n  # (p Σy - y) / N
    torch.testing.assert_close(page["logits"].grad, by_hand)
    assert page.output.count("True") == 1 and page.output.rstrip().endswith("True")


def test_validation_bytes_made_only_for_backward() -> None:
    page = run_region(VALIDATION, "setup", "compare")
    batch, hidden, classes = 32, 100, 3
    per_batch = 4 * (batch * hidden + batch * classes + 1)  # hidden, log-softmax, a scalar
    assert page["only_for_backward"] == len(page["batches"]) * per_batch == 52_752
    assert f"{page['only_for_backward']} of them only for backward" in page.output


def test_numbers_saved_and_made_for_backward() -> None:
    page = run_region(SAVED, "nodes", "network", "which")
    batch = page["inputs"].shape[0]
    assert sum(t.numel() for t in page["saved"]) == 5 + 14 * batch
    assert page["made_for_backward"] == (5 + 1) * batch

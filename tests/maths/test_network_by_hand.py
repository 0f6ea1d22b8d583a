"""A small network by hand: the tensor-level backward pass of docs/chapters/network-by-hand.md.

For z1 = X W1 + b1, h = tanh(z1), logits = h W2 + b2 and L = mean cross-entropy, the page
derives

    dlogits = (softmax(logits) - one_hot) / N,
    dW2 = hᵀ dlogits,  db2 = column sums of dlogits,  dh = dlogits W2ᵀ,
    dz1 = (1 - h²) ⊙ dh,
    dW1 = Xᵀ dz1,  db1 = column sums of dz1,  dX = dz1 W1ᵀ,

and writes them as `backward_by_hand` (snippets/chapters/network_by_hand.py, plain tensor
operations). These tests draw random sizes and seeds and check every gradient against
autograd, check the page's `NetworkLoss` (the formulas as a backward pass) with
gradcheck, and check that gradcheck rejects the page's `WrongTanh`.
"""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch.autograd.gradcheck import GradcheckError

from . import load_snippet

snippet = load_snippet("network_by_hand")

sizes = st.integers(min_value=1, max_value=7)
seeds = st.integers(min_value=0, max_value=2**31 - 1)
PARAMETERS = ("W1", "b1", "W2", "b2")


def autograd_gradients(net: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """Every gradient the page derives, computed by autograd on fresh leaves."""
    leaves = {name: net[name].clone().requires_grad_() for name in ("X", *PARAMETERS)}
    out = snippet.forward(leaves["X"], net["targets"], *(leaves[p] for p in PARAMETERS))
    inner = {name: out[name] for name in ("logits", "h", "z1")}
    wanted = {**inner, **leaves}
    grads = torch.autograd.grad(out["loss"], list(wanted.values()))
    return dict(zip(wanted, grads, strict=True))


@settings(max_examples=60, deadline=None)
@given(seed=seeds, n=sizes, d=sizes, hidden=sizes, classes=st.integers(2, 6))
def test_every_hand_gradient_equals_autograd(
    seed: int, n: int, d: int, hidden: int, classes: int
) -> None:
    net = snippet.make_network(seed, n, d, hidden, classes, dtype=torch.float64)
    by_hand = snippet.backward_by_hand(net["X"], net["targets"], *(net[p] for p in PARAMETERS))
    expected = autograd_gradients(net)

    assert set(by_hand) == set(expected)
    for name, grad in expected.items():
        assert by_hand[name].shape == grad.shape, name  # a gradient has its tensor's shape
        torch.testing.assert_close(by_hand[name], grad, msg=name)


@settings(max_examples=60, deadline=None)
@given(seed=seeds, n=sizes, classes=st.integers(2, 6))
def test_logit_gradient_rows_sum_to_zero(seed: int, n: int, classes: int) -> None:
    net = snippet.make_network(seed, n=n, classes=classes, dtype=torch.float64)
    dlogits = snippet.backward_by_hand(net["X"], net["targets"], *(net[p] for p in PARAMETERS))[
        "logits"
    ]
    torch.testing.assert_close(dlogits.sum(dim=1), torch.zeros(n, dtype=torch.float64))
    # The true class is the only negative entry of its row, and every entry is in [-1/N, 1/N].
    true_class = dlogits.gather(1, net["targets"].unsqueeze(1)).squeeze(1)
    assert (true_class < 0).all()
    assert (dlogits.abs() <= 1 / n + 1e-12).all()


@settings(max_examples=15, deadline=None)
@given(seed=seeds, n=st.integers(1, 4), d=st.integers(1, 3), hidden=st.integers(1, 4))
def test_network_loss_passes_gradcheck(seed: int, n: int, d: int, hidden: int) -> None:
    net = snippet.make_network(seed, n, d, hidden, classes=3, dtype=torch.float64)
    inputs = [net["X"].requires_grad_(), net["targets"]]
    inputs += [net[p].requires_grad_() for p in PARAMETERS]
    assert torch.autograd.gradcheck(snippet.NetworkLoss.apply, tuple(inputs))


def test_gradcheck_rejects_the_wrong_tanh() -> None:
    z = torch.linspace(-2, 2, 5, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(torch.tanh, (z,))
    with pytest.raises(GradcheckError, match="Jacobian mismatch"):
        torch.autograd.gradcheck(snippet.WrongTanh.apply, (z,))

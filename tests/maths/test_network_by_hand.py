"""A small network by hand: docs/chapters/network-by-hand.md's backward pass against its maths.

For z1 = X W1 + b1, h = tanh(z1), logits = h W2 + b2 and L = mean cross-entropy, the page
derives

    dlogits = (softmax(logits) - one_hot) / N,
    dW2 = hᵀ dlogits,  db2 = column sums of dlogits,  dh = dlogits W2ᵀ,
    dz1 = (1 - h²) ⊙ dh,
    dW1 = Xᵀ dz1,  db1 = column sums of dz1,  dX = dz1 W1ᵀ,

writes them as `backward_by_hand` (plain tensor operations) and, step by step, in the
regions dlogits ... layer-one. The code under test is the page's
(snippets/chapters/network_by_hand.py): these tests check `backward_by_hand` and the
step-by-step regions against the formulas above, computed by the test, and against
autograd on the page's `forward`, for random sizes and seeds; check the page's
`NetworkLoss` (the formulas as a backward pass) with gradcheck; and check that
gradcheck rejects the page's `WrongTanh`, whose backward is 1 − h instead of 1 − h².
"""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch.autograd.gradcheck import GradcheckError

from . import run_region

SNIPPET = "chapters/network_by_hand"
page = run_region(
    SNIPPET,
    "imports",
    "make-network",
    "forward",
    "backward-by-hand",
    "compare",
    "network-loss-function",
    "wrong-tanh",
)
make_network, backward_by_hand = page["make_network"], page["backward_by_hand"]

sizes = st.integers(min_value=1, max_value=7)
seeds = st.integers(min_value=0, max_value=2**31 - 1)
PARAMETERS = ("W1", "b1", "W2", "b2")


def derivation(net: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """The page's formulas, written out by the test, from the inputs alone."""
    X, W1, b1, W2, b2 = (net[name].detach() for name in ("X", *PARAMETERS))
    h = torch.tanh(X @ W1 + b1)
    logits = h @ W2 + b2
    n = logits.shape[0]
    p = logits.exp() / logits.exp().sum(dim=1, keepdim=True)  # softmax, row by row
    one_hot = torch.zeros_like(logits)
    one_hot[torch.arange(n), net["targets"]] = 1.0
    dlogits = (p - one_hot) / n
    dh = dlogits @ W2.T
    dz1 = (1 - h**2) * dh  # tanh' = 1 − tanh²
    return {
        "logits": dlogits,
        "W2": h.T @ dlogits,
        "b2": dlogits.sum(dim=0),
        "h": dh,
        "z1": dz1,
        "W1": X.T @ dz1,
        "b1": dz1.sum(dim=0),
        "X": dz1 @ W1.T,
    }


def autograd_gradients(net: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """Every gradient the page derives, computed by autograd on the page's forward()."""
    leaves = {name: net[name].clone().requires_grad_() for name in ("X", *PARAMETERS)}
    out = page["forward"](leaves["X"], net["targets"], *(leaves[p] for p in PARAMETERS))
    wanted = {**{name: out[name] for name in ("logits", "h", "z1")}, **leaves}
    grads = torch.autograd.grad(out["loss"], list(wanted.values()))
    return dict(zip(wanted, grads, strict=True))


@settings(max_examples=40, deadline=None)
@given(seed=seeds, n=sizes, d=sizes, hidden=sizes, classes=st.integers(2, 6))
def test_backward_by_hand_is_the_derivation_and_agrees_with_autograd(
    seed: int, n: int, d: int, hidden: int, classes: int
) -> None:
    net = make_network(seed, n, d, hidden, classes, dtype=torch.float64)
    by_hand = backward_by_hand(net["X"], net["targets"], *(net[p] for p in PARAMETERS))
    expected, autograd = derivation(net), autograd_gradients(net)

    assert set(by_hand) == set(expected) == set(autograd)
    for name, grad in expected.items():
        assert by_hand[name].shape == grad.shape, name  # a gradient has its tensor's shape
        torch.testing.assert_close(by_hand[name], grad, msg=name)
        torch.testing.assert_close(by_hand[name], autograd[name], msg=name)


@settings(max_examples=15, deadline=None)
@given(seed=seeds, n=sizes, d=sizes, hidden=sizes, classes=st.integers(2, 6))
def test_the_step_by_step_regions_compute_the_derivation(
    seed: int, n: int, d: int, hidden: int, classes: int
) -> None:
    """The page's regions from run-forward to check-dx, on another network than seed 122."""
    net = make_network(seed, n, d, hidden, classes, dtype=torch.float64)
    inputs = {"X": net["X"], "targets": net["targets"]}
    inputs |= {name: net[name].requires_grad_() for name in PARAMETERS}
    steps = run_region(
        SNIPPET,
        "run-forward",
        "autograd-backward",
        "dlogits",
        "row-sums",
        "layer-two",
        "outer-products",
        "bias-used-n-times",
        "through-tanh",
        "layer-one",
        "check-dx",
        inputs={**page, **inputs},
    )
    expected = derivation(net)
    computed = {"logits": "dlogits", "W2": "dW2", "b2": "db2", "h": "dh", "z1": "dz1"}
    computed |= {"W1": "dW1", "b1": "db1", "X": "dX"}
    for name, variable in computed.items():
        torch.testing.assert_close(steps[variable], expected[name], msg=variable)
    torch.testing.assert_close(steps["per_example_sum"], expected["W2"])  # Σᵢ hᵢ ⊗ dlogitsᵢ
    # The broadcast's backward sums the rows: ExpandBackward0(dlogits) = db2.
    torch.testing.assert_close(steps["b2_rows"].grad_fn(steps["dlogits"]), expected["b2"])


@settings(max_examples=40, deadline=None)
@given(seed=seeds, n=sizes, classes=st.integers(2, 6))
def test_logit_gradient_rows_sum_to_zero(seed: int, n: int, classes: int) -> None:
    net = make_network(seed, n=n, classes=classes, dtype=torch.float64)
    dlogits = backward_by_hand(net["X"], net["targets"], *(net[p] for p in PARAMETERS))["logits"]
    # Σ_c (p_c − onehot_c) / N = (1 − 1) / N = 0
    torch.testing.assert_close(dlogits.sum(dim=1), torch.zeros(n, dtype=torch.float64))
    # The true class is the only negative entry of its row, and every entry is in [-1/N, 1/N].
    true_class = dlogits.gather(1, net["targets"].unsqueeze(1)).squeeze(1)
    assert (true_class < 0).all()
    assert (dlogits.abs() <= 1 / n + 1e-12).all()


@settings(max_examples=10, deadline=None)
@given(seed=seeds, n=st.integers(1, 4), d=st.integers(1, 3), hidden=st.integers(1, 4))
def test_network_loss_passes_gradcheck(seed: int, n: int, d: int, hidden: int) -> None:
    net = make_network(seed, n, d, hidden, classes=3, dtype=torch.float64)
    inputs = [net["X"].requires_grad_(), net["targets"]]
    inputs += [net[p].requires_grad_() for p in PARAMETERS]
    assert torch.autograd.gradcheck(page["NetworkLoss"].apply, tuple(inputs))


def test_gradcheck_rejects_the_wrong_tanh() -> None:
    z = torch.linspace(-2, 2, 5, dtype=torch.float64, requires_grad=True)
    wrong_tanh = page["WrongTanh"].apply
    torch.testing.assert_close(wrong_tanh(z), torch.tanh(z))  # the forward is right
    wrong_tanh(z).sum().backward()
    h = torch.tanh(z.detach())
    torch.testing.assert_close(z.grad, 1 - h)  # the page's slip: 1 − h, not 1 − h²
    with pytest.raises(GradcheckError, match="Jacobian mismatch"):
        torch.autograd.gradcheck(wrong_tanh, (z,))

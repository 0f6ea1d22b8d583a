"""Six interview pages that derive a gradient by hand, at the edges of their claims.

* derive-the-backward-pass-of-batch-norm: dx = (N g - sum g - xhat sum(g xhat)) / (N sigma)
  with g = gamma dy, for any batch, any eps; the column sums are 0; running_var is the
  unbiased variance; a batch of one is refused, and the formula gives dx = 0 there; the
  same function over dim=-1 is layer norm's backward; BatchNorm2d counts N H W values.
* why-bce-with-logits-instead-of-sigmoid-then-log: max(z, 0) - z y + log1p(e^-|z|) is the
  fused loss, whose gradient is sigma(z) - y, also at z = +-100 in float32; autograd through
  the value formula is wrong at z = 0 only; sigmoid's float32 and float64 cliffs.
* how-do-you-compute-a-full-jacobian-or-hessian: jacrev = jacfwd = the hand Jacobian; one
  batched pass by default, m VJPs or n JVPs one at a time, ceil(m / k) with chunk_size=k;
  a square Jacobian takes n of each; the Hessian by every composition is the hand one.
* how-do-you-get-the-gradient-with-respect-to-the-input: the input gradient of a class
  score is W1^T ((1 - h^2) * W2[c]); one backward of a sum gives each example's own; FGSM
  maximises g . delta over |delta_i| <= eps.
* how-do-you-reverse-or-scale-a-gradient: GradReverse, the hook and the detach trick keep
  the values and multiply the gradient exactly; gradcheck refuses every lam but -1.
* gauss-newton-vs-hessian-vs-fisher: H = J^T H_L J + sum_i (dL/df_i) hess f_i; G is
  positive semi-definite of rank at most N (C - 1); the exact Fisher is G.

Each test runs the page's own regions (snippets/interview/...) and writes only the hand
formula.
"""

from __future__ import annotations

import inspect
import math
import re
import warnings
from functools import cache

import pytest
import torch
import torch.nn.functional as F
from hypothesis import example, given, settings
from hypothesis import strategies as st
from torch.autograd.gradcheck import GradcheckError

from tests.maths import Session, run_region

BN_PAGE = "docs/interview/derive-the-backward-pass-of-batch-norm.md"
BN = "interview/derive_the_backward_pass_of_batch_norm"
BCE_PAGE = "docs/interview/why-bce-with-logits-instead-of-sigmoid-then-log.md"
BCE = "interview/why_bce_with_logits_instead_of_sigmoid_then_log"
JAC_PAGE = "docs/interview/how-do-you-compute-a-full-jacobian-or-hessian.md"
JAC = "interview/how_do_you_compute_a_full_jacobian_or_hessian"
INPUT_PAGE = "docs/interview/how-do-you-get-the-gradient-with-respect-to-the-input.md"
INPUT = "interview/how_do_you_get_the_gradient_with_respect_to_the_input"
GRL_PAGE = "docs/interview/how-do-you-reverse-or-scale-a-gradient.md"
GRL = "interview/how_do_you_reverse_or_scale_a_gradient"
GN_PAGE = "docs/interview/gauss-newton-vs-hessian-vs-fisher.md"
GN = "interview/gauss_newton_vs_hessian_vs_fisher"

F64 = torch.float64
values = st.floats(-3.0, 3.0, allow_nan=False, allow_infinity=False)
seeds = st.integers(0, 2**31 - 1)


@cache
def bn_page() -> Session:
    return run_region(BN, "coupling", "eval-mode", "formula")


def _batch(seed: int, n: int, d: int) -> torch.Tensor:
    return torch.randn(n, d, dtype=F64, generator=torch.Generator().manual_seed(seed))


# --- batch norm ---------------------------------------------------------------------------


@pytest.mark.claim(BN_PAGE, "Features do not mix")
@settings(max_examples=20, deadline=None)
@given(seeds, st.integers(2, 6))
def test_batch_norm_jacobian_by_hand(seed: int, n: int) -> None:
    page = bn_page()
    x = _batch(seed, n, 3)
    J = torch.func.jacrev(page["batch_norm"])(x)  # the page's training-mode batch norm
    for k in range(3):
        for other in range(3):
            if other != k:
                assert J[:, k, :, other].eq(0).all()
        # d y_i / d x_j = gamma / sigma (delta_ij - 1/N - xhat_i xhat_j / N)
        sigma = (x[:, k].var(unbiased=False) + 1e-5).sqrt()
        xhat = (x[:, k] - x[:, k].mean()) / sigma
        by_hand = (
            page["gamma"][k]
            / sigma
            * (torch.eye(n, dtype=F64) - 1 / n - torch.outer(xhat, xhat) / n)
        )
        torch.testing.assert_close(J[:, k, :, k], by_hand)
        torch.testing.assert_close(J[:, k, :, k], J[:, k, :, k].T)  # symmetric


@pytest.mark.claim(BN_PAGE, "only, and the Jacobian is diagonal")
@settings(max_examples=10, deadline=None)
@given(seeds)
def test_eval_mode_jacobian_is_diagonal(seed: int) -> None:
    page = bn_page()
    x = _batch(seed, 4, 3)
    J = torch.func.jacrev(page["batch_norm_eval"])(x).reshape(12, 12)
    scale = page["gamma"] / (page["running_var"] + 1e-5).sqrt()  # gamma / sqrt(var + eps)
    torch.testing.assert_close(J, torch.diag(scale.repeat(4)))


@pytest.mark.claim(BN_PAGE, "The formula is exact with $\\varepsilon$ too")
@settings(max_examples=30, deadline=None)
@given(seeds, st.integers(2, 8), st.integers(1, 4), st.sampled_from([1e-8, 1e-5, 0.1, 1.0]))
def test_batch_norm_formula_is_autograd(seed: int, n: int, d: int, eps: float) -> None:
    norm_backward = bn_page()["norm_backward"]
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(n, d, dtype=F64, generator=gen).requires_grad_()
    gamma = torch.randn(d, dtype=F64, generator=gen).requires_grad_()
    beta = torch.randn(d, dtype=F64, generator=gen).requires_grad_()
    dy = torch.randn(n, d, dtype=F64, generator=gen)
    F.batch_norm(x, None, None, gamma, beta, training=True, eps=eps).backward(dy)
    dx, dgamma, dbeta = norm_backward(dy, x.detach(), gamma.detach(), eps=eps)
    torch.testing.assert_close(dx, x.grad)
    torch.testing.assert_close(dgamma, gamma.grad)
    torch.testing.assert_close(dbeta, beta.grad)


@pytest.mark.claim(BN_PAGE, "Each feature's $\\mathrm{d}x$ sums to 0 over the batch.")
@settings(max_examples=30, deadline=None)
@given(seeds, st.integers(1, 8))
@example(0, 1)  # a batch of one
def test_batch_norm_columns_sum_to_zero(seed: int, n: int) -> None:
    gen = torch.Generator().manual_seed(seed)
    x, dy = torch.randn(n, 3, dtype=F64, generator=gen), torch.randn(n, 3, dtype=F64, generator=gen)
    dx, _, _ = bn_page()["norm_backward"](dy, x, torch.randn(3, dtype=F64, generator=gen))
    torch.testing.assert_close(dx.sum(0), torch.zeros(3, dtype=F64), rtol=0, atol=1e-10)


@pytest.mark.claim(
    BN_PAGE, "is updated with the unbiased one, divided by $N - 1$ (Bessel's correction)"
)
@settings(max_examples=20, deadline=None)
@given(seeds, st.integers(2, 8))
def test_running_var_is_unbiased(seed: int, n: int) -> None:
    x = _batch(seed, n, 3)
    page = run_region(BN, "variances", inputs={"torch": torch, "x": x, "D": 3})
    squares = ((x - x.mean(0)) ** 2).sum(0)
    torch.testing.assert_close(page["bn_once"].running_var, squares / (n - 1))
    by_n = (x - x.mean(0)) / (squares / n + 1e-5).sqrt()  # the normalisation divides by N
    torch.testing.assert_close(page["y"], by_n)
    assert not page["bn_once"].running_var.requires_grad


@pytest.mark.claim(BN_PAGE, "and so a factor $N/(N - 1)$ on the last term")
@settings(max_examples=20, deadline=None)
@given(seeds, st.integers(2, 8))
def test_unbiased_variant_formula(seed: int, n: int) -> None:
    gen = torch.Generator().manual_seed(seed)
    x, dy = torch.randn(n, 3, dtype=F64, generator=gen), torch.randn(n, 3, dtype=F64, generator=gen)
    gamma, beta = torch.randn(3, dtype=F64, generator=gen), torch.randn(3, dtype=F64, generator=gen)
    inputs = {"torch": torch, "x": x, "dy": dy, "gamma": gamma, "beta": beta, "N": n}
    page = run_region(BN, "bessel-variant", inputs=inputs | {"agree": lambda a, b: True})
    v = x.clone().requires_grad_()
    sigma = (v.var(0) + 1e-5).sqrt()  # unbiased
    (gamma * (v - v.mean(0)) / sigma + beta).backward(dy)
    torch.testing.assert_close(page["dx_u"], v.grad)


@pytest.mark.claim(BN_PAGE, "The layer refuses to train on such a batch")
def test_a_batch_of_one_is_refused() -> None:
    bn = torch.nn.BatchNorm1d(3, dtype=F64)
    with pytest.raises(ValueError, match="Expected more than 1 value per channel"):
        bn(torch.zeros(1, 3, dtype=F64))
    bn.eval()
    assert bn(torch.zeros(1, 3, dtype=F64)).shape == (1, 3)  # eval mode takes it


@pytest.mark.claim(BN_PAGE, "The formula agrees: $\\mathrm{d}x = 0$")
@settings(max_examples=20, deadline=None)
@given(st.lists(values, min_size=3, max_size=3), st.lists(values, min_size=3, max_size=3))
def test_a_batch_of_one_gets_no_gradient(row: list[float], upstream: list[float]) -> None:
    one = torch.tensor([row], dtype=F64)
    dx, _, _ = bn_page()["norm_backward"](
        torch.tensor([upstream], dtype=F64), one, bn_page()["gamma"]
    )
    assert dx.eq(0).all()
    xhat = (one - one.mean(0)) / (one.var(0, unbiased=False) + 1e-5).sqrt()
    assert xhat.eq(0).all()  # so y = beta, whatever the input


@pytest.mark.claim(BN_PAGE, "$N$ in the formula is that count")
@settings(max_examples=10, deadline=None)
@given(seeds, st.integers(1, 3))
def test_batch_norm_2d_counts_every_position(seed: int, n: int) -> None:
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 2, 3, 3, dtype=F64, generator=gen).requires_grad_()
    dy = torch.randn(n, 2, 3, 3, dtype=F64, generator=gen)
    bn = torch.nn.BatchNorm2d(2, dtype=F64)
    bn(x).backward(dy)
    rows = lambda t: t.permute(0, 2, 3, 1).reshape(-1, 2)  # noqa: E731 - (N H W, C)
    dx, _, _ = bn_page()["norm_backward"](rows(dy), rows(x.detach()), torch.ones(2, dtype=F64))
    torch.testing.assert_close(dx, rows(x.grad))


@pytest.mark.claim(
    BN_PAGE,
    "the same function, reducing over `dim=-1`, is layer norm's backward pass, for an input of "
    "any shape $(\\dots, D)$",
)
@settings(max_examples=30, deadline=None)
@given(seeds, st.lists(st.integers(1, 4), min_size=0, max_size=2), st.integers(2, 6))
@example(0, [], 3)  # one example, shape (D,)
@example(0, [2, 3], 4)  # (batch, tokens, features)
def test_layer_norm_is_the_same_formula(seed: int, lead: list[int], d: int) -> None:
    gen = torch.Generator().manual_seed(seed)
    shape = (*lead, d)
    x = torch.randn(shape, dtype=F64, generator=gen).requires_grad_()
    gamma = torch.randn(d, dtype=F64, generator=gen).requires_grad_()
    beta = torch.randn(d, dtype=F64, generator=gen).requires_grad_()
    dy = torch.randn(shape, dtype=F64, generator=gen)
    F.layer_norm(x, (d,), gamma, beta).backward(dy)
    dx, dgamma, dbeta = bn_page()["norm_backward"](dy, x.detach(), gamma.detach(), dim=-1)
    torch.testing.assert_close(dx, x.grad)
    torch.testing.assert_close(dgamma, gamma.grad)  # shape (D,): summed over all but the last
    torch.testing.assert_close(dbeta, beta.grad)


@pytest.mark.claim(
    BN_PAGE,
    "which is 0 when $\\varepsilon = 0$ (up to rounding), and small but not 0 with the default",
)
@settings(max_examples=30, deadline=None)
@given(seeds, st.integers(2, 8), st.sampled_from([0.0, 1e-8, 1e-5, 0.1, 1.0]))
def test_dx_is_orthogonal_to_xhat_without_eps(seed: int, n: int, eps: float) -> None:
    gen = torch.Generator().manual_seed(seed)
    x, dy = torch.randn(n, 3, dtype=F64, generator=gen), torch.randn(n, 3, dtype=F64, generator=gen)
    gamma = torch.randn(3, dtype=F64, generator=gen)
    dx, _, _ = bn_page()["norm_backward"](dy, x, gamma, eps=eps)
    v = x.var(0, unbiased=False)
    xhat = (x - x.mean(0)) / (v + eps).sqrt()
    dot = (dx * xhat).sum(0)
    # sum_j dx_j xhat_j = sum_i dy'_i xhat_i / sigma * eps / (v + eps)
    by_hand = (gamma * dy * xhat).sum(0) / (v + eps).sqrt() * eps / (v + eps)
    scale = (gamma * dy).abs().sum(0) / (v + eps).sqrt()  # the size of each term
    torch.testing.assert_close(dot, by_hand, rtol=1e-9, atol=1e-12 * scale.max().item())
    if eps == 0.0:
        assert (dot.abs() <= 1e-12 * scale).all()
    # and autograd through the forward formula agrees (F.batch_norm refuses eps = 0)
    v_ = x.clone().requires_grad_()
    centred = v_ - v_.mean(0)
    (gamma * centred / ((centred**2).mean(0) + eps).sqrt()).backward(dy)
    torch.testing.assert_close(
        (v_.grad * xhat).sum(0), by_hand, rtol=1e-6, atol=1e-10 * scale.max().item()
    )


@pytest.mark.claim(BN_PAGE, "so it works on a batch of one, and each example's gradient is its own")
def test_layer_norm_keeps_examples_apart() -> None:
    x = _batch(0, 4, 3)
    J = torch.func.jacrev(lambda t: F.layer_norm(t, (3,)))(x)  # (4, 3, 4, 3)
    for i in range(4):
        for j in range(4):
            if i != j:
                assert J[i, :, j, :].eq(0).all()
    one = x[:1].clone().requires_grad_()
    F.layer_norm(one, (3,)).mul(torch.tensor([1.0, 2.0, 4.0], dtype=F64)).sum().backward()
    assert one.grad.abs().sum() > 0


# --- binary cross-entropy -----------------------------------------------------------------

logits = st.one_of(st.sampled_from([-100.0, 100.0, -20.0, 20.0, -1e-3, 1e-3]), st.floats(-100, 100))
targets = st.one_of(st.sampled_from([0.0, 1.0]), st.floats(0, 1))


@pytest.mark.claim(
    BCE_PAGE,
    "`sigmoid(z)` rounds to exactly 0 for z below about -88.7 and to exactly 1 above about 16.6",
)
def test_float32_sigmoid_cliffs() -> None:
    p = torch.sigmoid(torch.tensor([-88.8, -88.6, 16.5, 16.7]))
    assert p[0] == 0 and p[1] > 0 and p[2] < 1 and p[3] == 1


@pytest.mark.claim(
    BCE_PAGE, "rounds to 1 from $z \\approx 36.7$ and to 0 below $z \\approx -709.8$"
)
def test_float64_sigmoid_cliffs() -> None:
    p = torch.sigmoid(torch.tensor([-709.9, -709.7, 36.6, 36.8], dtype=F64))
    assert p[0] == 0 and p[1] > 0 and p[2] < 1 and p[3] == 1


def _bceloss_fade(z: torch.Tensor) -> Session:
    """The page's F.binary_cross_entropy(sigmoid(z), 1), backward run, on logits z."""
    return run_region(BCE, "bceloss-fade-maths", inputs={"torch": torch, "F": F, "zf": z})


@pytest.mark.claim(
    BCE_PAGE,
    "`nn.BCELoss` clamps the log at -100, which keeps the loss finite, and its backward pass "
    "divides by `max(p * (1 - p), 1e-12)`, so for label 1 the gradient on z fades from "
    "z ≈ -27.6, long before the clamp, and is 0 where sigmoid underflows;",
)
@pytest.mark.parametrize("dtype", [torch.float32, F64])
def test_bce_loss_gradient_fades_before_the_clamp(dtype: torch.dtype) -> None:
    points = [-20.0, -27.5, -27.7, -30.0, -40.0, -88.0, -90.0, -100.0]
    z = torch.tensor(points, dtype=dtype, requires_grad=True)
    page = _bceloss_fade(z)
    loss, dz = page["loss"].detach(), z.grad
    right = torch.sigmoid(z.detach()) - 1  # the right gradient, sigma(z) - 1, about -1 here
    torch.testing.assert_close(dz[:2], right[:2])  # above the cut-off the gradient is right
    assert dz[2].abs() < 0.95  # just below z = -27.63 it already falls short
    assert dz[3].abs() < 0.1 * right[3].abs()  # z = -30
    assert dz[4].abs() < 1e-5 * right[4].abs()  # z = -40
    # ... where the loss is -log sigma(z), about -z, nowhere near the clamp at 100:
    torch.testing.assert_close(loss[:5], -F.logsigmoid(z.detach()[:5]))
    assert (loss[:5] < 41).all()
    if dtype == torch.float32:  # sigmoid underflows below about -88.7: the clamp, gradient 0
        assert loss[-2:].tolist() == [100.0, 100.0]
        assert dz[-2:].tolist() == [0.0, 0.0]


@pytest.mark.claim(
    BCE_PAGE,
    "for label 0 it is 0 wherever sigmoid rounds to 1 (from z ≈ 16.6 in float32)",
)
@pytest.mark.parametrize("dtype", [torch.float32, F64])
def test_bce_loss_gradient_for_label_0_where_sigmoid_rounds_to_1(dtype: torch.dtype) -> None:
    points = [10.0, 16.5, 16.7, 20.0, 30.0, 36.6, 36.8, 100.0]
    z = torch.tensor(points, dtype=dtype, requires_grad=True)
    # The page's block has label 1 only; the label-0 case is PyTorch's own BCELoss.
    p = torch.sigmoid(z)
    loss = F.binary_cross_entropy(p, torch.zeros_like(z), reduction="none")
    loss.sum().backward()
    rounds_to_1 = p.detach() == 1
    assert (z.grad[rounds_to_1] == 0).all()  # (1 - 0) / 1e-12 times sigmoid's slope, 0
    assert (loss.detach()[rounds_to_1] == 100).all()  # the clamp
    right = torch.sigmoid(z.detach())  # sigma(z) - 0, about 1 here
    torch.testing.assert_close(z.grad[:2], right[:2])  # z = 10, 16.5: still right
    if dtype == torch.float32:  # sigmoid rounds to 1 from about 16.6 on
        assert rounds_to_1.tolist() == [False, False] + [True] * 6
    else:  # float64: rounds to 1 only from about 36.7, but fades from 27.6 as for label 1
        assert rounds_to_1.tolist() == [False] * 6 + [True] * 2
        assert z.grad[4].abs() < 0.1  # z = 30


@pytest.mark.claim(
    BCE_PAGE,
    "$\\partial\\ell/\\partial p = (p - y)/\\max\\bigl(p(1 - p), 10^{-12}\\bigr)$: finite, "
    "$-10^{12}$ at $p = 0$",
)
@settings(max_examples=60, deadline=None)
@given(
    st.one_of(st.sampled_from([-100.0, -88.0, -27.63, 0.0, 10.0]), st.floats(-110, 15)),
    st.sampled_from([torch.float32, F64]),
)
@example(-40.0, torch.float32)
@example(-30.0, F64)
def test_bce_loss_backward_formula(z0: float, dtype: torch.dtype) -> None:
    z = torch.tensor([z0], dtype=dtype, requires_grad=True)
    page = _bceloss_fade(z)
    p = page["pf"].detach()
    q = p * (1 - p)
    d_p = (p - 1) / q.clamp(min=1e-12)  # (p - y) / max(p (1 - p), 1e-12), label y = 1
    torch.testing.assert_close(page["pf"].grad, d_p)
    torch.testing.assert_close(z.grad, d_p * q)  # times the sigmoid's derivative p (1 - p)
    assert torch.isfinite(page["pf"].grad).all()
    if z0 >= -27.6:
        torch.testing.assert_close(z.grad, p - 1)  # the factors cancel: the right gradient
    elif z0 <= -35:
        assert z.grad.abs().item() < 1e-3  # sigma(z) - 1 is about -1


@pytest.mark.claim(BCE_PAGE, "which is `nan`, though the prediction is right")
def test_sigmoid_then_log_is_nan_when_right() -> None:
    page = run_region(BCE, "naive")
    line = next(row for row in page.output.splitlines() if row.startswith("sigmoid, then log"))
    assert line.endswith("loss [inf, 20, 0.6931, nan, nan]")
    p = torch.sigmoid(torch.tensor([20.0, 100.0]))  # label 1: 0 * log(1 - p) = 0 * -inf
    assert torch.isnan(0 * torch.log(1 - p)).all()


@pytest.mark.claim(
    BCE_PAGE, "autograd through it matches $\\sigma(z) - y$ at every $z$ but one, $z = 0$"
)
@settings(max_examples=60, deadline=None)
@given(logits, targets, st.sampled_from([torch.float32, F64]))
@example(-100.0, 1.0, torch.float32)  # sigmoid then log: inf and nan here
@example(100.0, 0.0, torch.float32)
@example(100.0, 1.0, torch.float32)
@example(0.0, 1.0, torch.float32)  # the kink
def test_stable_formula_value_and_gradient(z0: float, y0: float, dtype: torch.dtype) -> None:
    bce_from_logits = run_region(BCE, "naive", "stable")["bce_from_logits"]
    z = torch.tensor([z0], dtype=dtype, requires_grad=True)
    y = torch.tensor([y0], dtype=dtype)
    loss = bce_from_logits(z, y)
    loss.backward()
    fused = F.binary_cross_entropy_with_logits(z.detach(), y, reduction="none")
    assert torch.isfinite(loss).all()
    torch.testing.assert_close(loss.detach(), fused)
    if z.item() == 0:
        assert z.grad.item() == -y.item()  # relu'(0) = abs'(0) = 0: the kinks do not cancel
    else:
        torch.testing.assert_close(z.grad, torch.sigmoid(z.detach()) - y, rtol=1e-5, atol=1e-6)


@pytest.mark.claim(BCE_PAGE, "It lies between $-1$ and 1 for every $z$")
@settings(max_examples=60, deadline=None)
@given(st.one_of(logits, st.sampled_from([-1e4, 1e4, 0.0])), targets)
@example(-100.0, 1.0)
@example(100.0, 0.0)
def test_fused_gradient_is_bounded(z0: float, y0: float) -> None:
    z = torch.tensor([z0], requires_grad=True)  # float32
    F.binary_cross_entropy_with_logits(z, torch.tensor([y0]), reduction="sum").backward()
    assert -1 <= z.grad.item() <= 1
    torch.testing.assert_close(z.grad, torch.sigmoid(z.detach()) - y0)


@pytest.mark.claim(BCE_PAGE, "$\\sigma(z) - y$ times the upstream gradient")
@settings(max_examples=30, deadline=None)
@given(logits, targets, st.floats(-5, 5))
def test_fused_backward_is_sigma_minus_y(z0: float, y0: float, upstream: float) -> None:
    z = torch.tensor([z0, 0.0], dtype=F64, requires_grad=True)
    y = torch.tensor([y0, y0], dtype=F64)
    F.binary_cross_entropy_with_logits(z, y, reduction="none").backward(
        torch.full((2,), upstream, dtype=F64)
    )
    torch.testing.assert_close(z.grad, upstream * (torch.sigmoid(z.detach()) - y))


@pytest.mark.claim(
    BCE_PAGE,
    'With the default `reduction="mean"` the gradient is divided by the number of elements $N$',
)
@settings(max_examples=20, deadline=None)
@given(st.lists(st.tuples(logits, targets), min_size=1, max_size=6))
def test_mean_divides_by_n(pairs: list[tuple[float, float]]) -> None:
    z = torch.tensor([a for a, _ in pairs], dtype=F64, requires_grad=True)
    y = torch.tensor([b for _, b in pairs], dtype=F64)
    F.binary_cross_entropy_with_logits(z, y).backward()
    torch.testing.assert_close(z.grad, (torch.sigmoid(z.detach()) - y) / len(pairs))


@pytest.mark.claim(BCE_PAGE, "softmax cross-entropy over two classes whose logits are 0 and $z$")
@settings(max_examples=40, deadline=None)
@given(logits, targets)
def test_bce_is_two_class_softmax(z0: float, y0: float) -> None:
    z = torch.tensor([z0], dtype=F64, requires_grad=True)
    y = torch.tensor([y0], dtype=F64)
    two = torch.stack([torch.zeros(1, dtype=F64), z], dim=1)
    soft = torch.stack([1 - y, y], dim=1)  # class 1 with probability y
    (ce_grad,) = torch.autograd.grad(F.cross_entropy(two, soft), z)
    (bce_grad,) = torch.autograd.grad(F.binary_cross_entropy_with_logits(z, y), z)
    torch.testing.assert_close(F.cross_entropy(two, soft), F.binary_cross_entropy_with_logits(z, y))
    torch.testing.assert_close(ce_grad, bce_grad)
    page = run_region(BCE, "naive", "stable", "mean", "logsumexp")
    assert page.output.splitlines()[-1] == "cross_entropy([0, z], y) equals BCE with logits: True"


@pytest.mark.claim(BCE_PAGE, "$\\log(1 + e^z)$ overflows at $z = 100$; logsumexp does not.")
def test_log1p_exp_overflows_logsumexp_does_not() -> None:
    page = run_region(BCE, "naive", "stable", "mean", "logsumexp")
    lines = dict(line.split(":", 1) for line in page.output.splitlines() if ":" in line)
    assert lines["log(1 + exp(z))"].strip().endswith("inf]")
    assert lines["logsumexp([0, z])"].strip().endswith("100]")
    z = torch.tensor([88.0, 89.0, 100.0])  # float32 exp overflows past about 88.7
    assert torch.isinf(torch.log(1 + torch.exp(z)))[1:].all()
    torch.testing.assert_close(torch.logsumexp(torch.stack([torch.zeros(3), z], 1), 1), z)


@pytest.mark.claim(
    BCE_PAGE,
    "Each has a backward pass of its own, so autograd through either form gives "
    "$\\sigma(z) - y$, also at $z = 0$",
)
@settings(max_examples=60, deadline=None)
@given(logits, targets, st.sampled_from([torch.float32, F64]))
@example(0.0, 1.0, torch.float32)  # the kink of the max(z, 0) form
@example(0.0, 0.0, F64)
@example(100.0, 1.0, torch.float32)
@example(-100.0, 1.0, torch.float32)
@example(25.0, 0.5, F64)  # softplus returns z above its threshold, 20
def test_logsigmoid_and_softplus_forms(z0: float, y0: float, dtype: torch.dtype) -> None:
    page = run_region(BCE, "naive", "stable", "mean", "logsumexp", "building-blocks")
    y = torch.tensor([y0], dtype=dtype)
    for form in (page["bce_logsigmoid"], page["bce_softplus"]):
        z = torch.tensor([z0], dtype=dtype, requires_grad=True)
        loss = form(z, y)
        loss.backward()
        assert torch.isfinite(loss).all()
        fused = F.binary_cross_entropy_with_logits(z.detach(), y, reduction="none")
        torch.testing.assert_close(loss.detach(), fused)
        # d/dz = sigma(z) - y, to within one rounding of 1 (no kink, no nan, no 0 * inf)
        torch.testing.assert_close(z.grad, torch.sigmoid(z.detach()) - y)
    assert page.output.count("\n  equals the fused loss: True") == 2


@pytest.mark.claim(
    BCE_PAGE, "which is $w(\\sigma(z) - 1)$ for label 1 and $\\sigma(z)$ for label 0"
)
@settings(max_examples=60, deadline=None)
@given(
    logits,
    targets,
    st.one_of(st.sampled_from([1.0, 3.0, 0.5]), st.floats(0, 10)),
    st.sampled_from([torch.float32, F64]),
)
@example(-20.0, 0.0, 3.0, torch.float32)
@example(100.0, 1.0, 3.0, torch.float32)
def test_pos_weight_loss_and_gradient(z0: float, y0: float, w0: float, dtype: torch.dtype) -> None:
    z = torch.tensor([z0], dtype=dtype, requires_grad=True)
    y, w = torch.tensor([y0], dtype=dtype), torch.tensor(w0, dtype=dtype)
    page = run_region(
        BCE, "pos-weight-maths", inputs={"torch": torch, "F": F, "z": z, "y": y, "w": w}
    )
    zd = z.detach().double()
    s = torch.sigmoid(zd)
    log_s, log_1_minus_s = -F.softplus(-zd), -F.softplus(zd)  # log sigma(z), log(1 - sigma(z))
    by_hand = -(w0 * y0 * log_s + (1 - y0) * log_1_minus_s)
    # The fused form (1 - y) z + (1 + (w - 1) y) softplus(-z) adds terms of size about |z|
    # that can cancel (the page says so at z = -20): allow a few roundings of that size.
    terms = (1 + w0) * (abs(z0) + 1)
    atol = 4 * torch.finfo(dtype).eps * terms
    torch.testing.assert_close(page["weighted"].detach().double(), by_hand, rtol=1e-5, atol=atol)
    grad = w0 * y0 * (s - 1) + (1 - y0) * s  # w y (sigma - 1) + (1 - y) sigma
    torch.testing.assert_close(z.grad.double(), grad, rtol=1e-5, atol=1e-6)
    if y0 == 1.0:
        torch.testing.assert_close(z.grad.double(), w0 * (s - 1), rtol=1e-5, atol=1e-6)
    if y0 == 0.0:
        torch.testing.assert_close(z.grad.double(), s, rtol=1e-5, atol=1e-6)


# --- full Jacobians and Hessians ----------------------------------------------------------


@cache
def jac_page() -> Session:
    return run_region(JAC, "demonstration", "count", quiet=True)


@pytest.mark.claim(JAC_PAGE, "`torch.autograd.functional.jacobian` gives the same matrix")
@settings(max_examples=20, deadline=None)
@given(st.lists(values, min_size=3, max_size=3))
def test_jacobian_by_hand(point: list[float]) -> None:
    f = jac_page()["f"]
    x = torch.tensor(point, dtype=F64)
    x1, x2, x3 = point
    by_hand = torch.tensor(
        [[2 * x1 * x2, x1**2, 0.0], [0.0, math.sin(x3), x2 * math.cos(x3)]], dtype=F64
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for J in (
            torch.func.jacrev(f)(x),
            torch.func.jacfwd(f)(x),
            torch.autograd.functional.jacobian(f, x),
        ):
            torch.testing.assert_close(J, by_hand)


@pytest.mark.claim(
    JAC_PAGE, "`jacrev` and `jacfwd` are those loops, with `vmap` in place of the loop"
)
@settings(max_examples=10, deadline=None)
@given(st.lists(values, min_size=3, max_size=3))
def test_rows_and_columns(point: list[float]) -> None:
    page = jac_page()
    x = torch.tensor(point, dtype=F64)
    names = ("torch", "f", "vjp", "jvp", "vmap", "jacrev")
    out = run_region(
        JAC, "rows-and-columns", inputs={k: page[k] for k in names} | {"x": x}, quiet=True
    )
    x1, x2, x3 = point
    by_hand = torch.tensor(
        [[2 * x1 * x2, x1**2, 0.0], [0.0, math.sin(x3), x2 * math.cos(x3)]], dtype=F64
    )
    torch.testing.assert_close(out["rows"], by_hand)
    torch.testing.assert_close(out["columns"], by_hand)


@pytest.mark.claim(
    JAC_PAGE,
    "With its default, `jacrev` runs one batched backward pass; "
    "`chunk_size=1` turns the batch into a loop",
)
@settings(max_examples=15, deadline=None)
@given(st.integers(1, 6), st.integers(1, 6), st.integers(1, 7))
def test_pass_counts(m: int, n: int, k: int) -> None:
    page = jac_page()
    counted, jacfwd_chunked = page["counted"], page["jacfwd_chunked"]
    A = torch.arange(1.0, m * n + 1, dtype=F64).reshape(m, n) / (m * n)

    def h(x):
        return torch.tanh(A @ x)  # R^n -> R^m

    x = torch.linspace(-1, 1, n, dtype=F64)
    jacrev, jacfwd = torch.func.jacrev, torch.func.jacfwd
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert counted(jacrev, h, x) == (1, 0)
        assert counted(lambda g: jacrev(g, chunk_size=1), h, x) == (m, 0)  # one per output
        assert counted(lambda g: jacrev(g, chunk_size=k), h, x) == (math.ceil(m / k), 0)
        assert counted(jacfwd, h, x) == (0, 1)
        assert counted(lambda g: jacfwd_chunked(g, 1), h, x) == (0, n)  # one per input
        J = jacrev(h)(x)
        torch.testing.assert_close(jacrev(h, chunk_size=k)(x), J)
        torch.testing.assert_close(jacfwd_chunked(h, k)(x), J)


@pytest.mark.claim(JAC_PAGE, "**Square**: either takes $n$ passes.")
@settings(max_examples=10, deadline=None)
@given(st.integers(1, 6))
def test_square_jacobian(n: int) -> None:
    page = jac_page()
    counted, jacfwd_chunked = page["counted"], page["jacfwd_chunked"]

    def h(x):
        return x * x.roll(1)  # R^n -> R^n: d h_i / d x_i = x_{i-1}, d h_i / d x_{i-1} = x_i

    x = torch.linspace(0.5, 2.0, n, dtype=F64)
    by_hand = torch.diag(x.roll(1))
    for i in range(n):
        by_hand[i, (i - 1) % n] += x[i]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert counted(lambda g: torch.func.jacrev(g, chunk_size=1), h, x)[0] == n
        assert counted(lambda g: jacfwd_chunked(g, 1), h, x)[1] == n
        torch.testing.assert_close(torch.func.jacrev(h)(x), by_hand)
        torch.testing.assert_close(torch.func.jacfwd(h)(x), by_hand)


@pytest.mark.claim(JAC_PAGE, "`jacfwd` has no `chunk_size`, but `vmap` does")
def test_jacfwd_has_no_chunk_size() -> None:
    page = jac_page()
    assert "chunk_size" not in inspect.signature(page["jacfwd"]).parameters
    assert "chunk_size" in inspect.signature(page["jacrev"]).parameters
    assert "chunk_size" in inspect.signature(page["vmap"]).parameters
    with pytest.raises(TypeError, match="chunk_size"):
        page["jacfwd"](page["f"], chunk_size=1)


@pytest.mark.claim(
    JAC_PAGE,
    "The older `torch.autograd.functional.jacobian` loops in Python by default, one backward "
    "pass per output. `vectorize=True` turns the loop into one batched pass",
)
@settings(max_examples=10, deadline=None)
@given(st.integers(1, 6), st.integers(1, 5))
def test_functional_jacobian_vectorize(m: int, n: int) -> None:
    page = run_region(
        JAC,
        "functional-vectorize",
        inputs=run_region(JAC, "demonstration", "count", quiet=True),
        quiet=True,
    )
    counted, jacobian = page["counted"], page["jacobian"]
    shown = [line.split()[-1] for line in page.output.splitlines()[:3]]  # f: 2 outputs
    assert shown == ["2", "1", "1"]
    assert page.output.splitlines()[3].endswith("True True True")
    A = torch.arange(1.0, m * n + 1, dtype=F64).reshape(m, n) / (m * n)

    def h(x):
        return torch.tanh(A @ x)  # R^n -> R^m

    x = torch.linspace(-1, 1, n, dtype=F64)
    by_hand = (1 - torch.tanh(A @ x) ** 2)[:, None] * A  # diag(1 - tanh^2) A
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert counted(lambda g: lambda t: jacobian(g, t), h, x) == (m, 0)
        assert counted(lambda g: lambda t: jacobian(g, t, vectorize=True), h, x) == (1, 0)
        forward = lambda g: lambda t: jacobian(g, t, vectorize=True, strategy="forward-mode")  # noqa: E731
        assert counted(forward, h, x) == (0, 1)
        for kwargs in ({}, {"vectorize": True}, {"vectorize": True, "strategy": "forward-mode"}):
            torch.testing.assert_close(jacobian(h, x, **kwargs), by_hand)
        with pytest.raises(NotImplementedError, match="vectorize=True"):
            jacobian(h, x, strategy="forward-mode")  # "which only works with vectorize=True"


@pytest.mark.claim(
    JAC_PAGE,
    "`argnums=(0, 1)` gives the Jacobian with respect to the parameters and to the input in one "
    "call",
)
@settings(max_examples=15, deadline=None)
@given(st.lists(values, min_size=3, max_size=3))
def test_parameter_jacobian_by_hand(point: list[float]) -> None:
    x = torch.tensor(point, dtype=F64)
    inputs = {"torch": torch, "jacrev": torch.func.jacrev, "x": x}
    page = run_region(JAC, "parameters", inputs=inputs)
    J, J_x, model = page["J_params"], page["J_x"], page["model"]
    W1, b1, W2 = (model[0].weight.detach(), model[0].bias.detach(), model[2].weight.detach())
    h = torch.tanh(W1 @ x + b1)
    back = W2 * (1 - h**2)  # d y_i / d (W1 x + b1)_k = W2_ik (1 - h_k^2)
    eye = torch.eye(2, dtype=F64)
    torch.testing.assert_close(J["2.bias"], eye)  # d y_i / d b2_j = delta_ij
    torch.testing.assert_close(J["2.weight"], eye[:, :, None] * h)  # delta_ij h_k
    torch.testing.assert_close(J["0.bias"], back)
    torch.testing.assert_close(J["0.weight"], back[:, :, None] * x)  # W2_ik (1 - h_k^2) x_l
    torch.testing.assert_close(J_x, back @ W1)
    assert page["J_all"].shape == (2, sum(p.numel() for p in model.parameters()))


@pytest.mark.claim(
    JAC_PAGE, "With 8 rows at a time the peak falls to a few times the Jacobian's own size"
)
def test_chunked_jacobian_peak_memory() -> None:
    page = run_region(JAC, "demonstration", "memory", quiet=True)
    peaks = {
        m["chunk"]: (int(m["peak"]), m["same"])
        for m in re.finditer(
            r"chunk_size=(?P<chunk>\w+)\): peak +(?P<peak>\d+) bytes, same Jacobian: (?P<same>\w+)",
            page.output,
        )
    }
    jacobian_bytes = 512 * 8 * 4
    assert peaks["None"][0] > 512 * 512 * 4  # the identity of cotangents alone
    assert peaks["8"][0] < 4 * jacobian_bytes
    assert peaks["None"][0] > peaks["64"][0] > peaks["8"][0]
    assert all(same == "True" for _, same in peaks.values())


@pytest.mark.claim(JAC_PAGE, "Every composition gives the same matrix here")
@settings(max_examples=20, deadline=None)
@given(st.lists(values, min_size=3, max_size=3))
def test_hessian_by_hand(point: list[float]) -> None:
    page = run_region(JAC, "demonstration", "hessian", quiet=True)
    g = page["g"]
    x = torch.tensor(point, dtype=F64)
    x1, x2, x3 = point
    by_hand = torch.tensor(
        [
            [2 * x2, 2 * x1, 0.0],
            [2 * x1, 0.0, math.cos(x3)],
            [0.0, math.cos(x3), -x2 * math.sin(x3)],
        ],
        dtype=F64,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        H = torch.func.hessian(g)(x)
        assert torch.equal(H, torch.func.jacfwd(torch.func.jacrev(g))(x))
        torch.testing.assert_close(H, by_hand)
        torch.testing.assert_close(torch.func.jacrev(torch.func.jacrev(g))(x), by_hand)
        torch.testing.assert_close(torch.autograd.functional.hessian(g, x), by_hand)


# --- the gradient with respect to the input -----------------------------------------------


@cache
def input_page() -> Session:
    return run_region(INPUT, "model", "saliency", "by-hand", "one-pass", "autograd-grad", "fgsm")


@pytest.mark.claim(
    INPUT_PAGE, "In every row, features 0 and 1 have the largest saliency, and feature 1 more than"
)
def test_saliency_ranks_the_features_that_matter() -> None:
    saliency = input_page()["saliency"]
    assert (saliency[:, 1] > saliency[:, 0]).all()
    assert (saliency[:, 0] > saliency[:, 2:].max(dim=1).values).all()


@pytest.mark.claim(INPUT_PAGE, "No weight got a gradient.")
def test_no_weight_gradient_after_saliency() -> None:
    page = run_region(INPUT, "model", "saliency")
    assert all(p.grad is None for p in page["model"].parameters())
    assert page["x"].grad is not None


@pytest.mark.claim(
    INPUT_PAGE, "The same backward pass as for the weights, taken one step further, to the input"
)
@settings(max_examples=20, deadline=None)
@given(seeds, st.integers(0, 1), st.integers(1, 6))
def test_input_gradient_by_hand(seed: int, c: int, n: int) -> None:
    model = input_page()["model"]
    model.eval()
    x = torch.randn(n, 4, dtype=F64, generator=torch.Generator().manual_seed(seed)).requires_grad_()
    model(x)[:, c].sum().backward()
    W1, b1, W2 = model[0].weight.detach(), model[0].bias.detach(), model[3].weight.detach()
    h = torch.tanh(x.detach() @ W1.T + b1)
    torch.testing.assert_close(x.grad, ((1 - h**2) * W2[c]) @ W1)  # W1^T ((1 - h^2) * W2[c])


@pytest.mark.claim(
    INPUT_PAGE, "so the gradient of the sum by $x_i$ is the gradient of that example's own score"
)
@settings(max_examples=10, deadline=None)
@given(seeds, st.integers(1, 6))
def test_one_backward_of_a_sum_in_eval_mode(seed: int, n: int) -> None:
    model = input_page()["model"]
    model.eval()
    X = torch.randn(n, 4, dtype=F64, generator=torch.Generator().manual_seed(seed))
    x = X.clone().requires_grad_()
    model(x)[:, 0].sum().backward()
    for i in range(n):
        xi = X[i : i + 1].clone().requires_grad_()
        model(xi)[0, 0].backward()
        torch.testing.assert_close(x.grad[i], xi.grad[0])


@pytest.mark.claim(INPUT_PAGE, "dropout draws a new mask on every call, so the gradient is random")
def test_train_mode_gradient_is_random() -> None:
    assert "in train mode, two calls give the same gradient: False" in input_page().output
    assert not input_page()["model"].training  # the page sets eval() back


@pytest.mark.claim(INPUT_PAGE, "fills no `.grad` at all, neither the weights' nor `x`'s")
def test_autograd_grad_fills_no_grad() -> None:
    page = run_region(INPUT, "model", "saliency", "by-hand", "one-pass", "autograd-grad")
    assert page["x"].grad is None
    assert all(p.requires_grad and p.grad is None for p in page["model"].parameters())
    assert page["dx"].shape == page["x"].shape


@pytest.mark.claim(
    INPUT_PAGE, "since each term $g_i \\delta_i$ is largest when $\\delta_i$ has the sign of $g_i$"
)
@settings(max_examples=30, deadline=None)
@given(seeds, st.floats(0.01, 1.0))
def test_fgsm_maximises_the_first_order_gain(seed: int, eps: float) -> None:
    g = input_page()["g"]
    signs = (
        torch.randint(0, 2, g.shape, generator=torch.Generator().manual_seed(seed)).to(F64) * 2 - 1
    )
    fgsm = (eps * g * g.sign()).sum()
    torch.testing.assert_close(fgsm, eps * g.abs().sum())  # eps * |g|_1
    assert fgsm >= (eps * g * signs).sum()


@pytest.mark.claim(
    INPUT_PAGE, "FGSM raises it several times more than the random step and costs far more accuracy"
)
def test_fgsm_beats_a_random_step() -> None:
    rows = re.findall(
        r"(no step|FGSM|random sign): +loss ([\d.]+)  accuracy ([\d.]+)", input_page().output
    )
    clean_loss, clean_accuracy = float(rows[0][1]), float(rows[0][2])
    for (_, fgsm_loss, fgsm_acc), (_, random_loss, random_acc) in zip(
        rows[1::2], rows[2::2], strict=True
    ):
        assert float(fgsm_loss) - clean_loss > 3 * (float(random_loss) - clean_loss)
        assert float(fgsm_acc) < float(random_acc) <= clean_accuracy


# --- reversing and scaling a gradient -----------------------------------------------------

dtypes = st.sampled_from([torch.float32, F64])
tensors = st.lists(values, min_size=1, max_size=6)
factors = st.one_of(st.sampled_from([0.0, 1.0, -1.0, 0.5]), st.floats(-4, 4))


@cache
def grl_page() -> Session:
    return run_region(GRL, "function")


@pytest.mark.claim(
    GRL_PAGE,
    "leaves every value of the forward pass as it was, and reverses and scales the gradient",
)
@settings(max_examples=40, deadline=None)
@given(tensors, factors, dtypes)
def test_grad_reverse_function(start: list[float], lam: float, dtype: torch.dtype) -> None:
    x = torch.tensor(start, dtype=dtype, requires_grad=True)
    u = torch.linspace(-2, 3, len(start), dtype=dtype)
    y = grl_page()["GradReverse"].apply(x, lam)
    y.backward(u)
    assert torch.equal(y.detach(), x.detach())
    assert torch.equal(x.grad, -lam * u)  # -lam times the upstream gradient


@pytest.mark.claim(
    GRL_PAGE,
    "Returning `x` itself also works: autograd wraps an input that `forward` returns "
    "unchanged in a view of it, with this node as its `grad_fn`",
)
@settings(max_examples=20, deadline=None)
@given(tensors, factors, dtypes, st.booleans())
def test_returning_x_itself_also_works(
    start: list[float], lam: float, dtype: torch.dtype, leaf: bool
) -> None:
    page_function = grl_page()["GradReverse"]

    class ReturnsX(page_function):  # the alternative the sentence names: forward returns x
        @staticmethod
        def forward(x, lam):
            return x

    u = torch.linspace(-2, 3, len(start), dtype=dtype)
    for function in (page_function, ReturnsX):
        x = torch.tensor(start, dtype=dtype, requires_grad=True)
        source = x if leaf else x * 1  # a leaf, or a tensor in the middle of a graph
        y = function.apply(source, lam)
        assert y is not source and y._is_view() and y._base is source
        assert type(y.grad_fn).__name__ == f"{function.__name__}Backward"
        assert torch.equal(y.detach(), x.detach())
        y.backward(u)
        assert torch.equal(x.grad, -lam * u)  # -lam times the upstream gradient, both ways


@pytest.mark.claim(GRL_PAGE, "a hook is a gradient reversal layer in one line")
@settings(max_examples=30, deadline=None)
@given(tensors, factors, dtypes)
def test_hook_reverses(start: list[float], lam: float, dtype: torch.dtype) -> None:
    x = torch.tensor(start, dtype=dtype, requires_grad=True)
    u = torch.linspace(-2, 3, len(start), dtype=dtype)
    page = run_region(GRL, "hook", inputs={"torch": torch, "x": x, "lam": lam, "upstream": u})
    assert torch.equal(page["y"].detach(), x.detach())
    assert torch.equal(x.grad, -lam * u)


def _detach_forms(x: torch.Tensor, s: float, u: torch.Tensor) -> Session:
    inputs = {"torch": torch, "x": x, "s": s, "upstream": u}
    return run_region(GRL, "detach-trick-maths", inputs=inputs)


finite_floats = st.one_of(
    values,
    st.sampled_from([0.0, -0.0, 3.4e38, -3.4e38, 1e-45, -1e-45, 1e-300]),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
)


@pytest.mark.claim(
    GRL_PAGE,
    "and its value is $x$ exactly, for every finite $x$, because $x - \\mathrm{detach}(x)$ is "
    "exactly 0 (at $x = \\pm\\infty$ it is $\\infty - \\infty$, NaN)",
)
@settings(max_examples=60, deadline=None)
@given(st.lists(finite_floats, min_size=1, max_size=6), factors, dtypes)
@example([3.4e38, -3.4e38, 1e-45, 0.0], 4.0, torch.float32)  # the largest, the smallest
@example([1.7e308, 5e-324], -4.0, F64)
def test_exact_detach_form(start: list[float], s: float, dtype: torch.dtype) -> None:
    x = torch.tensor(start, dtype=dtype, requires_grad=True)
    u = torch.linspace(-2, 3, len(start), dtype=dtype)
    page = _detach_forms(x, s, u)
    assert torch.equal(page["exact"].detach(), x.detach())
    assert torch.equal(x.grad, s * u)


@pytest.mark.parametrize("dtype", [torch.float32, F64])
@pytest.mark.claim(GRL_PAGE, "(at $x = \\pm\\infty$ it is $\\infty - \\infty$, NaN)")
def test_exact_detach_form_at_infinity(dtype: torch.dtype) -> None:
    x = torch.tensor([math.inf, -math.inf, 1.0], dtype=dtype, requires_grad=True)
    page = _detach_forms(x, 0.1, torch.ones(3, dtype=dtype))
    exact = page["exact"].detach()
    assert exact[:2].isnan().all() and exact[2] == 1.0


@pytest.mark.claim(GRL_PAGE, "its derivative is $s$, and its value is $x$, up to rounding")
@settings(max_examples=40, deadline=None)
@given(tensors, st.floats(0, 1), dtypes)
def test_usual_detach_form(start: list[float], s: float, dtype: torch.dtype) -> None:
    x = torch.tensor(start, dtype=dtype, requires_grad=True)
    u = torch.linspace(-2, 3, len(start), dtype=dtype)
    scaled = _detach_forms(x, s, u)["scaled"].detach()
    # a few rounding errors from x: |x s + x (1 - s) - x| <= 4 eps |x|
    assert ((scaled - x.detach()).abs() <= 4 * torch.finfo(dtype).eps * x.detach().abs()).all()


@pytest.mark.claim(
    GRL_PAGE, "The first form is off by one unit in the last place at two of the four entries"
)
def test_usual_form_is_one_ulp_off() -> None:
    page = run_region(GRL, "function", "hook", "detach-trick")
    x = page["x"].detach()
    off = (page["scaled"].detach() - x).abs()
    ulp = torch.nextafter(x.abs(), torch.tensor(math.inf)) - x.abs()
    assert int((off > 0).sum()) == 2
    assert torch.equal(off[off > 0], ulp[off > 0])


@pytest.mark.claim(GRL_PAGE, "With $s = -\\lambda$ either form is a gradient reversal layer too.")
@settings(max_examples=20, deadline=None)
@given(tensors, factors, dtypes)
def test_detach_forms_reverse(start: list[float], lam: float, dtype: torch.dtype) -> None:
    x = torch.tensor(start, dtype=dtype, requires_grad=True)
    u = torch.linspace(-2, 3, len(start), dtype=dtype)
    page = _detach_forms(x, -lam, u)
    # The page checks torch.equal(x.grad, s * upstream) after each form's backward().
    assert page.output.count("x.grad equals s * upstream: True") == 2
    assert torch.equal(x.grad, -lam * u)  # the exact form's, the last one


@pytest.mark.claim(GRL_PAGE, "one `backward()` does both")
def test_domain_adversarial_gradients() -> None:
    page = run_region(GRL, "function", "dann")
    features, head, lam = page["features"], page["domain_head"], page["lam"]
    h = torch.tanh(features(page["inputs"]))
    label_loss = F.cross_entropy(page["label_head"](h), page["labels"])
    domain_loss = F.binary_cross_entropy_with_logits(head(h).squeeze(1), page["domains"])
    shared, own = list(features.parameters()), list(head.parameters())
    d_label = torch.autograd.grad(label_loss, shared, retain_graph=True)
    d_domain = torch.autograd.grad(domain_loss, shared + own)
    for p, dl, dd in zip(shared, d_label, d_domain[:2], strict=True):
        torch.testing.assert_close(p.grad, dl - lam * dd)  # descent on L_y, ascent on L_d
    for p, dd in zip(own, d_domain[2:], strict=True):
        torch.testing.assert_close(p.grad, dd)  # plain descent on L_d


@pytest.mark.claim(
    GRL_PAGE, "A hook on the tensor that both heads read reverses the sum of both gradients"
)
def test_hook_on_shared_tensor() -> None:
    page = run_region(GRL, "function", "dann", "hook-pitfall")
    lam = page["lam"]
    weight_grad = page["features"].weight.grad
    torch.testing.assert_close(weight_grad, -lam * (page["d_label"][0] + page["d_domain"][0]))
    assert not torch.allclose(weight_grad, page["d_label"][0] - lam * page["d_domain"][0])


@pytest.mark.claim(GRL_PAGE, "Only $\\lambda = -1$ would pass `gradcheck`")
@pytest.mark.parametrize("lam", [-1.0, 0.0, 0.5, 1.0, -0.5, 2.0])
def test_gradcheck_only_passes_the_identity(lam: float) -> None:
    reverse = grl_page()["GradReverse"]
    x = torch.tensor([0.2, 1.3, -0.7], dtype=F64, requires_grad=True)
    if lam == -1.0:
        assert torch.autograd.gradcheck(lambda t: reverse.apply(t, lam), (x,))
    else:
        with pytest.raises(GradcheckError):
            torch.autograd.gradcheck(lambda t: reverse.apply(t, lam), (x,))


# --- Gauss-Newton, Hessian and Fisher -----------------------------------------------------


@cache
def gn_page() -> Session:
    return run_region(GN, "setup", "eigenvalues", "fisher", "squared-error", quiet=True)


def _curvature(w: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """H by autograd; G and the residual term by hand, for the page's network at w."""
    page = gn_page()
    net, X, T, N, C = page["net"], page["X"], page["T"], page["N"], page["C"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        H = torch.func.hessian(page["loss"])(w)
        J = torch.func.jacrev(net)(w, X).reshape(N * C, -1)
        p = torch.softmax(net(w, X), dim=1).detach()
        H_L = torch.block_diag(*[(torch.diag(q) - torch.outer(q, q)) / N for q in p])
        r = (p - F.one_hot(T, C)) / N  # dL/df
        residual = torch.func.hessian(lambda v: (r * net(v, X)).sum())(w)
    return H, J.T @ H_L @ J, residual, p


weights = st.builds(
    lambda seed: torch.randn(21, dtype=F64, generator=torch.Generator().manual_seed(seed)), seeds
)


@pytest.mark.claim(
    GN_PAGE,
    "the second term computed as the Hessian of $\\sum_i r_i f_i(w)$ "
    "with the residuals $r$ held constant",
)
@settings(max_examples=10, deadline=None)
@given(weights)
def test_hessian_is_gauss_newton_plus_residual_term(w: torch.Tensor) -> None:
    H, G, residual, _ = _curvature(w)
    torch.testing.assert_close(H, G + residual)


@pytest.mark.claim(GN_PAGE, "and that is never negative when $H_{\\ell}$ is positive semi-definite")
@settings(max_examples=10, deadline=None)
@given(weights)
def test_gauss_newton_is_positive_semi_definite(w: torch.Tensor) -> None:
    _, G, _, _ = _curvature(w)
    eigenvalues = torch.linalg.eigvalsh(G)
    assert eigenvalues[0] >= -1e-12 * eigenvalues[-1].abs().clamp(min=1)
    assert torch.linalg.matrix_rank(G, hermitian=True) <= 8 * (3 - 1)  # N (C - 1)


@pytest.mark.claim(GN_PAGE, "$H$ curves downwards in five directions here")
def test_page_hessian_has_negative_eigenvalues() -> None:
    output = gn_page().output
    assert "H: 5 eigenvalues below -1e-10" in output
    assert "G: 0 eigenvalues below -1e-10" in output
    assert "G: 5 eigenvalues that are 0 up to rounding" in output


@pytest.mark.claim(GN_PAGE, "so the exact Fisher can be computed, and it is $G$")
@settings(max_examples=10, deadline=None)
@given(weights)
def test_exact_fisher_is_gauss_newton(w: torch.Tensor) -> None:
    page = gn_page()
    _, G, _, p = _curvature(w)
    X, N, C = page["X"], page["N"], page["C"]
    fisher = torch.zeros_like(G)
    for n in range(N):
        for c in range(C):  # E over y ~ p(. | x_n) of grad log p grad log p^T, as a sum
            v = w.clone().requires_grad_()
            (g,) = torch.autograd.grad(page["log_prob"](v, X[n], c), v)
            fisher += p[n, c] * torch.outer(g, g) / N
    torch.testing.assert_close(fisher, G)


@pytest.mark.claim(
    GN_PAGE, "The sampled Fisher's distance to $G$ shrinks roughly like $1/\\sqrt{S}$"
)
def test_sampled_fisher_converges() -> None:
    found = re.findall(r"S = +(\d+): relative distance to G ([\d.e-]+)", gn_page().output)
    scaled = [float(d) * math.sqrt(int(s)) for s, d in found]  # distance * sqrt(S)
    assert len(scaled) == 4 and max(scaled) < 4 * min(scaled)
    distances = [float(d) for _, d in found]
    assert distances == sorted(distances, reverse=True)


@pytest.mark.claim(GN_PAGE, "The empirical Fisher stays far away")
def test_empirical_fisher_is_not_gauss_newton() -> None:
    found = re.search(
        r"empirical Fisher \(the data's labels\): relative distance to G (\S+)$",
        gn_page().output,
        re.MULTILINE,
    )
    assert found and float(found[1]) > 0.3


@pytest.mark.claim(GN_PAGE, "The Hessian still differs by the residual term")
def test_squared_error_hessian() -> None:
    page = gn_page()
    net, X, targets, w0, N = page["net"], page["X"], page["targets"], page["w0"], page["N"]
    r = ((net(w0, X) - targets) / N).detach()  # dL/df for L = |f - t|^2 / (2N)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        residual = torch.func.hessian(lambda v: (r * net(v, X)).sum())(w0)
    torch.testing.assert_close(page["H_se"], page["G_se"] + residual)
    assert "Gaussian Fisher, 10000 samples: relative distance to G 0.0" in page.output

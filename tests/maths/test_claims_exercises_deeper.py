"""Exercises D.11 to D.13 (Going deeper), at the edges of their claims.

* batch-norm-backward: the solution's dx = (g - mean g - xhat mean(g xhat)) / sigma with
  g = gamma dy is autograd's gradient of F.batch_norm for any batch of two or more and any
  eps; every column sums to 0 (a batch of one included); x.var divides by N - 1 unless
  correction=0; running_var is updated with the N - 1 variance; a forward pass with the
  unbiased variance has the last term divided by N - 1.
* gradient-reversal-layer: GradReverse.apply(x, lam) is x as a new tensor with the node as
  grad_fn, for any shape and dtype; backward must give two entries, and nothing but None
  for lam; save_for_backward refuses a number; under create_graph=True backward runs with
  grad mode on and an incoming gradient that requires grad, and the derivative by it is
  -lam; gradcheck passes at lam = -1 only; the features get -lam dL_d/dtheta_f.
* hutchinsons-trace-estimate: jvp over grad is H v; an integer tangent is refused; over
  all 2^16 sign vectors, the mean of v^T H v is tr H and its variance 2 sum_{i != j} H_ij^2
  (the page's own H and spread); Gaussian vectors: variance 2 sum H_ij^2, unbiased, and
  the check accepts them; the penalty adds I to H; the 16 basis vectors give the trace
  exactly; on a diagonal Hessian every Rademacher estimate is exact; the mean of v * H v
  over the sign vectors is the diagonal.

Each test runs the page's own regions (snippets/practice/...) and writes only the hand
formula.
"""

from __future__ import annotations

import itertools
import warnings
from functools import cache

import pytest
import torch
import torch.nn.functional as F
from hypothesis import example, given, settings
from hypothesis import strategies as st
from torch import nn

from tests.maths import Session, run_region

BN_PAGE = "docs/practice/exercises/batch-norm-backward.md"
BN = "practice/batch_norm_backward"
GRL_PAGE = "docs/practice/exercises/gradient-reversal-layer.md"
GRL = "practice/gradient_reversal_layer"
HUTCH_PAGE = "docs/practice/exercises/hutchinsons-trace-estimate.md"
HUTCH = "practice/hutchinsons_trace_estimate"

F64 = torch.float64
seeds = st.integers(0, 2**31 - 1)
lams = st.floats(-3.0, 3.0, allow_nan=False, allow_infinity=False)


def _quiet(snippet: str, *names: str, **kwargs: object) -> Session:
    """run_region, without the forward-mode warning the pages hide themselves."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return run_region(snippet, *names, **kwargs)


# --- batch-norm-backward ------------------------------------------------------------------


@cache
def bn_page() -> Session:
    return run_region(BN, "solution")


def _draw(seed: int, *shape: int) -> torch.Tensor:
    return torch.randn(shape, dtype=F64, generator=torch.Generator().manual_seed(seed))


@pytest.mark.claim(
    BN_PAGE, "\\mathrm{d}x_j = \\sum_i g_i \\frac{\\partial \\hat{x}_i}{\\partial x_j}"
)
@settings(max_examples=30, deadline=None)
@given(seeds, st.integers(2, 8), st.integers(1, 4), st.sampled_from([1e-8, 1e-5, 0.1, 1.0]))
def test_batch_norm_backward_is_autograd(seed: int, n: int, c: int, eps: float) -> None:
    page = bn_page()
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(n, c, dtype=F64, generator=gen).requires_grad_()
    gamma = torch.randn(c, dtype=F64, generator=gen).requires_grad_()
    beta = torch.randn(c, dtype=F64, generator=gen).requires_grad_()
    dy = torch.randn(n, c, dtype=F64, generator=gen)
    y = F.batch_norm(x, None, None, gamma, beta, training=True, eps=eps)
    y.backward(dy)
    with torch.no_grad():
        ours, x_hat, sigma = page["batch_norm_forward"](x, gamma, beta, eps)
        dx, dgamma, dbeta = page["batch_norm_backward"](dy, x_hat, sigma, gamma)
    torch.testing.assert_close(ours, y.detach())
    # dx_j = (g_j - mean g - xhat_j mean(g xhat)) / sigma, g = gamma dy, means over dim 0
    g = gamma.detach() * dy
    by_hand = (g - g.mean(0) - x_hat * (g * x_hat).mean(0)) / sigma
    torch.testing.assert_close(dx, by_hand)
    torch.testing.assert_close(dx, x.grad)
    torch.testing.assert_close(dgamma, gamma.grad)
    torch.testing.assert_close(dbeta, beta.grad)


@pytest.mark.claim(BN_PAGE, "Every column of $\\mathrm{d}x$ sums to 0")
@settings(max_examples=30, deadline=None)
@given(seeds, st.integers(1, 8), st.sampled_from([torch.float32, F64]))
@example(0, 1, F64)  # a batch of one: x_hat = 0, and dx = 0
def test_batch_norm_columns_sum_to_zero(seed: int, n: int, dtype: torch.dtype) -> None:
    page = bn_page()
    x, gamma, beta, dy = (
        _draw(seed, n, 3),
        _draw(seed + 1, 3),
        _draw(seed + 2, 3),
        _draw(seed + 3, n, 3),
    )
    x, gamma, beta, dy = (t.to(dtype) for t in (x, gamma, beta, dy))
    _, x_hat, sigma = page["batch_norm_forward"](x, gamma, beta)
    dx, _, _ = page["batch_norm_backward"](dy, x_hat, sigma, gamma)
    scale = dy.abs().max() * gamma.abs().max() / sigma.min()  # the size of one entry
    tolerance = 10 * n**2 * torch.finfo(dtype).eps * scale  # n terms, each of n products
    assert (dx.sum(dim=0).abs() <= tolerance).all(), dx.sum(dim=0)


@pytest.mark.claim(BN_PAGE, "adding the same number to every example of a feature moves $\\mu$")
@settings(max_examples=20, deadline=None)
@given(seeds, st.integers(2, 8), st.floats(-5.0, 5.0))
def test_batch_norm_shift_leaves_x_hat(seed: int, n: int, shift: float) -> None:
    forward = bn_page()["batch_norm_forward"]
    x, gamma, beta = _draw(seed, n, 3), _draw(seed + 1, 3), _draw(seed + 2, 3)
    _, before, _ = forward(x, gamma, beta)
    _, after, _ = forward(x + shift, gamma, beta)
    torch.testing.assert_close(after, before, rtol=0, atol=1e-9)


@pytest.mark.claim(
    BN_PAGE, "because `x.var(dim=0)` divides by $N - 1$ unless you pass `correction=0`"
)
@settings(max_examples=20, deadline=None)
@given(seeds, st.integers(2, 8), st.sampled_from([torch.float32, F64]))
def test_var_divides_by_n_minus_one_by_default(seed: int, n: int, dtype: torch.dtype) -> None:
    x = _draw(seed, n, 3).to(dtype)
    squares = ((x - x.mean(dim=0)) ** 2).sum(dim=0)
    torch.testing.assert_close(x.var(dim=0), squares / (n - 1))
    torch.testing.assert_close(x.var(dim=0, correction=0), squares / n)
    torch.testing.assert_close(x.var(dim=0, unbiased=False), squares / n)


@pytest.mark.claim(BN_PAGE, "`x.var(dim=0)` divides by $N - 1$ too")
def test_var_in_the_forward_pass_normalises_with_the_wrong_sigma() -> None:
    page = bn_page()
    x, gamma, beta = page["x"].detach(), page["gamma"].detach(), page["beta"].detach()
    n = x.shape[0]
    unbiased = (x.var(dim=0) + 1e-5).sqrt()
    biased = (x.var(dim=0, correction=0) + 1e-5).sqrt()
    _, _, sigma = page["batch_norm_forward"](x, gamma, beta)
    torch.testing.assert_close(sigma, biased)
    torch.testing.assert_close(unbiased**2 - 1e-5, (biased**2 - 1e-5) * n / (n - 1))
    assert not torch.allclose(unbiased, sigma)


@pytest.mark.claim(BN_PAGE, "is updated with the unbiased variance, divided by $N - 1$")
@settings(max_examples=20, deadline=None)
@given(seeds, st.integers(2, 8), st.sampled_from([1.0, 0.1, 0.5]))
def test_running_var_uses_n_minus_one(seed: int, n: int, momentum: float) -> None:
    bn_page()  # the page's block ran: it printed the ratio N / (N - 1)
    x = _draw(seed, n, 3)
    bn = nn.BatchNorm1d(3, momentum=momentum, dtype=F64)
    with torch.no_grad():
        bn(x)
    squares = ((x - x.mean(dim=0)) ** 2).sum(dim=0)
    # running_var = (1 - momentum) * 1 + momentum * (sum of squares / (N - 1))
    expected = (1 - momentum) * torch.ones(3, dtype=F64) + momentum * squares / (n - 1)
    torch.testing.assert_close(bn.running_var, expected)


@pytest.mark.claim(BN_PAGE, "and a last term divided by $N - 1$: right for that forward pass")
@settings(max_examples=20, deadline=None)
@given(seeds, st.integers(2, 8))
def test_unbiased_forward_has_the_n_minus_one_term(seed: int, n: int) -> None:
    page = bn_page()
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 3, dtype=F64, generator=gen).requires_grad_()
    gamma, dy = (
        torch.randn(3, dtype=F64, generator=gen),
        torch.randn(n, 3, dtype=F64, generator=gen),
    )
    sigma_u = (x.var(dim=0) + 1e-5).sqrt()  # the unbiased variance in the forward pass
    x_hat_u = (x - x.mean(dim=0)) / sigma_u
    (gamma * x_hat_u).backward(dy)
    x_hat_u, sigma_u = x_hat_u.detach(), sigma_u.detach()
    g = gamma * dy
    by_hand = (g - g.mean(0) - x_hat_u * (g * x_hat_u).sum(0) / (n - 1)) / sigma_u
    torch.testing.assert_close(x.grad, by_hand)
    # ... and batch norm's own gradient is another one
    xb = x.detach().clone().requires_grad_()
    F.batch_norm(xb, None, None, gamma, None, training=True).backward(dy)
    _, x_hat, sigma = page["batch_norm_forward"](x.detach(), gamma, torch.zeros(3, dtype=F64))
    torch.testing.assert_close(page["batch_norm_backward"](dy, x_hat, sigma, gamma)[0], xb.grad)
    assert not torch.allclose(x.grad, xb.grad)


# --- gradient-reversal-layer --------------------------------------------------------------


@cache
def grl_page() -> Session:
    return run_region(GRL, "solution")


shapes = st.sampled_from([(0,), (1,), (3,), (2, 3), ()])


@pytest.mark.claim(GRL_PAGE, "`x.view_as(x)` is the identity as a new tensor: the same values")
@settings(max_examples=20, deadline=None)
@given(shapes, st.sampled_from([torch.float32, F64, torch.bfloat16]), lams, seeds)
def test_forward_is_the_identity_as_a_new_tensor(
    shape: tuple[int, ...], dtype: torch.dtype, lam: float, seed: int
) -> None:
    layer = grl_page()["GradReverse"]
    x = _draw(seed, *shape).to(dtype).requires_grad_()
    y = layer.apply(x, lam)
    assert y is not x and torch.equal(y.detach(), x.detach()) and y.dtype == dtype
    assert y.grad_fn is not None and y.grad_fn.name() == "GradReverseBackward"
    if x.numel():
        assert y.data_ptr() == x.data_ptr()  # the same memory, a view


@pytest.mark.claim(GRL_PAGE, "with only the gradient for `x`, autograd raises")
def test_one_entry_for_two_inputs_raises() -> None:
    layer = grl_page()["GradReverse"]

    class OneEntry(layer):
        @staticmethod
        def backward(ctx, grad_out):
            return -ctx.lam * grad_out

    x = torch.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="incorrect number of gradients"):
        OneEntry.apply(x, 0.5).sum().backward()
    layer.apply(x, 0.5).sum().backward()  # the page's two entries: fine
    assert torch.equal(x.grad, torch.full((3,), -0.5))


@pytest.mark.claim(GRL_PAGE, "autograd refuses anything but `None` in its place")
@pytest.mark.parametrize(
    "for_lam",
    [torch.zeros(()), torch.zeros(3), torch.tensor(1.0), 0.0, 1, "lam"],
    ids=["zero-scalar-tensor", "zero-tensor", "tensor", "float", "int", "str"],
)
def test_lam_gets_only_none(for_lam: object) -> None:
    layer = grl_page()["GradReverse"]

    class GradientForLam(layer):
        @staticmethod
        def backward(ctx, grad_out):
            return -ctx.lam * grad_out, for_lam

    x = torch.ones(3, requires_grad=True)
    with pytest.raises((RuntimeError, TypeError)):
        GradientForLam.apply(x, 0.5).sum().backward()


@pytest.mark.claim(GRL_PAGE, "`save_for_backward` refuses a plain number too")
@pytest.mark.parametrize("number", [0.5, 2, -1.0])
def test_save_for_backward_refuses_a_number(number: float) -> None:
    layer = grl_page()["GradReverse"]

    class Saves(layer):
        @staticmethod
        def forward(ctx, x, lam):
            ctx.save_for_backward(lam)
            return x.view_as(x)

    with pytest.raises(TypeError, match="save_for_backward can only save"):
        Saves.apply(torch.ones(2, requires_grad=True), number)


@pytest.mark.claim(
    GRL_PAGE, "`backward` runs with grad mode on, so `-ctx.lam * grad_out` is recorded"
)
@pytest.mark.parametrize("create_graph", [True, False])
def test_backward_records_under_create_graph(create_graph: bool) -> None:
    layer = grl_page()["GradReverse"]
    seen = {}

    class Watched(layer):
        @staticmethod
        def backward(ctx, grad_out):
            seen["grad mode"] = torch.is_grad_enabled()
            seen["requires grad"] = grad_out.requires_grad
            return layer.backward(ctx, grad_out)

    x = torch.tensor([1.0, -2.0], requires_grad=True)
    u = torch.tensor([0.5, 3.0], requires_grad=True)
    (gx,) = torch.autograd.grad(Watched.apply(x, 0.5), x, u, create_graph=create_graph)
    assert seen == {"grad mode": create_graph, "requires grad": True}
    assert gx.requires_grad == create_graph


@pytest.mark.claim(GRL_PAGE, "by $u$ is $-0.5$ at every entry")
@settings(max_examples=20, deadline=None)
@given(lams, seeds, shapes)
def test_derivative_by_the_incoming_gradient_is_minus_lam(
    lam: float, seed: int, shape: tuple[int, ...]
) -> None:
    layer = grl_page()["GradReverse"]
    x, u = _draw(seed, *shape).requires_grad_(), _draw(seed + 1, *shape).requires_grad_()
    (gx,) = torch.autograd.grad(layer.apply(x, lam), x, u, create_graph=True)
    torch.testing.assert_close(gx, -lam * u)
    (du,) = torch.autograd.grad(gx.sum(), u)
    torch.testing.assert_close(du, torch.full(shape, -lam, dtype=F64))


@pytest.mark.claim(GRL_PAGE, "For every other $\\lambda$ the layer fails `gradcheck`")
@pytest.mark.parametrize("lam", [-1.0, 1.0, 0.0, 0.5, -0.99, -1.01, 2.0, -3.0])
def test_gradcheck_passes_at_minus_one_only(lam: float) -> None:
    layer = grl_page()["GradReverse"]
    x = torch.tensor([0.2, 1.3, -0.7], dtype=F64, requires_grad=True)
    passed = torch.autograd.gradcheck(lambda t: layer.apply(t, lam), (x,), raise_exception=False)
    assert passed == (lam == -1.0)


@pytest.mark.claim(
    GRL_PAGE, "so the features get $-\\lambda\\, \\partial L_d / \\partial \\theta_f$"
)
@settings(max_examples=15, deadline=None)
@given(seeds, st.floats(0.0, 2.0))
def test_features_climb_the_domain_loss(seed: int, lam: float) -> None:
    layer = grl_page()["GradReverse"]
    gen = torch.Generator().manual_seed(seed)
    inputs = torch.randn(6, 4, dtype=F64, generator=gen)
    theta_f = torch.randn(4, 3, dtype=F64, generator=gen)
    theta_d = torch.randn(3, 2, dtype=F64, generator=gen)
    labels = torch.randint(0, 2, (6,), generator=gen)

    def gradients(reverse: bool) -> tuple[torch.Tensor, ...]:
        f, d = theta_f.clone().requires_grad_(), theta_d.clone().requires_grad_()
        h = torch.tanh(inputs @ f)
        h = layer.apply(h, lam) if reverse else h
        return torch.autograd.grad(F.cross_entropy(h @ d, labels), (f, d))

    plain, reversed_ = gradients(False), gradients(True)
    torch.testing.assert_close(reversed_[0], -lam * plain[0])  # the features: -lam times
    torch.testing.assert_close(reversed_[1], plain[1])  # the domain head: unchanged


# --- hutchinsons-trace-estimate -----------------------------------------------------------


@cache
def hutch_page() -> Session:
    return _quiet(HUTCH, "solution")


@cache
def _all_signs(n: int) -> torch.Tensor:
    """Every vector of n entries +1 or -1: 2^n rows."""
    return torch.tensor(list(itertools.product([-1.0, 1.0], repeat=n)), dtype=F64)


@pytest.mark.claim(HUTCH_PAGE, "returns a pair: the gradient at `w`, then $Hv$")
@settings(max_examples=10, deadline=None)
@given(seeds)
def test_jvp_over_grad_is_the_hessian_times_v(seed: int) -> None:
    page = hutch_page()
    w, v = _draw(seed, 16), _draw(seed + 1, 16)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gradient, hv = torch.func.jvp(torch.func.grad(page["loss"]), (w,), (v,))
        assert torch.equal(page["hvp"](page["loss"], w, v), hv)  # the page's hvp
    H = torch.func.hessian(page["loss"])(w)
    torch.testing.assert_close(hv, H @ v)
    torch.testing.assert_close(gradient, torch.func.grad(page["loss"])(w))


@pytest.mark.claim(HUTCH_PAGE, "(forward mode refuses an integer tangent)")
@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.bool])
def test_forward_mode_refuses_an_integer_tangent(dtype: torch.dtype) -> None:
    page = hutch_page()
    v = torch.randint(0, 2, (16,)).to(dtype)
    with pytest.raises(ValueError, match="floating point"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        page["hvp"](page["loss"], page["w"], v)


@pytest.mark.claim(HUTCH_PAGE, "Their expectation is exactly $\\mathrm{tr}(H)$.")
def test_mean_over_every_sign_vector_is_the_trace() -> None:
    H = hutch_page()["H"]
    signs = _all_signs(16)  # all 65536 Rademacher vectors, each as likely
    samples = ((signs @ H) * signs).sum(dim=1)  # v^T H v for every one
    torch.testing.assert_close(samples.mean(), H.trace())


@pytest.mark.claim(HUTCH_PAGE, "= 4 \\sum_{i<j} H_{ij}^2 = 2 \\sum_{i \\ne j} H_{ij}^2")
def test_rademacher_variance_is_the_off_diagonal_sum() -> None:
    page = hutch_page()
    H = page["H"]
    signs = _all_signs(16)
    samples = ((signs @ H) * signs).sum(dim=1)
    exact = samples.var(correction=0)  # over the whole distribution: exact
    off = H - torch.diag(torch.diagonal(H))
    torch.testing.assert_close(exact, 2 * off.square().sum())
    torch.testing.assert_close(page["sd_rademacher"] ** 2, exact)  # the page's own formula


@pytest.mark.claim(
    HUTCH_PAGE, "so its variance is ${2 \\sum_{i,j} H_{ij}^2}$, the diagonal included"
)
def test_gaussian_variance_includes_the_diagonal() -> None:
    page = hutch_page()
    H = page["H"]
    # Diagonalise: v^T H v = sum_k lambda_k z_k^2 with z standard normal, so its variance
    # is 2 sum_k lambda_k^2, and sum_k lambda_k^2 = sum_ij H_ij^2.
    eigenvalues = torch.linalg.eigvalsh(H)
    torch.testing.assert_close(2 * eigenvalues.square().sum(), 2 * H.square().sum())
    torch.testing.assert_close(page["sd_gaussian"] ** 2, 2 * H.square().sum())
    gen = torch.Generator().manual_seed(0)
    z = torch.randn(400_000, 16, dtype=F64, generator=gen)
    samples = ((z @ H) * z).sum(dim=1)
    assert abs(samples.mean() - H.trace()) < 4 * page["sd_gaussian"] / 400_000**0.5
    assert abs(samples.std() / page["sd_gaussian"] - 1) < 0.01


@pytest.mark.claim(HUTCH_PAGE, "so Gaussian vectors are unbiased too, and the check accepts them")
def test_the_check_accepts_gaussian_vectors() -> None:
    page = hutch_page()

    def gaussian_trace(f, w, num_samples):
        """Hutchinson with standard normal v, through the page's own hvp."""
        vs = torch.randn(num_samples, *w.shape, dtype=w.dtype)
        return sum(v @ page["hvp"](f, w, v) for v in vs) / num_samples

    inputs = {"hutchinson_trace": gaussian_trace, "loss": page["loss"], "w": page["w"]}
    checked = _quiet(HUTCH, "check", inputs=inputs)
    assert checked.output.startswith("Correct:"), checked.output


@pytest.mark.claim(HUTCH_PAGE, "which adds 16 to the trace and nothing to the Rademacher variance")
@settings(max_examples=5, deadline=None)
@given(seeds)
def test_the_penalty_adds_the_identity(seed: int) -> None:
    page = hutch_page()
    w = _draw(seed, 16)
    H = torch.func.hessian(page["loss"])(w)
    without = torch.func.hessian(lambda w: page["loss"](w) - 0.5 * (w**2).sum())(w)
    torch.testing.assert_close(H - without, torch.eye(16, dtype=F64))
    off = H - torch.diag(torch.diagonal(H))
    off_without = without - torch.diag(torch.diagonal(without))
    torch.testing.assert_close(off, off_without)  # the variance's terms do not change


@pytest.mark.claim(
    HUTCH_PAGE, "the 16 products $e_i^{\\top} H e_i = H_{ii}$ with the basis vectors"
)
def test_basis_vectors_give_the_trace_exactly() -> None:
    page = hutch_page()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        by_basis = sum(
            e @ page["hvp"](page["loss"], page["w"], e) for e in torch.eye(16, dtype=F64)
        )
    torch.testing.assert_close(by_basis, page["H"].trace(), rtol=1e-12, atol=1e-12)


@pytest.mark.claim(HUTCH_PAGE, "only the terms off the diagonal vary")
@settings(max_examples=10, deadline=None)
@given(seeds, st.integers(1, 5))
def test_a_diagonal_hessian_is_estimated_exactly(seed: int, m: int) -> None:
    hutchinson_trace = hutch_page()["hutchinson_trace"]
    d = _draw(seed, 6) * 3  # 0.5 sum_i d_i w_i^2 has the Hessian diag(d)

    def f(w):
        return 0.5 * (d * w**2).sum()

    torch.manual_seed(seed % 1000)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        estimate = hutchinson_trace(f, _draw(seed + 1, 6), m)
    torch.testing.assert_close(estimate, d.sum(), rtol=1e-12, atol=1e-12)


@pytest.mark.claim(HUTCH_PAGE, "estimates the diagonal of $H$; AdaHessian")
def test_mean_of_v_times_hv_is_the_diagonal() -> None:
    H = hutch_page()["H"]
    signs = _all_signs(16)
    torch.testing.assert_close((signs * (signs @ H)).mean(dim=0), torch.diagonal(H))


@pytest.mark.claim(HUTCH_PAGE, "is $n$ times the average curvature of the loss over all directions")
@settings(max_examples=10, deadline=None)
@given(seeds)
def test_trace_is_n_times_the_average_curvature(seed: int) -> None:
    H = hutch_page()["H"]
    # Any orthonormal basis q_1..q_n has sum_i q_i^T H q_i = tr(Q^T H Q) = tr(H); averaged
    # over random rotations, a unit direction u has E[u u^T] = I / n, so E[u^T H u] = tr H / n.
    q, _ = torch.linalg.qr(_draw(seed, 16, 16))
    curvatures = torch.einsum("ji,jk,ki->i", q, H, q)  # q_i^T H q_i for each column i
    torch.testing.assert_close(16 * curvatures.mean(), H.trace())

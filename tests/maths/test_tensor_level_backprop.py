"""docs/deeper/tensor-level-backprop.md: the cross-entropy nodes and the layer norm's
dσ/dx = x̂ / D with any ε, on the page's own code (run_region)."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from hypothesis import example, given, settings
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


# --- Claims of the page, at their edges -------------------------------------------------

PAGE = "docs/deeper/tensor-level-backprop.md"
FUNCTIONS = run_region(
    SNIPPET, "imports", "unbroadcast", "stable-softmax", "softmax-jacobian", "layer-norm-forward"
)
seeds = st.integers(min_value=0, max_value=2**31 - 1)
shapes = st.lists(st.integers(min_value=1, max_value=4), min_size=0, max_size=4).map(tuple)


@pytest.mark.claim(
    PAGE,
    "with an empty tuple of dimensions, `sum` does not sum over nothing, it sums over *everything*",
)
@settings(max_examples=30, deadline=None)
@given(shapes, seeds)
def test_sum_over_no_dimension_sums_them_all(shape: tuple[int, ...], seed: int) -> None:
    grad = torch.randn(shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
    assert grad.sum(dim=()).shape == ()
    torch.testing.assert_close(grad.sum(dim=()), grad.sum())
    # ... which is why unbroadcast guards its sums: to its own shape it changes nothing.
    assert torch.equal(FUNCTIONS["unbroadcast"](grad, shape), grad)


@st.composite
def broadcast_pairs(draw: st.DrawFn) -> tuple[tuple[int, ...], tuple[int, ...]]:
    out = draw(shapes)
    kept = draw(st.integers(min_value=0, max_value=len(out)))
    tail = out[len(out) - kept :]
    return tuple(1 if draw(st.booleans()) else size for size in tail), out


@pytest.mark.claim(
    PAGE,
    "A backward node may return a gradient of the broadcast shape, and the engine sums it "
    "down to the input's shape before passing it on.",
)
@settings(max_examples=40, deadline=None)
@given(broadcast_pairs(), seeds)
def test_the_engine_sums_a_broadcast_gradient_down(pair: tuple, seed: int) -> None:
    shape, out_shape = pair
    session = run_region(SNIPPET, "imports", "engine-reduces")  # the page's AddNoReduce
    generator = torch.Generator().manual_seed(seed)
    a = torch.randn(shape, generator=generator, dtype=torch.float64, requires_grad=True)
    b = torch.randn(out_shape, generator=generator, dtype=torch.float64, requires_grad=True)
    upstream = torch.randn(out_shape, generator=generator, dtype=torch.float64)
    session["AddNoReduce"].apply(a, b).backward(upstream)
    # By hand: every entry of a was used once per copy, so it gets the sum of its copies.
    torch.testing.assert_close(a.grad, upstream.sum_to_size(shape))
    torch.testing.assert_close(b.grad, upstream)


@pytest.mark.claim(PAGE, "$J$ is symmetric, and its rows and columns all sum to 0")
@settings(max_examples=40, deadline=None)
@given(
    st.integers(min_value=1, max_value=7),
    seeds,
    st.sampled_from([1.0, 30.0, 1000.0]),
    st.sampled_from([torch.float32, torch.float64]),
)
def test_the_softmax_jacobian_is_symmetric_with_zero_sums(
    classes: int, seed: int, scale: float, dtype: torch.dtype
) -> None:
    z = scale * torch.randn(classes, generator=torch.Generator().manual_seed(seed), dtype=dtype)
    J = FUNCTIONS["softmax_jacobian"](torch.softmax(z, dim=0))
    assert torch.equal(J, J.T)
    tolerance = 1e-6 if dtype == torch.float32 else 1e-14
    assert J.sum(dim=0).abs().max() <= tolerance and J.sum(dim=1).abs().max() <= tolerance


ties = st.lists(st.integers(min_value=-3, max_value=3).map(float), min_size=1, max_size=6)


@pytest.mark.claim(
    PAGE,
    "the derivative of the stable formula with respect to the shift is exactly 0, because "
    "the result does not depend on the shift at all",
)
@settings(max_examples=40, deadline=None)
@given(ties, st.sampled_from([1.0, 1000.0]), seeds)
def test_the_max_need_not_be_detached(values: list[float], scale: float, seed: int) -> None:
    # Ties of the maximum included: amax splits its gradient, and it still cancels.
    z = scale * torch.tensor(values, dtype=torch.float64)
    g = torch.randn(len(values), generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
    grads = []
    for softmax in (
        FUNCTIONS["stable_softmax"],
        lambda t: torch.softmax(t, dim=-1),
        lambda t: (t - t.amax().detach()).exp() / (t - t.amax().detach()).exp().sum(),
    ):
        leaf = z.clone().requires_grad_()
        softmax(leaf).backward(g)
        grads.append(leaf.grad)
    torch.testing.assert_close(grads[0], grads[1])
    torch.testing.assert_close(grads[0], grads[2])
    # The derivative of logsumexp is softmax, ties or not.
    leaf = z.clone().requires_grad_()
    FUNCTIONS["stable_logsumexp"](leaf).backward()
    torch.testing.assert_close(leaf.grad, torch.softmax(z, dim=-1))


@pytest.mark.claim(
    PAGE,
    "To the four decimals printed, the variances are 1. In fact they are "
    "$\\mathrm{var}/(\\mathrm{var} + \\varepsilon)$, a little less than 1.",
)
@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.floats(-5, 5, allow_nan=False), min_size=2, max_size=6),
    st.sampled_from([1e-5, 1e-2, 1.0]),
)
def test_layer_norm_variances_are_var_over_var_plus_eps(values: list[float], eps: float) -> None:
    x = torch.tensor([values], dtype=torch.float64)
    D = len(values)
    _, (x_hat, _) = FUNCTIONS["layer_norm_forward"](x, torch.ones(D), torch.zeros(D), eps=eps)
    var = x.var(dim=1, unbiased=False)
    torch.testing.assert_close(x_hat.var(dim=1, unbiased=False), var / (var + eps))
    assert (x_hat.var(dim=1, unbiased=False) < 1).all()


@pytest.mark.claim(
    PAGE,
    "The small $\\varepsilon$ (${10^{-5}}$ by default) keeps the division safe when a row "
    "is constant.",
)
@pytest.mark.parametrize("value", [0.0, 3.0, -1e6])
def test_eps_keeps_a_constant_row_finite(value: float) -> None:
    x = torch.full((1, 4), value)
    y, (x_hat, _) = FUNCTIONS["layer_norm_forward"](x, torch.ones(4), torch.zeros(4))
    assert torch.equal(x_hat, torch.zeros(1, 4)) and torch.isfinite(y).all()
    _, (x_hat_no_eps, _) = FUNCTIONS["layer_norm_forward"](
        x, torch.ones(4), torch.zeros(4), eps=0.0
    )
    assert torch.isnan(x_hat_no_eps).all()  # 0 / 0 without it


# --- The embedding's options: padding_idx, scale_grad_by_freq, sparse ---------------------

EMBEDDING = run_region(SNIPPET, "imports", "compare", "embedding-backward")
token_lists = st.lists(st.integers(0, 4), min_size=1, max_size=8)  # vocabulary of 5, repeats


def _embedding_page(tokens: list[int]):
    inputs = {
        "torch": torch,
        "F": F,
        "compare": EMBEDDING["compare"],
        "embedding_backward": EMBEDDING["embedding_backward"],
        "vocab_size": 5,
        "dim": 3,
        "tokens": torch.tensor(tokens),
    }
    return run_region(SNIPPET, "embedding-options-maths", inputs=inputs)


def _scatter_add_by_hand(tokens: list[int], dout: torch.Tensor) -> torch.Tensor:
    # dE_v = sum of the rows dout_i with t_i = v (0 for a token not looked up).
    rows = [[0.0] * 3 for _ in range(5)]
    for i, v in enumerate(tokens):
        for k in range(3):
            rows[v][k] += dout[i, k].item()
    return torch.tensor(rows)


@pytest.mark.claim(PAGE, "A token used twice gets two rows added")
@pytest.mark.claim(
    PAGE, "the row of the padding token gets a gradient of 0, however often it appears"
)
@pytest.mark.claim(
    PAGE,
    "row $v$ is divided by $n_v$, the number of times token $v$ was looked up in this batch",
)
@settings(max_examples=60, deadline=None)
@given(token_lists)
@example([0])  # one lookup, of the padding token
@example([3])  # one lookup, of another token
@example([0, 0, 0])
@example([2, 0, 2, 3, 0])  # the page's ids
def test_embedding_options_give_the_hand_scatter_add(tokens: list[int]) -> None:
    page = _embedding_page(tokens)
    dout = page["dout"]
    assert dout.shape == (len(tokens), 3)
    hand = _scatter_add_by_hand(tokens, dout)
    assert torch.equal(page["grads"]["plain"], hand)
    padded = hand.clone()
    padded[0] = 0.0  # padding_idx=0
    assert torch.equal(page["grads"]["padding_idx=0"], padded)
    assert torch.equal(page["grads"]["padding_idx=0"][0], torch.zeros(3))
    n = [tokens.count(v) for v in range(5)]
    by_freq = torch.tensor(
        [[hand[v, k].item() / n[v] if n[v] else 0.0 for k in range(3)] for v in range(5)]
    )
    torch.testing.assert_close(page["grads"]["scale_grad_by_freq"], by_freq)


@pytest.mark.claim(PAGE, "`E.grad` is a sparse tensor with one entry per lookup")
@pytest.mark.claim(
    PAGE,
    "`coalesce()` adds the entries that share a row, and the result, made dense, is the "
    "scatter-add.",
)
@settings(max_examples=60, deadline=None)
@given(token_lists)
@example([0])
@example([4, 4])
def test_the_sparse_gradient_has_one_entry_per_lookup(tokens: list[int]) -> None:
    page = _embedding_page(tokens)
    sparse = page["grads"]["sparse"]
    assert sparse.layout == torch.sparse_coo
    assert sparse._nnz() == len(tokens)
    assert sorted(sparse._indices()[0].tolist()) == sorted(tokens)
    summed = page["summed"]
    assert summed._nnz() == len(set(tokens))
    assert torch.equal(summed.to_dense(), _scatter_add_by_hand(tokens, page["dout"]))


@pytest.mark.claim(
    PAGE, "With `padding_idx` as well, the sparse gradient leaves the padding lookups out"
)
@pytest.mark.claim(
    PAGE,
    "`sparse=True` does not go with `scale_grad_by_freq=True`: the forward pass runs, and "
    "`backward()` raises.",
)
@settings(max_examples=60, deadline=None)
@given(token_lists)
@example([0])  # only padding: no entry at all
@example([0, 0, 0])
@example([2, 0, 2, 3, 0])  # the page's ids
def test_sparse_with_padding_and_with_frequency_scaling(tokens: list[int]) -> None:
    page = _embedding_page(tokens)
    # One entry per lookup of a token other than the padding token 0, in lookup order.
    assert page["padded_rows"] == [v for v in tokens if v != 0]
    assert page["freq_refused"] is not None
    assert "scale_grad_by_freq not supported with sparse" in page["freq_refused"]

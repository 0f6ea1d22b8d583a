"""docs/deeper/forward-and-reverse-mode.md: the page's hand formulas agree with autograd.

The code under test is the page's: named regions of snippets/deeper/forward_and_reverse_mode.py
run in a fresh namespace (stdout captured), and the test takes the page's functions from
it. The maths the test writes itself is the hand derivation on the page.
"""

from __future__ import annotations

import subprocess
import sys
from itertools import pairwise
from typing import Any

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from packaging.version import Version

from . import run_region

SNIPPET = "deeper/forward_and_reverse_mode"


PAGE = run_region(
    SNIPPET, "quiet-start", "jacobian", "per-sample", "per-example-linear", quiet=True
)
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


# --- Batch norm under vmap: BatchNorm2d with the documented fix ------------------------

BATCH_NORM_2D = run_region(SNIPPET, "quiet-start", "per-sample", "per-example-linear", quiet=True)


def _batch_norm_2d(images: torch.Tensor, targets: torch.Tensor) -> dict[str, Any]:
    """The page's model, new and unpatched, then the page's fix and comparison on these
    images."""
    model = run_region(
        "deeper/forward_and_reverse_mode", "batch-norm-2d-model", inputs=BATCH_NORM_2D
    )
    return run_region(
        "deeper/forward_and_reverse_mode",
        "batch-norm-2d-maths",
        inputs={**model, "images": images, "image_targets": targets},
    )


@pytest.mark.claim(
    "docs/deeper/forward-and-reverse-mode.md",
    "There the documented fix runs without an error, and the gradients it returns are "
    "silently those of another model, one that normalises each example by its own "
    "statistics",
)
@settings(max_examples=15, deadline=None)
@given(
    st.integers(min_value=1, max_value=6),  # images in the batch, a batch of 1 included
    st.integers(min_value=4, max_value=8),  # their side: 2 x 2 to 6 x 6 values per channel
    st.integers(min_value=0, max_value=2**16),
)
def test_patched_batch_norm_2d_normalises_each_example_alone(
    batch: int, side: int, seed: int
) -> None:
    generator = torch.Generator().manual_seed(seed)
    images = torch.randn(batch, 1, side, side, generator=generator)
    targets = torch.randn(batch, generator=generator)
    run = _batch_norm_2d(images, targets)
    assert run["own"]  # every row: that image normalised by its own statistics
    # The batch's gradient normalises by the statistics of all the images: it is their
    # mean only for a batch of one image.
    assert run["batch_mean"] == (batch == 1)


def test_batch_norm_2d_with_one_value_per_channel_refuses_as_batch_norm_1d_does() -> None:
    # A 3 x 3 image leaves 1 x 1 after the 3 x 3 convolution: one value per channel.
    with pytest.raises(ValueError, match="more than 1 value per channel"):
        _batch_norm_2d(torch.randn(3, 1, 3, 3), torch.randn(3))


# --- The forward-mode warning, in a script of one's own ----------------------------------

SCRIPT = """
import torch
from torch.autograd import forward_ad as fwAD

x = torch.tensor([1.0, 2.0])
torch.func.jvp(torch.sin, (x,), (torch.ones(2),))
torch.func.jacfwd(torch.sin)(x)
with fwAD.dual_level():
    fwAD.make_dual(x, torch.ones(2)).sin()
torch.func.jvp(torch.cos, (x,), (torch.ones(2),))
"""


@pytest.mark.claim(
    "docs/deeper/forward-and-reverse-mode.md",
    "A script of yours shows it once, on PyTorch 2.14 and later; 2.13 shows it not at all, "
    "since Python hides a `DeprecationWarning` that comes from inside a library.",
)
def test_a_script_shows_the_forward_mode_warning_once_since_2_14() -> None:
    # A fresh process with Python's default warning filters, as a learner's script runs:
    # jvp, jacfwd and make_dual, each of them after the first forward-mode call.
    ran = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=True, timeout=300
    )
    shown = ran.stderr.count("`torch.jit.script` is deprecated")
    since_2_14 = Version(torch.__version__.split("+")[0]) >= Version("2.14")
    assert shown == (1 if since_2_14 else 0), ran.stderr


@pytest.mark.claim(
    "docs/deeper/forward-and-reverse-mode.md",
    "from the same seed they are exactly the masks that one `F.dropout` on the whole batch "
    'draws. With `"same"` the three rows share one mask.',
)
@pytest.mark.parametrize("shape", [(3, 6), (1, 6), (5, 1), (4, 33), (2, 3, 4), (7, 100)])
def test_vmap_randomness_different_is_the_batch_s_draw(shape: tuple[int, ...]) -> None:
    page = run_region(
        "deeper/forward_and_reverse_mode",
        "randomness-maths",
        inputs={**BATCH_NORM_2D, "F": torch.nn.functional, "ones": torch.ones(shape)},
    )
    assert torch.equal(page["different"], page["batch"])
    assert all(torch.equal(row, page["same"][0]) for row in page["same"])
    assert set(page["batch"].unique().tolist()) <= {0.0, 2.0}  # kept entries scaled by 2


# --- Ghost clipping: the clipped sum from two backward passes ---------------------------

FR_MD = "docs/deeper/forward-and-reverse-mode.md"


@pytest.mark.claim(
    FR_MD,
    "So its squared norm is a sum over the layers of "
    "$\\lVert \\delta_i \\rVert^2 \\bigl(\\lVert h_i \\rVert^2 + 1\\bigr)$",
)
@pytest.mark.claim(
    FR_MD,
    "Each $c_i$ is a number, so $\\sum_i c_i\\, g_i$ is the gradient of $\\sum_i c_i\\, \\ell_i$",
)
@settings(max_examples=30, deadline=None)
@given(
    st.integers(min_value=1, max_value=6).flatmap(
        lambda b: st.tuples(
            st.lists(st.floats(-3, 3, allow_nan=False), min_size=3 * b, max_size=3 * b),
            st.lists(st.floats(-3, 3, allow_nan=False), min_size=b, max_size=b),
        )
    ),
    st.sampled_from([1e-3, 0.5, 1.0, 4.0, 1e6]),  # from every example clipped to none
)
def test_ghost_clipping_is_the_sum_of_clipped_per_example_gradients(
    data: tuple[list, list], max_norm: float
) -> None:
    # By hand: delta2_i = 2 r_i, delta1_i = (W2^T delta2_i) * (1 - h_i^2); example i's
    # gradient is (delta1_i x_i^T, delta1_i, delta2_i h_i^T, delta2_i), its factor
    # c_i = min(1, C / ||g_i||), and the result sum_i c_i g_i.
    X = torch.tensor(data[0]).reshape(-1, 3)
    t = torch.tensor(data[1])
    run = run_region("deeper/forward_and_reverse_mode", "ghost-clipping-maths", inputs={**PAGE})
    norms, clipped = run["ghost_clipped_gradient"](X, t, max_norm)
    mlp = PAGE["mlp"]
    W1, b1 = mlp[0].weight.detach(), mlp[0].bias.detach()
    W2, b2 = mlp[2].weight.detach(), mlp[2].bias.detach()
    h = torch.tanh(X @ W1.T + b1)
    r = (h @ W2.T + b2).squeeze(1) - t
    delta2 = 2 * r.unsqueeze(1)
    delta1 = (delta2 @ W2) * (1 - h**2)
    per_example = {
        "0.weight": delta1.unsqueeze(2) * X.unsqueeze(1),
        "0.bias": delta1,
        "2.weight": delta2.unsqueeze(2) * h.unsqueeze(1),
        "2.bias": delta2,
    }
    flat = torch.cat([g.flatten(1) for g in per_example.values()], dim=1)
    hand_norms = flat.norm(dim=1)
    torch.testing.assert_close(norms, hand_norms, rtol=1e-4, atol=1e-5)
    factors = torch.where(hand_norms > max_norm, max_norm / hand_norms, 1.0)
    for name, g in per_example.items():
        hand = (factors.view(-1, *[1] * (g.dim() - 1)) * g).sum(0)
        torch.testing.assert_close(clipped[name], hand, rtol=1e-4, atol=1e-5)


# --- linearize: a VJP is the transpose of a JVP ------------------------------------------

PAGE_F = run_region(SNIPPET, "quiet-start", "jacobian", quiet=True)


@pytest.mark.claim(
    "docs/deeper/forward-and-reverse-mode.md",
    "In float64 the two sides of the block agree to within $10^{-12}$ for random $u$ and $v$",
)
@pytest.mark.claim(
    "docs/deeper/forward-and-reverse-mode.md",
    "A VJP is its transpose: $u \\cdot (Jv) = (J^{\\top} u) \\cdot v$ for every $u$ and $v$.",
)
@settings(max_examples=30, deadline=None)
@given(points, st.integers(min_value=0, max_value=2**32 - 1))
def test_linearize_transposed_is_the_vjp(values: list[float], seed: int) -> None:
    # u . (J v) = sum_ij u_i J_ij v_j = (J^T u) . v, with J the hand Jacobian of f.
    # Tolerance: float64, |x_j| <= 3 and standard normal u, v keep every term below
    # about 1e3, so rounding stays near 1e-13; the page's sentence says 1e-12.
    x = torch.tensor(values)
    run = run_region(
        "deeper/forward_and_reverse_mode",
        "linearize-maths",
        inputs={
            **PAGE_F,
            "x": x,
            "linearize": torch.func.linearize,
            "generator": torch.Generator().manual_seed(seed),
        },
    )
    assert run.output.count("gap < 1e-12: True") == 3, run.output
    x1, x2, x3 = x.double()  # the point the page's block differentiates at, in float64
    J = torch.stack([torch.stack([x2, x1, x1**0]), torch.stack([0 * x1, x3**2, 2 * x2 * x3])])
    hand = run["u_out"] @ J @ run["v_in"]
    assert abs(run["forward_side"] - hand).item() < 1e-12
    assert abs(run["reverse_side"] - hand).item() < 1e-12


# --- jacrev(chunk_size=k) ------------------------------------------------------------------

PAGE_WT = run_region(SNIPPET, "quiet-start", "jacobian", "wide-and-tall", quiet=True)


@pytest.mark.claim("docs/deeper/forward-and-reverse-mode.md", "the result is the same Jacobian")
@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.floats(-3, 3, allow_nan=False), min_size=2, max_size=2),
    st.integers(min_value=1, max_value=8),
    st.sampled_from([torch.float32, torch.float64]),
)
def test_jacrev_chunk_size_gives_the_same_jacobian(
    ab: list[float], chunk_size: int, dtype: torch.dtype
) -> None:
    # The tall function's Jacobian, by hand: columns 2 a t + b t^2 and a t^2, t = 0..5;
    # chunk sizes below, at and above the 6 outputs give exactly jacrev's unchunked result.
    run = run_region(
        "deeper/forward_and_reverse_mode",
        "chunk-size",
        inputs={**PAGE_WT, "ab": torch.tensor(ab, dtype=dtype)},
    )
    assert run.output.count("is the same Jacobian: True") == 3, run.output
    tall, point = PAGE_WT["tall"], torch.tensor(ab, dtype=dtype)
    chunked = torch.func.jacrev(tall, chunk_size=chunk_size)(point)
    assert torch.equal(chunked, torch.func.jacrev(tall)(point))
    a, b = ab
    t = torch.arange(6.0, dtype=torch.float64)
    hand = torch.stack([2 * a * t + b * t**2, a * t**2], dim=1)
    torch.testing.assert_close(chunked.double(), hand, rtol=1e-5, atol=1e-4)


# --- the cheap-gradient principle: counted FLOPs of a stack of linear layers ---------------

PAGE_COST = run_region(SNIPPET, "quiet-start", "jacobian", "flops", "cheap-gradient", quiet=True)


@pytest.mark.claim(
    "docs/deeper/forward-and-reverse-mode.md",
    "For a stack of linear layers without bias the ratio of forward plus backward to forward"
    " is exactly $3$ when the input requires grad, and exactly $3 - F_1/F$ when it does not.",
)
@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.integers(min_value=1, max_value=24), min_size=2, max_size=5),
    st.integers(min_value=1, max_value=9),
    st.sampled_from([torch.float32, torch.float64]),
    st.booleans(),
)
def test_linear_stack_gradient_costs_three_forward_passes(
    widths: list[int], batch: int, dtype: torch.dtype, input_requires_grad: bool
) -> None:
    # Layer i: forward F_i = 2 B n_i n_{i+1}; backward 2 F_i (x.grad and W.grad), but the
    # first layer skips its input's gradient when x does not require grad:
    # forward + backward = 3 F, or 3 F - F_1.
    net = PAGE_COST["linear_stack"](widths).to(dtype)
    X = torch.randn(batch, widths[0], dtype=dtype).requires_grad_(input_requires_grad)
    forward, both = PAGE_COST["gradient_cost"](net, X)
    layer_flops = [2 * batch * n * m for n, m in pairwise(widths)]
    F, F1 = sum(layer_flops), layer_flops[0]
    assert forward == F
    assert both == (3 * F if input_requires_grad else 3 * F - F1)
    if input_requires_grad:
        assert both / forward == 3

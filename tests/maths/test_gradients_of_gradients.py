"""docs/deeper/gradients-of-gradients.md: the page's hand formulas agree with autograd.

The code under test is the page's: named regions of snippets/deeper/gradients_of_gradients.py
run in a fresh namespace (stdout captured), and the test takes the page's functions from
it. The maths the test writes itself is the hand derivation on the page.
"""

from __future__ import annotations

import contextlib
import itertools
import subprocess
import sys
import warnings
from functools import cache

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch.utils._python_dispatch import TorchDispatchMode

from . import Session, run_region

SNIPPET = "deeper/gradients_of_gradients"


PAGE = run_region(SNIPPET, "quiet-start", "tanh", "hessian", "maml", quiet=True)
reals = st.floats(-3, 3, allow_nan=False)


@settings(max_examples=40, deadline=None)
@given(st.lists(reals, min_size=3, max_size=3), st.lists(reals, min_size=3, max_size=3))
def test_hand_hessian_and_hvp(values: list[float], direction: list[float]) -> None:
    # H = [[2x2, 2x1, 0], [2x1, 0, 2x3], [0, 2x3, 2x2]] for f = x1² x2 + x2 x3²,
    # and H v is the gradient of (grad f) . v.
    x = torch.tensor(values, dtype=torch.float64)
    v = torch.tensor(direction, dtype=torch.float64)
    f = PAGE["f"]
    hand = PAGE["hessian_by_hand"](x).double()
    torch.testing.assert_close(hand, torch.func.hessian(f)(x), rtol=1e-6, atol=1e-5)
    leaf = x.clone().requires_grad_()
    g = torch.autograd.grad(f(leaf), leaf, create_graph=True)[0]
    hv = torch.autograd.grad(g @ v, leaf)[0]
    torch.testing.assert_close(hv, hand @ v, rtol=1e-6, atol=1e-5)


@settings(max_examples=40, deadline=None)
@given(st.floats(-4, 4, allow_nan=False))
def test_tanh_derivatives(value: float) -> None:
    # tanh' = 1 - tanh², tanh'' = -2 tanh (1 - tanh²): the page's functions.
    x = torch.tensor(value, dtype=torch.float64, requires_grad=True)
    d1 = torch.autograd.grad(torch.tanh(x), x, create_graph=True)[0]
    d2 = torch.autograd.grad(d1, x)[0]
    torch.testing.assert_close(d1, PAGE["tanh_d1"](x.detach()))
    torch.testing.assert_close(d2, PAGE["tanh_d2"](x.detach()))


def test_maml_meta_gradient_by_hand() -> None:
    # dL_out/dw = L_out'(w') (1 - alpha L_in''(w)), with L_in'' = 2 x_a²;
    # first-order MAML drops the factor (1 - alpha L_in'').
    p = PAGE
    inner = 2 * p["x_a"] * (0.5 * p["x_a"] - p["y_a"])
    adapted = 0.5 - p["alpha"] * inner
    outer_slope = 2 * p["x_b"] * (adapted * p["x_b"] - p["y_b"])
    assert p["w_adapted"].item() == adapted
    assert p["meta_gradient"].item() == outer_slope * (1 - p["alpha"] * 2 * p["x_a"] ** 2)
    assert p["first_order"].item() == outer_slope


def test_gradient_costs_three_minus_one_over_depth() -> None:
    # d layers: d forward products; backward d weight gradients and d - 1 input gradients
    # (the first layer's input is data), so a gradient costs (3d - 1) / d forward passes.
    from fractions import Fraction

    page = run_region(SNIPPET, "quiet-start", "flops", "flops-deep", quiet=True)
    assert page["costs"]["the gradient"] // page["one_forward"] == 2  # one layer: d = 1
    for depth in range(1, 7):
        weights, gradient_cost, hvp_cost = page["work"](depth)
        assert weights == depth * page["n"] ** 2
        assert gradient_cost == Fraction(3 * depth - 1, depth)
        assert 2 <= hvp_cost < 3  # an HVP: two to three gradients


# Curvature: the regions of "What it costs" and the Gauss-Newton product, run once.
@cache
def costs_page() -> Session:
    return run_region(
        "deeper/gradients_of_gradients",
        "quiet-start",
        "flops",
        "flops-deep",
        "saved-by-depth",
        "hessian-compositions",
        "hvp-forward-over-reverse",
    )


@pytest.mark.claim(
    "docs/deeper/gradients-of-gradients.md",
    "its memory is ${10240\\,d}$ bytes for $d$ layers, and keeps growing with $d$",
)
def test_saved_memory_grows_with_the_layers() -> None:
    # Each layer saves 3 tensors: its input (the data X for the first, the previous tanh
    # output after), its weight (not for the first: X needs no gradient) and its tanh
    # output. The weights and X exist anyway; what is extra is one tanh output (rows x n)
    # per layer, 4 bytes a float: 4 rows n d, 10240 d for 64 rows and n = 40. The edges:
    # one layer, a batch of one row, an odd batch.
    page = costs_page()
    n, data = page["n"], page["X"]
    try:
        for rows in (data.shape[0], 1, 7):
            page["X"] = torch.randn(rows, n)  # the page's functions read X from the session
            for depth in range(1, 7):
                count, size = page["saved_by_forward"](depth)
                assert count == 3 * depth
                assert size == 4 * rows * n * depth
    finally:
        page["X"] = data


def test_hvp_by_forward_over_reverse_is_three_gradients() -> None:
    # A gradient: 3d - 1 products; the JVP of the gradient: each product AB also needs
    # Ȧ B + A Ḃ, so 3 (3d - 1); the double backward: 9d - 5, 2 fewer.
    page = costs_page()
    for depth in range(1, 6):
        gradient, forward_over_reverse, double_backward = page["hvp_work"](depth)
        assert gradient == 3 * depth - 1
        assert forward_over_reverse == 3 * (3 * depth - 1)
        assert double_backward == 9 * depth - 5


class _Products(TorchDispatchMode):
    """Every matrix product that runs, and whether one of its operands is all zeros."""

    def __init__(self) -> None:
        super().__init__()
        self.on_zeros: list[bool] = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if func.overloadpacket.__name__ in ("mm", "addmm", "bmm"):
            matrices = [a for a in args if isinstance(a, torch.Tensor) and a.dim() >= 2]
            self.on_zeros.append(any(not m.any() for m in matrices))
        return func(*args, **(kwargs or {}))


@pytest.mark.claim(
    "docs/deeper/gradients-of-gradients.md",
    "Leave those two out, and both methods do the same ${9d - 5}$ products.",
)
def test_forward_over_reverse_wastes_two_products_on_the_datas_zero_tangent() -> None:
    page = costs_page()
    for depth in range(1, 6):
        _, _, _, forward_over_reverse, double_backward = page["hvp_methods"](depth)
        counted = {}
        for name, method in (("jvp", forward_over_reverse), ("double", double_backward)):
            with warnings.catch_warnings(), _Products() as products:
                warnings.simplefilter("ignore")
                method()
            counted[name] = products.on_zeros
        # By hand: 3(3d - 1) products, 2 of them on the tangent of X, which is 0; the
        # double backward multiplies no zeros, 9d - 5 products.
        assert len(counted["jvp"]) == 3 * (3 * depth - 1)
        assert sum(counted["jvp"]) == 2
        assert len(counted["double"]) == 9 * depth - 5
        assert sum(counted["double"]) == 0


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_hessian_is_jacfwd_of_jacrev(seed: int) -> None:
    # torch.func.hessian(f) = jacfwd(jacrev(f)), bit for bit, and = jacrev(jacrev(f)).
    page = costs_page()
    w = torch.randn(page["n"], generator=torch.Generator().manual_seed(seed))
    loss = page["loss"]
    H = torch.func.hessian(loss)(w)
    assert torch.equal(H, torch.func.jacfwd(torch.func.jacrev(loss))(w))
    torch.testing.assert_close(torch.func.jacrev(torch.func.jacrev(loss))(w), H)


GAUSS_NEWTON = run_region("deeper/gradients_of_gradients", "quiet-start", "gauss-newton")
HESSIAN_FREE = run_region("deeper/gradients_of_gradients", "hessian-free", inputs=GAUSS_NEWTON)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_gauss_newton_product_by_hand(seed: int) -> None:
    # H_loss of the mean cross-entropy in the logits: block-diagonal, one block
    # (diag(p) - p pᵀ) / N per example, also the Fisher matrix sum_y p_y (e_y - p)(e_y - p)ᵀ / N;
    # G = Jᵀ H_loss J and vᵀ G v = (Jv)ᵀ H_loss (Jv) >= 0.
    page = GAUSS_NEWTON
    generator = torch.Generator().manual_seed(seed)
    w, v = torch.randn(2, 24, generator=generator, dtype=torch.float64)
    u = torch.randn(8, 3, generator=generator, dtype=torch.float64)
    page["points"] = page["points"].double()
    try:
        z = page["logits_of"](w)
        p = torch.softmax(z, dim=1)
        blocks = [(torch.diag(row) - torch.outer(row, row)) / 8 for row in p]
        eye = torch.eye(3, dtype=torch.float64)
        for row, block in zip(p, blocks, strict=True):
            fisher = sum(row[y] * torch.outer(eye[y] - row, eye[y] - row) for y in range(3))
            torch.testing.assert_close(fisher / 8, block)
        H_loss = torch.block_diag(*blocks)
        torch.testing.assert_close(
            torch.func.hessian(page["loss_of_logits"])(z).reshape(24, 24), H_loss
        )
        hand = (H_loss @ u.reshape(24)).reshape(8, 3)
        torch.testing.assert_close(page["loss_hessian_product"](z, u), hand)
        J = torch.func.jacrev(page["logits_of"])(w).reshape(24, 24)
        gv = page["ggn_product"](w, v)
        torch.testing.assert_close(gv, J.T @ H_loss @ J @ v)
        assert v @ gv >= -1e-12
    finally:
        page["points"] = page["points"].float()


def test_retain_graph_defaults_to_create_graph() -> None:
    # grad(..., create_graph=True) keeps the graph, so y.backward() then gives 3x² = 12.
    page = run_region("deeper/gradients_of_gradients", "retain-default", inputs={"torch": torch})
    assert page["x"].grad.item() == 3 * 2.0**2


# --- x³ and its derivatives, at other points ---------------------------------------------

CUBE_POINTS = [2.0, 0.0, -0.0, -1.5, 3.0, 1e10, -1e-20]


@pytest.mark.claim(
    "docs/deeper/gradients-of-gradients.md",
    "The fourth derivative of $x^3$ is 0 everywhere. Autograd agrees, and returns it as a "
    "plain zero: even with `create_graph=True` it has no graph and does not require grad.",
)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("value", CUBE_POINTS)
def test_the_fourth_derivative_of_x_cubed_is_a_plain_zero(value: float, dtype: torch.dtype) -> None:
    x = torch.tensor(value, dtype=dtype, requires_grad=True)
    page = run_region(
        "deeper/gradients_of_gradients",
        "x-cubed-maths",
        "fourth-maths",
        inputs={"torch": torch, "x": x},
    )
    # By hand: 3x², 6x, 6, then 0; the first three with a graph, the fourth without.
    assert page["third"].item() == 6.0 and page["third"].requires_grad
    assert page["fourth"].item() == 0.0
    assert not page["fourth"].requires_grad and page["fourth"].grad_fn is None


@pytest.mark.claim(
    "docs/deeper/gradients-of-gradients.md",
    "Written as `x * x * x`, the same function takes other formulas, and there the *third* "
    "derivative already comes without a graph",
)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("value", CUBE_POINTS)
def test_written_as_a_product_the_third_derivative_has_no_graph(
    value: float, dtype: torch.dtype
) -> None:
    x = torch.tensor(value, dtype=dtype, requires_grad=True)
    page = run_region(
        "deeper/gradients_of_gradients", "product-maths", inputs={"torch": torch, "x": x}
    )
    lines = page.output.splitlines()
    assert [line.endswith("requires grad: True") for line in lines] == [True, True, False]
    assert page["d"].item() == 6.0


WARN_SCRIPT = """
import torch

for _ in range(3):  # three times: warned once
    x = torch.tensor(2.0, requires_grad=True)
    (x**3).backward(create_graph=True)
torch.set_warn_always(True)
for _ in range(2):  # twice more: warned each time
    x = torch.tensor(2.0, requires_grad=True)
    (x**3).backward(create_graph=True)
"""


@pytest.mark.claim(
    "docs/deeper/gradients-of-gradients.md",
    "(PyTorch gives that warning once per process; `torch.set_warn_always(True)` makes it "
    "appear here every time the page is built.)",
)
def test_the_reference_cycle_warning_comes_once_per_process() -> None:
    # Python's own filter set to "always", so that any once is PyTorch's.
    ran = subprocess.run(
        [sys.executable, "-W", "always", "-c", WARN_SCRIPT],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    assert ran.stderr.count("will create a reference cycle") == 1 + 2, ran.stderr


# --- Pearlmutter's R-operator, the memory of the HVPs, power iteration -------------------

PAGE_MD = "docs/deeper/gradients-of-gradients.md"


@cache
def curvature_page() -> Session:
    return run_region(
        "deeper/gradients_of_gradients",
        "quiet-start",
        "flops",
        "flops-deep",
        "hessian-compositions",
        "hvp-forward-over-reverse",
        "r-operator",
        "hvp-memory",
        "power-iteration",
    )


@contextlib.contextmanager
def _page_data(page: Session, X: torch.Tensor, target: torch.Tensor):
    """The page's functions read X and target from its session: swap them for a while."""
    saved = page["X"], page["target"]
    page["X"], page["target"] = X, target
    try:
        yield
    finally:
        page["X"], page["target"] = saved


@pytest.mark.claim(
    PAGE_MD,
    "Written by hand, the R-pass gives the gradient and $Hv$ together, equal to "
    "`jvp(grad(loss))`, to the double backward and to $H$ times $v$.",
)
@settings(max_examples=30, deadline=None)
@given(
    st.integers(1, 9),  # rows of X, one row included
    st.integers(1, 6),  # weights
    st.integers(0, 2**31 - 1),
    st.sampled_from(["random", "zero direction", "zero weights"]),
    st.sampled_from([torch.float64, torch.float32]),
)
def test_r_pass_by_hand_is_the_hessian_times_v(
    rows: int, n: int, seed: int, case: str, dtype: torch.dtype
) -> None:
    page = curvature_page()
    gen = torch.Generator().manual_seed(seed)
    X, target = (torch.randn(rows, k, generator=gen, dtype=dtype) for k in (n, 1))
    w, v = (torch.randn(n, generator=gen, dtype=dtype) for _ in range(2))
    if case == "zero direction":
        v = torch.zeros_like(v)
    if case == "zero weights":
        w = torch.zeros_like(w)
    tol = {"rtol": 1e-4, "atol": 1e-5} if dtype == torch.float32 else {}
    with _page_data(page, X, target):
        g, hv = page["hvp_by_r_operator"](w, v)
        # By hand: y = tanh(Xw), r = y - t, s = 1 - y²; g = (2/N) Xᵀ (r s) and
        # H = (2/N) Xᵀ diag(s² + r ds/dz) X with ds/dz = -2 y s.
        y = torch.tanh(X @ w)
        r, s = y - target.squeeze(1), 1 - y**2
        H = 2 / rows * X.T @ torch.diag(s**2 - 2 * r * y * s) @ X
        torch.testing.assert_close(g, 2 / rows * X.T @ (r * s), **tol)
        torch.testing.assert_close(hv, H @ v, **tol)
        loss = page["loss"]
        _, by_jvp = torch.func.jvp(torch.func.grad(loss), (w,), (v,))
        torch.testing.assert_close(hv, by_jvp, **tol)
        leaf = w.clone().requires_grad_()
        first = torch.autograd.grad(loss(leaf), leaf, create_graph=True)[0]
        torch.testing.assert_close(hv, torch.autograd.grad(first @ v, leaf)[0], **tol)


@pytest.mark.claim(
    PAGE_MD,
    "It adds two matrix products to the gradient's two, $Xv$ and "
    "$X^{\\top}\\mathcal{R}\\{\\bar z\\}$: 4 forward passes of work",
)
@pytest.mark.parametrize(("rows", "n"), [(64, 40), (1, 1), (7, 3), (3, 50)])
def test_the_r_pass_costs_four_forward_passes(rows: int, n: int) -> None:
    page = curvature_page()
    X, target = torch.randn(rows, n), torch.randn(rows, 1)
    w, v = torch.randn(n), torch.randn(n)
    with _page_data(page, X, target):
        one_forward = page["flops"](page["loss"], w)
        assert one_forward == 2 * rows * n  # one product X w
        assert page["flops"](page["gradient"], w) == 2 * one_forward
        assert page["flops"](page["hvp_by_r_operator"], w, v) == 4 * one_forward


def _hvp_peaks(page: Session, depth: int) -> list[int]:
    """The page's peak_bytes of the gradient, the double backward, torch.func's jvp(grad)
    and the dual-number HVP, on the page's network(depth)."""
    net_loss, params, gradient_of, forward_over_reverse, double_backward = page["hvp_methods"](
        depth
    )
    directions = {name: torch.randn_like(p) for name, p in params.items()}

    def on_dual_numbers():
        return page["dual_numbers_hvp"](net_loss, params, directions)

    methods = (gradient_of, double_backward, forward_over_reverse, on_dual_numbers)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [page["peak_bytes"](method) for method in methods]


@pytest.mark.claim(
    PAGE_MD,
    "Every column grows by the same number of bytes for each layer, so the memory of every "
    "HVP grows with the depth, as the gradient's does.",
)
@pytest.mark.claim(
    PAGE_MD,
    "Forward over reverse saves no memory here: at every depth it peaks higher than the "
    "double backward. On dual numbers it adds as much per layer as the double backward, and "
    "`torch.func` adds 10.25 activations.",
)
@pytest.mark.parametrize("rows", [64, 1, 7])
def test_hvp_peaks_grow_by_a_fixed_amount_per_layer(rows: int) -> None:
    page = curvature_page()
    data = torch.randn(rows, page["n"], generator=torch.Generator().manual_seed(rows))
    with _page_data(page, data, page["target"]):
        peaks = [_hvp_peaks(page, depth) for depth in range(1, 7)]
    per_layer = [
        tuple(b - a for a, b in zip(p, q, strict=True)) for p, q in itertools.pairwise(peaks)
    ]
    # On the page's 64 rows, from one layer on; with a batch so small that the weights
    # outweigh the activations (1 or 7 rows), the double backward's peak at one layer is
    # set elsewhere, and the steps are equal from two layers on.
    steps = set(per_layer if rows == 64 else per_layer[1:])
    assert len(steps) == 1, peaks  # the same bytes per layer, for every method
    (gradient, double, func, dual) = steps.pop()
    assert 0 < gradient < double  # all grow; the double backward more than the gradient
    assert dual < func and double < func
    for _, double_peak, func_peak, dual_peak in peaks:
        assert func_peak > double_peak and dual_peak > double_peak  # never lower
    if rows == 64:  # the page's numbers: one 64 x 40 float32 activation is 10240 bytes
        assert dual == double
        assert [step / 10240 for step in (gradient, double, func, dual)] == [1, 4.25, 10.25, 4.25]


@pytest.mark.claim(
    PAGE_MD,
    "Put GELU in place of tanh in the same stacks, and the dual numbers add less per layer "
    "than the double backward and peak lower from 3 layers on; `torch.func` still peaks higher.",
)
@pytest.mark.claim(PAGE_MD, "With other layers (GELU) it can peak lower, so measure.")
def test_with_gelu_layers_the_dual_numbers_peak_lower() -> None:
    page = curvature_page()
    n = page["n"]

    def gelu_network(depth: int) -> torch.nn.Sequential:
        """The page's stacks (n x n weights, no bias, the same seed), GELU for tanh."""
        torch.manual_seed(0)
        layers: list[torch.nn.Module] = []
        for _ in range(depth):
            layers += [torch.nn.Linear(n, n, bias=False), torch.nn.GELU()]
        return torch.nn.Sequential(*layers)

    saved = page["network"]
    page["network"] = gelu_network  # hvp_methods builds its net with the session's network
    try:
        depths = [1, 2, 3, 4, 5, 8]
        peaks = {depth: _hvp_peaks(page, depth) for depth in depths}
    finally:
        page["network"] = saved
    for depth, (_, double, func, dual) in peaks.items():
        assert func > double, (depth, peaks)  # torch.func: higher at every depth
        assert (dual < double) == (depth >= 3), (depth, peaks)  # lower from 3 layers on
    per_layer = [(peaks[8][k] - peaks[4][k]) / 4 for k in range(4)]
    assert per_layer[3] < per_layer[1], per_layer  # dual numbers add less than the double


@pytest.mark.claim(
    PAGE_MD,
    "the reverse pass inside it still needs the tensors the forward pass saved, and on dual "
    "numbers the forward pass saves more: every saved activation with its tangent, and what "
    "autograd records of the tangents' own computation.",
)
@pytest.mark.parametrize("depth", [1, 2, 4])
def test_on_dual_numbers_the_forward_pass_saves_tangents_and_their_graph(depth: int) -> None:
    import torch.autograd.forward_ad as fwAD
    from torch.autograd.graph import saved_tensors_hooks

    page = curvature_page()
    net_loss, params, *_ = page["hvp_methods"](depth)
    directions = {name: torch.randn_like(p) for name, p in params.items()}

    def saved_while(run):
        saved: list[torch.Tensor] = []
        with saved_tensors_hooks(lambda t: saved.append(t) or t, lambda t: t):
            out = run()
        return saved, out

    plain, _ = saved_while(lambda: net_loss(params))
    held_anyway = [*params.values(), page["X"]]
    activations = [t for t in plain if not any(t is h or torch.equal(t, h) for h in held_anyway)]
    assert len(activations) >= depth  # each layer's tanh output, at least
    with fwAD.dual_level():
        duals = {name: fwAD.make_dual(p, directions[name]) for name, p in params.items()}
        dual, loss = saved_while(lambda: net_loss(duals))
        with_tangent = [fwAD.unpack_dual(t) for t in dual]
        # Every activation the plain forward pass saves is saved again, with a tangent of
        # its own shape.
        for activation in activations:
            assert any(
                pair.tangent is not None
                and pair.tangent.shape == activation.shape
                and torch.equal(pair.primal, activation)
                for pair in with_tangent
            )
        # The tangent of the loss has a graph: autograd recorded the tangents' computation.
        assert fwAD.unpack_dual(loss).tangent.grad_fn is not None
    assert sum(t.numel() for t in dual) > sum(t.numel() for t in plain)


def _symmetric(eigenvalues: list[float], seed: int) -> torch.Tensor:
    """Q diag(eigenvalues) Qᵀ with a random orthogonal Q, in float32 as the page's HVPs."""
    n = len(eigenvalues)
    gen = torch.Generator().manual_seed(seed)
    Q, _ = torch.linalg.qr(torch.randn(n, n, generator=gen, dtype=torch.float64))
    return (Q @ torch.diag(torch.tensor(eigenvalues, dtype=torch.float64)) @ Q.T).float()


@pytest.mark.claim(
    PAGE_MD,
    "The power method finds the eigenvalue of largest *size*",
)
@settings(max_examples=25, deadline=None)
@given(
    st.integers(0, 2**31 - 1),
    st.sampled_from([1.0, -1.0]),  # the eigenvalue of largest size is positive or negative
    st.integers(2, 12),
)
def test_power_iteration_finds_the_eigenvalue_of_largest_size(
    seed: int, sign: float, n: int
) -> None:
    page = curvature_page()
    # The eigenvalue of largest size, 2 or -2; all others at most 1.2 in size, of both signs.
    others = torch.linspace(-1.2, 1.2, n - 1).tolist()
    A = _symmetric([2.0 * sign, *others], seed)
    estimates = page["largest_eigenvalue"](lambda v: A @ v, n, steps=120)
    assert estimates[-1] == pytest.approx(2.0 * sign, rel=1e-4)


@pytest.mark.claim(
    PAGE_MD,
    "(To find that one, run the method again on $H - \\lambda_{\\max} I$.)",
)
@pytest.mark.parametrize(
    "eigenvalues",
    [[2.0, 1.0, 0.3, -1.5], [1.0, 0.5, -0.2, -0.4, -3.0], [0.5, 0.4, 0.1], [-1.0, -2.0, -4.0]],
)
def test_power_iteration_on_the_shifted_matrix_finds_the_smallest(eigenvalues: list[float]) -> None:
    # H - lambda_max I has eigenvalues lambda_i - lambda_max <= 0; the largest in size is
    # lambda_min - lambda_max, so adding lambda_max back gives lambda_min. The edges: a
    # smallest that is larger in size than the largest, all positive, all negative.
    page = curvature_page()
    n = len(eigenvalues)
    A = _symmetric(eigenvalues, seed=n)
    top = page["largest_eigenvalue"](lambda v: A @ v, n, steps=200)[-1]
    shifted = page["largest_eigenvalue"](lambda v: A @ v - top * v, n, steps=200)[-1]
    assert top == pytest.approx(max(eigenvalues, key=abs), rel=1e-4)
    if top == pytest.approx(max(eigenvalues), rel=1e-4):
        lambda_max = top
    else:
        # The first run found lambda_min (the largest in size); the same shift by it finds
        # the other end, lambda_max - lambda_min. Then the page's recipe, shifted by lambda_max.
        lambda_max = shifted + top
        assert lambda_max == pytest.approx(max(eigenvalues), abs=1e-4)
        shifted = page["largest_eigenvalue"](lambda v: A @ v - lambda_max * v, n, steps=200)[-1]
    assert shifted + lambda_max == pytest.approx(min(eigenvalues), abs=1e-4)


@pytest.mark.claim(PAGE_MD, "when one eigenvalue alone has that size")
@pytest.mark.claim(
    PAGE_MD,
    "A tie in size defeats it: with eigenvalues 2 and $-2$, $v$ swings between two directions, "
    "and $v^{\\top} H v$ settles on a value that is neither.",
)
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("others", [[], [1.0], [0.5, -1.5]])
def test_a_tie_in_size_defeats_the_power_method(seed: int, others: list[float]) -> None:
    # With v = a u1 + b u2 (+ parts that die out), H v = 2 a u1 - 2 b u2 and H^2 v = 4 v:
    # v alternates between two directions, and v^T H v = 2 (a^2 - b^2) / (a^2 + b^2) at both,
    # strictly between -2 and 2 when neither a nor b is 0.
    page = curvature_page()
    n = 2 + len(others)
    A = _symmetric([2.0, -2.0, *others], seed=seed)
    vectors: list[torch.Tensor] = []

    def hvp(v: torch.Tensor) -> torch.Tensor:
        vectors.append(v)
        return A @ v

    estimates = page["largest_eigenvalue"](hvp, n, steps=300)
    assert estimates[-1] == pytest.approx(estimates[-2], abs=1e-4)  # it settles
    eigenvalues, eigenvectors = torch.linalg.eigh(A.double())
    start = vectors[0].double()
    a = start @ eigenvectors[:, eigenvalues.argmax()]  # along the eigenvalue 2
    b = start @ eigenvectors[:, eigenvalues.argmin()]  # along the eigenvalue -2
    by_hand = (2 * (a**2 - b**2) / (a**2 + b**2)).item()
    assert estimates[-1] == pytest.approx(by_hand, abs=1e-3)
    assert abs(estimates[-1]) < 2.0 - 1e-3  # on neither 2 nor -2
    a, b = vectors[-1], vectors[-2]  # the last two directions: not one direction, v or -v
    assert min((a - b).norm(), (a + b).norm()) > 1e-2
    assert torch.allclose(vectors[-1], vectors[-3], atol=1e-4)  # it swings between two


@pytest.mark.claim(
    PAGE_MD,
    "the error of the Rayleigh quotient shrinks by about $(\\lambda_2 / \\lambda_1)^2$ per step",
)
@pytest.mark.parametrize(("largest", "second"), [(2.0, 1.5), (2.0, 1.0), (1.0, -0.8)])
def test_the_rayleigh_quotient_converges_at_the_squared_ratio(
    largest: float, second: float
) -> None:
    page = curvature_page()
    starts: list[torch.Tensor] = []
    page["largest_eigenvalue"](lambda v: starts.append(v.double()) or v, 4, steps=1)
    # Eigenvectors with the top one well inside the page's start vector, so that the
    # asymptotic rate shows within a few steps.
    gen = torch.Generator().manual_seed(1)
    basis = torch.randn(4, 4, generator=gen, dtype=torch.float64)
    basis[:, 0] = starts[0] + 0.5 * basis[:, 0]
    Q, _ = torch.linalg.qr(basis)
    A = Q @ torch.diag(torch.tensor([largest, second, 0.1, -0.1], dtype=torch.float64)) @ Q.T
    estimates = page["largest_eigenvalue"](lambda v: (A @ v.double()).float(), 4, steps=12)
    errors = [abs(largest - e) for e in estimates]
    rate = (second / largest) ** 2
    # Once the two small eigenvalues have died out, each step multiplies the error by
    # about the rate (float32 rounding stays far below the errors compared here).
    ratios = [b / a for a, b in itertools.pairwise(errors[2:10]) if b > 2e-6]
    assert len(ratios) >= 2, errors
    assert all(abs(ratio - rate) < 0.1 * rate for ratio in ratios), (ratios, rate)


@pytest.mark.claim(PAGE_MD, "CG, from products alone, finds the step that the matrix gives.")
@pytest.mark.claim(PAGE_MD, "so $G$ has rank at most ${8 \\cdot 2 = 16}$ for 24 weights")
@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**31 - 1), st.sampled_from([0.01, 0.1, 1.0, 10.0]))
def test_conjugate_gradients_on_gv_solve_the_damped_system(seed: int, damping: float) -> None:
    page = HESSIAN_FREE
    generator = torch.Generator().manual_seed(seed)
    w = torch.randn(24, generator=generator, dtype=torch.float64)
    # logits_of reads the points from the Gauss-Newton region's session.
    GAUSS_NEWTON["points"] = GAUSS_NEWTON["points"].double()
    try:
        g = torch.func.grad(page["total_loss"])(w)
        J = torch.func.jacrev(page["logits_of"])(w).reshape(24, 24)
        H_loss = torch.func.hessian(page["loss_of_logits"])(page["logits_of"](w)).reshape(24, 24)
        G = J.T @ H_loss @ J  # the matrix, built only for the test
        assert torch.linalg.matrix_rank(G, hermitian=True, rtol=1e-9) <= 16
        step = page["conjugate_gradient"](
            page["damped_ggn"](w, damping), -g, steps=60, tolerance=1e-12
        )
        exact = torch.linalg.solve(G + damping * torch.eye(24, dtype=torch.float64), -g)
        torch.testing.assert_close(step, exact, rtol=1e-7, atol=1e-9)
    finally:
        GAUSS_NEWTON["points"] = GAUSS_NEWTON["points"].float()

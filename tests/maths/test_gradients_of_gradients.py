"""docs/deeper/gradients-of-gradients.md: the page's hand formulas agree with autograd.

The code under test is the page's: named regions of snippets/deeper/gradients_of_gradients.py
run in a fresh namespace (stdout captured), and the test takes the page's functions from
it. The maths the test writes itself is the hand derivation on the page.
"""

from __future__ import annotations

import contextlib
import io
import re
import subprocess
import sys
import warnings
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch.utils._python_dispatch import TorchDispatchMode

from . import Session, run_region

SNIPPET = Path(__file__).resolve().parents[2] / "snippets" / "deeper" / "gradients_of_gradients.py"


def run_regions(*names: str) -> dict[str, Any]:
    """Run the named regions of the page's snippet, in order, in one fresh namespace."""
    text = SNIPPET.read_text(encoding="utf-8")
    namespace: dict[str, Any] = {"__name__": "page"}
    for name in names:
        match = re.search(
            rf"^# --8<-- \[start:{name}\]\n(.*?)^# --8<-- \[end:{name}\]", text, re.S | re.M
        )
        assert match, f"no region {name!r} in {SNIPPET.name}"
        with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(compile(match[1], f"{SNIPPET.name}:{name}", "exec"), namespace)
    return namespace


PAGE = run_regions("quiet-start", "tanh", "hessian", "maml")
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

    page = run_regions("quiet-start", "flops", "flops-deep")
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

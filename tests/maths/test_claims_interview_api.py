"""Claim checks for six interview pages on PyTorch's APIs at their edges.

* docs/interview/how-do-you-make-a-custom-function-work-with-vmap.md: the cube root's
  derivative 1 / (3 y²) from every rule (backward, vmap, jvp), and which transform
  refuses which missing piece.
* docs/interview/what-does-once-differentiable-do.md: SiLU' = s (1 + x (1 - s)),
  SiLU'' = s (1 - s) (2 + x (1 - 2s)), and what a second derivative through an
  @once_differentiable backward gives: an error, a dropped term, or 0.
* docs/interview/does-no-grad-turn-off-forward-mode-ad.md: tangents 2 x v of x² under
  each grad mode; x · (x²)_const has slope x² in reverse mode and 3x² in forward mode.
* docs/interview/why-does-a-view-made-under-no-grad-get-no-gradient.md: such a view
  requires grad, yet the base gets no gradient.
* docs/interview/why-dont-batch-norm-and-per-sample-gradients-mix.md: per-sample rows
  sum to the batch gradient only when each example's output depends on that example.
* docs/interview/does-autograd-give-a-subgradient-at-a-kink.md: the minimum-norm choice
  of single operations at their kinks, and what composition does to it.

Each test runs the page's own regions (snippets/interview/...) and writes only the hand
formula. The edges: x = 0 exactly, float32 and float64, a batch of one, grad mode on
and off, a gradient that itself requires grad.
"""

from __future__ import annotations

import contextlib
import math
import warnings

import numpy as np
import pytest
import torch
import torch.autograd.forward_ad as fwAD
import torch.nn.functional as F
from hypothesis import example, given, settings
from hypothesis import strategies as st
from torch import nn
from torch.autograd.gradcheck import GradcheckError
from torch.func import grad, hessian, jacfwd, jacrev, jvp, vmap

from tests.maths import run_region

warnings.filterwarnings("ignore", "`torch.jit.script` is deprecated")

VMAP_PAGE = "docs/interview/how-do-you-make-a-custom-function-work-with-vmap.md"
VMAP = "interview/how_do_you_make_a_custom_function_work_with_vmap"
ONCE_PAGE = "docs/interview/what-does-once-differentiable-do.md"
ONCE = "interview/what_does_once_differentiable_do"
FWD_PAGE = "docs/interview/does-no-grad-turn-off-forward-mode-ad.md"
FWD = "interview/does_no_grad_turn_off_forward_mode_ad"
VIEW_PAGE = "docs/interview/why-does-a-view-made-under-no-grad-get-no-gradient.md"
VIEW = "interview/why_does_a_view_made_under_no_grad_get_no_gradient"
BN_PAGE = "docs/interview/why-dont-batch-norm-and-per-sample-gradients-mix.md"
BN = "interview/why_dont_batch_norm_and_per_sample_gradients_mix"
KINK_PAGE = "docs/interview/does-autograd-give-a-subgradient-at-a-kink.md"
KINK = "interview/does_autograd_give_a_subgradient_at_a_kink"

DTYPES = [torch.float32, torch.float64]
dtypes = st.sampled_from(DTYPES)


def _tensors(elements: st.SearchStrategy[float]) -> st.SearchStrategy[list[float]]:
    """Lists of one (a batch of one) to five values."""
    return st.lists(elements, min_size=1, max_size=5)


# --- how-do-you-make-a-custom-function-work-with-vmap ----------------------------------


def _cube_roots() -> dict:
    return run_region(VMAP, "old-style", "new-style", "vmap-rule", "forward-mode-start", "jvp-rule")


def _derivative_by_hand(x: torch.Tensor) -> torch.Tensor:
    """d x^(1/3) / dx = 1 / (3 |x|^(2/3)), in float64 (inf at 0)."""
    return 1 / (3 * x.double().abs() ** (2 / 3))


cube_root_points = st.one_of(
    st.just(0.0),
    st.sampled_from([-8.0, 1.0, 27.0, -1.0]),
    st.floats(-1e4, 1e4, allow_subnormal=False, width=32).filter(lambda v: abs(v) > 1e-30),
)


@pytest.mark.claim(VMAP_PAGE, "`x ** (1/3)` is NaN for a negative $x$")
@settings(max_examples=30, deadline=None)
@given(
    _tensors(st.floats(-1e6, -1e-30).map(lambda v: float(np.float32(v))).filter(lambda v: v < 0)),
    dtypes,
)
def test_the_power_one_third_is_nan_for_negative_x(values: list[float], dtype) -> None:
    assert not hasattr(torch, "cbrt")
    assert "x ** (1/3):         tensor([nan, 1., 3.])" in _cube_roots().output  # at -8, 1, 27
    x = torch.tensor(values, dtype=dtype)
    assert torch.isnan(x ** (1 / 3)).all()


@pytest.mark.claim(
    VMAP_PAGE,
    "`vmap(grad(...))` gives each entry's derivative, $\\frac{1}{3y^2}$, the same as the "
    "`backward()` of the first block.",
)
@settings(max_examples=40, deadline=None)
@given(_tensors(cube_root_points), dtypes)
def test_every_rule_gives_one_over_three_y_squared(values: list[float], dtype) -> None:
    page = _cube_roots()
    x = torch.tensor(values, dtype=dtype)
    by_hand = _derivative_by_hand(x).to(dtype)
    per_entry = vmap(grad(page["BatchedCbrt"].apply))(x)
    leaf = x.clone().requires_grad_()
    page["OldCbrt"].apply(leaf).sum().backward()
    torch.testing.assert_close(per_entry, by_hand, equal_nan=False)
    torch.testing.assert_close(leaf.grad, per_entry, rtol=0, atol=0)
    # The batch dimension may sit anywhere: the rule returns it where it found it.
    grid = torch.stack([x, -x])  # (2, n): vmap over the columns
    columns = vmap(page["BatchedCbrt"].apply, in_dims=1)(grid)
    torch.testing.assert_close(columns, page["Cbrt"].apply(grid).T, rtol=0, atol=0)


@pytest.mark.claim(
    VMAP_PAGE,
    "The transforms of `torch.func` (`grad`, `vmap`, `jvp` and the functions built on them) "
    "refuse this class",
)
@pytest.mark.parametrize("grad_mode", [True, False])
def test_every_transform_refuses_the_old_style(grad_mode: bool) -> None:
    page = _cube_roots()
    f, x = page["OldCbrt"].apply, page["points"]
    calls = [
        lambda: grad(f)(x[0]),
        lambda: vmap(f)(x),
        lambda: jvp(f, (x,), (torch.ones(3),)),
        lambda: jacrev(f)(x),
        lambda: jacfwd(f)(x),
    ]
    with torch.set_grad_enabled(grad_mode):
        for call in calls:
            with pytest.raises(RuntimeError, match="must override the setup_context"):
                call()


@pytest.mark.claim(
    VMAP_PAGE, "With $\\dot x = 1$ for every entry, $\\dot y$ is the derivative itself"
)
@settings(max_examples=30, deadline=None)
@given(_tensors(cube_root_points), dtypes)
def test_the_tangent_of_a_unit_step_is_the_derivative(values: list[float], dtype) -> None:
    page = _cube_roots()
    x = torch.tensor(values, dtype=dtype)
    _, y_dot = jvp(page["FullCbrt"].apply, (x,), (torch.ones_like(x),))
    torch.testing.assert_close(y_dot, _derivative_by_hand(x).to(dtype))
    torch.testing.assert_close(y_dot, vmap(grad(page["FullCbrt"].apply))(x), rtol=0, atol=0)


@pytest.mark.claim(VMAP_PAGE, "`jacfwd` is `vmap` of `jvp`, so it needs both rules")
def test_jacfwd_needs_both_rules_and_gives_a_diagonal() -> None:
    page = _cube_roots()
    x = torch.tensor([-8.0, 0.5, 27.0, 2.0], dtype=torch.float64)
    jacobian = jacfwd(page["FullCbrt"].apply)(x)
    torch.testing.assert_close(jacobian, torch.diag(_derivative_by_hand(x)))
    assert (jacobian - torch.diag(torch.diagonal(jacobian)) == 0).all()

    class JvpOnly(page["Cbrt"]):  # a jvp rule, no vmap rule
        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_forward(output)

        @staticmethod
        def jvp(ctx, x_dot):
            (y,) = ctx.saved_tensors
            return x_dot / (3 * y**2)

    assert jvp(JvpOnly.apply, (x,), (torch.ones_like(x),))[1].shape == x.shape
    with pytest.raises(RuntimeError, match="does not have vmap support"):
        jacfwd(JvpOnly.apply)(x)
    with pytest.raises(NotImplementedError, match="must implement the jvp function"):
        jacfwd(page["BatchedCbrt"].apply)(x)  # a vmap rule, no jvp rule


@pytest.mark.claim(
    VMAP_PAGE,
    "`vmap`, and what is built on it (`jacfwd`, per-sample gradients; not `jacrev`, which "
    "batches only the backward pass)",
)
def test_jacfwd_and_per_sample_gradients_need_a_vmap_rule() -> None:
    page = _cube_roots()
    x = page["points"]
    with pytest.raises(RuntimeError, match="does not have vmap support"):
        vmap(page["Cbrt"].apply)(x)
    with pytest.raises(RuntimeError, match="does not have vmap support"):
        vmap(grad(lambda w, e: page["Cbrt"].apply(w * e).sum()), in_dims=(None, 0))(
            x, torch.ones(2, 3)
        )
    # jacrev runs forward once and batches the backward pass only: no rule needed.
    for cube_root in (page["Cbrt"], page["BatchedCbrt"]):
        torch.testing.assert_close(
            jacrev(cube_root.apply)(x), torch.diag(_derivative_by_hand(x).float())
        )


@pytest.mark.claim(VMAP_PAGE, "| `jvp`, `jacfwd`, `hessian` |")
def test_forward_mode_transforms_need_a_jvp_rule() -> None:
    page = _cube_roots()
    x = page["points"]
    for call in (
        lambda: jvp(page["BatchedCbrt"].apply, (x,), (torch.ones(3),)),
        lambda: jacfwd(page["BatchedCbrt"].apply)(x),
        lambda: hessian(lambda t: page["BatchedCbrt"].apply(t).sum())(x),
    ):
        with pytest.raises(NotImplementedError, match="must implement the jvp function"):
            call()
    # With the rule, the Hessian's diagonal is d²/dx² x^(1/3) = -2 / (9 x^(5/3)).
    h = hessian(lambda t: page["FullCbrt"].apply(t).sum())(x.double())
    cbrt = torch.sign(x.double()) * x.double().abs() ** (1 / 3)
    torch.testing.assert_close(torch.diagonal(h), -2 / (9 * cbrt**5))


@pytest.mark.claim(VMAP_PAGE, "a `backward` written with NumPy fails even under a single `grad`")
def test_a_numpy_backward_fails_under_grad() -> None:
    page = _cube_roots()

    class NumpyBackward(page["Cbrt"]):
        @staticmethod
        def backward(ctx, grad_y):
            (y,) = ctx.saved_tensors
            return torch.as_tensor(grad_y.numpy() / (3 * y.numpy() ** 2))

    leaf = torch.tensor([8.0], requires_grad=True)
    NumpyBackward.apply(leaf).sum().backward()  # plain backward() is fine
    torch.testing.assert_close(leaf.grad, torch.tensor([1 / 12]))
    with pytest.raises(RuntimeError):
        grad(NumpyBackward.apply)(torch.tensor(8.0))


def _custom_op() -> dict:
    return run_region(
        VMAP, "old-style", "new-style", "vmap-rule", "forward-mode-start", "jvp-rule", "custom-op"
    )


@pytest.mark.claim(VMAP_PAGE, "`backward()` and `vmap` work.")
@settings(max_examples=30, deadline=None)
@given(_tensors(cube_root_points.filter(lambda v: v != 0)), dtypes)
def test_the_custom_op_works_with_backward_and_vmap(values: list[float], dtype) -> None:
    cbrt = _custom_op()["cbrt"]
    x = torch.tensor(values, dtype=dtype)
    leaf = x.clone().requires_grad_()
    cbrt(leaf).sum().backward()
    torch.testing.assert_close(leaf.grad, _derivative_by_hand(x).to(dtype))  # 1 / (3 y^2)
    by_hand = torch.sign(x.double()) * x.double().abs() ** (1 / 3)
    torch.testing.assert_close(vmap(cbrt)(x), by_hand.to(dtype))
    grid = torch.stack([x, -x])  # the batch along dimension 1
    torch.testing.assert_close(vmap(cbrt, in_dims=1)(grid), cbrt(grid).T, rtol=0, atol=0)


@pytest.mark.claim(
    VMAP_PAGE,
    "Forward mode has no rule to register here, and the last line shows what happens: `jvp` "
    "does not refuse, it returns a tangent of 0, a wrong derivative without a warning",
)
@pytest.mark.claim(VMAP_PAGE, "`jacfwd`, built on `jvp`, returns a Jacobian of zeros the same way")
@settings(max_examples=20, deadline=None)
@given(_tensors(cube_root_points.filter(lambda v: v != 0)), dtypes)
def test_the_custom_op_gets_a_zero_tangent(values: list[float], dtype) -> None:
    page = _custom_op()
    registers = [name for name in dir(page["cbrt"]) if name.startswith("register")]
    assert "register_autograd" in registers and "register_vmap" in registers
    assert not [name for name in registers if "jvp" in name or "forward" in name]
    assert page.output.splitlines()[-1].endswith("tensor([0., 0., 0.])")
    x = torch.tensor(values, dtype=dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "without a warning"
        _, tangent = jvp(page["cbrt"], (x,), (torch.ones_like(x),))
        jacobian = jacfwd(page["cbrt"])(x)
    assert tangent.eq(0).all() and jacobian.eq(0).all()
    assert _derivative_by_hand(x).ne(0).all()  # the right tangent, 1 / (3 y^2), is not 0


@pytest.mark.claim(
    VMAP_PAGE, "on PyTorch 2.13.0 and 2.15.0 the other transforms refuse the operator"
)
@pytest.mark.parametrize("grad_mode", [True, False])
def test_the_custom_op_is_refused_by_reverse_mode_transforms(grad_mode: bool) -> None:
    page = _custom_op()
    cbrt, x = page["cbrt"], page["points"]
    calls = [
        lambda: grad(cbrt)(x[0]),
        lambda: vmap(grad(cbrt))(x),
        lambda: jacrev(cbrt)(x),
        lambda: hessian(lambda t: cbrt(t).sum())(x),
    ]
    with torch.set_grad_enabled(grad_mode):
        for call in calls:
            with pytest.raises(RuntimeError, match="must override the setup_context"):
                call()


# --- what-does-once-differentiable-do ---------------------------------------------------


def _silu_first(x: torch.Tensor) -> torch.Tensor:
    s = torch.sigmoid(x)
    return s * (1 + x * (1 - s))  # SiLU'(x)


def _silu_second(x: torch.Tensor) -> torch.Tensor:
    s = torch.sigmoid(x)
    return s * (1 - s) * (2 + x * (1 - 2 * s))  # SiLU''(x)


silu_points = _tensors(st.one_of(st.just(0.0), st.floats(-6, 6)))


def _once() -> dict:
    return run_region(ONCE, "functions")


@pytest.mark.claim(ONCE_PAGE, "The first derivative is the same for both classes")
@settings(max_examples=30, deadline=None)
@given(silu_points, dtypes, st.booleans())
def test_the_first_derivative_is_the_same(values: list[float], dtype, create_graph) -> None:
    page = _once()
    x = torch.tensor(values, dtype=dtype, requires_grad=True)
    firsts = [
        torch.autograd.grad(f.apply(x).sum(), x, create_graph=create_graph)[0]
        for f in (page["SiLU"], page["OnceSiLU"])
    ]
    torch.testing.assert_close(firsts[0].detach(), firsts[1].detach(), rtol=0, atol=0)
    torch.testing.assert_close(firsts[1], _silu_first(x.detach()))


@pytest.mark.claim(
    ONCE_PAGE,
    "With `create_graph=True`, `SiLU`'s first derivative requires grad; `OnceSiLU`'s does not.",
)
@pytest.mark.parametrize("dtype", DTYPES)
def test_only_the_differentiable_first_derivative_requires_grad(dtype) -> None:
    page = _once()
    x = torch.tensor([0.0, -1.5, 3.0], dtype=dtype, requires_grad=True)
    (first,) = torch.autograd.grad(page["SiLU"].apply(x).sum(), x, create_graph=True)
    (once,) = torch.autograd.grad(page["OnceSiLU"].apply(x).sum(), x, create_graph=True)
    assert first.requires_grad and not once.requires_grad
    with pytest.raises(RuntimeError, match="does not require grad"):
        torch.autograd.grad(once.sum(), x)


@pytest.mark.claim(
    ONCE_PAGE,
    "the second derivative is computed without the custom function's term, with no "
    "message: 2 where the right answer is $\\mathrm{SiLU}''(x) + 2$",
)
@settings(max_examples=30, deadline=None)
@given(silu_points, dtypes)
def test_a_constant_arriving_gradient_drops_the_term(values: list[float], dtype) -> None:
    page = _once()
    x = torch.tensor(values, dtype=dtype, requires_grad=True)
    second = {}
    for f in (page["SiLU"], page["OnceSiLU"]):
        (first,) = torch.autograd.grad((f.apply(x) + x**2).sum(), x, create_graph=True)
        (second[f.__name__],) = torch.autograd.grad(first.sum(), x)
    torch.testing.assert_close(second["OnceSiLU"], torch.full_like(x, 2.0), rtol=0, atol=0)
    torch.testing.assert_close(second["SiLU"], _silu_second(x.detach()) + 2)


def _arriving_gradient_requires_grad(page: dict, x: torch.Tensor, how: str) -> torch.Tensor:
    """A first derivative through OnceSiLU whose arriving gradient requires grad."""
    y = page["OnceSiLU"].apply(x)
    if how == "nonlinear loss":
        loss = (0.5 * (y - 1) ** 2).sum()
    else:  # a weight after the function
        loss = (torch.linspace(0.5, 2.0, x.numel(), dtype=x.dtype).requires_grad_() * y).sum()
    return torch.autograd.grad(loss, x, create_graph=True)[0]


@pytest.mark.claim(
    ONCE_PAGE,
    "it passes the result through a node called `Error`, so that the first derivative does "
    "require grad",
)
@pytest.mark.parametrize("how", ["nonlinear loss", "a weight after it"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_an_arriving_gradient_that_requires_grad_gives_an_error_node(how, dtype) -> None:
    page = _once()
    x = torch.tensor([0.0, 1.0, -2.0], dtype=dtype, requires_grad=True)
    first = _arriving_gradient_requires_grad(page, x, how)
    assert first.requires_grad and type(first.grad_fn).__name__ == "Error"


@pytest.mark.claim(
    ONCE_PAGE, "`.backward()` runs every node it can reach, so it runs this one and raises"
)
@pytest.mark.parametrize("how", ["nonlinear loss", "a weight after it"])
def test_backward_through_the_error_node_raises(how) -> None:
    page = _once()
    x = torch.tensor([0.0, 1.0, -2.0], requires_grad=True)
    first = _arriving_gradient_requires_grad(page, x, how)
    with pytest.raises(RuntimeError, match="differentiate twice a function that was marked"):
        first.sum().backward()


@pytest.mark.claim(
    ONCE_PAGE,
    "When other paths are left, `torch.autograd.grad` follows them and drops the custom "
    "function's term silently.",
)
@settings(max_examples=25, deadline=None)
@given(silu_points, dtypes)
def test_autograd_grad_drops_the_term_when_another_path_is_left(values, dtype) -> None:
    page = _once()
    x = torch.tensor(values, dtype=dtype, requires_grad=True)
    second = {}
    for f in (page["SiLU"], page["OnceSiLU"]):
        # loss = ½ (SiLU(x) - 1)² + x³: the arriving gradient SiLU(x) - 1 requires grad.
        loss = (0.5 * (f.apply(x) - 1) ** 2 + x**3).sum()
        (first,) = torch.autograd.grad(loss, x, create_graph=True)
        (second[f.__name__],) = torch.autograd.grad(first.sum(), x)
    xd = x.detach()
    silu = xd * torch.sigmoid(xd)
    by_hand = _silu_first(xd) ** 2 + (silu - 1) * _silu_second(xd) + 6 * xd
    torch.testing.assert_close(second["SiLU"], by_hand)
    torch.testing.assert_close(second["OnceSiLU"], 6 * xd)  # only the x³ term is left


@pytest.mark.claim(
    ONCE_PAGE, "The gradient for $W_1$ comes back with no error and the wrong values"
)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_penalty_gradient_is_silently_wrong(seed: int) -> None:
    page = run_region(ONCE, "functions", "penalty")
    torch.manual_seed(seed)
    page["W1"] = torch.randn(3, 2, requires_grad=True)
    page["w2"] = torch.randn(3, requires_grad=True)
    page["inputs"] = torch.randn(4, 2, requires_grad=True)
    penalty = page["gradient_penalty"]
    (reference,) = torch.autograd.grad(penalty(F.silu), page["W1"])
    (right,) = torch.autograd.grad(penalty(page["SiLU"].apply), page["W1"])
    (skipped,) = torch.autograd.grad(penalty(page["OnceSiLU"].apply), page["W1"])
    torch.testing.assert_close(right, reference)
    assert not torch.allclose(skipped, reference)
    (w2,) = torch.autograd.grad(penalty(page["OnceSiLU"].apply), page["w2"], allow_unused=True)
    assert w2 is None
    with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
        torch.autograd.grad(penalty(page["OnceSiLU"].apply), page["w2"])
    with pytest.raises(RuntimeError, match="differentiate twice"):
        penalty(page["OnceSiLU"].apply).backward()


@pytest.mark.claim(
    ONCE_PAGE,
    "the second derivative comes out as 0 instead of $\\mathrm{SiLU}''(0) = \\frac{1}{2}$",
)
@settings(max_examples=25, deadline=None)
@given(st.one_of(st.just(0.0), st.floats(-6, 6)), dtypes)
def test_torch_func_gives_zero(value: float, dtype) -> None:
    page = _once()
    x = torch.tensor(value, dtype=dtype)
    assert grad(grad(page["OnceSiLU"].apply))(x).item() == 0.0
    torch.testing.assert_close(grad(grad(page["SiLU"].apply))(x), _silu_second(x))


@pytest.mark.claim(ONCE_PAGE, "Its first derivative is right, and `gradcheck` passes")
@pytest.mark.parametrize("seed", [0, 1])
def test_a_saved_intermediate_keeps_the_first_derivative(seed: int) -> None:
    page = run_region(ONCE, "functions", "saved-intermediate")
    x = torch.randn(5, dtype=torch.float64, generator=torch.Generator().manual_seed(seed))
    assert torch.autograd.gradcheck(page["SiLUSavedSigmoid"].apply, (x.requires_grad_(),))


@pytest.mark.claim(ONCE_PAGE, "At $x = 0$ the analytical value is half the numerical one")
@settings(max_examples=25, deadline=None)
@given(silu_points)
def test_a_saved_intermediate_loses_the_sigmoids_derivative(values: list[float]) -> None:
    page = run_region(ONCE, "functions", "saved-intermediate")
    x = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    (first,) = torch.autograd.grad(page["SiLUSavedSigmoid"].apply(x).sum(), x, create_graph=True)
    (second,) = torch.autograd.grad(first.sum(), x)
    s = torch.sigmoid(x.detach())
    torch.testing.assert_close(second, s * (1 - s))  # d/dx of s (1 + x (1 - s)), s held
    zero = torch.zeros(1, dtype=torch.float64, requires_grad=True)
    (first0,) = torch.autograd.grad(
        page["SiLUSavedSigmoid"].apply(zero).sum(), zero, create_graph=True
    )
    (second0,) = torch.autograd.grad(first0.sum(), zero)
    assert second0.item() == 0.25 == _silu_second(zero.detach()).item() / 2
    torch.manual_seed(0)
    with pytest.raises(GradcheckError):
        torch.autograd.gradgradcheck(page["SiLUSavedSigmoid"].apply, (x,))


@pytest.mark.claim(ONCE_PAGE, "`gradgradcheck` refuses `OnceSiLU` too")
def test_gradgradcheck_refuses_the_decorated_function() -> None:
    page = _once()
    x = torch.tensor([0.0, 1.0, -2.0], dtype=torch.float64, requires_grad=True)
    torch.manual_seed(0)
    assert torch.autograd.gradgradcheck(page["SiLU"].apply, (x,))
    with pytest.raises(GradcheckError):
        torch.autograd.gradgradcheck(page["OnceSiLU"].apply, (x,))


# --- does-no-grad-turn-off-forward-mode-ad ----------------------------------------------


@pytest.mark.claim(
    FWD_PAGE,
    "Under `no_grad()` and `set_grad_enabled(False)` the tangent is there, $(2, 4, 6)$. Under "
    "`inference_mode()` there is none.",
)
@settings(max_examples=30, deadline=None)
@given(_tensors(st.floats(-10, 10)), dtypes, st.booleans())
def test_tangents_under_each_mode(values: list[float], dtype, primal_requires_grad) -> None:
    x = torch.tensor(values, dtype=dtype, requires_grad=primal_requires_grad)
    x_dot = torch.linspace(-1, 2, len(values), dtype=dtype)
    inputs = {"torch": torch, "fwAD": fwAD, "contextlib": contextlib, "x": x, "x_dot": x_dot}
    tangents = run_region(FWD, "dual-maths", inputs=inputs)["tangents"]
    by_hand = 2 * x.detach() * x_dot  # the tangent of x²
    for mode in ("grad mode (default)", "torch.no_grad()", "set_grad_enabled(False)"):
        torch.testing.assert_close(tangents[mode], by_hand)
    assert tangents["torch.inference_mode()"] is None
    assert torch.is_grad_enabled()  # every mode was left as it was found


@pytest.mark.claim(FWD_PAGE, "`detach()` makes $c$ a constant for both modes: both give 9.")
@settings(max_examples=30, deadline=None)
@given(st.one_of(st.just(0.0), st.floats(-10, 10)), dtypes)
def test_jacrev_and_jacfwd_of_a_no_grad_constant(value: float, dtype) -> None:
    page = run_region(FWD, "quiet-start", "jacfwd-vs-jacrev")
    x = torch.tensor(value, dtype=dtype)
    under, detached = page["under_no_grad"], page["with_detach"]
    torch.testing.assert_close(jacrev(under)(x), x**2)  # c held constant
    torch.testing.assert_close(jacfwd(under)(x), 3 * x**2)  # the tangent goes through c
    torch.testing.assert_close(jacrev(detached)(x), x**2)
    torch.testing.assert_close(jacfwd(detached)(x), x**2)
    # ... and the JVP computed by two reverse passes follows reverse mode:
    _, tangent = torch.autograd.functional.jvp(under, x, torch.ones_like(x))
    torch.testing.assert_close(tangent, x**2)


@pytest.mark.claim(FWD_PAGE, "A dual tensor made inside it has no tangent, and no error says so.")
@pytest.mark.parametrize("dtype", DTYPES)
def test_make_dual_inside_inference_mode(dtype) -> None:
    page = run_region(FWD, "quiet-start", "dual", "inference")
    assert "make_dual inside inference_mode, tangent: None" in page.output
    x = torch.tensor([0.0, 1.0], dtype=dtype)
    with fwAD.dual_level():
        with torch.inference_mode():
            dual = fwAD.make_dual(x, torch.ones_like(x))
            assert fwAD.unpack_dual(dual).tangent is None
            assert fwAD.unpack_dual(dual * 3).tangent is None
        assert fwAD.unpack_dual(dual * 3).tangent is None


@pytest.mark.claim(
    FWD_PAGE, "the transforms of `torch.func` ignore the grad modes of the code that calls them"
)
@pytest.mark.parametrize("mode", [torch.no_grad, torch.inference_mode])
def test_transforms_ignore_the_callers_grad_mode(mode) -> None:
    page = run_region(FWD, "quiet-start", "dual", "inference")
    assert "called inside inference_mode: tensor([2., 4., 6.])" in page.output
    x = torch.tensor([1.0, -2.0, 0.0])
    with mode():
        _, tangent = jvp(lambda t: t**2, (x,), (torch.ones(3),))
        gradient = grad(lambda t: (t**3).sum())(x)
        jacobian = jacfwd(lambda t: t**2)(x)
    torch.testing.assert_close(tangent, 2 * x)
    torch.testing.assert_close(gradient, 3 * x**2)
    torch.testing.assert_close(jacobian, torch.diag(2 * x))

    # Inside the function, inference_mode acts as usual: no tangent, a zero derivative.
    def inner(t):
        with torch.inference_mode():
            c = t**2
        return c.clone()

    assert jvp(inner, (x,), (torch.ones(3),))[1].abs().sum().item() == 0.0


@pytest.mark.claim(FWD_PAGE, "| `fwAD.unpack_dual(t).primal` | unchanged | a constant |")
@pytest.mark.parametrize("dtype", DTYPES)
def test_the_primal_keeps_reverse_mode_and_drops_the_tangent(dtype) -> None:
    page = run_region(FWD, "quiet-start", "dual", "inference")
    assert "computed from the unpacked primal, tangent: None" in page.output
    x = torch.tensor([1.0, -2.0, 0.0], dtype=dtype, requires_grad=True)
    with fwAD.dual_level():
        primal = fwAD.unpack_dual(fwAD.make_dual(x, torch.ones_like(x))).primal
        y = primal**2
        assert fwAD.unpack_dual(y).tangent is None
        y.sum().backward()
    torch.testing.assert_close(x.grad, 2 * x.detach())


# --- why-does-a-view-made-under-no-grad-get-no-gradient ---------------------------------

VIEWS = {
    "slice": lambda b: b[:2],
    "select": lambda b: b[1],
    "view": lambda b: b.view(2, 2),
    "t": lambda b: b.view(2, 2).t(),
    "transpose": lambda b: b.view(2, 2).transpose(0, 1),
    "unsqueeze": lambda b: b.unsqueeze(0),
    "expand": lambda b: b[:1].expand(3),
    "reshape (no copy)": lambda b: b.reshape(2, 2),
}


@pytest.mark.claim(
    VIEW_PAGE,
    "A view of a tensor that requires grad, taken under `no_grad()`, still reports "
    "`requires_grad=True`",
)
@pytest.mark.parametrize("name", list(VIEWS))
@pytest.mark.parametrize("dtype", DTYPES)
def test_a_no_grad_view_requires_grad_and_passes_nothing(name: str, dtype) -> None:
    page = run_region(VIEW, "view")  # the page's own view, and its backward() through it
    assert page["first_two"].requires_grad and page["first_two"].grad_fn is None
    assert page["base"].grad is None and page["first_two"].grad is None
    base = torch.tensor([1.0, 2.0, 3.0, 4.0], dtype=dtype, requires_grad=True)
    with torch.no_grad():
        view = VIEWS[name](base)
    assert view._is_view() and view.requires_grad and view.grad_fn is None and view.is_leaf
    loss = (view * 3).sum()
    assert loss.requires_grad
    loss.backward()
    assert base.grad is None and view.grad is None
    # Taken with grad mode on, the same view passes 3 to each entry it reads.
    fresh = base.detach().clone().requires_grad_()
    (VIEWS[name](fresh) * 3).sum().backward()
    assert fresh.grad is not None and fresh.grad.max().item() >= 3


@pytest.mark.claim(
    VIEW_PAGE,
    "Indexing with a tensor of indices, or a mask, makes a copy: under `no_grad()` it "
    "is a plain constant.",
)
def test_advanced_indexing_and_copying_reshape_are_constants() -> None:
    base = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    with torch.no_grad():
        picked = base[torch.tensor([0, 1])]
        masked = base[base > 2]
        copied = base.view(2, 2).t().reshape(4)  # not contiguous: reshape must copy
    for t in (picked, masked, copied):
        assert not t._is_view() and not t.requires_grad


@pytest.mark.claim(
    VIEW_PAGE,
    "`optimizer.step()` skips a parameter whose gradient is `None`, so there is no error anywhere.",
)
@pytest.mark.parametrize(
    "make",
    [
        lambda p: torch.optim.SGD([p], lr=0.1),
        lambda p: torch.optim.SGD([p], lr=0.1, momentum=0.9, weight_decay=0.1),
        lambda p: torch.optim.Adam([p], lr=0.1),
        lambda p: torch.optim.AdamW([p], lr=0.1, weight_decay=0.1),
    ],
)
def test_the_weights_never_move(make) -> None:
    page = run_region(VIEW, "view", "training")
    torch.testing.assert_close(page["w"].detach(), torch.tensor([0.5, -1.0, 2.0]))
    w = nn.Parameter(torch.tensor([0.5, -1.0, 2.0]))
    optimizer = make(w)
    for _ in range(3):
        optimizer.zero_grad()
        (page["first_weights"](w) ** 2).sum().backward()
        optimizer.step()
    assert w.grad is None
    torch.testing.assert_close(w.detach(), torch.tensor([0.5, -1.0, 2.0]), rtol=0, atol=0)


@pytest.mark.claim(VIEW_PAGE, "With grad mode back on, PyTorch cannot tell")
def test_in_place_changes_of_such_views_are_refused() -> None:
    base = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    with torch.no_grad():
        view = base[:2]
    with pytest.raises(RuntimeError, match="created in no_grad mode"):
        view.mul_(2)
    with pytest.raises(RuntimeError, match="created in no_grad mode"):
        view[:1].mul_(2)  # a view of it, taken later with grad mode on
    with torch.no_grad():
        view.mul_(2)  # inside no_grad(): allowed
    assert base.detach().tolist() == [2.0, 4.0, 3.0, 4.0]


@pytest.mark.claim(
    VIEW_PAGE,
    "A view of an ordinary tensor taken there is not an inference tensor but an ordinary view "
    "with the same traps",
)
@pytest.mark.parametrize("dtype", DTYPES)
def test_a_view_taken_in_inference_mode(dtype) -> None:
    base = torch.tensor([1.0, 2.0, 3.0, 4.0], dtype=dtype, requires_grad=True)
    with torch.inference_mode():
        view = base[:2]
    assert not view.is_inference() and view.requires_grad and view.grad_fn is None
    (view * 3).sum().backward()
    assert base.grad is None and view.grad is None
    with pytest.raises(RuntimeError, match="inference mode"):
        view.mul_(2)


# --- why-dont-batch-norm-and-per-sample-gradients-mix -----------------------------------


def _bn_page() -> dict:
    return run_region(BN, "coupling", "bn1d-setup", "bn2d-setup", "bn2d-patched", "fixes")


@pytest.mark.claim(
    BN_PAGE,
    "Change example 7, and the output for example 0 moves; in eval mode, where batch norm uses "
    "its running statistics, it does not",
)
@pytest.mark.parametrize("batch", [2, 8])
@pytest.mark.parametrize("seed", [0, 1])
def test_batch_norm_couples_examples_in_training_mode(batch: int, seed: int) -> None:
    mlp = run_region(BN, "coupling")["mlp"]
    x = torch.randn(batch, 3, generator=torch.Generator().manual_seed(seed))
    changed = x.clone()
    changed[-1] += 1.0
    mlp.train()
    assert not torch.equal(mlp(x)[0], mlp(changed)[0])
    mlp.eval()
    assert torch.equal(mlp(x)[0], mlp(changed)[0])


@pytest.mark.claim(BN_PAGE, "the coupling gets weaker as the batch grows")
def test_the_coupling_weakens_with_the_batch_size() -> None:
    mlp = run_region(BN, "coupling")["mlp"].train()

    def moved(batch: int) -> float:
        """How far example 0's output moves when the last example moves, on average."""
        total = 0.0
        for seed in range(8):
            x = torch.randn(batch, 3, generator=torch.Generator().manual_seed(seed))
            changed = x.clone()
            changed[-1] += 1.0
            with torch.no_grad():
                total += (mlp(x)[0] - mlp(changed)[0]).abs().item()
        return total / 8

    small, large = moved(4), moved(64)
    assert 0 < large < small


@pytest.mark.claim(BN_PAGE, "`mlp(X[:1])` in training mode raises the same error")
def test_a_batch_of_one_is_refused_in_training_mode() -> None:
    page = run_region(BN, "coupling", "bn1d-setup")
    with pytest.raises(ValueError, match="Expected more than 1 value per channel"):
        vmap(grad(page["example_loss"]), in_dims=(None, None, 0, 0))(
            page["params"], page["buffers"], page["X"], page["target"]
        )
    with pytest.raises(ValueError, match="Expected more than 1 value per channel"):
        page["mlp"].train()(page["X"][:1])
    page["mlp"].eval()(page["X"][:1])  # eval mode: a batch of one is fine


@pytest.mark.claim(
    BN_PAGE,
    "One of them is `replace_all_batch_norm_modules_`, which removes the running statistics, "
    "and it clears this error too.",
)
def test_replace_all_batch_norm_modules_clears_the_error() -> None:
    page = run_region(BN, "coupling", "bn1d-setup", "bn2d-setup")
    with pytest.raises(RuntimeError, match="mutate a captured Tensor"):
        page["per_sample"](page["cnn"])
    page = run_region(BN, "bn2d-patched", inputs=page)
    norms = [m for m in page["cnn"].modules() if isinstance(m, nn.modules.batchnorm._BatchNorm)]
    assert norms and all(
        m.running_mean is None and m.running_var is None and not m.track_running_stats
        for m in norms
    )
    assert page.output.startswith("vmap ran, rows of shape (6, 4)")


def _fresh_data(page: dict, seed: int) -> None:
    generator = torch.Generator().manual_seed(seed)
    page["images"] = torch.randn(5, 2, 3, 3, generator=generator, dtype=torch.float64)
    page["labels"] = torch.randn(5, generator=generator, dtype=torch.float64)


@pytest.mark.claim(
    BN_PAGE,
    "Each row is an example's gradient when that example is normalised by its own mean and "
    "variance, exactly what a batch of one gives",
)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_patched_batch_norm_gives_another_models_gradients(seed: int) -> None:
    page = _bn_page()
    _fresh_data(page, seed)
    cnn = page["cnn"]
    rows = page["per_sample"](cnn)
    torch.testing.assert_close(rows, page["one_at_a_time"](cnn))
    assert not torch.allclose(rows.sum(dim=0), page["batch_gradient"](cnn))


@pytest.mark.claim(BN_PAGE, "the per-sample gradients sum to the batch gradient")
@pytest.mark.parametrize(
    "norm",
    [
        lambda: nn.GroupNorm(2, 4),
        lambda: nn.GroupNorm(1, 4),
        lambda: nn.LayerNorm([4, 2, 2]),
        lambda: nn.InstanceNorm2d(4, affine=True),
        "eval",
    ],
)
@pytest.mark.parametrize("seed", [0, 1])
def test_normalising_within_one_example_keeps_the_sum(norm, seed: int) -> None:
    page = _bn_page()
    _fresh_data(page, seed)
    # "eval": the page's batch norm in eval mode, with running statistics
    model = page["frozen"] if norm == "eval" else page["with_norm"](norm())
    rows = page["per_sample"](model)
    torch.testing.assert_close(rows.sum(dim=0), page["batch_gradient"](model))
    # A batch of one: the row is the example's own gradient.
    page["images"], page["labels"] = page["images"][:1], page["labels"][:1]
    torch.testing.assert_close(page["per_sample"](model)[0], page["batch_gradient"](model))


# --- does-autograd-give-a-subgradient-at-a-kink -----------------------------------------


def _kinks() -> dict:
    return run_region(KINK, "same-function")


finite_reals = st.one_of(
    st.sampled_from([0.0, -0.0, 1.0, -1.0]),
    st.floats(1e-15, 1e15),
    st.floats(-1e15, -1e-15),
)


@pytest.mark.claim(
    KINK_PAGE,
    "the second gives exactly $|x|$ in float64, at every $x$ whose square neither overflows nor "
    "underflows, and in float32 up to one unit in the last place",
)
@settings(max_examples=50, deadline=None)
@given(_tensors(finite_reals), dtypes)
@example([6048490.0], torch.float32)  # float32 sqrt(x * x) was one unit short here
@example([16777215.0, 0.1, 3.0], torch.float32)
@example([6048490.0, 1e15, 1e-15], torch.float64)
def test_both_programs_compute_their_function(values: list[float], dtype) -> None:
    page = _kinks()
    x = torch.tensor(values, dtype=dtype)
    assert torch.equal(page["identity"](x), x)  # "the first gives exactly x", in both
    absolute = page["absolute"](x)
    if dtype == torch.float64:
        assert torch.equal(absolute, x.abs())
    else:  # at most one unit in the last place of |x| away
        ulp = torch.nextafter(x.abs(), torch.tensor(math.inf)) - x.abs()
        assert ((absolute - x.abs()).abs() <= ulp).all()


@pytest.mark.claim(KINK_PAGE, "PyTorch's float32 square root is not always correctly rounded")
def test_float32_sqrt_is_not_always_correctly_rounded() -> None:
    x = torch.tensor([6048490.0])  # float32
    square = x * x
    # float64 holds 53 bits, enough that its square root rounded to float32 is the correctly
    # rounded float32 square root; and for binary floating point that is exactly |x| again.
    correctly_rounded = torch.sqrt(square.double()).float()
    assert torch.equal(correctly_rounded, x)
    assert not torch.equal(_kinks()["absolute"](x), x)  # the page's sqrt(x * x): one unit short
    assert not torch.equal(torch.sqrt(square), correctly_rounded)


@pytest.mark.claim(KINK_PAGE, "0 is not the derivative, and not a subgradient either")
@settings(max_examples=40, deadline=None)
@given(_tensors(finite_reals), dtypes)
def test_the_identity_program_gets_zero_only_at_zero(values: list[float], dtype) -> None:
    page = _kinks()
    x = torch.tensor(values, dtype=dtype, requires_grad=True)
    page["identity"](x).sum().backward()
    by_hand = torch.where(x.detach() == 0, 0.0, 1.0).to(dtype)  # 1, except at the kink
    torch.testing.assert_close(x.grad, by_hand, rtol=0, atol=0)
    y = torch.tensor(values, dtype=dtype, requires_grad=True)
    page["absolute"](y).sum().backward()
    zero = y.detach() == 0
    assert torch.isnan(y.grad[zero]).all()
    torch.testing.assert_close(y.grad[~zero], torch.sign(y.detach()[~zero]))


@pytest.mark.claim(
    KINK_PAGE,
    "`relu`, `abs`, `vector_norm` and `clamp(min=0)` give 0, the point of their subdifferential "
    "nearest 0.",
    note="clamp-bounds",
)
@pytest.mark.parametrize("dtype", DTYPES)
def test_single_kinks_get_the_minimum_norm_subgradient(dtype) -> None:
    page = run_region(KINK, "same-function", "single-kinks")
    grad_at = page["grad_at"]

    def at(f, values):
        x = torch.tensor(values, dtype=dtype, requires_grad=True)
        f(x).sum().backward()
        return x.grad.tolist()

    assert grad_at(torch.relu, [0.0]) == at(torch.relu, [0.0]) == [0.0]
    assert at(torch.abs, [0.0, -0.0]) == [0.0, 0.0]
    for size in (1, 3):
        assert at(torch.linalg.vector_norm, [0.0] * size) == [0.0] * size
    assert at(lambda t: t.clamp(min=0), [0.0]) == [0.0]


@pytest.mark.claim(
    KINK_PAGE, "`clamp` gives 0 at its bound since PyTorch 2.14", note="clamp-bounds"
)
@pytest.mark.parametrize("dtype", DTYPES)
def test_clamp_gives_zero_at_its_bounds(dtype) -> None:
    x = torch.tensor([-1.0, 1.0], dtype=dtype, requires_grad=True)
    x.clamp(-1, 1).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0]
    for bound in (0.0, -2.5, 3.0):
        y = torch.tensor([bound], dtype=dtype, requires_grad=True)
        (y.clamp(min=bound) + y.clamp(max=bound)).sum().backward()
        assert y.grad.tolist() == [0.0]


@pytest.mark.claim(
    KINK_PAGE,
    "`max()` over a tie and `torch.maximum` with equal inputs split the gradient evenly",
)
@pytest.mark.parametrize("ties", [2, 3, 5])
@pytest.mark.parametrize("dtype", DTYPES)
def test_ties_are_split_evenly(ties: int, dtype) -> None:
    grad_at = _kinks()["grad_at"]
    values = [2.0] * ties + [1.0, -3.0]
    x = torch.tensor(values, dtype=dtype, requires_grad=True)
    x.max().backward()
    torch.testing.assert_close(x.grad, torch.tensor([1 / ties] * ties + [0.0, 0.0], dtype=dtype))
    assert grad_at(torch.max, [2.0, 2.0, 1.0]) == [0.5, 0.5, 0.0]
    a = torch.tensor(0.0, dtype=dtype, requires_grad=True)
    b = torch.tensor(0.0, dtype=dtype, requires_grad=True)
    torch.maximum(a, b).backward()
    assert (a.grad.item(), b.grad.item()) == (0.5, 0.5)


@pytest.mark.claim(KINK_PAGE, "it gives all of the gradient to the one index it returns")
@pytest.mark.parametrize("ties", [2, 4])
def test_max_along_a_dimension_gives_everything_to_one_index(ties: int) -> None:
    x = torch.tensor([2.0] * ties + [1.0], requires_grad=True)
    result = x.max(dim=0)
    result.values.backward()
    expected = torch.zeros_like(x)
    expected[result.indices] = 1.0
    torch.testing.assert_close(x.grad, expected, rtol=0, atol=0)


@pytest.mark.claim(
    KINK_PAGE,
    "written as a square root of a sum of squares, it gives NaN at 0, the centre of a distance "
    "or a gradient penalty, where `torch.linalg.vector_norm` gives 0",
)
@pytest.mark.parametrize("size", [1, 2, 5])
@pytest.mark.parametrize("dtype", DTYPES)
def test_the_norm_at_zero(size: int, dtype) -> None:
    shown = run_region(KINK, "same-function", "norm").output.splitlines()
    assert shown[-2].startswith("sqrt((x**2).sum()) at 0:") and shown[-2].endswith("[nan, nan]")
    assert shown[-1].startswith("vector_norm(x) at 0:") and shown[-1].endswith("[0.0, 0.0]")
    x = torch.zeros(size, dtype=dtype, requires_grad=True)
    torch.sqrt((x**2).sum()).backward()
    assert torch.isnan(x.grad).all()
    y = torch.zeros(size, dtype=dtype, requires_grad=True)
    torch.linalg.vector_norm(y).backward()
    assert (y.grad == 0).all()


@pytest.mark.claim(KINK_PAGE, "Gradient descent started exactly there never leaves")
@pytest.mark.parametrize("steps", [1, 20, 100])
@pytest.mark.parametrize("lr", [0.01, 0.1, 0.5])
def test_descent_from_the_artificial_critical_point_never_moves(steps: int, lr: float) -> None:
    descend = run_region(KINK, "same-function", "stuck")["descend"]
    assert descend(0.0, steps=steps, lr=lr) == 0.0
    # The loss (x - 1)² has derivative -2 at 0: a true gradient step would move it.
    assert descend(1e-3, steps=steps, lr=lr) > 1e-3

"""docs/deeper/mechanics-that-bite.md, at the edges of its claims.

The page's own code (snippets/deeper/mechanics_that_bite.py) runs on inputs of the
tests' own: every kind of view, every registration order of the hooks, points on the
kinks and bounds and ties (0, -0.0, the bounds themselves, halves), float32 and float64.
The sentences about `clamp` at its bounds hold since PyTorch 2.14 (version note
clamp-bounds); on 2.13 their checks must fail.
"""

from __future__ import annotations

import itertools

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from packaging.version import Version

from . import run_region

PAGE = "docs/deeper/mechanics-that-bite.md"
SNIPPET = "deeper/mechanics_that_bite"
KINKS = run_region(SNIPPET, "view-version", "kinks")
grad_at = KINKS["grad_at"]  # the page's: the gradient of f(x).sum() at the points

dtypes = st.sampled_from([torch.float32, torch.float64])
small = st.integers(min_value=-4, max_value=4).map(float)  # exact, and often equal


def _grad(f, values: list[float], dtype: torch.dtype) -> torch.Tensor:
    """grad_at, in any dtype (the page's works in float32)."""
    x = torch.tensor(values, dtype=dtype, requires_grad=True)
    f(x).sum().backward()
    return x.grad


# --- Views -------------------------------------------------------------------------------

VIEWS = {
    "a[1:]": lambda a: a[1:],
    "a[0]": lambda a: a[0],
    "a.view(1, 3)": lambda a: a.view(1, 3),
    "a.view(1, 3).transpose(0, 1)": lambda a: a.view(1, 3).transpose(0, 1),
    "a.reshape(3, 1)": lambda a: a.reshape(3, 1),  # contiguous: reshape needs no copy
}


@pytest.mark.claim(
    PAGE, "A view and its base share their values, and they also share one version counter."
)
@pytest.mark.parametrize("make", VIEWS.values(), ids=list(VIEWS))
def test_every_kind_of_view_shares_the_base_s_version_counter(make) -> None:
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    a = x * 2
    page = run_region(
        SNIPPET, "view-version-maths", inputs={"torch": torch, "a": a, "tail": make(a)}
    )
    assert "tail is a view of a: True" in page.output
    assert "versions after:  a 1  tail 1" in page.output
    assert a.detach().tolist() != [2.0, 4.0, 6.0]  # the change reached the base's values


def test_a_reshape_that_must_copy_is_no_view() -> None:
    # "reshape when it can avoid a copy": a transposed (non-contiguous) base must be copied.
    x = torch.ones(2, 3, requires_grad=True)
    a = (x * 2).t()
    tail = a.reshape(6)
    page = run_region(SNIPPET, "view-version-maths", inputs={"torch": torch, "a": a, "tail": tail})
    assert "tail is a view of a: False" in page.output
    assert "versions after:  a 0  tail 1" in page.output


@pytest.mark.claim(
    PAGE, "look for one on a slice of it: `e[mask] = 0`, `e[:, 0] += 1`, `e.view(-1).zero_()`"
)
@pytest.mark.parametrize("change", ["e[mask] = 0", "e[:, 0] += 1", "e.view(-1).zero_()"])
def test_each_change_through_a_slice_is_refused(change: str) -> None:
    x = torch.tensor([[0.0, 1.0], [2.0, -1.0]], requires_grad=True)
    e = torch.exp(x)
    mask = x > 0.5
    exec(change, {"e": e, "mask": mask})
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        e.sum().backward()


@pytest.mark.claim(PAGE, "out-of-place version (`torch.where(mask, 0.0, e)`), or a `clone()` first")
def test_both_fixes_give_the_right_gradient() -> None:
    for fix in ("where", "clone"):
        x = torch.tensor([[0.0, 1.0], [2.0, -1.0]], requires_grad=True)
        e = torch.exp(x)
        mask = x > 0.5
        if fix == "where":
            e = torch.where(mask, 0.0, e)
        else:
            e = e.clone()
            e[mask] = 0
        e.sum().backward()
        # By hand: d e^x / dx = e^x where kept, 0 where set to 0.
        expected = torch.where(mask, 0.0, torch.exp(x.detach()))
        torch.testing.assert_close(x.grad, expected)


# --- Kinks and clamp's bounds ----------------------------------------------------------


@st.composite
def bounds_and_points(draw: st.DrawFn) -> tuple[float, float, list[float]]:
    low = draw(small)
    high = draw(small.filter(lambda v: v > low))
    edges = st.sampled_from([low, high, (low + high) / 2, low - 1, high + 1])
    points = draw(st.lists(st.one_of(edges, st.floats(-6, 6, allow_nan=False)), min_size=1))
    return low, high, points


@pytest.mark.claim(
    PAGE,
    "`clamp(0, 1)`, with numbers as bounds, returns 0 at both bounds. The gradient passes "
    "only where the input is strictly between the bounds.",
    note="clamp-bounds",
)
@settings(max_examples=40, deadline=None)
@given(bounds_and_points(), dtypes)
def test_clamp_passes_the_gradient_strictly_inside_only(case: tuple, dtype: torch.dtype) -> None:
    low, high, points = case
    x = torch.tensor(points, dtype=dtype)
    inside = ((low < x) & (x < high)).to(dtype)  # by hand: 1 strictly inside, else 0
    assert torch.equal(_grad(lambda t: t.clamp(low, high), points, dtype), inside)
    if dtype == torch.float32:
        assert grad_at(lambda t: t.clamp(low, high), points) == inside.tolist()
    # ... and with one bound only.
    assert torch.equal(_grad(lambda t: t.clamp(min=low), points, dtype), (x > low).to(dtype))
    assert torch.equal(_grad(lambda t: t.clamp(max=high), points, dtype), (x < high).to(dtype))


@pytest.mark.claim(
    PAGE,
    "So `clamp(min=0)` and `relu`, which compute the same function, also return the same "
    "gradient at 0: 0.",
    note="clamp-bounds",
)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_clamp_min_zero_and_relu_agree_at_zero(dtype: torch.dtype) -> None:
    points = [0.0, -0.0, 1e-30, -1e-30, 2.0, -2.0]
    clamp = _grad(lambda t: t.clamp(min=0), points, dtype)
    relu = _grad(torch.relu, points, dtype)
    assert torch.equal(clamp, relu)
    assert clamp[:2].tolist() == [0.0, 0.0]


def _zero_layer_gradients(activation) -> tuple[torch.Tensor, torch.Tensor]:
    torch.manual_seed(0)
    x = torch.randn(8, 3)
    weight = torch.zeros(3, 4, requires_grad=True)  # every pre-activation is exactly 0
    bias = torch.zeros(4, requires_grad=True)
    h = activation(x @ weight + bias)
    ((h @ torch.ones(4)).pow(2).sum() + h.sum()).backward()
    return weight.grad, bias.grad


@pytest.mark.claim(
    PAGE,
    "Pre-activations that are exactly 0, because weights and biases were initialised to "
    "zero, get no gradient at all through `relu`",
)
def test_a_layer_initialised_to_zero_gets_no_gradient_through_relu() -> None:
    weight_grad, bias_grad = _zero_layer_gradients(torch.relu)
    assert not weight_grad.any() and not bias_grad.any()


@pytest.mark.claim(PAGE, "and now none through `clamp(min=0)` either", note="clamp-bounds")
def test_a_layer_initialised_to_zero_gets_no_gradient_through_clamp() -> None:
    weight_grad, bias_grad = _zero_layer_gradients(lambda z: z.clamp(min=0))
    assert not weight_grad.any() and not bias_grad.any()


@pytest.mark.claim(PAGE, "`relu` and `abs` give 0 at 0")
@pytest.mark.parametrize("dtype", [torch.float16, torch.float32, torch.float64])
def test_relu_and_abs_give_zero_at_zero(dtype: torch.dtype) -> None:
    for f in (torch.relu, torch.abs):
        assert _grad(lambda t, f=f: f(t).float(), [0.0, -0.0], dtype).tolist() == [0.0, 0.0]


# --- Ties --------------------------------------------------------------------------------

tied = st.lists(small, min_size=1, max_size=7)


@pytest.mark.claim(PAGE, "`x.amax(dim=0)` split the gradient evenly between the tied entries")
@settings(max_examples=40, deadline=None)
@given(tied, dtypes)
def test_max_and_amax_split_evenly(values: list[float], dtype: torch.dtype) -> None:
    x = torch.tensor(values, dtype=dtype)
    tied_at = (x == x.max()).to(dtype)
    even = tied_at / tied_at.sum()  # by hand: 1/k on each of the k tied entries
    torch.testing.assert_close(_grad(torch.max, values, dtype), even)
    torch.testing.assert_close(_grad(lambda t: t.amax(dim=0), values, dtype), even)


@pytest.mark.claim(PAGE, "the gradient follows the index it returned")
@settings(max_examples=40, deadline=None)
@given(tied)
def test_max_dim_gives_all_of_it_to_the_index_it_returns(values: list[float]) -> None:
    x = torch.tensor(values, requires_grad=True)
    result = x.max(dim=0)
    result.values.backward()
    one_hot = torch.zeros(len(values))
    one_hot[result.indices] = 1.0
    assert torch.equal(x.grad, one_hot)


@pytest.mark.claim(PAGE, "splits each tie between its two arguments")
@settings(max_examples=40, deadline=None)
@given(tied, small)
def test_maximum_splits_each_tie_between_its_arguments(values: list[float], other: float) -> None:
    x = torch.tensor(values, requires_grad=True)
    y = torch.full_like(x, other, requires_grad=True)
    torch.maximum(x, y).sum().backward()
    x_values = x.detach()
    # By hand: 1 to the larger argument, 0.5 to each at a tie.
    expected_x = (x_values > other).float() + 0.5 * (x_values == other).float()
    assert torch.equal(x.grad, expected_x)
    assert torch.equal(x.grad + y.grad, torch.ones_like(x_values))


@st.composite
def tensor_bounds(draw: st.DrawFn) -> tuple[list[float], list[float], list[float]]:
    n = draw(st.integers(min_value=1, max_value=6))
    lows = draw(st.lists(small, min_size=n, max_size=n))
    highs = [low + draw(st.integers(min_value=1, max_value=3)) for low in lows]
    xs = [
        draw(st.sampled_from([low, high, (low + high) / 2, low - 1, high + 1]))
        for low, high in zip(lows, highs, strict=True)
    ]
    return xs, lows, highs


def _clamp_tie(xs, lows, highs, dtype):
    """The page's clamp-tie code, on these points and bounds (all requiring grad)."""
    x = torch.tensor(xs, dtype=dtype, requires_grad=True)
    low = torch.tensor(lows, dtype=dtype, requires_grad=True)
    high = torch.tensor(highs, dtype=dtype, requires_grad=True)
    run_region(
        SNIPPET, "clamp-tie-maths", inputs={"torch": torch, "x": x, "low": low, "high": high}
    )
    return x, low, high


@pytest.mark.claim(PAGE, "At every position, the three gradients add up to 1.")
@settings(max_examples=40, deadline=None)
@given(tensor_bounds(), dtypes)
def test_clamp_with_tensor_bounds_hands_out_exactly_one(case: tuple, dtype: torch.dtype) -> None:
    x, low, high = _clamp_tie(*case, dtype)
    assert torch.equal(x.grad + low.grad + high.grad, torch.ones_like(x.grad))


def test_the_three_gradients_add_up_to_one_when_the_bounds_are_equal() -> None:
    # An edge outside the page's example: low == high == x, a three-way tie.
    x, low, high = _clamp_tie([0.0, 0.0, 1.0], [0.0, 0.0, 0.0], [0.0, 1.0, 0.0], torch.float32)
    assert torch.equal(x.grad + low.grad + high.grad, torch.ones(3))


@pytest.mark.claim(
    PAGE,
    "At a bound, at 0 and at 1, `x` and the bound tie: each gets 0.5, as in `torch.maximum`.",
    note="clamp-bounds",
)
@settings(max_examples=40, deadline=None)
@given(tensor_bounds(), dtypes)
def test_clamp_splits_a_tie_with_a_tensor_bound(case: tuple, dtype: torch.dtype) -> None:
    x, low, high = _clamp_tie(*case, dtype)
    xv, lo, hi = x.detach(), low.detach(), high.detach()
    at_low, at_high = (xv == lo).to(dtype), (xv == hi).to(dtype)
    inside = ((lo < xv) & (xv < hi)).to(dtype)
    assert torch.equal(x.grad, inside + 0.5 * (at_low + at_high))
    assert torch.equal(low.grad, (xv < lo).to(dtype) + 0.5 * at_low)
    assert torch.equal(high.grad, (xv > hi).to(dtype) + 0.5 * at_high)


@pytest.mark.claim(
    PAGE,
    "with tensor bounds that do not, `x` still gets only 0.5 at a bound, where numbers as "
    "bounds give it 0",
    note="clamp-bounds",
)
@settings(max_examples=30, deadline=None)
@given(tensor_bounds(), dtypes)
def test_a_tensor_bound_without_grad_still_takes_half(case: tuple, dtype: torch.dtype) -> None:
    xs, lows, highs = case
    x = torch.tensor(xs, dtype=dtype, requires_grad=True)
    lo, hi = torch.tensor(lows, dtype=dtype), torch.tensor(highs, dtype=dtype)
    torch.clamp(x, lo, hi).sum().backward()  # bounds that do not require grad
    xv = x.detach()
    at_bound = ((xv == lo) | (xv == hi)).to(dtype)
    inside = ((lo < xv) & (xv < hi)).to(dtype)
    assert torch.equal(x.grad, inside + 0.5 * at_bound)
    for value, low, high in zip(xs, lows, highs, strict=True):  # numbers as bounds
        assert _grad(lambda t, lo=low, hi=high: t.clamp(lo, hi), [value], dtype).item() == (
            1.0 if low < value < high else 0.0
        )


# --- Steps, indices, masks ---------------------------------------------------------------

step_points = st.lists(
    st.one_of(
        st.sampled_from([0.0, -0.0, 0.5, -0.5, 1.5, -2.5, 2.5, 3.0, 1e30, -1e30]),
        st.floats(-100, 100, allow_nan=False),
    ),
    min_size=1,
    max_size=6,
)


@pytest.mark.claim(PAGE, "their backward returns 0 everywhere")
@settings(max_examples=40, deadline=None)
@given(step_points, dtypes)
def test_round_floor_and_sign_have_a_zero_gradient_everywhere(
    values: list[float], dtype: torch.dtype
) -> None:
    x = torch.tensor(values, dtype=dtype, requires_grad=True)
    page = run_region(SNIPPET, "piecewise-constant-maths", inputs={"torch": torch, "x": x})
    for name in ("round", "floor", "sign"):
        assert f"x.grad {[0.0] * len(values)}" in next(
            line for line in page.output.splitlines() if line.startswith(name)
        )


@pytest.mark.claim(PAGE, "PyTorch rounds halves to the nearest even number")
@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=-1000, max_value=1000), dtypes)
def test_round_sends_halves_to_the_even_neighbour(k: int, dtype: torch.dtype) -> None:
    half = torch.tensor(k + 0.5, dtype=dtype)
    even = k if k % 2 == 0 else k + 1  # of k and k + 1, the even one
    assert torch.round(half).item() == even


@pytest.mark.claim(PAGE, "only floating-point (and complex) tensors can require grad")
@pytest.mark.parametrize(
    "dtype",
    [
        *(torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64),
        *(torch.float16, torch.bfloat16, torch.float32, torch.float64),
        *(torch.complex64, torch.complex128),
    ],
)
def test_only_floating_point_and_complex_tensors_can_require_grad(dtype: torch.dtype) -> None:
    t = torch.zeros(2, dtype=dtype)
    if dtype.is_floating_point or dtype.is_complex:
        assert t.requires_grad_().requires_grad
    else:
        with pytest.raises(RuntimeError, match="floating point"):
            t.requires_grad_()


@pytest.mark.claim(
    PAGE,
    "`x * (x > 0)` is a relu written by hand, and its gradient is the mask, 1 where $x > 0$ "
    "and 0 elsewhere",
)
@settings(max_examples=40, deadline=None)
@given(step_points, dtypes)
def test_the_mask_is_the_gradient(values: list[float], dtype: torch.dtype) -> None:
    x = torch.tensor(values, dtype=dtype, requires_grad=True)
    run_region(SNIPPET, "mask", inputs={"torch": torch, "x": x})
    assert torch.equal(x.grad, (x.detach() > 0).to(dtype))


# --- Hooks -------------------------------------------------------------------------------


@pytest.mark.claim(
    PAGE,
    "A tensor hook on a non-leaf runs before the pre-hooks of the node that made the "
    "tensor, whatever the order of registration.",
)
def test_hooks_run_in_backward_order_whatever_the_registration_order() -> None:
    # The page's order of registration, and the backward order by hand: h's tensor hook,
    # the node's pre-hook and hook, w's tensor hook, then the post-accumulate-grad hook.
    expected = run_region(SNIPPET, "hook-order", inputs={"torch": torch}).output
    kinds = ["tensor hook on h", "pre-hook of", "hook of", "tensor hook on w", "post-accumulate"]
    lines = [line.split(" ", 1)[1] for line in expected.splitlines()]
    assert all(line.startswith(k) for line, k in zip(lines, kinds, strict=True)), lines
    for order in itertools.permutations(range(5)):
        page = run_region(SNIPPET, "hook-order-setup", inputs={"torch": torch})
        registrations = [  # (tensor or node, how to register, the page's hook)
            ("w", "register_hook", "on_w"),
            ("w", "register_post_accumulate_grad_hook", "after_accumulate"),
            ("mul", "register_hook", "mul_hook"),
            ("mul", "register_prehook", "mul_prehook"),
            ("h", "register_hook", "on_h"),
        ]
        for i in order:
            target, method, hook = registrations[i]
            getattr(page[target], method)(page[hook])
        page["loss"].backward()
        ran = "".join(f"{n} {event}\n" for n, event in enumerate(page["events"], start=1))
        assert ran == expected, order


@pytest.mark.claim(
    PAGE,
    "when the tensor hook returns a new gradient, everything after it sees the new one: "
    "the node's pre-hook, the node itself, and `retain_grad()`.",
)
@pytest.mark.parametrize("order", list(itertools.permutations(["hook", "retain", "pre"])))
def test_a_replaced_gradient_is_what_everything_after_sees(order: tuple[str, ...]) -> None:
    page = run_region(SNIPPET, "hook-order-setup", inputs={"torch": torch})
    w, h = page["w"], page["h"]
    for what in order:
        if what == "hook":
            h.register_hook(lambda grad: grad * 10)
        elif what == "retain":
            h.retain_grad()
        else:
            page["mul"].register_prehook(page["mul_prehook"])
    page["loss"].backward()
    # By hand: d loss/dh = 2h = 12, times 10 = 120; w gets 120 · 2 = 240.
    assert page["events"][0] == "pre-hook of MulBackward0: receives 120.0"
    assert h.grad.item() == 120.0 and w.grad.item() == 240.0


# --- The quizzes' words on clamp, before and since 2.14 ------------------------------------

SINCE_2_14 = Version(torch.__version__.split("+")[0]) >= Version("2.14")


def _clamp_min_zero_at_zero(dtype: torch.dtype) -> float:
    return _grad(lambda t: t.clamp(min=0), [0.0], dtype).item()


@pytest.mark.claim(
    "docs/practice/quizzes/mechanics-that-bite.md",
    "With a number as its bound, `clamp` passes no gradient at the bound, so it gives 0 "
    "too. Before PyTorch 2.14, `clamp` gave 1 there.",
)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_the_mechanics_quiz_on_clamp_at_its_bound(dtype: torch.dtype) -> None:
    # Both halves, on whichever release runs: 0 since 2.14, 1 before.
    assert _clamp_min_zero_at_zero(dtype) == (0.0 if SINCE_2_14 else 1.0)
    assert _grad(lambda t: t.clamp(0, 1), [1.0], dtype).item() == (0.0 if SINCE_2_14 else 1.0)


@pytest.mark.claim(
    "docs/practice/quizzes/tiny-engine-trains.md",
    "(`x.clamp(min=0)` gave 1 at 0 before PyTorch 2.14; now it gives 0, like `torch.relu`.)",
)
def test_the_tiny_engine_quiz_on_clamp_at_zero() -> None:
    assert _clamp_min_zero_at_zero(torch.float32) == (0.0 if SINCE_2_14 else 1.0)
    assert _grad(torch.relu, [0.0], torch.float32).item() == 0.0


@pytest.mark.claim(
    "docs/practice/quizzes/tiny-engine-trains.md",
    "That is what `torch.maximum(x, 0)` gives at the tie, not `torch.relu`.",
)
def test_the_tiny_engine_quiz_on_maximum_at_zero() -> None:
    for dtype in (torch.float32, torch.float64):
        gradient = _grad(lambda t: torch.maximum(t, torch.zeros_like(t)), [0.0], dtype)
        assert gradient.item() == 0.5


# --- Complex leaves: z.grad = dL/dx + i dL/dy = 2 dL/d(conj z) ------------------------------

parts = st.floats(-100, 100, allow_nan=False, allow_infinity=False, width=32)
complex_values = st.lists(st.builds(complex, parts, parts), min_size=1, max_size=5)
complex_dtypes = st.sampled_from([torch.complex64, torch.complex128])


def _complex_page(values: list[complex], coefficients: list[complex], dtype: torch.dtype):
    z = torch.tensor(values, dtype=dtype, requires_grad=True)
    a = torch.tensor(coefficients, dtype=dtype)
    inputs = {"torch": torch, "z": z, "a": a}
    return run_region(SNIPPET, "complex-gradient-maths", inputs=inputs), z, a


@pytest.mark.claim(
    PAGE, r"real loss, `z.grad` is $\partial L/\partial x + i\,\partial L/\partial y$."
)
@pytest.mark.claim(PAGE, r"the gradient is $\alpha - i\beta = \bar a$, the conjugate of $a$")
@settings(max_examples=60, deadline=None)
@given(st.data(), complex_values, complex_dtypes)
def test_z_grad_is_twice_the_conjugate_wirtinger_derivative(
    data, values: list[complex], dtype: torch.dtype
) -> None:
    coefficients = data.draw(
        st.lists(st.builds(complex, parts, parts), min_size=len(values), max_size=len(values))
    )
    page, _, _ = _complex_page(values, coefficients, dtype)
    # L = |z|^2 = x^2 + y^2: dL/dx + i dL/dy = 2x + 2iy = 2z.
    hand_abs2 = torch.tensor([2 * v for v in values], dtype=dtype)
    # L = Re(a z) = alpha x - beta y: dL/dx + i dL/dy = alpha - i beta = conj(a).
    hand_linear = torch.tensor([c.conjugate() for c in coefficients], dtype=dtype)
    torch.testing.assert_close(page["grad_abs2"], hand_abs2)
    torch.testing.assert_close(page["grad_linear"], hand_linear)
    assert page["grad_abs2"].dtype == dtype


@pytest.mark.claim(PAGE, "it is plain gradient descent on the pair $(x, y)$, and $|z|^2$ went down")
@settings(max_examples=60, deadline=None)
@given(complex_values, complex_dtypes)
def test_a_step_against_z_grad_descends(values: list[complex], dtype: torch.dtype) -> None:
    page, _, _ = _complex_page(values, [1j] * len(values), dtype)
    before = sum(abs(v) ** 2 for v in values)
    # x - lr dL/dx, y - lr dL/dy with lr = 0.1: each entry times 1 - 2 lr = 0.8, so
    # |z|^2 times 0.64.
    rtol = 1e-5 if dtype == torch.complex64 else 1e-12
    assert page["loss_after"].item() == pytest.approx(0.64 * before, rel=rtol, abs=1e-6)
    if before > 1e-6:
        assert page["loss_after"].item() < page["loss"].item()


# --- Grad mode is per thread --------------------------------------------------------------


@pytest.mark.claim(PAGE, "A thread started inside a `no_grad()` block records graphs as usual")
@pytest.mark.claim(
    PAGE,
    "`set_grad_enabled(False)` called in another thread does not switch the main thread off",
)
@pytest.mark.claim(
    PAGE,
    "`no_grad()` and `set_grad_enabled()` in one thread leave every other thread's grad mode "
    "as it was.",
)
@pytest.mark.parametrize("mode", [True, False], ids=["grad on", "grad off"])
def test_grad_mode_is_per_thread(mode: bool) -> None:
    with torch.set_grad_enabled(mode):
        page = run_region(SNIPPET, "grad-mode-thread", inputs={"torch": torch})
        after = torch.is_grad_enabled()
    assert after is mode  # the other thread's set_grad_enabled(False) did not reach this one
    assert page["seen"] == {
        "other thread: grad enabled": True,  # a new thread starts with grad mode on
        "other thread: x * 2 requires grad": True,  # and records, under our no_grad()
        "other thread: grad enabled after set_grad_enabled(False)": False,
    }
    assert f"main thread afterwards: grad enabled {mode}" in page.output
    assert "main thread in no_grad(): grad enabled False" in page.output


@pytest.mark.claim(
    PAGE,
    "a step on a complex parameter is the same step on `torch.view_as_real` of it, its real "
    "and imaginary parts side by side",
)
@settings(max_examples=30, deadline=None)
@given(complex_values, complex_dtypes, st.sampled_from(["SGD", "Adam", "AdamW", "RMSprop"]))
def test_an_optimizer_steps_a_complex_parameter_as_its_real_pair(
    values: list[complex], dtype: torch.dtype, name: str
) -> None:
    page, _, _ = _complex_page(values, [1j] * len(values), dtype)
    grad = page["grad_abs2"]  # the page's z.grad for L = |z|^2
    z = torch.tensor(values, dtype=dtype, requires_grad=True)
    pair = torch.view_as_real(z.detach().clone()).requires_grad_()  # (x, y) side by side
    opt_z = getattr(torch.optim, name)([z], lr=0.1)
    opt_pair = getattr(torch.optim, name)([pair], lr=0.1)
    for _ in range(3):  # the same gradient each step: the state (moments) must agree too
        z.grad = grad.clone()
        pair.grad = torch.view_as_real(grad.clone())
        opt_z.step()
        opt_pair.step()
    torch.testing.assert_close(torch.view_as_real(z.detach()), pair.detach())

"""Going deeper: the derivations of docs/deeper/custom-functions-and-checkpointing.md's
current-style functions, run on the page's own classes.

* Exp (setup_context style): d exp(x)/dx = exp(x), per entry under vmap(grad(...));
* ExpWithJvp's jvp rule: the tangent of y = exp(x) is exp(x) times the tangent of x;
* StableSoftplus's second derivative is σ(x)(1 − σ(x)); OnceSoftplus's first is σ(x);
* TripleInPlace (with mark_dirty): h = 2a tripled in place gives d sum(h)/da = 6;
* dropout in a checkpoint: out_i = 2 m_i h_i w_i, so d sum(out)/dw_i = 2 m_i h_i, with the
  mask m the forward pass drew (preserve_rng_state=True replays it).
"""

import contextlib
import functools
import warnings

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch.autograd.gradcheck import GradcheckError
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils.checkpoint import (
    CheckpointError,
    CheckpointPolicy,
    checkpoint,
    create_selective_checkpoint_contexts,
    set_checkpoint_early_stop,
)

from . import run_region

SNIPPET = "deeper/custom_functions_and_checkpointing"
values = st.floats(min_value=-8.0, max_value=8.0, allow_nan=False, allow_infinity=False)
vectors = st.lists(values, min_size=1, max_size=5)


def _page() -> dict:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the forward-mode warning hidden by the page
        return run_region(
            SNIPPET,
            "my-exp",
            "naive-softplus",
            "softplus",
            "exp-new-style",
            "forward-mode-start",
            "jvp",
            "once-differentiable",
            "mark-dirty",
        )


PAGE = _page()


@settings(max_examples=40, deadline=None)
@given(vectors)
def test_exp_under_vmap_grad_is_exp(start: list[float]) -> None:
    x = torch.tensor(start, dtype=torch.float64)
    per_entry = torch.func.vmap(torch.func.grad(PAGE["Exp"].apply))(x)
    assert torch.allclose(per_entry, torch.exp(x))  # d e^x / dx = e^x


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(values, values), min_size=1, max_size=5))
def test_the_jvp_rule_is_exp_times_the_tangent(pairs: list[tuple[float, float]]) -> None:
    x = torch.tensor([p for p, _ in pairs], dtype=torch.float64)
    x_dot = torch.tensor([t for _, t in pairs], dtype=torch.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y, y_dot = torch.func.jvp(PAGE["ExpWithJvp"].apply, (x,), (x_dot,))
    assert torch.allclose(y, torch.exp(x))
    assert torch.allclose(y_dot, torch.exp(x) * x_dot)  # ẏ = e^x ẋ


@settings(max_examples=40, deadline=None)
@given(vectors)
def test_softplus_second_derivative_is_sigma_times_one_minus_sigma(start: list[float]) -> None:
    x = torch.tensor(start, dtype=torch.float64, requires_grad=True)
    (first,) = torch.autograd.grad(PAGE["StableSoftplus"].apply(x).sum(), x, create_graph=True)
    (second,) = torch.autograd.grad(first.sum(), x)
    s = 1 / (1 + torch.exp(-x.detach()))
    assert torch.allclose(first.detach(), s)  # softplus' = σ
    assert torch.allclose(second, s * (1 - s))  # σ' = σ(1 − σ)

    x = torch.tensor(start, dtype=torch.float64, requires_grad=True)
    (once,) = torch.autograd.grad(PAGE["OnceSoftplus"].apply(x).sum(), x, create_graph=True)
    assert torch.allclose(once, s) and not once.requires_grad


@settings(max_examples=40, deadline=None)
@given(vectors)
def test_tripling_in_place_with_mark_dirty_gives_6(start: list[float]) -> None:
    a = torch.tensor(start, dtype=torch.float64, requires_grad=True)
    h = 2 * a
    y = PAGE["TripleInPlace"].apply(h)
    assert y is h
    h.sum().backward()
    assert torch.equal(a.grad, torch.full_like(a, 6.0))  # h = 3 · 2a, so d sum(h)/da_i = 6


DROPOUT = run_region(SNIPPET, "my-exp", "dropout-rng")
positive = st.floats(min_value=0.5, max_value=8.0)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(positive, positive), min_size=2, max_size=12))
def test_checkpointed_dropout_gradient_is_two_m_h(pairs: list[tuple[float, float]]) -> None:
    # Positive h and w, so an entry of the output is 0 only where the mask dropped it.
    h = torch.tensor([a for a, _ in pairs])
    w = torch.tensor([b for _, b in pairs], requires_grad=True)
    DROPOUT["h"], DROPOUT["w"] = h, w  # the page's run() reads them from its namespace
    out, w_grad = DROPOUT["run"](preserve_rng_state=True)
    m = (out != 0).float()  # the mask the forward pass drew
    torch.testing.assert_close(out, 2 * m * h * w.detach())  # out_i = 2 m_i h_i w_i
    torch.testing.assert_close(w_grad, 2 * m * h)  # d sum(out)/dw_i = 2 m_i h_i
    _, plain_grad = DROPOUT["run"]()
    assert torch.equal(w_grad, plain_grad)


# --- @once_differentiable, at the edges of what the page says about it -------------------

CUSTOM = "docs/deeper/custom-functions-and-checkpointing.md"
TWICE = "trying to differentiate twice a function that was marked with @once_differentiable"
dtypes = st.sampled_from([torch.float32, torch.float64])
edges = st.lists(
    st.one_of(st.sampled_from([0.0, 1.0, -1.0, -2.0, 2.0]), values), min_size=1, max_size=5
)


def _sigma(x: torch.Tensor) -> torch.Tensor:
    return 1 / (1 + torch.exp(-x))


def _once(x: torch.Tensor, region: str) -> dict:
    """Run one of the page's once-differentiable regions on x (a leaf that requires grad)."""
    inputs = {"torch": torch, "OnceSoftplus": PAGE["OnceSoftplus"], "x": x}
    return run_region(SNIPPET, region, inputs=inputs)


@pytest.mark.claim(
    CUSTOM,
    "With a constant incoming gradient, the first derivative does not require grad, even "
    "with `create_graph=True`",
)
@settings(max_examples=30, deadline=None)
@given(edges, dtypes, st.sampled_from(["sum", "ones", "weights", "zeros"]))
def test_a_constant_incoming_gradient_gives_no_graph(
    start: list[float], dtype: torch.dtype, incoming: str
) -> None:
    x = torch.tensor(start, dtype=dtype, requires_grad=True)
    y = PAGE["OnceSoftplus"].apply(x)
    if incoming == "sum":
        (first,) = torch.autograd.grad(y.sum(), x, create_graph=True)
    else:
        constant = {
            "ones": torch.ones_like(x),
            "weights": torch.linspace(-1, 2, len(start), dtype=dtype),
            "zeros": torch.zeros_like(x),
        }[incoming]
        (first,) = torch.autograd.grad(y, x, constant, create_graph=True)
    assert not first.requires_grad
    # ... so a second derivative through it alone fails, by either call.
    with pytest.raises(RuntimeError, match="does not require grad"):
        torch.autograd.grad(first.sum(), x)
    with pytest.raises(RuntimeError, match="does not require grad"):
        first.sum().backward()


@pytest.mark.claim(
    CUSTOM,
    "With a constant incoming gradient, a second derivative fails only when nothing else "
    "links the first derivative to the input, and is silently wrong otherwise.",
)
@settings(max_examples=30, deadline=None)
@given(edges, dtypes)
def test_a_constant_incoming_gradient_and_another_term_is_silent(
    start: list[float], dtype: torch.dtype
) -> None:
    x = torch.tensor(start, dtype=dtype, requires_grad=True)
    page = _once(x, "once-differentiable-silent")  # softplus(x) + x³, no error
    # By hand: only the 6x of x³ survives; the σ(x)(1 − σ(x)) of softplus, which is
    # never 0, is missing.
    torch.testing.assert_close(page["second"], 6 * x.detach())


@pytest.mark.claim(
    CUSTOM,
    "So `first` requires grad this time, and `backward()` through it reaches the "
    "placeholder and raises the decorator's own error",
)
@settings(max_examples=30, deadline=None)
@given(
    edges,
    dtypes,
    st.sampled_from(["x times softplus", "softplus squared", "weight", "grad_outputs"]),
)
def test_an_incoming_gradient_that_requires_grad_makes_backward_raise(
    start: list[float], dtype: torch.dtype, loss: str
) -> None:
    x = torch.tensor(start, dtype=dtype, requires_grad=True)
    if loss == "x times softplus":  # the page's own L = sum(x · softplus(x))
        page = _once(x, "once-differentiable-inside")
        first = page["first"]
        assert "does the Error node lead to x? False" in page.output
    else:
        y = PAGE["OnceSoftplus"].apply(x)
        w = torch.linspace(-1, 2, len(start), dtype=dtype, requires_grad=True)
        if loss == "softplus squared":  # incoming gradient: softplus(x)
            (first,) = torch.autograd.grad((y**2 / 2).sum(), x, create_graph=True)
        elif loss == "weight":  # incoming gradient: w, another leaf
            (first,) = torch.autograd.grad((w * y).sum(), x, create_graph=True)
        else:  # an incoming gradient handed in that requires grad
            (first,) = torch.autograd.grad(y, x, w, create_graph=True)
    assert first.requires_grad
    with pytest.raises(RuntimeError, match=TWICE):
        first.sum().backward(retain_graph=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # backward(create_graph=True) warns of a cycle
        with pytest.raises(RuntimeError, match=TWICE):
            first.sum().backward(create_graph=True)


@pytest.mark.claim(
    CUSTOM,
    "`torch.autograd.grad` silently drops the term (it too fails when nothing else links "
    "the first derivative to the input).",
)
@settings(max_examples=30, deadline=None)
@given(edges, dtypes)
def test_autograd_grad_drops_the_term_behind_the_error_node(
    start: list[float], dtype: torch.dtype
) -> None:
    x = torch.tensor(start, dtype=dtype, requires_grad=True)
    page = _once(x, "once-differentiable-dropped")  # L = sum(x · softplus(x))
    s = _sigma(x.detach())
    # By hand: d²L/dx² = 2σ + xσ(1 − σ); autograd.grad keeps one σ only, with no error.
    torch.testing.assert_close(page["second"], s)
    # Nothing else links first to x (L = sum(softplus(x)²) / 2): then autograd.grad fails.
    x = torch.tensor(start, dtype=dtype, requires_grad=True)
    (first,) = torch.autograd.grad(
        (PAGE["OnceSoftplus"].apply(x) ** 2 / 2).sum(), x, create_graph=True
    )
    assert first.requires_grad
    with pytest.raises(RuntimeError, match="not have been used in the graph"):
        torch.autograd.grad(first.sum(), x)


def test_autograd_grad_gives_half_where_the_answer_is_one() -> None:
    x = torch.tensor([0.0], requires_grad=True)
    page = _once(x, "once-differentiable-dropped")
    assert page["second"].item() == 0.5  # 2σ(0) + 0 = 1 by hand


@pytest.mark.claim(CUSTOM, "Under `torch.func` the result is always silently wrong.")
@settings(max_examples=30, deadline=None)
@given(edges, dtypes)
def test_torch_func_is_silent_with_either_incoming_gradient(
    start: list[float], dtype: torch.dtype
) -> None:
    once = PAGE["OnceSoftplus"].apply
    for value in start:
        z = torch.tensor(value, dtype=dtype)
        s = _sigma(z)
        # A constant incoming gradient: 0 where σ(1 − σ) is right.
        assert torch.func.grad(torch.func.grad(once))(z).item() == 0.0
        assert torch.func.grad(torch.func.grad(torch.nn.functional.softplus))(z) > 0
        # An incoming gradient that requires grad (x · softplus(x)): σ, where 2σ + xσ(1 − σ).
        product = torch.func.grad(torch.func.grad(lambda t: t * once(t)))(z)
        torch.testing.assert_close(product, s)


# --- Selective checkpointing: what the policy keeps ---------------------------------------


@functools.cache
def _selective() -> dict:
    return run_region(SNIPPET, "my-exp", "mlp", "counting", "selective")


@pytest.mark.claim(
    CUSTOM,
    "So the two `addmm` outputs kept (32 and 8 KiB) are exactly as large as the two tanh "
    "outputs that no checkpoint keeps (32 and 8 KiB)",
)
@pytest.mark.parametrize("rows", [1, 7, 32])  # 32 rows: the page's batch
def test_selective_checkpointing_keeps_what_no_checkpoint_keeps(rows: int) -> None:
    page = _selective()
    block, policy, width = page["blocks"][0], page["save_matmuls"], page["WIDTH"]
    h = torch.randn(rows, width)
    kept: list[int] = []  # the bytes of every result the page's policy keeps

    def recording(ctx, op, *args, **kwargs):
        decision = policy(ctx, op, *args, **kwargs)
        if decision == CheckpointPolicy.MUST_SAVE and not ctx.is_recompute:
            kept.append(op(*args, **kwargs).untyped_storage().nbytes())
        return decision

    context = functools.partial(create_selective_checkpoint_contexts, recording)
    checkpoint(block, h, use_reentrant=False, context_fn=context).sum().backward()
    # Without a checkpoint, the page's own counter, leaving out the parameters and the
    # input (the checkpoint keeps the input too).
    saved = page["SavedTensors"]([*block.parameters(), h])
    with saved.hooks():
        block(h)
    # By hand: the widened (rows x 4 width) and the narrowed (rows x width) activations,
    # 4 bytes a float, kept once each way.
    by_hand = [rows * 4 * width * 4, rows * width * 4]
    assert sorted(kept, reverse=True) == by_hand
    assert sorted(saved.memory.values(), reverse=True) == by_hand
    if rows == 32:
        assert [b // 1024 for b in by_hand] == [32, 8]


# --- ClipAndCount and clamp at the bounds ------------------------------------------------

CLIP = run_region(SNIPPET, "my-exp", "non-differentiable")
BOUNDS = [1.0, -1.0, 0.0, 0.5, -0.5, 2.0, -3.0, 1.0 + 2**-20, -(1.0 - 2**-20), 1.0 - 2**-20]
clip_points = st.lists(
    st.one_of(st.sampled_from(BOUNDS), st.floats(-4, 4, allow_nan=False)), min_size=1, max_size=6
)


@pytest.mark.claim(
    CUSTOM,
    "At the bounds themselves, $\\pm 1$, nothing is clipped, so `ClipAndCount` passes the "
    "gradient there too",
)
@settings(max_examples=40, deadline=None)
@given(clip_points, dtypes)
def test_clip_and_count_passes_the_gradient_wherever_nothing_was_clipped(
    start: list[float], dtype: torch.dtype
) -> None:
    x = torch.tensor(start, dtype=dtype, requires_grad=True)
    out, clipped = CLIP["ClipAndCount"].apply(x)
    out.sum().backward()
    inside = (x.detach().abs() <= 1).to(dtype)  # by hand: 1 on [-1, 1], the bounds included
    assert torch.equal(x.grad, inside)
    assert torch.equal(clipped, 1 - inside)  # the mask: 1 exactly where it clipped
    assert torch.equal(out.detach(), x.detach().clamp(-1, 1))


@pytest.mark.claim(CUSTOM, "PyTorch's own `clamp` now gives 0 at its bounds", note="clamp-bounds")
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_clamp_gives_zero_at_its_bounds_where_clip_and_count_gives_one(dtype: torch.dtype) -> None:
    page = run_region(SNIPPET, "my-exp", "non-differentiable", "clip-at-the-bounds")
    assert "ClipAndCount, gradient at -1 and 1: [1.0, 1.0]" in page.output
    assert "torch.clamp,  gradient at -1 and 1: [0.0, 0.0]" in page.output
    x = torch.tensor([-1.0, 1.0, 0.0, 1.0 - 2**-20], dtype=dtype, requires_grad=True)
    x.clamp(-1, 1).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 1.0, 1.0]  # 0 at the bounds only


# --- Saved tensors, the STE, the reentrant checkpoint, save_on_cpu --------------------------


@pytest.mark.claim(CUSTOM, "Saved this way, they are freed with the graph")
@pytest.mark.parametrize("retain", [False, True])
def test_saved_tensors_are_freed_with_the_graph(retain: bool) -> None:
    x = torch.tensor([0.0, 1.0, 2.0], requires_grad=True)
    y = PAGE["MyExp"].apply(x)
    node = y.grad_fn
    assert torch.equal(node.saved_tensors[0], y.detach())
    y.sum().backward(retain_graph=retain)
    if retain:  # kept while the graph is kept
        assert torch.equal(node.saved_tensors[0], y.detach())
    else:
        with pytest.raises(RuntimeError, match="freed"):
            node.saved_tensors  # noqa: B018


ste_points = st.lists(
    st.one_of(
        st.sampled_from([0.5, -0.5, 1.5, 2.5, -2.5, 0.0, -0.0, 0.49999997, 2**23 + 1.0]),
        st.floats(-1e6, 1e6, allow_nan=False),
    ),
    min_size=1,
    max_size=6,
)


@pytest.mark.claim(CUSTOM, "Both give the rounded values forward and a gradient of 1 backward.")
@settings(max_examples=40, deadline=None)
@given(ste_points, dtypes)
def test_both_straight_through_estimators_round_forward_and_pass_one_back(
    values: list[float], dtype: torch.dtype
) -> None:
    ste = run_region(SNIPPET, "my-exp", "ste")
    x = torch.tensor(values, dtype=dtype, requires_grad=True)
    y = ste["RoundSTE"].apply(x)
    y.sum().backward()
    x_trick = torch.tensor(values, dtype=dtype, requires_grad=True)
    trick = run_region(SNIPPET, "ste-trick-maths", inputs={"torch": torch, "x_trick": x_trick})
    rounded = torch.round(torch.tensor(values, dtype=dtype))  # halves to even
    for value, gradient in ((y, x.grad), (trick["y_trick"], x_trick.grad)):
        assert torch.equal(value.detach(), rounded)  # exactly, also for the trick's sum
        assert torch.equal(gradient, torch.ones_like(rounded))


def _checkpoint_page() -> dict:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the page's own "None of the inputs have requires_grad"
        return run_region(SNIPPET, "my-exp", "reentrant-no-input-grad", "non-reentrant-grad")


@pytest.mark.claim(CUSTOM, "`torch.autograd.grad` and `backward(inputs=...)` are refused")
@pytest.mark.parametrize("call", ["grad", "backward(inputs=...)"])
def test_the_reentrant_checkpoint_refuses_grad_and_backward_inputs(call: str) -> None:
    layer = _checkpoint_page()["layer"]
    x_in = torch.randn(2, 3, requires_grad=True)
    out = checkpoint(layer, x_in, use_reentrant=True)
    with pytest.raises(RuntimeError, match="use_reentrant=True"):
        if call == "grad":
            torch.autograd.grad(out.sum(), x_in)
        else:
            out.sum().backward(inputs=[x_in])


@pytest.mark.claim(CUSTOM, "The non-reentrant variant has neither limit:")
@pytest.mark.parametrize("call", ["grad", "backward(inputs=...)"])
def test_the_non_reentrant_checkpoint_allows_both(call: str) -> None:
    layer = _checkpoint_page()["layer"]
    x_in = torch.randn(2, 3, requires_grad=True)
    out = checkpoint(layer, x_in, use_reentrant=False)
    if call == "grad":
        (got,) = torch.autograd.grad(out.sum(), x_in)
    else:
        layer.zero_grad()
        out.sum().backward(inputs=[x_in])
        got = x_in.grad
        assert layer.weight.grad is None  # only the listed input
    # By hand: d sum(x Wᵀ + b) / dx = 1 Wᵀ: every row is the column sums of W.
    torch.testing.assert_close(got, layer.weight.detach().sum(0).expand(2, 3))


@pytest.mark.claim(
    CUSTOM,
    "On a machine without a GPU, such as the one that builds this site, the saved tensors "
    "are already in CPU memory, and it moves nothing.",
)
def test_save_on_cpu_moves_nothing_on_a_cpu() -> None:
    run_region(SNIPPET, "my-exp", "save-on-cpu")
    hooks = torch.autograd.graph.save_on_cpu()
    for t in (torch.randn(4, 3), torch.randn(4, 3, dtype=torch.float64).t(), torch.zeros(0)):
        device, packed = hooks.pack_hook(t)
        assert packed is t and device == t.device  # the same tensor: no copy, no move
    # ... and a graph saved under it gives the same gradient as without it.
    x = torch.tensor([0.0, 1.0, 2.0], requires_grad=True)
    with torch.autograd.graph.save_on_cpu():
        y = PAGE["MyExp"].apply(x)
    y.sum().backward()
    assert torch.equal(x.grad, torch.exp(x.detach()))


# --- Double backward: save inputs and outputs, not intermediates ----------------------------

DOUBLE = run_region(
    SNIPPET,
    "my-exp",
    "saved-output",
    "saved-intermediate",
    "intermediate-as-output",
    "materialize-grads",
)


@pytest.mark.claim(CUSTOM, "A saved *output* works too.")
@settings(max_examples=30, deadline=None)
@given(edges, dtypes)
def test_a_saved_output_supports_double_and_triple_backward(
    start: list[float], dtype: torch.dtype
) -> None:
    x = torch.tensor(start, dtype=dtype, requires_grad=True)
    y = DOUBLE["MyExp"].apply(x)
    (first,) = torch.autograd.grad(y.sum(), x, create_graph=True)
    (second,) = torch.autograd.grad(first.sum(), x, create_graph=True)
    (third,) = torch.autograd.grad(second.sum(), x)
    e = torch.exp(x.detach())
    for derivative in (first, second, third):  # every derivative of e^x is e^x
        torch.testing.assert_close(derivative.detach(), e)
    # An incoming gradient that requires grad: L = sum(x e^x), L'' = 2e^x + x e^x.
    x = torch.tensor(start, dtype=dtype, requires_grad=True)
    (first,) = torch.autograd.grad((x * DOUBLE["MyExp"].apply(x)).sum(), x, create_graph=True)
    (second,) = torch.autograd.grad(first.sum(), x)
    torch.testing.assert_close(second, (2 + x.detach()) * torch.exp(x.detach()))


@pytest.mark.claim(
    CUSTOM,
    "The first derivative is right, and `gradcheck` passes: it checks first derivatives only.",
)
@settings(max_examples=20, deadline=None)
@given(edges, dtypes)
def test_a_saved_intermediate_passes_gradcheck_and_gives_no_graph(
    start: list[float], dtype: torch.dtype
) -> None:
    function = DOUBLE["SoftplusSavedSigmoid"].apply
    x = torch.tensor(start, dtype=dtype, requires_grad=True)
    (first,) = torch.autograd.grad(function(x).sum(), x, create_graph=True)
    torch.testing.assert_close(first, _sigma(x.detach()))  # softplus' = σ
    assert not first.requires_grad  # a constant incoming gradient times a constant s
    x64 = torch.tensor(start, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(function, (x64,))


@pytest.mark.claim(CUSTOM, "`gradgradcheck` catches it.")
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("points", [[-2.0, 0.0, 2.0], [0.5], [-7.0, 3.0]])
def test_gradgradcheck_rejects_the_saved_intermediate(seed: int, points: list[float]) -> None:
    torch.manual_seed(seed)
    x = torch.tensor(points, dtype=torch.float64, requires_grad=True)
    with pytest.raises(GradcheckError, match="Jacobian mismatch"):
        torch.autograd.gradgradcheck(DOUBLE["SoftplusSavedSigmoid"].apply, (x,))
    # ... while StableSoftplus, which recomputes σ(x) from the saved input, passes.
    x = torch.tensor(points, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradgradcheck(PAGE["StableSoftplus"].apply, (x,))


@pytest.mark.claim(
    CUSTOM,
    "Autograd gets the two $\\sigma(x)$ terms but not the last one, the derivative of the "
    "frozen $s$. That term is 0 at $x = 0$, so there the answer happens to be right",
)
@settings(max_examples=30, deadline=None)
@given(edges, dtypes)
def test_a_saved_intermediate_silently_drops_the_term_of_s(
    start: list[float], dtype: torch.dtype
) -> None:
    x = torch.tensor(start, dtype=dtype, requires_grad=True)
    inputs = {"torch": torch, "x": x, "SoftplusSavedSigmoid": DOUBLE["SoftplusSavedSigmoid"]}
    page = run_region(SNIPPET, "saved-intermediate-silent", inputs=inputs)
    s = _sigma(x.detach())
    torch.testing.assert_close(page["second"], 2 * s)  # σ + σ, no error
    right = 2 * s + x.detach() * s * (1 - s)  # by hand
    missing = x.detach() * s * (1 - s)
    torch.testing.assert_close(page["second"] + missing, right)
    at_zero = x.detach() == 0  # the missing term is 0 there: the same answer, exactly
    assert torch.equal(page["second"][at_zero], right[at_zero])
    assert torch.equal(page["second"][at_zero], torch.ones_like(right[at_zero]))  # 2σ(0) = 1


@pytest.mark.claim(
    CUSTOM, "The second derivative is now $\\sigma(1 - \\sigma)$, and `gradgradcheck` passes."
)
@settings(max_examples=30, deadline=None)
@given(edges, dtypes, st.floats(-2, 2), st.floats(-2, 2))
def test_an_intermediate_returned_as_an_output_supports_double_backward(
    start: list[float], dtype: torch.dtype, a: float, b: float
) -> None:
    function = DOUBLE["SoftplusAndSigmoid"].apply
    x = torch.tensor(start, dtype=dtype, requires_grad=True)
    y, _ = function(x)
    (first,) = torch.autograd.grad(y.sum(), x, create_graph=True)
    (second,) = torch.autograd.grad(first.sum(), x)
    s = _sigma(x.detach())
    torch.testing.assert_close(second, s * (1 - s))
    # Both outputs in the loss, L = sum(a y + b s): L' = aσ + bσ(1 - σ),
    # L'' = aσ(1 - σ) + bσ(1 - σ)(1 - 2σ).
    x = torch.tensor(start, dtype=dtype, requires_grad=True)
    y, s_out = function(x)
    (first,) = torch.autograd.grad((a * y + b * s_out).sum(), x, create_graph=True)
    (second,) = torch.autograd.grad(first.sum(), x)
    torch.testing.assert_close(first.detach(), a * s + b * s * (1 - s))
    torch.testing.assert_close(second, a * s * (1 - s) + b * s * (1 - s) * (1 - 2 * s))
    torch.manual_seed(0)
    x64 = torch.tensor(start, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradgradcheck(lambda t: function(t)[0], (x64,))
    assert torch.autograd.gradgradcheck(lambda t: sum(function(t)), (x64,))


def _received(function, use: str) -> list[str]:
    """What backward received, one call: the loss uses the softplus, the sigmoid, or both."""
    DOUBLE["SoftplusAndSigmoid"].calls.clear()
    x = torch.tensor([-1.0, 0.5], requires_grad=True)
    y, s = function.apply(x)
    loss = {"y": y.sum(), "s": s.sum(), "both": (y + s).sum()}[use]
    loss.backward()
    return list(DOUBLE["SoftplusAndSigmoid"].calls)


@pytest.mark.claim(CUSTOM, "The gradient of an unused output then arrives as `None`")
@pytest.mark.parametrize("use", ["y", "s", "both"])
def test_set_materialize_grads_false_gives_none_for_an_unused_output(use: str) -> None:
    ones = str([1.0, 1.0])
    by_default = _received(DOUBLE["SoftplusAndSigmoid"], use)
    without = _received(DOUBLE["SoftplusAndSigmoidNone"], use)  # logs into the same list
    expected = {
        "y": (f"grad_y {ones}, grad_s zeros", f"grad_y {ones}, grad_s None"),
        "s": (f"grad_y zeros, grad_s {ones}", f"grad_y None, grad_s {ones}"),
        "both": (f"grad_y {ones}, grad_s {ones}",) * 2,
    }[use]
    assert by_default == [expected[0]]  # by default: autograd fills in zeros
    assert without == [expected[1]]


# --- Nesting, early stop, autocast and the determinism check -------------------------------


@functools.cache
def _nested() -> dict:
    return run_region(SNIPPET, "my-exp", "mlp", "counting", "nested", "early-stop")


def _order_of_calls(early_stop: bool) -> list[int]:
    page = _nested()
    blocks, order = page["blocks"], []
    hooks = [
        blocks[i].register_forward_pre_hook(lambda m, a, i=i: order.append(i)) for i in range(4)
    ]
    try:
        with set_checkpoint_early_stop(early_stop):
            out = page["pairs_in_one"](page["inputs"])
        order.clear()
        out.sum().backward()
    finally:
        for hook in hooks:
            hook.remove()
    return order


@pytest.mark.claim(
    CUSTOM,
    "During `backward()`, the outer segment is recomputed first, to recreate what it keeps "
    "for its own graph: the input of the second pair, which blocks 0 and 1 compute. Then "
    "each pair is recomputed when its tensors are needed.",
)
def test_the_outer_checkpoint_recomputes_first_and_stops_early() -> None:
    assert "pairs in one          8  [2, 2, 1, 1]" in _nested().output
    # Outer recomputation (blocks 0, 1), then the second pair, then the first.
    assert _order_of_calls(early_stop=True) == [0, 1, 2, 3, 0, 1]


@pytest.mark.claim(
    CUSTOM,
    "`torch.utils.checkpoint.set_checkpoint_early_stop(False)`, active while the forward "
    "pass runs, turns it off.",
)
def test_without_early_stop_the_outer_recomputation_runs_every_block() -> None:
    assert _order_of_calls(early_stop=False) == [0, 1, 2, 3, 2, 3, 0, 1]


class _CountMatmuls(TorchDispatchMode):
    def __init__(self) -> None:
        super().__init__()
        self.addmm = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.addmm += func.overloadpacket.__name__ == "addmm"
        return func(*args, **(kwargs or {}))


@pytest.mark.claim(
    CUSTOM,
    "With early stop, the recomputation ends as `head` starts, before its matrix product "
    "runs; without it, `head` runs to the end",
)
@pytest.mark.parametrize("early_stop", [True, False])
def test_early_stop_skips_the_head_s_product(early_stop: bool) -> None:
    page = _nested()
    assert "early stop True : head's forward completed 0 time(s)" in page.output
    assert "early stop False: head's forward completed 1 time(s)" in page.output
    with set_checkpoint_early_stop(early_stop):
        out = checkpoint(page["block_and_head"], page["inputs"], use_reentrant=False)
    with _CountMatmuls() as ops:
        out.sum().backward()
    # By hand: block 0's two products (widen, narrow) must run again; head's only
    # without early stop.
    assert ops.addmm == (2 if early_stop else 3)


@pytest.mark.claim(
    CUSTOM, "The reentrant variant has no early stop: it always runs its whole segment again."
)
def test_the_reentrant_variant_always_runs_the_whole_segment() -> None:
    page = _nested()
    h = page["inputs"].clone().requires_grad_()  # the reentrant variant needs such an input
    with set_checkpoint_early_stop(True):
        out = checkpoint(page["block_and_head"], h, use_reentrant=True)
    with _CountMatmuls() as ops:
        out.sum().backward()
    assert ops.addmm == 3


@functools.cache
def _autocast_page() -> dict:
    return run_region(SNIPPET, "my-exp", "mlp", "autocast")


@pytest.mark.claim(
    CUSTOM,
    "`checkpoint` records whether autocast was on, and with which type, and runs the "
    "recomputation under the same setting",
)
@pytest.mark.parametrize("forward_in_autocast", [True, False])
@pytest.mark.parametrize("use_reentrant", [False, True])
def test_the_recomputation_replays_the_forward_pass_s_autocast(
    forward_in_autocast: bool, use_reentrant: bool
) -> None:
    page = _autocast_page()
    assert "[torch.bfloat16, torch.bfloat16]" in page.output
    block, inputs = page["blocks"][0], page["inputs"].clone().requires_grad_()
    dtypes: list[torch.dtype] = []
    hook = block.widen.register_forward_hook(lambda m, a, out: dtypes.append(out.dtype))
    autocast = torch.autocast("cpu", dtype=torch.bfloat16)
    try:
        block.zero_grad()
        with autocast if forward_in_autocast else contextlib.nullcontext():
            out = checkpoint(block, inputs, use_reentrant=use_reentrant)
        # backward() under the opposite setting: the recomputation must not follow it.
        with contextlib.nullcontext() if forward_in_autocast else autocast:
            out.float().sum().backward()
    finally:
        hook.remove()
    expected = torch.bfloat16 if forward_in_autocast else torch.float32
    assert dtypes == [expected, expected]


_DETERMINISM = "Recomputed values for the following tensors have different metadata"


@pytest.mark.claim(
    CUSTOM,
    'with `determinism_check="default"`, each recomputed tensor must have the shape, the '
    "type and the device of the one the forward pass saved",
)
@pytest.mark.parametrize("change", ["shape", "dtype"])
def test_the_determinism_check_catches_a_shape_or_dtype_change(change: str) -> None:
    setting = {"rows": 3, "dtype": torch.float32}

    def segment(h: torch.Tensor) -> torch.Tensor:
        return h[: setting["rows"]].to(setting["dtype"]).pow(2).sum()

    h = torch.arange(1.0, 6.0, requires_grad=True)
    out = checkpoint(segment, h, use_reentrant=False)
    setting.update(rows=4) if change == "shape" else setting.update(dtype=torch.float64)
    with pytest.raises(CheckpointError, match=_DETERMINISM):
        out.backward()
    # The page's own segment, with its own setting changed.
    page = run_region(SNIPPET, "my-exp", "determinism-check")
    with pytest.raises(CheckpointError, match=r"'shape': torch\.Size"):
        page["out"].backward()


@pytest.mark.claim(
    CUSTOM,
    "The check compares shapes, types and devices, not values. A change that keeps every "
    "shape goes through, and gives a wrong gradient.",
)
@settings(max_examples=20, deadline=None)
@given(st.floats(-3, 3), st.lists(st.floats(-4, 4), min_size=1, max_size=5))
def test_a_value_change_goes_through_the_determinism_check(
    new_offset: float, values: list[float]
) -> None:
    page = run_region(SNIPPET, "my-exp", "determinism-silent")
    assert torch.equal(page["h"].grad, 2 * (page["h"].detach() + 1))  # 2(h + 1), not 2h
    h = torch.tensor(values, requires_grad=True)
    page["offset"]["value"] = 0.0
    out = checkpoint(page["shifted_square"], h, use_reentrant=False)
    page["offset"]["value"] = new_offset
    out.backward()
    # By hand: the square saved h + c; recomputed with the new c, d/dh = 2(h + c_new).
    torch.testing.assert_close(h.grad, 2 * (h.detach() + new_offset))


@pytest.mark.claim(CUSTOM, '`determinism_check="none"` turns the check off.')
def test_determinism_check_none_turns_the_check_off() -> None:
    page = run_region(SNIPPET, "my-exp", "determinism-check")  # rows["kept"] changed to 4
    out = checkpoint(
        page["first_rows"],
        torch.arange(1.0, 6.0, requires_grad=True),
        use_reentrant=False,
        determinism_check="none",
    )
    page["rows"]["kept"] = 5
    with pytest.raises(RuntimeError) as error:  # a size error deeper in, not the check's
        out.backward()
    assert not isinstance(error.value, CheckpointError)

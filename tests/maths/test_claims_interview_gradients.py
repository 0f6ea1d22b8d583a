"""Interview pages on gradients and their products, at the edges of their claims.

* what-is-a-hessian-vector-product.md: for the page's f, H is symmetric by hand, so
  ``functional.vhp`` equals ``functional.hvp``, the double backward and H @ v at any
  point and along any v, in float32 and float64; ``hvp``'s documented caveat stands.
* what-are-vanishing-and-exploding-gradients.md: sigmoid' <= 1/4 and tanh' <= 1 at every
  input (equal at 0); ``clip_grad_norm_`` returns the norm it found and scales every
  entry by one factor to ``max_norm`` (or leaves the gradient alone at or below it);
  ``clip_grad_value_`` clamps each entry, the bounds included.
* what-is-the-difference-between-forward-and-reverse-mode.md: reverse mode saves one
  tensor per tanh of the page's chain, at any length; forward mode saves none.
* gradient-of-softmax-cross-entropy.md: the page's own check of (p - T)/N on logits of
  any size (huge, tied), with every entry within 1/N, rows summing to 0.
* how-do-you-compute-per-sample-gradients.md: the mean of the per-sample gradients is
  the batch gradient at batch sizes 1 to 7; the 1025 MiB by hand; ``vmap`` with dropout
  and with batch norm.
* how-does-backprop-handle-broadcasting.md: the engine's reduction is ``sum_to_size``
  for each of the 15 shapes that broadcast to (2, 4, 3), and by hand; a custom
  Function's gradient is summed, or refused when it cannot be.
* what-does-create-graph-do.md: the reference-cycle warning comes once per process (a
  fresh one) unless ``set_warn_always``; ``autograd.grad`` leaves ``.grad`` alone.
* what-is-a-vector-jacobian-product.md: ``y.backward(v)`` is the gradient of v·y and
  2 x v by hand, for any x and v.
"""

from __future__ import annotations

import itertools
import subprocess
import sys

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.maths import run_region

HVP_PAGE = "docs/interview/what-is-a-hessian-vector-product.md"
HVP = "interview/what_is_a_hessian_vector_product"

small = st.floats(-10, 10, allow_nan=False, width=32)
vectors = st.lists(small, min_size=3, max_size=3)


def hessian_by_hand(x: torch.Tensor) -> torch.Tensor:
    x1, x2, x3 = x.tolist()
    return torch.tensor(
        [[2 * x2, 2 * x1, 0], [2 * x1, 0, 2 * x3], [0, 2 * x3, 2 * x2]], dtype=x.dtype
    )


@pytest.mark.claim(
    HVP_PAGE, "which computes $v^\\top H$: the same vector, because $H$ is symmetric"
)
@settings(max_examples=30, deadline=None)
@given(vectors, vectors, st.sampled_from([torch.float32, torch.float64]))
def test_vhp_is_hvp(point: list[float], direction: list[float], dtype: torch.dtype) -> None:
    f = run_region(HVP, "demonstration")["f"]
    x = torch.tensor(point, dtype=dtype)
    v = torch.tensor(direction, dtype=dtype)
    H = hessian_by_hand(x)
    assert torch.equal(H, H.T)
    _, vh = torch.autograd.functional.vhp(f, x, v)
    _, hv = torch.autograd.functional.hvp(f, x, v)
    leaf = x.clone().requires_grad_()
    (g,) = torch.autograd.grad(f(leaf), leaf, create_graph=True)
    (double_backward,) = torch.autograd.grad(g @ v, leaf)
    tolerance = {"rtol": 1e-5, "atol": 1e-4} if dtype == torch.float32 else {}
    for result in (vh, hv, double_backward):
        torch.testing.assert_close(result, H @ v, **tolerance)
    torch.testing.assert_close(vh, hv, **tolerance)  # equal up to rounding


@pytest.mark.claim(HVP_PAGE, "its documentation says that it is significantly slower than `vhp`")
def test_hvp_documentation_recommends_vhp() -> None:
    page = run_region(HVP, "demonstration")
    assert "functional.vhp:       tensor([ 4., -4., -4.])" in page.output
    doc = " ".join(torch.autograd.functional.hvp.__doc__.split())
    assert "This function is significantly slower than `vhp`" in doc
    assert "twice continuously differentiable" in doc and "you should use vhp instead" in doc


VANISHING_PAGE = "docs/interview/what-are-vanishing-and-exploding-gradients.md"
VANISHING = "interview/what_are_vanishing_and_exploding_gradients"


@pytest.mark.claim(VANISHING_PAGE, "Sigmoid's slope is at most $\\frac{1}{4}$")
@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.one_of(st.just(0.0), st.floats(-1e4, 1e4)), min_size=1, max_size=8),
    st.sampled_from([torch.float32, torch.float64]),
)
def test_slopes_are_at_most_a_quarter_and_one(values: list[float], dtype: torch.dtype) -> None:
    page = run_region(VANISHING, "factor")
    assert page.output.splitlines() == [
        "largest slope of sigmoid: 0.2500",
        "largest slope of tanh: 1.0000",
    ]
    z = torch.tensor(values, dtype=dtype, requires_grad=True)
    (sigmoid_slope,) = torch.autograd.grad(torch.sigmoid(z).sum(), z)
    (tanh_slope,) = torch.autograd.grad(torch.tanh(z).sum(), z)
    assert (sigmoid_slope <= 0.25).all() and (tanh_slope <= 1).all()  # s(1 - s) <= 1/4, 1 - t² <= 1
    at_zero = z.detach() == 0  # where the bounds are reached
    assert (sigmoid_slope[at_zero] == 0.25).all() and (tanh_slope[at_zero] == 1).all()


def _filled(dtype: torch.dtype, scale: float) -> list[torch.nn.Parameter]:
    generator = torch.Generator().manual_seed(0)
    params = [
        torch.nn.Parameter(torch.zeros(3, 2, dtype=dtype)),
        torch.nn.Parameter(torch.zeros(4, dtype=dtype)),
    ]
    for p in params:
        p.grad = torch.randn(p.shape, generator=generator, dtype=dtype)
    total = torch.cat([p.grad.flatten() for p in params]).norm()
    for p in params:
        p.grad *= scale / total  # a total norm of exactly `scale` (up to rounding)
    return params


@pytest.mark.claim(
    VANISHING_PAGE, "scales every gradient by the same factor so that the total becomes"
)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("scale", [0.5, 1.0, 3.0, 1e12])
def test_clip_grad_norm(scale: float, dtype: torch.dtype) -> None:
    page = run_region(VANISHING, "factor", "stacks", "exploding-path", "clip")
    assert "after: 1.0000" in page.output and "same direction (cosine): 1.0000" in page.output
    params = _filled(dtype, scale)
    before = torch.cat([p.grad.flatten() for p in params])
    found = torch.nn.utils.clip_grad_norm_(params, max_norm=1.0)
    after = torch.cat([p.grad.flatten() for p in params])
    torch.testing.assert_close(found, before.norm())  # "It returns the norm it found"
    if scale > 1:
        torch.testing.assert_close(after.norm(), torch.tensor(1.0, dtype=dtype), rtol=1e-5, atol=0)
        ratio = after / before  # one factor for every entry
        torch.testing.assert_close(ratio, ratio[:1].expand_as(ratio))
    else:  # at or below max_norm: unchanged (up to the 1e-6 in its coefficient, at 1)
        torch.testing.assert_close(after, before, rtol=2e-6, atol=0)


@pytest.mark.claim(VANISHING_PAGE, "it clamps every entry to")
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_clip_grad_value_clamps_each_entry(dtype: torch.dtype) -> None:
    page = run_region(VANISHING, "factor", "stacks", "exploding-path", "clip", "clip-value")
    assert "largest entry 1.0" in page.output
    p = torch.nn.Parameter(torch.zeros(7, dtype=dtype))
    p.grad = torch.tensor([-5.0, -1.0, -0.5, 0.0, 0.5, 1.0, 5.0], dtype=dtype)  # the bounds, too
    torch.nn.utils.clip_grad_value_([p], clip_value=1.0)
    assert p.grad.tolist() == [-1.0, -1.0, -0.5, 0.0, 0.5, 1.0, 1.0]


MODES_PAGE = "docs/interview/what-is-the-difference-between-forward-and-reverse-mode.md"
MODES = "interview/what_is_the_difference_between_forward_and_reverse_mode"


@pytest.mark.claim(MODES_PAGE, "The saved tensors of reverse mode grow with the length of the")
@pytest.mark.parametrize("length", [1, 3, 10, 25])
def test_reverse_mode_saves_one_tensor_per_tanh(length: int) -> None:
    page = run_region(MODES, "quiet-start", "memory")
    assert page.output.splitlines() == [
        "forward pass for reverse mode: saved 10 tensors",
        "forward mode: saved 0 tensors",
    ]
    page["range"] = lambda _n: range(length)  # the page's chain, of another length
    saved, pack = page["saved"], page["pack"]
    for dtype in (torch.float32, torch.float64):
        saved.clear()
        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            out = page["chain"](torch.randn(100, dtype=dtype, requires_grad=True))
        assert len(saved) == length  # each tanh keeps its output: grows with the chain
        saved.clear()
        fw = page["fwAD"]
        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t), fw.dual_level():
            out = page["chain"](
                fw.make_dual(torch.randn(100, dtype=dtype), torch.ones(100, dtype=dtype))
            )
            tangent = fw.unpack_dual(out).tangent
        assert len(saved) == 0 and tangent is not None  # forward mode: none, at any length


SOFTMAX_PAGE = "docs/interview/gradient-of-softmax-cross-entropy.md"
SOFTMAX = "interview/gradient_of_softmax_cross_entropy"
logit_values = st.one_of(
    st.sampled_from([0.0, 1e4, -1e4, 88.0, -104.0, 1e30]), st.floats(-100, 100)
)


@pytest.mark.claim(SOFTMAX_PAGE, "every entry lies between $-1$ and")
@settings(max_examples=40, deadline=None)
@given(
    st.integers(1, 4),
    st.integers(2, 5),
    st.data(),
    st.sampled_from([torch.float32, torch.float64]),
)
def test_p_minus_t_over_n_and_its_bounds(
    n: int, classes: int, data: st.DataObject, dtype: torch.dtype
) -> None:
    values = data.draw(st.lists(logit_values, min_size=n * classes, max_size=n * classes))
    logits = torch.tensor(values, dtype=dtype).reshape(n, classes).requires_grad_()
    targets = torch.tensor(data.draw(st.lists(st.integers(0, classes - 1), min_size=n, max_size=n)))
    page = run_region(  # the page's own check: assert_close(by_hand, logits.grad)
        SOFTMAX,
        "batch-maths",
        inputs={"torch": torch, "F": torch.nn.functional, "logits": logits, "targets": targets},
    )
    grad = page["logits"].grad
    assert torch.isfinite(grad).all()
    assert (grad.abs() <= 1 / n).all()  # between -1 and 1, divided by N
    torch.testing.assert_close(grad.sum(dim=1), torch.zeros(n, dtype=dtype), rtol=0, atol=1e-6)
    true_class = grad[torch.arange(n), targets]
    assert (true_class <= 0).all()  # p - 1: negative (or 0 when p rounds to 1)


PER_SAMPLE_PAGE = "docs/interview/how-do-you-compute-per-sample-gradients.md"
PER_SAMPLE = "interview/how_do_you_compute_per_sample_gradients"


@pytest.mark.claim(PER_SAMPLE_PAGE, "and its mean is the usual batch gradient")
@pytest.mark.parametrize("batch", [1, 2, 7])
def test_per_sample_mean_is_the_batch_gradient(batch: int) -> None:
    page = run_region(PER_SAMPLE, "demonstration")
    model, example_loss = page["model"], page["example_loss"]
    X, target = torch.randn(batch, 2), torch.randn(batch)
    params = {name: p.detach() for name, p in model.named_parameters()}
    per_sample = torch.func.vmap(torch.func.grad(example_loss), in_dims=(None, 0, 0))(
        params, X, target
    )
    model.zero_grad()
    ((model(X).squeeze(1) - target) ** 2).mean().backward()
    for name, p in model.named_parameters():
        assert per_sample[name].shape == (batch, *p.shape)
        torch.testing.assert_close(per_sample[name].mean(dim=0), p.grad)


@pytest.mark.claim(PER_SAMPLE_PAGE, "1025 MiB in float32")
def test_the_memory_of_per_sample_gradients() -> None:
    layer = torch.nn.Linear(1024, 1024)
    numbers = sum(p.numel() for p in layer.parameters())  # 1024² weights + 1024 biases
    assert numbers == 1024 * 1025
    assert 256 * numbers * 4 == 1025 * 2**20  # B P numbers of 4 bytes: 1025 MiB


@pytest.mark.claim(PER_SAMPLE_PAGE, "`vmap` refuses random operations by default")
def test_vmap_and_dropout() -> None:
    drop = torch.nn.Dropout(p=0.5)
    x = torch.ones(4, 8)
    with pytest.raises(RuntimeError, match="randomness"):
        torch.func.vmap(drop)(x)
    torch.manual_seed(0)
    masks = torch.func.vmap(drop, randomness="different")(x) != 0
    assert not all(torch.equal(masks[0], m) for m in masks[1:])  # each its own mask


@pytest.mark.claim(
    PER_SAMPLE_PAGE, "In training mode an example's output depends on the whole batch"
)
def test_vmap_and_batch_norm() -> None:
    norm = torch.nn.BatchNorm1d(3)
    params = {n: p.detach() for n, p in norm.named_parameters()}
    buffers = {n: b for n, b in norm.named_buffers()}

    def loss(params: dict[str, torch.Tensor], x: torch.Tensor) -> torch.Tensor:
        return torch.func.functional_call(norm, (params, buffers), (x.unsqueeze(0),)).sum()

    x = torch.randn(4, 3)
    with pytest.raises((RuntimeError, ValueError)):
        torch.func.vmap(torch.func.grad(loss), in_dims=(None, 0))(params, x)
    norm.eval()  # fixed statistics: each example has a gradient of its own
    grads = torch.func.vmap(torch.func.grad(loss), in_dims=(None, 0))(params, x)
    assert grads["weight"].shape == (4, 3)


BROADCAST_PAGE = "docs/interview/how-does-backprop-handle-broadcasting.md"
BROADCAST = "interview/how_does_backprop_handle_broadcasting"
# Every shape that broadcasts to (2, 4, 3): leading dimensions dropped, others 1 or full.
SHAPES = [
    tuple(size if keep else 1 for size, keep in zip(full, keeps, strict=True))
    for n in range(4)
    for full in [(2, 4, 3)[3 - n :]]
    for keeps in itertools.product([True, False], repeat=n)
]


@pytest.mark.claim(
    BROADCAST_PAGE, "`Tensor.sum_to_size(shape)` applies the rule for any pair of shapes"
)
@pytest.mark.parametrize("shape", SHAPES)
def test_sum_to_size_is_the_engines_reduction(shape: tuple[int, ...]) -> None:
    page = run_region(BROADCAST, "any-shape-maths", inputs={"torch": torch, "shape": shape})
    assert page.output.endswith("a.grad equals grad.sum_to_size: True\n")
    # ... and by hand: sum the added leading dimensions away, keep the expanded ones.
    grad = page["grad"]
    added = grad.dim() - len(shape)
    by_hand = grad.sum(dim=tuple(range(added))) if added else grad
    expanded = tuple(d for d, size in enumerate(shape) if size == 1 and by_hand.shape[d] != 1)
    if expanded:
        by_hand = by_hand.sum(dim=expanded, keepdim=True)
    torch.testing.assert_close(page["a"].grad, by_hand.reshape(shape))


@pytest.mark.claim(
    BROADCAST_PAGE, "a gradient that cannot be summed to the input's shape raises an error"
)
def test_a_custom_function_gradient_is_summed_or_refused() -> None:
    run_region(BROADCAST, "bias")

    class Returns(torch.autograd.Function):
        @staticmethod
        def forward(ctx: object, x: torch.Tensor, shape: tuple[int, ...]) -> torch.Tensor:
            ctx.shape = shape
            return x.clone()

        @staticmethod
        def backward(ctx: object, grad: torch.Tensor) -> tuple[torch.Tensor, None]:
            return torch.ones(ctx.shape), None

    x = torch.zeros(3, requires_grad=True)
    Returns.apply(x, (2, 3)).sum().backward()  # (2, 3) sums to (3,): summed
    assert x.grad.tolist() == [2.0, 2.0, 2.0]
    with pytest.raises(RuntimeError, match="shape"):
        Returns.apply(x, (4,)).sum().backward()  # (4,) cannot become (3,)


CREATE_PAGE = "docs/interview/what-does-create-graph-do.md"
CREATE = "interview/what_does_create_graph_do"
_ONCE = """
import warnings, torch
warnings.simplefilter("always")
def calls():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        x = torch.tensor(2.0, requires_grad=True)
        (x**3).backward(create_graph=True)
    return sum("reference cycle" in str(w.message) for w in caught)
first, second = calls(), calls()
torch.set_warn_always(True)
third = calls()
print(first, second, third)
"""


@pytest.mark.claim(CREATE_PAGE, "The warning comes once per")
@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True")
def test_the_create_graph_warning_comes_once_per_process() -> None:
    page = run_region(CREATE, "demonstration", "backward")
    assert "x.grad: 24.0" in page.output
    done = subprocess.run(
        [sys.executable, "-c", _ONCE], capture_output=True, text=True, check=True, timeout=300
    )
    assert done.stdout.split() == ["1", "0", "1"]


@pytest.mark.claim(CREATE_PAGE, "which returns new tensors and leaves `.grad` alone")
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_autograd_grad_leaves_grad_alone(dtype: torch.dtype) -> None:
    x = torch.tensor(2.0, dtype=dtype, requires_grad=True)
    (first,) = torch.autograd.grad(x**3, x, create_graph=True)
    (second,) = torch.autograd.grad(first, x)
    assert x.grad is None
    assert (first.item(), second.item()) == (12.0, 12.0)  # 3x², 6x at 2


VJP_PAGE = "docs/interview/what-is-a-vector-jacobian-product.md"
VJP = "interview/what_is_a_vector_jacobian_product"


@pytest.mark.claim(VJP_PAGE, "It equals the gradient of the scalar v·y")
@settings(max_examples=40, deadline=None)
@given(st.integers(1, 6), st.data(), st.sampled_from([torch.float32, torch.float64]))
def test_vjp_is_the_gradient_of_v_dot_y(n: int, data: st.DataObject, dtype: torch.dtype) -> None:
    values = st.lists(st.floats(-100, 100), min_size=n, max_size=n)
    x = torch.tensor(data.draw(values), dtype=dtype, requires_grad=True)
    v = torch.tensor(data.draw(values), dtype=dtype)  # zeros and negatives included
    page = run_region(
        VJP, "square-maths", inputs={"torch": torch, "jacobian": jacobian_fn, "x": x, "v": v}
    )
    by_hand = 2 * x.detach() * v  # v_j 2 x_j: J is diagonal
    torch.testing.assert_close(page["x"].grad, by_hand)
    dot = x.detach().clone().requires_grad_()
    (dot**2 * v).sum().backward()  # the gradient of the scalar v·y
    torch.testing.assert_close(page["x"].grad, dot.grad)
    torch.testing.assert_close(v @ page["J"], by_hand)


jacobian_fn = torch.autograd.functional.jacobian

"""Going deeper (B): the formulas of docs/deeper/tensor-level-backprop.md,
training-with-hand-backward.md and tiny-engine-trains.md agree with autograd.

* unbroadcast(grad, shape) = grad.sum_to_size(shape) = the broadcast input's .grad;
* the embedding backward is a scatter-add: row v of dE sums the rows looked up for v;
* softmax's Jacobian is diag(p) - p pᵀ, and p ⊙ (g - Σ p g) is its product with g;
* the layer norm backward dx = (dx̂ - mean(dx̂) - x̂ ⊙ mean(dx̂ ⊙ x̂)) / σ, dγ, dβ;
* the training page's backward_by_hand equals autograd on random models and data;
* the tiny engine's new operations (neg, sub, div, relu) equal PyTorch's gradients.

Each test imports the page's own snippet, so it checks the code the reader sees.
"""

from __future__ import annotations

import functools
import importlib.util
import math
from pathlib import Path
from types import ModuleType

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

from . import run_region

SNIPPETS = Path(__file__).resolve().parents[2] / "snippets" / "deeper"


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"course_deeper_{name}", SNIPPETS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


tensor_level = _load("tensor_level_backprop")
training = _load("training_with_hand_backward")
engine = _load("tiny_engine_trains")

seeds = st.integers(min_value=0, max_value=2**31 - 1)
sizes = st.integers(min_value=1, max_value=5)


@st.composite
def broadcast_pair(draw: st.DrawFn) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """A result shape, and an input shape that broadcasts to it."""
    out = tuple(draw(st.lists(sizes, min_size=0, max_size=4)))
    kept = draw(st.integers(min_value=0, max_value=len(out)))
    tail = out[len(out) - kept :]
    shape = tuple(1 if draw(st.booleans()) else size for size in tail)
    return shape, out


@settings(max_examples=80, deadline=None)
@given(pair=broadcast_pair(), seed=seeds)
def test_unbroadcast_is_sum_to_size_and_the_inputs_grad(pair: tuple, seed: int) -> None:
    shape, out_shape = pair
    generator = torch.Generator().manual_seed(seed)
    grad = torch.randn(out_shape, generator=generator, dtype=torch.float64)
    a = torch.zeros(shape, dtype=torch.float64, requires_grad=True)
    (a + torch.zeros(out_shape, dtype=torch.float64)).backward(grad)
    by_hand = tensor_level.unbroadcast(grad, shape)
    assert by_hand.shape == a.shape
    torch.testing.assert_close(by_hand, a.grad)
    torch.testing.assert_close(by_hand, grad.sum_to_size(shape))


@settings(max_examples=40, deadline=None)
@given(seed=seeds, vocab=st.integers(1, 8), batch=sizes, length=sizes, dim=sizes)
def test_embedding_backward_is_a_scatter_add(
    seed: int, vocab: int, batch: int, length: int, dim: int
) -> None:
    generator = torch.Generator().manual_seed(seed)
    tokens = torch.randint(0, vocab, (batch, length), generator=generator)
    E = torch.randn(vocab, dim, generator=generator, dtype=torch.float64, requires_grad=True)
    dout = torch.randn(batch, length, dim, generator=generator, dtype=torch.float64)
    F.embedding(tokens, E).backward(dout)
    torch.testing.assert_close(tensor_level.embedding_backward(tokens, dout, vocab), E.grad)


@settings(max_examples=40, deadline=None)
@given(
    seed=seeds, rows=sizes, classes=st.integers(2, 7), scale=st.sampled_from([1.0, 50.0, 1000.0])
)
def test_softmax_jacobian_and_its_product(seed: int, rows: int, classes: int, scale: float) -> None:
    generator = torch.Generator().manual_seed(seed)
    z = scale * torch.randn(rows, classes, generator=generator, dtype=torch.float64)
    p = tensor_level.stable_softmax(z)
    torch.testing.assert_close(p, torch.softmax(z, dim=-1))
    torch.testing.assert_close(tensor_level.stable_logsumexp(z), torch.logsumexp(z, dim=-1))
    J = torch.func.jacrev(lambda v: torch.softmax(v, dim=0))(z[0])
    torch.testing.assert_close(tensor_level.softmax_jacobian(p[0]), J)
    g = torch.randn(rows, classes, generator=generator, dtype=torch.float64)
    leaf = z.clone().requires_grad_()
    torch.softmax(leaf, dim=-1).backward(g)
    torch.testing.assert_close(tensor_level.softmax_backward(p, g), leaf.grad)


@settings(max_examples=40, deadline=None)
@given(seed=seeds, rows=sizes, dim=st.integers(2, 7))
def test_layer_norm_backward_equals_autograd(seed: int, rows: int, dim: int) -> None:
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(rows, dim, generator=generator, dtype=torch.float64, requires_grad=True)
    gamma = torch.randn(dim, generator=generator, dtype=torch.float64, requires_grad=True)
    beta = torch.randn(dim, generator=generator, dtype=torch.float64, requires_grad=True)
    dy = torch.randn(rows, dim, generator=generator, dtype=torch.float64)
    F.layer_norm(x, (dim,), gamma, beta, eps=1e-5).backward(dy)
    with torch.no_grad():
        _, (x_hat, sigma) = tensor_level.layer_norm_forward(x, gamma, beta)
        dx, dgamma, dbeta = tensor_level.layer_norm_backward(dy, x_hat, sigma, gamma)
    torch.testing.assert_close(dx, x.grad)
    torch.testing.assert_close(dgamma, gamma.grad)
    torch.testing.assert_close(dbeta, beta.grad)
    torch.testing.assert_close(dx.sum(dim=1), torch.zeros(rows, dtype=torch.float64))


@settings(max_examples=30, deadline=None)
@given(seed=seeds, vocab=st.integers(2, 8), dim=st.integers(2, 6), n=st.integers(1, 12))
def test_training_backward_equals_autograd(seed: int, vocab: int, dim: int, n: int) -> None:
    generator = torch.Generator().manual_seed(seed)
    params = {k: v.double() for k, v in training.init_params(vocab, dim, seed=seed % 1000).items()}
    params["gamma"] = params["gamma"] + torch.randn(dim, generator=generator, dtype=torch.float64)
    params["beta"] = torch.randn(dim, generator=generator, dtype=torch.float64)
    inputs = torch.randint(0, vocab, (n,), generator=generator)
    targets = torch.randint(0, vocab, (n,), generator=generator)
    _, cache = training.forward(params, inputs, targets)
    mine = training.backward_by_hand(params, inputs, targets, cache)
    theirs = training.autograd_gradients(params, inputs, targets)
    for name in params:
        torch.testing.assert_close(mine[name], theirs[name], msg=name)


OPERATIONS = {
    "neg": (lambda a, b: -a + b),
    "sub": (lambda a, b: a - b),
    "rsub": (lambda a, b: 1 - a * b),
    "div": (lambda a, b: a / b),
    "rdiv": (lambda a, b: 2 / b + a),
    "relu": (lambda a, b: a.relu() * b),
}
values = st.floats(min_value=-5, max_value=5, allow_nan=False).filter(lambda v: abs(v) > 1e-3)


@settings(max_examples=60, deadline=None)
@given(name=st.sampled_from(sorted(OPERATIONS)), a=values, b=values)
def test_tiny_engine_operations_equal_pytorch(name: str, a: float, b: float) -> None:
    f = OPERATIONS[name]
    x, y = engine.Value(a), engine.Value(b)
    out = f(x, y)
    out.backward()
    x_t = torch.tensor(a, dtype=torch.float64, requires_grad=True)
    y_t = torch.tensor(b, dtype=torch.float64, requires_grad=True)
    f(x_t, y_t).backward()
    assert math.isclose(x.grad, x_t.grad.item(), rel_tol=1e-12, abs_tol=1e-12)
    assert math.isclose(y.grad, y_t.grad.item(), rel_tol=1e-12, abs_tol=1e-12)


def test_tiny_engine_relu_at_zero_matches_pytorch() -> None:
    x = engine.Value(0.0)
    x.relu().backward()
    x_t = torch.tensor(0.0, requires_grad=True)
    torch.relu(x_t).backward()
    assert x.grad == x_t.grad.item() == 0.0


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 1000))
def test_tiny_mlp_gradients_equal_pytorch(seed: int) -> None:
    points, labels = engine.xor_clusters(2, noise=0.35, seed=seed)
    model = engine.MLP(2, [3, 3, 1], seed=seed)
    loss, _ = engine.hinge_loss(model, points, labels)
    model.zero_grad()
    loss.backward()
    torch_loss, torch_grads = engine.torch_gradients(model, points, labels)
    assert math.isclose(loss.data, torch_loss, rel_tol=1e-12, abs_tol=1e-12)
    for p, g in zip(model.parameters(), torch_grads, strict=True):
        assert math.isclose(p.grad, g, rel_tol=1e-9, abs_tol=1e-12)


@pytest.mark.claim(
    "docs/deeper/training-with-hand-backward.md",
    "The parts add up to the whole gap, 19 examples times the difference between the final "
    "loss, 0.572, and the lowest, 0.566.",
)
def test_the_words_parts_add_up_to_the_gap() -> None:
    regions = ("imports", "params", "forward", "backward", "autograd", "data", "best-possible")
    trained = run_region("deeper/training_with_hand_backward", *regions, "train", "learned")
    # At the trained weights, and at the first ones (an edge far from the limit): the sum
    # of each example's loss + log(frequency of its next word) is N x (mean loss - lowest),
    # since the lowest is the mean of -log(frequency). Each word's part is a KL divergence
    # (times its count), never negative.
    start = trained["init_params"](len(trained["vocab"]), dim=8, seed=0)
    for params, mean_loss in ((trained["params"], trained["losses"][-1]), (start, None)):
        page = run_region(
            "deeper/training_with_hand_backward", "learned", inputs={**trained, "params": params}
        )
        n = len(page["inputs"])
        if mean_loss is None:
            mean_loss = page["forward"](params, page["inputs"], page["targets"])[0].item()
        assert math.isclose(page["gaps"].sum().item(), n * (mean_loss - page["best"]), abs_tol=1e-4)
        for a in set(page["inputs"].tolist()):
            assert page["gaps"][page["inputs"] == a].sum().item() > -1e-6
    assert (
        n == 19
        and f"{trained['losses'][-1]:.3f}" == "0.572"
        and f"{trained['best']:.3f}" == "0.566"
    )


# --- The tiny engine trains: its claims at their edges ------------------------------------

TINY = "docs/deeper/tiny-engine-trains.md"
TINY_REGIONS = ("value", "add-mul-power", "new-ops", "engine", "nn", "data", "loss", "torch-twin")


@functools.cache
def _trained() -> dict:
    return run_region(
        "deeper/tiny_engine_trains",
        *TINY_REGIONS,
        "make-model",
        "make-data",
        "first-gradients",
        "forgot-zero-grad",
        "train",
    )


@pytest.mark.claim(TINY, "Only the points inside the margin push on the weights.")
@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.one_of(st.sampled_from([1.0, -1.0, 0.0, 1 + 2**-40, 1 - 2**-40]), st.floats(-3, 3)),
            st.sampled_from([1, -1]),
        ),
        min_size=1,
        max_size=6,
    )
)
def test_the_hinge_gradient_is_minus_y_inside_the_margin_only(
    cases: list[tuple[float, int]],
) -> None:
    page = _trained()
    labels = [y for _, y in cases]
    scores = [page["Value"](y * margin) for margin, y in cases]  # y s = margin
    loss, _ = page["hinge_loss"](lambda x: [scores[x]], list(range(len(cases))), labels)
    loss.backward()
    n = len(cases)
    for (margin, y), score in zip(cases, scores, strict=True):
        # By hand: d/ds max(0, 1 - y s) / n = -y / n inside the margin (y s < 1), else 0,
        # at y s = 1 too (relu's kink, where the engine, like PyTorch, picks 0).
        assert score.grad == (-y / n if margin < 1 else 0.0)


@pytest.mark.claim(
    TINY,
    "At step 40 the loss is 0: every point is beyond the margin, so every gradient is 0, "
    "and training stops changing anything.",
)
def test_after_training_every_gradient_is_zero_and_a_step_changes_nothing() -> None:
    page = _trained()
    model, points, labels = page["model"], page["points"], page["labels"]
    assert page["losses"][-1] == 0.0
    assert all(y * model(x)[0].data >= 1 for x, y in zip(points, labels, strict=True))
    assert all(p.grad == 0.0 for p in model.parameters())
    before = [p.data for p in model.parameters()]
    loss, _ = page["hinge_loss"](model, points, labels)
    model.zero_grad()
    loss.backward()
    for p in model.parameters():
        p.data -= page["lr"] * p.grad
    assert [p.data for p in model.parameters()] == before


@pytest.mark.claim(
    TINY,
    "The leaves add the new gradients to the old ones, exactly as PyTorch's `.grad` does, "
    "and each gradient doubles",
)
def test_without_zero_grad_every_gradient_doubles() -> None:
    page = run_region("deeper/tiny_engine_trains", *TINY_REGIONS, "make-model", "make-data")
    model, points, labels = page["model"], page["points"], page["labels"]
    page["hinge_loss"](model, points, labels)[0].backward()
    once = [p.grad for p in model.parameters()]
    page["hinge_loss"](model, points, labels)[0].backward()  # no zero_grad() in between
    # All 37, not only the three the page prints: 2g, up to the rounding of the sums.
    twice = [p.grad for p in model.parameters()]
    assert len(twice) == 37
    assert all(
        math.isclose(t, 2 * g, rel_tol=1e-12, abs_tol=1e-15)
        for t, g in zip(twice, once, strict=True)
    )
    # ... and the page's own region: its second pass, then zero_grad() resets every one.
    run_region("deeper/tiny_engine_trains", "forgot-zero-grad", inputs=page)
    assert all(p.grad == 0.0 for p in model.parameters())

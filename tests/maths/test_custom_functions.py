"""Going deeper: the derivations of docs/deeper/custom-functions-and-checkpointing.md's
current-style functions, run on the page's own classes.

* Exp (setup_context style): d exp(x)/dx = exp(x), per entry under vmap(grad(...));
* ExpWithJvp's jvp rule: the tangent of y = exp(x) is exp(x) times the tangent of x;
* StableSoftplus's second derivative is σ(x)(1 − σ(x)); OnceSoftplus's first is σ(x);
* TripleInPlace (with mark_dirty): h = 2a tripled in place gives d sum(h)/da = 6;
* dropout in a checkpoint: out_i = 2 m_i h_i w_i, so d sum(out)/dw_i = 2 m_i h_i, with the
  mask m the forward pass drew (preserve_rng_state=True replays it).
"""

import warnings

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

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

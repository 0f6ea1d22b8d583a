"""docs/control/no-grad.md and its quiz, at the edges of their claims.

* under no_grad() operations give the same numbers as with tracking, bit for bit;
* every kind of view the page names (slicing, indexing with one number, view(), t()),
  taken under no_grad(), reports requires_grad=True with no grad_fn and delivers nothing;
* every grad-mode block (no_grad, enable_grad, set_grad_enabled, nested) restores the
  mode it found, also after an exception, from either mode;
* outside no_grad() an in-place update of a leaf that requires grad is refused;
* backward() still works under no_grad(), even with create_graph=True.
"""

from __future__ import annotations

import contextlib

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from . import run_region

PAGE = "docs/control/no-grad.md"
QUIZ = "docs/practice/quizzes/no-grad.md"
SNIPPET = "control/no_grad"

floats = st.floats(-10, 10, allow_nan=False, allow_infinity=False, width=32)


@pytest.mark.claim(PAGE, "operations run and give the same numbers as usual")
@settings(max_examples=30, deadline=None)
@given(st.lists(floats, min_size=3, max_size=3), st.integers(0, 1000))
def test_no_grad_computes_the_same_numbers(values: list[float], seed: int) -> None:
    page = run_region(SNIPPET, "off", "decorator")
    assert page["y"].tolist() == [2.0, 4.0, 6.0]
    torch.manual_seed(seed)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2))
    x = torch.tensor(values, requires_grad=True)

    def run() -> list[torch.Tensor]:
        return [x * 2, x.exp(), x.softmax(0), model(x), (x**2).sum(), x @ x]

    tracked = run()
    with torch.no_grad():
        untracked = run()
    page["model"] = model  # the page's decorated predict(), on the test's model
    assert torch.equal(page["predict"](x), tracked[3])
    for a, b in zip(tracked, untracked, strict=True):
        assert torch.equal(a.detach(), b) and a.requires_grad and not b.requires_grad


VIEWS = {
    "slicing": lambda b: b[:2],
    "indexing with one number": lambda b: b[1],
    "view()": lambda b: b.view(2, 2),
    "t()": lambda b: b.view(2, 2).t(),
}


@pytest.mark.claim(
    PAGE, "Take a view of a tensor that requires grad under `no_grad()`, and it does"
)
@pytest.mark.parametrize("take", VIEWS.values(), ids=list(VIEWS))
def test_every_kind_of_view_taken_under_no_grad_is_the_exception(take) -> None:
    page = run_region(SNIPPET, "off", "new-leaf", "mixed", "view")
    assert page["base"].grad is None  # the page's slice delivered nothing
    base = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    with torch.no_grad():
        new = base * 2
        view = take(base)
    assert not new.requires_grad  # a new result: the rule
    assert view.requires_grad and view.grad_fn is None and view._base is base
    (view * 3).sum().backward()  # no error
    assert base.grad is None


SWITCHES = {
    "no_grad": torch.no_grad,
    "enable_grad": torch.enable_grad,
    "set_grad_enabled(False)": lambda: torch.set_grad_enabled(False),
    "set_grad_enabled(True)": lambda: torch.set_grad_enabled(True),
    "no_grad in enable_grad": lambda: _nested(torch.enable_grad, torch.no_grad),
}


@contextlib.contextmanager
def _nested(outer, inner):
    with outer(), inner():
        yield


@pytest.mark.claim(PAGE, "each block restores the mode it found, even after an exception")
@pytest.mark.parametrize("switch", SWITCHES.values(), ids=list(SWITCHES))
@pytest.mark.parametrize("start", [True, False])
def test_every_block_restores_the_mode_it_found_after_an_exception(switch, start: bool) -> None:
    page = run_region(SNIPPET, "off", "exception")
    assert page.output.endswith("grad mode after the exception: True\n")
    with torch.set_grad_enabled(start):
        with pytest.raises(ValueError), switch():
            raise ValueError("something went wrong inside")
        assert torch.is_grad_enabled() == start
    assert torch.is_grad_enabled()


@pytest.mark.claim(
    PAGE, "Outside `no_grad()` the same line is refused for a leaf that requires grad"
)
def test_an_update_outside_no_grad_is_refused() -> None:
    page = run_region(SNIPPET, "off", "update")
    p = page["by_hand"].weight
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        p -= 0.1 * p.grad
    with torch.no_grad():
        p -= 0.1 * p.grad  # allowed there


@pytest.mark.claim(PAGE, "Grad mode is per thread, and `backward()` still works under `no_grad()`.")
@pytest.mark.parametrize("create_graph", [False, True])
def test_backward_works_under_no_grad(create_graph: bool) -> None:
    page = run_region(SNIPPET, "off", "backward-under-no-grad")
    assert page["x"].grad.item() == 6.0  # 2x at x = 3
    x = torch.tensor(3.0, requires_grad=True)
    y = x**3
    with torch.no_grad():
        (g,) = torch.autograd.grad(y, x, create_graph=create_graph)
    assert g.item() == 27.0  # 3x² at x = 3
    assert (g.grad_fn is not None) == create_graph  # the graph of the gradient, if asked


def _forward_mode_inputs(value: float, rate: float, dtype: torch.dtype) -> dict:
    import torch.autograd.forward_ad as fwAD

    return {
        "torch": torch,
        "fwAD": fwAD,
        "value": torch.tensor(value, dtype=dtype),
        "rate": torch.tensor(rate, dtype=dtype),
    }


@pytest.mark.claim(PAGE, "It does not switch off **forward-mode AD** either.")
@settings(max_examples=30, deadline=None)
@given(
    st.floats(-5, 5, allow_nan=False, width=32),
    st.floats(-3, 3, allow_nan=False, width=32),
    st.sampled_from([torch.float32, torch.float64]),
)
def test_a_value_made_under_no_grad_keeps_its_tangent(
    value: float, rate: float, dtype: torch.dtype
) -> None:
    page = run_region(
        SNIPPET, "forward-mode-maths", inputs=_forward_mode_inputs(value, rate, dtype)
    )
    # s = 3x: ds = 3 dx; loss = x^2 * s = 3x^3: d loss = 9x^2 dx (reverse mode: 6x^2 dx only)
    assert page["tangent_of_scale"].item() == pytest.approx(3 * rate, rel=1e-5, abs=1e-6)
    assert page["tangent_of_loss"].item() == pytest.approx(9 * value**2 * rate, rel=1e-5, abs=1e-5)


MODES_THAT_STOP_RECORDING = {
    "no_grad": torch.no_grad,
    "set_grad_enabled(False)": lambda: torch.set_grad_enabled(False),
    "no_grad in enable_grad": lambda: _nested(torch.enable_grad, torch.no_grad),
}
TANGENT_OPS = {
    "mul": lambda t: t * 3,
    "sin": torch.sin,
    "pow": lambda t: t**2,
    "view": lambda t: t[:1],
    "sum": torch.sum,
}


@pytest.mark.claim(PAGE, "Forward-mode AD still works under `no_grad()`: a value made there keeps")
@pytest.mark.parametrize(
    "mode", MODES_THAT_STOP_RECORDING.values(), ids=list(MODES_THAT_STOP_RECORDING)
)
@pytest.mark.parametrize("op", TANGENT_OPS.values(), ids=list(TANGENT_OPS))
@pytest.mark.parametrize("requires_grad", [False, True])
def test_every_mode_that_stops_recording_keeps_the_tangents(mode, op, requires_grad: bool) -> None:
    import torch.autograd.forward_ad as fwAD

    run_region(SNIPPET, "off", "forward-mode")
    primal = torch.tensor([0.0, 1.0, -2.0], requires_grad=requires_grad)
    with fwAD.dual_level():
        dual = fwAD.make_dual(primal, torch.tensor([1.0, 2.0, 3.0]))
        expected = fwAD.unpack_dual(op(dual)).tangent  # grad mode on
        with mode():
            result = op(dual)
            assert result.grad_fn is None  # nothing recorded for backward()
        assert torch.equal(fwAD.unpack_dual(result).tangent, expected)


@pytest.mark.claim(PAGE, "`inference_mode()` does switch forward mode off: its results carry no")
@pytest.mark.parametrize("op", TANGENT_OPS.values(), ids=list(TANGENT_OPS))
def test_inference_mode_results_carry_no_tangent(op) -> None:
    import torch.autograd.forward_ad as fwAD

    page = run_region(SNIPPET, "off", "forward-mode")
    assert page["tangent_inference"] is None
    with fwAD.dual_level():
        dual = fwAD.make_dual(torch.tensor([0.0, 1.0, -2.0]), torch.ones(3))
        with torch.inference_mode():
            assert fwAD.unpack_dual(op(dual)).tangent is None


@pytest.mark.claim(PAGE, "`.detach()` makes a constant for both modes")
@pytest.mark.parametrize("op", TANGENT_OPS.values(), ids=list(TANGENT_OPS))
def test_detach_makes_a_constant_for_forward_and_reverse_mode(op) -> None:
    import torch.autograd.forward_ad as fwAD

    page = run_region(SNIPPET, "off", "forward-mode")
    assert page["tangent_detached"] is None
    primal = torch.tensor([0.5, 1.0, -2.0], requires_grad=True)
    with fwAD.dual_level():
        dual = fwAD.make_dual(primal, torch.ones(3))
        constant = op(dual).detach()
        assert fwAD.unpack_dual(constant).tangent is None  # forward mode: no tangent
    assert not constant.requires_grad and constant.grad_fn is None  # reverse mode: no path

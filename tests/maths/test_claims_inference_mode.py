"""docs/control/inference-mode.md and its quiz, at the edges of their claims.

* forward-mode AD: under no_grad() the tangent of 3x is 3u, for any values and tangent;
  under inference_mode() there is none;
* only tensors computed inside inference mode are inference tensors, whatever grad mode
  says there; views and in-place changes of ordinary tensors stay ordinary;
* a view taken with recording off (no_grad or inference mode), whatever the view
  operation, knows its base but has no node: its gradient is lost, and an in-place change
  with grad mode on is refused;
* outside inference mode an inference tensor is refused by every recorded operation that
  would save it, by every in-place change, and by requires_grad_();
* inference_mode(False) turns grad mode on, even inside no_grad().
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from . import run_region

PAGE = "docs/control/inference-mode.md"
QUIZ = "docs/practice/quizzes/inference-mode.md"
SNIPPET = "control/inference_mode"

floats = st.floats(-10, 10, allow_nan=False, allow_infinity=False, width=32)

VIEWS: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "slice": lambda x: x[:2],
    "index with one number": lambda x: x[1],
    "view": lambda x: x.view(2, 2),
    "t": lambda x: x.view(2, 2).t(),
    "transpose": lambda x: x.view(2, 2).transpose(0, 1),
    "narrow": lambda x: x.narrow(0, 1, 2),
    "unsqueeze": lambda x: x.unsqueeze(0),
    "diagonal": lambda x: x.view(2, 2).diagonal(),
}
OFF = {"no_grad": torch.no_grad, "inference_mode": torch.inference_mode}


def _forward_ad() -> dict:
    """The page's forward-ad region (it imports forward_ad and hides PyTorch's warning)."""
    return run_region(SNIPPET, "basics", "forward-ad")


@pytest.mark.claim(PAGE, "`no_grad()` leaves that on. Inference mode switches it off too")
@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.tuples(floats, floats), min_size=1, max_size=5),
    st.sampled_from([torch.float32, torch.float64]),
)
def test_forward_ad_is_on_under_no_grad_and_off_in_inference_mode(pairs, dtype) -> None:
    page = _forward_ad()
    values = torch.tensor([v for v, _ in pairs], dtype=dtype)
    tangent = torch.tensor([t for _, t in pairs], dtype=dtype)
    done = run_region(
        SNIPPET, "forward-ad-maths", inputs={**page, "values": values, "tangent": tangent}
    )
    assert torch.equal(done["tangent_no_grad"], 3 * tangent)  # d(3x) = 3 dx
    assert done["tangent_inference"] is None


@pytest.mark.claim(PAGE, "It also switches off forward-mode AD, which `no_grad()` leaves on.")
def test_the_pages_forward_ad_block() -> None:
    output = _forward_ad().output
    assert "under no_grad():        tensor([3., 3.])" in output
    assert "under inference_mode(): None" in output


@pytest.mark.claim(PAGE, "every new tensor it computes is an inference tensor")
@pytest.mark.parametrize("grad_mode", [True, False])
def test_only_new_tensors_are_inference_tensors(grad_mode: bool) -> None:
    page = run_region(SNIPPET, "basics", "enable-grad-inside")
    assert page["square"].is_inference()  # the page's case: enable_grad() inside
    ordinary = torch.ones(4)
    leaf = torch.ones(4, requires_grad=True)
    with torch.inference_mode(), torch.set_grad_enabled(grad_mode):
        new = [ordinary * 2, leaf + 1, torch.zeros(3), ordinary.clone(), leaf.sum(), leaf[:2] * 1]
        views = [ordinary[:2], ordinary.view(2, 2), leaf[1:], leaf.t()]
        ordinary.add_(1)
        changed = [ordinary]
    assert all(t.is_inference() for t in new)
    assert not any(t.is_inference() for t in views + changed)
    assert ordinary._version == 1  # and the change was counted


@pytest.mark.claim(
    PAGE, "An ordinary tensor stays ordinary even when it is changed in place or viewed inside"
)
def test_the_pages_table_of_inference_tensors() -> None:
    page = run_region(
        SNIPPET,
        "basics",
        "limit-setup",
        "inplace-outside",
        "changed-anyway",
        "clone",
        "is-inference",
    )
    table = dict(line.rsplit(" is_inference() = ", 1) for line in page.output.splitlines()[-6:])
    assert {name.strip(): value for name, value in table.items()} == {
        "a parameter (head.weight)": "False",
        "made inside inference_mode": "True",
        "normal tensor changed in place inside": "False",
        "view of a normal tensor, taken inside": "False",
        "returned by an @inference_mode function": "True",
        "clone of an inference tensor, outside": "False",
    }


@pytest.mark.claim(PAGE, "no node recorded the slice: nothing in the graph links `v` to `x`")
@pytest.mark.parametrize("mode", OFF, ids=str)
@pytest.mark.parametrize("take", VIEWS.values(), ids=list(VIEWS))
def test_a_view_taken_with_recording_off_has_a_base_but_no_node(take, mode: str) -> None:
    page = run_region(SNIPPET, "basics", "view-under-no-grad", "view-gradient")
    assert page["x"].grad is None and page["v"].grad is None  # the page's own case
    x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    with OFF[mode]():
        v = take(x)
    assert v._base is x and v.requires_grad and v.grad_fn is None and not v.is_inference()
    (v * 3).sum().backward()  # runs, and delivers nothing
    assert x.grad is None and v.grad is None


@pytest.mark.claim(PAGE, "A view taken in inference mode is refused the same way.")
@pytest.mark.parametrize("mode", OFF, ids=str)
@pytest.mark.parametrize("take", VIEWS.values(), ids=list(VIEWS))
def test_an_in_place_change_of_such_a_view_is_refused_with_grad_mode_on(take, mode: str) -> None:
    x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    with OFF[mode]():
        v = take(x)
    with pytest.raises(RuntimeError, match=r"is being modified inplace .* ambiguous"):
        v.mul_(2)
    with OFF[mode]():  # both inside the block: allowed, and x stays a leaf
        take(x).mul_(2)
    assert x.is_leaf and x.grad_fn is None


SAVING = {
    "linear": lambda c: torch.nn.functional.linear(c, torch.ones(1, 3, requires_grad=True)),
    "mul": lambda c: c * torch.ones(3, requires_grad=True),
    "matmul": lambda c: c @ torch.ones(3, 2, requires_grad=True),
    "pow": lambda c: torch.ones(3, requires_grad=True) ** c,
}
IN_PLACE = {
    "add_": lambda c: c.add_(1),
    "mul_": lambda c: c.mul_(2),
    "zero_": lambda c: c.zero_(),
    "setitem": lambda c: c.__setitem__(0, 5.0),
    "copy_": lambda c: c.copy_(torch.ones_like(c)),
}


@pytest.mark.claim(
    PAGE,
    "Outside inference mode, an inference tensor cannot be saved for backward by a "
    "recorded operation, changed in place, or given `requires_grad`. PyTorch raises an "
    "error at once.",
)
@pytest.mark.parametrize("use", [*SAVING.values(), *IN_PLACE.values()], ids=[*SAVING, *IN_PLACE])
def test_an_inference_tensor_is_refused_outside(use) -> None:
    with torch.inference_mode():
        cached = torch.randn(5, 3)
    with pytest.raises(RuntimeError, match=r"[Ii]nference tensor"):
        use(cached)
    with pytest.raises(RuntimeError, match=r"[Ii]nference tensor"):
        cached.requires_grad_()
    use(cached.clone())  # the fix: an ordinary copy


@pytest.mark.claim(
    PAGE, "Only `torch.inference_mode(False)` leaves inference mode, and it also turns"
)
@pytest.mark.parametrize("outer", [torch.no_grad, torch.enable_grad])
def test_inference_mode_false_turns_grad_mode_on(outer) -> None:
    with outer(), torch.inference_mode():
        with torch.inference_mode(False):
            modes = (torch.is_inference_mode_enabled(), torch.is_grad_enabled())
            t = torch.ones(2, requires_grad=True) * 2
        with torch.enable_grad():  # not enough
            s = torch.ones(2, requires_grad=True) * 2
    assert modes == (False, True)
    assert t.grad_fn is not None and not t.is_inference()
    assert s.grad_fn is None and s.is_inference()


@pytest.mark.claim(QUIZ, "Inference mode also switches off forward-mode AD")
def test_the_quizs_forward_ad_explanation() -> None:
    page = _forward_ad()
    fw_ad = page["fwAD"]
    with fw_ad.dual_level():
        dual = fw_ad.make_dual(torch.tensor([2.0]), torch.tensor([1.0]))
        with torch.inference_mode():
            assert fw_ad.unpack_dual(dual.sin()).tangent is None
        with torch.no_grad():
            assert torch.allclose(
                fw_ad.unpack_dual(dual.sin()).tangent, torch.cos(torch.tensor([2.0]))
            )

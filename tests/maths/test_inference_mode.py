"""Part 3, chapter 3 (inference_mode()): the gradients of its section "Grad modes meet views".

* a view x[:2] taken with recording on gives sum(x[:2]²) the gradient (2x₁, 2x₂, 0, ...);
* input_gradient, called inside inference_mode(False), gives d sum(t²)/dt = 2t, also
  for a clone of an inference tensor.
"""

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from . import run_region

SNIPPET = "control/inference_mode"
values = st.floats(min_value=-10.0, max_value=10.0, allow_nan=False, allow_infinity=False)


@settings(max_examples=40, deadline=None)
@given(st.lists(values, min_size=2, max_size=6))
def test_a_view_taken_with_recording_on_passes_2x_to_its_entries(start: list[float]) -> None:
    x = torch.tensor(start, dtype=torch.float64, requires_grad=True)
    run_region(SNIPPET, "view-remedies-maths", inputs={"torch": torch, "x": x})
    expected = torch.zeros_like(x)
    expected[:2] = 2 * x.detach()[:2]  # d/dx_i (x_1² + x_2²) = 2x_i for i <= 2, else 0
    assert torch.equal(x.grad, expected)


@settings(max_examples=30, deadline=None)
@given(st.lists(values, min_size=1, max_size=5))
def test_input_gradient_inside_inference_mode_false_is_2t(start: list[float]) -> None:
    session = run_region(SNIPPET, "basics", "enable-grad-inside")
    t = torch.tensor(start)
    done = run_region(SNIPPET, "inference-mode-false", inputs={**session, "t": t})
    assert torch.allclose(done["g"], 2 * t)  # d/dt sum(t²) = 2t
    assert torch.allclose(done["g_inf"], 2 * t)

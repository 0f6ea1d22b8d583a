"""Interview pages on freezing and not recording, at the edges of their claims.

* no-grad-vs-requires-grad-false.md: a layer frozen by the flag is still recorded when
  its input requires grad (and then passes dL/dh = dL/dout W2 back, by hand), and records
  nothing when no input does, whether that input is the data or a frozen prefix's output;
  under ``no_grad()`` nothing is recorded either way.
* how-do-you-freeze-a-layer.md: a frozen parameter left in an optimizer still moves with
  a stale or zero gradient (SGD with momentum or weight decay, AdamW), and stays only when
  its ``.grad`` is None; ``requires_grad_(False)`` on a sub-network.
* why-doesnt-eval-turn-off-gradients.md: ``eval()`` sets every module's flag and nothing
  else; batch norm in eval mode uses the running statistics, by hand.
"""

from __future__ import annotations

import pytest
import torch
from torch import nn

from tests.maths import run_region

NO_GRAD_PAGE = "docs/interview/no-grad-vs-requires-grad-false.md"
NO_GRAD = "interview/no_grad_vs_requires_grad_false"


@pytest.mark.claim(
    NO_GRAD_PAGE, "operation using it is still recorded if another of its inputs requires grad"
)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_a_flag_frozen_layer_is_recorded_only_if_its_input_requires_grad(
    dtype: torch.dtype,
) -> None:
    page = run_region(NO_GRAD, "model", "flag")
    first, second = page["first"].to(dtype), page["second"].to(dtype)
    x = page["x"].to(dtype)
    second.requires_grad_(False)
    h = first(x)
    out = second(h)
    assert out.grad_fn is not None  # h requires grad: recorded
    (grad_h,) = torch.autograd.grad(out.pow(2).mean(), h)
    grad_out = 2 * out.detach() / out.numel()
    torch.testing.assert_close(grad_h, grad_out @ second.weight)  # dL/dout W2, by hand
    assert second(h.detach()).grad_fn is None  # no input requires grad: nothing recorded
    with torch.no_grad():
        assert second(h).grad_fn is None
    assert "second frozen by flag:  second.weight.grad: None" in page.output


@pytest.mark.claim(NO_GRAD_PAGE, "Frozen by the flag, the first layer records nothing either")
@pytest.mark.parametrize("x_requires_grad", [False, True])
def test_a_flag_frozen_prefix_records_nothing(x_requires_grad: bool) -> None:
    page = run_region(NO_GRAD, "model", "flag", "block", "prefix")
    assert "features.requires_grad: False | features.grad_fn: None" in page.output
    first = page["first"]
    first.requires_grad_(False)
    x = page["x"].clone().requires_grad_(x_requires_grad)
    features = first(x)
    # The edge: an input that requires grad makes the frozen prefix recorded again.
    assert (features.grad_fn is not None) == x_requires_grad
    for layer in first, page["second"]:
        assert all(p.grad is None for p in layer.parameters())


@pytest.mark.claim(
    NO_GRAD_PAGE,
    "or an input you differentiate (a saliency map, an adversarial example): the flag lets "
    "the gradient pass back to it, and `no_grad()` cuts it off",
)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_an_input_that_requires_grad_gets_through_the_flag_not_no_grad(
    dtype: torch.dtype,
) -> None:
    page = run_region(NO_GRAD, "model", "flag", "block", "prefix")
    first, second = page["first"].to(dtype), page["second"].to(dtype)
    first.requires_grad_(False)
    second.requires_grad_(False)  # every layer frozen by the flag
    x = page["x"].to(dtype).clone().requires_grad_()
    out = second(first(x))  # the page's model: first, then second
    out.pow(2).mean().backward()
    grad_out = 2 * out.detach() / out.numel()
    torch.testing.assert_close(x.grad, grad_out @ second.weight @ first.weight)  # by hand
    assert all(p.grad is None for layer in (first, second) for p in layer.parameters())
    x.grad = None
    with torch.no_grad():
        features = first(x)
    out = second(features)
    assert features.grad_fn is None and out.grad_fn is None  # cut off: x gets nothing
    with pytest.raises(RuntimeError, match="does not require grad"):
        out.pow(2).mean().backward()
    assert x.grad is None


FREEZE_PAGE = "docs/interview/how-do-you-freeze-a-layer.md"
FREEZE = "interview/how_do_you_freeze_a_layer"


@pytest.mark.claim(FREEZE_PAGE, "An optimizer updates every")
@pytest.mark.parametrize(
    ("make", "grad"),
    [
        (lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9), "stale"),
        (lambda ps: torch.optim.SGD(ps, lr=0.1, weight_decay=0.1), "zeros"),
        (lambda ps: torch.optim.AdamW(ps, lr=0.1), "zeros"),
        (lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9, weight_decay=0.1), "none"),
        (lambda ps: torch.optim.AdamW(ps, lr=0.1), "none"),
    ],
)
def test_a_frozen_parameter_in_the_optimizer(make: object, grad: str) -> None:
    page = run_region(FREEZE, "freeze")
    assert "first layer unchanged: True" in page.output
    model = page["model"]
    frozen = model[0].weight
    model[0].requires_grad_(True)
    optimizer = make(list(model.parameters()))  # the frozen layer left in the optimizer
    x = torch.randn(8, 3)
    model(x).pow(2).mean().backward()
    optimizer.step()  # one step while it still trained: momentum and Adam state
    model[0].requires_grad_(False)  # now frozen
    optimizer.zero_grad(set_to_none=(grad == "none"))
    if grad == "stale":
        frozen.grad = torch.ones_like(frozen)  # a gradient left from before the freeze
    before = frozen.detach().clone()
    model(x).pow(2).mean().backward()
    assert (frozen.grad is None) == (grad == "none")  # backward computed nothing for it
    optimizer.step()
    assert torch.equal(frozen, before) == (grad == "none")  # moved unless .grad is None


@pytest.mark.claim(FREEZE_PAGE, "it also works on a whole")
def test_requires_grad_false_on_a_sub_network() -> None:
    page = run_region(FREEZE, "freeze", "batch-norm")
    model = page["model"]
    model.requires_grad_(True)
    model[:2].requires_grad_(False)
    assert [p.requires_grad for p in model.parameters()] == [False] * 4 + [True] * 2
    assert all(not b.requires_grad for b in model.buffers())  # buffers: never touched


EVAL_PAGE = "docs/interview/why-doesnt-eval-turn-off-gradients.md"
EVAL = "interview/why_doesnt_eval_turn_off_gradients"


@pytest.mark.claim(EVAL_PAGE, "`model.eval()` only sets the `training` flag of every")
def test_eval_sets_the_flag_of_every_module_and_nothing_else() -> None:
    page = run_region(EVAL, "demonstration")
    assert "out.requires_grad: True  out.grad_fn: SumBackward0" in page.output
    model = nn.Sequential(nn.Linear(3, 4), nn.Sequential(nn.BatchNorm1d(4), nn.Dropout()))
    model.train()
    flags = [p.requires_grad for p in model.parameters()]
    buffers = {n: b.clone() for n, b in model.named_buffers()}
    model.eval()
    assert not any(m.training for m in model.modules())
    assert [p.requires_grad for p in model.parameters()] == flags
    assert torch.is_grad_enabled()
    assert all(torch.equal(b, buffers[n]) for n, b in model.named_buffers())
    model.train()
    assert all(m.training for m in model.modules())


@pytest.mark.claim(EVAL_PAGE, "batch norm normalises with its running statistics instead of the")
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_batch_norm_in_eval_mode_uses_running_statistics(dtype: torch.dtype) -> None:
    norm = nn.BatchNorm1d(3).to(dtype)
    norm(torch.randn(16, 3, dtype=dtype) * 3 + 1)  # training mode: updates the running stats
    norm.eval()
    x = torch.randn(5, 3, dtype=dtype, requires_grad=True)
    by_hand = (x - norm.running_mean) / torch.sqrt(norm.running_var + norm.eps)
    by_hand = by_hand * norm.weight + norm.bias
    out = norm(x)
    torch.testing.assert_close(out, by_hand)
    assert out.grad_fn is not None  # and still recorded
    dropout = nn.Dropout(p=0.5).eval()
    assert torch.equal(dropout(x), x)  # dropout stops zeroing values

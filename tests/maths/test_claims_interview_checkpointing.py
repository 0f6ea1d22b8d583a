"""docs/interview/what-is-gradient-checkpointing.md, at the edges of its claims.

* ``checkpoint`` without ``use_reentrant`` warns and then behaves as the reentrant
  variant (an input that needs no grad: an output that needs none), on every release;
* the reentrant variant refuses ``torch.autograd.grad`` and ``backward(inputs=...)``;
* dropout in a checkpointed segment: the recomputed mask is the forward one, so the
  gradient is the plain one, with ``preserve_rng_state=True`` (the default) and not
  without it;
* selective checkpointing with a policy that saves ``mm`` does not run the segment's
  matrix product again during backward, and still recomputes the cheap ``tanh``.
"""

from __future__ import annotations

import functools
import warnings
from typing import Any

import pytest
import torch
from torch import nn
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils.checkpoint import (
    CheckpointPolicy,
    checkpoint,
    create_selective_checkpoint_contexts,
)

from tests.maths import Session, run_region

PAGE = "docs/interview/what-is-gradient-checkpointing.md"
CHECKPOINTING = "interview/what_is_gradient_checkpointing"


def _page() -> Session:
    return run_region(CHECKPOINTING, "model")


@pytest.mark.claim(PAGE, "without the argument PyTorch warns and falls back to the older reentrant")
@pytest.mark.parametrize("requires_grad", [False, True])
def test_no_argument_warns_and_is_reentrant(requires_grad: bool) -> None:
    page = _page()
    first_layer = page["model"][0][0]
    x = page["inputs"].clone().requires_grad_(requires_grad)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = checkpoint(first_layer, x)
    assert any(
        "use_reentrant parameter should be passed explicitly" in str(w.message) for w in caught
    )
    assert out.requires_grad == requires_grad  # reentrant: records only through its inputs
    if requires_grad:
        with pytest.raises(RuntimeError, match="use_reentrant=True"):
            torch.autograd.grad(out.sum(), x)  # and refuses grad(), as reentrant does


@pytest.mark.claim(PAGE, "so it refuses `torch.autograd.grad` and `backward(inputs=...)`")
def test_reentrant_refuses_grad_and_inputs() -> None:
    page = _page()
    first_layer = page["model"][0][0]
    x = torch.randn(4, 64, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"incompatible with \.grad"):
        checkpoint(first_layer, x, use_reentrant=True).sum().backward(inputs=[x])
    with pytest.raises(RuntimeError, match=r"incompatible with \.grad"):
        torch.autograd.grad(checkpoint(first_layer, x, use_reentrant=True).sum(), x)
    # The non-reentrant variant takes both.
    (grad,) = torch.autograd.grad(checkpoint(first_layer, x, use_reentrant=False).sum(), x)
    torch.testing.assert_close(grad, first_layer.weight.sum(0).expand(4, 64))


@pytest.mark.claim(PAGE, "Dropout inside a segment draws the same mask when it is recomputed")
@pytest.mark.parametrize("reentrant", [False, True])
def test_dropout_mask_is_restored(reentrant: bool) -> None:
    page = _page()
    block = nn.Sequential(page["model"][0], nn.Dropout(p=0.5))
    x = torch.randn(32, 64, requires_grad=True)

    def gradient(preserve: bool | None) -> torch.Tensor:
        torch.manual_seed(1)
        x.grad = None
        if preserve is None:
            out = block(x)
        else:
            out = checkpoint(block, x, use_reentrant=reentrant, preserve_rng_state=preserve)
            torch.rand(1000)  # the generator moves on before backward, as in training
        out.pow(2).sum().backward()
        return x.grad

    plain = gradient(None)
    torch.testing.assert_close(gradient(True), plain)
    assert not torch.allclose(gradient(False), plain)  # another mask in the recomputation


class _Ops(TorchDispatchMode):
    def __init__(self) -> None:
        super().__init__()
        self.names: list[str] = []

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        self.names.append(func.overloadpacket.__name__)
        return func(*args, **(kwargs or {}))


@pytest.mark.claim(PAGE, "keeps the results of chosen operations, typically the matrix products")
def test_selective_checkpointing_keeps_the_matrix_products() -> None:
    page = _page()
    layer = page["model"][0][0]

    def segment(x: torch.Tensor) -> torch.Tensor:
        return torch.tanh(x @ layer.weight.T)

    def save_mm(_ctx: object, op: object, *_args: object, **_kwargs: object) -> CheckpointPolicy:
        if op == torch.ops.aten.mm.default:
            return CheckpointPolicy.MUST_SAVE
        return CheckpointPolicy.PREFER_RECOMPUTE

    counts = {}
    for name, context in [
        ("plain", {}),
        (
            "selective",
            {"context_fn": functools.partial(create_selective_checkpoint_contexts, save_mm)},
        ),
    ]:
        x = torch.randn(8, 64, requires_grad=True)
        out = checkpoint(segment, x, use_reentrant=False, **context)
        ops = _Ops()
        with ops:
            out.sum().backward()
        counts[name] = (ops.names.count("mm"), ops.names.count("tanh"))
    # Backward needs two products (for x and for the weight); the plain checkpoint runs
    # the forward product again first, the selective one does not. Both recompute tanh.
    assert counts == {"plain": (3, 1), "selective": (2, 1)}

"""Interview: What does use_reentrant change in checkpoint?
(docs/interview/what-does-use-reentrant-change-in-checkpoint.md)

The two implementations of torch.utils.checkpoint side by side, and selective activation
checkpointing with a policy.
"""
# Each region is read on its own on the page, so imports appear where they are used.
# ruff: noqa: E402

# --8<-- [start:setup]
from collections import Counter

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils.checkpoint import checkpoint


class CountOps(TorchDispatchMode):
    """Count every operation that reaches PyTorch's kernels while it is active."""

    def __init__(self) -> None:
        super().__init__()
        self.counts: Counter[str] = Counter()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.counts[func.overloadpacket.__name__] += 1
        return func(*args, **(kwargs or {}))


grad_mode_seen = []  # grad mode inside the segment, at each run of it


def segment(x: torch.Tensor) -> torch.Tensor:
    grad_mode_seen.append(torch.is_grad_enabled())
    return x.exp().tanh() + 1  # exp and tanh save tensors; + 1 saves nothing


torch.manual_seed(0)
x = torch.randn(5, requires_grad=True)
# --8<-- [end:setup]

# --8<-- [start:graph]
for reentrant in (True, False):
    grad_mode_seen.clear()
    out = checkpoint(segment, x, use_reentrant=reentrant)
    print(f"use_reentrant={reentrant!s:5}: out.grad_fn is {out.grad_fn.name()}")
    out.sum().backward()
    forward, again = grad_mode_seen
    print(f"  grad mode in the forward pass: {forward!s:5}, in the recomputation: {again}")
# --8<-- [end:graph]

# --8<-- [start:no-input-grad]
from torch import nn

layer = nn.Linear(5, 3)
data = torch.randn(2, 5)  # data: requires_grad is False
for reentrant in (True, False):
    layer.weight.grad = None
    out = checkpoint(layer, data, use_reentrant=reentrant)
    if out.requires_grad:
        out.sum().backward()
    is_set = layer.weight.grad is not None
    print(f"use_reentrant={reentrant!s:5}: the weight's gradient is set: {is_set}")
# --8<-- [end:no-input-grad]


# --8<-- [start:nested-structure]
def segment_of_list(tensors: list[torch.Tensor]) -> torch.Tensor:
    return segment(tensors[0])


for reentrant in (True, False):
    x.grad = None
    out = checkpoint(segment_of_list, [x], use_reentrant=reentrant)  # x inside a list
    if out.requires_grad:
        out.sum().backward()
    print(f"use_reentrant={reentrant!s:5}: x, inside a list, gets a gradient: {x.grad is not None}")
x.grad = None
# --8<-- [end:nested-structure]

# --8<-- [start:autograd-grad]
(grad,) = torch.autograd.grad(checkpoint(segment, x, use_reentrant=False).sum(), x)
(eager,) = torch.autograd.grad(segment(x).sum(), x)
print("non-reentrant, torch.autograd.grad:", grad)
print("equal to the gradient without checkpoint:", torch.equal(grad, eager))
# --8<-- [end:autograd-grad]

# --8<-- [start:double-backward]
import warnings


def f(x: torch.Tensor) -> torch.Tensor:
    return x.sin() * x  # f'(x) = cos(x) x + sin(x), f''(x) = 2 cos(x) - x sin(x)


for reentrant in (True, False):
    x.grad = None
    with warnings.catch_warnings():  # the reference-cycle warning: x.grad is reset anyway
        warnings.filterwarnings("ignore", message="Using backward\\(\\) with create_graph")
        checkpoint(f, x, use_reentrant=reentrant).sum().backward(create_graph=True)
    print(f"use_reentrant={reentrant!s:5}: x.grad.requires_grad = {x.grad.requires_grad}")
second = torch.autograd.grad(x.grad.sum(), x)[0]  # the non-reentrant one
print(
    "second derivative == 2 cos(x) - x sin(x):", torch.allclose(second, 2 * x.cos() - x * x.sin())
)
x.grad = None
# --8<-- [end:double-backward]

# --8<-- [start:early-stop]
from torch.utils.checkpoint import set_checkpoint_early_stop


def recomputed(reentrant: bool, early_stop: bool = True) -> dict[str, int]:
    """The segment's forward operations that run again during backward()."""
    with set_checkpoint_early_stop(early_stop):
        out = checkpoint(segment, x, use_reentrant=reentrant)
    with CountOps() as ops:
        out.sum().backward()
    return {name: ops.counts[name] for name in ("exp", "tanh", "add")}


print("reentrant:                        ", recomputed(reentrant=True))
print("non-reentrant:                    ", recomputed(reentrant=False))
print("non-reentrant, early stop off:    ", recomputed(reentrant=False, early_stop=False))
# --8<-- [end:early-stop]


# --8<-- [start:nested]
def inner(h: torch.Tensor) -> torch.Tensor:
    return h.sin().exp()


def outer(h: torch.Tensor, reentrant: bool) -> torch.Tensor:
    return checkpoint(inner, h, use_reentrant=reentrant).cos()  # a checkpoint inside


(eager,) = torch.autograd.grad(inner(x).cos().sum(), x)
for reentrant in (True, False):
    x.grad = None
    checkpoint(outer, x, reentrant, use_reentrant=reentrant).sum().backward()
    print(f"nested, use_reentrant={reentrant!s:5}: gradient as without checkpoint:", end=" ")
    print(torch.equal(x.grad, eager))
x.grad = None
# --8<-- [end:nested]

# --8<-- [start:selective]
import functools
import gc
import os

os.environ["KINETO_LOG_LEVEL"] = "6"  # keep the profiler's own log lines (to stderr) quiet
from torch.profiler import ProfilerActivity, profile
from torch.utils.checkpoint import CheckpointPolicy, create_selective_checkpoint_contexts
from torch.utils.flop_counter import FlopCounterMode


def bytes_kept(prof) -> int:
    """Bytes allocated and not freed while the profiler ran (its raw memory records)."""
    return sum(r.nbytes() for r in prof.profiler.kineto_results.events() if r.name() == "[memory]")


def save_matmuls(ctx, op, *args, **kwargs) -> CheckpointPolicy:
    """Keep the result of every matrix product; recompute everything else."""
    if op in (torch.ops.aten.mm.default, torch.ops.aten.addmm.default):
        return CheckpointPolicy.MUST_SAVE
    return CheckpointPolicy.PREFER_RECOMPUTE


torch.manual_seed(0)
block = nn.Sequential(nn.Linear(64, 256), nn.GELU(), nn.Linear(256, 64))  # a feed-forward block
inputs = torch.randn(32, 64)
# --8<-- [start:selective-maths]
selective = functools.partial(create_selective_checkpoint_contexts, save_matmuls)
variants = {  # nothing random in the block, so no random-number state to keep
    "no checkpoint": lambda: block(inputs),
    "checkpoint": lambda: checkpoint(block, inputs, use_reentrant=False, preserve_rng_state=False),
    "selective": lambda: checkpoint(
        block, inputs, use_reentrant=False, preserve_rng_state=False, context_fn=selective
    ),
}
table = {}  # name: (bytes kept, operations run again, backward FLOPs)
for name, forward in variants.items():
    block.zero_grad()
    # Earlier garbage is freed now, not during the profile, where it would count.
    # One collection can leave garbage for the next: collect until one finds none.
    while gc.collect():
        pass
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        result = forward()
    kept = bytes_kept(prof) - result.nbytes  # besides the output itself
    with CountOps() as ops, FlopCounterMode(display=False) as flops:
        result.sum().backward()
    table[name] = (kept, ops.counts, flops.get_total_flops())
    del result
# --8<-- [end:selective-maths]
print("               kept until backward  run again in backward   backward FLOPs")
for name, (kept, again, flops) in table.items():
    ran = f"{again['addmm']} addmm, {again['gelu']} gelu"
    print(f"{name:14} {kept // 1024:10} KiB {ran:>22} {flops:16}")
# --8<-- [end:selective]

"""Interview: What is gradient checkpointing? (docs/interview/what-is-gradient-checkpointing.md)"""

# --8<-- [start:model]
import torch
from torch import nn
from torch.utils.checkpoint import checkpoint, checkpoint_sequential

torch.manual_seed(0)
model = nn.Sequential(  # 8 blocks, each: widen, tanh, narrow, tanh
    *[nn.Sequential(nn.Linear(64, 256), nn.Tanh(), nn.Linear(256, 64), nn.Tanh()) for _ in range(8)]
)
inputs = torch.randn(32, 64)
calls = []  # one entry per forward call of a block
for number, block in enumerate(model):
    block.register_forward_pre_hook(lambda module, args, number=number: calls.append(number))


def train_step(segments: int | None) -> tuple[float, list[int], list[torch.Tensor]]:
    """Forward and backward; return the KiB saved for backward, the calls, the gradients."""
    params = {p.untyped_storage().data_ptr() for p in model.parameters()}
    saved: dict[int, int] = {}  # distinct memory saved for backward: address -> bytes

    def pack(t: torch.Tensor) -> torch.Tensor:
        address = t.untyped_storage().data_ptr()
        if address not in params:  # parameters are kept anyway
            saved[address] = t.untyped_storage().nbytes()
        return t

    model.zero_grad()
    calls.clear()
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        if segments is None:
            out = model(inputs)
        else:
            out = checkpoint_sequential(model, segments, inputs, use_reentrant=False)
    out.pow(2).mean().backward()
    return sum(saved.values()) / 1024, list(calls), [p.grad.clone() for p in model.parameters()]


# --8<-- [end:model]

# --8<-- [start:compare]
plain_kib, plain_calls, plain_grads = train_step(segments=None)
ckpt_kib, ckpt_calls, ckpt_grads = train_step(segments=4)
for a, b in zip(plain_grads, ckpt_grads, strict=True):
    torch.testing.assert_close(a, b)

print(f"without checkpointing: {plain_kib:g} KiB saved for backward")
print(f"with 4 segments:       {ckpt_kib:g} KiB saved for backward")
print("block forward calls without:", plain_calls)
print("block forward calls with:   ", ckpt_calls)
print("gradients equal: yes (assert_close passed)")
# --8<-- [end:compare]

# --8<-- [start:reentrant]
first_layer = model[0][0]  # its input is data, which does not require grad
for reentrant in (True, False):
    first_layer.weight.grad = None
    out = checkpoint(first_layer, inputs, use_reentrant=reentrant)
    print(f"use_reentrant={reentrant}: out.requires_grad = {out.requires_grad}")
out.pow(2).mean().backward()
print("use_reentrant=False: first_layer.weight.grad is set:", first_layer.weight.grad is not None)
# --8<-- [end:reentrant]

"""Interview: How much memory does training take?
(docs/interview/how-much-memory-does-training-take.md)

The bytes of weights, gradients and Adam's state per parameter, counted from real tensors;
the activations, counted with saved-tensor hooks; the peak of a step, from the profiler.
"""
# Each region is read on its own on the page, so imports appear where they are used.
# ruff: noqa: E402

# --8<-- [start:model]
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(
    nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 64)
)
params = list(model.parameters())
P = sum(p.numel() for p in params)
print(f"P = {P} parameters in {len(params)} tensors")


def nbytes(tensors) -> int:
    """Bytes of the values of some tensors."""
    return sum(t.nbytes for t in tensors)


def data(batch: int, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    return torch.randn(batch, 64, generator=generator), torch.randn(batch, 64, generator=generator)


def loss_of(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return ((model(x) - y) ** 2).mean()


# --8<-- [end:model]

# --8<-- [start:fp32]
adam = torch.optim.Adam(params, lr=1e-3)
loss_of(*data(batch=8)).backward()
adam.step()  # Adam makes its state at its first step
state = [adam.state[p] for p in params]
# --8<-- [start:fp32-maths]
memory = {
    "weights": nbytes(params),
    "gradients": nbytes(p.grad for p in params),
    "Adam's exp_avg": nbytes(s["exp_avg"] for s in state),
    "Adam's exp_avg_sq": nbytes(s["exp_avg_sq"] for s in state),
    "Adam's step counters": nbytes(s["step"] for s in state),
}
# --8<-- [end:fp32-maths]
for kind, size in memory.items():
    print(f"{kind:21} {size:7} bytes = {size / P:.4g} per parameter")
total = sum(memory.values())
print(f"{'in all':21} {total:7} bytes = {total / P:.6g} per parameter")
# --8<-- [end:fp32]

# --8<-- [start:autocast]
x, y = data(batch=8)
# --8<-- [start:autocast-maths]
params_of = {(p.shape, p.untyped_storage().data_ptr()) for p in params}
weight_shapes = {p.shape for p in params}
saved: dict[int, torch.Tensor] = {}  # distinct storages saved for backward


def pack(t: torch.Tensor) -> torch.Tensor:
    if (t.shape, t.untyped_storage().data_ptr()) not in params_of:  # not a parameter itself
        saved[t.untyped_storage().data_ptr()] = t
    return t


hooks = torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t)
with hooks, torch.autocast("cpu", dtype=torch.bfloat16):  # products in bfloat16
    loss = loss_of(x, y)
copies = [t for t in saved.values() if t.dtype == torch.bfloat16 and t.shape in weight_shapes]
# --8<-- [end:autocast-maths]
print("16-bit copies of weights saved for backward:", [tuple(t.shape) for t in copies])
print(f"  {nbytes(copies)} bytes = {nbytes(copies) / P:.3g} per parameter")
loss.backward()
# --8<-- [end:autocast]


# --8<-- [start:activations]
def activation_bytes(batch: int) -> int:
    """Distinct new memory the graph saves for backward (not parameters, not the input)."""
    kept: dict[int, int] = {}
    existing = {p.untyped_storage().data_ptr() for p in params}

    def pack(t: torch.Tensor) -> torch.Tensor:
        if t.untyped_storage().data_ptr() not in existing:
            kept[t.untyped_storage().data_ptr()] = t.untyped_storage().nbytes()
        return t

    x, y = data(batch)
    existing.add(x.untyped_storage().data_ptr())  # the data exists anyway
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        loss_of(x, y)
    return sum(kept.values())


for batch in (1, 8, 64, 512):
    size = activation_bytes(batch)
    print(f"batch {batch:3}: {size:8} bytes of activations = {size // batch} per example")
# --8<-- [end:activations]

# --8<-- [start:peak]
import gc
import os

os.environ["KINETO_LOG_LEVEL"] = "6"  # keep the profiler's own log lines (to stderr) quiet
from torch.profiler import ProfilerActivity, profile, record_function


def profile_step(batch: int) -> tuple[int, int, str]:
    """One training step after the first (Adam's state exists): where is the peak?"""
    adam.zero_grad()  # gradients are set to None: they are made again in backward()
    x, y = data(batch, seed=1)
    # Earlier garbage is freed now, not during the profile, where it would count.
    # One collection can leave garbage for the next: collect until one finds none.
    while gc.collect():
        pass
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        with record_function("forward"):
            loss = loss_of(x, y)
        with record_function("backward"):
            loss.backward()
        with record_function("step"):
            adam.step()
    events = list(prof.profiler.kineto_results.events())  # raw records: internal, for a look
    phases = {e.name(): e for e in events if e.name() in ("forward", "backward", "step")}
    in_use = peak = 0
    for record in sorted((e for e in events if e.name() == "[memory]"), key=lambda e: e.start_ns()):
        in_use += record.nbytes()  # + for an allocation, - for a free
        if in_use > peak:
            peak, peak_at = in_use, record.start_ns()
        if record.start_ns() <= phases["forward"].end_ns():
            after_forward = in_use
    (where,) = [n for n, e in phases.items() if e.start_ns() <= peak_at <= e.end_ns()]
    before = nbytes(params) + nbytes(t for s in adam.state.values() for t in s.values())
    print(f"batch {batch:4}: weights and Adam's state {before:10,} bytes")
    print(f"  in use on top of them after forward {after_forward:10,}")
    print(f"  in use on top of them at the peak   {peak:10,}, during {where}")
    return after_forward, peak, where


profile_step(batch=8)
profile_step(batch=2048)
# --8<-- [end:peak]

"""Examples for the chapter "What tracking costs: memory and time".

Each region is included by docs/control/memory-and-time.md. Run the whole file with
`python snippets/control/memory_and_time.py`. The timing regions print ratios and
verdicts, never raw seconds.
"""
# ruff: noqa: E402

# --8<-- [start:saved-one]
import torch
from torch import nn

a = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
b = a.sin()  # d sin(a)/da = cos(a): backward needs a
c = b.exp()  # d exp(b)/db = exp(b): backward needs the result c
print("b's node saved a:", torch.equal(b.grad_fn._saved_self, a))
print("c's node saved c:", torch.equal(c.grad_fn._saved_result, c))
# --8<-- [end:saved-one]


# --8<-- [start:recorder]
def saved_while(function, *args):
    """Call function(*args); return its result and every tensor autograd saved meanwhile."""
    saved = []

    def pack(tensor):  # called once for each tensor a node saves
        saved.append(tensor.detach())  # detach: see the note below
        return tensor.detach()

    def unpack(tensor):  # called when backward needs the tensor again
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        result = function(*args)
    return result, saved


def kind_of(tensor, model, inputs) -> str:
    """Whose memory a saved tensor is: a parameter's, the input's, or new."""
    key = tensor.untyped_storage().data_ptr()
    if key in {p.untyped_storage().data_ptr() for p in model.parameters()}:
        return "a parameter"
    if key == inputs.untyped_storage().data_ptr():
        return "the input"
    return "made in the forward pass"


def kept_bytes(saved, model, inputs) -> int:
    """Bytes of the saved tensors made in the forward pass, once per block of memory."""
    made = {
        t.untyped_storage().data_ptr(): t.untyped_storage().nbytes()
        for t in saved
        if kind_of(t, model, inputs) == "made in the forward pass"
    }
    return sum(made.values())


def describe(saved, model, inputs) -> None:
    first_seen = {}  # block of memory -> the number of the first tensor that uses it
    for number, tensor in enumerate(saved, start=1):
        key = tensor.untyped_storage().data_ptr()
        same = f"  (the same memory as #{first_seen[key]})" if key in first_seen else ""
        first_seen.setdefault(key, number)
        shape = str(tuple(tensor.shape))
        print(f"#{number}: shape {shape:10} {kind_of(tensor, model, inputs)}{same}")
    print(f"saved tensors: {len(saved)}, distinct blocks of memory: {len(first_seen)}")
    print("bytes kept only for backward:", kept_bytes(saved, model, inputs))


# --8<-- [end:recorder]

# --8<-- [start:mlp]
torch.manual_seed(0)
model = nn.Sequential(
    nn.Linear(100, 200), nn.ReLU(), nn.Linear(200, 200), nn.ReLU(), nn.Linear(200, 10)
)
x = torch.randn(64, 100)  # a batch of 64 examples; x does not require grad

out, saved = saved_while(model, x)
describe(saved, model, x)
# --8<-- [end:mlp]

# --8<-- [start:no-grad]
with torch.no_grad():
    out, saved = saved_while(model, x)
print("under no_grad:", len(saved), "tensors saved")
print("out.grad_fn:", out.grad_fn)
# --8<-- [end:no-grad]

# --8<-- [start:input-grad]
x_tracked = x.clone().requires_grad_()  # an input that requires grad, for no reason
out, saved = saved_while(model, x_tracked)
describe(saved, model, x_tracked)

out.sum().backward()
print("x_tracked.grad:", tuple(x_tracked.grad.shape), "computed, and never used")
model.zero_grad()
# --8<-- [end:input-grad]

# --8<-- [start:frozen]
model[0].requires_grad_(False)  # freeze the first linear layer (chapter 4)
out, saved = saved_while(model, x)
print("first layer frozen:")
describe(saved, model, x)

model[2].requires_grad_(False)  # and the second
out, saved = saved_while(model, x)
print("first two layers frozen:")
describe(saved, model, x)
model.requires_grad_(True)  # unfreeze for the rest of the page
# --8<-- [end:frozen]

# --8<-- [start:batch-size]
for batch in (64, 128, 256):
    inputs = torch.randn(batch, 100)
    _, saved = saved_while(model, inputs)
    by_hand = 2 * batch * 200 * 4  # two hidden outputs of batch x 200 float32 values
    print(f"batch {batch:3}: {kept_bytes(saved, model, inputs):6} bytes kept, by hand {by_hand}")
# --8<-- [end:batch-size]

# --8<-- [start:timing-method]
import statistics
import time


def time_per_call(run, calls: int) -> float:
    start = time.process_time()
    for _ in range(calls):
        run()
    return (time.process_time() - start) / calls


def median_ratio(slow, fast, repeats: int = 51, calls: int = 10) -> float:
    """The median, over `repeats` rounds, of time(slow) / time(fast), timed side by side.

    Timing the two in the same round, one right after the other, means that a slower
    moment of a shared machine slows both, and the ratio stays the same.
    """
    slow(), fast()  # warm up
    ratios = [time_per_call(slow, calls) / time_per_call(fast, calls) for _ in range(repeats)]
    return statistics.median(ratios)


def forward_tracked():
    model(x)


def forward_no_grad():
    with torch.no_grad():
        model(x)


def training_step():  # forward and backward, as in training
    model.zero_grad()
    model(x).sum().backward()


# --8<-- [end:timing-method]

# --8<-- [start:timing-big]
torch.manual_seed(0)
print("method: time.process_time, 10 calls per timing, median ratio of 51 paired rounds")
tracked_vs_off = median_ratio(forward_tracked, forward_no_grad)
step_vs_off = median_ratio(training_step, forward_no_grad)
print(f"forward with tracking / forward under no_grad: {tracked_vs_off:.1f}")
print(f"training step (forward + backward) / forward under no_grad: {step_vs_off:.1f}")
print("a training step costs more than 2 forward passes:", step_vs_off > 2)
# --8<-- [end:timing-big]

# --8<-- [start:timing-small]
torch.manual_seed(0)
layers = [m for _ in range(8) for m in (nn.Linear(16, 16), nn.ReLU())]
small = nn.Sequential(*layers)  # 16 small layers
one = torch.randn(1, 16)  # one example


def small_tracked():
    small(one)


def small_no_grad():
    with torch.no_grad():
        small(one)


ratio = median_ratio(small_tracked, small_no_grad, calls=30)  # tiny calls: time 30 at once
print("method: as above, but 30 calls per timing, since each call is so short")
print(f"16 small layers, one example: tracked / no_grad = {ratio:.1f}")
print("tracking is at least 10% slower here:", ratio > 1.1)
# --8<-- [end:timing-small]

# --8<-- [start:live-tracker]
import weakref


class Saved:
    """What the graph keeps for one saved tensor (a weak reference can point to it)."""

    def __init__(self, tensor: torch.Tensor) -> None:
        self.tensor = tensor


alive = weakref.WeakSet()  # the Saved objects some graph still holds


def pack(tensor):
    box = Saved(tensor.detach())
    alive.add(box)
    return box


def unpack(box):
    return box.tensor


def kept_alive() -> str:
    """The saved tensors that graphs still hold, and their bytes (once per storage)."""
    storages = {
        b.tensor.untyped_storage().data_ptr(): b.tensor.untyped_storage().nbytes() for b in alive
    }
    return f"{len(alive):2} saved tensors, {sum(storages.values()):6} bytes"


def nodes_in(tensor: torch.Tensor) -> int:
    """How many nodes of a graph can be reached from tensor.grad_fn."""
    seen, stack = set(), [tensor.grad_fn]
    while stack:
        node = stack.pop()
        if node is not None and node not in seen:
            seen.add(node)
            stack.extend(child for child, _ in node.next_functions)
    return len(seen)


torch.manual_seed(0)
net = nn.Sequential(nn.Linear(100, 200), nn.ReLU(), nn.Linear(200, 10))
batch, targets = torch.randn(64, 100), torch.randn(64, 10)
# --8<-- [end:live-tracker]

# --8<-- [start:log-tensor]
with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    total = 0.0
    for step in range(1, 6):
        loss = ((net(batch) - targets) ** 2).mean()
        total = total + loss  # a tensor: it carries the graph of every loss
        print(f"step {step}: {kept_alive()}, graph of total: {nodes_in(total)} nodes")
del loss, total
print("after del:", kept_alive())
# --8<-- [end:log-tensor]

# --8<-- [start:log-item]
with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    total = 0.0
    for step in range(1, 6):
        loss = ((net(batch) - targets) ** 2).mean()
        total += loss.item()  # a Python float: no graph attached
        print(f"step {step}: {kept_alive()}, total is a {type(total).__name__}")
del loss
print("after del:", kept_alive())
# --8<-- [end:log-item]

# --8<-- [start:log-training]
optimizer = torch.optim.SGD(net.parameters(), lr=0.01)
with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    total = 0.0
    for step in range(1, 6):
        optimizer.zero_grad()
        loss = ((net(batch) - targets) ** 2).mean()
        loss.backward()  # frees the saved tensors of this graph
        optimizer.step()
        total = total + loss
        print(f"step {step}: {kept_alive()}, graph of total: {nodes_in(total)} nodes")
print("total.requires_grad:", total.requires_grad)
# --8<-- [end:log-training]


# --8<-- [start:adam-bytes]
def nbytes(tensors) -> int:
    """Bytes of the values of some tensors: numel x element_size, added up."""
    return sum(t.numel() * t.element_size() for t in tensors)


torch.manual_seed(0)
n_in, hidden, n_out, batch_size = 100, 200, 10, 64
# --8<-- [start:adam-bytes-maths]
mlp = nn.Sequential(nn.Linear(n_in, hidden), nn.ReLU(), nn.Linear(hidden, n_out))
inputs, wanted = torch.randn(batch_size, n_in), torch.randn(batch_size, n_out)
adam = torch.optim.Adam(mlp.parameters(), lr=1e-3)


def mse():
    return ((mlp(inputs) - wanted) ** 2).mean()


loss, saved = saved_while(mse)  # the forward pass: activations are saved
loss.backward()  # the gradients
adam.step()  # Adam makes its state at its first step
params = list(mlp.parameters())
memory = {
    "parameters": nbytes(params),
    "gradients": nbytes(p.grad for p in params),
    "Adam's exp_avg": nbytes(adam.state[p]["exp_avg"] for p in params),
    "Adam's exp_avg_sq": nbytes(adam.state[p]["exp_avg_sq"] for p in params),
    "Adam's step counts": nbytes(adam.state[p]["step"] for p in params),
    "activations (saved for backward)": kept_bytes(saved, mlp, inputs),
}
# --8<-- [end:adam-bytes-maths]
print("parameters:", sum(p.numel() for p in params), "float32 values in", len(params), "tensors")
for kind, size in memory.items():
    print(f"{kind:33} {size:6} bytes")

sgd = torch.optim.SGD(mlp.parameters(), lr=0.01)  # plain SGD, for comparison
sgd.step()
print("plain SGD's state after a step:", dict(sgd.state))
# --8<-- [end:adam-bytes]

# --8<-- [start:bf16-step]
one = torch.tensor(1.0)
for step in (0.001, 0.0001):
    for dtype in (torch.float32, torch.bfloat16, torch.float16):
        name = str(dtype).removeprefix("torch.")
        print(f"1 + {step:<6} in {name:8}: {(one.to(dtype) + step).item():.4f}")
# --8<-- [end:bf16-step]

# --8<-- [start:mixed-precision]
import copy

torch.manual_seed(0)
master = nn.Sequential(nn.Linear(n_in, hidden), nn.ReLU(), nn.Linear(hidden, n_out))  # float32
low = copy.deepcopy(master).to(torch.bfloat16)  # a 16-bit copy: it runs forward and backward
master_adam = torch.optim.Adam(master.parameters(), lr=1e-3)  # it updates the float32 weights
inputs16, wanted16 = inputs.bfloat16(), wanted.bfloat16()

loss16, saved16 = saved_while(lambda: ((low(inputs16) - wanted16) ** 2).float().mean())
loss16.backward()  # 16-bit gradients, in the 16-bit copy
for p, q in zip(master.parameters(), low.parameters(), strict=True):
    p.grad = q.grad.float()  # a float32 copy of the gradient, for the step only
master_adam.step()
master_adam.zero_grad()  # and gone again
with torch.no_grad():
    for p, q in zip(master.parameters(), low.parameters(), strict=True):
        q.copy_(p)  # the updated weights, rounded to 16 bits for the next forward pass

masters, lows = list(master.parameters()), list(low.parameters())
mixed = {
    "16-bit weights": nbytes(lows),
    "16-bit gradients": nbytes(q.grad for q in lows),
    "float32 master weights": nbytes(masters),
    "Adam's exp_avg": nbytes(master_adam.state[p]["exp_avg"] for p in masters),
    "Adam's exp_avg_sq": nbytes(master_adam.state[p]["exp_avg_sq"] for p in masters),
}
for kind, size in mixed.items():
    print(f"{kind:23} {size:6} bytes")
print("bytes per parameter:", sum(mixed.values()) / sum(p.numel() for p in masters))
print("activations (saved for backward):", kept_bytes(saved16, low, inputs16), "bytes")
# --8<-- [end:mixed-precision]

# --8<-- [start:profile-step]
import gc
import os

os.environ["KINETO_LOG_LEVEL"] = "6"  # keep the profiler's own log lines (to stderr) quiet
from torch.profiler import ProfilerActivity, profile, record_function


def memory_profile() -> profile:
    """A profiler of CPU memory, started with no garbage waiting to be collected.

    Otherwise a garbage collection during the profile could free memory that earlier
    code allocated, and the profiler would count that free against the code measured.
    One collection can leave garbage for the next, so it collects until one finds none.
    """
    while gc.collect():
        pass
    return profile(activities=[ProfilerActivity.CPU], profile_memory=True)


def end_and_peak(prof) -> tuple[int, int]:
    """Bytes in use at the end of a profile, and at its peak, counted from its start.

    The profiler keeps one raw record per allocation (+ bytes) and per free (- bytes).
    """
    records = [r for r in prof.profiler.kineto_results.events() if r.name() == "[memory]"]
    in_use = peak = 0
    for record in sorted(records, key=lambda r: r.start_ns()):  # in the order they happened
        in_use += record.nbytes()
        peak = max(peak, in_use)
    return in_use, peak


adam = torch.optim.Adam(mlp.parameters(), lr=1e-3)  # a new Adam: no state yet
adam.zero_grad()  # no gradients yet either (they are set to None)
del loss, saved  # nothing left from the step above
with memory_profile() as prof:
    with record_function("forward"):
        loss = mse()
    with record_function("backward"):
        loss.backward()
    with record_function("step"):
        adam.step()

net_bytes = {event.key: event.cpu_memory_usage for event in prof.key_averages()}
for phase in ("forward", "backward", "step"):
    print(f"{phase:8} allocated minus freed: {net_bytes[phase]:7} bytes")

in_use, peak = end_and_peak(prof)
print("in use at the end:", in_use, "bytes; at the peak:", peak, "bytes")
# --8<-- [end:profile-step]


# --8<-- [start:peak-two-graphs]
def validation_loop(del_loss: bool) -> None:
    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        for step in range(1, 4):
            out = net(batch)  # the new graph is being built: is the old one still alive?
            during = kept_alive()
            loss = ((out - targets) ** 2).mean()  # the old loss is freed only here
            del out
            print(f"step {step}: during the forward pass {during}; after it {kept_alive()}")
            if del_loss:
                del loss  # the graph goes now, before the next forward pass


print("loss rebound by the next step:")
validation_loop(del_loss=False)
print("del loss at the end of each step:")
validation_loop(del_loss=True)
# --8<-- [end:peak-two-graphs]

# --8<-- [start:inplace-relu]
layer = nn.Linear(100, 200)
grads = []
for relu in (torch.relu, torch.relu_):  # out of place, then in place
    layer.zero_grad()
    with memory_profile() as prof:
        h = relu(layer(batch))
    made = {event.key: event.cpu_memory_usage for event in prof.key_averages()}
    in_use, peak = end_and_peak(prof)
    print(
        f"{relu.__name__:5}: it allocated {made['aten::' + relu.__name__]:5} bytes;",
        f"in use at the end {in_use}, at the peak {peak}",
    )
    h.sum().backward()  # works in both cases
    grads.append(layer.weight.grad)
    del h
print("the same gradient both ways:", torch.equal(grads[0], grads[1]))
# --8<-- [end:inplace-relu]

# --8<-- [start:checkpoint]
from torch.utils.checkpoint import checkpoint

body, head = model[:4], model[4]  # the two hidden layers with their ReLUs; the last layer
first_layer_calls = []
model[0].register_forward_pre_hook(lambda module, args: first_layer_calls.append(1))


def plain(inputs):
    return head(body(inputs))


def recomputed(inputs):  # body keeps only its input; backward runs it again
    return head(checkpoint(body, inputs, use_reentrant=False))


gradients = []
for forward in (plain, recomputed):
    model.zero_grad()
    first_layer_calls.clear()
    out, saved = saved_while(forward, x)
    shapes = [tuple(t.shape) for t in saved]
    out.sum().backward()
    print(f"{forward.__name__:10} saved {len(saved)} tensors {shapes}")
    print(f"{'':10} bytes kept for backward: {kept_bytes(saved, model, x)}")
    print(f"{'':10} the first layer ran {len(first_layer_calls)} times")
    gradients.append([p.grad.clone() for p in model.parameters()])
pairs = zip(*gradients, strict=True)
print("the same gradients:", all(torch.equal(a, b) for a, b in pairs))
# --8<-- [end:checkpoint]

# --8<-- [start:save-on-cpu]
import contextlib

offload = torch.autograd.graph.save_on_cpu()
print(
    "save_on_cpu is a pair of saved-tensor hooks:",
    isinstance(offload, torch.autograd.graph.saved_tensors_hooks),
)
h = torch.randn(64, 200)
for pin in (False, True):
    device, packed = torch.autograd.graph.save_on_cpu(pin_memory=pin).pack_hook(h)
    copied = packed.untyped_storage().data_ptr() != h.untyped_storage().data_ptr()
    kept = "a copy" if copied else "the same memory"
    print(f"pin_memory={pin!s:5}: pack returns the device ({device}) and {kept}")

_, saved = saved_while(model, x)
print("bytes of all the tensors the forward pass saves:", nbytes(saved))
for name, hooks in [
    ("no hooks", contextlib.nullcontext()),
    ("save_on_cpu()", torch.autograd.graph.save_on_cpu()),
    ("save_on_cpu(pin_memory=True)", torch.autograd.graph.save_on_cpu(pin_memory=True)),
]:
    model.zero_grad()
    with memory_profile() as prof, hooks:
        out = model(x)
    in_use, _ = end_and_peak(prof)
    out.sum().backward()  # unpack hands each saved tensor back
    print(f"{name:29} in use after the forward pass: {in_use:6} bytes")
    pairs = zip(model.parameters(), gradients[0], strict=True)  # against the plain run
    same = all(torch.allclose(p.grad, plain_grad) for p, plain_grad in pairs)
    print(f"{'':29} the same gradients, up to rounding: {same}")
    del out
# --8<-- [end:save-on-cpu]

# --8<-- [start:inplace-sigmoid]
s = torch.sigmoid(layer(batch))  # SigmoidBackward0 saves its output s
s.relu_()  # s > 0 already: relu_ changes no value, but it is still a change
s.sum().backward()
# --8<-- [end:inplace-sigmoid]

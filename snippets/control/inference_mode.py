"""Chapter: inference_mode() (docs/control/inference-mode.md)."""
# Each region is one block of the page; together they run top to bottom as one program.
# ruff: noqa: E402

# --8<-- [start:basics]
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)


def current_modes():
    inference, grad = torch.is_inference_mode_enabled(), torch.is_grad_enabled()
    return f"inference mode {inference}, grad mode {grad}"


with torch.inference_mode():
    print("inside: ", current_modes())
    y = x * 2
print("outside:", current_modes())

print("y =", y.tolist(), " requires_grad:", y.requires_grad, " grad_fn:", y.grad_fn)
print("y.is_inference():", y.is_inference(), "  x.is_inference():", x.is_inference())
# --8<-- [end:basics]

# --8<-- [start:version-no-grad]
with torch.no_grad():
    n = x * 2
    n.add_(1)  # an in-place change: the version counter counts it
print("made under no_grad: version", n._version, " is_inference", n.is_inference())
# --8<-- [end:version-no-grad]

# --8<-- [start:views]
with torch.no_grad():
    n = x * 2
    n_view = n[:2]
with torch.inference_mode():
    y = x * 2
    y_view = y[:2]


def same_storage(a, b):
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


print(f"no_grad:        shares storage {same_storage(n, n_view)}, a view of n: {n_view._base is n}")
print(f"inference_mode: shares storage {same_storage(y, y_view)}, a view of y: {y_view._base is y}")
# --8<-- [end:views]

# --8<-- [start:views-of-normal]
normal = torch.zeros(4)  # an ordinary tensor, made outside
with torch.inference_mode():
    normal_view = normal[:2]  # a view of an ordinary tensor, taken inside
    normal.add_(1)  # an in-place change of an ordinary tensor, inside
print(f"view of an ordinary tensor, taken inside: a view of it: {normal_view._base is normal}")
print("ordinary tensor changed inside: version", normal._version)
print("is_inference():", normal.is_inference(), normal_view.is_inference())
# --8<-- [end:views-of-normal]

# --8<-- [start:forward-ad]
import warnings

import torch.autograd.forward_ad as fwAD

# The first forward-mode call makes PyTorch warn, many times over, about its own use of
# torch.jit.script. Hide exactly that warning, by its message:
warnings.filterwarnings("ignore", "`torch.jit.script` is deprecated")

values, tangent = torch.tensor([1.0, 2.0]), torch.tensor([1.0, 1.0])  # the direction: 1 each
# --8<-- [start:forward-ad-maths]
with fwAD.dual_level():
    dual = fwAD.make_dual(values, tangent)  # a dual tensor: values with a tangent
    with torch.no_grad():
        tangent_no_grad = fwAD.unpack_dual(dual * 3).tangent  # d(3x) = 3 dx
    with torch.inference_mode():
        tangent_inference = fwAD.unpack_dual(dual * 3).tangent
# --8<-- [end:forward-ad-maths]
print("tangent of dual * 3 under no_grad():       ", tangent_no_grad)
print("tangent of dual * 3 under inference_mode():", tangent_inference)
# --8<-- [end:forward-ad]

# --8<-- [start:why-no-grad-keeps-them]
w = torch.tensor([1.0, 1.0], requires_grad=True)
with torch.no_grad():
    features = torch.tensor([2.0, 3.0]) * 2  # made under no_grad
loss = (w * features).sum()  # MulBackward0 saves features: d loss / d w = features
features.add_(1)  # version 0 -> 1, and the graph notices
# --8<-- [end:why-no-grad-keeps-them]

# --8<-- [start:timing-mlp]
import contextlib
import statistics
import time

torch.manual_seed(0)
torch.set_num_threads(1)  # one CPU thread: steadier timings
model = torch.nn.Sequential(
    torch.nn.Linear(32, 64),
    torch.nn.ReLU(),
    torch.nn.Linear(64, 64),
    torch.nn.ReLU(),
    torch.nn.Linear(64, 10),
)
batch = torch.randn(16, 32)


def in_mode(mode, work):
    """work, run under a grad mode: a function to time."""

    def run():
        with mode():
            work()

    return run


def time_per_call(run, calls: int) -> float:
    start = time.process_time()
    for _ in range(calls):
        run()
    return (time.process_time() - start) / calls


def median_ratio(slow, fast, repeats: int = 51, calls: int = 20) -> float:
    """The median, over `repeats` rounds, of time(slow) / time(fast), timed side by side."""
    slow(), fast()  # warm up
    ratios = [time_per_call(slow, calls) / time_per_call(fast, calls) for _ in range(repeats)]
    return statistics.median(ratios)


def forward():
    model(batch)


tracked = in_mode(contextlib.nullcontext, forward)  # grad mode on: the graph is recorded
no_grad = in_mode(torch.no_grad, forward)
inference = in_mode(torch.inference_mode, forward)
mlp = {
    "tracked / no_grad": median_ratio(tracked, no_grad),
    "tracked / inference_mode": median_ratio(tracked, inference),
    "no_grad / inference_mode": median_ratio(no_grad, inference),
}
print("method: time.process_time, 20 calls per timing, median ratio of 51 paired rounds, 1 thread")
for pair, ratio in mlp.items():
    print(f"{pair + ':':25} {ratio:.1f}")
slowest = mlp["tracked / no_grad"] > 1 and mlp["tracked / inference_mode"] > 1
print("the tracked forward pass is the slowest of the three:", slowest)
print("no_grad within 20% of inference_mode:", 0.8 < mlp["no_grad / inference_mode"] < 1.2)
# --8<-- [end:timing-mlp]

# --8<-- [start:timing-views]
v = torch.ones(4, requires_grad=True)


def many_small_views():
    t = v
    for _ in range(100):  # 300 tiny operations, 200 of them views
        t = (t * 1.0001).view(2, 2).view(4)
    return t


tracked_views = in_mode(contextlib.nullcontext, many_small_views)
no_grad_views = in_mode(torch.no_grad, many_small_views)
inference_views = in_mode(torch.inference_mode, many_small_views)
print("method: as above, 31 paired rounds of 20 calls each")
print(f"tracked / no_grad:        {median_ratio(tracked_views, no_grad_views, 31):.1f}")
print(f"no_grad / inference_mode: {median_ratio(no_grad_views, inference_views, 31):.1f}")
# --8<-- [end:timing-views]

# --8<-- [start:limit-setup]
torch.manual_seed(0)
backbone = torch.nn.Linear(4, 3)
head = torch.nn.Linear(3, 1)  # the part we want to train
data = torch.randn(5, 4)

with torch.inference_mode():
    cached = backbone(data)  # features computed once, to train the head on later
print("cached.is_inference():", cached.is_inference())
# --8<-- [end:limit-setup]

# --8<-- [start:not-saved]
bias = torch.zeros(3, requires_grad=True)
shifted = cached + bias  # addition saves neither input: d/d bias = 1
shifted.sum().backward()
print("bias.grad =", bias.grad.tolist(), " shifted.is_inference():", shifted.is_inference())
# --8<-- [end:not-saved]

# --8<-- [start:inplace-outside]
before = cached.tolist()  # the numbers, as a Python list, to compare with afterwards
# --8<-- [end:inplace-outside]

# On the page, the block above goes on with `cached.add_(1)`, which raises an error:
with contextlib.suppress(RuntimeError):
    cached.add_(1)

# --8<-- [start:changed-anyway]
print("cached changed anyway:", cached.tolist() != before)
print("by exactly +1:", torch.allclose(cached - torch.tensor(before), torch.ones_like(cached)))

with torch.inference_mode():
    cached = backbone(data)  # compute the features again, as they were
# --8<-- [end:changed-anyway]

# --8<-- [start:clone]
features = cached.clone()  # outside inference mode: a normal tensor
print("features.is_inference():", features.is_inference())

loss = head(features).pow(2).mean()
loss.backward()
print("head.weight.grad is set:", head.weight.grad is not None)

version = features._version
features.add_(1)  # in place: allowed, and counted
print("in-place changes counted:", features._version - version)
# --8<-- [end:clone]

# --8<-- [start:clone-check]
# The gradient is the same as with features computed under no_grad:
head.weight.grad = None
with torch.no_grad():
    same_features = backbone(data)
head(same_features).pow(2).mean().backward()
from_no_grad = head.weight.grad.clone()

head.weight.grad = None
head(cached.clone()).pow(2).mean().backward()
print("same gradient:", torch.equal(head.weight.grad, from_no_grad))
# --8<-- [end:clone-check]

# --8<-- [start:is-inference]
normal = torch.ones(2)
with torch.inference_mode():
    made_inside = normal * 2
    normal.add_(1)  # an in-place change to a normal tensor, inside
    inside_view = normal[:1]  # a view of a normal tensor, inside


@torch.inference_mode()
def predict(t):
    return head(t)


for name, t in [
    ("a parameter (head.weight)", head.weight),
    ("made inside inference_mode", made_inside),
    ("normal tensor changed in place inside", normal),
    ("view of a normal tensor, taken inside", inside_view),
    ("returned by an @inference_mode function", predict(features)),
    ("clone of an inference tensor, outside", made_inside.clone()),
]:
    print(f"{name:40} is_inference() = {t.is_inference()}")
# --8<-- [end:is-inference]

# --8<-- [start:switch-off]
with torch.inference_mode():
    print("inside:", torch.is_inference_mode_enabled())
    with torch.inference_mode(False):  # off again, inside
        print("inside inference_mode(False):", torch.is_inference_mode_enabled())
        z = x * 2
print("z: requires_grad", z.requires_grad, " grad_fn", z.grad_fn.name())
print("z.is_inference():", z.is_inference())
# --8<-- [end:switch-off]

# --8<-- [start:view-under-no-grad]
x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
with torch.no_grad():
    v = x[:2]  # a view of x, taken with recording off
print("v.requires_grad:", v.requires_grad, " v.grad_fn:", v.grad_fn)
print("v is a view of x:", v._base is x, " v.is_leaf:", v.is_leaf)
# --8<-- [end:view-under-no-grad]

# --8<-- [start:view-gradient]
loss = (v**2).sum()  # grad mode is on again: this is recorded
print("loss.requires_grad:", loss.requires_grad)
loss.backward()  # no error...
print("x.grad:", x.grad, " v.grad:", v.grad)  # ...and no gradient anywhere
square = loss.grad_fn.next_functions[0][0]
print(f"{square.name()}'s edge for v:", square.next_functions)
# --8<-- [end:view-gradient]

# On the page, a block changes in place a view taken in inference mode, which raises an error:
with torch.inference_mode():
    v = x[:2]
with contextlib.suppress(RuntimeError):
    v.mul_(2)

# --8<-- [start:view-remedies]
# 1. You want the gradient: take the view with recording on.
x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
# --8<-- [start:view-remedies-maths]
v = x[:2]
(v**2).sum().backward()
# --8<-- [end:view-remedies-maths]
print("view taken outside no_grad: x.grad =", x.grad.tolist())

# 2. You want an untracked change of x: the view and the change both inside no_grad().
with torch.no_grad():
    v = x[:2]
    v.mul_(2)  # like an optimizer step on part of a parameter
print("both inside no_grad: x =", x.tolist(), " still a leaf:", x.is_leaf)
# --8<-- [end:view-remedies]


# --8<-- [start:enable-grad-inside]
@torch.enable_grad()
def input_gradient(f, inputs):
    """d f(inputs).sum() / d inputs, as in chapter 2: it needs a graph of its own."""
    inputs = inputs.detach().requires_grad_()
    f(inputs).sum().backward()
    return inputs.grad


t = torch.tensor([1.0, 2.0, 3.0])
with torch.no_grad():
    print("called under no_grad:", input_gradient(lambda u: u**2, t).tolist())

with torch.inference_mode(), torch.enable_grad():
    print("inference_mode, then enable_grad:", current_modes())
    square = t.detach().requires_grad_() ** 2
print("square: requires_grad", square.requires_grad, " grad_fn", square.grad_fn)
print("square.is_inference():", square.is_inference())
# --8<-- [end:enable-grad-inside]

# On the page, a block calls input_gradient inside inference_mode(), which raises an error:
with torch.inference_mode(), contextlib.suppress(RuntimeError):
    input_gradient(lambda u: u**2, t)

# --8<-- [start:inference-mode-false]
with torch.inference_mode():
    t_inf = t * 1  # made here: an inference tensor
    with torch.inference_mode(False):  # leave inference mode for these calls
        print("inside inference_mode(False):", current_modes())
        g = input_gradient(lambda u: u**2, t)
        g_inf = input_gradient(lambda u: u**2, t_inf.clone())  # clone: an ordinary copy
print("gradient of sum(t²):", g.tolist(), " from the inference tensor:", g_inf.tolist())
# --8<-- [end:inference-mode-false]

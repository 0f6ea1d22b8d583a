"""Chapter: no_grad(), enable_grad() and set_grad_enabled() (docs/control/no-grad.md)."""
# Each region is one block of the page; together they run top to bottom as one program.
# ruff: noqa: E402

# --8<-- [start:off]
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)

print("grad mode outside:", torch.is_grad_enabled())
with torch.no_grad():
    print("grad mode inside: ", torch.is_grad_enabled())
    y = x * 2  # computed, but not recorded
print("grad mode after:  ", torch.is_grad_enabled())

print("y =", y.tolist(), " requires_grad:", y.requires_grad, " grad_fn:", y.grad_fn)
print("x.requires_grad:", x.requires_grad)  # the input is not changed
# --8<-- [end:off]

# --8<-- [start:new-leaf]
with torch.no_grad():
    w = torch.zeros(3, requires_grad=True)  # a new leaf, made inside
    z = w + 1  # an operation on it, inside
print("w: requires_grad", w.requires_grad, " is_leaf", w.is_leaf)
print("z: requires_grad", z.requires_grad, " grad_fn", z.grad_fn)
# --8<-- [end:new-leaf]

# --8<-- [start:mixed]
x = torch.tensor(2.0, requires_grad=True)
y = x**2  # recorded
with torch.no_grad():
    scale = x * 3  # not recorded: a constant 6 as far as autograd knows
loss = y * scale  # recorded: loss = x² · 6
loss.backward()
print("loss =", loss.item(), " x.grad =", x.grad.item())
# --8<-- [end:mixed]

# --8<-- [start:view]
base = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
with torch.no_grad():
    doubled = base * 2  # a new tensor: fresh memory for the result
    first_half = base[:2]  # a view: it reads base's own memory
print("doubled:    requires_grad", doubled.requires_grad, " grad_fn", doubled.grad_fn)
print("first_half: requires_grad", first_half.requires_grad, " grad_fn", first_half.grad_fn)

(first_half * 3).sum().backward()  # no error...
print("base.grad after backward():", base.grad)  # ...and no gradient either
# --8<-- [end:view]

# --8<-- [start:view-in-place]
with torch.no_grad():
    first_half = base[:2]
# --8<-- [end:view-in-place]

# --8<-- [start:view-remedy]
with torch.no_grad():
    constant = base[:2].detach()  # says so: no gradient, same memory
    copy = base[:2].clone()  # a new tensor with its own memory
print("detach() inside:", constant.requires_grad, " clone() inside:", copy.requires_grad)

tracked = base[:2]  # the view taken outside no_grad() is recorded
print("view taken outside: grad_fn", tracked.grad_fn.name())
(tracked * 3).sum().backward()
print("base.grad:", base.grad.tolist())  # 3 for the two elements in the view, 0 elsewhere
# --8<-- [end:view-remedy]

# --8<-- [start:decorator]
torch.manual_seed(0)
model = torch.nn.Linear(3, 1)


@torch.no_grad()
def predict(inputs):
    return model(inputs)


inputs = torch.randn(2, 3, requires_grad=True)  # even an input that requires grad
out = predict(inputs)
print("predict(inputs): requires_grad", out.requires_grad, " grad_fn", out.grad_fn)
print("model.weight still requires grad:", model.weight.requires_grad)
print("grad mode after the call:", torch.is_grad_enabled())
# --8<-- [end:decorator]


# --8<-- [start:bare-decorator]
@torch.no_grad  # no brackets: also accepted as a decorator
def double(t):
    return t * 2


print("double(x).requires_grad:", double(x).requires_grad)
# --8<-- [end:bare-decorator]

# --8<-- [start:nesting]
x = torch.tensor(2.0, requires_grad=True)
with torch.no_grad():
    a = x * 2
    with torch.enable_grad():
        b = x * 2  # recorded again
        with torch.no_grad():
            c = x * 2
    d = x * 2  # back to no_grad: the inner block restored it

for name, t in [("a", a), ("b", b), ("c", c), ("d", d)]:
    grad_fn = t.grad_fn.name() if t.grad_fn is not None else None
    print(f"{name}: requires_grad={t.requires_grad!s:5}  grad_fn={grad_fn}")
# --8<-- [end:nesting]


# --8<-- [start:enable-grad-decorator]
@torch.enable_grad()
def input_gradient(f, inputs):
    """d f(inputs).sum() / d inputs: needs a graph, even when called under no_grad."""
    inputs = inputs.detach().requires_grad_()
    f(inputs).sum().backward()
    return inputs.grad


with torch.no_grad():  # for example, inside an evaluation loop
    g = input_gradient(lambda t: t**2, torch.tensor([1.0, 2.0, 3.0]))
print("gradient of sum(t²):", g.tolist())  # 2t
# --8<-- [end:enable-grad-decorator]

# --8<-- [start:exception]
try:
    with torch.no_grad():
        raise ValueError("something went wrong inside")
except ValueError:
    pass
print("grad mode after the exception:", torch.is_grad_enabled())
# --8<-- [end:exception]

# --8<-- [start:set-grad-enabled]
torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
inputs, targets = torch.randn(4, 3), torch.randn(4, 1)


def run_batch(training):
    with torch.set_grad_enabled(training):  # one switch for both cases
        loss = torch.nn.functional.mse_loss(model(inputs), targets)
    if training:
        loss.backward()
    return loss


for training in (True, False):
    model.weight.grad = None  # start each case with no gradient
    loss = run_batch(training)
    print(
        f"training={training!s:5}  loss requires_grad: {loss.requires_grad!s:5}  "
        f"weight.grad is set: {model.weight.grad is not None}"
    )
# --8<-- [end:set-grad-enabled]

# --8<-- [start:set-grad-enabled-call]
torch.set_grad_enabled(False)  # called as a function: switches grad mode off from here on
print("after set_grad_enabled(False):", torch.is_grad_enabled())
print("(x * 2).requires_grad:", (x * 2).requires_grad)
torch.set_grad_enabled(True)  # and back on
print("after set_grad_enabled(True): ", torch.is_grad_enabled())
# --8<-- [end:set-grad-enabled-call]


# --8<-- [start:set-grad-enabled-decorator]
@torch.set_grad_enabled(False)  # also a decorator: every call runs with grad mode off
def triple(t):
    return t * 3


print("grad mode after decorating:", torch.is_grad_enabled())
print("triple(x).requires_grad:", triple(x).requires_grad)
print("grad mode after the call: ", torch.is_grad_enabled())
# --8<-- [end:set-grad-enabled-decorator]

# --8<-- [start:update]
torch.manual_seed(0)
inputs, targets = torch.randn(4, 3), torch.randn(4, 1)
by_hand = torch.nn.Linear(3, 1)
by_sgd = torch.nn.Linear(3, 1)
by_sgd.load_state_dict(by_hand.state_dict())  # the same starting weights
optimizer = torch.optim.SGD(by_sgd.parameters(), lr=0.1)

for model in (by_hand, by_sgd):
    torch.nn.functional.mse_loss(model(inputs), targets).backward()

weight = by_hand.weight
version_before = weight._version
with torch.no_grad():  # what optimizer.step() does for plain SGD
    for p in by_hand.parameters():
        p -= 0.1 * p.grad
optimizer.step()

print("same weights after one step:", torch.allclose(by_hand.weight, by_sgd.weight))
print("same bias after one step:   ", torch.allclose(by_hand.bias, by_sgd.bias))
print("still a leaf that requires grad:", weight.is_leaf, weight.requires_grad)
print("still the same tensor object:", weight is by_hand.weight)
print("in-place operations on it (version counter):", weight._version - version_before)
# --8<-- [end:update]

# --8<-- [start:update-after-forward]
w = torch.tensor([1.0, 2.0], requires_grad=True)
x = torch.tensor([3.0, 4.0], requires_grad=True)
loss = (w * x).sum()  # MulBackward0 saves w (for x's gradient) and x (for w's)
with torch.no_grad():
    w -= 0.1  # an update after the forward pass: w is now at version 1
# --8<-- [end:update-after-forward]

# --8<-- [start:backward-under-no-grad]
x = torch.tensor(3.0, requires_grad=True)
y = x**2  # recorded, outside no_grad
with torch.no_grad():
    y.backward()  # backward() still works: no_grad only stops new recording
print("x.grad =", x.grad.item())  # 2x = 6
# --8<-- [end:backward-under-no-grad]

# --8<-- [start:forward-mode]
import warnings

import torch.autograd.forward_ad as fwAD

# The first forward-mode call makes PyTorch warn about its own use of torch.jit.script
# (a FutureWarning since 2.14, a DeprecationWarning before). Hide exactly that warning:
warnings.filterwarnings("ignore", "`torch.jit.script` is deprecated")

value, rate = torch.tensor(2.0), torch.tensor(1.0)  # x = 2, with tangent 1
# --8<-- [start:forward-mode-maths]
with fwAD.dual_level():
    x = fwAD.make_dual(value, rate)
    y = x**2
    with torch.no_grad():
        scale = x * 3  # a constant for backward(), as in the mixed example at the top
    loss = y * scale
    tangent_of_scale = fwAD.unpack_dual(scale).tangent
    tangent_of_loss = fwAD.unpack_dual(loss).tangent
    with torch.inference_mode():
        tangent_inference = fwAD.unpack_dual(x * 3).tangent
    tangent_detached = fwAD.unpack_dual((x * 3).detach()).tangent
# --8<-- [end:forward-mode-maths]
print("tangent of scale, made under no_grad():", tangent_of_scale.item())
print("d loss / dx in forward mode:", tangent_of_loss.item())
print("tangent of x * 3 under inference_mode():", tangent_inference)
print("tangent of (x * 3).detach():", tangent_detached)
# --8<-- [end:forward-mode]

# --8<-- [start:thread]
import threading

seen = {}
with torch.no_grad():
    worker = threading.Thread(target=lambda: seen.update(other=torch.is_grad_enabled()))
    worker.start()
    worker.join()
    seen["this"] = torch.is_grad_enabled()
print("grad mode in this thread:   ", seen["this"])
print("grad mode in another thread:", seen["other"])
# --8<-- [end:thread]

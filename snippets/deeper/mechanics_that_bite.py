"""Examples for the chapter "Mechanics that bite" (docs/deeper/mechanics-that-bite.md).

The page includes the regions below; the file also runs top to bottom on its own:
`python snippets/deeper/mechanics_that_bite.py`. The calls that fail on purpose live in
the page, in `raises=` blocks.
"""

# ruff: noqa: E402

# --8<-- [start:view-version]
from collections.abc import Callable

import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
a = x * 2  # a non-leaf: [2, 4, 6]
tail = a[1:]  # a view: no copy, the same memory as a[1], a[2]

# --8<-- [start:view-version-maths]
print("tail is a view of a:", tail._base is a)
print("versions before: a", a._version, " tail", tail._version)
tail.mul_(10)  # in place, through the view
print("versions after:  a", a._version, " tail", tail._version)
print("a:", a)
# --8<-- [end:view-version-maths]
# --8<-- [end:view-version]

# --8<-- [start:view-backward]
a.sum().backward()
print("x.grad:", x.grad)  # a = [2 x0, 20 x1, 20 x2]
# --8<-- [end:view-backward]

# --8<-- [start:view-of-saved]
x = torch.tensor([0.0, 1.0, 2.0], requires_grad=True)
e = torch.exp(x)  # ExpBackward0 saves its output e
print("version of e before:", e._version)
e[0] = 0.0  # indexing assignment: an in-place copy into the view e[0]
print("version of e after: ", e._version)
# --8<-- [end:view-of-saved]

# --8<-- [start:leaf-fixes]
w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
with torch.no_grad():  # not recorded: the way to set or update a leaf's values
    w[0] = 5.0
print("w after the no_grad assignment:", w)

h = w.clone()  # a non-leaf copy, recorded in the graph
h[0] = 0.0  # in place on the copy: allowed, and recorded
h.sum().backward()
print("w.grad:", w.grad)  # h[0] no longer depends on w[0]
# --8<-- [end:leaf-fixes]

# --8<-- [start:data-wrong]
x = torch.tensor([0.0, 1.0, 2.0], requires_grad=True)
e = torch.exp(x)  # ExpBackward0 saves e, because d exp(x)/dx = exp(x)
e.data.add_(1)  # an in-place change through .data
print("version of e:", e._version)  # unchanged: .data is invisible to autograd
e.sum().backward()  # no error
print("x.grad with .data:", x.grad)

x_check = torch.tensor([0.0, 1.0, 2.0], requires_grad=True)
torch.exp(x_check).sum().backward()
print("the right gradient:", x_check.grad)  # exp(x)
# --8<-- [end:data-wrong]

# --8<-- [start:detach-version]
x = torch.tensor([0.0, 1.0, 2.0], requires_grad=True)
e = torch.exp(x)
e.detach().add_(1)  # the same change through detach()
print("version of e:", e._version)  # detach() shares the version counter
# --8<-- [end:detach-version]

# --8<-- [start:inputs]
w = torch.tensor(3.0, requires_grad=True)
b = torch.tensor(1.0, requires_grad=True)
x = torch.tensor(2.0, requires_grad=True)

loss = (w * x + b) ** 2  # (3 * 2 + 1)^2 = 49
loss.backward(inputs=[w])  # only w gets a gradient
print("w.grad:", w.grad, " b.grad:", b.grad, " x.grad:", x.grad)
# --8<-- [end:inputs]

# --8<-- [start:inputs-non-leaf]
w.grad = None
h = w * x  # a non-leaf
loss = (h + b) ** 2
h.grad_fn.register_hook(  # a node hook (next section): what MulBackward0 passes on
    lambda grad_inputs, grad_outputs: print("MulBackward0 passes on:", grad_inputs)
)
loss.backward(inputs=[h, b])
print("h.grad:", h.grad, " b.grad:", b.grad, " w.grad:", w.grad)
# --8<-- [end:inputs-non-leaf]

# --8<-- [start:hook-order]
# --8<-- [start:hook-order-setup]
events = []  # each hook appends one line; printed after backward()

w = torch.tensor(3.0, requires_grad=True)  # a leaf
h = w * 2  # a non-leaf, made by MulBackward0
loss = h**2
mul = h.grad_fn  # the node MulBackward0


def on_w(grad: torch.Tensor) -> None:
    events.append(f"tensor hook on w: grad {grad.item()}, w.grad is {w.grad}")


def after_accumulate(param: torch.Tensor) -> None:
    events.append(f"post-accumulate-grad hook on w: w.grad is {param.grad.item()}")


def mul_hook(grad_inputs: tuple, grad_outputs: tuple) -> None:
    events.append(f"hook of {mul.name()}: passes {grad_inputs[0].item()} on towards w")


def mul_prehook(grad_outputs: tuple) -> None:
    events.append(f"pre-hook of {mul.name()}: receives {grad_outputs[0].item()}")


def on_h(grad: torch.Tensor) -> None:
    events.append(f"tensor hook on h: grad {grad.item()}")


# --8<-- [end:hook-order-setup]
# Registered in this order on purpose; the order in which they run is autograd's.
w.register_hook(on_w)
w.register_post_accumulate_grad_hook(after_accumulate)
mul.register_hook(mul_hook)
mul.register_prehook(mul_prehook)
h.register_hook(on_h)

loss.backward()
for number, event in enumerate(events, start=1):
    print(number, event)
# --8<-- [end:hook-order]

# --8<-- [start:hook-replaces]
events = []
w = torch.tensor(3.0, requires_grad=True)
h = w * 2
loss = h**2

mul = h.grad_fn
mul.register_prehook(mul_prehook)  # registered first
h.register_hook(lambda grad: grad * 10)  # registered second: runs first, replaces the gradient
h.retain_grad()  # h.grad keeps the gradient too

loss.backward()
print(events[0])
print("h.grad:", h.grad, " w.grad:", w.grad)
# --8<-- [end:hook-replaces]

# --8<-- [start:step-in-backward]
lr = 0.1
w = torch.tensor(3.0, requires_grad=True)


def sgd_step(param: torch.Tensor) -> None:
    """Update one parameter as soon as its .grad is written, then free the .grad."""
    with torch.no_grad():
        param -= lr * param.grad
    param.grad = None


w.register_post_accumulate_grad_hook(sgd_step)
loss = (w * 2) ** 2  # d loss / dw = 8w = 24
loss.backward()
print(f"w after backward(): {w.item():.4f}  w.grad: {w.grad}")  # 3 - 0.1 * 24
# --8<-- [end:step-in-backward]


# --8<-- [start:kinks]
def grad_at(f: Callable[[torch.Tensor], torch.Tensor], values: list[float]) -> list[float]:
    """The gradient of f(x).sum() at the given points, as a list."""
    x = torch.tensor(values, requires_grad=True)
    f(x).sum().backward()
    return x.grad.tolist()


print("relu at [-1, 0, 1]:", grad_at(torch.relu, [-1.0, 0.0, 1.0]))
print("abs  at [-1, 0, 1]:", grad_at(torch.abs, [-1.0, 0.0, 1.0]))
print(
    "clamp(0, 1) at [-0.5, 0, 0.5, 1, 1.5]:",
    grad_at(lambda t: t.clamp(0, 1), [-0.5, 0.0, 0.5, 1.0, 1.5]),
)
print("clamp(min=0) at 0:", grad_at(lambda t: t.clamp(min=0), [0.0]))
print("relu         at 0:", grad_at(torch.relu, [0.0]))
# --8<-- [end:kinks]

# --8<-- [start:ties]
values = [1.0, 3.0, 3.0]  # the maximum, 3, appears twice
print("x.max(dim=0) returns:", torch.tensor(values).max(dim=0))
print("torch.max(x)   :", grad_at(torch.max, values))
print("x.max(dim=0)   :", grad_at(lambda t: t.max(dim=0).values, values))
print("x.amax(dim=0)  :", grad_at(lambda t: t.amax(dim=0), values))
print("torch.maximum(x, 3):", grad_at(lambda t: torch.maximum(t, torch.tensor(3.0)), values))
# --8<-- [end:ties]

# --8<-- [start:clamp-tie]
x = torch.tensor([-0.5, 0.0, 0.5, 1.0, 1.5], requires_grad=True)
low = torch.zeros(5, requires_grad=True)  # the bounds as tensors: they get gradients too
high = torch.ones(5, requires_grad=True)
# --8<-- [start:clamp-tie-maths]
torch.clamp(x, low, high).sum().backward()
print("x        :", x.tolist())
print("x.grad   :", x.grad.tolist())
print("low.grad :", low.grad.tolist())
print("high.grad:", high.grad.tolist())
# --8<-- [end:clamp-tie-maths]
# --8<-- [end:clamp-tie]

# --8<-- [start:piecewise-constant]
x = torch.tensor([0.4, 1.6, -2.5], requires_grad=True)
# --8<-- [start:piecewise-constant-maths]
for name in ("round", "floor", "sign"):
    x.grad = None
    y = getattr(torch, name)(x)
    y.sum().backward()
    print(f"{name:5}: {y.tolist()}  made by {y.grad_fn.name()}, x.grad {x.grad.tolist()}")
# --8<-- [end:piecewise-constant-maths]
# --8<-- [end:piecewise-constant]

# --8<-- [start:no-grad-fn]
index = x.argmax()
positive = x > 0
for name, t in [("x.argmax()", index), ("x > 0", positive)]:
    print(f"{name:10}: {t!r}, requires_grad {t.requires_grad}, grad_fn {t.grad_fn}")
# --8<-- [end:no-grad-fn]

# --8<-- [start:complex]
c = torch.tensor([1 + 2j, 0.5 - 1j], requires_grad=True)  # complex: allowed
print(c.dtype, "requires grad:", c.requires_grad)
# --8<-- [end:complex]

# --8<-- [start:mask]
x.grad = None
y = x * (x > 0)  # the mask is a constant: the gradient flows through x only
y.sum().backward()
print("x.grad:", x.grad)  # 1 where x > 0, else 0: the gradient of relu
# --8<-- [end:mask]

# --8<-- [start:complex-gradient]
z = torch.tensor([1 + 2j, 0.5 - 1j], requires_grad=True)  # complex64, a leaf
a = torch.tensor([3 - 4j, 1j])
# --8<-- [start:complex-gradient-maths]
loss = (z * z.conj()).real.sum()  # |z|^2 = x^2 + y^2, summed: a real loss
loss.backward()
grad_abs2 = z.grad.clone()
print("L = |z|^2   z.grad:", grad_abs2.tolist(), " 2z:", (2 * z).detach().tolist())

z.grad = None
(a * z).real.sum().backward()  # L = Re(a z); the complex derivative of a z is a
grad_linear = z.grad.clone()
print("L = Re(az)  z.grad:", grad_linear.tolist(), " conj(a):", a.conj().tolist())

lr = 0.1
with torch.no_grad():
    stepped = z - lr * grad_abs2  # one step of gradient descent on L = |z|^2
loss_after = (stepped * stepped.conj()).real.sum()
print(f"|z|^2: {loss.item():.4g} before the step, {loss_after.item():.4g} after")
# --8<-- [end:complex-gradient-maths]
# --8<-- [end:complex-gradient]

# --8<-- [start:grad-mode-thread]
import threading

x = torch.ones(2, requires_grad=True)
seen = {}  # what the other thread saw, printed after it has finished


def look() -> None:
    seen["other thread: grad enabled"] = torch.is_grad_enabled()
    seen["other thread: x * 2 requires grad"] = (x * 2).requires_grad


def switch_off() -> None:
    torch.set_grad_enabled(False)  # called as a function: off for the rest of this thread
    seen["other thread: grad enabled after set_grad_enabled(False)"] = torch.is_grad_enabled()


with torch.no_grad():
    thread = threading.Thread(target=look)
    thread.start()
    thread.join()  # wait until it has finished
    print("main thread in no_grad(): grad enabled", torch.is_grad_enabled())

thread = threading.Thread(target=switch_off)
thread.start()
thread.join()
for name, value in seen.items():
    print(f"{name} {value}")
print("main thread afterwards: grad enabled", torch.is_grad_enabled())
# --8<-- [end:grad-mode-thread]

"""Going deeper: gradients of gradients (docs/deeper/gradients-of-gradients.md)."""
# ruff: noqa: E402

# --8<-- [start:quiet-start]
import warnings

import torch

# PyTorch warns about its own use of torch.jit.script (a FutureWarning since 2.14, a
# DeprecationWarning before). Hide exactly that warning, by its message:
warnings.filterwarnings("ignore", "`torch.jit.script` is deprecated")
torch.func.jvp(torch.sin, (torch.zeros(1),), (torch.ones(1),))  # the first forward-mode call
# --8<-- [end:quiet-start]

# --8<-- [start:x-cubed]
import torch

x = torch.tensor(2.0, requires_grad=True)
# --8<-- [start:x-cubed-maths]
y = x**3

first = torch.autograd.grad(y, x, create_graph=True)[0]  # dy/dx = 3x^2
second = torch.autograd.grad(first, x, create_graph=True)[0]  # d2y/dx2 = 6x
third = torch.autograd.grad(second, x, create_graph=True)[0]  # d3y/dx3 = 6
# --8<-- [end:x-cubed-maths]

for name, d, by_hand in [
    ("first", first, 3 * 2**2),
    ("second", second, 6 * 2),
    ("third", third, 6),
]:
    print(f"{name:>6}: {d.item():4g}   by hand {by_hand:2}   made by {d.grad_fn.name()}")
# --8<-- [end:x-cubed]

# --8<-- [start:fourth]
# --8<-- [start:fourth-maths]
fourth = torch.autograd.grad(third, x, create_graph=True)[0]  # d4y/dx4 = 0
print("fourth:", fourth, " requires grad:", fourth.requires_grad)
# --8<-- [end:fourth-maths]


def power_in_graph(t):
    """The exponent saved by the first PowBackward0 node below t.grad_fn."""
    node = t.grad_fn
    while node.name() != "PowBackward0":
        node = next(child for child, _ in node.next_functions if child is not None)
    return node._saved_exponent


for name, d in [("first", first), ("second", second), ("third", third)]:
    print(f"{name:>6} = {d.item():2g}, computed from x ** {power_in_graph(d):g}")

# The same function, written as a product: now the third derivative has no graph.
# --8<-- [start:product-maths]
d = x * x * x
for order in (1, 2, 3):
    d = torch.autograd.grad(d, x, create_graph=True)[0]
    print(f"x * x * x, derivative {order}: {d.item():2g}, requires grad: {d.requires_grad}")
# --8<-- [end:product-maths]
# --8<-- [end:fourth]

# --8<-- [start:no-create-graph]
x = torch.tensor(2.0, requires_grad=True)
first = torch.autograd.grad(x**3, x)[0]  # no create_graph
print("first:", first, " grad_fn:", first.grad_fn, " requires grad:", first.requires_grad)
# --8<-- [end:no-create-graph]

# --8<-- [start:graph-of-the-gradient]
x = torch.tensor(2.0, requires_grad=True)
y = x**3
first = torch.autograd.grad(y, x, create_graph=True)[0]


def walk(node, depth=0):
    """Print a grad_fn node and, indented under it, the nodes it passes gradients to."""
    print("    " * depth + node.name())
    for child, _ in node.next_functions:
        if child is not None:
            walk(child, depth + 1)


walk(first.grad_fn)
# --8<-- [end:graph-of-the-gradient]

# --8<-- [start:tanh]
xs = (torch.arange(-15, 16) / 5).requires_grad_()  # -3.0, -2.8, ..., 3.0
ys = torch.tanh(xs)
# tanh works elementwise, so the gradient of the sum is the derivative at every point.
d1 = torch.autograd.grad(ys.sum(), xs, create_graph=True)[0]
d2 = torch.autograd.grad(d1.sum(), xs)[0]


def tanh_d1(x):
    return 1 - torch.tanh(x) ** 2


def tanh_d2(x):
    return -2 * torch.tanh(x) * (1 - torch.tanh(x) ** 2)


torch.testing.assert_close(d1, tanh_d1(xs.detach()))
torch.testing.assert_close(d2, tanh_d2(xs.detach()))
print("autograd matches 1 - tanh^2 and -2 tanh (1 - tanh^2) at all 31 points")
for i in [10, 15, 20]:  # x = -1, 0, 1
    print(f"x = {xs[i].item():4}: f = {ys[i].item():7.4f}", end=", ")
    print(f"f' = {d1[i].item():.4f}, f'' = {d2[i].item() + 0.0:7.4f}")
# --8<-- [end:tanh]

# --8<-- [start:backward-create-graph]
torch.set_warn_always(True)  # show this warning every time, not once per process
x = torch.tensor(2.0, requires_grad=True)
(x**3).backward(create_graph=True)
torch.set_warn_always(False)
first = x.grad  # 3x^2 = 12, with a graph
print("x.grad:", x.grad)
first.backward()  # adds d2y/dx2 = 6x = 12 into x.grad
print("x.grad after first.backward():", x.grad, "  first:", first)
# --8<-- [end:backward-create-graph]


# --8<-- [start:hessian]
def f(x):
    """From R^3 to R: f = x1^2 x2 + x2 x3^2."""
    x1, x2, x3 = x
    return x1**2 * x2 + x2 * x3**2


def hessian_by_hand(x):
    x1, x2, x3 = x.tolist()
    return torch.tensor(
        [
            [2 * x2, 2 * x1, 0.0],
            [2 * x1, 0.0, 2 * x3],
            [0.0, 2 * x3, 2 * x2],
        ]
    )


point = torch.tensor([1.0, 2.0, 3.0])
H = torch.autograd.functional.hessian(f, point)
print("torch.autograd.functional.hessian:")
print(H)
torch.testing.assert_close(torch.func.hessian(f)(point), H)
torch.testing.assert_close(hessian_by_hand(point), H)
print("torch.func.hessian and the hand Hessian agree (assert_close passed)")
# --8<-- [end:hessian]

# --8<-- [start:hvp]
v = torch.tensor([1.0, 0.0, -1.0])

# 1. Differentiate the gradient's dot product with v.
x = point.clone().requires_grad_()
g = torch.autograd.grad(f(x), x, create_graph=True)[0]  # the gradient, with its graph
hv_double_backward = torch.autograd.grad(g @ v, x)[0]

# 2. PyTorch's function for it: returns f(x) and H v.
value, hv_functional = torch.autograd.functional.hvp(f, point, v)

# 3. torch.func: forward mode over reverse mode, the JVP of the gradient function.
_, hv_func = torch.func.jvp(torch.func.grad(f), (point,), (v,))

print("gradient g:          ", g)
print("grad of g . v:       ", hv_double_backward)
print("functional.hvp:      ", hv_functional)
print("jvp of torch.func.grad:", hv_func)
print("H @ v:               ", H @ v)
for result in (hv_double_backward, hv_functional, hv_func):
    torch.testing.assert_close(result, H @ v)
# --8<-- [end:hvp]


# --8<-- [start:count-passes]
passes = {"backward": 0}


def count(grad):
    """A hook on x: it runs each time a backward pass computes a gradient for x."""
    passes["backward"] += 1


x = point.clone().requires_grad_()
x.register_hook(count)
g = torch.autograd.grad(f(x), x, create_graph=True)[0]
hv = torch.autograd.grad(g @ v, x, retain_graph=True)[0]
print("one Hessian-vector product:", passes["backward"], "backward passes")

passes["backward"] = 0
g = torch.autograd.grad(f(x), x, create_graph=True)[0]
rows = [torch.autograd.grad(g[i], x, retain_graph=True)[0] for i in range(3)]
print("the whole Hessian, row by row:", passes["backward"], "backward passes")
torch.testing.assert_close(torch.stack(rows), H)
# --8<-- [end:count-passes]

# --8<-- [start:flops]
from torch.utils.flop_counter import FlopCounterMode

torch.manual_seed(0)
n = 40
X = torch.randn(64, n)
target = torch.randn(64, 1)


def loss(w):
    """A model with n weights: the mean squared error of tanh(X w)."""
    return ((torch.tanh(X @ w.unsqueeze(1)) - target) ** 2).mean()


def gradient(w):
    w = w.clone().requires_grad_()
    return torch.autograd.grad(loss(w), w)[0]


def hessian_vector_product(w, v):
    w = w.clone().requires_grad_()
    g = torch.autograd.grad(loss(w), w, create_graph=True)[0]
    return torch.autograd.grad(g @ v, w)[0]


def hessian_row_by_row(w):
    w = w.clone().requires_grad_()
    g = torch.autograd.grad(loss(w), w, create_graph=True)[0]
    return torch.stack([torch.autograd.grad(g[i], w, retain_graph=True)[0] for i in range(n)])


def flops(fn, *args):
    """The floating-point operations of the matrix products that fn(*args) runs."""
    counter = FlopCounterMode(display=False)
    with counter:
        fn(*args)
    return counter.get_total_flops()


w, v40 = torch.randn(n), torch.randn(n)
one_forward = flops(loss, w)
costs = {
    "the gradient": flops(gradient, w),
    "one Hessian-vector product": flops(hessian_vector_product, w, v40),
    "the Hessian, row by row": flops(hessian_row_by_row, w),
    "torch.autograd.functional.hvp": flops(torch.autograd.functional.hvp, loss, w, v40),
    "torch.autograd.functional.vhp": flops(torch.autograd.functional.vhp, loss, w, v40),
}
print(f"{n} weights; the work of each, in forward passes:")
for name, cost in costs.items():
    print(f"  {name + ':':31} {cost // one_forward}")
hv = hessian_vector_product(w, v40)
torch.testing.assert_close(hessian_row_by_row(w) @ v40, hv)
torch.testing.assert_close(torch.autograd.functional.vhp(loss, w, v40)[1], hv)
# --8<-- [end:flops]

# --8<-- [start:flops-deep]
from fractions import Fraction


def network(depth):
    """depth layers of n x n weights (no bias), each followed by tanh."""
    torch.manual_seed(0)
    layers = []
    for _ in range(depth):
        layers += [torch.nn.Linear(n, n, bias=False), torch.nn.Tanh()]
    return torch.nn.Sequential(*layers)


def work(depth):
    """The number of weights, a gradient in forward passes, an HVP in gradients."""
    net = network(depth)
    weights = list(net.parameters())
    directions = [torch.randn_like(p) for p in weights]

    def net_loss():
        return net(X).pow(2).mean()  # X (64 x n) needs no gradient, as in training

    def net_gradient():
        return torch.autograd.grad(net_loss(), weights)

    def net_hvp():  # method 1: the gradient of (gradient . direction)
        g = torch.autograd.grad(net_loss(), weights, create_graph=True)
        dot = sum((gi * di).sum() for gi, di in zip(g, directions, strict=True))
        return torch.autograd.grad(dot, weights)

    one_gradient = flops(net_gradient)
    return (
        sum(p.numel() for p in weights),
        Fraction(one_gradient, flops(net_loss)),
        Fraction(flops(net_hvp), one_gradient),
    )


print("layers  weights  a gradient (forward passes)  an HVP (gradients)")
for depth in (1, 2, 4, 8, 16):
    weights, gradient_cost, hvp_cost = work(depth)
    print(f"{depth:6}  {weights:7}  {gradient_cost!s:>26}  {float(hvp_cost):18.2f}")
# --8<-- [end:flops-deep]

# --8<-- [start:saved-by-depth]
from torch.autograd.graph import saved_tensors_hooks


def saved_by_forward(depth):
    """What the forward pass of network(depth) saves: how many tensors, and the bytes
    of those that exist only because of it."""
    net = network(depth)
    # The weights and the data X exist anyway, graph or not: they cost nothing extra.
    held_anyway = {t.untyped_storage().data_ptr() for t in [*net.parameters(), X]}
    saved = []
    with saved_tensors_hooks(lambda t: saved.append(t) or t, lambda t: t):
        net(X).pow(2).mean()
    # One tensor can be saved by two operations (tanh's output is the next layer's
    # input): count its bytes once, by its storage.
    extra = {
        t.untyped_storage().data_ptr(): t.untyped_storage().nbytes()
        for t in saved
        if t.untyped_storage().data_ptr() not in held_anyway
    }
    return len(saved), sum(extra.values())


print("layers  tensors saved  extra bytes (not weights or data)")
for depth in (1, 2, 3, 4):
    count, size = saved_by_forward(depth)
    print(f"{depth:6}  {count:13}  {size:32}")
# --8<-- [end:saved-by-depth]

# --8<-- [start:hessian-compositions]
from torch.func import hessian, jacfwd, jacrev

H40 = hessian(loss)(w)  # the 40 x 40 Hessian of the one-layer model above
print(
    "hessian(loss) equals jacfwd(jacrev(loss)) bit for bit:",
    torch.equal(H40, jacfwd(jacrev(loss))(w)),
)
print("the work of each composition, in forward passes:")
for name, composition in [
    ("jacfwd(jacrev(loss))", jacfwd(jacrev(loss))),
    ("jacrev(jacrev(loss))", jacrev(jacrev(loss))),
    ("jacfwd(jacfwd(loss))", jacfwd(jacfwd(loss))),
    ("jacrev(jacfwd(loss))", jacrev(jacfwd(loss))),
]:
    torch.testing.assert_close(composition(w), H40)  # all four give the same Hessian
    print(f"  {name}  {Fraction(flops(composition, w), one_forward)!s:>4}")
# --8<-- [end:hessian-compositions]


# --8<-- [start:hvp-forward-over-reverse]
def hvp_methods(depth):
    """For network(depth): its loss, its parameters, its gradient and an HVP both ways."""
    net = network(depth)
    params = dict(net.named_parameters())
    weights = list(params.values())
    directions = {name: torch.randn_like(p) for name, p in params.items()}

    def net_loss(params):
        return torch.func.functional_call(net, params, (X,)).pow(2).mean()

    def net_gradient():
        return torch.autograd.grad(net_loss(params), weights)

    def forward_over_reverse():  # the JVP of the gradient function, in the direction
        return torch.func.jvp(torch.func.grad(net_loss), (params,), (directions,))[1]

    def double_backward():  # method 1: the gradient of (gradient . direction)
        g = torch.autograd.grad(net_loss(params), weights, create_graph=True)
        dot = sum((gi * di).sum() for gi, di in zip(g, directions.values(), strict=True))
        return torch.autograd.grad(dot, weights)

    return net_loss, params, net_gradient, forward_over_reverse, double_backward


def hvp_work(depth):
    """A gradient, and an HVP both ways, in matrix products of one layer's size."""
    net_loss, params, *methods = hvp_methods(depth)
    _, forward_over_reverse, double_backward = methods
    for a, b in zip(forward_over_reverse().values(), double_backward(), strict=True):
        torch.testing.assert_close(a, b)  # the same H v
    one_product = flops(net_loss, params) // depth  # the forward pass: one product per layer
    return [flops(fn) // one_product for fn in methods]


print("layers  products: gradient  jvp of grad  double backward")
for depth in (1, 2, 4, 8):
    gradient_products, jvp_products, double_products = hvp_work(depth)
    print(f"{depth:6}  {gradient_products:18}  {jvp_products:11}  {double_products:15}")
# --8<-- [end:hvp-forward-over-reverse]


# --8<-- [start:r-operator]
def hvp_by_r_operator(w, v):
    """Pearlmutter's R-pass for loss(w) = mean((tanh(X w) - target)^2), by hand.

    Under each line of the forward and backward pass, its R-line: the derivative of that
    line's result along v, R{a} = d/dr a(w + r v) at r = 0, by the product and chain rules.
    """
    N = X.shape[0]
    z = X @ w.unsqueeze(1)  # forward pass
    Rz = X @ v.unsqueeze(1)
    y = torch.tanh(z)
    Ry = (1 - y**2) * Rz
    y_bar = 2 * (y - target) / N  # backward pass: dL/dy
    Ry_bar = 2 * Ry / N
    z_bar = y_bar * (1 - y**2)  # dL/dz
    Rz_bar = Ry_bar * (1 - y**2) - 2 * y_bar * y * Ry
    g = (X.T @ z_bar).squeeze(1)  # dL/dw, the gradient
    Hv = (X.T @ Rz_bar).squeeze(1)  # R{g} = H v
    return g, Hv


g_by_hand, hv_by_hand = hvp_by_r_operator(w, v40)
_, hv_forward_over_reverse = torch.func.jvp(torch.func.grad(loss), (w,), (v40,))
torch.testing.assert_close(g_by_hand, gradient(w))
torch.testing.assert_close(hv_by_hand, hv_forward_over_reverse)
torch.testing.assert_close(hv_by_hand, H40 @ v40)
print("R{g} by hand, first 3 entries:  ", hv_by_hand[:3])
print("jvp(grad(loss)), first 3 entries:", hv_forward_over_reverse[:3])
print("equal to each other and to H v (assert_close passed)")
print("the R-pass's work, in forward passes:", flops(hvp_by_r_operator, w, v40) // one_forward)
# --8<-- [end:r-operator]

# --8<-- [start:hvp-memory]
import gc
import os
from functools import partial

import torch.autograd.forward_ad as fwAD

os.environ["KINETO_LOG_LEVEL"] = "6"  # keep the profiler's own log lines (to stderr) quiet
from torch.profiler import ProfilerActivity, profile


def peak_bytes(fn):
    """The most memory in use at once while fn() runs, counted from its start.

    The profiler keeps one record per allocation (+ bytes) and per free (- bytes).
    """
    # Earlier garbage is freed now, not during the profile, where it would count.
    # One collection can leave garbage for the next: collect until one finds none.
    while gc.collect():
        pass
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        fn()
    records = [r for r in prof.profiler.kineto_results.events() if r.name() == "[memory]"]
    in_use = peak = 0
    for record in sorted(records, key=lambda r: r.start_ns()):  # in the order they happened
        in_use += record.nbytes()
        peak = max(peak, in_use)
    return peak


def dual_numbers_hvp(net_loss, params, directions):
    """Forward over reverse without torch.func: autograd's backward pass on dual numbers."""
    with fwAD.dual_level():
        duals = {name: fwAD.make_dual(p, directions[name]) for name, p in params.items()}
        g = torch.autograd.grad(net_loss(duals), list(duals.values()))
        return [fwAD.unpack_dual(gi).tangent for gi in g]  # the gradient's tangent: H v


activation = X.numel() * X.element_size()  # one layer's 64 x 40 output in float32: 10240 bytes
peaks = {}
print("layers  peak bytes: gradient  double backward  torch.func jvp(grad)  dual numbers")
for depth in (1, 2, 4, 8):
    net_loss, params, gradient_of, forward_over_reverse, double_backward = hvp_methods(depth)
    directions = {name: torch.randn_like(p) for name, p in params.items()}
    on_dual_numbers = partial(dual_numbers_hvp, net_loss, params, directions)
    by_func = torch.func.jvp(torch.func.grad(net_loss), (params,), (directions,))[1]
    for a, b in zip(on_dual_numbers(), by_func.values(), strict=True):
        torch.testing.assert_close(a, b)  # the same H v
    methods = (gradient_of, double_backward, forward_over_reverse, on_dual_numbers)
    peaks[depth] = [peak_bytes(method) for method in methods]
    print(f"{depth:6}  {peaks[depth][0]:18}  {peaks[depth][1]:15}", end="  ")
    print(f"{peaks[depth][2]:20}  {peaks[depth][3]:12}")
per_layer = [
    (deep - shallow) / 4 / activation for shallow, deep in zip(peaks[4], peaks[8], strict=True)
]
print("each layer adds, in activations of 10240 bytes:", per_layer)
# --8<-- [end:hvp-memory]


# --8<-- [start:power-iteration]
def largest_eigenvalue(hvp, n, steps):
    """Power iteration with Hessian-vector products only: v <- H v / |H v|.

    Returns the Rayleigh quotient v^T H v (with |v| = 1) after every step.
    """
    v = torch.randn(n, generator=torch.Generator().manual_seed(0))
    v = v / v.norm()
    estimates = []
    for _ in range(steps):
        hv = hvp(v)
        estimates.append((v @ hv).item())
        v = hv / hv.norm()
    return estimates


def hvp40(v):  # forward over reverse, on the 40-weight model
    return torch.func.jvp(torch.func.grad(loss), (w,), (v,))[1]


estimates = largest_eigenvalue(hvp40, n, steps=80)
eigenvalues = torch.linalg.eigvalsh(H40)  # all 40, from the exact Hessian, in ascending order
for step in (1, 2, 5, 10, 20, 40, 80):
    print(f"after {step:2} HVPs: {estimates[step - 1]:.4g}")
largest, next_largest, smallest = eigenvalues[-1], eigenvalues[-2], eigenvalues[0]
print(f"eigvalsh(H): largest {largest:.4g}, next {next_largest:.4g}, smallest {smallest:.4g}")
# --8<-- [end:power-iteration]

# --8<-- [start:gauss-newton]
import torch.nn.functional as F

torch.manual_seed(0)
points = torch.randn(8, 3)  # 8 examples with 3 features
labels = torch.tensor([0, 1, 2, 0, 1, 2, 0, 1])  # their classes, out of 3


def logits_of(w):
    """A small classifier with 24 weights: 3 inputs, 4 tanh units, 3 class scores."""
    return torch.tanh(points @ w[:12].view(3, 4)) @ w[12:].view(4, 3)


def loss_of_logits(z):
    return F.cross_entropy(z, labels)  # the mean over the 8 examples


def loss_hessian_product(z, u):
    """H_loss u: row by row, (p * u - p (p . u)) / N, with p the softmax of the row."""
    p = torch.softmax(z, dim=1)
    return (p * u - p * (p * u).sum(dim=1, keepdim=True)) / z.shape[0]


def ggn_product(w, v):
    """G v = J^T H_loss J v, with J the Jacobian of the logits by the weights."""
    z, jv = torch.func.jvp(logits_of, (w,), (v,))  # forward mode: J v, the logits' change
    _, back_to_weights = torch.func.vjp(logits_of, w)  # reverse mode: u -> J^T u
    (gv,) = back_to_weights(loss_hessian_product(z, jv))
    return gv


w24, v24 = torch.randn(24), torch.randn(24)
gv = ggn_product(w24, v24)

# The same product from the matrices: J is 24 x 24 (8 x 3 logits, 24 weights).
z24 = logits_of(w24)
J = torch.func.jacrev(logits_of)(w24).reshape(24, 24)
H_loss = torch.func.hessian(loss_of_logits)(z24).reshape(24, 24)
G = J.T @ H_loss @ J
print("G v without the matrices equals J^T H_loss J v:", torch.allclose(gv, G @ v24, atol=1e-6))
jv = (J @ v24).view(8, 3)
hand = loss_hessian_product(z24, jv)  # the hand formula
autograd = torch.func.jvp(torch.func.grad(loss_of_logits), (z24,), (jv,))[1]
print("H_loss u by hand equals autograd's:", torch.allclose(hand, autograd, atol=1e-7))

H24 = torch.func.hessian(lambda w: loss_of_logits(logits_of(w)))(w24)  # the true Hessian
print("G v equals H v:", torch.allclose(gv, H24 @ v24, atol=1e-6))
directions = torch.randn(1000, 24)
for name, M in [("H", H24), ("G", G)]:
    curvature = ((directions @ M) * directions).sum(dim=1)  # v^T M v, one per direction
    print(f"{name}: {(curvature < 0).sum().item()} of 1000 directions curve downwards")

p0 = torch.softmax(z24[0], dim=0)  # the first example's predicted distribution
fisher = sum(p0[y] * torch.outer(torch.eye(3)[y] - p0, torch.eye(3)[y] - p0) for y in range(3))
same = torch.allclose(fisher / 8, H_loss[:3, :3])
print("its block of H_loss is its Fisher matrix over N:", same)
# --8<-- [end:gauss-newton]


# --8<-- [start:hessian-free]
def conjugate_gradient(A, b, steps, tolerance=1e-6):
    """Solve A x = b for a symmetric positive definite A, given only the function v -> A v.

    Stops after `steps` products with A, or once the residual |b - A x| <= tolerance |b|.
    """
    x = torch.zeros_like(b)
    r = b.clone()  # the residual b - A x
    p = r.clone()  # the search direction
    for _ in range(steps):
        if r.norm() <= tolerance * b.norm():
            break
        Ap = A(p)
        alpha = (r @ r) / (p @ Ap)
        x = x + alpha * p
        r_next = r - alpha * Ap
        p = r_next + (r_next @ r_next) / (r @ r) * p
        r = r_next
    return x


def total_loss(w):
    return loss_of_logits(logits_of(w))


def damped_ggn(w, damping):
    """v -> (G + damping I) v, from G v products only."""
    return lambda v: ggn_product(w, v) + damping * v


# One damped Gauss-Newton system, by CG from products, against the 24 x 24 matrix.
damping = 1.0
g24 = torch.func.grad(total_loss)(w24)
by_cg = conjugate_gradient(damped_ggn(w24, damping), -g24, steps=24)
by_matrix = torch.linalg.solve(G + damping * torch.eye(24), -g24)
print("CG on G v products equals solve(G + I, -g):", torch.allclose(by_cg, by_matrix, atol=1e-5))

# Hessian-free optimisation: 10 CG steps per update, the damping adapted as it goes.
w_hf = w24.clone()
print(f"start:     loss {total_loss(w_hf).item():.3f}")
for update in range(1, 11):
    g = torch.func.grad(total_loss)(w_hf)
    d = conjugate_gradient(damped_ggn(w_hf, damping), -g, steps=10)
    predicted = g @ d + 0.5 * d @ ggn_product(w_hf, d)  # the quadratic model's change
    actual = total_loss(w_hf + d) - total_loss(w_hf)
    rho = (actual / predicted).item()  # 1 where the model is exact
    if rho > 0.75:
        damping *= 2 / 3  # it predicted well: trust it further
    elif rho < 0.25:
        damping *= 3 / 2  # it predicted badly: take smaller steps
    if actual < 0:
        w_hf = w_hf + d
    loss_now = total_loss(w_hf).item()
    print(f"update {update:2}: loss {loss_now:.3f}, rho {rho:.2f}, damping {damping:.3g}", end="")
    print(f", step length {d.norm().item():.3f}")
# --8<-- [end:hessian-free]

# --8<-- [start:retain-default]
x = torch.tensor(2.0, requires_grad=True)
y = x**3
torch.autograd.grad(y, x, create_graph=True)  # retain_graph defaults to create_graph: True
y.backward()  # so the graph of y is still there
print("x.grad after grad(..., create_graph=True) and y.backward():", x.grad)
# --8<-- [end:retain-default]

# --8<-- [start:penalty]
torch.manual_seed(0)
inputs = torch.rand(64, 2) * 4 - 2  # 64 points in the square [-2, 2] x [-2, 2]
targets = torch.sin(2 * inputs[:, :1]) + 0.3 * torch.randn(64, 1)  # noisy labels


def train(create_graph, steps=150, strength=0.1):
    """Fit a small network to the data, with a penalty on the gradient by the input."""
    torch.manual_seed(1)
    model = torch.nn.Sequential(torch.nn.Linear(2, 32), torch.nn.Tanh(), torch.nn.Linear(32, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=0.02)
    history = []
    for _ in range(steps):
        x = inputs.clone().requires_grad_()
        prediction = model(x)
        mse = ((prediction - targets) ** 2).mean()
        # Row i of the gradient of the sum is d prediction_i / d x_i (rows are independent).
        # retain_graph defaults to create_graph: only the run without it needs the flag.
        slope = torch.autograd.grad(
            prediction.sum(), x, create_graph=create_graph, retain_graph=True
        )[0]
        penalty = (slope**2).sum(dim=1).mean()  # the mean of |d prediction / d input|^2
        optimizer.zero_grad()
        (mse + strength * penalty).backward()
        optimizer.step()
        history.append((mse.item(), penalty.item()))
    return history


with_graph = train(create_graph=True)
without_graph = train(create_graph=False)
no_penalty = train(create_graph=False, strength=0.0)
for name, run in [("create_graph=True ", with_graph), ("create_graph=False", without_graph)]:
    (mse0, pen0), (mse1, pen1) = run[0], run[-1]
    highest = max(p for _, p in run)
    print(f"{name}: penalty {pen0:.3f} -> {pen1:.3f} (highest {highest:.3f}),", end=" ")
    print(f"mse {mse0:.3f} -> {mse1:.3f}")
same = [m for m, _ in without_graph] == [m for m, _ in no_penalty]
print("create_graph=False trains exactly as with no penalty at all:", same)
# --8<-- [end:penalty]

# --8<-- [start:penalty-silent]
torch.manual_seed(1)
model = torch.nn.Sequential(torch.nn.Linear(2, 32), torch.nn.Tanh(), torch.nn.Linear(32, 1))
x = inputs.clone().requires_grad_()
prediction = model(x)
mse = ((prediction - targets) ** 2).mean()
slope = torch.autograd.grad(prediction.sum(), x, retain_graph=True)[0]  # no create_graph
penalty = (slope**2).sum(dim=1).mean()
print("penalty requires grad:", penalty.requires_grad, " grad_fn:", penalty.grad_fn)
params = list(model.parameters())
with_penalty = torch.autograd.grad(mse + 0.1 * penalty, params, retain_graph=True)
mse_only = torch.autograd.grad(mse, params)
same = all(torch.equal(a, b) for a, b in zip(with_penalty, mse_only, strict=True))
print(f"all {len(params)} parameters' gradients are the MSE's alone:", same)
# --8<-- [end:penalty-silent]

# --8<-- [start:maml]
x_a, y_a = 1.0, 2.0  # the task's training example: the inner step learns from it
x_b, y_b = 2.0, 3.0  # its validation example: the outer loss is measured on it
alpha = 0.25  # the inner learning rate

w = torch.tensor(0.5, requires_grad=True)
inner_loss = (w * x_a - y_a) ** 2
g = torch.autograd.grad(inner_loss, w, create_graph=True)[0]
w_adapted = w - alpha * g  # one gradient step, recorded in the graph
outer_loss = (w_adapted * x_b - y_b) ** 2
meta_gradient = torch.autograd.grad(outer_loss, w)[0]
print(
    f"inner gradient {g.item()}, adapted weight {w_adapted.item()}, outer loss {outer_loss.item()}"
)
print("d outer_loss / dw, through the update:", meta_gradient.item())

# First-order version: the inner gradient without its graph counts as a constant.
g_const = torch.autograd.grad((w * x_a - y_a) ** 2, w)[0]
outer_first_order = ((w - alpha * g_const) * x_b - y_b) ** 2
first_order = torch.autograd.grad(outer_first_order, w)[0]
print("first-order approximation:           ", first_order.item())
# --8<-- [end:maml]

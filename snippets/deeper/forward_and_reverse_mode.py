"""Going deeper: reverse mode and forward mode (docs/deeper/forward-and-reverse-mode.md)."""
# ruff: noqa: E402

# --8<-- [start:quiet-start]
import warnings

import torch

# PyTorch warns about its own use of torch.jit.script (a FutureWarning since 2.14, a
# DeprecationWarning before). Hide exactly that warning, by its message:
warnings.filterwarnings("ignore", "`torch.jit.script` is deprecated")
torch.func.jvp(torch.sin, (torch.zeros(1),), (torch.ones(1),))  # the first forward-mode call
# --8<-- [end:quiet-start]

# --8<-- [start:jacobian]
import torch
from torch.func import jacfwd, jacrev


def f(x):
    """From R^3 to R^2: y1 = x1 * x2 + x3, y2 = x2 * x3**2."""
    x1, x2, x3 = x
    return torch.stack([x1 * x2 + x3, x2 * x3**2])


def jacobian_by_hand(x):
    """Row i holds the derivatives of y_i, column j the derivatives by x_j."""
    x1, x2, x3 = x.tolist()
    return torch.tensor(
        [
            [x2, x1, 1.0],  # dy1/dx1, dy1/dx2, dy1/dx3
            [0.0, x3**2, 2 * x2 * x3],  # dy2/dx1, dy2/dx2, dy2/dx3
        ]
    )


x = torch.tensor([1.0, 2.0, 3.0])
print("f(x) =", f(x))
print("by hand:")
print(jacobian_by_hand(x))
print("jacrev(f)(x):")
print(jacrev(f)(x))
print("jacfwd(f)(x):")
print(jacfwd(f)(x))
# --8<-- [end:jacobian]

# --8<-- [start:vjp]
v = torch.tensor([1.0, -1.0])  # one weight per output

x_leaf = x.clone().requires_grad_()
y = f(x_leaf)
y.backward(v)  # reverse mode: the vector-Jacobian product v^T J
print("y.backward(v), then x.grad:", x_leaf.grad)

_, vjp_fn = torch.func.vjp(f, x)  # the same product, as a function of v
print("torch.func.vjp:            ", vjp_fn(v)[0])
print("v @ J by hand:             ", v @ jacobian_by_hand(x))

for i in range(2):
    e_i = torch.eye(2)[i]
    print(f"v = e{i + 1} gives row {i + 1} of J:", vjp_fn(e_i)[0])
# --8<-- [end:vjp]

# --8<-- [start:jvp]
u = torch.tensor([1.0, 0.0, 1.0])  # one direction in input space

y_value, tangent = torch.func.jvp(f, (x,), (u,))  # forward mode: J u
print("torch.func.jvp returns f(x):", y_value, "and J u:", tangent)
print("J @ u by hand:", jacobian_by_hand(x) @ u)

for j in range(3):
    e_j = torch.eye(3)[j]
    print(f"u = e{j + 1} gives column {j + 1} of J:", torch.func.jvp(f, (x,), (e_j,))[1])
# --8<-- [end:jvp]

# --8<-- [start:dual]
import torch.autograd.forward_ad as fwAD

with fwAD.dual_level():
    x_dual = fwAD.make_dual(x, u)  # every x_j carries the tangent u_j
    x1, x2, x3 = x_dual
    p = x1 * x2
    y1 = p + x3
    q = x3**2
    y2 = x2 * q
    for name, t in [("x1", x1), ("x2", x2), ("x3", x3), ("p", p), ("y1", y1), ("q", q), ("y2", y2)]:
        value, tangent = fwAD.unpack_dual(t)
        print(f"{name:>2}: value {value.item():4g}, tangent {tangent.item():3g}")
    print("y2 has a grad_fn:", y2.grad_fn is not None)
# --8<-- [end:dual]

# --8<-- [start:linearize]
from torch.func import linearize

runs = 0


def f_run_counted(x):
    global runs
    runs += 1
    return f(x)


# linearize's constant folding raises a UserWarning about its own graph: hide just that one.
warnings.filterwarnings("ignore", "Attempted to insert a get_attr Node")
y_lin, jvp_fn = linearize(f_run_counted, x)  # J at x, recorded as a linear map
print("linearize ran f's Python", runs, "times")
for j in range(3):
    print(f"jvp_fn(e{j + 1}) = column {j + 1} of J:", jvp_fn(torch.eye(3)[j]))
print("after three products, f's Python has run", runs, "times")

# The transpose: u . (J v) == (J^T u) . v for every u (one per output), v (one per input).
generator = torch.Generator().manual_seed(0)
# --8<-- [start:linearize-maths]
x64 = x.double()
_, jvp64 = linearize(f, x64)
_, vjp64 = torch.func.vjp(f, x64)
for _ in range(3):
    u_out = torch.randn(2, dtype=torch.float64, generator=generator)  # one weight per output
    v_in = torch.randn(3, dtype=torch.float64, generator=generator)  # one weight per input
    forward_side = u_out @ jvp64(v_in)  # u . (J v)
    reverse_side = vjp64(u_out)[0] @ v_in  # (v^T J) with v = u, then . v
    gap = abs(forward_side - reverse_side).item()
    print(f"u.(J v) = {forward_side:8.4f}   (J^T u).v = {reverse_side:8.4f}", end="   ")
    print("gap < 1e-12:", gap < 1e-12)
# --8<-- [end:linearize-maths]
# --8<-- [end:linearize]

# --8<-- [start:count-jacobian]
calls = {"f": 0, "backward": 0}


def count_backward(grad_inputs, grad_outputs):
    """A hook on a graph node: it runs each time a backward pass goes through the node."""
    calls["backward"] += 1


def f_counted(x):
    calls["f"] += 1
    return f(x)


# Reverse mode: one forward pass, then one backward pass per output (per row).
x_leaf = x.clone().requires_grad_()
y = f_counted(x_leaf)
y.grad_fn.register_hook(count_backward)
rows = [torch.autograd.grad(y, x_leaf, torch.eye(2)[i], retain_graph=True)[0] for i in range(2)]
print("reverse mode, row by row:", calls)

# Forward mode: one forward pass with a tangent per input (per column).
calls.update(f=0, backward=0)
columns = [torch.func.jvp(f_counted, (x,), (torch.eye(3)[j],))[1] for j in range(3)]
print("forward mode, column by column:", calls)

print("same Jacobian:", torch.equal(torch.stack(rows), torch.stack(columns, dim=1)))
# --8<-- [end:count-jacobian]

# --8<-- [start:count-gradient]
torch.manual_seed(0)
X = torch.randn(16, 3)  # 16 examples, 3 features
target = torch.randn(16)
shapes = {"W1": (3, 4), "b1": (4,), "w2": (4,), "b2": ()}
sizes = [torch.Size(s).numel() for s in shapes.values()]
n = sum(sizes)  # the number of parameters


def loss_fn(theta):
    """A small network's mean squared error, as a function of all its parameters."""
    calls["f"] += 1
    W1, b1, w2, b2 = (
        t.reshape(s) for t, s in zip(theta.split(sizes), shapes.values(), strict=True)
    )
    prediction = torch.tanh(X @ W1 + b1) @ w2 + b2
    return ((prediction - target) ** 2).mean()


theta = 0.5 * torch.randn(n)

# Reverse mode: one forward pass and one backward pass give all n derivatives.
calls.update(f=0, backward=0)
theta_leaf = theta.clone().requires_grad_()
loss = loss_fn(theta_leaf)
loss.grad_fn.register_hook(count_backward)
loss.backward()
print(f"reverse mode, {n} parameters:", calls)
reverse_grad = theta_leaf.grad

# Forward mode: one pass per parameter, each gives one derivative dloss/dtheta_j.
calls.update(f=0, backward=0)
forward_grad = torch.stack(
    [torch.func.jvp(loss_fn, (theta,), (torch.eye(n)[j],))[1] for j in range(n)]
)
print(f"forward mode, {n} parameters:", calls)

torch.testing.assert_close(forward_grad, reverse_grad)
print("the two gradients agree (assert_close passed)")
# --8<-- [end:count-gradient]

# --8<-- [start:paths]
# loss = tanh(tanh(tanh(h))) with h = w . a: five inputs share one chain of k = 3 nodes.
a = torch.tensor([1.0, -2.0, 0.5, 3.0, -1.0])
w = torch.tensor([0.2, 0.1, -0.3, 0.05, 0.4])
k = 3

# Forward pass, keeping every value of the chain.
values = [w @ a]  # h
for _ in range(k):
    values.append(torch.tanh(values[-1]))
local = [1 - out**2 for out in values[1:]]  # d tanh(s)/ds = 1 - tanh(s)^2, one per chain node

# Reverse mode: the adjoint dloss/dh is built once from the output side,
# then every input reads off its own derivative with one more product.
products = 0
adjoint = torch.tensor(1.0)
for d in reversed(local):
    adjoint = adjoint * d
    products += 1
reverse = adjoint * a  # dloss/dw_j = dloss/dh * a_j, for all j at once
products += len(a)
print("reverse mode:", products, "products")

# Forward mode: one sweep per input, each pushing a tangent through the whole chain.
products = 0
forward = []
for j in range(len(a)):
    tangent = a[j]  # dh/dw_j
    products += 1
    for d in local:
        tangent = tangent * d
        products += 1
    forward.append(tangent)
print("forward mode:", products, "products")

w_leaf = w.clone().requires_grad_()
loss = torch.tanh(torch.tanh(torch.tanh(w_leaf @ a)))
loss.backward()
torch.testing.assert_close(reverse, w_leaf.grad)
torch.testing.assert_close(torch.stack(forward), w_leaf.grad)
print("both equal w.grad:", w_leaf.grad)
# --8<-- [end:paths]


# --8<-- [start:wide-and-tall]
def wide(x):
    """R^6 -> R^2: the sum of squares, and a weighted sum with weights 1..6."""
    return torch.stack([(x**2).sum(), (torch.arange(1.0, 7.0) * x).sum()])


def tall(ab):
    """R^2 -> R^6: y_k = a^2 t_k + a b t_k^2 at t = 0, 1, ..., 5."""
    a, b = ab
    t = torch.arange(6.0)
    return a**2 * t + a * b * t**2


x6 = torch.arange(6.0)
ab = torch.tensor([1.0, 2.0])
for name, fn, point in [("wide", wide, x6), ("tall", tall, ab)]:
    J_rev, J_fwd = jacrev(fn)(point), jacfwd(fn)(point)
    m, n = J_rev.shape
    print(f"{name}: {n} inputs, {m} outputs; jacrev needs {m} VJPs, jacfwd needs {n} JVPs")
    print(J_rev)
    print("jacrev and jacfwd agree:", torch.equal(J_rev, J_fwd))
# --8<-- [end:wide-and-tall]

# --8<-- [start:batched]
calls.update(f=0, backward=0)


def tall_counted(ab):
    calls["f"] += 1
    return tall(ab)


jacrev(tall_counted)(ab)
print("jacrev called the function", calls["f"], "time")
calls.update(f=0)
jacfwd(tall_counted)(ab)
print("jacfwd called the function", calls["f"], "time")
# --8<-- [end:batched]

# --8<-- [start:chunk-size]
import inspect

full = jacrev(tall)(ab)  # all 6 VJPs in one batched backward pass
for chunk_size in (1, 2, 4):
    chunked = jacrev(tall, chunk_size=chunk_size)(ab)  # at most chunk_size VJPs at a time
    print(
        f"jacrev(tall, chunk_size={chunk_size}) is the same Jacobian:", torch.equal(chunked, full)
    )
print("jacfwd has a chunk_size argument:", "chunk_size" in inspect.signature(jacfwd).parameters)
print(
    "vmap has a chunk_size argument:", "chunk_size" in inspect.signature(torch.func.vmap).parameters
)
# --8<-- [end:chunk-size]

# --8<-- [start:flops]
from torch.utils.flop_counter import FlopCounterMode


def network(n_in, n_out, hidden=16):
    """x -> tanh(x A) B, with random A (n_in x hidden) and B (hidden x n_out)."""
    A, B = torch.randn(n_in, hidden), torch.randn(hidden, n_out)
    return lambda x: (torch.tanh(x.unsqueeze(0) @ A) @ B).squeeze(0)


def flops(fn, *args):
    """The floating-point operations of the matrix products that fn(*args) runs."""
    counter = FlopCounterMode(display=False)
    with counter:
        fn(*args)
    return counter.get_total_flops()


torch.manual_seed(0)
for name, n_in, n_out in [("wide", 100, 2), ("tall", 2, 100)]:
    g = network(n_in, n_out)
    point = torch.randn(n_in)
    one_pass = flops(g, point)
    by_rev = flops(jacrev(g), point)
    by_fwd = flops(jacfwd(g), point)
    torch.testing.assert_close(jacrev(g)(point), jacfwd(g)(point))
    ratio = max(by_rev, by_fwd) / min(by_rev, by_fwd)
    rev, fwd = by_rev // one_pass, by_fwd // one_pass
    print(f"{name} ({n_in} -> {n_out}): jacrev {rev}, jacfwd {fwd} forward passes' worth of work;")
    print(f"  the cheaper one costs {ratio:.0f}x less")
# --8<-- [end:flops]

# --8<-- [start:memory]
import torch.autograd.forward_ad as fwAD
from torch.autograd.graph import saved_tensors_hooks

kept = []


def pack(tensor):
    """Runs for every tensor an operation saves for a later backward pass."""
    kept.append(tensor.numel() * tensor.element_size())  # its bytes
    return tensor.detach()


def tanh_chain(x, depth):
    for _ in range(depth):
        x = torch.tanh(x)
    return x


torch.manual_seed(0)
x1000 = torch.randn(1000)
for depth in (5, 10, 20):
    kept.clear()
    with saved_tensors_hooks(pack, lambda tensor: tensor):
        tanh_chain(x1000.clone().requires_grad_(), depth)  # the forward pass reverse mode needs
    reverse_bytes = sum(kept)
    kept.clear()
    with saved_tensors_hooks(pack, lambda tensor: tensor), fwAD.dual_level():
        tanh_chain(fwAD.make_dual(x1000, torch.ones(1000)), depth)  # values and tangents
    print(f"{depth:2} tanh nodes: reverse mode keeps {reverse_bytes:6} bytes,", end=" ")
    print("forward mode", sum(kept))
# --8<-- [end:memory]

# --8<-- [start:cheap-gradient]
from itertools import pairwise


def linear_stack(widths):
    """Linear layers without bias, widths[0] -> widths[1] -> ..., with tanh between."""
    layers = []
    for n_in, n_out in pairwise(widths):
        layers += [torch.nn.Linear(n_in, n_out, bias=False), torch.nn.Tanh()]
    return torch.nn.Sequential(*layers[:-1])


def gradient_cost(net, X):
    """FLOPs of one forward pass, and of a forward plus a backward pass of the sum."""
    forward = flops(lambda: net(X).sum())  # the counter of the block above
    forward_and_backward = flops(lambda: net(X).sum().backward())
    return forward, forward_and_backward


torch.manual_seed(0)
batch = 8
for width in (16, 64, 256):
    net = linear_stack([width, width, width, width])  # 3 layers of width x width weights
    X = torch.randn(batch, width)
    forward, both = gradient_cost(net, X)
    _, both_x = gradient_cost(net, X.clone().requires_grad_())  # the input's gradient too
    params = sum(p.numel() for p in net.parameters())
    ratio, ratio_x = f"{both / forward:.3g}", f"{both_x / forward:.3g}"
    print(f"width {width:3} ({params:6} parameters): forward {forward:8} FLOPs,", end=" ")
    print(f"forward+backward {both:8}, ratio {ratio} ({ratio_x} with x.grad)")
# --8<-- [end:cheap-gradient]

# --8<-- [start:per-sample]
from torch.func import functional_call, grad, vmap

torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
X = torch.randn(5, 3)  # 5 examples
target = torch.randn(5)


def example_loss(params, x, t):
    """The squared error of ONE example (x has shape (3,), t is a number)."""
    prediction = functional_call(model, params, (x.unsqueeze(0),)).squeeze()
    return (prediction - t) ** 2


params = {name: p.detach() for name, p in model.named_parameters()}
# grad differentiates by params; vmap maps over the examples (dim 0 of X and target).
per_sample = vmap(grad(example_loss), in_dims=(None, 0, 0))(params, X, target)
print(
    "weight gradients:",
    tuple(per_sample["weight"].shape),
    " bias gradients:",
    tuple(per_sample["bias"].shape),
)

# The same with a Python loop: one backward() per example.
loop_weight, loop_bias = [], []
for i in range(5):
    model.zero_grad()
    ((model(X[i : i + 1]).squeeze() - target[i]) ** 2).backward()
    loop_weight.append(model.weight.grad.clone())
    loop_bias.append(model.bias.grad.clone())
torch.testing.assert_close(per_sample["weight"], torch.stack(loop_weight))
torch.testing.assert_close(per_sample["bias"], torch.stack(loop_bias))
print("vmap agrees with the loop (assert_close passed)")

# By hand: with r_i = prediction_i - t_i, dloss_i/dw = 2 r_i x_i and dloss_i/db = 2 r_i.
with torch.no_grad():
    r = model(X).squeeze(1) - target
torch.testing.assert_close(per_sample["weight"].squeeze(1), 2 * r.unsqueeze(1) * X)
print("bias gradients, vmap:", per_sample["bias"].squeeze(1))
print("bias gradients, 2r:  ", 2 * r)
# --8<-- [end:per-sample]

# --8<-- [start:per-sample-mean]
model.zero_grad()
((model(X).squeeze(1) - target) ** 2).mean().backward()
torch.testing.assert_close(per_sample["weight"].mean(dim=0), model.weight.grad)
print("mean of the per-sample weight gradients:", per_sample["weight"].mean(dim=0))
print("weight.grad of the batch's mean loss:   ", model.weight.grad)
# --8<-- [end:per-sample-mean]

# --8<-- [start:per-example-linear]
from torch import nn

torch.manual_seed(0)
mlp = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))  # z1 = W1 x + b1, h = tanh(z1)
mlp_params = {name: p.detach() for name, p in mlp.named_parameters()}


def mlp_example_loss(params, x, t):
    """The squared error of ONE example of the two-layer network."""
    prediction = functional_call(mlp, params, (x.unsqueeze(0),)).squeeze()
    return (prediction - t) ** 2


# --8<-- [start:per-example-linear-maths]
per_sample_mlp = vmap(grad(mlp_example_loss), in_dims=(None, 0, 0))(mlp_params, X, target)

# ONE ordinary backward() of the summed loss, keeping the gradients at z1 and z2:
z1 = mlp[0](X)
h = torch.tanh(z1)
z2 = mlp[2](h)
z1.retain_grad()
z2.retain_grad()
((z2.squeeze(1) - target) ** 2).sum().backward()
delta1, delta2 = z1.grad, z2.grad  # row i: example i's delta

# Example i's weight gradient is delta_i h_i^T: an outer product per example.
outer2 = torch.einsum("bo,bi->boi", delta2, h.detach())  # (5, 1, 4)
outer1 = torch.einsum("bo,bi->boi", delta1, X)  # (5, 4, 3)
# --8<-- [end:per-example-linear-maths]
torch.testing.assert_close(per_sample_mlp["2.weight"], outer2)
torch.testing.assert_close(per_sample_mlp["0.weight"], outer1)
print("second layer: vmap", tuple(per_sample_mlp["2.weight"].shape), "= delta_i h_i^T")
print("first layer:  vmap", tuple(per_sample_mlp["0.weight"].shape), "= delta_i x_i^T")
print("(assert_close passed for both)")
print("the batch's weight.grad is their sum:", torch.allclose(mlp[0].weight.grad, outer1.sum(0)))
# --8<-- [end:per-example-linear]

# --8<-- [start:per-sample-memory]
P = sum(p.numel() for p in mlp.parameters())
B = len(X)
stored = sum(g.numel() * g.element_size() for g in per_sample_mlp.values())
print(f"the two-layer network: P = {P} parameters, B = {B} examples")
print(f"per-sample gradients: {stored} bytes = B x P x 4 = {B * P * 4}")

big = nn.Linear(1024, 1024)  # one layer of a modest network, float32
P_big = sum(p.numel() for p in big.parameters())
print(f"nn.Linear(1024, 1024): P = {P_big}, its gradient {P_big * 4} bytes")
print(f"per-sample gradients for B = 256: {256 * P_big * 4} bytes = {256 * P_big * 4 // 2**20} MiB")

# The norm of an outer product is the product of the norms: the clipping norms need no
# per-sample gradient at all.
norms = torch.linalg.vector_norm(outer1, dim=(1, 2))
print(
    "||delta_i x_i^T|| = ||delta_i|| ||x_i||:",
    torch.allclose(norms, delta1.norm(dim=1) * X.norm(dim=1)),
)
# --8<-- [end:per-sample-memory]


# --8<-- [start:ghost-clipping]
# --8<-- [start:ghost-clipping-maths]
def ghost_clipped_gradient(X, target, max_norm):
    """The sum over the examples of each one's gradient clipped to norm max_norm (> 0),
    from two ordinary backward passes and no per-example gradient."""
    z1 = mlp[0](X)
    h = torch.tanh(z1)
    z2 = mlp[2](h)
    losses = (z2.squeeze(1) - target) ** 2
    # Pass 1: every example's deltas, row i for example i.
    delta1, delta2 = torch.autograd.grad(losses.sum(), (z1, z2), retain_graph=True)
    # Its squared gradient norm: ||delta_i x_i^T||^2 + ||delta_i||^2 (the bias) per layer.
    squared = delta1.square().sum(1) * (X.square().sum(1) + 1)
    squared = squared + delta2.square().sum(1) * (h.square().sum(1) + 1)
    norms = squared.sqrt().detach()
    factors = (max_norm / norms).clamp(max=1.0)  # min(1, C / norm), as in DP-SGD
    # Pass 2: the gradient of sum_i factor_i loss_i is sum_i factor_i (gradient of loss_i).
    clipped_sum = torch.autograd.grad((factors * losses).sum(), list(mlp.parameters()))
    return norms, dict(zip(mlp_params, clipped_sum, strict=True))


# --8<-- [end:ghost-clipping-maths]


norms, by_ghost = ghost_clipped_gradient(X, target, max_norm=1.0)

# The same from the per-sample gradients of vmap, B x P numbers.
flat = torch.cat([g.flatten(1) for g in per_sample_mlp.values()], dim=1)  # (5, 21)
torch.testing.assert_close(norms, flat.norm(dim=1))
factors = (1.0 / flat.norm(dim=1)).clamp(max=1.0)
for name, g in per_sample_mlp.items():
    clipped = (factors.view(-1, *[1] * (g.dim() - 1)) * g).sum(0)
    torch.testing.assert_close(by_ghost[name], clipped)
print("per-example gradient norms:", norms)
print("clipped to 1.0:           ", norms > 1.0)
print("the clipped sum equals vmap's, clipped and summed (assert_close passed)")
# --8<-- [end:ghost-clipping]

# --8<-- [start:per-sample-dropout]
import torch.nn.functional as F

torch.manual_seed(0)
drop_mlp = nn.Sequential(nn.Linear(3, 4), nn.Dropout(p=0.5), nn.Tanh(), nn.Linear(4, 1))
drop_params = {name: p.detach() for name, p in drop_mlp.named_parameters()}


def drop_example_loss(params, x, t):
    prediction = functional_call(drop_mlp, params, (x.unsqueeze(0),)).squeeze()
    return (prediction - t) ** 2


# --8<-- [end:per-sample-dropout]

# --8<-- [start:randomness]
ones = torch.ones(3, 6)  # 3 "examples" of 6 entries
# --8<-- [start:randomness-maths]
torch.manual_seed(0)
different = vmap(lambda row: F.dropout(row, p=0.5), randomness="different")(ones)
torch.manual_seed(0)
same = vmap(lambda row: F.dropout(row, p=0.5), randomness="same")(ones)
torch.manual_seed(0)
batch = F.dropout(ones, p=0.5)  # the whole batch at once, no vmap
print("randomness='different':")
print(different)
print("randomness='same':")
print(same)
print("'different' draws the masks a batch draws:", torch.equal(different, batch))
# --8<-- [end:randomness-maths]

grads = vmap(grad(drop_example_loss), in_dims=(None, 0, 0), randomness="different")(
    drop_params, X, target
)
print("per-sample gradients with dropout:", tuple(grads["0.weight"].shape))
# --8<-- [end:randomness]

# --8<-- [start:batch-norm]
torch.manual_seed(0)
bn_mlp = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Tanh(), nn.Linear(4, 1))
bn_mlp(X)  # one training step's forward pass: the running statistics move
bn_params = {name: p.detach() for name, p in bn_mlp.named_parameters()}
bn_buffers = {name: b for name, b in bn_mlp.named_buffers()}
print("buffers:", list(bn_buffers))


def bn_example_loss(params, buffers, x, t):
    """The parameters come first (grad differentiates by them), the buffers second."""
    prediction = functional_call(bn_mlp, (params, buffers), (x.unsqueeze(0),)).squeeze()
    return (prediction - t) ** 2


# --8<-- [end:batch-norm]

# --8<-- [start:batch-norm-2d]
# --8<-- [start:batch-norm-2d-model]
from torch.func import replace_all_batch_norm_modules_

torch.manual_seed(0)
conv = nn.Sequential(  # BatchNorm2d: 4 x 4 = 16 values per channel in ONE image
    nn.Conv2d(1, 2, 3),
    nn.BatchNorm2d(2),
    nn.Tanh(),
    nn.AdaptiveAvgPool2d(1),
    nn.Flatten(),
    nn.Linear(2, 1),
)
# --8<-- [end:batch-norm-2d-model]
images, image_targets = torch.randn(5, 1, 6, 6), torch.randn(5)
# --8<-- [start:batch-norm-2d-maths]
replace_all_batch_norm_modules_(conv)  # the documented fix: no running statistics
conv_params = {name: p.detach() for name, p in conv.named_parameters()}


def image_loss(params, image, t):
    return (functional_call(conv, params, (image.unsqueeze(0),)).squeeze() - t) ** 2


per_image = vmap(grad(image_loss), in_dims=(None, 0, 0))(conv_params, images, image_targets)
print("vmap ran: per-sample gradients", tuple(per_image["1.weight"].shape), "for the BN weight")

# What they are: one backward() per image, each image a batch of 1 in training mode.
one_by_one = []
for i in range(len(images)):
    conv.zero_grad()
    ((conv(images[i : i + 1]).squeeze() - image_targets[i]) ** 2).backward()
    one_by_one.append(conv[1].weight.grad.clone())
own = torch.allclose(per_image["1.weight"], torch.stack(one_by_one), atol=1e-6)
print("each normalised by its own statistics:", own)

# What training on the batch computes: every image normalised by the batch's statistics.
conv.zero_grad()
((conv(images).squeeze() - image_targets) ** 2).mean().backward()
batch_mean = torch.allclose(per_image["1.weight"].mean(0), conv[1].weight.grad, atol=1e-6)
print("their mean is the batch's gradient:", batch_mean)
# --8<-- [end:batch-norm-2d-maths]
# --8<-- [end:batch-norm-2d]

# --8<-- [start:batch-norm-eval]
bn_mlp.eval()  # normalise with the running statistics: each example on its own
bn_grads = vmap(grad(bn_example_loss), in_dims=(None, None, 0, 0))(bn_params, bn_buffers, X, target)
loop = []
for i in range(len(X)):
    bn_mlp.zero_grad()
    ((bn_mlp(X[i : i + 1]).squeeze() - target[i]) ** 2).backward()
    loop.append(bn_mlp[1].weight.grad.clone())
torch.testing.assert_close(bn_grads["1.weight"], torch.stack(loop))
print("eval mode: per-sample gradients", tuple(bn_grads["1.weight"].shape), "for the BN weight")
print("equal to a loop of backward() in eval mode (assert_close passed)")
# --8<-- [end:batch-norm-eval]

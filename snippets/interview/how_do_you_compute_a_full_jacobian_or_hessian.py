"""Interview: How do you compute a full Jacobian or Hessian?
(docs/interview/how-do-you-compute-a-full-jacobian-or-hessian.md)"""
# ruff: noqa: E402

# --8<-- [start:demonstration]
import warnings

import torch
from torch.func import hessian, jacfwd, jacrev, jvp, vjp, vmap

# The first forward-mode call makes PyTorch warn about its own use of torch.jit.script
# (FutureWarning since 2.14, DeprecationWarning before): hide exactly that warning.
warnings.filterwarnings("ignore", "`torch.jit.script` is deprecated")


def f(x):
    """f: R^3 -> R^2, f(x) = (x1^2 x2, x2 sin x3)."""
    x1, x2, x3 = x
    return torch.stack([x1**2 * x2, x2 * torch.sin(x3)])


x = torch.tensor([1.0, 2.0, 0.0], dtype=torch.float64)
print("jacrev(f)(x):")
print(jacrev(f)(x))
print("jacfwd(f)(x):")
print(jacfwd(f)(x))
print("torch.autograd.functional.jacobian(f, x):")
print(torch.autograd.functional.jacobian(f, x))
# --8<-- [end:demonstration]

# --8<-- [start:rows-and-columns]
m, n = 2, 3  # outputs, inputs
_, vjp_fn = vjp(f, x)  # one forward pass; vjp_fn(u) = u^T J, a row when u = e_i
rows = vmap(vjp_fn)(torch.eye(m, dtype=torch.float64))[0]  # all m rows at once
print("rows u^T J for u = e_1, e_2:")
print(rows)


def column(t):
    return jvp(f, (x,), (t,))[1]  # J t, a column when t = e_j


columns = vmap(column, out_dims=1)(torch.eye(n, dtype=torch.float64))  # all n columns
print("columns J t for t = e_1, e_2, e_3, side by side:")
print(columns)
print(
    "both equal jacrev(f)(x):", torch.equal(rows, jacrev(f)(x)), torch.equal(columns, jacrev(f)(x))
)
# --8<-- [end:rows-and-columns]

# --8<-- [start:count]
calls = {"backward": 0, "jvp": 0}


class Probe(torch.autograd.Function):
    """The identity, counting how often a backward pass or a JVP runs through it."""

    generate_vmap_rule = True  # so that vmap can batch it

    @staticmethod
    def forward(x):
        return x.clone()

    @staticmethod
    def setup_context(ctx, inputs, output):
        pass

    @staticmethod
    def backward(ctx, grad):
        calls["backward"] += 1
        return grad

    @staticmethod
    def jvp(ctx, tangent):
        calls["jvp"] += 1
        return tangent


def counted(fn, h, x):
    """How many backward passes and JVPs reach the input of h while fn(h)(x) runs."""
    calls.update(backward=0, jvp=0)
    fn(lambda x: h(Probe.apply(x)))(x)
    return calls["backward"], calls["jvp"]


def jacfwd_chunked(h, chunk_size):
    """jacfwd, written out: vmap of a JVP over the columns of the identity."""
    return lambda x: vmap(lambda t: jvp(h, (x,), (t,))[1], out_dims=-1, chunk_size=chunk_size)(
        torch.eye(x.numel(), dtype=x.dtype)
    )


print("f: 2 outputs, 3 inputs")
print("  jacrev, one vmap:          backward passes", counted(jacrev, f, x)[0])
print(
    "  jacrev(chunk_size=1):      backward passes",
    counted(lambda h: jacrev(h, chunk_size=1), f, x)[0],
)
print("  jacfwd, one vmap:          JVPs", counted(jacfwd, f, x)[1])
print("  columns, chunk_size=1:     JVPs", counted(lambda h: jacfwd_chunked(h, 1), f, x)[1])


def wide(w):
    return (w**2).sum().reshape(1)  # 1 output, 100 inputs: a loss


def tall(s):
    return torch.arange(100.0, dtype=s.dtype) * s.sin()  # 100 outputs, 1 input


for name, h, point in [
    ("wide, 1 x 100", wide, torch.ones(100)),
    ("tall, 100 x 1", tall, torch.ones(1)),
]:
    rows = counted(lambda h: jacrev(h, chunk_size=1), h, point)[0]
    cols = counted(lambda h: jacfwd_chunked(h, 1), h, point)[1]
    print(f"{name}: rows by VJPs {rows:3}, columns by JVPs {cols:3}")
# --8<-- [end:count]

# --8<-- [start:functional-vectorize]
from torch.autograd.functional import jacobian

loop = counted(lambda h: lambda t: jacobian(h, t), f, x)
batched = counted(lambda h: lambda t: jacobian(h, t, vectorize=True), f, x)
by_jvps = counted(lambda h: lambda t: jacobian(h, t, vectorize=True, strategy="forward-mode"), f, x)
print("autograd.functional.jacobian:                 backward passes", loop[0])
print("  vectorize=True:                             backward passes", batched[0])
print('  vectorize=True, strategy="forward-mode":    JVPs', by_jvps[1])
print(
    "the same matrix as jacrev, jacrev, jacfwd:", torch.equal(jacobian(f, x), jacrev(f)(x)), end=" "
)
print(torch.equal(jacobian(f, x, vectorize=True), jacrev(f)(x)), end=" ")
print(torch.equal(jacobian(f, x, vectorize=True, strategy="forward-mode"), jacfwd(f)(x)))
# --8<-- [end:functional-vectorize]

# --8<-- [start:memory]
import gc
import os
from functools import partial

os.environ["KINETO_LOG_LEVEL"] = "6"  # keep the profiler's own log lines (to stderr) quiet
from torch.profiler import ProfilerActivity, profile


def peak_bytes(fn):
    """The most CPU memory in use at once while fn() runs, from the profiler's records."""
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


torch.manual_seed(0)
W1, W2 = torch.randn(64, 8), torch.randn(512, 64)


def net(v):
    return W2 @ torch.tanh(W1 @ v)  # 512 outputs, 8 inputs, float32


v = torch.randn(8)
full = jacrev(net)(v)
print("Jacobian", tuple(full.shape), "=", full.numel() * 4, "bytes")
for chunk_size in (None, 64, 8, 1):
    same = torch.allclose(jacrev(net, chunk_size=chunk_size)(v), full, atol=1e-5)  # rounding
    peak = peak_bytes(partial(jacrev(net, chunk_size=chunk_size), v))
    print(f"jacrev(chunk_size={chunk_size}): peak {peak:8} bytes, same Jacobian: {same}")
# --8<-- [end:memory]


# --8<-- [start:parameters]
from torch.func import functional_call

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2))
model = model.double()
params = {name: p.detach() for name, p in model.named_parameters()}


def out(params, x):
    """The model's output as a function of its parameters, and of x."""
    return functional_call(model, params, (x,))


J_params, J_x = jacrev(out, argnums=(0, 1))(params, x)  # a dict like params, and a tensor
for name, J in J_params.items():
    print(f"d out / d {name:9}", tuple(J.shape))  # (outputs, *the parameter's shape)
print("d out / d x        ", tuple(J_x.shape))
h = torch.tanh(model[0](x)).detach()  # the hidden layer
by_hand = torch.einsum("ij,k->ijk", torch.eye(2, dtype=x.dtype), h)  # delta_ij h_k
print(
    "d out_i / d (2.weight)_jk equals delta_ij h_k:", torch.allclose(J_params["2.weight"], by_hand)
)
J_all = torch.cat([J.flatten(start_dim=1) for J in J_params.values()], dim=1)
print("all parameters side by side:", tuple(J_all.shape))
# --8<-- [end:parameters]


# --8<-- [start:hessian]
def g(x):
    """g: R^3 -> R, g = x1^2 x2 + x2 sin x3, the sum of f's two outputs."""
    return f(x).sum()


H = hessian(g)(x)  # = jacfwd(jacrev(g))(x)
print("hessian(g)(x):")
print(H)
print("equal to jacfwd(jacrev(g))(x):", torch.equal(H, jacfwd(jacrev(g))(x)))
print("equal to jacrev(jacrev(g))(x):", torch.equal(H, jacrev(jacrev(g))(x)))
print("torch.autograd.functional.hessian:", torch.equal(H, torch.autograd.functional.hessian(g, x)))
# --8<-- [end:hessian]

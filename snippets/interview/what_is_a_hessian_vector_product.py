"""Interview: What is a Hessian-vector product?
(docs/interview/what-is-a-hessian-vector-product.md)"""
# ruff: noqa: E402

# --8<-- [start:demonstration]
import torch


def f(x):
    """f = x1^2 x2 + x2 x3^2."""
    x1, x2, x3 = x
    return x1**2 * x2 + x2 * x3**2


point = torch.tensor([1.0, 2.0, 3.0])
v = torch.tensor([1.0, 0.0, -1.0])

x = point.clone().requires_grad_()
g = torch.autograd.grad(f(x), x, create_graph=True)[0]  # pass 1: the gradient, with a graph
hv = torch.autograd.grad(g @ v, x)[0]  # pass 2: through the gradient
print("gradient of g . v:   ", hv)

_, vh = torch.autograd.functional.vhp(f, point, v)  # v^T H, which is H v: H is symmetric
print("functional.vhp:      ", vh)

H = torch.autograd.functional.hessian(f, point)  # only to check: 3 x 3 here, n x n in general
print("H @ v (H built whole):", H @ v)
torch.testing.assert_close(hv, H @ v)
torch.testing.assert_close(vh, H @ v)
# --8<-- [end:demonstration]

# --8<-- [start:count]
passes = {"backward": 0}


def count(grad):
    passes["backward"] += 1  # runs each time a backward pass reaches x


x = point.clone().requires_grad_()
x.register_hook(count)
g = torch.autograd.grad(f(x), x, create_graph=True)[0]
torch.autograd.grad(g @ v, x, retain_graph=True)
print("one HVP:", passes["backward"], "backward passes")

passes["backward"] = 0
g = torch.autograd.grad(f(x), x, create_graph=True)[0]
rows = [torch.autograd.grad(g[i], x, retain_graph=True)[0] for i in range(3)]
print("the whole Hessian, row by row:", passes["backward"], "backward passes")
# --8<-- [end:count]

# --8<-- [start:without]
x = point.clone().requires_grad_()
g = torch.autograd.grad(f(x), x)[0]  # no create_graph: g is a constant
print("g has a grad_fn:", g.grad_fn is not None)
# --8<-- [end:without]

# --8<-- [start:forward-over-reverse]
import warnings

# The first forward-mode call makes PyTorch warn about its own use of torch.jit.script
# (FutureWarning since 2.14, DeprecationWarning before): hide exactly that warning.
warnings.filterwarnings("ignore", "`torch.jit.script` is deprecated")

# torch.func.grad(f) is a function that returns f's gradient. Its JVP along v is the
# directional derivative of the gradient, which is H v: forward mode over reverse mode.
gradient, hv_forward = torch.func.jvp(torch.func.grad(f), (point,), (v,))
print("gradient:                ", gradient)
print("jvp of grad (H v):       ", hv_forward)
torch.testing.assert_close(hv_forward, H @ v)
# --8<-- [end:forward-over-reverse]

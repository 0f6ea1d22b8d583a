"""Interview: What is the difference between forward and reverse mode?
(docs/interview/what-is-the-difference-between-forward-and-reverse-mode.md)"""
# ruff: noqa: E402

# --8<-- [start:quiet-start]
import warnings

import torch

# PyTorch warns about its own use of torch.jit.script (a FutureWarning since 2.14, a
# DeprecationWarning before). Hide exactly that warning, by its message:
warnings.filterwarnings("ignore", "`torch.jit.script` is deprecated")
torch.func.jvp(torch.sin, (torch.zeros(1),), (torch.ones(1),))  # the first forward-mode call
# --8<-- [end:quiet-start]

# --8<-- [start:two-products]
import torch


def f(x):
    """Three inputs, two outputs: y1 = x1 * x2 + x3, y2 = x2 * x3**2."""
    x1, x2, x3 = x
    return torch.stack([x1 * x2 + x3, x2 * x3**2])


x = torch.tensor([1.0, 2.0, 3.0])
print("J =", torch.func.jacrev(f)(x).tolist())

v = torch.tensor([1.0, -1.0])  # one weight per output
x_leaf = x.clone().requires_grad_()
f(x_leaf).backward(v)  # reverse mode, after the forward pass
print("reverse mode, v^T J:", x_leaf.grad.tolist())

u = torch.tensor([1.0, 0.0, 1.0])  # one weight per input
y, tangent = torch.func.jvp(f, (x,), (u,))  # forward mode, during the forward pass
print("forward mode, J u:  ", tangent.tolist())
# --8<-- [end:two-products]

# --8<-- [start:count]
torch.manual_seed(0)
n = 50
data = torch.randn(20, n)
calls = {"forward": 0}


def loss(w):
    """A loss of n parameters: one output."""
    calls["forward"] += 1
    return torch.tanh(data @ w).pow(2).mean()


w = torch.randn(n)

w_leaf = w.clone().requires_grad_()
loss(w_leaf).backward()  # reverse mode: every dloss/dw_j at once
print("reverse mode:", calls["forward"], "forward pass + 1 backward pass")

calls["forward"] = 0
by_columns = torch.stack([torch.func.jvp(loss, (w,), (e,))[1] for e in torch.eye(n)])
print("forward mode:", calls["forward"], "forward passes, one per parameter")
torch.testing.assert_close(by_columns, w_leaf.grad)
print("the same gradient (assert_close passed)")
# --8<-- [end:count]

# --8<-- [start:tall]
from torch.utils.flop_counter import FlopCounterMode

torch.manual_seed(0)
A, B = torch.randn(2, 16), torch.randn(16, 1000)


def tall(x):
    """2 inputs, 1000 outputs."""
    return (torch.tanh(x.unsqueeze(0) @ A) @ B).squeeze(0)


def flops(fn, *args):
    counter = FlopCounterMode(display=False)
    with counter:
        fn(*args)
    return counter.get_total_flops()


x2 = torch.randn(2)
torch.testing.assert_close(torch.func.jacfwd(tall)(x2), torch.func.jacrev(tall)(x2))
ratio = flops(torch.func.jacrev(tall), x2) // flops(torch.func.jacfwd(tall), x2)
print(f"2 inputs, 1000 outputs: jacrev does {ratio}x the work of jacfwd")
# --8<-- [end:tall]

# --8<-- [start:memory]
import torch.autograd.forward_ad as fwAD
from torch.autograd.graph import saved_tensors_hooks

saved = []


def pack(tensor):
    """Runs for every tensor that an operation saves for a later backward pass."""
    saved.append(tensor)
    return tensor


def chain(x):
    for _ in range(10):  # ten tanh operations in a row
        x = torch.tanh(x)
    return x


x100 = torch.randn(100)
with saved_tensors_hooks(pack, lambda tensor: tensor):
    chain(x100.clone().requires_grad_())  # a forward pass that reverse mode will need
print("forward pass for reverse mode: saved", len(saved), "tensors")

saved.clear()
with saved_tensors_hooks(pack, lambda tensor: tensor), fwAD.dual_level():
    out = chain(fwAD.make_dual(x100, torch.ones(100)))  # values and tangents together
    tangent = fwAD.unpack_dual(out).tangent
print("forward mode: saved", len(saved), "tensors")
# --8<-- [end:memory]

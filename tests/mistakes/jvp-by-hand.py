"""Plausible wrong answers to Exercise D.1 (snippets/practice/jvp_by_hand.py).

Each region replaces the starter cell; the check cell must answer "Not quite" and say
what is wrong.
"""
# ruff: noqa: E402

# --8<-- [start:transposed-jacobian]
# The Jacobian is transposed: row i holds the derivatives by x_i instead of those of y_i.
import torch


def f(x):
    x1, x2 = x
    return torch.stack([x1**2 * x2, 3 * x1 + x2**3])


x = torch.tensor([1.0, 2.0])
u = torch.tensor([1.0, -1.0])
J = torch.tensor([[4.0, 3.0], [1.0, 12.0]])
by_hand = J @ u
from_torch = torch.func.jvp(f, (x,), (u,))[1]
# --8<-- [end:transposed-jacobian]

# --8<-- [start:product-rule-forgotten]
# dy1/dx1 of x1² x2 written as 2 x1, forgetting the factor x2.
import torch


def f(x):
    x1, x2 = x
    return torch.stack([x1**2 * x2, 3 * x1 + x2**3])


x = torch.tensor([1.0, 2.0])
u = torch.tensor([1.0, -1.0])
x1, x2 = x.tolist()
J = torch.tensor([[2 * x1, x1**2], [3.0, 3 * x2**2]])
by_hand = J @ u
from_torch = torch.func.jvp(f, (x,), (u,))[1]
# --8<-- [end:product-rule-forgotten]

# --8<-- [start:vjp-by-hand]
# by_hand multiplies u from the left (u @ J): a VJP, not a JVP.
import torch


def f(x):
    x1, x2 = x
    return torch.stack([x1**2 * x2, 3 * x1 + x2**3])


x = torch.tensor([1.0, 2.0])
u = torch.tensor([1.0, -1.0])
J = torch.tensor([[4.0, 1.0], [3.0, 12.0]])
by_hand = u @ J
from_torch = torch.func.jvp(f, (x,), (u,))[1]
# --8<-- [end:vjp-by-hand]

# --8<-- [start:vjp-from-torch]
# from_torch comes from torch.func.vjp: a VJP passed off as a JVP.
import torch


def f(x):
    x1, x2 = x
    return torch.stack([x1**2 * x2, 3 * x1 + x2**3])


x = torch.tensor([1.0, 2.0])
u = torch.tensor([1.0, -1.0])
J = torch.tensor([[4.0, 1.0], [3.0, 12.0]])
by_hand = J @ u
_, vjp_fn = torch.func.vjp(f, x)
from_torch = vjp_fn(u)[0]
# --8<-- [end:vjp-from-torch]

# --8<-- [start:value-not-tangent]
# The first element of torch.func.jvp's pair is f(x), not the JVP.
import torch


def f(x):
    x1, x2 = x
    return torch.stack([x1**2 * x2, 3 * x1 + x2**3])


x = torch.tensor([1.0, 2.0])
u = torch.tensor([1.0, -1.0])
J = torch.tensor([[4.0, 1.0], [3.0, 12.0]])
by_hand = J @ u
from_torch = torch.func.jvp(f, (x,), (u,))[0]
# --8<-- [end:value-not-tangent]

# --8<-- [start:whole-pair]
# The whole pair (f(x), J u) that torch.func.jvp returns is kept.
import torch


def f(x):
    x1, x2 = x
    return torch.stack([x1**2 * x2, 3 * x1 + x2**3])


x = torch.tensor([1.0, 2.0])
u = torch.tensor([1.0, -1.0])
J = torch.tensor([[4.0, 1.0], [3.0, 12.0]])
by_hand = J @ u
from_torch = torch.func.jvp(f, (x,), (u,))
# --8<-- [end:whole-pair]

# --8<-- [start:point-and-direction-swapped]
# The point and the direction are swapped in the call to torch.func.jvp.
import torch


def f(x):
    x1, x2 = x
    return torch.stack([x1**2 * x2, 3 * x1 + x2**3])


x = torch.tensor([1.0, 2.0])
u = torch.tensor([1.0, -1.0])
J = torch.tensor([[4.0, 1.0], [3.0, 12.0]])
by_hand = J @ u
from_torch = torch.func.jvp(f, (u,), (x,))[1]
# --8<-- [end:point-and-direction-swapped]

# --8<-- [start:elementwise-product]
# by_hand is J * u, the entrywise product (u broadcast over the rows), not J @ u.
import torch


def f(x):
    x1, x2 = x
    return torch.stack([x1**2 * x2, 3 * x1 + x2**3])


x = torch.tensor([1.0, 2.0])
u = torch.tensor([1.0, -1.0])
J = torch.tensor([[4.0, 1.0], [3.0, 12.0]])
by_hand = J * u
from_torch = torch.func.jvp(f, (x,), (u,))[1]
# --8<-- [end:elementwise-product]

# --8<-- [start:list-not-tensor]
# by_hand is worked out on paper and typed as a Python list, not computed as a tensor.
import torch


def f(x):
    x1, x2 = x
    return torch.stack([x1**2 * x2, 3 * x1 + x2**3])


x = torch.tensor([1.0, 2.0])
u = torch.tensor([1.0, -1.0])
J = torch.tensor([[4.0, 1.0], [3.0, 12.0]])
by_hand = [3.0, -9.0]
from_torch = torch.func.jvp(f, (x,), (u,))[1]
# --8<-- [end:list-not-tensor]

"""Interview: What is the vector-Jacobian product?
(docs/interview/what-is-a-vector-jacobian-product.md)"""

# --8<-- [start:square]
import torch
from torch.autograd.functional import jacobian

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
v = torch.tensor([1.0, 0.5, 2.0])  # one weight per output element
# --8<-- [start:square-maths]

J = jacobian(lambda t: t**2, x)  # built here only to check; backward() never builds it
print("J =")
print(J)
print("vᵀJ       =", (v @ J).tolist())

y = x**2
y.backward(v)
print("y.backward(v) -> x.grad =", x.grad.tolist())
# --8<-- [end:square-maths]
# --8<-- [end:square]

# --8<-- [start:matrix]
A = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])  # y = A x: 2 inputs, 3 outputs
x = torch.tensor([1.0, -1.0], requires_grad=True)
v = torch.tensor([1.0, 0.0, -1.0])

y = A @ x
y.backward(v)
print("Jacobian equals A:", torch.equal(jacobian(lambda t: A @ t, x), A))
print("vᵀA    =", (v @ A).tolist())
print("x.grad =", x.grad.tolist())
# --8<-- [end:matrix]

# --8<-- [start:chain]
x = torch.tensor([1.0, -1.0], requires_grad=True)
h = A @ x  # first function: Jacobian A
out = (h**2).sum()  # second function, to a scalar: gradient 2h
out.backward()

with torch.no_grad():  # plain numbers: the upstream gradient arriving at h
    v = 2 * h
print("(2h)ᵀA =", (v @ A).tolist())
print("x.grad =", x.grad.tolist())
# --8<-- [end:chain]

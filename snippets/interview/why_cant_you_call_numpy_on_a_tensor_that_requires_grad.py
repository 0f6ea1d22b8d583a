"""Interview: why can't you call numpy() on a tensor that requires grad?

docs/interview/why-cant-you-call-numpy-on-a-tensor-that-requires-grad.md
"""

# --8<-- [start:setup]
import torch

w = torch.tensor([1.0, 2.0], requires_grad=True)
y = w * 3
print("y.requires_grad:", y.requires_grad, "| y.grad_fn:", y.grad_fn.name())
# --8<-- [end:setup]

# --8<-- [start:fix]
values = y.detach().numpy()  # leave the graph first, explicitly
print("y.detach().numpy():", values, type(values).__name__)
print("y.numpy(force=True):", y.numpy(force=True))  # the same, in one call

with torch.no_grad():  # with recording off, numpy() is allowed
    print("y.numpy() under no_grad():", y.numpy())
# --8<-- [end:fix]

# --8<-- [start:shared]
x = torch.tensor([0.0, 1.0], requires_grad=True)
e = torch.exp(x)  # ExpBackward0 saves e: d/dx exp(x) = exp(x)
array = e.detach().numpy()  # the same memory as e
array *= 2  # NumPy changes e, and autograd's version counter does not see it
print("e after array *= 2:", e.detach().numpy().round(3), "| e._version:", e._version)

e.sum().backward()  # no error
print("x.grad:   ", x.grad.numpy().round(3))
print("right one:", torch.exp(x.detach()).numpy().round(3))
# --8<-- [end:shared]

"""Interview: Why can't a non-scalar tensor call backward() without an argument?
(docs/interview/why-cant-a-non-scalar-call-backward.md)"""

# --8<-- [start:vector]
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x**2
print("y =", y.tolist(), " shape", tuple(y.shape))
# --8<-- [end:vector]

# --8<-- [start:one-element]
w = torch.tensor([[2.0]], requires_grad=True)
y = w * 3  # shape (1, 1): two dimensions, one element
y.backward()  # works: one element, so the starting gradient is 1
print("y:", y, " numel:", y.numel())
print("w.grad:", w.grad)
# --8<-- [end:one-element]

# --8<-- [start:sum]
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
(x**2).sum().backward()  # one scalar: y1 + y2 + y3
print("via sum():      ", x.grad)
# --8<-- [end:sum]

# --8<-- [start:ones]
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x**2
y.backward(torch.ones_like(y))  # one weight per element of y
print("via ones_like():", x.grad)
# --8<-- [end:ones]

# --8<-- [start:weights]
for weights in ([1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.5, 0.5, 0.5]):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x**2
    y.backward(torch.tensor(weights))  # the gradient of sum(weights * y)
    print(f"weights {weights}: x.grad = {x.grad.tolist()}")
# --8<-- [end:weights]

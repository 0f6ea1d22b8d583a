"""Interview: Why do gradients accumulate? (docs/interview/why-do-gradients-accumulate.md)"""

# --8<-- [start:adds]
import torch

x = torch.tensor(2.0, requires_grad=True)

y = x**2
y.backward()
print("after the first pass: ", x.grad)  # 2x = 4

y = x**2  # a new forward pass, a new graph
y.backward()
print("after the second pass:", x.grad)  # 4 + 4
# --8<-- [end:adds]

# --8<-- [start:sum]
x = torch.tensor(2.0, requires_grad=True)
(x**2).backward()  # contributes 2x = 4
(3 * x).backward()  # contributes 3
print("two passes, accumulated:", x.grad)

x_again = torch.tensor(2.0, requires_grad=True)
(x_again**2 + 3 * x_again).backward()  # one pass over the sum: 2x + 3
print("one pass over the sum:  ", x_again.grad)
# --8<-- [end:sum]

# --8<-- [start:forgot]
w = torch.tensor(1.0, requires_grad=True)
for step in range(3):
    loss = (2 * w - 10) ** 2  # the same loss each time: dloss/dw = 4(2w - 10) = -32
    loss.backward()
    print(f"step {step}: w.grad = {w.grad.item()}")  # no clearing: it grows
# --8<-- [end:forgot]

# --8<-- [start:cleared]
w = torch.tensor(1.0, requires_grad=True)
for step in range(3):
    w.grad = None  # clear before each backward pass
    loss = (2 * w - 10) ** 2
    loss.backward()
    print(f"step {step}: w.grad = {w.grad.item()}")
# --8<-- [end:cleared]

# --8<-- [start:two-paths]
x = torch.tensor(2.0, requires_grad=True)
arrivals = []  # every gradient the backward pass delivers to x, in order
x.register_hook(lambda grad: arrivals.append(grad))

loss = 3 * x + x**2  # x feeds two nodes: one path gives 3, the other 2x = 4
loss.backward()
print("delivered to x:", arrivals)  # once, already summed: 3 + 4
print("x.grad:        ", x.grad)

loss = 3 * x + x**2  # a new graph and a second backward() call
loss.backward()
print("delivered to x:", arrivals)  # a second delivery ...
print("x.grad:        ", x.grad)  # ... added to .grad: 7 + 7
# --8<-- [end:two-paths]

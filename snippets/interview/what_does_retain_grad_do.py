"""Interview: What does retain_grad() do? (docs/interview/what-does-retain-grad-do.md)"""

# --8<-- [start:keep]
import torch

x = torch.tensor(2.0, requires_grad=True)
y = x * 3  # a non-leaf: 6
loss = y**2

y.retain_grad()  # before backward()
loss.backward()
print("y.retains_grad:", y.retains_grad)
print("y.grad:", y.grad)  # dloss/dy = 2y = 12
print("x.grad:", x.grad)  # dloss/dx = 2y * 3 = 36
# --8<-- [end:keep]

# --8<-- [start:too-late]
x = torch.tensor(2.0, requires_grad=True)
y = x * 3
loss = y**2
loss.backward()
y.retain_grad()  # after backward(): the gradient has already been dropped
print("y.grad:", y.grad)
# --8<-- [end:too-late]

# --8<-- [start:accumulates]
x = torch.tensor(2.0, requires_grad=True)
y = x * 3
loss = y**2
y.retain_grad()
loss.backward(retain_graph=True)  # keep the graph for a second pass
print("after one pass: ", y.grad)
loss.backward()
print("after two passes:", y.grad)  # 12 + 12: it accumulates like a leaf's
# --8<-- [end:accumulates]

"""Interview: When is retain_graph=True required?
(docs/interview/when-is-retain-graph-required.md)"""

# --8<-- [start:first-pass]
import torch

x = torch.tensor(2.0, requires_grad=True)
y = x**2
y.backward()  # frees the values the graph of y saved
print("x.grad:", x.grad)
# --8<-- [end:first-pass]

# --8<-- [start:new-forward]
y = x**2  # a new forward pass builds a new graph
y.backward()
print("x.grad:", x.grad)  # 4 + 4
# --8<-- [end:new-forward]

# --8<-- [start:nothing-saved]
a = torch.tensor(2.0, requires_grad=True)
b = a + 1  # AddBackward0 saves no tensor: its derivative is 1
b.backward()
b.backward()  # the same graph again: no error
print("a.grad after two passes:", a.grad)  # 1 + 1
# --8<-- [end:nothing-saved]

# --8<-- [start:retain]
x = torch.tensor(2.0, requires_grad=True)
y = x**2
y.backward(retain_graph=True)  # keep the saved values for another pass
print("first pass: ", x.grad)
y.backward()  # the same graph again; this pass frees it
print("second pass:", x.grad)
# --8<-- [end:retain]

# --8<-- [start:shared]
w = torch.tensor(2.0, requires_grad=True)
x = torch.tensor(3.0)


def two_losses() -> tuple[torch.Tensor, torch.Tensor]:
    shared = w * x  # one graph node that both losses use
    return shared**2, 5 * shared


loss1, loss2 = two_losses()
loss1.backward(retain_graph=True)  # loss2 still needs the shared part
loss2.backward()
print("w.grad, two passes:", w.grad)  # 2(wx)x + 5x = 36 + 15
# --8<-- [end:shared]

# --8<-- [start:sum-instead]
w.grad = None
loss1, loss2 = two_losses()
(loss1 + loss2).backward()  # one pass over the sum: no retained graph
print("w.grad, one pass:  ", w.grad)
# --8<-- [end:sum-instead]

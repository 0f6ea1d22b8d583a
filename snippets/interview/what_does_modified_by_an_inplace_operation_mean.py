"""Interview: What does "modified by an inplace operation" mean?
(docs/interview/what-does-modified-by-an-inplace-operation-mean.md)"""

# --8<-- [start:saved]
import torch

x = torch.tensor([0.0, 1.0], requires_grad=True)
e = torch.exp(x)  # d/dx e^x = e^x: ExpBackward0 saves its output e
print("e:", e)
print("version of e:", e._version)
e += 1  # in place: changes the tensor ExpBackward0 saved
print("version of e after += 1:", e._version)
# --8<-- [end:saved]

# --8<-- [start:fixed]
x = torch.tensor([0.0, 1.0], requires_grad=True)
e = torch.exp(x)
shifted = e + 1  # out of place: a new tensor, the saved e is untouched
shifted.sum().backward()
print("x.grad:", x.grad)  # e^x
with torch.no_grad():  # a plain value to compare with, not part of the graph
    print("e^x:   ", torch.exp(x))
# --8<-- [end:fixed]

# --8<-- [start:clone]
x = torch.tensor([0.0, 1.0], requires_grad=True)
e = torch.exp(x)
shifted = e.clone()  # a copy that nothing saved; clone() is recorded in the graph
shifted += 1  # in place on the copy: allowed
shifted.sum().backward()
print("x.grad:", x.grad)
# --8<-- [end:clone]

# --8<-- [start:not-saved]
x = torch.tensor([0.0, 1.0], requires_grad=True)
y = x * 2  # multiplying by a number: MulBackward0 needs only the 2, not x
print("saved by", y.grad_fn.name(), "->", y.grad_fn._saved_other)
print("and x saved?", y.grad_fn._saved_self is not None)
y += 1  # in place, but nothing saved y
y.sum().backward()
print("x.grad:", x.grad)  # d/dx (2x + 1) = 2
# --8<-- [end:not-saved]

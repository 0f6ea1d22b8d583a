"""Interview: Why can't an integer tensor require grad?

docs/interview/why-cant-an-integer-tensor-require-grad.md; the error itself is shown
by a raises= block on the page.
"""
# ruff: noqa: E402

# --8<-- [start:dtype]
import torch

print(torch.tensor([1, 2, 3]).dtype)  # Python ints: an integer tensor
print(torch.tensor([1.0, 2.0, 3.0]).dtype)  # Python floats: a float tensor
# --8<-- [end:dtype]

# --8<-- [start:fix]
counts = torch.tensor([1, 2, 3])
w = counts.float().requires_grad_()  # a float copy, then track it
(w**2).sum().backward()
print("w.grad:", w.grad, w.grad.dtype)  # d/dw of the sum of w² is 2w
# --8<-- [end:fix]

# --8<-- [start:index]
scores = torch.tensor([1.5, -2.0, 0.5], requires_grad=True)
best = scores.argmax()  # an integer index: no gradient flows through it
print("best:", best, "| requires_grad:", best.requires_grad)

top = scores[best]  # indexing a float tensor is differentiable in its values
top.backward()
print("scores.grad:", scores.grad)  # 1 at the chosen position, 0 elsewhere
# --8<-- [end:index]

# --8<-- [start:labels]
import torch.nn.functional as F

scores = torch.tensor([[2.0, 0.5, -1.0], [0.1, 0.2, 0.3]], requires_grad=True)
labels = torch.tensor([0, 2])  # the right class of each example: integers
loss = F.cross_entropy(scores, labels)
loss.backward()

print("labels:", labels.dtype, "| requires_grad:", labels.requires_grad)
print("scores.grad:", scores.grad)  # (softmax - one-hot) / 2: every score gets a gradient
# --8<-- [end:labels]

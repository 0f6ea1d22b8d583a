"""Interview: What is the gradient of softmax cross-entropy with respect to the logits?

Included by docs/interview/gradient-of-softmax-cross-entropy.md.
"""

# --8<-- [start:batch]
import torch
import torch.nn.functional as F

logits = torch.tensor([[2.0, 1.0, 0.1], [0.5, 2.5, -1.0]], requires_grad=True)
targets = torch.tensor([0, 2])  # the true class of each of the N = 2 examples
loss = F.cross_entropy(logits, targets)  # the mean over the batch, the default
loss.backward()

n, classes = logits.shape
with torch.no_grad():
    by_hand = (torch.softmax(logits, dim=1) - F.one_hot(targets, classes)) / n
print("logits.grad =", logits.grad)
print("by hand     =", by_hand)
torch.testing.assert_close(by_hand, logits.grad)  # raises if they differ
print("row sums:", logits.grad.sum(dim=1))
# --8<-- [end:batch]

# --8<-- [start:sum]
logits.grad = None  # start again from no gradient
F.cross_entropy(logits, targets, reduction="sum").backward()
print("with reduction='sum':", logits.grad)
# --8<-- [end:sum]

# --8<-- [start:stable]
scores = torch.tensor([[0.0, 200.0]], requires_grad=True)  # very sure, and wrong
target = torch.tensor([0])

naive = -torch.log(torch.softmax(scores, dim=1))[0, 0]  # softmax, then log
naive.backward()
print("softmax then log:", naive, scores.grad)

scores.grad = None
fused = F.cross_entropy(scores, target)  # log-softmax computed in one stable step
fused.backward()
print("F.cross_entropy: ", fused, scores.grad)
# --8<-- [end:stable]

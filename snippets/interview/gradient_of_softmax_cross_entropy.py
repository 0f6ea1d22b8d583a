"""Interview: What is the gradient of softmax cross-entropy with respect to the logits?

Included by docs/interview/gradient-of-softmax-cross-entropy.md.
"""

# --8<-- [start:batch]
import torch
import torch.nn.functional as F

logits = torch.tensor([[2.0, 1.0, 0.1], [0.5, 2.5, -1.0]], requires_grad=True)
targets = torch.tensor([0, 2])  # the true class of each of the N = 2 examples
# --8<-- [start:batch-maths]
loss = F.cross_entropy(logits, targets)  # the mean over the batch, the default
loss.backward()

n, classes = logits.shape
with torch.no_grad():
    by_hand = (torch.softmax(logits, dim=1) - F.one_hot(targets, classes)) / n
print("logits.grad =", logits.grad)
print("by hand     =", by_hand)
torch.testing.assert_close(by_hand, logits.grad)  # raises if they differ
# Rounded to 6 decimals, below float32's rounding noise; + 0.0 turns a -0.0 into 0.0.
print("row sums, to 6 decimals:", logits.grad.sum(dim=1).round(decimals=6) + 0.0)
# --8<-- [end:batch-maths]
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

# --8<-- [start:scope]
with torch.no_grad():
    probs = torch.softmax(logits, dim=1)

soft_targets = torch.tensor([[0.7, 0.2, 0.1], [0.0, 0.5, 0.5]])  # a probability per class
logits.grad = None
F.cross_entropy(logits, soft_targets).backward()
torch.testing.assert_close(logits.grad, (probs - soft_targets) / n)
print("soft targets: logits.grad equals (probs - soft_targets) / N")

# F.cross_entropy does not normalise the targets: a row summing to 1.5 here.
unnormalised = torch.tensor([[0.5, 0.5, 0.5], [0.0, 0.5, 0.5]])
# --8<-- [start:unnormalised-maths]
logits.grad = None
F.cross_entropy(logits, unnormalised).backward()
row_sums = unnormalised.sum(dim=1, keepdim=True)
print(
    "row sums 1.5 and 1: equals (probs - targets) / N?",
    torch.allclose(logits.grad, (probs - unnormalised) / n),
    " equals (row sum * probs - targets) / N?",
    torch.allclose(logits.grad, (row_sums * probs - unnormalised) / n),
)
# --8<-- [end:unnormalised-maths]

weight = torch.tensor([1.0, 2.0, 3.0])  # one weight per class
logits.grad = None
F.cross_entropy(logits, targets, weight=weight).backward()
w = weight[targets]  # the weight of each example's true class
by_hand = w[:, None] * (probs - F.one_hot(targets, classes)) / w.sum()
torch.testing.assert_close(logits.grad, by_hand)
print("weight=: logits.grad equals w * (probs - one_hot) / w.sum(), w.sum() =", w.sum())
# --8<-- [end:scope]

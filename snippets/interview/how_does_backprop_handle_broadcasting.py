"""Interview: How does backprop handle broadcasting?

Included by docs/interview/how-does-backprop-handle-broadcasting.md.
"""
# ruff: noqa: E402

# --8<-- [start:bias]
import torch
import torch.nn.functional as F

torch.manual_seed(0)
X = torch.randn(4, 3)  # a batch of 4 examples
W = torch.randn(3, 2, requires_grad=True)
b = torch.randn(2, requires_grad=True)  # shape (2,), broadcast over the 4 rows
out = X @ W + b  # (4, 2)
upstream = torch.randn(4, 2)  # some dL/d(out)
out.backward(upstream)

print("b.grad =          ", b.grad)
print("upstream.sum(0) = ", upstream.sum(dim=0))
# --8<-- [end:bias]

# --8<-- [start:any-shape]
for shape in [(3,), (4, 1), (1, 3), (2, 1, 3), ()]:
    # --8<-- [start:any-shape-maths]
    a = torch.randn(shape, requires_grad=True)
    grad = torch.randn(2, 4, 3)  # the gradient of a result of shape (2, 4, 3)
    (a + torch.zeros(2, 4, 3)).backward(grad)  # a is broadcast to (2, 4, 3)
    reduced = grad.sum_to_size(shape)  # sum over every dimension a was copied along
    print(
        f"a of shape {shape!s:<10} a.grad equals grad.sum_to_size: {torch.equal(a.grad, reduced)}"
    )
    # --8<-- [end:any-shape-maths]
# --8<-- [end:any-shape]

# --8<-- [start:by-hand]
grad = torch.arange(12.0).reshape(4, 3)  # the gradient of a (4, 3) result
print("for a (3,) input:  ", grad.sum(dim=0))  # the added leading dimension: summed away
print("for a (4, 1) input:", grad.sum(dim=1, keepdim=True).tolist())  # size 1 expanded: kept
# --8<-- [end:by-hand]

# --8<-- [start:where]
node = out.grad_fn  # AddBackward0 for X @ W + b
grads = node(upstream)  # call the node by hand: one gradient per input
print(node.name(), "returns shapes", [tuple(g.shape) for g in grads])
print("b.grad has shape", tuple(b.grad.shape))
# --8<-- [end:where]

# --8<-- [start:pitfall]
predictions = torch.randn(4, 1, requires_grad=True)  # (N, 1), as a Linear(…, 1) gives
targets = torch.randn(4)  # (N,)
loss = F.mse_loss(predictions, targets)  # broadcasts to (4, 4): every pair, not every row
loss.backward()
print("predictions - targets has shape", tuple((predictions - targets).shape))
intended = predictions.detach().clone().requires_grad_()  # the same numbers
F.mse_loss(intended, targets.unsqueeze(1)).backward()  # targets as (N, 1): row by row
print("the same gradients as the intended loss:", torch.allclose(predictions.grad, intended.grad))

import warnings

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    by_hand = ((predictions - targets) ** 2).mean()  # the same mistake, written out
print("warnings from the hand-written loss:", len(caught))
# --8<-- [end:pitfall]

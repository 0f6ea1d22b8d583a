"""Exercise 2.12: backprop through ReLU by hand.

Run it: python snippets/practice/network_by_hand.py
"""
# Each region is a self-contained cell (page, notebook), so imports repeat.
# ruff: noqa: E402

# --8<-- [start:starter]
import torch
import torch.nn.functional as F

torch.manual_seed(0)
X = torch.randn(4, 3)  # 4 examples, 3 features
targets = torch.tensor([2, 0, 1, 0])  # 3 classes
W1 = torch.randn(3, 5, requires_grad=True)
b1 = torch.randn(5, requires_grad=True)
W2 = torch.randn(5, 3, requires_grad=True)
b2 = torch.randn(3, requires_grad=True)

# Forward pass, with ReLU as the nonlinearity, then autograd's backward pass.
z1 = X @ W1 + b1
h = torch.relu(z1)
logits = h @ W2 + b2
loss = F.cross_entropy(logits, targets)
loss.backward()

# The backward pass by hand. The first two steps are done for you.
with torch.no_grad():
    dlogits = (torch.softmax(logits, dim=1) - F.one_hot(targets, 3)) / 4
    dh = dlogits @ W2.T
    dz1 = ...  # replace ...: the gradient through ReLU
    dW1 = ...  # replace ...
    db1 = ...  # replace ...

# Then check dW1 and db1 against W1.grad and b1.grad with torch.testing.assert_close.
# --8<-- [end:starter]

# --8<-- [start:solution]
import torch
import torch.nn.functional as F

torch.manual_seed(0)
X = torch.randn(4, 3)  # 4 examples, 3 features
targets = torch.tensor([2, 0, 1, 0])  # 3 classes
W1 = torch.randn(3, 5, requires_grad=True)
b1 = torch.randn(5, requires_grad=True)
W2 = torch.randn(5, 3, requires_grad=True)
b2 = torch.randn(3, requires_grad=True)

z1 = X @ W1 + b1
h = torch.relu(z1)
logits = h @ W2 + b2
loss = F.cross_entropy(logits, targets)
loss.backward()

with torch.no_grad():
    dlogits = (torch.softmax(logits, dim=1) - F.one_hot(targets, 3)) / 4
    dh = dlogits @ W2.T
    dz1 = dh * (z1 > 0)  # ReLU passes the gradient where z1 > 0 and blocks it elsewhere
    dW1 = X.T @ dz1  # (3, 4) @ (4, 5) -> (3, 5), the shape of W1
    db1 = dz1.sum(dim=0)  # b1 was added to all 4 rows

torch.testing.assert_close(dW1, W1.grad)  # raises if they differ
torch.testing.assert_close(db1, b1.grad)
print("dW1 and db1 match W1.grad and b1.grad")
print("z1 > 0:", z1 > 0)
print("db1 =", db1)
# --8<-- [end:solution]

# --8<-- [start:tanh-saturates]
import torch

z = torch.tensor([5.0, 8.0, 9.0, 10.0], requires_grad=True)  # float32, the default
h = torch.tanh(z)
h.sum().backward()  # z.grad = tanh'(z) = 1 - h**2
print("h =", h)
print("h == 1:", h == 1)
torch.set_printoptions(precision=2)  # 3 significant digits: further ones vary by CPU
print("z.grad =", z.grad)
torch.set_printoptions(profile="default")
# --8<-- [end:tanh-saturates]

# --8<-- [start:check]
# Checks your answer: autograd computes the gradients again from your own tensors, on a
# fresh copy, and compares them with your dz1, dW1 and db1.
import torch
import torch.nn.functional as F


def check() -> str:
    names = ("X", "targets", "W1", "b1", "W2", "b2")
    X, targets, W1, b1, W2, b2 = (globals().get(name) for name in names)
    if not all(isinstance(t, torch.Tensor) for t in (X, targets, W1, b1, W2, b2)):
        return "Not done yet: X, targets, W1, b1, W2 and b2 are not defined; run the cell above."
    answers = {name: globals().get(name) for name in ("dz1", "dW1", "db1")}
    missing = [name for name, value in answers.items() if not isinstance(value, torch.Tensor)]
    if missing:
        return f"Not done yet: replace the ... for {', '.join(missing)} in the cell above."
    # A fresh copy of the network, so that nothing your cell did to .grad matters.
    leaves = [t.detach().clone().requires_grad_() for t in (W1, b1, W2, b2)]
    z1 = X @ leaves[0] + leaves[1]
    loss = F.cross_entropy(torch.relu(z1) @ leaves[2] + leaves[3], targets)
    grads = torch.autograd.grad(loss, [z1, leaves[0], leaves[1]])
    expected = dict(zip(("dz1", "dW1", "db1"), grads, strict=True))
    hints = {
        "dz1": "ReLU's derivative is 1 where z1 > 0 and 0 elsewhere: multiply dh by (z1 > 0)",
        "dW1": "a weight's gradient is the layer's input, transposed, times dz1: X.T @ dz1",
        "db1": "the bias was added to every row, so sum dz1 over the batch: dz1.sum(dim=0)",
    }
    # The point is to compute them from dz1: autograd's own .grad tensors are not answers.
    copied = {"dW1": W1.grad, "db1": b1.grad}
    for name, grad in copied.items():
        if isinstance(grad, torch.Tensor) and answers[name].data_ptr() == grad.data_ptr():
            source = f"{name[1:]}.grad"
            return (
                f"Not quite: expected {name} computed from dz1, got {source} itself. "
                f"Compute it from dz1, don't copy {source}."
            )
    for name, got in answers.items():
        want = expected[name]
        got = got.to(want.dtype)  # a float64 answer is compared by value, not by dtype
        if got.shape != want.shape or not torch.allclose(got, want, atol=1e-6):
            return (
                f"Not quite: {name} is not the gradient autograd computes.\n"
                f"expected, shape {tuple(want.shape)}:\n{want}\n"
                f"got, shape {tuple(got.shape)}:\n{got}\n"
                f"Hint: {hints[name]}."
            )
    return (
        "Correct: dz1, dW1 and db1 equal autograd's gradients. "
        f"{int((z1 <= 0).sum())} of the {z1.numel()} hidden pre-activations are not positive, "
        "and ReLU passes no gradient through them."
    )


try:
    print(check())
except Exception as error:  # the check never crashes, whatever the cell above did
    print(f"Not done yet: the check could not read your answer ({type(error).__name__}: {error}).")
# --8<-- [end:check]

"""Interview: How do you get the gradient with respect to the input?
(docs/interview/how-do-you-get-the-gradient-with-respect-to-the-input.md)"""

# --8<-- [start:model]
import torch
import torch.nn.functional as F

torch.manual_seed(0)
X = torch.randn(200, 4, dtype=torch.float64)
labels = (X[:, 0] + 2 * X[:, 1] > 0).long()  # only features 0 and 1 matter
model = torch.nn.Sequential(
    torch.nn.Linear(4, 16), torch.nn.Tanh(), torch.nn.Dropout(0.1), torch.nn.Linear(16, 2)
).double()
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
for _ in range(200):
    optimizer.zero_grad()
    loss = F.cross_entropy(model(X), labels)
    loss.backward()
    optimizer.step()
print(f"training loss after 200 steps: {loss.item():.3f}")
# --8<-- [end:model]

# --8<-- [start:saliency]
model.zero_grad()  # forget the training gradients: every .grad is None
model.eval()  # dropout off: the same input gives the same output and gradient
model.requires_grad_(False)  # the weights are constants now: no weight gradients

x = X[:5].clone().requires_grad_()  # the input is now a leaf that requires grad
scores = model(x)
predicted = scores.argmax(dim=1)
score = scores.gather(1, predicted.unsqueeze(1)).sum()  # each example's winning score
score.backward()
saliency = x.grad.abs()  # |d score / d x|, one row per example
print("saliency of 5 examples, one column per feature:")
print(saliency)
print("weights' .grad:", [p.grad for p in model.parameters()])
# --8<-- [end:saliency]

# --8<-- [start:by-hand]
W1, b1, W2 = model[0].weight, model[0].bias, model[3].weight
h = torch.tanh(x.detach() @ W1.T + b1)  # the hidden layer
by_hand = ((1 - h**2) * W2[predicted]) @ W1  # row i: W1^T ((1 - h_i^2) * W2[c_i])
print("x.grad equals W1^T ((1 - h^2) * W2[c]):", torch.allclose(x.grad, by_hand))
# --8<-- [end:by-hand]

# --8<-- [start:one-pass]
loop = []
for i in range(5):  # one example at a time
    xi = X[i : i + 1].clone().requires_grad_()
    model(xi)[0, predicted[i]].backward()
    loop.append(xi.grad[0])
print(
    "one backward() of the sum equals a backward() per example:",
    torch.allclose(x.grad, torch.stack(loop)),
)

model.train()  # dropout on again: every call draws a new mask
grads = []
for _ in range(2):
    x_t = X[:5].clone().requires_grad_()
    model(x_t).gather(1, predicted.unsqueeze(1)).sum().backward()
    grads.append(x_t.grad)
print("in train mode, two calls give the same gradient:", torch.equal(grads[0], grads[1]))
model.eval()
# --8<-- [end:one-pass]

# --8<-- [start:autograd-grad]
model.requires_grad_(True)  # as in training: the weights require grad again
x = X[:5].clone().requires_grad_()
loss = F.cross_entropy(model(x), labels[:5])
(dx,) = torch.autograd.grad(loss, x)  # only the input's gradient, returned
print("dx shape:", tuple(dx.shape), " x.grad:", x.grad)
print("weights' .grad after torch.autograd.grad:", [p.grad for p in model.parameters()])
# --8<-- [end:autograd-grad]

# --8<-- [start:fgsm]
x = X[:100].clone().requires_grad_()
(g,) = torch.autograd.grad(F.cross_entropy(model(x), labels[:100]), x)
generator = torch.Generator().manual_seed(0)
random_signs = torch.randint(0, 2, x.shape, generator=generator).double() * 2 - 1


def report(inputs):
    """The model's loss and accuracy on these 100 inputs."""
    with torch.no_grad():
        out = model(inputs)
    loss = F.cross_entropy(out, labels[:100])
    accuracy = (out.argmax(dim=1) == labels[:100]).double().mean()
    return f"loss {loss:.3f}  accuracy {accuracy:.2f}"


print("no step:      ", report(X[:100]))
for eps in (0.1, 0.2):
    print(f"eps = {eps}:")
    print("  FGSM:       ", report(X[:100] + eps * g.sign()))
    print("  random sign:", report(X[:100] + eps * random_signs))
    fgsm_gain, random_gain = (eps * g * g.sign()).sum(), (eps * g * random_signs).sum()
    print(f"  first-order gain g . step: FGSM {fgsm_gain:.4f}, random {random_gain:.4f}")
# --8<-- [end:fgsm]

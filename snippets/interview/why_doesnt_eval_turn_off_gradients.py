"""Interview: Why doesn't model.eval() turn off gradients?

(docs/interview/why-doesnt-eval-turn-off-gradients.md)
"""

# --8<-- [start:demonstration]
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 16), nn.ReLU(), nn.Dropout(p=0.5), nn.Linear(16, 1))
x = torch.randn(4, 3)

model.eval()
print("model.training:", model.training)
print("grad mode enabled:", torch.is_grad_enabled())
out = model(x).sum()
print("out.requires_grad:", out.requires_grad, " out.grad_fn:", out.grad_fn.name())
out.backward()
print("every parameter got a gradient:", all(p.grad is not None for p in model.parameters()))
# --8<-- [end:demonstration]

# --8<-- [start:input-gradient]
image = torch.randn(1, 3, requires_grad=True)  # an input whose influence we want
model.eval()  # predict as in use: dropout off
score = model(image).sum()
score.backward()  # how much each input value moves the score
print("d score / d input:", image.grad)
# --8<-- [end:input-gradient]

# --8<-- [start:no-grad-train-mode]
model.train()
with torch.no_grad():  # no graph, but dropout is still on
    first, second = model(x), model(x)
print("requires_grad:", first.requires_grad)
print("two calls give the same output:", torch.equal(first, second))
# --8<-- [end:no-grad-train-mode]

# --8<-- [start:both]
model.eval()
with torch.no_grad():
    first, second = model(x), model(x)
model.train()
print("requires_grad:", first.requires_grad)
print("two calls give the same output:", torch.equal(first, second))
# --8<-- [end:both]

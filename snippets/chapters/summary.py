"""The examples of the module summary: the pattern of each part, running.

Included by docs/chapters/summary.md, top to bottom: the graph of Part 1, the training
loop of Part 2, and the validation loop of Part 3 on the model that loop trained. The
second backward pass of Part 1, which fails on purpose, lives in the page, in a
`raises=` block. The file also runs on its own: `python snippets/chapters/summary.py`.
"""
# ruff: noqa: E402  (each region imports what it shows)

# --8<-- [start:graph]
import torch

x = torch.tensor(2.0)  # an input: not tracked
w = torch.tensor(3.0, requires_grad=True)  # a weight: tracked
loss = (w * x - 1) ** 2

for name, t in [("x", x), ("w", w), ("loss", loss)]:
    made_by = t.grad_fn.name() if t.grad_fn is not None else None
    print(
        f"{name:4}  requires_grad={t.requires_grad!s:5}  is_leaf={t.is_leaf!s:5}  grad_fn={made_by}"
    )

# Walk the graph from the loss back to the leaf, one node at a time.
node = loss.grad_fn
while node is not None:
    print("->", type(node).__name__)
    node = next((n for n, _ in node.next_functions if n is not None), None)
# --8<-- [end:graph]

# --8<-- [start:graph-backward]
loss.backward()  # walks the graph, fills w.grad, frees what the nodes saved
print("w.grad:", w.grad.item())
# --8<-- [end:graph-backward]

# --8<-- [start:setup]
from torch import nn

torch.manual_seed(0)  # the layer starts from random weights: fix them

# Four examples of the rule target = 2 * input + 1.
inputs = torch.tensor([[1.0], [2.0], [3.0], [4.0]])
targets = 2 * inputs + 1

model = nn.Linear(1, 1)
loss_function = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)

print(f"weight {model.weight.item():.3f}, bias {model.bias.item():.3f}")
# --8<-- [end:setup]

# --8<-- [start:loop]
for epoch in range(1, 201):
    optimizer.zero_grad()  # 1. clear the gradients of the previous step
    output = model(inputs)  # 2. forward pass: predictions
    loss = loss_function(output, targets)  # 3. one number: the mean squared error
    loss.backward()  # 4. backward pass: fills model.weight.grad and model.bias.grad
    optimizer.step()  # 5. update every parameter using its gradient

    if epoch in (1, 2, 3) or epoch % 50 == 0:
        print(f"epoch {epoch:3d}  loss {loss.item():.4f}")
# --8<-- [end:loop]

# --8<-- [start:result]
print(f"weight {model.weight.item():.3f}, bias {model.bias.item():.3f}")
# --8<-- [end:result]

# --8<-- [start:validate]
# Two new examples of the same rule, not used for training.
val_inputs = torch.tensor([[5.0], [6.0]])
val_targets = 2 * val_inputs + 1

model.eval()  # dropout off, batch norm on its running statistics
print("after eval() alone, the output's grad_fn:", model(val_inputs).grad_fn.name())

with torch.no_grad():  # record nothing: no graph, no saved tensors
    output = model(val_inputs)
    val_loss = loss_function(output, val_targets).item()  # a plain Python number
model.train()  # back to training mode before the next training step

print(f"validation loss {val_loss:.4f}")
print("under no_grad(): grad_fn", output.grad_fn, "| requires_grad", output.requires_grad)
print("training mode again:", model.training)
# --8<-- [end:validate]

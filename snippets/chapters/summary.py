"""The example of the module summary: the training pattern, running.

Included by docs/chapters/summary.md. The file also runs on its own:
`python snippets/chapters/summary.py`.
"""

# --8<-- [start:setup]
import torch
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

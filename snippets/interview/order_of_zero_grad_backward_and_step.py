"""Interview: In what order do zero_grad(), backward() and step() go?
(docs/interview/order-of-zero-grad-backward-and-step.md)"""

# --8<-- [start:loop]
import torch
from torch import nn

inputs = torch.tensor([[1.0], [2.0], [3.0], [4.0]])
targets = 2 * inputs + 1  # the line y = 2x + 1
loss_fn = nn.MSELoss()

torch.manual_seed(0)
model = nn.Linear(1, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)

for epoch in range(1, 6):
    optimizer.zero_grad()  # 1. clear the previous gradients
    loss = loss_fn(model(inputs), targets)  # 2. forward pass and loss
    loss.backward()  # 3. new gradients into .grad
    optimizer.step()  # 4. update the parameters from .grad
    print(f"epoch {epoch}: loss {loss.item():.4f}")
# --8<-- [end:loop]


# --8<-- [start:orders]
def weight_after(order: list[str], iterations: int = 2) -> float:
    """Run `iterations` iterations whose calls come in `order`; return the weight."""
    torch.manual_seed(0)
    model = nn.Linear(1, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    for _ in range(iterations):
        for call in order:
            if call == "forward":
                loss = loss_fn(model(inputs), targets)
            elif call == "backward":
                loss.backward()
            elif call == "step":
                optimizer.step()
            else:
                optimizer.zero_grad()
    return model.weight.item()


torch.manual_seed(0)
print(f"{'no iteration at all':38} w = {nn.Linear(1, 1).weight.item():.4f}")
for order in (
    ["zero_grad", "forward", "backward", "step"],
    ["forward", "backward", "step", "zero_grad"],
    ["zero_grad", "forward", "step", "backward"],
    ["forward", "backward", "zero_grad", "step"],
    ["forward", "backward", "step"],
):
    print(f"{', '.join(order):38} w = {weight_after(order):.4f}")
# --8<-- [end:orders]

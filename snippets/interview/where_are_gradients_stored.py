"""Interview: Where are gradients stored? (docs/interview/where-are-gradients-stored.md)"""

# --8<-- [start:parameters]
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(10, 1)
inputs = torch.randn(4, 10)
targets = torch.randn(4, 1)

print("before backward:", model.weight.grad)
prediction = model(inputs)
loss = ((prediction - targets) ** 2).mean()
loss.backward()

for name, param in model.named_parameters():
    shapes = f"shape {tuple(param.shape)}, grad shape {tuple(param.grad.shape)}"
    print(f"{name}: leaf={param.is_leaf}, {shapes}")
# --8<-- [end:parameters]

# --8<-- [start:intermediate]
print("prediction is a leaf:", prediction.is_leaf)
print("prediction.grad:", prediction.grad)
# --8<-- [end:intermediate]

# --8<-- [start:optimizer]
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
with torch.no_grad():  # plain arithmetic, not recorded in the graph
    expected = model.weight - 0.1 * model.weight.grad  # w - lr * w.grad
optimizer.step()  # reads .grad of every parameter it holds
print("step used weight.grad:", torch.allclose(model.weight, expected))
# --8<-- [end:optimizer]

"""Interview: How do you freeze a layer in PyTorch?

(docs/interview/how-do-you-freeze-a-layer.md)
"""

# --8<-- [start:freeze]
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
model[0].requires_grad_(False)  # 1. freeze the first layer

trainable = [p for p in model.parameters() if p.requires_grad]
optimizer = torch.optim.SGD(trainable, lr=0.1, momentum=0.9)  # 2. only what trains

frozen_before = model[0].weight.detach().clone()
x, target = torch.randn(8, 3), torch.randn(8, 2)
for _ in range(3):
    optimizer.zero_grad()
    loss = ((model(x) - target) ** 2).mean()
    loss.backward()
    optimizer.step()

print(
    "trainable values:",
    sum(p.numel() for p in trainable),
    "of",
    sum(p.numel() for p in model.parameters()),
)
print("first layer's grads:", model[0].weight.grad, model[0].bias.grad)
print("first layer unchanged:", torch.equal(model[0].weight, frozen_before))
# --8<-- [end:freeze]

# --8<-- [start:batch-norm]
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU(), nn.Linear(4, 2))
model[:2].requires_grad_(False)  # freeze the Linear and the BatchNorm
optimizer = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.1)


def train_step() -> None:
    optimizer.zero_grad()
    ((model(x) - target) ** 2).mean().backward()
    optimizer.step()


stats_before = model[1].running_mean.clone()
train_step()
print(
    "parameters frozen, running_mean changed:", not torch.equal(model[1].running_mean, stats_before)
)

model[1].eval()  # 3. a frozen batch norm layer also needs eval mode
stats_before = model[1].running_mean.clone()
train_step()
print(
    "after model[1].eval(), running_mean changed:",
    not torch.equal(model[1].running_mean, stats_before),
)
# --8<-- [end:batch-norm]

# --8<-- [start:train-resets]
model.train()  # e.g. at the start of the next epoch
print("model.train() switched the frozen batch norm back on:", model[1].training)
model[1].eval()  # so call eval() on it again after every model.train()
print("batch norm in eval mode again:", not model[1].training)
# --8<-- [end:train-resets]

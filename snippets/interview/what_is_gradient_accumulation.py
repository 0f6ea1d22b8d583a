"""Interview: What is gradient accumulation? (docs/interview/what-is-gradient-accumulation.md)"""

# --8<-- [start:two-passes]
import copy

import torch
from torch import nn

x = torch.tensor(1.0, requires_grad=True)
for micro_batch in (1, 2):
    y = 2 * x  # each pass contributes dy/dx = 2
    y.backward()
    print(f"after pass {micro_batch}: x.grad = {x.grad.item()}")
# --8<-- [end:two-passes]

# --8<-- [start:same-gradient]
torch.manual_seed(0)
model = nn.Linear(4, 1)
inputs = torch.randn(128, 4)
targets = torch.randn(128, 1)
loss_fn = nn.MSELoss()  # the mean over the batch

big = copy.deepcopy(model)  # the same starting weights
loss_fn(big(inputs), targets).backward()  # all 128 examples at once

parts = 4
for inputs_part, targets_part in zip(inputs.split(32), targets.split(32), strict=True):
    loss = loss_fn(model(inputs_part), targets_part) / parts  # a quarter of the full mean
    loss.backward()  # adds into .grad

print("same weight gradient:", torch.allclose(model.weight.grad, big.weight.grad))
print("same bias gradient:  ", torch.allclose(model.bias.grad, big.bias.grad))
# --8<-- [end:same-gradient]

# --8<-- [start:same-step]
torch.optim.SGD(model.parameters(), lr=0.1).step()
torch.optim.SGD(big.parameters(), lr=0.1).step()
print("same weights after one step:", torch.allclose(model.weight, big.weight))
# --8<-- [end:same-step]

# --8<-- [start:loop]
torch.manual_seed(0)
model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
inputs = torch.randn(512, 4)
targets = inputs.sum(dim=1, keepdim=True)  # the model should learn weights of 1 and bias 0

accumulation_steps = 4  # 4 micro-batches of 32 = an effective batch of 128
optimizer.zero_grad()
micro_batches = zip(inputs.split(32), targets.split(32), strict=True)
for i, (inputs_part, targets_part) in enumerate(micro_batches):
    loss = loss_fn(model(inputs_part), targets_part) / accumulation_steps
    loss.backward()
    if (i + 1) % accumulation_steps == 0:  # every 4th micro-batch: update, then clear
        optimizer.step()
        optimizer.zero_grad()
        print(
            f"micro-batch {i + 1:2}: step, last part's loss {loss.item() * accumulation_steps:.4f}"
        )
# --8<-- [end:loop]


# --8<-- [start:unequal-sizes]
def largest_difference(a: nn.Module, b: nn.Module) -> float:
    """The largest difference between the gradients of two copies of a model."""
    pairs = zip(a.parameters(), b.parameters(), strict=True)
    return max((p.grad - q.grad).abs().max().item() for p, q in pairs)


torch.manual_seed(0)
model = nn.Linear(4, 1)
inputs, targets = torch.randn(32, 4), torch.randn(32, 1)
big = copy.deepcopy(model)
loss_fn(big(inputs), targets).backward()  # the mean over all 32 examples

sizes = [30, 2]  # the last micro-batch of an epoch is often smaller
by_parts = copy.deepcopy(model)
for inputs_part, targets_part in zip(inputs.split(sizes), targets.split(sizes), strict=True):
    (loss_fn(by_parts(inputs_part), targets_part) / len(sizes)).backward()
print(f"each mean divided by 2:  largest difference {largest_difference(by_parts, big):.4f}")

by_count = copy.deepcopy(model)
per_example = nn.MSELoss(reduction="sum")  # add up the examples' losses, divide later
for inputs_part, targets_part in zip(inputs.split(sizes), targets.split(sizes), strict=True):
    (per_example(by_count(inputs_part), targets_part) / len(inputs)).backward()
same = all(
    torch.allclose(p.grad, q.grad)
    for p, q in zip(by_count.parameters(), big.parameters(), strict=True)
)
print("each sum divided by 32: the same gradient as the batch of 32:", same)
# --8<-- [end:unequal-sizes]

# --8<-- [start:batch-norm]
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 1))
inputs, targets = torch.randn(128, 4), torch.randn(128, 1)
big = copy.deepcopy(model)
loss_fn(big(inputs), targets).backward()  # normalised with the statistics of all 128

by_parts = copy.deepcopy(model)
for inputs_part, targets_part in zip(inputs.split(32), targets.split(32), strict=True):
    (loss_fn(by_parts(inputs_part), targets_part) / 4).backward()  # statistics of 32 each
difference = largest_difference(by_parts, big)
print(f"with BatchNorm, 4 x 32 against 128: largest difference {difference:.4f}")
parts_updates, big_updates = (m[1].num_batches_tracked.item() for m in (by_parts, big))
print(f"running statistics updated {parts_updates} times, against {big_updates}")
# --8<-- [end:batch-norm]

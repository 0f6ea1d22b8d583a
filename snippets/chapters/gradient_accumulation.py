"""Chapter 5, gradient accumulation: .grad adds up until you clear it.

A region named ``<name>-maths`` lies inside region ``<name>`` and holds its computation
without the input the page gives it, so that tests/maths can run the page's own code on
inputs of its own. The page never shows these markers.
"""

# --8<-- [start:adds_up]
import torch
from torch import nn

x = torch.tensor(2.0, requires_grad=True)

# --8<-- [start:adds_up-maths]
y = x**2
y.backward()
print("after the first backward: ", x.grad)

y = x**2  # a brand-new graph, same leaf x
y.backward()
print("after the second backward:", x.grad)
# --8<-- [end:adds_up-maths]
# --8<-- [end:adds_up]

# --8<-- [start:micro_setup]
torch.manual_seed(0)
inputs = torch.randn(128, 3)  # one "large" batch of 128 examples
targets = torch.randn(128, 1)
model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
loss_fn = nn.MSELoss()  # the mean over the batch
# --8<-- [end:micro_setup]

# --8<-- [start:full_batch]
# Reference: the gradient of the whole batch at once.
model.zero_grad()
full_loss = loss_fn(model(inputs), targets)
full_loss.backward()
full = [p.grad.clone() for p in model.parameters()]  # a copy, kept for comparison
print(f"full batch loss: {full_loss.item():.4f}")
print("full batch,  last layer weight.grad:", full[2])
# --8<-- [end:full_batch]

# --8<-- [start:micro_batches]
model.zero_grad()
steps = 4  # 128 = 4 micro-batches of 32
for inputs_micro, targets_micro in zip(inputs.split(32), targets.split(32), strict=True):
    loss = loss_fn(model(inputs_micro), targets_micro) / steps  # each mean counts for 1/4
    loss.backward()  # adds this micro-batch's share to every .grad

accumulated = [p.grad for p in model.parameters()]
print("4 × 32,      last layer weight.grad:", accumulated[2])
print("same gradient as the full batch:", all(map(torch.allclose, accumulated, full)))
# --8<-- [end:micro_batches]

# --8<-- [start:unscaled]
model.zero_grad()
for inputs_micro, targets_micro in zip(inputs.split(32), targets.split(32), strict=True):
    loss_fn(model(inputs_micro), targets_micro).backward()  # forgot to divide by 4

unscaled = [p.grad for p in model.parameters()]
print("without / 4, last layer weight.grad:", unscaled[2])
ratio = (unscaled[2] / full[2]).mean().item()
print(f"ratio to the full-batch gradient: {ratio:.4f}")
# --8<-- [end:unscaled]

# --8<-- [start:accumulation_loop]
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

optimizer.zero_grad()
for inputs_micro, targets_micro in zip(inputs.split(32), targets.split(32), strict=True):
    loss = loss_fn(model(inputs_micro), targets_micro) / steps
    loss.backward()
optimizer.step()  # one update for the 128 examples
print(f"full batch loss after one step: {loss_fn(model(inputs), targets).item():.4f}")
# --8<-- [end:accumulation_loop]

# --8<-- [start:zero_]
x = torch.tensor(2.0, requires_grad=True)
# --8<-- [start:zero_-maths]
(x**2).backward()
print("before zero_():", x.grad)

x.grad.zero_()  # the trailing underscore: change this tensor in place
print("after zero_(): ", x.grad)
# --8<-- [end:zero_-maths]
# --8<-- [end:zero_]

# --8<-- [start:data]
# y = 2x: three examples the model should learn to fit (a new, small batch).
inputs = torch.tensor([[1.0], [2.0], [3.0]])
targets = torch.tensor([[2.0], [4.0], [6.0]])
# --8<-- [end:data]


# --8<-- [start:forgetting]
def train(clear_gradients: bool, epochs: int = 8) -> list[float]:
    torch.manual_seed(0)  # the same starting weights for both runs
    model = nn.Linear(1, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    losses = []
    for _ in range(epochs):
        if clear_gradients:
            optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(inputs), targets)
        loss.backward()
        optimizer.step()
        losses.append(float(f"{loss.item():.4g}"))  # 4 significant digits
    return losses


print("cleared each step:", train(clear_gradients=True))
print("never cleared:    ", train(clear_gradients=False))
# --8<-- [end:forgetting]


# --8<-- [start:history]
def history(clear_gradients: bool, step_count: int = 20) -> tuple[list[float], list[float]]:
    """The same run as train(), keeping the loss and the weight's .grad at every step."""
    torch.manual_seed(0)
    model = nn.Linear(1, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    losses, weight_grads = [], []
    for _ in range(step_count):
        if clear_gradients:
            optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(inputs), targets)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        weight_grads.append(model.weight.grad.item())  # what step() just used
    return losses, weight_grads


cleared_losses, cleared_grads = history(clear_gradients=True)
kept_losses, kept_grads = history(clear_gradients=False)
step_numbers = list(range(1, len(cleared_losses) + 1))  # the x axis of the plots below
# Never cleared, .grad is a running sum: each step's own gradient is the difference.
kept_fresh = [kept_grads[0]] + [
    kept_grads[k] - kept_grads[k - 1] for k in range(1, len(kept_grads))
]

print("weight.grad, steps 1-5, cleared:      ", [round(g, 2) for g in cleared_grads[:5]])
print("weight.grad, steps 1-5, never cleared:", [round(g, 2) for g in kept_grads[:5]])
print("never cleared, fresh gradient, steps 1-10:", [round(g, 2) for g in kept_fresh[:10]])
first_positive = next(i for i, g in enumerate(kept_fresh) if g > 0)
sum_positive = next(i for i, g in enumerate(kept_grads) if g > 0)
print(
    f"never cleared: first positive fresh gradient at step {first_positive + 1}, "
    f"first positive sum at step {sum_positive + 1}"
)
largest_sum = min(kept_grads)
print(
    f"never cleared: largest sum {largest_sum:.2f} at step {kept_grads.index(largest_sum) + 1}, "
    f"{largest_sum / kept_grads[0]:.2f} times the first gradient"
)
lowest = min(kept_losses)
lowest_step = kept_losses.index(lowest)
print(f"never cleared: lowest loss {lowest:.4g} at step {lowest_step + 1}")
highest_after = max(kept_losses[lowest_step:])
print(
    f"never cleared: then back up to {highest_after:.4g} at step "
    f"{kept_losses.index(highest_after) + 1} (step 1: {kept_losses[0]:.4g})"
)
print(f"never cleared: loss at step 20 {kept_losses[-1]:.4g}")
print(f"cleared:       loss at step 20 {cleared_losses[-1]:.4g}")
# --8<-- [end:history]

# --8<-- [start:zero_grad]
torch.manual_seed(0)
model = nn.Linear(1, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)

nn.functional.mse_loss(model(inputs), targets).backward()
print("before:", model.weight.grad, model.bias.grad)

optimizer.zero_grad()  # every parameter the optimizer holds
print("after: ", model.weight.grad, model.bias.grad)
# --8<-- [end:zero_grad]

# --8<-- [start:zero_grad_zeros]
nn.functional.mse_loss(model(inputs), targets).backward()
optimizer.zero_grad(set_to_none=False)  # keep the tensors, fill them with zeros
print("set_to_none=False:", model.weight.grad, model.bias.grad)
# --8<-- [end:zero_grad_zeros]


# --8<-- [start:none-or-zeros-with-adam]
def move_of_unused(set_to_none: bool) -> float:
    """Adam, two parameters; the second loss does not use b. How far does b move?"""
    a = torch.tensor(1.0, requires_grad=True)
    b = torch.tensor(1.0, requires_grad=True)
    optimizer = torch.optim.Adam([a, b], lr=0.1)
    (a * b).backward()  # step 1 uses both
    optimizer.step()
    optimizer.zero_grad(set_to_none=set_to_none)
    before = b.item()
    (a**2).backward()  # step 2 does not use b: backward() gives it no gradient
    optimizer.step()
    return b.item() - before


print(f"set_to_none=True:  b moved {move_of_unused(True):+.4f} in step 2")
print(f"set_to_none=False: b moved {move_of_unused(False):+.4f} in step 2")
# --8<-- [end:none-or-zeros-with-adam]

# --8<-- [start:wrong_order]
torch.manual_seed(0)
model = nn.Linear(1, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
print(f"weight before: {model.weight.item():.4f}")

loss = nn.functional.mse_loss(model(inputs), targets)
loss.backward()
optimizer.zero_grad()  # wrong place: wipes the gradient backward() just computed
optimizer.step()  # nothing to apply
print(f"weight after:  {model.weight.item():.4f}")
# --8<-- [end:wrong_order]


# --8<-- [start:clear-last]
def losses_clearing(at: str) -> list[float]:
    """Five iterations of plain SGD that clear the gradients at the start or at the end."""
    torch.manual_seed(0)  # the same starting weights for both runs
    model = nn.Linear(1, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    losses = []
    for _ in range(5):
        if at == "start":
            optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(inputs), targets)
        loss.backward()
        optimizer.step()
        if at == "end":
            optimizer.zero_grad()  # after step(): the gradients have been used
        losses.append(float(f"{loss.item():.4g}"))  # 4 significant digits
    return losses


print("zero_grad() first:", losses_clearing("start"))
print("zero_grad() last: ", losses_clearing("end"))
# --8<-- [end:clear-last]

# --8<-- [start:training]
torch.manual_seed(0)  # reproducible starting weights
model = nn.Linear(1, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
loss_fn = nn.MSELoss()

for epoch in range(1, 6):
    optimizer.zero_grad()  # 1. clear last epoch's gradients
    prediction = model(inputs)  # 2. forward pass
    loss = loss_fn(prediction, targets)  # 3. loss
    loss.backward()  # 4. gradients into .grad
    optimizer.step()  # 5. update the parameters
    print(f"epoch {epoch}: loss = {loss.item():.4g}")

print(f"w = {model.weight.item():.4f}, b = {model.bias.item():.4f}")
# --8<-- [end:training]

"""Examples for the chapter "Backpropagation and the training loop".

Each region is included by docs/chapters/training-loop.md.

A region named ``<name>-maths`` lies inside region ``<name>`` and holds its computation
without the input the page gives it, so that tests/maths can run the page's own code on
inputs of its own. The page never shows these markers.
"""

# --8<-- [start:setup]
import torch
from torch import nn

torch.manual_seed(0)  # same weights and data on every run

model = nn.Linear(10, 1)  # 10 input features -> 1 prediction
# A batch of 4 examples. requires_grad only so that we can also read dLoss/dInput
# below; training data does not normally need it.
inputs = torch.randn(4, 10, requires_grad=True)
targets = torch.randn(4, 1)  # one target per example

for name, param in model.named_parameters():
    shape = tuple(param.shape)
    print(name, shape, "leaf:", param.is_leaf, "requires_grad:", param.requires_grad)
# --8<-- [end:setup]

# --8<-- [start:conv]
torch.manual_seed(0)
# 3 input channels (red, green, blue) -> 8 output channels, with 3 x 3 filters.
conv = nn.Conv2d(in_channels=3, out_channels=8, kernel_size=3)

for name, param in conv.named_parameters():
    shape = tuple(param.shape)
    print(name, shape, "leaf:", param.is_leaf, "requires_grad:", param.requires_grad)
# --8<-- [end:conv]

# --8<-- [start:forward]
prediction = model(inputs)  # forward pass: inputs @ W.T + b
loss = ((prediction - targets) ** 2).mean()  # mean squared error, a single number

print("prediction shape:", tuple(prediction.shape))
print("loss:", round(loss.item(), 4))
print("weight.grad before backward:", model.weight.grad)
# --8<-- [end:forward]

# --8<-- [start:backward]
loss.backward()  # backward pass: dLoss/dParameter for every parameter

print("weight.grad shape:", tuple(model.weight.grad.shape))
print("bias.grad shape:  ", tuple(model.bias.grad.shape))
print("inputs.grad shape:", tuple(inputs.grad.shape))
print("bias.grad:", model.bias.grad)
print("prediction is a leaf:", prediction.is_leaf)  # a recorded operation made it
# --8<-- [end:backward]

# --8<-- [start:sensitivity]
# A gradient predicts how the loss moves when one parameter is nudged a little.
delta = 0.001  # δ, the size of the nudge
# --8<-- [start:sensitivity-maths]
nudged_prediction = inputs @ model.weight.T + (model.bias + delta)
nudged_loss = ((nudged_prediction - targets) ** 2).mean()

print(f"predicted change: {model.bias.grad.item() * delta:.6f}")
print(f"actual change:    {nudged_loss.item() - loss.item():.6f}")
# --8<-- [end:sensitivity-maths]
# --8<-- [end:sensitivity]

# --8<-- [start:loss-against-bias]
# The loss for other values of the bias, everything else unchanged.
shifts = torch.linspace(-1, 1, 21)
bias_losses = []
with torch.no_grad():  # only looking: these forward passes need no graph
    for h in shifts:
        shifted_prediction = inputs @ model.weight.T + (model.bias + h)
        bias_losses.append(((shifted_prediction - targets) ** 2).mean().item())
bias_now, slope = model.bias.item(), model.bias.grad.item()
biases = (bias_now + shifts).tolist()
# The straight line through (bias, loss) whose slope is bias.grad, one unit either side.
line_biases = [bias_now - 1, bias_now + 1]
line_losses = [loss.item() - slope, loss.item() + slope]

print(f"bias {bias_now:.4f}, loss {loss.item():.4f}, bias.grad {slope:.4f}")
print(f"one unit to the left:  loss {bias_losses[0]:.4f}, line {line_losses[0]:.4f}")
print(f"one unit to the right: loss {bias_losses[-1]:.4f}, line {line_losses[1]:.4f}")
print(f"the curve is lowest at a shift of -bias.grad / 2 = {-slope / 2:.4f}")
# One step of the loop below (learning rate 0.1) moves the bias by 0.1 * -bias.grad.
sgd_step = 0.1 * -slope
print(
    f"one SGD step with lr 0.1 moves it {sgd_step:.4f}: "
    f"{sgd_step / (-slope / 2):.2f} of the way to the lowest point"
)
# --8<-- [end:loss-against-bias]

# --8<-- [start:loop]
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

for step in range(5):
    optimizer.zero_grad()  # 1. clear the gradients of the previous step
    prediction = model(inputs)  # 2. forward pass
    loss = ((prediction - targets) ** 2).mean()  # 3. loss
    loss.backward()  # 4. backward pass: fills .grad
    optimizer.step()  # 5. update every parameter from its .grad
    print(f"step {step}: loss {loss.item():.4f}")
# --8<-- [end:loop]

# --8<-- [start:step-rule]
# What SGD's step did to the bias: new value = old value - lr * gradient.
old_bias = model.bias.item()
optimizer.zero_grad()
loss = ((model(inputs) - targets) ** 2).mean()
loss.backward()
optimizer.step()

print(f"old bias {old_bias:.6f}, gradient {model.bias.grad.item():.6f}")
print(f"old - 0.1 * gradient = {old_bias - 0.1 * model.bias.grad.item():.6f}")
print(f"bias after step()    = {model.bias.item():.6f}")
# --8<-- [end:step-rule]

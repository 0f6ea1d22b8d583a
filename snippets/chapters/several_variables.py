"""Chapter 4, several variables: one backward() pass fills the .grad of every leaf.

A region named ``<name>-maths`` lies inside region ``<name>`` and holds its computation
without the input the page gives it, so that tests/maths can run the page's own code on
inputs of its own. The page never shows these markers.
"""

# --8<-- [start:product]
import torch

x = torch.tensor(2.0, requires_grad=True)
y = torch.tensor(3.0, requires_grad=True)
# --8<-- [start:product-maths]
z = x * y

z.backward()  # one call, and both leaves get their gradient
print("z      =", z)
print("x.grad =", x.grad)
print("y.grad =", y.grad)
# --8<-- [end:product-maths]
# --8<-- [end:product]

# --8<-- [start:linear]
x = torch.tensor(2.0, requires_grad=True)
w = torch.tensor(3.0, requires_grad=True)
b = torch.tensor(1.0, requires_grad=True)

# --8<-- [start:linear-maths]
y = x * w + b
loss = y**2
loss.backward()

print("y      =", y)
print("loss   =", loss)
print("x.grad =", x.grad)
print("w.grad =", w.grad)
print("b.grad =", b.grad)
# --8<-- [end:linear-maths]
# --8<-- [end:linear]

# --8<-- [start:by_hand]
# The hand-derived formulas, evaluated with plain Python floats: no autograd involved.
y_value = x.item() * w.item() + b.item()
print("2y·w =", 2 * y_value * w.item())
print("2y·x =", 2 * y_value * x.item())
print("2y   =", 2 * y_value)
# --8<-- [end:by_hand]

# --8<-- [start:layer]
layer = torch.nn.Linear(1, 1)  # y = x·w + b, with w and b stored as parameters
with torch.no_grad():  # set the parameters to the values used above, unrecorded
    layer.weight.fill_(3.0)  # fill_: overwrite every element with 3.0, in place
    layer.bias.fill_(1.0)

inputs = torch.tensor([[2.0]])  # one example with one feature: shape (1, 1)
# --8<-- [start:layer-maths]
loss = layer(inputs) ** 2
print("loss =", loss)  # shape (1, 1): one element, so backward() needs no argument
loss.backward()

print("weight is a leaf:", layer.weight.is_leaf)
print("weight.grad =", layer.weight.grad)
print("bias.grad   =", layer.bias.grad)
# --8<-- [end:layer-maths]
# --8<-- [end:layer]

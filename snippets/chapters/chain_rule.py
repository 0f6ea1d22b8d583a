"""Examples for the chapter "The chain rule" (docs/chapters/chain-rule.md).

A region named ``<name>-maths`` lies inside region ``<name>`` and holds its computation
without the input the page gives it, so that tests/maths can run the page's own code on
inputs of its own. The page never shows these markers.
"""

# --8<-- [start:composite]
import torch

x = torch.tensor(2.0, requires_grad=True)
# --8<-- [start:composite-maths]
u = 3 * x + 4  # inner function
y = u**2  # outer function
y.backward()
# --8<-- [end:composite-maths]

print("u =", u)
print("y =", y)
print("dy/dx from autograd:", x.grad)
# --8<-- [end:composite]


# --8<-- [start:formula]
def dy_dx(x: float) -> float:
    """The hand derivative of (3x + 4)**2."""
    return 6 * (3 * x + 4)


print("dy/dx from the formula:", dy_dx(2.0))
# --8<-- [end:formula]

# --8<-- [start:many-points]
for value in [-2.0, -1.0, 0.0, 0.5, 3.0]:
    # --8<-- [start:many-points-maths]
    x = torch.tensor(value, requires_grad=True)
    y = (3 * x + 4) ** 2
    y.backward()
    # --8<-- [end:many-points-maths]
    print(f"x = {value:5}: autograd {x.grad.item():7}, formula {dy_dx(value):7}")
# --8<-- [end:many-points]

# --8<-- [start:tangent]
x = torch.tensor(2.0, requires_grad=True)
# --8<-- [start:tangent-maths]
y = (3 * x + 4) ** 2
y.backward()
slope = x.grad.item()  # dy/dx at x = 2: how steep the curve is there
# --8<-- [end:tangent-maths]

# The curve for 0 <= x <= 4, and the straight line through (2, y) with that slope.
xs = torch.linspace(0, 4, 17)
curve = (3 * xs + 4) ** 2
tangent_xs = torch.tensor([1.0, 3.0])
tangent = y.item() + slope * (tangent_xs - 2)

print(f"at x = 2: y = {y.item()}, slope from x.grad = {slope}")
for value in [1.0, 1.5, 2.5, 3.0]:
    on_curve = (3 * value + 4) ** 2
    on_line = y.item() + slope * (value - 2)
    print(f"x = {value}: curve {on_curve:6}, tangent {on_line:6}, gap {on_curve - on_line}")
# --8<-- [end:tangent]

# --8<-- [start:graph]
x = torch.tensor(2.0, requires_grad=True)
# --8<-- [start:graph-maths]
y = x * 3
z = y + 4
loss = z**2
# --8<-- [end:graph-maths]

for name, tensor in [("y", y), ("z", z), ("loss", loss)]:
    print(f"{name:>4} = {tensor.item():5}  made by {tensor.grad_fn.name()}")
# --8<-- [end:graph]

# --8<-- [start:node-by-node]
# Each grad_fn node takes the gradient arriving from above and multiplies it by
# its own local derivative. Call the nodes by hand, from the output down.
grad_z = loss.grad_fn(torch.tensor(1.0))  # PowBackward0: 1 * 2z
grad_y, grad_4 = z.grad_fn(grad_z)  # AddBackward0: * 1, and a place for the constant 4
grad_x, grad_3 = y.grad_fn(grad_y)  # MulBackward0: * 3, and a place for the constant 3

print("dloss/dz =", grad_z.item())
print("dloss/dy =", grad_y.item())
print("dloss/dx =", grad_x.item())
print("for the constants 4 and 3:", grad_4, grad_3)
# --8<-- [end:node-by-node]

# --8<-- [start:backward]
loss.backward()  # the same walk, done by autograd, ending in x.grad

print("x.grad:", x.grad)
# --8<-- [end:backward]

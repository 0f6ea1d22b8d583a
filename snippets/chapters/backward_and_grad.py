"""Examples for the chapter "backward() and .grad" (docs/chapters/backward-and-grad.md).

A region named ``<name>-maths`` lies inside region ``<name>`` and holds its computation
without the input the page gives it, so that tests/maths can run the page's own code on
inputs of its own. The page never shows these markers.
"""

# --8<-- [start:first]
import torch

x = torch.tensor(2.0, requires_grad=True)
# --8<-- [start:first-maths]
y = x**2
y.backward()  # dy/dx, stored in x.grad

print(x.grad)
# --8<-- [end:first-maths]
# --8<-- [end:first]

# --8<-- [start:start-point]
x = torch.tensor(2.0, requires_grad=True)
# --8<-- [start:start-point-z-maths]
y = x**2
z = 3 * y

print("z is a scalar:", z.dim() == 0)
print("z.backward() returns:", z.backward())  # nothing: the result lands in x.grad
print("starting at z, x.grad =", x.grad)  # dz/dx = 3 * 2x
# --8<-- [end:start-point-z-maths]

x = torch.tensor(2.0, requires_grad=True)
# --8<-- [start:start-point-y-maths]
y = x**2
z = 3 * y
y.backward()  # start one step earlier: z plays no part
print("starting at y, x.grad =", x.grad)  # dy/dx = 2x
# --8<-- [end:start-point-y-maths]
# --8<-- [end:start-point]

# --8<-- [start:linear]
x = torch.tensor(5.0, requires_grad=True)
# --8<-- [start:linear-maths]
y = 4 * x
y.backward()

print(x.grad)
# --8<-- [end:linear-maths]
# --8<-- [end:linear]

# --8<-- [start:cubic]
x = torch.tensor(3.0, requires_grad=True)
# --8<-- [start:cubic-maths]
y = x**3
y.backward()

print(x.grad)
# --8<-- [end:cubic-maths]
# --8<-- [end:cubic]

# --8<-- [start:grad-attribute]
x = torch.tensor(4.0, requires_grad=True)
# --8<-- [start:grad-attribute-maths]
print("leaf:", x.is_leaf, "| requires_grad:", x.requires_grad)
print("before backward():", x.grad)

y = x**2
y.backward()
print("after backward(): ", x.grad)
# --8<-- [end:grad-attribute-maths]
# --8<-- [end:grad-attribute]

# --8<-- [start:accumulated]
y = x**2  # a new graph from the same leaf
y.backward()  # adds 2x = 8 to what x.grad already holds

print("after a second backward():", x.grad)
# --8<-- [end:accumulated]

# --8<-- [start:non-leaf-none]
w = torch.tensor(2.0, requires_grad=True)
h = w * 3  # not a leaf: a recorded operation made it (h has a grad_fn)
(h**2).backward()
print("w.grad:", w.grad)  # the pass reached w, and the only way to w is through h
print("h.grad:", h.grad)  # None all the same: only leaves keep their gradient
# --8<-- [end:non-leaf-none]

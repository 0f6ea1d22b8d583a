"""Interview: How does autograd handle if statements and loops?

docs/interview/how-does-autograd-handle-if-statements-and-loops.md
"""

# --8<-- [start:branch]
import torch

w_pos = torch.tensor(3.0, requires_grad=True)
w_neg = torch.tensor(0.5, requires_grad=True)


def f(x):
    if x > 0:  # Python reads the value; autograd records nothing here
        return w_pos * x
    return (w_neg * x) ** 2


y = f(torch.tensor(2.0))
y.backward()
print("recorded:", y.grad_fn.name())
print("w_pos.grad:", w_pos.grad, "| w_neg.grad:", w_neg.grad)
# --8<-- [end:branch]

# --8<-- [start:loop]
w = torch.tensor(2.0, requires_grad=True)


def grow(x):
    y = x
    while y < 10:  # the number of passes depends on the data
        y = y * w
    return y


for x_value in [3.0, 1.0]:
    w.grad = None
    y = grow(torch.tensor(x_value))
    y.backward()
    print(f"x = {x_value}: y = {y.item()}, w.grad = {w.grad.item()}")
# --8<-- [end:loop]

# --8<-- [start:where]
w_pos = torch.tensor(3.0, requires_grad=True)
w_neg = torch.tensor(0.5, requires_grad=True)
x = torch.tensor(2.0)
# --8<-- [start:where-maths]

y = torch.where(x > 0, w_pos * x, (w_neg * x) ** 2)  # both branches are computed
y.backward()
print("recorded:", y.grad_fn.name())
print("w_pos.grad:", w_pos.grad, "| w_neg.grad:", w_neg.grad)
# --8<-- [end:where-maths]
# --8<-- [end:where]

# --8<-- [start:where-nan]
x = torch.tensor([-1.0, 4.0], requires_grad=True)
y = torch.where(x > 0, x.sqrt(), 0.0)  # sqrt(-1) is NaN, but where picks 0 there
y.sum().backward()
print("y:", y.tolist(), "| x.grad:", x.grad)  # d sqrt(x)/dx at 4 is 1/(2 * 2) = 0.25

x.grad = None
# --8<-- [start:where-nan-maths]
harmless = torch.where(x > 0, x, 1.0)  # where x <= 0, sqrt gets 1: finite value and slope
safe = torch.where(x > 0, harmless.sqrt(), 0.0)
safe.sum().backward()
print("a safe input first:", safe.tolist(), "| x.grad:", x.grad)
# --8<-- [end:where-nan-maths]
# --8<-- [end:where-nan]

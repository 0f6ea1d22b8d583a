"""Interview: What does backward() do? (docs/interview/what-does-backward-do.md)"""

# --8<-- [start:first]
import torch

x = torch.tensor(2.0, requires_grad=True)
y = x**2

print("x.grad before:", x.grad)
returned = y.backward()
print("backward() returned:", returned)
print("x.grad after: ", x.grad)  # dy/dx = 2x = 4
# --8<-- [end:first]

# --8<-- [start:more]
for value, f, rule in [
    (5.0, lambda t: 4 * t, "4"),
    (3.0, lambda t: t**3, "3x² = 27"),
]:
    x = torch.tensor(value, requires_grad=True)
    f(x).backward()
    print(f"x = {value}: x.grad = {x.grad.item()}   (by hand: {rule})")
# --8<-- [end:more]

# --8<-- [start:explicit-one]
x = torch.tensor(2.0, requires_grad=True)
y = x**2
y.backward(torch.tensor(1.0))  # what y.backward() does for a scalar y
print("with an explicit 1:", x.grad)
# --8<-- [end:explicit-one]

# --8<-- [start:adds]
z = x**2  # a new graph from the same leaf
z.backward()
print("after a second graph:", x.grad)  # 4 + 4: added, not replaced
# --8<-- [end:adds]

# --8<-- [start:nothing-saved]
v = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
total = v.sum()  # SumBackward0 saves no tensor
total.backward()
total.backward()  # the same graph again: no error
print("v.grad after two passes:", v.grad)  # 1 + 1 for every element
# --8<-- [end:nothing-saved]

# --8<-- [start:freed-early]
u = torch.tensor(2.0, requires_grad=True)
w = (u**2).exp()  # ExpBackward0 saves its result, PowBackward0 saves u
exp_node = w.grad_fn
square_node = exp_node.next_functions[0][0]


def state(read):
    try:
        read()
        return "alive"
    except RuntimeError:  # reading a freed saved value raises
        return "freed"


def before_square(grad_outputs):
    # Runs after the exp node, just before the squaring node.
    print("just before the squaring node runs:")
    print("  the exp node's saved result:", state(lambda: exp_node._saved_result))
    print("  the squaring node's saved u:", state(lambda: square_node._saved_self))


square_node.register_prehook(before_square)
w.backward()
print("after backward():")
print("  the squaring node's saved u:", state(lambda: square_node._saved_self))
# --8<-- [end:freed-early]

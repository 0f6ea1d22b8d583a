"""Part 1, chapter 4: a new graph on every run.

Each region is included by docs/graph/dynamic-graphs.md. The file also runs top to
bottom on its own: `python snippets/graph/dynamic_graphs.py`. The call that fails on
purpose lives in the page, in a `raises=` block.
"""

# --8<-- [start:anew]
import torch

w = torch.tensor(2.0, requires_grad=True)


def model(x):
    return w * x + 1


first = model(torch.tensor(1.0))
second = model(torch.tensor(1.0))  # the same code, the same input


def below(node):
    """The node that made the first input of node."""
    return node.next_functions[0][0]


print("first: ", first.grad_fn.name(), "<-", below(first.grad_fn).name())
print("second:", second.grad_fn.name(), "<-", below(second.grad_fn).name())
print("the same AddBackward0:  ", first.grad_fn is second.grad_fn)
print("the same MulBackward0:  ", below(first.grad_fn) is below(second.grad_fn))
print("the same AccumulateGrad:", below(below(first.grad_fn)) is below(below(second.grad_fn)))
# --8<-- [end:anew]

# --8<-- [start:branch]
w_pos = torch.tensor(3.0, requires_grad=True)  # used when x > 0
w_neg = torch.tensor(0.5, requires_grad=True)  # used otherwise


def f(x):
    if x > 0:  # plain Python: it reads x's value and picks one branch
        return w_pos * x
    return (w_neg * x) ** 2


def path(y):
    """The operations recorded for y, from y down (following the first input)."""
    names, node = [], y.grad_fn
    while node is not None and not hasattr(node, "variable"):
        names.append(node.name())
        node = node.next_functions[0][0]
    return " <- ".join(names)


# --8<-- [end:branch]

# --8<-- [start:run-positive]
y_pos = f(torch.tensor(2.0))
y_pos.backward()

print("y =", y_pos.item(), "| recorded:", path(y_pos))
print("w_pos.grad:", w_pos.grad)
print("w_neg.grad:", w_neg.grad)
# --8<-- [end:run-positive]

# --8<-- [start:run-negative]
w_pos.grad = None  # forget the first run's gradient (chapter 5 of Part 2)

y_neg = f(torch.tensor(-4.0))
y_neg.backward()

print("y =", y_neg.item(), "| recorded:", path(y_neg))
print("w_pos.grad:", w_pos.grad)
print("w_neg.grad:", w_neg.grad)
# --8<-- [end:run-negative]

# --8<-- [start:loop]
w = torch.tensor(2.0, requires_grad=True)


def grow(x):
    """Multiply by w until the value reaches 10: how often depends on x."""
    y = x
    while y < 10:
        y = y * w
    return y


def multiplications(y):
    """How many multiplications the graph of y recorded, one after the other."""
    count, node = 0, y.grad_fn
    while node is not None:
        count += 1
        node = node.next_functions[0][0]  # the previous y (None for the input x)
    return count


for x_value in [3.0, 1.0]:
    w.grad = None  # start each run without a gradient
    y = grow(torch.tensor(x_value))
    n = multiplications(y)
    y.backward()
    by_hand = n * x_value * w.item() ** (n - 1)  # dy/dw = n x w^(n-1)
    print(
        f"x = {x_value}: {n} multiplications, y = {y.item()}, w.grad = {w.grad.item()}, "
        f"by hand {by_hand}"
    )
# --8<-- [end:loop]

# --8<-- [start:no-loop]
big = grow(torch.tensor(20.0))  # already 10 or more: the loop body never runs

print("requires_grad:", big.requires_grad, "| grad_fn:", big.grad_fn)
# --8<-- [end:no-loop]

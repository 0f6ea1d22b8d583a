"""Interview: What is a computational graph? (docs/interview/what-is-a-computational-graph.md)"""

# --8<-- [start:record]
import torch

x = torch.tensor(2.0)  # an input
w = torch.tensor(3.0, requires_grad=True)  # a weight
b = torch.tensor(1.0, requires_grad=True)  # a bias
loss = (w * x + b) ** 2  # three operations: *, +, **


def show(node, depth=0, seen=None):
    """Print a node, then the nodes of its inputs, indented, each node once."""
    seen = [] if seen is None else seen
    if node is None:  # an input that needs no gradient
        print("    " * depth + "None")
        return
    if any(node is earlier for earlier in seen):
        print("    " * depth + type(node).__name__ + "  (the same node as above)")
        return
    seen.append(node)
    print("    " * depth + type(node).__name__)
    for child, _ in node.next_functions:
        show(child, depth + 1, seen)


show(loss.grad_fn)

again = (w * x + b) ** 2  # the same forward pass, run a second time
print("a new graph on every run:", again.grad_fn is not loss.grad_fn)
# --8<-- [end:record]

# --8<-- [start:walk]
loss.backward()  # walks the graph above from the top, with the chain rule
print("w.grad:", w.grad)  # 2(wx + b) * x = 2 * 7 * 2 = 28
print("b.grad:", b.grad)  # 2(wx + b) * 1 = 14
# --8<-- [end:walk]

# --8<-- [start:shared]
v = torch.tensor(3.0, requires_grad=True)
h = v * x  # one intermediate result...
total = h * h + h  # ...used by three inputs of two operations

show(total.grad_fn)
total.backward()
print("v.grad:", v.grad)  # (2h + 1) * x = 13 * 2 = 26: every path adds its share
# --8<-- [end:shared]

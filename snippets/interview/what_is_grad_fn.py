"""Interview: What is grad_fn? (docs/interview/what-is-grad-fn.md)"""

# --8<-- [start:names]
import torch

w = torch.tensor(3.0, requires_grad=True)
u = w * 2
y = u + 1
loss = y**2

for name, t in [("w", w), ("u", u), ("y", y), ("loss", loss)]:
    print(f"{name:4} grad_fn: {t.grad_fn.name() if t.grad_fn is not None else None}")
# --8<-- [end:names]

# --8<-- [start:links]
node = loss.grad_fn
while node is not None:
    inputs = [None if n is None else type(n).__name__ for n, _ in node.next_functions]
    print(f"{type(node).__name__:15} -> {inputs}")
    node = node.next_functions[0][0] if node.next_functions else None

leaf_node = u.grad_fn.next_functions[0][0]
print("the AccumulateGrad node holds w itself:", leaf_node.variable is w)
# --8<-- [end:links]

# --8<-- [start:call]
# A node is a function: given the gradient of its output, it returns the gradients
# for its inputs. PowBackward0 multiplies by its local derivative 2y = 2 * 7 = 14.
print("loss.grad_fn(1.0):", loss.grad_fn(torch.tensor(1.0)).item())
# --8<-- [end:call]

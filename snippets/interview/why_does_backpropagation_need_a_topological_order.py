"""Interview: Why does backpropagation need a topological order?
(docs/interview/why-does-backpropagation-need-a-topological-order.md)"""

# --8<-- [start:pytorch-order]
from collections.abc import Callable

import torch

x = torch.tensor(2.0, requires_grad=True)
u = 3 * x
m = u * u
loss = u + m  # u is used twice: by the addition and by m


def announce(label: str) -> Callable[[tuple[torch.Tensor, ...]], None]:
    def prehook(grad_outputs: tuple[torch.Tensor, ...]) -> None:
        print(f"{label:<16} runs with the gradient {grad_outputs[0]!r}")

    return prehook


accumulate_x = u.grad_fn.next_functions[0][0]  # the AccumulateGrad node of x
for node, label in [
    (loss.grad_fn, "loss = u + m"),
    (m.grad_fn, "m = u * u"),
    (u.grad_fn, "u = 3 * x"),
    (accumulate_x, "AccumulateGrad x"),
]:
    node.register_prehook(announce(label))  # runs just before the node itself
loss.backward()
print("x.grad =", x.grad)
# --8<-- [end:pytorch-order]

# --8<-- [start:by-hand]
U = 3 * 2.0  # the forward value of u at x = 2


def walk(order: list[str]) -> dict[str, float]:
    """The backward pass of loss = u + m, m = u * u, u = 3x, in the order given."""
    grad = {"loss": 1.0, "m": 0.0, "u": 0.0, "x": 0.0}
    for node in order:
        if node == "loss":  # loss = u + m: local derivative 1 for each input
            grad["u"] += grad["loss"]
            grad["m"] += grad["loss"]
        elif node == "m":  # m = u * u: local derivative 2u
            grad["u"] += 2 * U * grad["m"]
        elif node == "u":  # u = 3x: local derivative 3
            grad["x"] += 3 * grad["u"]
    return grad


print("loss, m, u (each node after all its consumers):", walk(["loss", "m", "u"]))
print("loss, u, m (u before one of its consumers):    ", walk(["loss", "u", "m"]))
# --8<-- [end:by-hand]

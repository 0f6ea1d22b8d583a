"""Examples for the page "Backprop by hand".

Each region is included by docs/chapters/backprop-by-hand.md. Run the whole file with
`python snippets/chapters/backprop_by_hand.py`. The hand-written backward passes are
plain Python functions (no autograd at all) at the top level, so that
tests/maths/test_backprop_by_hand.py can import them; the printing demos run only when
the file is run as a script.

A region named ``<name>-maths`` lies inside region ``<name>`` and holds its computation
without the input the page gives it, so that tests/maths can run the page's own code on
inputs of its own. The page never shows these markers.
"""

# --8<-- [start:imports]
import torch

# --8<-- [end:imports]


# --8<-- [start:chain-by-hand]
def chain_by_hand(x: float) -> tuple[dict[str, float], dict[str, float]]:
    """Forward and backward pass of loss = (3x + 4)**2, one node at a time.

    Returns the value of every node and d(loss)/d(node) for every node.
    """
    # Forward: compute and remember every node's value.
    y = x * 3
    z = y + 4
    loss = z**2

    # Backward: start from d(loss)/d(loss) = 1 and, node by node, multiply the
    # gradient arriving from above by the node's local derivative.
    grad_loss = 1.0
    grad_z = grad_loss * (2 * z)  # loss = z**2, local derivative 2z
    grad_y = grad_z * 1.0  # z = y + 4, local derivative 1
    grad_x = grad_y * 3.0  # y = x * 3, local derivative 3

    values = {"x": x, "y": y, "z": z, "loss": loss}
    grads = {"loss": grad_loss, "z": grad_z, "y": grad_y, "x": grad_x}
    return values, grads


# --8<-- [end:chain-by-hand]


# --8<-- [start:linear-by-hand]
def linear_by_hand(
    x: float,
    w: float,
    b: float,
) -> tuple[dict[str, float], dict[str, float]]:
    """Forward and backward pass of loss = (x*w + b)**2, one node at a time."""
    # Forward.
    p = x * w  # the product, a node of its own
    y = p + b
    loss = y**2

    # Backward.
    grad_loss = 1.0
    grad_y = grad_loss * (2 * y)  # loss = y**2, local derivative 2y
    grad_p = grad_y * 1.0  # y = p + b: local derivative 1 towards p ...
    grad_b = grad_y * 1.0  # ... and 1 towards b
    grad_x = grad_p * w  # p = x * w: local derivative w towards x ...
    grad_w = grad_p * x  # ... and x towards w

    values = {"x": x, "w": w, "b": b, "p": p, "y": y, "loss": loss}
    grads = {
        "loss": grad_loss,
        "y": grad_y,
        "p": grad_p,
        "b": grad_b,
        "x": grad_x,
        "w": grad_w,
    }
    return values, grads


# --8<-- [end:linear-by-hand]


# --8<-- [start:show]
def show(values: dict[str, float], grads: dict[str, float]) -> None:
    """Print a forward pass (inputs first) and a backward pass (output first)."""
    print("forward pass:")
    for name, value in values.items():
        print(f"  {name:>4} = {value}")
    print("backward pass:")
    for name, grad in grads.items():
        print(f"  dloss/d{name:<4} = {grad}")


# --8<-- [end:show]


if __name__ == "__main__":
    # --8<-- [start:chain-forward]
    x = torch.tensor(2.0, requires_grad=True)
    # --8<-- [start:chain-forward-maths]
    y = x * 3
    z = y + 4
    loss = z**2

    for name, node in [("y", y), ("z", z), ("loss", loss)]:
        print(f"{name:>4} = {node.item():5}  recorded as {node.grad_fn.name()}")
    # --8<-- [end:chain-forward-maths]
    # --8<-- [end:chain-forward]

    # --8<-- [start:chain-run]
    values, grads = chain_by_hand(2.0)
    show(values, grads)
    # --8<-- [end:chain-run]

    # --8<-- [start:chain-autograd]
    for node in (y, z, loss):
        node.retain_grad()  # keep the intermediate gradients too, to compare every node
    loss.backward()

    for name, node in [("loss", loss), ("z", z), ("y", y), ("x", x)]:
        agree = torch.allclose(node.grad, torch.tensor(grads[name]))
        by_hand, by_autograd = grads[name], node.grad.item()
        print(f"dloss/d{name:<4} by hand {by_hand:5}  autograd {by_autograd:5}  {agree}")
    # --8<-- [end:chain-autograd]

    # --8<-- [start:linear-forward]
    x = torch.tensor(2.0, requires_grad=True)
    w = torch.tensor(3.0, requires_grad=True)
    b = torch.tensor(1.0, requires_grad=True)
    # --8<-- [start:linear-forward-maths]
    p = x * w
    y = p + b
    loss = y**2

    for name, node in [("p", p), ("y", y), ("loss", loss)]:
        print(f"{name:>4} = {node.item():5}  recorded as {node.grad_fn.name()}")
    # --8<-- [end:linear-forward-maths]
    # --8<-- [end:linear-forward]

    # --8<-- [start:what-mul-saves]
    node = p.grad_fn  # p = x * w, with x and w both requiring grad
    print(node.name(), "saved x:", node._saved_self, " saved w:", node._saved_other)
    data = torch.tensor(2.0)  # the same 2, as data that needs no gradient
    node = (data * w).grad_fn
    print(node.name(), "saved x:", node._saved_self, " saved w:", node._saved_other)
    # --8<-- [end:what-mul-saves]

    # --8<-- [start:linear-run]
    values, grads = linear_by_hand(2.0, 3.0, 1.0)
    show(values, grads)
    # --8<-- [end:linear-run]

    # --8<-- [start:linear-autograd]
    for node in (p, y, loss):
        node.retain_grad()
    loss.backward()

    for name, node in [("loss", loss), ("y", y), ("p", p), ("b", b), ("x", x), ("w", w)]:
        agree = torch.allclose(node.grad, torch.tensor(grads[name]))
        by_hand, by_autograd = grads[name], node.grad.item()
        print(f"dloss/d{name:<4} by hand {by_hand:5}  autograd {by_autograd:5}  {agree}")
    # --8<-- [end:linear-autograd]

    # --8<-- [start:autograd-grad]
    # torch.autograd.grad returns the gradients instead of adding them to .grad.
    loss = (x * w + b) ** 2  # a fresh graph: backward() above freed the old one
    grad_x, grad_w, grad_b = torch.autograd.grad(loss, (x, w, b))
    print("torch.autograd.grad:", grad_x, grad_w, grad_b)
    print(".grad left as it was:", x.grad, w.grad, b.grad)
    # --8<-- [end:autograd-grad]

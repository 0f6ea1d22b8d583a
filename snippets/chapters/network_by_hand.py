"""Examples for the page "A small network by hand".

Each region is included by docs/chapters/network-by-hand.md. Run the whole file with
`python snippets/chapters/network_by_hand.py`. The network (`make_network`,
`forward`) and the hand-written backward pass (`backward_by_hand`, plain tensor
operations, no autograd) are functions at the top level, so that
tests/maths/test_network_by_hand.py can import them; the printing demos run only when
the file is run as a script.
"""

# --8<-- [start:imports]
from typing import Any

import torch
import torch.nn.functional as F

# --8<-- [end:imports]


# --8<-- [start:make-network]
def make_network(
    seed: int = 0,
    n: int = 4,
    d: int = 3,
    hidden: int = 5,
    classes: int = 3,
    dtype: torch.dtype = torch.float32,
) -> dict[str, torch.Tensor]:
    """A batch of n examples with d inputs, integer targets, and the four parameters."""
    generator = torch.Generator().manual_seed(seed)
    return {
        "X": torch.randn(n, d, generator=generator, dtype=dtype),
        "targets": torch.randint(0, classes, (n,), generator=generator),
        "W1": torch.randn(d, hidden, generator=generator, dtype=dtype),
        "b1": torch.randn(hidden, generator=generator, dtype=dtype),
        "W2": torch.randn(hidden, classes, generator=generator, dtype=dtype),
        "b2": torch.randn(classes, generator=generator, dtype=dtype),
    }


# --8<-- [end:make-network]


# --8<-- [start:forward]
def forward(
    X: torch.Tensor,
    targets: torch.Tensor,
    W1: torch.Tensor,
    b1: torch.Tensor,
    W2: torch.Tensor,
    b2: torch.Tensor,
) -> dict[str, torch.Tensor]:
    """The forward pass; returns every intermediate tensor, the loss last."""
    z1 = X @ W1 + b1  # (N, m) the hidden layer before tanh
    h = torch.tanh(z1)  # (N, m) the hidden activations
    logits = h @ W2 + b2  # (N, C) one score per class
    loss = F.cross_entropy(logits, targets)  # a scalar: the mean over the batch
    return {"z1": z1, "h": h, "logits": logits, "loss": loss}


# --8<-- [end:forward]


# --8<-- [start:backward-by-hand]
def backward_by_hand(
    X: torch.Tensor,
    targets: torch.Tensor,
    W1: torch.Tensor,
    b1: torch.Tensor,
    W2: torch.Tensor,
    b2: torch.Tensor,
) -> dict[str, torch.Tensor]:
    """Every gradient of the mean cross-entropy loss, with plain tensor operations."""
    with torch.no_grad():  # nothing here is recorded: this *is* the backward pass
        # The forward pass again, keeping what the backward pass needs.
        h = torch.tanh(X @ W1 + b1)
        logits = h @ W2 + b2
        n, classes = logits.shape

        # Output first, one layer at a time, as autograd walks the graph.
        probs = torch.softmax(logits, dim=1)
        one_hot = F.one_hot(targets, classes).to(logits.dtype)
        dlogits = (probs - one_hot) / n  # (N, C)
        dW2 = h.T @ dlogits  # (m, N) @ (N, C) -> (m, C), the shape of W2
        db2 = dlogits.sum(dim=0)  # (C,): b2 was added to all N rows
        dh = dlogits @ W2.T  # (N, C) @ (C, m) -> (N, m), the shape of h
        dz1 = (1 - h**2) * dh  # (N, m): tanh'(z1) = 1 - tanh(z1)**2, elementwise
        dW1 = X.T @ dz1  # (d, N) @ (N, m) -> (d, m), the shape of W1
        db1 = dz1.sum(dim=0)  # (m,): b1 was added to all N rows
        dX = dz1 @ W1.T  # (N, m) @ (m, d) -> (N, d), the shape of X
    return {
        "logits": dlogits,
        "W2": dW2,
        "b2": db2,
        "h": dh,
        "z1": dz1,
        "W1": dW1,
        "b1": db1,
        "X": dX,
    }


# --8<-- [end:backward-by-hand]


# --8<-- [start:compare]
def compare(name: str, by_hand: torch.Tensor, by_autograd: torch.Tensor) -> None:
    """Fail loudly if the two differ; otherwise print that they agree to within 1e-6."""
    torch.testing.assert_close(by_hand, by_autograd)
    difference = (by_hand - by_autograd).abs().max().item()  # float32 rounding only
    shape = str(tuple(by_hand.shape))
    close = difference < 1e-6
    print(f"{name:<8} {shape:<7} matches autograd, max abs difference < 1e-6: {close}")


# --8<-- [end:compare]


# --8<-- [start:network-loss-function]
class NetworkLoss(torch.autograd.Function):
    """The network's loss, with backward_by_hand as its backward pass."""

    @staticmethod
    def forward(ctx: Any, *inputs: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(*inputs)  # X, targets, W1, b1, W2, b2
        return forward(*inputs)["loss"]

    @staticmethod
    def backward(ctx: Any, grad_loss: torch.Tensor) -> tuple[torch.Tensor | None, ...]:
        grads = backward_by_hand(*ctx.saved_tensors)
        # One gradient per input of forward(), in order; targets are integers: None.
        return tuple(
            None if name == "targets" else grad_loss * grads[name]
            for name in ("X", "targets", "W1", "b1", "W2", "b2")
        )


# --8<-- [end:network-loss-function]


# --8<-- [start:wrong-tanh]
class WrongTanh(torch.autograd.Function):
    """tanh with a classic slip in its backward: 1 - h instead of 1 - h**2."""

    @staticmethod
    def forward(ctx: Any, z: torch.Tensor) -> torch.Tensor:
        h = torch.tanh(z)
        ctx.save_for_backward(h)
        return h

    @staticmethod
    def backward(ctx: Any, grad_h: torch.Tensor) -> torch.Tensor:
        (h,) = ctx.saved_tensors
        return (1 - h) * grad_h  # wrong: the derivative of tanh is 1 - h**2


# --8<-- [end:wrong-tanh]


if __name__ == "__main__":
    # --8<-- [start:network]
    net = make_network(seed=122)
    X, targets = net["X"], net["targets"]
    # The parameters are leaves that require grad, as in any model.
    W1, b1, W2, b2 = (net[name].requires_grad_() for name in ("W1", "b1", "W2", "b2"))

    print("X =", X)
    print("targets =", targets)
    print("W1 =", W1)
    print("b1 =", b1)
    # --8<-- [end:network]

    # --8<-- [start:run-forward]
    out = forward(X, targets, W1, b1, W2, b2)
    z1, h, logits, loss = out["z1"], out["h"], out["logits"], out["loss"]

    for name, tensor in out.items():
        print(f"{name:>6}: shape {tuple(tensor.shape)!s:<7} made by {tensor.grad_fn.name()}")
    print("logits =", logits)
    print("loss =", loss)
    # --8<-- [end:run-forward]

    # --8<-- [start:autograd-backward]
    for tensor in (z1, h, logits):
        tensor.retain_grad()  # keep the intermediate gradients too, to compare them
    loss.backward()

    print("logits.grad =", logits.grad)
    # --8<-- [end:autograd-backward]

    # --8<-- [start:dlogits]
    with torch.no_grad():
        n, classes = logits.shape
        probs = torch.softmax(logits, dim=1)
        one_hot = F.one_hot(targets, classes).float()
        dlogits = (probs - one_hot) / n

    print("probs =", probs)
    print("one_hot =", one_hot)
    print("dlogits =", dlogits)
    compare("dlogits", dlogits, logits.grad)
    # --8<-- [end:dlogits]

    # --8<-- [start:row-sums]
    # Rounded to 6 decimals, below float32's rounding noise; + 0.0 turns a -0.0 into 0.0.
    print("row sums of dlogits, to 6 decimals:", dlogits.sum(dim=1).round(decimals=6) + 0.0)
    # --8<-- [end:row-sums]

    # --8<-- [start:layer-two]
    with torch.no_grad():
        dW2 = h.T @ dlogits  # the layer's input, transposed, times dlogits
        db2 = dlogits.sum(dim=0)  # one sum per class, over the batch
        dh = dlogits @ W2.T  # what flows back into the hidden layer

    compare("dW2", dW2, W2.grad)
    compare("db2", db2, b2.grad)
    compare("dh", dh, h.grad)
    print("db2 =", db2)
    # --8<-- [end:layer-two]

    # --8<-- [start:outer-products]
    with torch.no_grad():  # one outer product h_i dlogits_i per example i, added up
        per_example_sum = torch.einsum("ni,nj->ij", h, dlogits)
    compare("einsum", per_example_sum, W2.grad)
    # --8<-- [end:outer-products]

    # --8<-- [start:bias-used-n-times]
    b2_rows = b2.expand(n, classes)  # the broadcast written out: one copy of b2 per example
    print("b2_rows =", b2_rows)
    # The backward of the broadcast: each copy's gradient is a row of dlogits; add them up.
    print("ExpandBackward0 applied to dlogits:", b2_rows.grad_fn(dlogits))
    # The network's own + b2: its AddBackward0 returns one gradient per input, unsummed.
    print("AddBackward0 output shapes:", [g.shape for g in logits.grad_fn(dlogits)])
    # --8<-- [end:bias-used-n-times]

    # --8<-- [start:through-tanh]
    with torch.no_grad():
        dz1 = (1 - h**2) * dh  # elementwise: each h depends only on its own z1
        print("1 - h**2 =", 1 - h**2)

    compare("dz1", dz1, z1.grad)
    # --8<-- [end:through-tanh]

    # --8<-- [start:layer-one]
    with torch.no_grad():
        dW1 = X.T @ dz1  # the layer's input, transposed, times dz1
        db1 = dz1.sum(dim=0)
        dX = dz1 @ W1.T  # the gradient with respect to the input batch

    compare("dW1", dW1, W1.grad)
    compare("db1", db1, b1.grad)
    print("dX =", dX)
    # --8<-- [end:layer-one]

    # --8<-- [start:check-dx]
    X_leaf = X.clone().requires_grad_()  # only so that autograd computes dL/dX as well
    forward(X_leaf, targets, W1, b1, W2, b2)["loss"].backward()
    compare("dX", dX, X_leaf.grad)
    # --8<-- [end:check-dx]

    # --8<-- [start:saved-tensors]
    fresh = forward(X, targets, W1, b1, W2, b2)  # a new graph: backward() freed the old one's
    tanh_node = fresh["h"].grad_fn
    log_softmax_node = fresh["loss"].grad_fn.next_functions[0][0]
    log_p = torch.log_softmax(fresh["logits"], dim=1)
    saved_h, saved_log_p = tanh_node._saved_result, log_softmax_node._saved_result
    print(tanh_node.name(), "saved h:", torch.equal(saved_h, fresh["h"]))
    print(log_softmax_node.name(), "saved log P:", torch.equal(saved_log_p, log_p))
    # --8<-- [end:saved-tensors]

    # --8<-- [start:what-is-saved]
    saved: list[torch.Tensor] = []
    with torch.autograd.graph.saved_tensors_hooks(lambda t: saved.append(t) or t, lambda t: t):
        fresh = forward(X, targets, W1, b1, W2, b2)  # every tensor its graph saves

    def is_saved(tensor: torch.Tensor) -> bool:  # the same block of memory (its storage)?
        address = tensor.untyped_storage().data_ptr()
        return any(t.untyped_storage().data_ptr() == address for t in saved)

    for name, tensor in {"X": X, "W1": W1, "b1": b1, "W2": W2, "b2": b2, "h": fresh["h"]}.items():
        print(f"{name:>2} saved: {is_saved(tensor)}")
    # --8<-- [end:what-is-saved]

    # --8<-- [start:autograd-nodes]
    node = loss.grad_fn
    while node is not None:  # follow the chain down, the first input that is not a leaf
        print(node.name())
        node = next((nxt for nxt, _ in node.next_functions if nxt is not None
                     and nxt.name() != "torch::autograd::AccumulateGrad"), None)  # fmt: skip
    # --8<-- [end:autograd-nodes]

    # --8<-- [start:all-at-once]
    net = make_network(seed=1, n=8, d=6, hidden=10, classes=4)
    params = {name: net[name].requires_grad_() for name in ("W1", "b1", "W2", "b2")}
    forward(net["X"], net["targets"], **params)["loss"].backward()

    grads = backward_by_hand(net["X"], net["targets"], **params)
    for name, param in params.items():
        compare("d" + name, grads[name], param.grad)
    # --8<-- [end:all-at-once]

    # --8<-- [start:finite-difference]
    net64 = make_network(seed=122, dtype=torch.float64)  # the same network, in float64
    X64, targets64 = net64["X"], net64["targets"]
    W1_64, b1_64, W2_64, b2_64 = (net64[name] for name in ("W1", "b1", "W2", "b2"))

    def loss_of_W1(W1: torch.Tensor) -> torch.Tensor:
        return forward(X64, targets64, W1, b1_64, W2_64, b2_64)["loss"]

    eps = 1e-6
    nudge = torch.zeros_like(W1_64)
    nudge[0, 0] = eps  # move one element of W1, up and down
    numerical = (loss_of_W1(W1_64 + nudge) - loss_of_W1(W1_64 - nudge)) / (2 * eps)
    by_hand = backward_by_hand(X64, targets64, W1_64, b1_64, W2_64, b2_64)["W1"][0, 0]
    print(f"central difference: {numerical.item():.8f}")
    print(f"dW1[0, 0] by hand:  {by_hand.item():.8f}")
    # The digits beyond these depend on how the CPU rounds the two losses.
    print("they differ by less than 1e-9:", abs(numerical - by_hand).item() < 1e-9)
    # --8<-- [end:finite-difference]

    # --8<-- [start:gradcheck]
    W1_64.requires_grad_()
    print("gradcheck:", torch.autograd.gradcheck(loss_of_W1, (W1_64,)))
    # --8<-- [end:gradcheck]

    # --8<-- [start:gradcheck-defaults]
    import inspect

    defaults = inspect.signature(torch.autograd.gradcheck).parameters
    print({name: defaults[name].default for name in ("eps", "atol", "rtol")})
    print({name: defaults[name].default for name in ("check_undefined_grad", "nondet_tol")})
    # --8<-- [end:gradcheck-defaults]

    # --8<-- [start:gradcheck-cost]
    def gradcheck_calls(hidden: int, **options: bool) -> tuple[int, int]:
        """Run gradcheck on the loss as a function of W1; count the function's calls."""
        net = make_network(seed=122, hidden=hidden, dtype=torch.float64)
        calls = 0

        def loss_of_W1(W1: torch.Tensor) -> torch.Tensor:
            nonlocal calls
            calls += 1
            return forward(net["X"], net["targets"], W1, net["b1"], net["W2"], net["b2"])["loss"]

        torch.autograd.gradcheck(loss_of_W1, (net["W1"].requires_grad_(),), **options)
        return net["W1"].numel(), calls

    for hidden in (5, 20, 100):
        elements, calls = gradcheck_calls(hidden)
        print(f"W1 with {elements:3} elements: gradcheck ran the function {calls:3} times")
    print("without check_undefined_grad:", gradcheck_calls(5, check_undefined_grad=False)[1])
    print("with fast_mode=True:", gradcheck_calls(5, fast_mode=True)[1])
    # --8<-- [end:gradcheck-cost]

    # --8<-- [start:gradcheck-by-hand]
    inputs = (X64.requires_grad_(), targets64, W1_64, b1_64.requires_grad_(),
              W2_64.requires_grad_(), b2_64.requires_grad_())  # fmt: skip
    print("grad_fn of the loss:", NetworkLoss.apply(*inputs).grad_fn.name())
    print("gradcheck of backward_by_hand:", torch.autograd.gradcheck(NetworkLoss.apply, inputs))
    # --8<-- [end:gradcheck-by-hand]

    # --8<-- [start:wrong-tanh-small]
    z = torch.tensor([-1.0, 0.5, 2.0], dtype=torch.float64, requires_grad=True)
    print("tanh(z) =", WrongTanh.apply(z))
    # --8<-- [end:wrong-tanh-small]

    # --8<-- [start:wrong-tanh-network]
    def loss_with_wrong_tanh(W1: torch.Tensor) -> torch.Tensor:
        h = WrongTanh.apply(X64 @ W1 + b1_64)
        return F.cross_entropy(h @ W2_64 + b2_64, targets64)

    try:
        torch.autograd.gradcheck(loss_with_wrong_tanh, (W1_64,))
    except RuntimeError as error:  # gradcheck's GradcheckError is a RuntimeError
        print(type(error).__name__ + ":", str(error).splitlines()[0].rstrip(","))
    # --8<-- [end:wrong-tanh-network]

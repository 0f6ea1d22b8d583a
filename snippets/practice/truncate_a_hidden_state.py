"""Exercise 3.1: cut a carried hidden state.

Run it: python snippets/practice/truncate_a_hidden_state.py
"""
# Each region is a self-contained cell (page, notebook), so imports repeat.
# ruff: noqa: E402, F811, B007

# --8<-- [start:starter]
import torch

torch.manual_seed(0)
W = (0.5 * torch.randn(4, 4)).requires_grad_()  # hidden -> hidden
U = (0.5 * torch.randn(3, 4)).requires_grad_()  # input -> hidden
xs = torch.randn(12, 1, 3)  # 12 steps, one example, 3 features
k = 4  # the length of a chunk


def cell(x_t, h):
    return torch.tanh(x_t @ U + h @ W)


h = torch.zeros(1, 4)
for start in range(0, len(xs), k):
    # 1. Cut the graph of h here (keep its value).
    # 2. Run the k steps of this chunk: h = cell(xs[t], h).
    # 3. Compute loss = (h ** 2).sum() and call loss.backward().
    pass
# --8<-- [end:starter]

# --8<-- [start:solution]
import torch

torch.manual_seed(0)
W = (0.5 * torch.randn(4, 4)).requires_grad_()  # hidden -> hidden
U = (0.5 * torch.randn(3, 4)).requires_grad_()  # input -> hidden
xs = torch.randn(12, 1, 3)  # 12 steps, one example, 3 features
k = 4  # the length of a chunk


def cell(x_t, h):
    return torch.tanh(x_t @ U + h @ W)


h = torch.zeros(1, 4)
for start in range(0, len(xs), k):
    h = h.detach()  # the value goes on, the graph starts again
    for t in range(start, start + k):
        h = cell(xs[t], h)
    loss = (h**2).sum()
    loss.backward()  # adds this chunk's gradient to W.grad and U.grad
    print(f"chunk starting at step {start + 1}: loss {loss.item():.4f}")

print("W.grad[0] =", [round(v, 4) for v in W.grad[0].tolist()])
# --8<-- [end:solution]

# --8<-- [start:check]
# Checks W.grad and U.grad against a truncated run of its own, from your W, U, xs and k.
import torch


def truncated_grads(W, U, xs, k, cut_every, only_last=False, reset=False):
    """The gradients of the chunk losses (chunks of k steps) for W and U.

    h is cut with detach() every `cut_every` steps (None: never). only_last keeps the
    last chunk's gradient only; reset starts every chunk from zeros instead of cutting.
    """
    W = W.detach().clone().requires_grad_()
    U = U.detach().clone().requires_grad_()
    h = torch.zeros(1, W.shape[0])
    losses = []
    for start in range(0, len(xs), k):
        if reset:
            h = torch.zeros(1, W.shape[0])
        for t in range(start, min(start + k, len(xs))):
            if cut_every is not None and t % cut_every == 0:
                h = h.detach()
            h = torch.tanh(xs[t] @ U + h @ W)
        losses.append((h**2).sum())
    total = losses[-1] if only_last else sum(losses)
    return torch.autograd.grad(total, (W, U))


def check() -> str:
    W, U, xs, k = (globals().get(name) for name in ("W", "U", "xs", "k"))
    if not all(isinstance(t, torch.Tensor) for t in (W, U, xs)) or not isinstance(k, int):
        return "Not done yet: run the cell above first (it defines W, U, xs and k)."
    if k != 4:
        return f"Not quite: expected chunks of k = 4 steps, as the task says, got k = {k}."
    if W.grad is None or U.grad is None:
        return (
            "Not done yet: W.grad is None, so no backward() has run. In every chunk, "
            "compute loss = (h ** 2).sum() and call loss.backward()."
        )

    def same(grads):
        return torch.allclose(W.grad, grads[0], atol=1e-6) and torch.allclose(
            U.grad, grads[1], atol=1e-6
        )

    right = truncated_grads(W, U, xs, k, cut_every=k)
    if same(right):
        return (
            f"Correct: W.grad and U.grad are the sum of the {len(range(0, len(xs), k))} "
            f"chunks' gradients, each going back at most {k} steps."
        )
    expected = [round(v, 4) for v in right[0][0].tolist()]
    got = [round(v, 4) for v in W.grad[0].tolist()]
    numbers = f"expected W.grad[0] = {expected}, got {got}."
    if same(truncated_grads(W, U, xs, k, cut_every=None)):
        return (
            f"Not quite: {numbers} Your gradients go back through the whole sequence: h "
            "was never cut (retain_graph=True silences the error, but does not cut). "
            "Write h = h.detach() at the start of every chunk."
        )
    if same(truncated_grads(W, U, xs, k, cut_every=1)):
        return (
            f"Not quite: {numbers} Your gradients go back only one step: h was cut at "
            f"every step. Cut it once per chunk of {k} steps, before the chunk's first step."
        )
    if same(truncated_grads(W, U, xs, k, cut_every=None, reset=True)):
        return (
            f"Not quite: {numbers} Every chunk starts from h = zeros: that cuts the graph, "
            "but it throws the hidden state's value away too. h = h.detach() keeps the value."
        )
    if same(truncated_grads(W, U, xs, k, cut_every=k, only_last=True)):
        return (
            f"Not quite: {numbers} W.grad holds the last chunk's gradient only: the "
            "earlier chunks' gradients were cleared. Let the chunks' gradients add up."
        )
    hidden_size = W.shape[0]
    if same((right[0] / hidden_size, right[1] / hidden_size)):
        return (
            f"Not quite: {numbers} Your gradients are 1/{hidden_size} of the right ones: "
            f"the loss was averaged over the {hidden_size} numbers of h. Use (h ** 2).sum()."
        )
    return (
        f"Not quite: {numbers} Check that each chunk runs {k} steps with h = cell(xs[t], h), "
        "that its loss is (h ** 2).sum(), and that backward() runs once per chunk."
    )


try:
    print(check())
except Exception as error:  # the check never crashes, whatever the cell above did
    print(f"Not done yet: the check could not read your answer ({type(error).__name__}: {error}).")
# --8<-- [end:check]

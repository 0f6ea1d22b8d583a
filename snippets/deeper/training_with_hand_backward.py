"""Examples for the page "Training with a hand-written backward".

Each region is included by docs/deeper/training-with-hand-backward.md. Run the whole
file with `python snippets/deeper/training_with_hand_backward.py`. The model
(`init_params`, `forward`), its hand-written backward pass (`backward_by_hand`, plain
tensor operations) and autograd's version (`autograd_gradients`) are functions at the top
level, so that a test can import them; the training runs only when the file is run as a
script.
"""

# --8<-- [start:imports]
import math
from collections import Counter

import torch
import torch.nn.functional as F

# --8<-- [end:imports]


# --8<-- [start:params]
def init_params(vocab_size: int, dim: int, seed: int = 0) -> dict[str, torch.Tensor]:
    """The model's five parameters: plain tensors, no requires_grad."""
    generator = torch.Generator().manual_seed(seed)
    return {
        "E": torch.randn(vocab_size, dim, generator=generator),  # one row per token
        "gamma": torch.ones(dim),  # layer norm's scale, PyTorch's default start
        "beta": torch.zeros(dim),  # layer norm's shift
        "W": torch.randn(dim, vocab_size, generator=generator) / dim**0.5,
        "b": torch.zeros(vocab_size),
    }


# --8<-- [end:params]


# --8<-- [start:forward]
def forward(
    params: dict[str, torch.Tensor], inputs: torch.Tensor, targets: torch.Tensor, eps: float = 1e-5
) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """The loss, and what the backward pass needs from the forward pass."""
    x = params["E"][inputs]  # (N, D): the embedding of each input token
    mu = x.mean(dim=1, keepdim=True)
    sigma = (((x - mu) ** 2).mean(dim=1, keepdim=True) + eps).sqrt()
    x_hat = (x - mu) / sigma  # (N, D)
    h = params["gamma"] * x_hat + params["beta"]  # (N, D)
    logits = h @ params["W"] + params["b"]  # (N, V)
    loss = F.cross_entropy(logits, targets)  # the mean over the N examples
    cache = {"x_hat": x_hat, "sigma": sigma, "h": h, "logits": logits}
    return loss, cache


# --8<-- [end:forward]


# --8<-- [start:backward]
def backward_by_hand(
    params: dict[str, torch.Tensor],
    inputs: torch.Tensor,
    targets: torch.Tensor,
    cache: dict[str, torch.Tensor],
) -> dict[str, torch.Tensor]:
    """Every parameter's gradient, from the loss back to the embedding table."""
    x_hat, sigma, h, logits = cache["x_hat"], cache["sigma"], cache["h"], cache["logits"]
    n, vocab_size = logits.shape
    # Cross-entropy: (softmax - one-hot) / N.
    dlogits = (torch.softmax(logits, dim=1) - F.one_hot(targets, vocab_size)) / n
    # The linear layer: input transposed times the output gradient; the bias sums rows.
    dW = h.T @ dlogits
    db = dlogits.sum(dim=0)
    dh = dlogits @ params["W"].T
    # Layer norm: gamma and beta were broadcast over the rows, so their gradients sum.
    dgamma = (dh * x_hat).sum(dim=0)
    dbeta = dh.sum(dim=0)
    dx_hat = dh * params["gamma"]
    dx = (
        dx_hat
        - dx_hat.mean(dim=1, keepdim=True)
        - x_hat * (dx_hat * x_hat).mean(dim=1, keepdim=True)
    ) / sigma
    # The embedding: a scatter-add of each example's row into its token's row.
    dE = torch.zeros_like(params["E"]).index_add_(0, inputs, dx)
    return {"E": dE, "gamma": dgamma, "beta": dbeta, "W": dW, "b": db}


# --8<-- [end:backward]


# --8<-- [start:autograd]
def autograd_gradients(
    params: dict[str, torch.Tensor], inputs: torch.Tensor, targets: torch.Tensor
) -> dict[str, torch.Tensor]:
    """The same gradients from autograd, with PyTorch's own layers, on fresh leaves."""
    leaves = {name: p.clone().requires_grad_() for name, p in params.items()}
    x = F.embedding(inputs, leaves["E"])
    h = F.layer_norm(x, x.shape[-1:], leaves["gamma"], leaves["beta"], eps=1e-5)
    loss = F.cross_entropy(F.linear(h, leaves["W"].T, leaves["b"]), targets)
    loss.backward()
    return {name: leaf.grad for name, leaf in leaves.items()}


# --8<-- [end:autograd]


if __name__ == "__main__":
    # --8<-- [start:data]
    text = "the cat sat on the mat . the dog sat on the log . the cat saw the dog ."
    words = text.split()
    vocab = sorted(set(words))  # the tokens: one integer per distinct word
    ids = torch.tensor([vocab.index(word) for word in words])
    inputs, targets = ids[:-1], ids[1:]  # the task: predict each next word from this one
    print("vocab:", vocab)
    print("inputs: ", inputs.tolist())
    print("targets:", targets.tolist())
    print(
        f"{len(vocab)} tokens, {len(inputs)} examples;",
        "'the' is an input",
        words[:-1].count("the"),
        "times",
    )
    # --8<-- [end:data]

    # --8<-- [start:best-possible]
    pairs = Counter(zip(inputs.tolist(), targets.tolist(), strict=True))
    seen = Counter(inputs.tolist())
    # The best a model that sees one word can do: predict the next word's frequencies.
    best = -sum(count * math.log(count / seen[a]) for (a, _), count in pairs.items())
    best /= len(inputs)
    after_the = {vocab[b]: count for (a, b), count in pairs.items() if vocab[a] == "the"}
    print("after 'the':", after_the)
    print(f"lowest possible mean loss: {best:.4f}")
    # --8<-- [end:best-possible]

    # --8<-- [start:first-step]
    params = init_params(len(vocab), dim=8, seed=0)
    loss, cache = forward(params, inputs, targets)
    mine = backward_by_hand(params, inputs, targets, cache)
    theirs = autograd_gradients(params, inputs, targets)
    print(
        f"loss at the start: {loss.item():.4f}   (log of {len(vocab)} = {math.log(len(vocab)):.4f})"
    )
    for name in mine:
        torch.testing.assert_close(mine[name], theirs[name])  # raises if they differ
        largest = mine[name].abs().max().item()
        print(
            f"d{name:<6} {tuple(mine[name].shape)!s:<7} largest entry {largest:.4f}"
            "  matches autograd"
        )
    # --8<-- [end:first-step]

    # --8<-- [start:train]
    params = init_params(len(vocab), dim=8, seed=0)
    lr, steps = 0.5, 100
    losses, worst = [], []
    for step in range(steps + 1):
        loss, cache = forward(params, inputs, targets)
        grads = backward_by_hand(params, inputs, targets, cache)
        # The check, at every step: autograd's gradients at the same parameters.
        reference = autograd_gradients(params, inputs, targets)
        for name in grads:
            torch.testing.assert_close(grads[name], reference[name])
        worst.append(max((grads[k] - reference[k]).abs().max().item() for k in grads))
        losses.append(loss.item())
        if step % 20 == 0:
            print(
                f"step {step:3}  loss {loss.item():.4f}  "
                f"max |hand - autograd| below 1e-6: {worst[-1] < 1e-6}"
            )
        if step < steps:
            for name in params:  # the update uses the hand-written gradients only
                params[name] = params[name] - lr * grads[name]
    print(f"checked {len(worst)} steps; every difference below 1e-6: {max(worst) < 1e-6}")
    # --8<-- [end:train]

    # --8<-- [start:train-autograd]
    start = init_params(len(vocab), dim=8, seed=0)
    model = {name: p.clone().requires_grad_() for name, p in start.items()}
    optimizer = torch.optim.SGD(model.values(), lr=lr)
    autograd_losses = []
    for step in range(steps + 1):
        optimizer.zero_grad()
        x = F.embedding(inputs, model["E"])
        h = F.layer_norm(x, (8,), model["gamma"], model["beta"])
        loss = F.cross_entropy(h @ model["W"] + model["b"], targets)
        autograd_losses.append(loss.item())
        if step < steps:
            loss.backward()
            optimizer.step()
    gap = max(abs(a - b) for a, b in zip(losses, autograd_losses, strict=True))
    print(f"final loss: hand {losses[-1]:.4f}, autograd {autograd_losses[-1]:.4f}")
    print("the two runs' losses agree to 1e-5 at every step:", gap < 1e-5)
    # --8<-- [end:train-autograd]

    # --8<-- [start:learned]
    with torch.no_grad():
        _, cache = forward(params, inputs, targets)
        probs = torch.softmax(cache["logits"], dim=1)
    row = probs[words.index("the")]  # the prediction after the word "the"
    print(
        "after 'the':",
        {w: round(row[vocab.index(w)].item(), 3) for w in ("cat", "mat", "dog", "log")},
    )
    total = sum(after_the.values())  # how often 'the' is followed by a word
    print("the counts say:", {w: round(n / total, 3) for w, n in after_the.items()})
    print(
        f"probability left for the other {len(vocab) - 4} words:",
        f"{1 - sum(row[vocab.index(w)].item() for w in after_the):.3f}",
    )
    # Every word, not only 'the': the probability its row leaves on the words that never
    # follow it, and its examples' part of the gap to the lowest loss (an example's part:
    # its loss minus -log of its next word's frequency).
    pairs_seen = zip(inputs.tolist(), targets.tolist(), strict=True)
    frequency = torch.tensor([pairs[pair] / seen[pair[0]] for pair in pairs_seen])
    gaps = F.cross_entropy(cache["logits"], targets, reduction="none") + frequency.log()
    print("word   left  part of the gap")
    for a in sorted(seen, key=lambda a: vocab[a]):
        follows = [b for first, b in pairs if first == a]
        left = 1 - probs[inputs.tolist().index(a), follows].sum().item()
        print(f"{vocab[a]:>4}  {left:.3f}  {gaps[inputs == a].sum().item():.3f}")
    print(f"the whole gap: {gaps.sum().item():.3f} = {len(inputs)} x (final loss - lowest)")
    # --8<-- [end:learned]

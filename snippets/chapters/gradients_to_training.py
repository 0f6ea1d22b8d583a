"""Examples for the chapter "From gradients to training".

Each region is included by docs/chapters/gradients-to-training.md. Run the whole
file with `python snippets/chapters/gradients_to_training.py`. The functions sit at
the top level so that tests/maths/test_gradients_to_training.py can import them; the
printing demos run only when the file is run as a script.

A region named ``<name>-maths`` lies inside region ``<name>`` and holds its computation
without the input the page gives it, so that tests/maths can run the page's own code on
inputs of its own. The page never shows these markers.
"""

# --8<-- [start:imports]
import math

import torch
import torch.nn.functional as F
from torch import nn

# --8<-- [end:imports]


# --8<-- [start:train-by-hand]
def train_by_hand(
    w: torch.Tensor, b: torch.Tensor, x: float, target: float, lr: float, steps: int
) -> list[tuple[float, float, float]]:
    """Gradient descent on (w*x + b - target)**2, updating w and b in place.

    Returns (loss, w, b) for every step: the loss before the update, w and b after it.
    """
    history = []
    for _ in range(steps):
        prediction = w * x + b  # 1. forward
        loss = (prediction - target) ** 2  # 2. loss
        loss.backward()  # 3. backward: fills w.grad and b.grad
        with torch.no_grad():  # 4. update; the update itself is not part of the model
            w -= lr * w.grad
            b -= lr * b.grad
        w.grad.zero_()  # 5. clear, or the next backward() adds to these
        b.grad.zero_()
        history.append((loss.item(), w.item(), b.item()))
    return history


# --8<-- [end:train-by-hand]


# --8<-- [start:train-with-sgd]
def train_with_sgd(
    w: torch.Tensor, b: torch.Tensor, x: float, target: float, lr: float, steps: int
) -> list[tuple[float, float, float]]:
    """The same loop, with torch.optim.SGD doing the update and the clearing."""
    optimizer = torch.optim.SGD([w, b], lr=lr)
    history = []
    for _ in range(steps):
        optimizer.zero_grad()  # clears w.grad and b.grad
        prediction = w * x + b
        loss = (prediction - target) ** 2
        loss.backward()
        optimizer.step()  # w -= lr * w.grad and b -= lr * b.grad, without tracking
        history.append((loss.item(), w.item(), b.item()))
    return history


# --8<-- [end:train-with-sgd]


# --8<-- [start:tiny-transformer]
class TinyTransformer(nn.Module):
    """One decoder block of a language model, small enough to read in full."""

    def __init__(self, vocab_size: int, d_model: int, max_len: int) -> None:
        super().__init__()
        self.token_embedding = nn.Embedding(vocab_size, d_model)
        self.position_embedding = nn.Embedding(max_len, d_model)
        self.query = nn.Linear(d_model, d_model, bias=False)
        self.key = nn.Linear(d_model, d_model, bias=False)
        self.value = nn.Linear(d_model, d_model, bias=False)
        self.norm1 = nn.LayerNorm(d_model)
        self.feed_forward = nn.Sequential(
            nn.Linear(d_model, 4 * d_model), nn.GELU(), nn.Linear(4 * d_model, d_model)
        )
        self.norm2 = nn.LayerNorm(d_model)
        self.to_logits = nn.Linear(d_model, vocab_size)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        positions = torch.arange(len(tokens))
        h = self.token_embedding(tokens) + self.position_embedding(positions)
        # Self-attention: every token scores itself and every earlier token, softmax turns
        # the scores into weights, and the output is the weighted sum of the values.
        q, k, v = self.query(h), self.key(h), self.value(h)
        scores = q @ k.T / math.sqrt(h.shape[-1])
        future = torch.ones_like(scores, dtype=torch.bool).triu(diagonal=1)
        scores = scores.masked_fill(future, float("-inf"))  # no peeking ahead
        h = self.norm1(h + torch.softmax(scores, dim=-1) @ v)
        h = self.norm2(h + self.feed_forward(h))
        return self.to_logits(h)  # one score per vocabulary entry, per position


def backward_operations(tensor: torch.Tensor) -> list[str]:
    """The kinds of backward node autograd runs from `tensor`, sorted by name."""
    seen, stack = set(), [tensor.grad_fn]
    while stack:  # walk the graph from the output towards the leaves
        node = stack.pop()
        if node is not None and node not in seen:
            seen.add(node)
            stack.extend(next_node for next_node, _ in node.next_functions)
    return sorted({type(node).__name__ for node in seen})


# --8<-- [end:tiny-transformer]


if __name__ == "__main__":
    # --8<-- [start:linear-model]
    x = torch.tensor(2.0)  # the input
    target = torch.tensor(10.0)  # the answer we want
    w = torch.tensor(3.0, requires_grad=True)  # weight, to be learned
    b = torch.tensor(1.0, requires_grad=True)  # bias, to be learned

    # --8<-- [start:linear-model-maths]
    prediction = w * x + b
    loss = (prediction - target) ** 2
    loss.backward()

    print("prediction:", prediction)
    print("loss:      ", loss)
    print("w.grad:    ", w.grad)
    print("b.grad:    ", b.grad)
    # --8<-- [end:linear-model-maths]
    # --8<-- [end:linear-model]

    # --8<-- [start:run-by-hand]
    w = torch.tensor(1.0, requires_grad=True)
    b = torch.tensor(0.0, requires_grad=True)
    by_hand = train_by_hand(w, b, x=2.0, target=10.0, lr=0.01, steps=10)

    print("step     loss       w       b")
    for step, (loss_value, w_value, b_value) in enumerate(by_hand, start=1):
        print(f"{step:>4} {loss_value:8.4f} {w_value:7.4f} {b_value:7.4f}")
    # --8<-- [end:run-by-hand]

    # --8<-- [start:first-step]
    # Step 1 by hand: prediction 1*2 + 0 = 2, error 2 - 10 = -8.
    grad_w = 2 * (2 - 10) * 2  # dL/dw = 2(p - t)x
    grad_b = 2 * (2 - 10)  # dL/db = 2(p - t)
    print("gradients at step 1:", grad_w, grad_b)
    print("w after step 1:", 1 - 0.01 * grad_w)
    print("b after step 1:", 0 - 0.01 * grad_b)
    # --8<-- [end:first-step]

    # --8<-- [start:run-with-sgd]
    w_sgd = torch.tensor(1.0, requires_grad=True)
    b_sgd = torch.tensor(0.0, requires_grad=True)
    with_sgd = train_with_sgd(w_sgd, b_sgd, x=2.0, target=10.0, lr=0.01, steps=10)

    print("step  w by hand  w with SGD  b by hand  b with SGD")
    for step, (hand, sgd) in enumerate(zip(by_hand, with_sgd, strict=True), start=1):
        print(f"{step:>4} {hand[1]:10.4f} {sgd[1]:11.4f} {hand[2]:10.4f} {sgd[2]:11.4f}")
    same = torch.allclose(torch.tensor(by_hand), torch.tensor(with_sgd))
    print("same losses, w and b:", same)
    # --8<-- [end:run-with-sgd]

    # --8<-- [start:compare-losses]
    steps = list(range(1, 11))
    losses_by_hand = [loss_value for loss_value, _, _ in by_hand]
    losses_with_sgd = [loss_value for loss_value, _, _ in with_sgd]
    gaps = [abs(a - b) for a, b in zip(losses_by_hand, losses_with_sgd, strict=True)]
    ratios = [losses_by_hand[k + 1] / losses_by_hand[k] for k in range(len(steps) - 1)]

    print("largest gap between the two loss curves:", max(gaps))
    print("each loss / the one before:", sorted({round(r, 4) for r in ratios}))
    print(f"loss at step 10: {losses_by_hand[-1]:.4f}, and 64 * 0.81**9 = {64 * 0.81**9:.4f}")
    # --8<-- [end:compare-losses]

    # --8<-- [start:parameter-count]
    torch.manual_seed(0)
    # A small image classifier: 28x28 = 784 pixels in, 10 class scores out.
    model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10))

    for name, param in model.named_parameters():
        print(f"{name:9} shape {tuple(param.shape)!s:11} {param.numel():>7,} numbers")
    total = sum(param.numel() for param in model.parameters())
    print(f"total: {total:,} parameters")
    # --8<-- [end:parameter-count]

    # --8<-- [start:one-step-for-all]
    images = torch.randn(32, 784)  # a batch of 32 made-up images
    labels = torch.randint(0, 10, (32,))  # and their made-up classes
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    optimizer.zero_grad()
    loss = F.cross_entropy(model(images), labels)
    loss.backward()  # one call fills every parameter's .grad
    for name, param in model.named_parameters():
        print(f"{name:9} .grad shape {tuple(param.grad.shape)}")

    with torch.no_grad():  # copies of the values, not recorded in the graph
        before = [param.clone() for param in model.parameters()]
    optimizer.step()  # one call updates all of them
    changes = [new - old for new, old in zip(model.parameters(), before, strict=True)]
    largest = max(change.abs().max().item() for change in changes)
    print(f"largest change of any parameter: {largest:.4f}")
    # --8<-- [end:one-step-for-all]

    # --8<-- [start:causal-mask]
    scores = torch.zeros(4, 4)  # the attention scores of 4 positions (row i: position i)
    future = torch.ones_like(scores, dtype=torch.bool).triu(diagonal=1)  # the model's mask
    print("1 = position i (row) may look at position j (column):")
    print((~future).int())
    # --8<-- [end:causal-mask]

    # --8<-- [start:transformer-backward]
    torch.manual_seed(0)
    tokens = torch.tensor([3, 1, 4, 1, 5, 9, 2, 6])  # a made-up sentence of token ids
    inputs, targets = tokens[:-1], tokens[1:]  # at each position, predict the next token
    model = TinyTransformer(vocab_size=10, d_model=16, max_len=8)

    logits = model(inputs)  # shape (7 positions, 10 vocabulary scores)
    loss = F.cross_entropy(logits, targets)
    loss.backward()

    print(f"logits {tuple(logits.shape)}, loss {loss.item():.4f}")
    for name, param in model.named_parameters():
        print(f"{name:26} {tuple(param.shape)!s:8} grad norm {param.grad.norm():.4f}")
    # --8<-- [end:transformer-backward]

    # --8<-- [start:transformer-operations]
    for name in backward_operations(loss):
        print(name)
    # --8<-- [end:transformer-operations]

    # --8<-- [start:transformer-training]
    optimizer = torch.optim.AdamW(model.parameters(), lr=0.01)
    for step in range(1, 61):
        optimizer.zero_grad()
        loss = F.cross_entropy(model(inputs), targets)
        loss.backward()
        optimizer.step()
        if step % 15 == 0:
            print(f"step {step:>2}: loss {loss.item():.4f}")
    # --8<-- [end:transformer-training]

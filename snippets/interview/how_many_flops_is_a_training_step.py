"""Interview: How many FLOPs is a training step?
(docs/interview/how-many-flops-is-a-training-step.md)

FlopCounterMode counts the floating-point operations of the matrix products PyTorch
runs; the page compares its counts with 2N, 4N, 6N and 8N per token, worked out by hand.
"""
# Each region is read on its own on the page, so imports appear where they are used.
# ruff: noqa: E402

# --8<-- [start:model]
import torch
from torch import nn
from torch.utils.flop_counter import FlopCounterMode

torch.manual_seed(0)
d_in, hidden, d_out, tokens = 16, 64, 16, 8  # 8 tokens: the rows of one batch
model = nn.Sequential(
    nn.Linear(d_in, hidden),
    nn.ReLU(),
    nn.Linear(hidden, hidden),
    nn.ReLU(),
    nn.Linear(hidden, d_out),
)
inputs = torch.randn(tokens, d_in)
N = sum(p.numel() for name, p in model.named_parameters() if name.endswith("weight"))
biases = sum(p.numel() for name, p in model.named_parameters() if name.endswith("bias"))
print(f"N = {N} weights (and {biases} biases); {tokens} tokens per step")
# --8<-- [end:model]

# --8<-- [start:count]
# --8<-- [start:count-maths]
with FlopCounterMode(display=False) as forward_count:
    loss = model(inputs).pow(2).mean()
with FlopCounterMode(display=False) as backward_count:
    loss.backward()
forward_flops = forward_count.get_total_flops()
backward_flops = backward_count.get_total_flops()
# --8<-- [end:count-maths]
print(f"forward : {forward_flops:6} FLOPs, 2 N per token would be {2 * N * tokens:6}")
print(f"backward: {backward_flops:6} FLOPs, 4 N per token would be {4 * N * tokens:6}")
print("counted by operation:")
for name, counter in (("forward", forward_count), ("backward", backward_count)):
    per_op = {str(op): n for op, n in counter.get_flop_counts()["Global"].items()}
    print(f"  {name:8} {per_op}")
# --8<-- [end:count]

# --8<-- [start:input-grad]
embedded = torch.randn(tokens, d_in, requires_grad=True)  # like an embedding's output
model.zero_grad()
loss = model(embedded).pow(2).mean()
with FlopCounterMode(display=False) as backward_count:
    loss.backward()
backward_flops = backward_count.get_total_flops()
print(f"backward: {backward_flops} FLOPs = {backward_flops // (N * tokens)} N per token")
# --8<-- [end:input-grad]

# --8<-- [start:checkpoint]
from torch.utils.checkpoint import checkpoint

model.zero_grad()
# --8<-- [start:checkpoint-maths]
with FlopCounterMode(display=False) as step_count:
    loss = checkpoint(model, embedded, use_reentrant=False).pow(2).mean()
    loss.backward()  # runs the forward pass of the model again, then the backward pass
step_flops = step_count.get_total_flops()
# --8<-- [end:checkpoint-maths]
print(f"checkpointed step: {step_flops} FLOPs; 8 N per token would be {8 * N * tokens}")
print(f"                   the difference: {8 * N * tokens - step_flops}")
# --8<-- [end:checkpoint]

# --8<-- [start:attention]
from torch.nn import functional as F


class Attention(nn.Module):
    """Single-head self-attention over a sequence of tokens, written out."""

    def __init__(self, d: int) -> None:
        super().__init__()
        self.q, self.k, self.v, self.o = (nn.Linear(d, d, bias=False) for _ in range(4))

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # x: (T, d)
        q, k, v = self.q(x), self.k(x), self.v(x)
        scores = q @ k.T / k.shape[-1] ** 0.5  # (T, T): T * T dot products of length d
        return self.o(F.softmax(scores, dim=-1) @ v)  # (T, d): again T * T * d


d = 32
attention = Attention(d)
N_attention = 4 * d * d
print(f"N = {N_attention} weights; forward FLOPs per token:")
for T in (16, 64, 256):
    x = torch.randn(T, d)
    with FlopCounterMode(display=False) as count:
        attention(x)
    per_token = count.get_total_flops() // T
    extra = per_token - 2 * N_attention
    print(f"  T = {T:3}: counted {per_token:6} = 2N + {extra:5}; 4 T d = {4 * T * d}")
# --8<-- [end:attention]


# --8<-- [start:elementwise]
def counted(operation) -> int:
    with FlopCounterMode(display=False) as count:
        operation()
    return count.get_total_flops()


x = torch.randn(tokens, hidden)
for name, operation in (
    ("relu", lambda: torch.relu(x)),
    ("softmax", lambda: F.softmax(x, dim=-1)),
    ("layer_norm", lambda: F.layer_norm(x, (hidden,))),
    ("x * x", lambda: x * x),
    ("x @ x.T", lambda: x @ x.T),
):
    print(f"{name:10} {counted(operation):6} FLOPs")
# --8<-- [end:elementwise]

"""Interview: truncated backpropagation through time.

docs/interview/what-is-truncated-backpropagation-through-time.md
"""

# --8<-- [start:setup]
import torch

torch.manual_seed(0)
cell = torch.nn.RNNCell(input_size=3, hidden_size=4)  # h = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)
sequence = torch.randn(12, 1, 3)  # 12 steps, one example, 3 features
optimizer = torch.optim.SGD(cell.parameters(), lr=0.1)
k = 4  # backpropagate through at most k steps


def graph_size(t):
    """How many backward nodes a backward pass from t would visit."""
    seen, stack = set(), [t.grad_fn]
    while stack:
        node = stack.pop()
        if node is not None and node not in seen:
            seen.add(node)
            stack.extend(next_node for next_node, _ in node.next_functions)
    return len(seen)


for name, p in cell.named_parameters():
    print(f"{name:9} {tuple(p.shape)}")
# --8<-- [end:setup]

# --8<-- [start:loop]
h = torch.zeros(1, 4)
for start in range(0, len(sequence), k):
    h = h.detach()  # keep the value, cut the graph
    for x_t in sequence[start : start + k]:
        h = cell(x_t, h)
    loss = h.pow(2).mean()
    optimizer.zero_grad()
    loss.backward()  # back through at most k steps
    optimizer.step()
    steps = f"steps {start + 1:2}-{start + k:2}"
    print(f"{steps}: loss {loss.item():.4f}, graph of {graph_size(loss)} nodes")
# --8<-- [end:loop]

# --8<-- [start:full]
h = torch.zeros(1, 4)
for t, x_t in enumerate(sequence, start=1):
    h = cell(x_t, h)
    if t % k == 0:
        print(f"after {t:2} steps, never cut: a graph of {graph_size(h)} nodes")
# --8<-- [end:full]

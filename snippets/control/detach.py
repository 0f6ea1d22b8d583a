"""Chapter: detach(), a tensor outside the graph (docs/control/detach.md)."""
# Each region is one block of the page; together they run top to bottom as one program.

# --8<-- [start:what-it-returns]
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * 3  # recorded: y has a grad_fn
d = y.detach()  # the same numbers, outside the graph

for name, t in [("y", y), ("d", d)]:
    grad_fn = t.grad_fn.name() if t.grad_fn is not None else None
    flags = f"requires_grad={t.requires_grad}  grad_fn={grad_fn}  is_leaf={t.is_leaf}"
    print(f"{name}: {t.tolist()}  {flags}")
# --8<-- [end:what-it-returns]

# --8<-- [start:same-storage]
# Two tensors share storage when they read their numbers from the same block of memory.
same = y.untyped_storage().data_ptr() == d.untyped_storage().data_ptr()
print("y and d share storage:", same)

c = y.clone()  # clone() copies the numbers into new memory
copied = y.untyped_storage().data_ptr() == c.untyped_storage().data_ptr()
print("y and its clone share storage:", copied)
print("the clone's grad_fn:", c.grad_fn.name())
# --8<-- [end:same-storage]

# --8<-- [start:change-detached]
d[0] = 100.0  # change the detached tensor in place
print("after d[0] = 100:")
print("  d =", d.tolist())
print("  y =", y.tolist())
# --8<-- [end:change-detached]

# --8<-- [start:change-original]
y.add_(1)  # change the original in place (y is a non-leaf, so this is allowed)
print("after y.add_(1):")
print("  y =", y.tolist())
print("  d =", d.tolist())
print("version of y:", y._version, " version of d:", d._version)
# --8<-- [end:change-original]

# --8<-- [start:saved]
x = torch.tensor([0.0, 1.0], requires_grad=True)
e = torch.exp(x)  # ExpBackward0 saves its output e: d/dx exp(x) = exp(x)
print("e =", e.tolist(), " version:", e._version)

e.detach().mul_(2)  # "only the detached copy" is doubled...
print("e =", e.tolist(), " version:", e._version)  # ...but e is doubled too
# --8<-- [end:saved]

# --8<-- [start:saved-fixed]
x = torch.tensor([0.0, 1.0], requires_grad=True)
e = torch.exp(x)
scaled = e.detach().clone().mul_(2)  # a copy in new memory: e is untouched
e.sum().backward()

print("scaled =", scaled.tolist())
print("x.grad =", x.grad.tolist())
print("exp(x) =", torch.exp(x.detach()).tolist())
# --8<-- [end:saved-fixed]

# --8<-- [start:logging-bug]
torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
inputs, targets = torch.randn(8, 3), torch.randn(8, 1)


def graph_nodes(t):
    """Every backward node that can be reached from t.grad_fn."""
    seen, stack = [], [t.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.append(node)
        stack.extend(next_node for next_node, _ in node.next_functions)
    return seen


def graph_size(t):
    return len(graph_nodes(t))


total = 0.0
for step in range(1, 6):
    loss = torch.nn.functional.mse_loss(model(inputs), targets)
    total = total + loss  # BUG: adds the tensor, graph and all
    print(f"step {step}: total is a {type(total).__name__} with {graph_size(total)} graph nodes")

losses_inside = [node.name() for node in graph_nodes(total)].count("MseLossBackward0")
print("loss nodes still reachable from total:", losses_inside)
# --8<-- [end:logging-bug]

# --8<-- [start:logging-fixed]
total = 0.0
for _ in range(5):
    loss = torch.nn.functional.mse_loss(model(inputs), targets)
    total = total + loss.item()  # a Python float: no graph
print("total is a", type(total).__name__, "=", round(total, 4))

logged = loss.detach()  # or keep a tensor, cut from the graph
print("logged.grad_fn:", logged.grad_fn, " requires_grad:", logged.requires_grad)
# --8<-- [end:logging-fixed]

# --8<-- [start:target]
x = torch.tensor(3.0)
old_target = torch.tensor(4.0)  # the moving average so far: a plain number

for use_detach in (True, False):
    w = torch.tensor(2.0, requires_grad=True)
    prediction = w * x  # 6
    target = 0.9 * old_target + 0.1 * prediction  # the new moving average: 4.2
    if use_detach:
        target = target.detach()
    loss = (prediction - target) ** 2
    loss.backward()
    print(f"detach={use_detach!s:5}  loss = {loss.item():.4f}  w.grad = {w.grad.item():.4f}")
# --8<-- [end:target]

# --8<-- [start:rnn-setup]
torch.manual_seed(0)
W = (0.5 * torch.randn(4, 4)).requires_grad_()  # hidden -> hidden
U = (0.5 * torch.randn(3, 4)).requires_grad_()  # input -> hidden
xs = torch.randn(12, 1, 3)  # a sequence of 12 steps, one example, 3 features


def cell(x_t, h):
    """One step of a tiny recurrent network: the new hidden state."""
    return torch.tanh(x_t @ U + h @ W)


h_full = torch.zeros(1, 4)  # carried from step to step, never cut
h_cut = torch.zeros(1, 4)  # cut with detach() every 4 steps
print("step  nodes (never cut)  nodes (cut every 4)")
for t in range(12):
    if t % 4 == 0:
        h_cut = h_cut.detach()  # the next steps start a new, short graph
    h_full = cell(xs[t], h_full)
    h_cut = cell(xs[t], h_cut)
    print(f"{t + 1:4}  {graph_size(h_full):17}  {graph_size(h_cut):19}")
# --8<-- [end:rnn-setup]

# --8<-- [start:rnn-nodes]
print([node.name() for node in (h_full.grad_fn, h_full.grad_fn.next_functions[0][0])])
first = h_full.grad_fn.next_functions[0][0]  # AddBackward0 of the last step
print([node.name() for node, _ in first.next_functions])
# --8<-- [end:rnn-nodes]

# --8<-- [start:tbptt-retain-graph]
W.grad = None
U.grad = None
h = torch.zeros(1, 4)
for start in range(0, 12, 4):
    for t in range(start, start + 4):
        h = cell(xs[t], h)
    loss = (h**2).sum()
    print(f"chunk starting at step {start + 1}: {graph_size(loss)} nodes, back to step 1")
    loss.backward(retain_graph=True)  # no error, but nothing is cut
# --8<-- [end:tbptt-retain-graph]

# --8<-- [start:tbptt]
W.grad = None
U.grad = None
h = torch.zeros(1, 4)
for start in range(0, 12, 4):
    h = h.detach()  # cut: the values are carried on, the graph is not
    for t in range(start, start + 4):
        h = cell(xs[t], h)
    loss = (h**2).sum()
    print(f"chunk starting at step {start + 1}: loss {loss.item():.4f}, {graph_size(loss)} nodes")
    loss.backward()
# --8<-- [end:tbptt]

# --8<-- [start:tbptt-inputs]
inputs = xs.clone().requires_grad_()  # so that we can see which steps get a gradient
h = torch.zeros(1, 4)
for t in range(12):
    if t % 4 == 0:
        h = h.detach()
    h = cell(inputs[t], h)
(h**2).sum().backward()  # the loss of the last chunk only

for t in range(12):
    reached = bool(inputs.grad[t].abs().sum() > 0)
    print(f"step {t + 1:2}: gets a gradient: {reached}")
# --8<-- [end:tbptt-inputs]

# --8<-- [start:detach-in-place]
x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
y = x * 2
print("before: requires_grad", y.requires_grad, " grad_fn", y.grad_fn.name())
y.detach_()  # y itself leaves the graph; no new tensor is made
print("after:  requires_grad", y.requires_grad, " grad_fn", y.grad_fn, " is_leaf", y.is_leaf)
# --8<-- [end:detach-in-place]

# --8<-- [start:detach-view]
y = x * 2
first_half = y[:2]  # a view: it reads part of y's storage
# --8<-- [end:detach-view]

# --8<-- [start:detach-base]
y = x * 2
first_half = y[:2]  # a view, taken before detach_()
y.detach_()
print("y:          requires_grad", y.requires_grad)
print("first_half: requires_grad", first_half.requires_grad, " grad_fn", first_half.grad_fn.name())
# --8<-- [end:detach-base]

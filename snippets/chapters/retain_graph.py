"""Chapter 6, retain_graph: a graph is used once, unless you ask PyTorch to keep it.

A region named ``<name>-maths`` lies inside region ``<name>`` and holds its computation
without the input the page gives it, so that tests/maths can run the page's own code on
inputs of its own. The page never shows these markers.
"""
# Each region follows the page; the later ones import what they need.
# ruff: noqa: E402

# --8<-- [start:first_backward]
import torch

x = torch.tensor(2.0, requires_grad=True)
# --8<-- [start:first_backward-maths]
y = x**2

# To compute dy/dx = 2x later, the graph saved x during the forward pass.
print("saved by", y.grad_fn.name(), "->", y.grad_fn._saved_self)

y.backward()  # uses the saved x, then releases it
print("x.grad =", x.grad)
# --8<-- [end:first_backward-maths]
# --8<-- [end:first_backward]

# --8<-- [start:new_forward]
y = x**2  # a new forward pass records a new graph
y.backward()
print("x.grad =", x.grad)  # 4 + 4: .grad accumulates (chapter 5)
# --8<-- [end:new_forward]

# --8<-- [start:nothing_saved]
a = torch.tensor(2.0, requires_grad=True)
# --8<-- [start:nothing_saved-a-maths]
b = a + 1  # AddBackward0: the derivative is 1, no tensor saved
b.backward()
b.backward()  # the same graph a second time: no error
print("a + 1,   two backward() calls: a.grad =", a.grad)  # 1 + 1
# --8<-- [end:nothing_saved-a-maths]

v = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
# --8<-- [start:nothing_saved-v-maths]
total = v.sum()  # SumBackward0: the derivative is 1 for every element, nothing saved
total.backward()
total.backward()
print("v.sum(), two backward() calls: v.grad =", v.grad)  # 1 + 1 per element
# --8<-- [end:nothing_saved-v-maths]
# --8<-- [end:nothing_saved]

# --8<-- [start:retain]
x = torch.tensor(2.0, requires_grad=True)
# --8<-- [start:retain-maths]
y = x**2

y.backward(retain_graph=True)  # keep the saved tensors for another pass
print("after the first backward: ", x.grad)

y.backward()  # same graph, second pass; this one frees it
print("after the second backward:", x.grad)
# --8<-- [end:retain-maths]
# --8<-- [end:retain]

# --8<-- [start:shared]
x = torch.tensor(2.0, requires_grad=True)
# --8<-- [start:shared-maths]
h = x**2  # the shared part of the graph
loss1 = 3 * h
loss2 = h**2
print("h =", h.item(), " loss1 =", loss1.item(), " loss2 =", loss2.item())
# --8<-- [end:shared-maths]
# --8<-- [end:shared]

# --8<-- [start:first_loss]
loss1.backward()  # frees the whole graph behind loss1, including h's part
print("x.grad after loss1:", x.grad)
# --8<-- [end:first_loss]

# --8<-- [start:two_losses]
x = torch.tensor(2.0, requires_grad=True)
# --8<-- [start:two_losses-maths]
h = x**2
loss1 = 3 * h
loss2 = h**2

loss1.backward(retain_graph=True)  # h's part is needed again by loss2
print("x.grad after loss1:", x.grad)
loss2.backward()  # the last pass may free the graph
print("x.grad after loss2:", x.grad)
# --8<-- [end:two_losses-maths]
# --8<-- [end:two_losses]

# --8<-- [start:sum_losses]
x = torch.tensor(2.0, requires_grad=True)
# --8<-- [start:sum_losses-maths]
h = x**2
total = 3 * h + h**2  # loss1 + loss2

total.backward()  # one pass through the shared part, nothing to retain
print("x.grad =", x.grad)
# --8<-- [end:sum_losses-maths]
# --8<-- [end:sum_losses]


# --8<-- [start:kept-alive]
class Saved:
    """Wraps each tensor the graph saves, and counts how many are still alive."""

    alive = 0

    def __init__(self, tensor: torch.Tensor) -> None:
        self.tensor = tensor
        Saved.alive += 1

    def __del__(self) -> None:  # runs when the graph lets go of the saved tensor
        Saved.alive -= 1


x = torch.tensor([1.0, 2.0, 3.0])  # data
w = torch.tensor(0.5, requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(Saved, lambda saved: saved.tensor):
    h = torch.sin(x * w)  # the product saves x (for w's gradient), sin saves x * w
    loss = (h**2).sum()  # the square saves h

loss.backward(retain_graph=True)
print("after backward(retain_graph=True):", Saved.alive, "saved tensors alive")
del loss  # the output is gone...
print("after del loss:                   ", Saved.alive)  # ...but h still holds its part
del h
print("after del h:                      ", Saved.alive)
# --8<-- [end:kept-alive]

# --8<-- [start:memory]
torch.manual_seed(0)
model = torch.nn.Sequential(
    torch.nn.Linear(256, 1024),
    torch.nn.ReLU(),
    torch.nn.Linear(1024, 1),
)
batch = torch.randn(512, 256)

# A hook sees every tensor the graph saves. Count only what the forward pass created:
# the weights and the batch are held by our own variables, graph or no graph.
held_anyway = {
    t.untyped_storage().data_ptr(): name
    for name, t in [*model.named_parameters(), ("batch", batch)]
}
kept: dict[int, int] = {}
saved_but_held: set[str] = set()


def count(tensor: torch.Tensor) -> torch.Tensor:
    storage = tensor.untyped_storage()
    if storage.data_ptr() in held_anyway:
        saved_but_held.add(held_anyway[storage.data_ptr()])
    else:
        kept[storage.data_ptr()] = storage.nbytes()
    return tensor


with torch.autograd.graph.saved_tensors_hooks(count, lambda tensor: tensor):
    loss = model(batch).pow(2).mean()

print("saved, but held by our variables anyway:", sorted(saved_but_held))
print(f"tensors saved for backward: {len(kept)}, {sum(kept.values()) / 2**20:.1f} MiB")
# --8<-- [end:memory]

# --8<-- [start:running-total]
import torch.nn.functional as F
from torch import nn


def train_with_running_total(retain_graph: bool) -> None:
    """Three batches; the losses are added up in a running total kept as a tensor."""
    torch.manual_seed(0)
    model = nn.Linear(3, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    total = 0.0
    for step in range(3):
        inputs, targets = torch.randn(8, 3), torch.randn(8, 1)
        optimizer.zero_grad()
        loss = F.mse_loss(model(inputs), targets)
        (own,) = torch.autograd.grad(loss, model.bias, retain_graph=True)  # this batch alone
        total = total + loss  # a tensor: it still holds every earlier loss's graph
        total.backward(retain_graph=retain_graph)
        used = model.bias.grad.item()
        print(f"step {step}: bias gradient used {used:+.4f}, this batch's own {own.item():+.4f}")
        optimizer.step()


# --8<-- [end:running-total]

# --8<-- [start:running-total-retained]
train_with_running_total(retain_graph=True)
# --8<-- [end:running-total-retained]

# --8<-- [start:running-total-fixed]
torch.manual_seed(0)
model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
total = 0.0
for step in range(3):
    inputs, targets = torch.randn(8, 3), torch.randn(8, 1)
    optimizer.zero_grad()
    loss = F.mse_loss(model(inputs), targets)
    total += loss.item()  # a plain number: no graph is kept
    loss.backward()  # this batch's graph only
    print(f"step {step}: bias gradient used {model.bias.grad.item():+.4f}, total {total:.4f}")
    optimizer.step()
# --8<-- [end:running-total-fixed]


# --8<-- [start:rnn]
def train_rnn(retain_graph: bool = False, detach: bool = False) -> None:
    """A recurrent cell that carries its hidden state h from one step to the next."""
    torch.manual_seed(0)
    cell = nn.RNNCell(3, 4)  # h = tanh(W_ih x + b_ih + W_hh h + b_hh)
    head = nn.Linear(4, 1)
    optimizer = torch.optim.SGD([*cell.parameters(), *head.parameters()], lr=0.1)
    h = torch.zeros(1, 4)
    for step in range(4):
        x, target = torch.randn(1, 3), torch.randn(1, 1)
        if detach:
            h = h.detach()  # same values, cut off from the old graph
        optimizer.zero_grad()
        h = cell(x, h)  # the new h is computed from the old one
        loss = F.mse_loss(head(h), target)
        loss.backward(retain_graph=retain_graph)
        optimizer.step()  # changes the weights in place
        print(f"step {step}: loss {loss.item():.4f}")


# --8<-- [end:rnn]

# --8<-- [start:rnn-detached]
train_rnn(detach=True)
# --8<-- [end:rnn-detached]

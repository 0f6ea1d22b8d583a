"""Chapter 6, retain_graph: a graph is used once, unless you ask PyTorch to keep it.

A region named ``<name>-maths`` lies inside region ``<name>`` and holds its computation
without the input the page gives it, so that tests/maths can run the page's own code on
inputs of its own. The page never shows these markers.
"""

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

"""Part 1, chapter 5: what the graph keeps for backward.

Each region is included by docs/graph/saved-tensors.md. The file also runs top to
bottom on its own: `python snippets/graph/saved_tensors.py`. The calls that fail on
purpose live in the page, in `raises=` blocks.
"""
# Each region imports what it first needs, where the page shows it.
# ruff: noqa: E402

# --8<-- [start:mul]
import torch


def saved_names(node):
    """The names of the values a node saved for the backward pass."""
    return [name for name in dir(node) if name.startswith("_saved_")]


a = torch.tensor(2.0, requires_grad=True)
b = torch.tensor(5.0, requires_grad=True)
p = a * b

print(p.grad_fn.name(), "saved:", saved_names(p.grad_fn))
print("_saved_self: ", p.grad_fn._saved_self)  # the first input, a
print("_saved_other:", p.grad_fn._saved_other)  # the second input, b
# --8<-- [end:mul]


# --8<-- [start:mul-cases]
def shown(value):
    return "None" if value is None else value.item()


print(f"{'requires grad':15} {'_saved_self (a)':17} _saved_other (b)")
for label, a_tracked, b_tracked in [
    ("a and b", True, True),
    ("only a", True, False),
    ("only b", False, True),
]:
    a = torch.tensor(2.0, requires_grad=a_tracked)
    b = torch.tensor(5.0, requires_grad=b_tracked)
    node = (a * b).grad_fn
    print(f"{label:15} {shown(node._saved_self)!s:17} {shown(node._saved_other)}")
# --8<-- [end:mul-cases]

# --8<-- [start:same-memory]
a = torch.tensor(2.0, requires_grad=True)
b = torch.tensor(5.0)
node = (a * b).grad_fn

same = node._saved_other.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
print("the saved b uses b's own memory:", same)
# --8<-- [end:same-memory]

# --8<-- [start:pow]
a = torch.tensor(2.0, requires_grad=True)
y = a**3
node = y.grad_fn

print(node.name(), "saved:", saved_names(node))
print("_saved_self:    ", node._saved_self)
print("_saved_exponent:", node._saved_exponent, type(node._saved_exponent).__name__)

# The local derivative n * a^(n-1), computed from the saved values alone:
from_saved = node._saved_exponent * node._saved_self ** (node._saved_exponent - 1)
print("n * a^(n-1) from the saved values:", from_saved.item())
# --8<-- [end:pow]

# --8<-- [start:exp]
a = torch.tensor(2.0, requires_grad=True)
e = a.exp()
node = e.grad_fn

print(node.name(), "saved:", saved_names(node))
print(f"_saved_result: {node._saved_result.item():.4f} | e: {e.item():.4f}")
print(
    "the saved result uses e's memory:",
    node._saved_result.untyped_storage().data_ptr() == e.untyped_storage().data_ptr(),
)
# --8<-- [end:exp]

# --8<-- [start:sum]
v = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
total = v.sum()
node = total.grad_fn

print(node.name(), "saved:", saved_names(node))
print("_saved_self_sym_sizes:", node._saved_self_sym_sizes, "(a shape, not a tensor)")
# --8<-- [end:sum]

# --8<-- [start:freed]
a = torch.tensor(2.0, requires_grad=True)
y = a**3
print("before backward():", y.grad_fn._saved_self)

y.backward()  # uses the saved a, then frees it
print("a.grad:", a.grad)
# --8<-- [end:freed]

# --8<-- [start:freed-number]
print("_saved_exponent after backward():", y.grad_fn._saved_exponent)
# --8<-- [end:freed-number]

# --8<-- [start:twice]
v = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
total = v.sum()  # SumBackward0 saves a shape, no tensor

total.backward()
print("after one backward():", v.grad)
total.backward()  # the same graph again: nothing it needs was freed
print("after two:           ", v.grad)
# --8<-- [end:twice]

# --8<-- [start:kept-alive]
import weakref

a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
h = a.exp()  # an intermediate result
loss = h.sin().sum()  # SinBackward0 saves h: the derivative of sin(h) is cos(h)

watch = weakref.ref(h)  # watch() gives h while it exists, None once it is gone
del h  # the code drops its only name for h
print("h still exists, kept by the graph:", watch() is not None)

loss.backward()  # uses the saved h, then frees it
print("after backward():                 ", watch() is not None)
# --8<-- [end:kept-alive]

# --8<-- [start:saved-output]
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
h = a.exp()  # ExpBackward0 saves its own result, h
loss = h.sum()  # SumBackward0 saves no tensor

watch = weakref.ref(h)
memory = h.untyped_storage().data_ptr()  # compared below, never printed
del h
saved = loss.grad_fn.next_functions[0][0]._saved_result  # what ExpBackward0 kept
print("the object h still exists:      ", watch() is not None)
print("the node still holds h's memory:", saved.untyped_storage().data_ptr() == memory)
# --8<-- [end:saved-output]

# --8<-- [start:dropped]
h = a.exp()
loss = h.sin().sum()
watch = weakref.ref(h)
del h
print("h kept by the graph:          ", watch() is not None)

loss = None  # no backward(): the last name of the graph's output is rebound
print("after the graph's output went:", watch() is not None)
# --8<-- [end:dropped]

# --8<-- [start:two-graphs]
count = {"alive": 0, "most": 0}  # saved tensors alive now, and the most at one time


def freed():
    count["alive"] -= 1


def pack(t):  # PyTorch calls this each time a node saves a tensor t
    kept = t.detach()  # the same memory, as an object of our own
    count["alive"] += 1
    count["most"] = max(count["most"], count["alive"])
    weakref.finalize(kept, freed)  # calls freed() once kept is gone
    return kept  # the node keeps this


def unpack(kept):  # called when backward() needs the saved tensor back
    return kept


with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    count["most"] = 0
    for _ in range(3):
        loss = a.exp().sin().sum()  # a new graph, which saves 2 tensors
    print("rebinding loss:  alive at the end", count["alive"], "| at most", count["most"])

    loss = None  # let the last graph go before the next loop
    count["most"] = 0
    for _ in range(3):
        loss = a.exp().sin().sum()
        loss.backward()  # frees this graph's saved tensors
    print("with backward(): alive at the end", count["alive"], "| at most", count["most"])

    count["most"] = 0
    for _ in range(3):
        loss = a.exp().sin().sum()
        del loss  # drops the graph before the next one is built
    print("with del loss:   alive at the end", count["alive"], "| at most", count["most"])
# --8<-- [end:two-graphs]

# --8<-- [start:retain]
a = torch.tensor(2.0, requires_grad=True)
y = a**3

y.backward(retain_graph=True)  # keep the saved values
print("still saved:", y.grad_fn._saved_self)

y.backward()  # the second pass works; this one frees the graph
print("a.grad after two passes:", a.grad)
# --8<-- [end:retain]

"""Part 1, chapter 1: requires_grad, the flag that tells autograd what to track.

Each region is included by docs/graph/requires-grad.md. The file also runs top to
bottom on its own: `python snippets/graph/requires_grad.py`. The calls that fail on
purpose live in the page, in `raises=` blocks.
"""

# --8<-- [start:default]
import torch

data = torch.tensor([1.0, 2.0, 3.0])  # an ordinary tensor
w = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)  # asks to be tracked

print("data.requires_grad:", data.requires_grad)
print("w.requires_grad:   ", w.requires_grad)
print(w)
# --8<-- [end:default]

# --8<-- [start:factories]
torch.manual_seed(0)

zeros = torch.zeros(2, requires_grad=True)
noise = torch.randn(2, requires_grad=True)
print("zeros:", zeros.requires_grad, "| noise:", noise.requires_grad)
# --8<-- [end:factories]

# --8<-- [start:later]
b = torch.tensor(0.0)  # created without tracking
print("before:", b.requires_grad)

returned = b.requires_grad_()  # the trailing underscore: it changes b in place
print("after: ", b.requires_grad)
print("returns b itself:", returned is b)

b.requires_grad_(False)  # the same call with False turns tracking off again
print("off again:", b.requires_grad)
# --8<-- [end:later]

# --8<-- [start:spread]
a = torch.tensor(2.0)  # not tracked
c = torch.tensor(3.0)  # not tracked
w = torch.tensor(4.0, requires_grad=True)  # tracked

results = {
    "a + c": a + c,
    "a * w": a * w,
    "w * w": w * w,
    "(a + c) * w": (a + c) * w,
    "a.exp() + c": a.exp() + c,
}
for expression, result in results.items():
    print(f"{expression:12} requires_grad={result.requires_grad}")
# --8<-- [end:spread]

# --8<-- [start:chain]
h = a * w  # tracked, because w is
p = h + c  # tracked, because h is
loss = (p - 10.0) ** 2  # tracked, because p is

for name, t in [("h", h), ("p", p), ("loss", loss)]:
    print(f"{name:4} = {t.item():5}  requires_grad={t.requires_grad}")
# --8<-- [end:chain]

# --8<-- [start:what-for]
x = torch.tensor(3.0)  # an input from the data: nobody will change it
target = torch.tensor(6.0)  # the value the prediction should match
w = torch.tensor(1.5, requires_grad=True)  # a weight that training will change

prediction = w * x
loss = (prediction - target) ** 2
loss.backward()

print("prediction:", prediction.item(), "| loss:", loss.item())
print("w.grad:", w.grad)
print("x.grad:", x.grad)
print("target.grad:", target.grad)
# --8<-- [end:what-for]

# --8<-- [start:not-carried]
w = torch.tensor([1.5, -2.0, 0.5], requires_grad=True)

print("w > 0:      ", (w > 0).dtype, "requires_grad =", (w > 0).requires_grad)
print("w.argmax(): ", w.argmax().dtype, "requires_grad =", w.argmax().requires_grad)
print("w.long():   ", w.long().dtype, "requires_grad =", w.long().requires_grad)
print("w.round():  ", w.round().dtype, "requires_grad =", w.round().requires_grad)
# --8<-- [end:not-carried]

# --8<-- [start:like]
torch.manual_seed(0)
# New tensors of w's shape and dtype: w's values are never read.
for name, like in [
    ("zeros_like(w):", torch.zeros_like(w)),
    ("ones_like(w): ", torch.ones_like(w)),
    ("randn_like(w):", torch.randn_like(w)),
]:
    print(name, like.dtype, "requires_grad =", like.requires_grad)
# --8<-- [end:like]

# --8<-- [start:dtypes]
counts = torch.tensor([1, 2, 3])  # Python ints: PyTorch picks an integer dtype
values = torch.tensor([1.0, 2.0, 3.0])  # Python floats: a floating-point dtype
print("counts:", counts.dtype, "| values:", values.dtype)
# --8<-- [end:dtypes]

# --8<-- [start:grad-dtype]
v = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
(v * 0.25).sum().backward()  # d/dv of 0.25 * v, summed: 0.25 for each element
print("v.grad:", v.grad, "| dtype:", v.grad.dtype)
# --8<-- [end:grad-dtype]

# --8<-- [start:fix]
counts = torch.tensor([1, 2, 3])

fixed = counts.float().requires_grad_()  # a float copy of the counts, then track it
also_fixed = torch.tensor([1, 2, 3], dtype=torch.float32, requires_grad=True)

print(fixed, fixed.dtype)
print(also_fixed, also_fixed.dtype)
# --8<-- [end:fix]

# --8<-- [start:complex]
z = torch.tensor([1 + 2j]).requires_grad_()  # a complex tensor
print(z.dtype, "requires_grad =", z.requires_grad)
# --8<-- [end:complex]

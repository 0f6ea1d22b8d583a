"""Interview: Why do parameter updates run under torch.no_grad()?
(docs/interview/why-update-parameters-under-no-grad.md)"""

# --8<-- [start:setup]
import torch

x, target, lr = 2.0, 10.0, 0.01
w = torch.tensor(1.0, requires_grad=True)
b = torch.tensor(0.0, requires_grad=True)

loss = (w * x + b - target) ** 2
loss.backward()
print("w.grad:", w.grad.item(), " b.grad:", b.grad.item())  # 2(wx + b - 10)x and 2(wx + b - 10)
# --8<-- [end:setup]

# --8<-- [start:out-of-place]
v = torch.tensor(1.0, requires_grad=True)
(v * x - target).pow(2).backward()
v = v - lr * v.grad  # recorded: v is now the output of a subtraction
print("v.is_leaf:", v.is_leaf, " grad_fn:", v.grad_fn.name())

(v * x - target).pow(2).backward()
print("v.grad:", v.grad)
# --8<-- [end:out-of-place]

# --8<-- [start:right-way]
w.grad, b.grad = None, None  # start from clean gradients
for step in range(1, 6):
    loss = (w * x + b - target) ** 2
    loss.backward()
    with torch.no_grad():  # an update, not part of the model: do not record it
        w -= lr * w.grad
        b -= lr * b.grad
    w.grad.zero_()
    b.grad.zero_()
    print(f"step {step}: loss {loss.item():8.4f}  w {w.item():.4f}  b {b.item():.4f}")

print("w is still a leaf:", w.is_leaf)
# --8<-- [end:right-way]

"""Interview: Why is the loss usually a mean? (docs/interview/why-is-the-loss-usually-a-mean.md)"""

# --8<-- [start:quarter]
import torch

x = torch.tensor([2.0, 4.0, 6.0, 8.0], requires_grad=True)
x.mean().backward()  # (x1 + x2 + x3 + x4) / 4
print("gradient of the mean:", x.grad.tolist())
# --8<-- [end:quarter]

# --8<-- [start:squares]
x = torch.tensor([2.0, 4.0, 6.0, 8.0], requires_grad=True)
y = (x**2).mean()
y.backward()
print("y =", y.item())  # (4 + 16 + 36 + 64) / 4
print("x.grad =", x.grad.tolist())  # 2x / 4
# --8<-- [end:squares]

# --8<-- [start:batch-size]
torch.manual_seed(0)
w = torch.zeros(3, requires_grad=True)  # a fixed starting model
true_w = torch.tensor([1.0, -2.0, 0.5])

for n in (8, 64, 512):
    inputs = torch.randn(n, 3)
    targets = inputs @ true_w
    squared_errors = (inputs @ w - targets) ** 2
    grad_mean = torch.autograd.grad(squared_errors.mean(), w, retain_graph=True)[0]
    grad_sum = torch.autograd.grad(squared_errors.sum(), w)[0]
    mean_size, sum_size = grad_mean.norm().item(), grad_sum.norm().item()
    print(
        f"batch {n:3}: gradient size {mean_size:5.2f} with the mean, {sum_size:8.2f} with the sum"
    )
# --8<-- [end:batch-size]

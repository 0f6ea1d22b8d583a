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


# --8<-- [start:optimizers]
def weight_change(optimizer_class: type, reduction: str, steps: int) -> torch.Tensor:
    """How far the weights move in some steps, for a loss reduced with sum or mean."""
    torch.manual_seed(0)  # the same model and the same batch of 8 every time
    model = torch.nn.Linear(3, 1)
    inputs, targets = torch.randn(8, 3), torch.randn(8, 1)
    optimizer = optimizer_class(model.parameters(), lr=0.01)
    with torch.no_grad():  # a copy of the starting weights, outside the graph
        before = model.weight.clone()

    for _ in range(steps):
        squared_errors = (model(inputs) - targets) ** 2
        loss = squared_errors.sum() if reduction == "sum" else squared_errors.mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    with torch.no_grad():
        return (model.weight - before).norm()


print("distance moved with the sum / distance moved with the mean")
for optimizer_class in (torch.optim.SGD, torch.optim.Adam, torch.optim.AdamW):
    one, ten = (
        weight_change(optimizer_class, "sum", steps) / weight_change(optimizer_class, "mean", steps)
        for steps in (1, 10)
    )
    print(f"{optimizer_class.__name__:5}: after one step {one:.2f}, after ten steps {ten:.2f}")
# --8<-- [end:optimizers]


# --8<-- [start:learning-rate]
def mse_after(batch_size: int, lr: float, steps: int | None = None) -> float:
    """Plain SGD on a mean squared error; by default one pass over the same 4096 examples."""
    generator = torch.Generator().manual_seed(0)  # the same data for every run
    true_w = torch.randn(5, generator=generator)
    inputs = torch.randn(4096, 5, generator=generator)
    noise = 0.1 * torch.randn(4096, generator=generator)  # so the best MSE is about 0.01
    targets = inputs @ true_w + noise
    w = torch.zeros(5, requires_grad=True)
    optimizer = torch.optim.SGD([w], lr=lr)
    for step in range(steps or 4096 // batch_size):
        start = step * batch_size % 4096
        batch = slice(start, start + batch_size)
        loss = ((inputs[batch] @ w - targets[batch]) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    with torch.no_grad():
        return ((inputs @ w - targets) ** 2).mean().item()


rates = (0.01, 0.04, 0.16, 0.64)
print("MSE after one pass over the 4096 examples, at lr =", rates)
for batch_size in (8, 32, 128, 512):
    mse = [mse_after(batch_size, lr) for lr in rates]
    best = rates[mse.index(min(mse))]
    print(f"batch {batch_size:3}: " + "  ".join(f"{m:7.4f}" for m in mse) + f"   best lr {best}")

print("the same 512 steps at lr = 0.01:")
for batch_size in (8, 256):
    print(f"batch {batch_size:3}: MSE {mse_after(batch_size, 0.01, steps=512):.4f}")
# --8<-- [end:learning-rate]

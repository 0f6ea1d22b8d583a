"""Examples for the chapter "Scalar and non-scalar outputs".

Each region is included by docs/chapters/non-scalar-outputs.md. The file also runs
top to bottom on its own: `python snippets/chapters/non_scalar_outputs.py`.
The two calls that fail on purpose live in the page, in `raises=` blocks.

A region named ``<name>-maths`` lies inside region ``<name>`` and holds its computation
without the input the page gives it, so that tests/maths can run the page's own code on
inputs of its own. The page never shows these markers.
"""

# --8<-- [start:scalar]
import torch

x = torch.tensor(3.0, requires_grad=True)
# --8<-- [start:scalar-maths]
y = x**2
print(y.shape)  # no dimensions: y is a single number

y.backward()  # no argument needed for a scalar
print(x.grad)
# --8<-- [end:scalar-maths]
# --8<-- [end:scalar]

# --8<-- [start:scalar-explicit-one]
x = torch.tensor(3.0, requires_grad=True)
# --8<-- [start:scalar-explicit-one-maths]
y = x**2
y.backward(torch.tensor(1.0))  # spell out the starting gradient dy/dy = 1
print(x.grad)
# --8<-- [end:scalar-explicit-one-maths]
# --8<-- [end:scalar-explicit-one]

# --8<-- [start:vector-output]
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
# --8<-- [start:vector-output-maths]
y = x**2
print(y.shape)  # three numbers, not one
# --8<-- [end:vector-output-maths]
# --8<-- [end:vector-output]

# --8<-- [start:one-element]
w = torch.tensor([[2.0]], requires_grad=True)  # shape (1, 1): two dimensions, one element
# --8<-- [start:one-element-maths]
y = w * 3
print(y)
print(y.shape, "elements:", y.numel())

y.backward()  # no argument needed: there is only one element to start from
print(w.grad)
# --8<-- [end:one-element-maths]
# --8<-- [end:one-element]

# --8<-- [start:fix-sum]
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
# --8<-- [start:fix-sum-maths]
(x**2).sum().backward()  # one number: x1² + x2² + x3²
print(x.grad)
# --8<-- [end:fix-sum-maths]
# --8<-- [end:fix-sum]

# --8<-- [start:training-mean]
w = torch.tensor(1.5, requires_grad=True)
inputs = torch.tensor([1.0, 2.0, 3.0])
targets = torch.tensor([2.0, 4.0, 6.0])

# --8<-- [start:training-mean-maths]
prediction = w * inputs  # one value per example: a vector
loss = ((prediction - targets) ** 2).mean()  # averaged over the batch: a scalar
print(prediction.shape, loss.shape)

loss.backward()  # works: the loss is a single number
print(w.grad)
# --8<-- [end:training-mean-maths]
# --8<-- [end:training-mean]

# --8<-- [start:fix-ones]
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
# --8<-- [start:fix-ones-maths]
y = x**2
y.backward(torch.ones_like(y))  # one weight per element of y, all equal to 1
print(x.grad)
# --8<-- [end:fix-ones-maths]
# --8<-- [end:fix-ones]

# --8<-- [start:jacobian]
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)

# --8<-- [start:jacobian-maths]
# Only to look at it: the full matrix of dy_i/dx_j for y = x**2.
J = torch.autograd.functional.jacobian(lambda t: t**2, x)
print(J)
# --8<-- [end:jacobian-maths]
# --8<-- [end:jacobian]

# --8<-- [start:vjp]
v = torch.tensor([1.0, 0.1, 0.01])  # how much each output counts

# --8<-- [start:vjp-maths]
y = x**2
y.backward(v)
print(x.grad)  # what backward(v) put in x.grad, which was None before
print(v @ J)  # the vector-Jacobian product, computed from the full matrix
print(torch.allclose(x.grad, v * 2 * x))  # the hand formula v·2x
# --8<-- [end:vjp-maths]
# --8<-- [end:vjp]

# --8<-- [start:vjp-adds]
y = x**2  # a new graph from the same x
y.backward(v)  # adds another v·2x to what x.grad already holds
print(x.grad)
print(torch.allclose(x.grad, 2 * (v * 2 * x)))
# --8<-- [end:vjp-adds]

# --8<-- [start:weighted-sum]
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
# --8<-- [start:weighted-sum-maths]
y = x**2
(v * y).sum().backward()  # the scalar that backward(v) differentiates
print(x.grad)
# --8<-- [end:weighted-sum-maths]
# --8<-- [end:weighted-sum]

# --8<-- [start:mean]
x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
# --8<-- [start:mean-maths]
y = x.mean()
y.backward()
print(x.grad)
# --8<-- [end:mean-maths]
# --8<-- [end:mean]

# --8<-- [start:sum-vs-mean]
torch.manual_seed(0)
data = torch.randn(64)  # 64 made-up inputs
answers = 3 * data  # the right weight is 3


# --8<-- [start:sum-vs-mean-maths]
def weight_grad(reduce: str, n: int) -> float:
    """w.grad at w = 1 for the squared errors of the first n examples, summed or averaged."""
    w = torch.tensor(1.0, requires_grad=True)
    squared_errors = (w * data[:n] - answers[:n]) ** 2
    loss = squared_errors.sum() if reduce == "sum" else squared_errors.mean()
    loss.backward()
    return w.grad.item()


# --8<-- [end:sum-vs-mean-maths]
batch_sizes = list(range(4, 65, 4))
sum_grads = [weight_grad("sum", n) for n in batch_sizes]
mean_grads = [weight_grad("mean", n) for n in batch_sizes]

for n, g_sum, g_mean in zip(batch_sizes, sum_grads, mean_grads, strict=True):
    if n in (4, 20, 64):
        print(f"n = {n:2}: sum {g_sum:#7.4g}, mean {g_mean:#.4g}, sum / mean {g_sum / g_mean:.4f}")
print(f"mean() for every n from 4 to 64: between {min(mean_grads):.2f} and {max(mean_grads):.2f}")
# --8<-- [end:sum-vs-mean]

# --8<-- [start:worked-practice]
x = torch.tensor([2.0, 4.0, 6.0, 8.0], requires_grad=True)
# --8<-- [start:worked-practice-maths]
y = (x**2).mean()
y.backward()

print(y.item())
print(x.grad.tolist())
# --8<-- [end:worked-practice-maths]
# --8<-- [end:worked-practice]


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

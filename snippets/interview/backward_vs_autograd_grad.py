"""Interview: backward() vs torch.autograd.grad() (docs/interview/backward-vs-autograd-grad.md)"""

# --8<-- [start:setup]
import torch

w = torch.tensor(3.0, requires_grad=True)
b = torch.tensor(1.0, requires_grad=True)
x, target = 2.0, 10.0


def loss_and_prediction() -> tuple[torch.Tensor, torch.Tensor]:
    prediction = w * x + b  # 7
    return (prediction - target) ** 2, prediction  # loss = 9


# --8<-- [end:setup]


# --8<-- [start:grad]
loss, _ = loss_and_prediction()
grad_w, grad_b = torch.autograd.grad(loss, [w, b])  # returned, not stored
print("returned:", grad_w, grad_b)
print("w.grad:  ", w.grad)
# --8<-- [end:grad]

# --8<-- [start:backward]
loss, _ = loss_and_prediction()
result = loss.backward()  # stored in .grad, nothing returned
print("returned:", result)
print("w.grad:  ", w.grad, " b.grad:", b.grad)
# --8<-- [end:backward]

# --8<-- [start:intermediate]
loss, prediction = loss_and_prediction()
(grad_prediction,) = torch.autograd.grad(loss, prediction)  # a non-leaf input
print("dloss/dprediction:", grad_prediction)  # 2(prediction - target)
# --8<-- [end:intermediate]

# --8<-- [start:second-derivative]
x = torch.tensor(3.0, requires_grad=True)
y = x**3
(dy_dx,) = torch.autograd.grad(y, x, create_graph=True)  # a result that has its own graph
(d2y_dx2,) = torch.autograd.grad(dy_dx, x)
print("dy/dx   =", dy_dx.item())  # 3x² = 27
print("d²y/dx² =", d2y_dx2.item())  # 6x = 18
# --8<-- [end:second-derivative]

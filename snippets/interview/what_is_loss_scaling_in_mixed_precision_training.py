"""Interview: What is loss scaling in mixed-precision training?
(docs/interview/what-is-loss-scaling-in-mixed-precision-training.md)"""

# --8<-- [start:range]
import torch
import torch.nn.functional as F
from torch import nn

for dtype in (torch.float16, torch.bfloat16, torch.float32):
    info = torch.finfo(dtype)
    small = torch.tensor(1e-8, dtype=dtype).item()  # a typical tiny gradient
    print(f"{dtype!s:15} largest {info.max:8.3g}  smallest normal {info.tiny:8.3g}", end="")
    print(f"  eps {info.eps:8.3g}  1e-8 becomes {small:.3g}")
print("below its smallest normal, float16 still keeps 6e-8, as", end=" ")
print(f"{torch.tensor(6e-8, dtype=torch.float16).item():.3g}")
# --8<-- [end:range]

# --8<-- [start:underflow]
w = torch.tensor([1.0, 2.0], dtype=torch.float16, requires_grad=True)
x = torch.tensor([1e-4, 2e-4], dtype=torch.float16)
h = w * x  # a float16 activation
loss = h.float().sum() * 1e-4  # the loss in float32, as autocast computes losses
loss.backward()
print("float16 gradient:", w.grad)  # the true gradient is x * 1e-4 = [1e-8, 2e-8]
# --8<-- [end:underflow]

# --8<-- [start:scaled]
w.grad = None
scale = 2.0**16  # 65536, GradScaler's default starting scale
h = w * x
loss = h.float().sum() * 1e-4
(loss * scale).backward()  # every gradient on the way back is 65536 times larger
print("scaled float16 gradient:", w.grad)
print("unscaled in float32:    ", w.grad.float() / scale)
# --8<-- [end:scaled]

# --8<-- [start:gradscaler]
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))  # float32 parameters
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
scaler = torch.amp.GradScaler("cpu")
print(f"start scale {scaler.get_scale():g}, backoff factor {scaler.get_backoff_factor()},", end=" ")
print(f"growth factor {scaler.get_growth_factor()} after {scaler.get_growth_interval()} good steps")
inputs = torch.randn(64, 8)
targets = inputs.sum(dim=1, keepdim=True)

for step in range(6):
    with torch.autocast("cpu", dtype=torch.float16):  # matrix products in float16
        loss = F.mse_loss(model(inputs).float(), targets)
    optimizer.zero_grad()
    scale = scaler.get_scale()
    scaler.scale(loss).backward()  # backward of loss * scale
    finite = all(torch.isfinite(p.grad).all() for p in model.parameters())
    before = model[0].weight.detach().clone()
    scaler.step(optimizer)  # unscales, then steps only if every gradient is finite
    scaler.update()  # halves the scale after an inf or nan
    moved = not torch.equal(before, model[0].weight)
    print(
        f"step {step}: scale {scale:7.0f}  gradients finite {finite!s:5}  "
        f"weights updated {moved!s:5}  loss {loss.item():.2f}"
    )
# --8<-- [end:gradscaler]


# --8<-- [start:clipping]
def clipped_step(unscale_first: bool) -> None:
    """One scaled step with gradient clipping at norm 1, with or without unscale_()."""
    torch.manual_seed(0)
    model = nn.Linear(4, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cpu")
    inputs = torch.randn(16, 4)
    loss = F.mse_loss(model(inputs), 3 * inputs.sum(dim=1, keepdim=True))
    scaler.scale(loss).backward()
    if unscale_first:
        scaler.unscale_(optimizer)  # .grad now holds the true gradients
    seen = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    scaler.step(optimizer)  # unscales here if unscale_() was not called
    scaler.update()
    used = torch.cat([p.grad.flatten() for p in model.parameters()]).norm()
    print(
        f"unscale_() first: {unscale_first!s:5}  norm seen by clipping {seen.item():9.4g}  "
        f"norm of the gradient the step used {used.item():.4g}"
    )


clipped_step(unscale_first=True)
clipped_step(unscale_first=False)
# --8<-- [end:clipping]

"""Interview: .data vs detach() (docs/interview/data-vs-detach.md)."""

# --8<-- [start:alike]
import torch

x = torch.tensor([0.0, 1.0], requires_grad=True)
e = torch.exp(x)
for name, t in [("e.data", e.data), ("e.detach()", e.detach())]:
    shared = t.untyped_storage().data_ptr() == e.untyped_storage().data_ptr()
    print(
        f"{name:11} requires_grad={t.requires_grad}  grad_fn={t.grad_fn}  shares storage: {shared}"
    )
# --8<-- [end:alike]

# --8<-- [start:data]
x = torch.tensor([0.0, 1.0], requires_grad=True)
e = torch.exp(x)  # ExpBackward0 saves e: d/dx exp(x) = exp(x)
e.data.mul_(2)  # an in-place change through .data
print("e._version after e.data.mul_(2):", e._version)  # not counted

e.sum().backward()  # no error
print("x.grad    =", x.grad.tolist())
print("right one =", torch.exp(x.detach()).tolist())
# --8<-- [end:data]

# --8<-- [start:detach]
x = torch.tensor([0.0, 1.0], requires_grad=True)
e = torch.exp(x)
e.detach().mul_(2)  # the same change through detach()
print("e._version after e.detach().mul_(2):", e._version)  # counted
# --8<-- [end:detach]

"""Interview: detach() vs no_grad() vs inference_mode().

docs/interview/detach-vs-no-grad-vs-inference-mode.md
"""

# --8<-- [start:scope]
import torch

x = torch.tensor(2.0, requires_grad=True)

# detach() acts on one tensor: the code around it is still recorded.
y = x**2
constant = y.detach()  # y's value, 4, as a constant
loss = x * constant + y  # recorded: loss = 4x + x²
loss.backward()
print("with detach(): x.grad =", x.grad.item())  # 4 + 2x = 8, not 3x² + 2x = 16

# no_grad() acts on a block of code: nothing inside is recorded.
with torch.no_grad():
    inside = x * 3 + x**2
print("inside no_grad(): requires_grad", inside.requires_grad, " grad_fn", inside.grad_fn)
# --8<-- [end:scope]

# --8<-- [start:compare]
w = torch.tensor([1.0, 1.0], requires_grad=True)
source = torch.tensor([2.0, 3.0], requires_grad=True)


def version(t):
    try:
        return t._version
    except RuntimeError:  # inference tensors have no version counter
        return "none"


def can_be_saved_for_backward(t):
    try:
        w * t  # multiplication by w saves t, for the gradient of w
        return "yes"
    except RuntimeError:
        return "no"


doubled = source * 2
made_by_detach = doubled.detach()
shared = made_by_detach.untyped_storage().data_ptr() == doubled.untyped_storage().data_ptr()
print("detach() shares storage with the tensor it came from:", shared)
with torch.no_grad():
    made_by_no_grad = source * 2
with torch.inference_mode():
    made_by_inference_mode = source * 2

print(f"{'made by':16} {'requires_grad':14} {'is_inference':13} {'version':8} saved for backward")
for name, t in [
    ("detach()", made_by_detach),
    ("no_grad()", made_by_no_grad),
    ("inference_mode()", made_by_inference_mode),
]:
    print(
        f"{name:16} {t.requires_grad!s:14} {t.is_inference()!s:13} {version(t)!s:8} "
        f"{can_be_saved_for_backward(t)}"
    )
# --8<-- [end:compare]

# --8<-- [start:train]
with torch.inference_mode():
    features = torch.ones(2)  # an inference tensor
w = torch.zeros(2, requires_grad=True)

# w + features saves nothing for backward: allowed.
(w + features).sum().backward()
print("w + features: w.grad =", w.grad, " saved for backward:", can_be_saved_for_backward(features))

# A clone made outside the mode is an ordinary tensor, and can be saved.
copy = features.clone()
print(
    "clone: is_inference",
    copy.is_inference(),
    " saved for backward:",
    can_be_saved_for_backward(copy),
)
w.grad = None
(w * copy).sum().backward()  # saves copy, for the gradient of w
print("w * copy: w.grad =", w.grad)
# --8<-- [end:train]

"""Interview: what are hooks, and what are they used for?

docs/interview/what-are-hooks-used-for.md
"""

# --8<-- [start:tensor-hook]
import torch
from torch import nn

x = torch.tensor(2.0, requires_grad=True)
y = 3 * x  # an intermediate tensor: its gradient is not kept
handle = y.register_hook(lambda grad: print("gradient arriving at y:", grad.item()))
(y**2).backward()  # d(y^2)/dy = 2y = 12
print("x.grad:", x.grad.item())  # 12 * 3
handle.remove()  # every register_* returns a handle; remove() takes the hook off
# --8<-- [end:tensor-hook]

# --8<-- [start:tensor-hook-change]
x = torch.tensor(2.0, requires_grad=True)
y = 3 * x
y.register_hook(lambda grad: grad.clamp(max=5.0))  # a returned tensor replaces the gradient
(y**2).backward()
print("x.grad with the gradient at y capped at 5:", x.grad.item())  # 5 * 3
# --8<-- [end:tensor-hook-change]

# --8<-- [start:forward-hook]
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
activations = {}


def keep_output(name):
    def hook(module, inputs, output):  # runs after module.forward
        activations[name] = output.detach()

    return hook


for name, module in model.named_children():
    module.register_forward_hook(keep_output(name))

model(torch.randn(16, 4))
for name, out in activations.items():
    zeros = (out == 0).float().mean()
    print(f"layer {name}: output {tuple(out.shape)}, fraction of zeros {zeros:.2f}")
# --8<-- [end:forward-hook]


# --8<-- [start:dead-units]
def dead_units():
    """The ReLU's units that output 0 for every one of 1000 inputs."""
    model(torch.randn(1000, 4, generator=torch.Generator().manual_seed(1)))
    return (activations["1"] == 0).all(dim=0).nonzero().flatten().tolist()


print("dead units:", dead_units())
bias = model[0].bias
saved = bias.detach().clone()
with torch.no_grad():
    bias[3] = -100.0  # as a too-large update can leave it: unit 3 never fires again
print("dead units after bias[3] = -100:", dead_units())
with torch.no_grad():
    bias.copy_(saved)  # put the model back
# --8<-- [end:dead-units]


# --8<-- [start:backward-hook]
def report(module, grad_input, grad_output):  # runs when the module's gradients are computed
    print(f"{type(module).__name__:6} gradient of its output: norm {grad_output[0].norm():.3g}")


# The layers after the first (the first one's input needs no gradient).
handles = [module.register_full_backward_hook(report) for module in model[1:]]
model(torch.randn(16, 4)).pow(2).mean().backward()
for handle in handles:
    handle.remove()
# --8<-- [end:backward-hook]

# --8<-- [start:post-accumulate]
weight = model[0].weight
weight.grad = None


def step_now(param):  # runs after param.grad has been accumulated
    print("accumulated: grad norm", f"{param.grad.norm():.3g}", "-> update and free it")
    with torch.no_grad():
        param -= 0.1 * param.grad
    param.grad = None


weight.register_post_accumulate_grad_hook(step_now)
model(torch.randn(16, 4)).pow(2).mean().backward()
print("weight.grad after backward:", weight.grad)
# --8<-- [end:post-accumulate]

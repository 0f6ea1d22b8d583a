"""Interview: Why don't batch norm and per-sample gradients mix?

Included by docs/interview/why-dont-batch-norm-and-per-sample-gradients-mix.md.
"""

# --8<-- [start:coupling]
import copy

import torch
from torch import nn
from torch.func import functional_call, grad, replace_all_batch_norm_modules_, vmap

torch.manual_seed(0)
mlp = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Tanh(), nn.Linear(4, 1))
X = torch.randn(8, 3)
X_changed = X.clone()
X_changed[7] += 1.0  # change example 7 only

for mode in ("train", "eval"):
    mlp.train(mode == "train")
    before, after = mlp(X)[0, 0], mlp(X_changed)[0, 0]  # the output for example 0
    print(f"{mode} mode: output 0 is {before:.4f}, then {after:.4f} after example 7 changed")
mlp.train()
# --8<-- [end:coupling]

# --8<-- [start:bn1d-setup]
target = torch.randn(8)
params = {name: p.detach() for name, p in mlp.named_parameters()}
buffers = {name: b for name, b in mlp.named_buffers()}


def example_loss(params, buffers, x, t):
    """The loss of one example, run as a batch of one."""
    prediction = functional_call(mlp, (params, buffers), (x.unsqueeze(0),)).squeeze()
    return (prediction - t) ** 2


# --8<-- [end:bn1d-setup]

# --8<-- [start:bn2d-setup]
torch.manual_seed(0)
images = torch.randn(6, 2, 3, 3).double()  # 6 examples, 2 channels, 3 x 3 pixels
labels = torch.randn(6).double()
cnn = nn.Sequential(
    nn.Conv2d(2, 4, kernel_size=2, bias=False),
    nn.BatchNorm2d(4),
    nn.Tanh(),
    nn.Flatten(),
    nn.Linear(4 * 2 * 2, 1),
).double()


def per_sample(model: nn.Module) -> torch.Tensor:
    """vmap(grad(...)): one row per example, for the weight of layer 1 (the norm)."""
    params = {name: p.detach() for name, p in model.named_parameters()}
    buffers = dict(model.named_buffers())

    def loss(params, x, t):
        prediction = functional_call(model, (params, buffers), (x.unsqueeze(0),))
        return (prediction.squeeze() - t) ** 2

    return vmap(grad(loss), in_dims=(None, 0, 0))(params, images, labels)["1.weight"]


def batch_gradient(model: nn.Module) -> torch.Tensor:
    """The gradient of the batch's summed loss: what a training step uses."""
    model.zero_grad()
    ((model(images).squeeze(1) - labels) ** 2).sum().backward()
    return model[1].weight.grad.clone()


def one_at_a_time(model: nn.Module) -> torch.Tensor:
    """Each example run on its own, as a batch of one, with backward()."""
    rows = []
    for i in range(len(images)):
        model.zero_grad()
        ((model(images[i : i + 1]).squeeze() - labels[i]) ** 2).backward()
        rows.append(model[1].weight.grad.clone())
    return torch.stack(rows)


# --8<-- [end:bn2d-setup]

# --8<-- [start:bn2d-patched]
replace_all_batch_norm_modules_(cnn)  # no running statistics any more
rows = per_sample(cnn)
print("vmap ran, rows of shape", tuple(rows.shape))
print("rows equal each example run on its own:", torch.allclose(rows, one_at_a_time(cnn)))
print("sum of the rows:     ", rows.sum(dim=0))
print("the batch's gradient:", batch_gradient(cnn))
# --8<-- [end:bn2d-patched]


# --8<-- [start:fixes]
def with_norm(norm: nn.Module) -> nn.Module:
    """The same network and weights, with another normalisation layer."""
    model = copy.deepcopy(cnn)
    model[1] = norm.double()
    return model


group_norm = with_norm(nn.GroupNorm(num_groups=2, num_channels=4))
frozen = with_norm(nn.BatchNorm2d(4))
with torch.no_grad():
    frozen[1].running_mean.uniform_(-0.5, 0.5)  # statistics from earlier batches
    frozen[1].running_var.uniform_(0.5, 1.5)
frozen.eval()  # normalise with the running statistics, the same for every example

for name, model in [("GroupNorm", group_norm), ("BatchNorm2d, eval mode", frozen)]:
    rows = per_sample(model)
    same = torch.allclose(rows.sum(dim=0), batch_gradient(model))
    print(f"{name:23} rows sum to the batch's gradient: {same}")
# --8<-- [end:fixes]

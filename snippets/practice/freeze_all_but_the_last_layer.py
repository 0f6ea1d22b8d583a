"""Exercise 3.3: freeze all but the last layer.

Run it: python snippets/practice/freeze_all_but_the_last_layer.py
"""
# Each region is a self-contained cell (page, notebook), so imports repeat.
# ruff: noqa: E402, F811

# --8<-- [start:starter]
# Set-up: run it as it is.
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 3))
inputs, labels = torch.randn(32, 4), torch.randint(0, 3, (32,))
before = {name: p.detach().clone() for name, p in model.named_parameters()}


def train(optimizer, steps=5):
    """A few training steps of the model with the optimizer you give it."""
    for _ in range(steps):
        optimizer.zero_grad()
        F.cross_entropy(model(inputs), labels).backward()
        optimizer.step()


# Your code:
# 1. Freeze every parameter of the model except those of the last layer, model[4].
# 2. Create `optimizer`: torch.optim.SGD over the trainable parameters only,
#    with lr=0.1, momentum=0.9 and weight_decay=0.01.
# 3. Call train(optimizer).
# --8<-- [end:starter]

# --8<-- [start:solution]
# Set-up: run it as it is.
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 3))
inputs, labels = torch.randn(32, 4), torch.randint(0, 3, (32,))
before = {name: p.detach().clone() for name, p in model.named_parameters()}


def train(optimizer, steps=5):
    """A few training steps of the model with the optimizer you give it."""
    for _ in range(steps):
        optimizer.zero_grad()
        F.cross_entropy(model(inputs), labels).backward()
        optimizer.step()


# Your code:
model[:4].requires_grad_(False)  # the first four modules: Linear, ReLU, Linear, ReLU
trainable = [p for p in model.parameters() if p.requires_grad]
optimizer = torch.optim.SGD(trainable, lr=0.1, momentum=0.9, weight_decay=0.01)
train(optimizer)

trained = sum(p.numel() for p in trainable)
print("trainable values:", trained, "of", sum(p.numel() for p in model.parameters()))
print(".grad is None for:", [n for n, p in model.named_parameters() if p.grad is None])
# --8<-- [end:solution]

# --8<-- [start:check]
# Checks your model, your optimizer and the weights kept in `before`: which parameters
# require grad, which have a .grad, what the optimizer holds and what moved.
import torch
from torch import nn


def check() -> str:
    model, before = globals().get("model"), globals().get("before")
    optimizer = globals().get("optimizer")
    if not isinstance(model, nn.Module) or not isinstance(before, dict):
        return "Not done yet: run the set-up lines at the top of the cell above."
    if not isinstance(optimizer, torch.optim.Optimizer):
        return "Not done yet: create `optimizer` (step 2), then call train(optimizer)."
    params = dict(model.named_parameters())
    last = [m for m in model.modules() if list(m.parameters(recurse=False))][-1]
    last_ids = {id(p) for p in last.parameters()}
    keep = [name for name, p in params.items() if id(p) in last_ids]
    frozen = [name for name, p in params.items() if id(p) not in last_ids]
    still_trainable = [name for name in frozen if params[name].requires_grad]
    wrongly_frozen = [name for name in keep if not params[name].requires_grad]
    if wrongly_frozen:
        return (
            f"Not quite: expected the last layer ({', '.join(keep)}) to require grad, got "
            f"requires_grad=False for {', '.join(wrongly_frozen)}. Freeze the other layers "
            "and leave the last one trainable."
        )
    if still_trainable:
        hint = ""
        if any(m.__dict__.get("requires_grad") is False for m in model.modules()):
            hint = (
                " `module.requires_grad = False` only sets an attribute of the module;"
                " call `module.requires_grad_(False)`, with the underscore."
            )
        elif any(not m.training for m in model.modules()):
            hint = " eval() does not freeze anything; use requires_grad_(False)."
        return (
            f"Not quite: expected only {', '.join(keep)} to require grad, got "
            f"requires_grad=True for {', '.join(still_trainable)} too.{hint}"
        )
    moved_last = [name for name in keep if not torch.equal(params[name], before[name])]
    if not moved_last:
        return "Not done yet: the last layer has not changed yet. Call train(optimizer)."
    moved = [name for name in frozen if not torch.equal(params[name], before[name])]
    if moved:
        return (
            f"Not quite: expected the frozen parameters to keep their values, got changes "
            f"in {', '.join(moved)}. Freeze them before training, and give the optimizer "
            "only the last layer's parameters."
        )
    with_grad = [name for name in frozen if params[name].grad is not None]
    if with_grad:
        return (
            f"Not quite: expected .grad None for every frozen parameter, got a gradient in "
            f"{', '.join(with_grad)}. Freeze them before any backward() runs."
        )
    held = [p for group in optimizer.param_groups for p in group["params"]]
    held_ids = {id(p) for p in held}
    if held_ids != last_ids:
        return (
            f"Not quite: expected the optimizer to hold only the {len(last_ids)} tensors of "
            f"the last layer, got {len(held)} tensors. Give it "
            "[p for p in model.parameters() if p.requires_grad]: a frozen parameter in the "
            "optimizer moves as soon as it has a .grad."
        )
    trainable = sum(p.numel() for p in last.parameters())
    total = sum(p.numel() for p in model.parameters())
    return (
        f"Correct: {trainable} of {total} values train, all in the last layer; the "
        f"{len(frozen)} frozen tensors have .grad None and kept their values, and the "
        "optimizer holds the last layer only."
    )


try:
    print(check())
except Exception as error:  # the check never crashes, whatever the cell above did
    print(f"Not done yet: the check could not read your answer ({type(error).__name__}: {error}).")
# --8<-- [end:check]

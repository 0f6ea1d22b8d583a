"""Examples for the chapter "Freezing parameters and transfer learning".

Each region is included by docs/control/freezing.md. Run the whole file with
`python snippets/control/freezing.py`.
"""
# ruff: noqa: E402

# --8<-- [start:one-parameter]
import torch
from torch import nn

torch.manual_seed(0)
layer = nn.Linear(3, 1)
x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])

layer(x).sum().backward()
print("both trainable:")
print("  weight.grad:", layer.weight.grad)
print("  bias.grad:  ", layer.bias.grad)

layer.zero_grad()  # sets both .grad back to None
layer.weight.requires_grad_(False)  # freeze the weight, in place
layer(x).sum().backward()
print("weight frozen:")
print("  weight.requires_grad:", layer.weight.requires_grad)
print("  weight.grad:", layer.weight.grad)
print("  bias.grad:  ", layer.bias.grad)
# --8<-- [end:one-parameter]


# --8<-- [start:count]
def count(model: nn.Module) -> tuple[int, int]:
    """(trainable, total) numbers of parameter values in a model."""
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    total = sum(p.numel() for p in model.parameters())
    return trainable, total


def grads_that_are_none(model: nn.Module) -> list[str]:
    """The names of the parameters whose .grad is None."""
    return [name for name, p in model.named_parameters() if p.grad is None]


# --8<-- [end:count]

# --8<-- [start:module]
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 2))
for name, p in model.named_parameters():
    shape = str(tuple(p.shape))
    print(f"{name:9} shape {shape:7} {p.numel():3} values")
print("trainable, total:", count(model))

model[0].requires_grad_(False)  # a module: every parameter inside it
model[2].requires_grad_(False)
print("after freezing layers 0 and 2:", count(model))

inputs = torch.randn(5, 4)
model(inputs).sum().backward()
print(".grad is None for:", grads_that_are_none(model))
# --8<-- [end:module]

# --8<-- [start:graph]
out = model(inputs).sum()
print("out.grad_fn:", out.grad_fn.name())
nodes, stack = [], [out.grad_fn]
while stack:  # walk the recorded graph from the output back to the leaves
    node = stack.pop()
    nodes.append(type(node).__name__)
    stack.extend(child for child, _ in node.next_functions if child is not None)
print("nodes:", nodes)
print("AccumulateGrad nodes (one per trainable leaf):", nodes.count("AccumulateGrad"))
# --8<-- [end:graph]

# --8<-- [start:frozen-middle]
torch.manual_seed(0)
middle = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 2))
middle[2].requires_grad_(False)  # only the middle layer frozen
hidden = middle[:3](inputs)  # the first three modules: up to the frozen layer's output
print("frozen layer's output: grad_fn", hidden.grad_fn.name())

middle_out = middle(inputs).sum()
nodes, stack = [], [middle_out.grad_fn]
while stack:  # the same walk as above
    node = stack.pop()
    nodes.append(type(node).__name__)
    stack.extend(child for child, _ in node.next_functions if child is not None)
print("AddmmBackward0 nodes (one per linear layer):", nodes.count("AddmmBackward0"))
middle_out.backward()
print(".grad is None for:", grads_that_are_none(middle))
# --8<-- [end:frozen-middle]

# --8<-- [start:all-frozen]
model.requires_grad_(False)  # now the last layer too
print("trainable, total:", count(model))
out = model(inputs).sum()
print("out.requires_grad:", out.requires_grad, " out.grad_fn:", out.grad_fn)
# --8<-- [end:all-frozen]

# --8<-- [start:stale-grad]
# --8<-- [start:stale-grad-setup]
w = nn.Parameter(torch.tensor([1.0, 2.0]))
optimizer = torch.optim.SGD([w], lr=0.1, momentum=0.9, weight_decay=0.1)
# --8<-- [end:stale-grad-setup]

# --8<-- [start:stale-grad-steps]
(w**2).sum().backward()  # dL/dw = 2w = [2, 4]
optimizer.step()
print("after one training step:", w.data)

w.requires_grad_(False)  # freeze it, but the old gradient is still in w.grad
print("w.grad after freezing:", w.grad)
optimizer.step()
print("after a step with the stale gradient:", w.data)
# --8<-- [end:stale-grad-steps]
# --8<-- [end:stale-grad]

# --8<-- [start:zero-grad-kept]
# --8<-- [start:zero-grad-kept-setup]
w = nn.Parameter(torch.tensor([1.0, 2.0]))
optimizer = torch.optim.SGD([w], lr=0.1, momentum=0.9, weight_decay=0.1)
# --8<-- [end:zero-grad-kept-setup]
# --8<-- [start:zero-grad-kept-steps]
(w**2).sum().backward()
optimizer.step()
w.requires_grad_(False)

for step in range(1, 4):
    optimizer.zero_grad(set_to_none=False)  # w.grad becomes zeros, not None
    optimizer.step()
    print(f"frozen step {step}: w.grad = {w.grad.tolist()}, w = {w.data}")
# --8<-- [end:zero-grad-kept-steps]
# --8<-- [end:zero-grad-kept]

# --8<-- [start:adam]
# --8<-- [start:adam-setup]
v = nn.Parameter(torch.tensor([1.0, 2.0]))
adam = torch.optim.Adam([v], lr=0.1)
# --8<-- [end:adam-setup]
# --8<-- [start:adam-first-step]
(v**2).sum().backward()  # gradients 2 and 4
adam.step()
print(f"after one Adam step: v = {v.data}")
# --8<-- [end:adam-first-step]
# --8<-- [start:adam-frozen]
v.requires_grad_(False)
for step in range(1, 4):
    adam.zero_grad(set_to_none=False)
    adam.step()
    print(f"Adam, frozen step {step}: v.grad = {v.grad.tolist()}, v = {v.data}")
# --8<-- [end:adam-frozen]
# --8<-- [end:adam]

# --8<-- [start:grad-none-skipped]
optimizer.zero_grad()  # the default, set_to_none=True: w.grad is None again
before = w.detach().clone()
optimizer.step()
print("w.grad:", w.grad, " w moved:", not torch.equal(w, before))
# --8<-- [end:grad-none-skipped]

# --8<-- [start:only-trainable]
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
model[0].requires_grad_(False)
trainable = [p for p in model.parameters() if p.requires_grad]
optimizer = torch.optim.SGD(trainable, lr=0.1, momentum=0.9, weight_decay=0.1)
print("parameter tensors in the optimizer:", len(optimizer.param_groups[0]["params"]))

frozen_before = model[0].weight.detach().clone()
last_before = model[2].weight.detach().clone()
for _ in range(3):
    optimizer.zero_grad(set_to_none=False)
    model(inputs).sum().backward()
    optimizer.step()
print("frozen layer unchanged:", torch.equal(model[0].weight, frozen_before))
print("last layer changed:    ", not torch.equal(model[2].weight, last_before))
print("tensors with optimizer state (momentum):", len(optimizer.state))
# --8<-- [end:only-trainable]

# --8<-- [start:task-a]
import copy


def signals(points: torch.Tensor) -> torch.Tensor:
    """Three smooth signals of a point (x1, x2) in the plane, one column each."""
    x1, x2 = points[:, 0], points[:, 1]
    return torch.stack([torch.sin(2 * x1), torch.cos(2 * x2), torch.sin(x1 + x2)], dim=1)


# The whole experiment computes in float64 (`.double()`): hundreds of Adam steps amplify
# the rounding differences between CPUs. In float32 they reach the printed digits; float64
# rounds far more finely, so they stay far below them.
torch.manual_seed(0)
points_a = (torch.rand(256, 2) * 4 - 2).double()  # 256 points in the square [-2, 2]^2
targets_a = signals(points_a)  # task A: predict all three signals

body = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh())
model_a = nn.Sequential(body, nn.Linear(16, 3)).double()  # the body, then a head for task A
optimizer = torch.optim.Adam(model_a.parameters(), lr=0.03)
for step in range(200):
    optimizer.zero_grad()
    loss = ((model_a(points_a) - targets_a) ** 2).mean()
    loss.backward()
    optimizer.step()
    if step in (0, 199):
        print(f"task A, step {step + 1:3}: loss {loss.item():.4f}")
# --8<-- [end:task-a]

# --8<-- [start:task-b]
mix = torch.tensor([[1.0], [-1.0], [1.0]], dtype=torch.float64)  # task B: s1 - s2 + s3


def task_b(points: torch.Tensor) -> torch.Tensor:
    return signals(points) @ mix


points_b = (torch.rand(32, 2) * 4 - 2).double()  # only 32 labelled points to learn from
targets_b = task_b(points_b)
test_points = (torch.rand(256, 2) * 4 - 2).double()  # 256 more, never trained on
test_targets = task_b(test_points)


def train_b(model: nn.Module, steps: int, lr: float) -> tuple[list[float], list[float]]:
    """Adam on task B, over the trainable parameters only; (train, test) loss per step."""
    trainable = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.Adam(trainable, lr=lr)
    train_losses, test_losses = [], []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = ((model(points_b) - targets_b) ** 2).mean()
        loss.backward()
        optimizer.step()
        train_losses.append(loss.item())
        with torch.no_grad():  # measuring only: no graph needed
            test_losses.append(((model(test_points) - test_targets) ** 2).mean().item())
    return train_losses, test_losses


print("task B test targets: mean square", round((test_targets**2).mean().item(), 4))
# --8<-- [end:task-b]

# --8<-- [start:feature-extraction]
torch.manual_seed(1)
frozen_body = copy.deepcopy(body)  # a copy, so the trained body stays as it is
frozen_body.requires_grad_(False)
model_b = nn.Sequential(frozen_body, nn.Linear(16, 1)).double()  # a new head for task B
print("trainable, total:", count(model_b))

extract_train, extract_test = train_b(model_b, steps=100, lr=0.03)
print(".grad is None for:", grads_that_are_none(model_b))
pairs = zip(frozen_body.parameters(), body.parameters(), strict=True)
print("body unchanged:", all(torch.equal(new, old) for new, old in pairs))
print(f"after 100 steps: train loss {extract_train[-1]:.4f}, test loss {extract_test[-1]:.4f}")
after_extraction = copy.deepcopy(model_b.state_dict())  # kept for a comparison below
# --8<-- [end:feature-extraction]

# --8<-- [start:fine-tuning]
frozen_body.requires_grad_(True)  # unfreeze everything
print("trainable, total:", count(model_b))

tune_train, tune_test = train_b(model_b, steps=100, lr=0.003)  # 10 times smaller
print(".grad is None for:", grads_that_are_none(model_b))
print(f"after 100 more steps: train loss {tune_train[-1]:.4f}, test loss {tune_test[-1]:.4f}")
# --8<-- [end:fine-tuning]

# --8<-- [start:learning-rate]
for lr in (0.003, 0.03):
    trial = copy.deepcopy(model_b)
    trial.load_state_dict(after_extraction)  # back to the end of feature extraction
    trial.requires_grad_(True)
    _, test = train_b(trial, steps=100, lr=lr)
    worst = max(test)
    print(
        f"fine-tuning at lr {lr}: worst test loss {worst:.4f} (step {test.index(worst) + 1}),"
        f" last {test[-1]:.4f}"
    )
# --8<-- [end:learning-rate]


# --8<-- [start:fresh-adam]
def first_step(make_optimizer) -> tuple[torch.Tensor, torch.Tensor, float]:
    """One step from the end of feature extraction: every value's step and gradient, and
    the test loss after the step."""
    trial = copy.deepcopy(model_b)
    trial.load_state_dict(after_extraction)
    trial.requires_grad_(True)
    before = [p.detach().clone() for p in trial.parameters()]
    optimizer = make_optimizer(trial.parameters())  # a fresh optimizer: no history yet
    optimizer.zero_grad()
    ((trial(points_b) - targets_b) ** 2).mean().backward()
    optimizer.step()
    pairs = zip(trial.parameters(), before, strict=True)
    steps = torch.cat([(p.detach() - old).flatten() for p, old in pairs])
    grads = torch.cat([p.grad.flatten() for p in trial.parameters()])
    with torch.no_grad():
        test = ((trial(test_points) - test_targets) ** 2).mean().item()
    return steps, grads, test


steps, grads, test = first_step(lambda params: torch.optim.Adam(params, lr=0.03))
print(f"{steps.numel()} values, |gradient| from {grads.abs().min():.2g} to {grads.abs().max():.2g}")
small, large = steps.abs().min(), steps.abs().max()
print(f"Adam: |step| from {small:.4f} to {large:.4f}, then test loss {test:.4f}")
print("every step against the sign of its gradient:", torch.equal(steps.sign(), -grads.sign()))
steps, _, test = first_step(lambda params: torch.optim.SGD(params, lr=0.03))
print(f"SGD:  |step| at most {steps.abs().max():.4f}, then test loss {test:.4f}")
# --8<-- [end:fresh-adam]


# --8<-- [start:warmup]
def fine_tune(groups, model: nn.Module, warmup: int = 0) -> str:
    """100 Adam steps on task B, the learning rate ramped up over `warmup` steps."""
    optimizer = torch.optim.Adam(groups, lr=0.03)
    ramp = (lambda step: min(1.0, (step + 1) / warmup)) if warmup else (lambda step: 1.0)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, ramp)  # lr = its group's lr * ramp
    test = []
    for _ in range(100):
        optimizer.zero_grad()
        ((model(points_b) - targets_b) ** 2).mean().backward()
        optimizer.step()
        scheduler.step()
        with torch.no_grad():
            test.append(((model(test_points) - test_targets) ** 2).mean().item())
    worst = max(test)
    return f"worst test loss {worst:.4f} (step {test.index(worst) + 1}), last {test[-1]:.4f}"


def restart() -> nn.Module:
    """The model at the end of feature extraction, every value trainable."""
    model = copy.deepcopy(model_b)
    model.load_state_dict(after_extraction)
    return model.requires_grad_(True)


for warmup in (0, 20):
    model = restart()
    print(f"lr 0.03, warmup {warmup:2} steps:", fine_tune(model.parameters(), model, warmup))
# --8<-- [end:warmup]

# --8<-- [start:discriminative]
for warmup in (0, 20):
    model = restart()
    (first, _, last, _), head = model[0], model[1]  # the body's two linear layers, the head
    groups = [
        {"params": head.parameters()},  # the default, 0.03
        {"params": last.parameters(), "lr": 0.03 / 2.6},
        {"params": first.parameters(), "lr": 0.03 / 2.6**2},
    ]
    print(f"per-layer lr, warmup {warmup:2} steps:", fine_tune(groups, model, warmup))
# --8<-- [end:discriminative]

# --8<-- [start:scratch]
torch.manual_seed(1)
scratch = nn.Sequential(
    nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 1)
).double()
print("trainable, total:", count(scratch))
scratch_train, scratch_test = train_b(scratch, steps=200, lr=0.03)
print(f"after 100 steps: train loss {scratch_train[99]:.4f}, test loss {scratch_test[99]:.4f}")
print(f"after 200 steps: train loss {scratch_train[-1]:.4f}, test loss {scratch_test[-1]:.4f}")
# --8<-- [end:scratch]

# --8<-- [start:summary]
transfer_test = extract_test + tune_test  # steps 1-100 frozen, then 101-200 all
print(f"{'run':30} {'train loss':>10} {'test loss':>10}")
for name, train, test in [
    ("feature extraction (100)", extract_train, extract_test),
    ("then fine-tuning (+100)", tune_train, tune_test),
    ("from scratch (200)", scratch_train, scratch_test),
]:
    print(f"{name:30} {train[-1]:10.4f} {test[-1]:10.4f}")
print("test loss, scratch / transfer:", round(scratch_test[-1] / transfer_test[-1], 1))
# --8<-- [end:summary]

# --8<-- [start:param-groups]
model_c = copy.deepcopy(model_b)
model_c.load_state_dict(after_extraction)  # back to the end of feature extraction
model_c.requires_grad_(True)
body_c, head_c = model_c[0], model_c[1]
optimizer = torch.optim.SGD(
    [
        {"params": body_c.parameters(), "lr": 0.003},  # the pretrained body: small steps
        {"params": head_c.parameters()},  # the new head: the default below
    ],
    lr=0.03,
)
for i, group in enumerate(optimizer.param_groups):
    print(f"group {i}: {len(group['params'])} tensors, lr {group['lr']}")

before = [p.detach().clone() for p in model_c.parameters()]
optimizer.zero_grad()
((model_c(points_b) - targets_b) ** 2).mean().backward()
optimizer.step()  # plain SGD: p <- p - lr * p.grad, with the lr of p's group
pairs = zip(model_c.named_parameters(), before, strict=True)
for (name, p), old in pairs:
    step, grad = (p - old).flatten(), p.grad.flatten()
    ratio = -(step @ grad) / (grad @ grad)  # the c in step = -c * grad
    print(f"{name:10} step / gradient: {ratio.item():.3g}")
# --8<-- [end:param-groups]

# --8<-- [start:gradual-unfreezing]
gradual = copy.deepcopy(model_b)
gradual.load_state_dict(after_extraction)  # the head trained on the frozen body
gradual[0].requires_grad_(False)  # the body frozen again, as in (a)
first, last = gradual[0][0], gradual[0][2]  # the body's two linear layers
optimizer = torch.optim.Adam(gradual[1].parameters(), lr=0.03)  # the head only
print(f"start:   {len(optimizer.param_groups)} group,  {count(gradual)[0]:3} values train")


def train_steps(model: nn.Module, optimizer, steps: int) -> float:
    """`steps` steps of `optimizer` on task B; the test loss at the end."""
    for _ in range(steps):
        optimizer.zero_grad()
        ((model(points_b) - targets_b) ** 2).mean().backward()
        optimizer.step()
    with torch.no_grad():
        return ((model(test_points) - test_targets) ** 2).mean().item()


for stage, layer in [(1, last), (2, first)]:  # from the top of the body down
    layer.requires_grad_(True)
    optimizer.add_param_group({"params": layer.parameters(), "lr": 0.003})
    first_before = first.weight.detach().clone()
    test = train_steps(gradual, optimizer, steps=50)
    print(
        f"stage {stage}: {len(optimizer.param_groups)} groups, {count(gradual)[0]:3} values train,"
        f" first layer moved: {not torch.equal(first.weight, first_before)!s:5},"
        f" test loss {test:.4f}"
    )
# --8<-- [end:gradual-unfreezing]

# On the page, a block adds the first layer a second time, which raises an error:
import contextlib

with contextlib.suppress(ValueError):
    optimizer.add_param_group({"params": first.parameters()})

# --8<-- [start:bn-trap]
torch.manual_seed(0)
bn_body = nn.Sequential(nn.Linear(2, 16), nn.BatchNorm1d(16), nn.Tanh())
bn_model_a = nn.Sequential(bn_body, nn.Linear(16, 3)).double()
optimizer = torch.optim.Adam(bn_model_a.parameters(), lr=0.03)
for _ in range(100):  # task A, as before, now with batch norm in the body
    optimizer.zero_grad()
    ((bn_model_a(points_a) - targets_a) ** 2).mean().backward()
    optimizer.step()

frozen_bn_body = copy.deepcopy(bn_body)
frozen_bn_body.requires_grad_(False)  # every parameter frozen, batch norm's too
bn_model_b = nn.Sequential(frozen_bn_body, nn.Linear(16, 1)).double()
norm = frozen_bn_body[1]
norm_mean = norm.running_mean.clone()
frozen_bn_body.eval()
with torch.no_grad():
    features_before = frozen_bn_body(test_points)

bn_model_b.train()  # as every training loop does
optimizer = torch.optim.Adam(bn_model_b[1].parameters(), lr=0.03)
optimizer.zero_grad()
((bn_model_b(points_b) - targets_b) ** 2).mean().backward()
optimizer.step()
print("batch norm's parameters require grad:", any(p.requires_grad for p in norm.parameters()))
print("running_mean changed:", not torch.equal(norm.running_mean, norm_mean))
print("batches seen:", norm.num_batches_tracked.item())
frozen_bn_body.eval()
with torch.no_grad():
    same = torch.equal(frozen_bn_body(test_points), features_before)
print("frozen body computes the same:", same)
# --8<-- [end:bn-trap]

# --8<-- [start:bn-fix]
# The class every batch norm layer derives from: BatchNorm1d, 2d and 3d, their Lazy forms,
# and SyncBatchNorm (PyTorch's own convert_sync_batchnorm tests for it too).
BATCH_NORM = nn.modules.batchnorm._BatchNorm


def train_mode(model: nn.Module, frozen: nn.Module) -> nn.Module:
    """model.train(), but every batch norm inside the frozen part stays in eval mode."""
    model.train()
    for module in frozen.modules():
        if isinstance(module, BATCH_NORM):
            module.eval()  # normalise with the stored statistics, and leave them alone
    return model


frozen_bn_body.load_state_dict(bn_body.state_dict())  # undo the change: task A's statistics
train_mode(bn_model_b, frozen=frozen_bn_body)
print("model.training:", bn_model_b.training, " norm.training:", norm.training)
for _ in range(20):
    optimizer.zero_grad()
    ((bn_model_b(points_b) - targets_b) ** 2).mean().backward()
    optimizer.step()
with torch.no_grad():
    same = torch.equal(frozen_bn_body.eval()(test_points), features_before)
print("after 20 steps, frozen body computes the same:", same)

bn_model_b.train()  # a plain train(), as at the end of a validation function
print("after a plain train(): norm.training:", norm.training)
# --8<-- [end:bn-fix]

# --8<-- [start:bn-small-batches]
with torch.no_grad():
    features = frozen_bn_body[0](points_b)[:, 0]  # what the batch norm normalises, feature 0
print(f"the stored mean, from task A:     {norm.running_mean[0]:7.3f}")
print(f"the mean of all 32 task B points: {features.mean():7.3f}")
print(
    "the means of 8 batches of 4:     ", [round(m, 3) for m in features.view(8, 4).mean(1).tolist()]
)
# --8<-- [end:bn-small-batches]

# --8<-- [start:bn-keep-frozen]
frozen_bn_body.requires_grad_(True)  # unfreeze the body for fine-tuning...
norm.requires_grad_(False)  # ...except the batch norm's weight and bias
train_mode(bn_model_b, frozen=norm)  # and its statistics: eval mode, after every train()
optimizer = torch.optim.Adam([p for p in bn_model_b.parameters() if p.requires_grad], lr=0.003)

norm_before = {name: t.clone() for name, t in norm.state_dict().items()}
linear_before = frozen_bn_body[0].weight.detach().clone()
for start in range(0, 32, 4):  # one pass over task B in batches of 4
    batch = slice(start, start + 4)
    optimizer.zero_grad()
    ((bn_model_b(points_b[batch]) - targets_b[batch]) ** 2).mean().backward()
    optimizer.step()
same = all(torch.equal(norm.state_dict()[name], t) for name, t in norm_before.items())
print("batch norm: weight, bias and statistics unchanged:", same)
print("first linear layer moved:", not torch.equal(frozen_bn_body[0].weight, linear_before))

# what FrozenBatchNorm2d computes, whatever the mode: a fixed scale and shift per feature
scale = norm.weight / torch.sqrt(norm.running_var + norm.eps)
shift = norm.bias - norm.running_mean * scale
with torch.no_grad():
    h = frozen_bn_body[0](test_points)
    print("the batch norm computes h * scale + shift:", torch.allclose(norm(h), h * scale + shift))
# --8<-- [end:bn-keep-frozen]

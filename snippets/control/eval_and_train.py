"""Examples for the chapter "eval() and train()".

Each region is included by docs/control/eval-and-train.md. Run the whole file with
`python snippets/control/eval_and_train.py`.
"""

# --8<-- [start:flag]
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Dropout(p=0.5), nn.Linear(8, 2))


def flags(module: nn.Module) -> list[bool]:
    """The training flag of a module and of every module inside it."""
    return [m.training for m in module.modules()]


print("a new model:    ", flags(model))
print("eval() returns the model itself:", model.eval() is model)
print("after eval():   ", flags(model))
model.train()
print("after train():  ", flags(model))
model.train(False)  # the same as model.eval()
print("after train(False):", flags(model))
print("train() returns the model itself:", model.train() is model)

x = torch.randn(3, 4)
first_two = model[:2]  # the Linear and the ReLU
in_train_mode = first_two(x)
in_eval_mode = first_two.eval()(x)
print("Linear + ReLU, same output in both modes:", torch.equal(in_train_mode, in_eval_mode))
model.train()
# --8<-- [end:flag]

# --8<-- [start:dropout]
torch.manual_seed(0)
dropout = nn.Dropout(p=0.5)
ones = torch.ones(8)

print("train mode, call 1:", dropout(ones))
print("train mode, call 2:", dropout(ones))
dropout.eval()
print("eval mode,  call 1:", dropout(ones))
print("eval mode,  call 2:", dropout(ones))
# --8<-- [end:dropout]

# --8<-- [start:dropout-mean]
dropout.train()
many = dropout(torch.ones(100_000))
print("share of values set to 0:", round((many == 0).float().mean().item(), 3))
print("the values that were kept:", many[many != 0].unique().tolist())
print("mean of the output:", round(many.mean().item(), 3))
# --8<-- [end:dropout-mean]

# --8<-- [start:batch-norm-parts]
bn = nn.BatchNorm1d(2)
for name, p in bn.named_parameters():  # learned by backward() and the optimizer
    print(f"parameter {name:20} {p.tolist()}")
for name, b in bn.named_buffers():  # updated by the forward pass in training mode
    print(f"buffer    {name:20} {b.tolist()}")
# --8<-- [end:batch-norm-parts]

# --8<-- [start:batch-norm-train]
norm = nn.BatchNorm1d(2)  # 2 features, one mean and variance each
batch = torch.tensor([[2.0, 10.0], [4.0, 20.0], [9.0, 60.0]])  # 3 examples
# --8<-- [start:batch-norm-step]
print("momentum:", norm.momentum)
print("before: running_mean", norm.running_mean, " running_var", norm.running_var)

out = norm(batch)  # train mode: normalise with this batch's statistics
print("output:\n", out.detach())
print("after:  running_mean", norm.running_mean, " running_var", norm.running_var)
print("batches seen:", norm.num_batches_tracked.item())
# --8<-- [end:batch-norm-step]
# --8<-- [end:batch-norm-train]

# --8<-- [start:batch-norm-eval]
norm.eval()
out = norm(batch)  # eval mode: normalise with the running statistics
print("output:\n", out.detach())
print("after:  running_mean", norm.running_mean, " running_var", norm.running_var)
print("batches seen:", norm.num_batches_tracked.item())
# --8<-- [end:batch-norm-eval]

# --8<-- [start:batch-norm-no-grad]
norm.train()
with torch.no_grad():  # no graph, but training mode
    norm(batch)
print("after a pass under no_grad: running_mean", norm.running_mean)
print("batches seen:", norm.num_batches_tracked.item())
# --8<-- [end:batch-norm-no-grad]

# --8<-- [start:momentum]
batches = [  # one feature; batch means 5, 8 and 2
    torch.tensor([[4.0], [6.0]]),
    torch.tensor([[7.0], [9.0]]),
    torch.tensor([[1.0], [3.0]]),
]
for momentum in (0.1, 0.99, None):
    layer = nn.BatchNorm1d(1, momentum=momentum)  # training mode: every call updates
    means = []
    for b in batches:
        layer(b)
        means.append(round(layer.running_mean.item(), 4))
    print(f"momentum={momentum!s:4}  running_mean after each batch: {means}")
# --8<-- [end:momentum]

# --8<-- [start:batch-norm-one]
norm.eval()
one_example = batch[:1]
print("eval mode, first row of the batch:", norm(batch)[0].detach())
print("eval mode, that example alone:    ", norm(one_example)[0].detach())
norm.train()
# --8<-- [end:batch-norm-one]

# --8<-- [start:batch-norm-one-image]
torch.manual_seed(0)
norm_2d = nn.BatchNorm2d(3)  # 3 channels, one mean and variance each
image = torch.randn(1, 3, 4, 4)  # one example: 3 channels of 4 x 4 values
print("training mode:", norm_2d.training, " output shape:", tuple(norm_2d(image).shape))
print("values per channel:", image[:, 0].numel())
# --8<-- [end:batch-norm-one-image]

# --8<-- [start:eval-tracks]
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Dropout(p=0.5), nn.Linear(8, 2))
inputs = torch.randn(5, 4)

model.eval()
out = model(inputs)
print("model.training:", model.training, " grad mode on:", torch.is_grad_enabled())
print("out.requires_grad:", out.requires_grad, " out.grad_fn:", out.grad_fn.name())
out.sum().backward()
print("gradients filled:", all(p.grad is not None for p in model.parameters()))
# --8<-- [end:eval-tracks]

# --8<-- [start:data]
torch.manual_seed(0)


def make_points(n: int) -> tuple[torch.Tensor, torch.Tensor]:
    """n points in [-1, 1]²; label 1 inside the circle of radius 0.7, else 0."""
    points = torch.rand(n, 2) * 2 - 1
    labels = (points.norm(dim=1) < 0.7).long()
    return points, labels


train_x, train_y = make_points(200)
val_x, val_y = make_points(200)
print("training points:", len(train_x), " inside the circle:", train_y.sum().item())
print("validation points:", len(val_x), " inside the circle:", val_y.sum().item())
# --8<-- [end:data]


# --8<-- [start:evaluate]
def evaluate(model: nn.Module, x: torch.Tensor, y: torch.Tensor) -> tuple[float, float]:
    """(loss, accuracy) on a validation set, as plain Python floats."""
    model.eval()  # dropout off, batch norm on running statistics
    with torch.no_grad():  # no graph: nothing here will be differentiated
        logits = model(x)
        loss = F.cross_entropy(logits, y).item()
        accuracy = (logits.argmax(dim=1) == y).float().mean().item()
    model.train()  # back to training mode for the next step
    return loss, accuracy


# --8<-- [end:evaluate]


# --8<-- [start:dropout-watch]
def new_model() -> tuple[nn.Module, list[float]]:
    """A small classifier with dropout, and a list that records, at every training
    call of its dropout layer, the share of non-zero inputs it set to zero."""
    model = nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Dropout(p=0.3), nn.Linear(32, 2))
    dropped: list[float] = []

    def watch(module: nn.Module, args: tuple[torch.Tensor], output: torch.Tensor) -> None:
        if torch.is_grad_enabled():  # training steps only, not validation
            alive = args[0] != 0
            dropped.append(((output == 0) & alive).sum().item() / alive.sum().item())

    model[2].register_forward_hook(watch)
    return model, dropped


# --8<-- [end:dropout-watch]


# --8<-- [start:train]
def train(model: nn.Module, evaluate, steps: int = 60) -> None:
    optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
    for step in range(1, steps + 1):  # one full-batch step each
        optimizer.zero_grad()
        loss = F.cross_entropy(model(train_x), train_y)
        loss.backward()
        optimizer.step()
        if step % 20 == 0:
            val_loss, val_acc = evaluate(model, val_x, val_y)
            print(
                f"step {step}: train loss {loss.item():.4f}, val loss {val_loss:.4f},"
                f" val accuracy {val_acc:.3f}, model.training {model.training}"
            )


torch.manual_seed(0)
model, dropped = new_model()
train(model, evaluate)
print("share dropped, first 3 training steps:", [round(d, 2) for d in dropped[:3]])
print("share dropped, last 3 training steps: ", [round(d, 2) for d in dropped[-3:]])
# --8<-- [end:train]

# --8<-- [start:check-evaluate]
first = evaluate(model, val_x, val_y)
second = evaluate(model, val_x, val_y)
print("the same numbers twice:", first == second)
print("model.training after evaluate():", model.training)

model.eval()
with torch.no_grad():
    logits = model(val_x)
model.train()
print("under no_grad: requires_grad", logits.requires_grad, " grad_fn", logits.grad_fn)
# --8<-- [end:check-evaluate]


# --8<-- [start:restore]
def evaluate_and_restore(model: nn.Module, x: torch.Tensor, y: torch.Tensor):
    """Like evaluate(), but puts the model back in the mode it was in."""
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            logits = model(x)
            loss = F.cross_entropy(logits, y).item()
            accuracy = (logits.argmax(dim=1) == y).float().mean().item()
        return loss, accuracy
    finally:
        model.train(was_training)  # even if the forward pass raised


model.eval()
evaluate_and_restore(model, val_x, val_y)
print("stays in eval mode:", not model.training)
model.train()
evaluate_and_restore(model, val_x, val_y)
print("stays in train mode:", model.training)
# --8<-- [end:restore]


# --8<-- [start:buggy]
def evaluate_buggy(model: nn.Module, x: torch.Tensor, y: torch.Tensor) -> tuple[float, float]:
    model.eval()
    with torch.no_grad():
        logits = model(x)
        loss = F.cross_entropy(logits, y).item()
        accuracy = (logits.argmax(dim=1) == y).float().mean().item()
    return loss, accuracy  # model.train() forgotten


torch.manual_seed(0)
buggy_model, dropped = new_model()
train(buggy_model, evaluate_buggy)
print("share dropped at training steps 1-20: ", round(sum(dropped[:20]) / 20, 2))
print("share dropped at training steps 21-60:", round(sum(dropped[20:]) / 40, 2))
# --8<-- [end:buggy]


# --8<-- [start:training-loss-both-ways]
def training_loss(model: nn.Module, dropout_on: bool, draws: int = 100) -> float:
    """The loss on the training points, with dropout on (the mean of many draws) or off."""
    was_training = model.training
    model.train(dropout_on)  # training mode: dropout on; eval mode: off
    with torch.no_grad():  # random with dropout on, so many draws; one is enough without
        runs = range(draws if dropout_on else 1)
        losses = [F.cross_entropy(model(train_x), train_y).item() for _ in runs]
    model.train(was_training)
    return sum(losses) / len(losses)


torch.manual_seed(0)
for name, trained in [("right loop", model), ("buggy loop", buggy_model)]:
    on, off = training_loss(trained, dropout_on=True), training_loss(trained, dropout_on=False)
    print(f"{name}: training loss with dropout on {on:.3f}, with dropout off {off:.3f}")
# --8<-- [end:training-loss-both-ways]

"""Examples for the chapter "Inference, put together".

Each region is included by docs/control/inference.md. Run the whole file with
`python snippets/control/inference.py`.
"""
# ruff: noqa: E402

# --8<-- [start:data]
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

CENTRES = torch.tensor([[-1.0, 0.0], [1.0, 0.0], [0.0, 1.5]])  # one per class


def make_points(per_class: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Points scattered around three centres; the label is the centre's number."""
    labels = torch.arange(3).repeat_interleave(per_class)
    points = CENTRES[labels] + 0.5 * torch.randn(3 * per_class, 2)
    return points, labels


torch.manual_seed(0)
train_points, train_labels = make_points(100)
test_points, test_labels = make_points(100)
print("training set:", tuple(train_points.shape), " test set:", tuple(test_points.shape))
# --8<-- [end:data]

# --8<-- [start:train]
model = nn.Sequential(
    nn.Linear(2, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Dropout(p=0.2), nn.Linear(32, 3)
)
optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
for step in range(1, 101):
    optimizer.zero_grad()
    loss = F.cross_entropy(model(train_points), train_labels)
    loss.backward()
    optimizer.step()
    if step in (1, 50, 100):
        print(f"step {step:3}: training loss {loss.item():.4f}")
print("model.training:", model.training)
# --8<-- [end:train]


# --8<-- [start:predict]
def predict(model: nn.Module, points: torch.Tensor) -> tuple[list[int], list[float]]:
    """The predicted class of each point and its probability, as Python numbers."""
    was_training = model.training
    model.eval()  # dropout off, batch norm on its running statistics
    try:
        with torch.inference_mode():  # no graph, no version counters
            probabilities = F.softmax(model(points), dim=1)
            confidence, classes = probabilities.max(dim=1)
        return classes.tolist(), confidence.tolist()
    finally:
        model.train(was_training)  # leave the model as we found it


classes, confidence = predict(model, torch.tensor([[0.9, 0.1]]))  # one new point
print("class:", classes, " probability:", [round(p, 2) for p in confidence])
print("types:", type(classes[0]).__name__, type(confidence[0]).__name__)
print("model.training after predict():", model.training)
# --8<-- [end:predict]


# --8<-- [start:batches]
def predict_in_batches(model: nn.Module, points: torch.Tensor, batch_size: int):
    """predict() on slices of `batch_size` points at a time, results joined."""
    all_classes, all_confidence = [], []
    for chunk in points.split(batch_size):  # views of consecutive rows
        classes, confidence = predict(model, chunk)
        all_classes += classes
        all_confidence += confidence
    return all_classes, all_confidence


whole = predict(model, test_points)
for batch_size in (1, 7, 64):
    classes, confidence = predict_in_batches(model, test_points, batch_size)
    same_classes = classes == whole[0]
    close = torch.allclose(torch.tensor(confidence), torch.tensor(whole[1]))
    print(f"batch size {batch_size:2}: same classes {same_classes}, same probabilities {close}")
# --8<-- [end:batches]


# --8<-- [start:evaluate]
def accuracy(model: nn.Module, loader: DataLoader) -> float:
    """The share of examples whose predicted class is the label."""
    was_training = model.training
    model.eval()
    correct, total = 0, 0
    try:
        with torch.inference_mode():
            for points, labels in loader:
                predicted = model(points).argmax(dim=1)
                correct += (predicted == labels).sum().item()
                total += len(labels)
    finally:
        model.train(was_training)
    return correct / total


test_loader = DataLoader(TensorDataset(test_points, test_labels), batch_size=64)
print("batch sizes:", [len(labels) for _, labels in test_loader])
print("test accuracy:", accuracy(model, test_loader))
# --8<-- [end:evaluate]

# --8<-- [start:per-batch]
model.eval()
correct, batch_accuracies = [], []
with torch.inference_mode():
    for points, labels in test_loader:
        right = (model(points).argmax(dim=1) == labels).sum().item()
        correct.append(right)
        batch_accuracies.append(right / len(labels))
model.train()
print("correct per batch:", correct, " total:", sum(correct))
print("mean of the per-batch accuracies:", round(sum(batch_accuracies) / len(batch_accuracies), 4))
# --8<-- [end:per-batch]

# --8<-- [start:checks]
buffers_before = [b.clone() for b in model.buffers()]  # batch norm's running statistics

model.eval()
with torch.inference_mode():
    logits = model(test_points[:5])
model.train()
print("requires_grad:", logits.requires_grad, " grad_fn:", logits.grad_fn)
print("is_inference():", logits.is_inference())

first, second = predict(model, test_points), predict(model, test_points)
print("the same predictions twice:", first == second)
print("model.training restored:", model.training)
unchanged = all(torch.equal(a, b) for a, b in zip(buffers_before, model.buffers(), strict=True))
print("running statistics unchanged:", unchanged)
# --8<-- [end:checks]


# --8<-- [start:forgot-eval]
import copy


def predict_without_eval(model: nn.Module, points: torch.Tensor) -> list[int]:
    with torch.inference_mode():  # no graph, but still training mode
        return model(points).argmax(dim=1).tolist()


careless = copy.deepcopy(model)  # a copy, so that our model is not changed
mean_before = careless[1].running_mean.clone()
first = predict_without_eval(careless, test_points)
second = predict_without_eval(careless, test_points)
print("the same predictions twice:", first == second)
print("running_mean changed:", not torch.equal(careless[1].running_mean, mean_before))
# --8<-- [end:forgot-eval]

# --8<-- [start:inference-tensor]
model.eval()
with torch.inference_mode():
    weights = F.softmax(model(train_points), dim=1).max(dim=1).values  # confidence
model.train()
print("weights.is_inference():", weights.is_inference())
# --8<-- [end:inference-tensor]

# --8<-- [start:inference-tensor-fix]
weights = weights.clone()  # outside inference mode: an ordinary tensor
model.zero_grad()
per_example = F.cross_entropy(model(train_points), train_labels, reduction="none")
(weights * per_example).mean().backward()
print("weights.is_inference():", weights.is_inference())
print("a gradient arrived:", model[0].weight.grad is not None)

model.eval()
with torch.no_grad():  # the other way: no graph, but an ordinary tensor
    weights = F.softmax(model(train_points), dim=1).max(dim=1).values
model.train()
per_example = F.cross_entropy(model(train_points), train_labels, reduction="none")
(weights * per_example).mean().backward()
print("under no_grad: weights.is_inference():", weights.is_inference(), "and backward() ran")
# --8<-- [end:inference-tensor-fix]

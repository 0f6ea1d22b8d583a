"""Exercise 3.4: write a validation loop. Run it: python snippets/practice/validation_loop.py"""
# Each region is a self-contained cell (page, notebook), so imports repeat.
# ruff: noqa: E402

# --8<-- [start:starter]
# Set-up: run it as it is. It trains a small classifier with dropout.
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
points = torch.rand(250, 2) * 2 - 1
labels = (points[:, 0] * points[:, 1] > 0).long()  # 1 where x1 and x2 have the same sign
model = nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Dropout(p=0.3), nn.Linear(32, 2))
optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
for _ in range(50):
    optimizer.zero_grad()
    F.cross_entropy(model(points[:150]), labels[:150]).backward()
    optimizer.step()
val_loader = DataLoader(TensorDataset(points[150:], labels[150:]), batch_size=32)


# Your code: complete evaluate().
def evaluate(model, loader):
    """The accuracy of `model` on `loader`: correct predictions / examples, a float.

    No graph may be built, dropout must be off while it runs, and the model must be
    back in training mode afterwards.
    """
    ...


accuracy = evaluate(model, val_loader)
print("validation accuracy:", accuracy)
# --8<-- [end:starter]

# --8<-- [start:solution]
# Set-up: run it as it is. It trains a small classifier with dropout.
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
points = torch.rand(250, 2) * 2 - 1
labels = (points[:, 0] * points[:, 1] > 0).long()  # 1 where x1 and x2 have the same sign
model = nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Dropout(p=0.3), nn.Linear(32, 2))
optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
for _ in range(50):
    optimizer.zero_grad()
    F.cross_entropy(model(points[:150]), labels[:150]).backward()
    optimizer.step()
val_loader = DataLoader(TensorDataset(points[150:], labels[150:]), batch_size=32)


# Your code: complete evaluate().
def evaluate(model, loader):
    """The accuracy of `model` on `loader`: correct predictions / examples, a float.

    No graph may be built, dropout must be off while it runs, and the model must be
    back in training mode afterwards.
    """
    model.eval()  # dropout off
    correct, total = 0, 0
    with torch.no_grad():  # no graph
        for inputs, targets in loader:
            predicted = model(inputs).argmax(dim=1)
            correct += (predicted == targets).sum().item()
            total += len(targets)
    model.train()  # back to training mode
    return correct / total


accuracy = evaluate(model, val_loader)
print("validation accuracy:", accuracy)
# --8<-- [end:solution]

# --8<-- [start:check]
# Calls your evaluate() on the model in training mode and watches it: the tensors
# autograd saves (none, if no graph is built), the mode of every dropout layer while it
# runs, the modes afterwards, and the result, which it recomputes itself.
import math

import torch
from torch import nn


def check() -> str:
    model, loader = globals().get("model"), globals().get("val_loader")
    evaluate = globals().get("evaluate")
    if not isinstance(model, nn.Module) or loader is None or not callable(evaluate):
        return "Not done yet: run the cell above (set-up and evaluate) first."
    model.train()
    saved = []
    dropout_modes = []
    dropouts = [m for m in model.modules() if isinstance(m, nn.Dropout)]
    hooks = [
        m.register_forward_pre_hook(lambda module, args: dropout_modes.append(module.training))
        for m in dropouts
    ]
    try:
        with torch.autograd.graph.saved_tensors_hooks(
            lambda t: saved.append(1) or t.detach(), lambda t: t
        ):
            result = evaluate(model, loader)
    except Exception as error:
        torch.set_grad_enabled(True)
        model.train()
        return (
            "Not quite: expected evaluate(model, val_loader) to return the accuracy, got an "
            f"error: {type(error).__name__}: {error}"
        )
    finally:
        for hook in hooks:
            hook.remove()
    grad_mode = torch.is_grad_enabled()
    modes_after = [m.training for m in model.modules()]
    torch.set_grad_enabled(True)  # undo a global switch, so later cells behave
    # The right answer, computed here: eval mode, no graph, correct / examples.
    model.eval()
    correct, total, per_batch, sizes = 0, 0, [], []
    with torch.no_grad():
        for inputs, targets in loader:
            right = (model(inputs).argmax(dim=1) == targets).sum().item()
            correct, total = correct + right, total + len(targets)
            per_batch.append(right / len(targets))
            sizes.append(len(targets))
    model.train()
    expected = correct / total
    if result is None or result is Ellipsis:
        return "Not done yet: evaluate() returned nothing. Make it return the accuracy."
    if not dropout_modes:
        return "Not quite: expected evaluate() to run the model on the loader, got no forward pass."
    if saved:
        return (
            f"Not quite: expected no graph (0 tensors saved for backward), got {len(saved)} "
            "saved tensors. Run the forward passes under torch.no_grad() or "
            "torch.inference_mode()."
        )
    if any(dropout_modes):
        return (
            "Not quite: expected dropout off while evaluating, got the dropout layer in "
            "training mode. Call model.eval() before the forward passes."
        )
    if not grad_mode:
        return (
            "Not quite: expected gradient tracking on again after evaluate(), got it left "
            "off. Use `with torch.no_grad():` rather than torch.set_grad_enabled(False)."
        )
    if not all(modes_after):
        return (
            "Not quite: expected the model back in training mode after evaluate(), got "
            "model.training False. Call model.train() before returning."
        )
    if isinstance(result, torch.Tensor):
        return (
            f"Not quite: expected a Python float, got a tensor ({result!r}). "
            "Return a number: .item() turns a one-element tensor into one."
        )
    if not isinstance(result, (int, float)) or isinstance(result, bool):
        return f"Not quite: expected a float accuracy, got {type(result).__name__} {result!r}."
    if not math.isclose(result, expected, rel_tol=1e-6):  # a float32 mean is right too
        mean_of_batches = sum(per_batch) / len(per_batch)
        if abs(result - mean_of_batches) < 1e-6:
            return (
                f"Not quite: expected {expected:.4f} ({correct} correct of {total}), got "
                f"{result:.4f}, the mean of the per-batch accuracies. The batches have "
                f"{', '.join(map(str, sizes))} examples, so the last one counts too much:"
                " count correct predictions and examples over the whole loader."
            )
        return (
            f"Not quite: expected {expected:.4f} ({correct} correct of {total}), got {result:.4f}."
        )
    return (
        f"Correct: accuracy {result:.4f} = {correct}/{total}, with no graph built, dropout "
        "off during evaluation, and the model back in training mode."
    )


try:
    print(check())
except Exception as error:  # the check never crashes, whatever the cell above did
    print(f"Not done yet: the check could not read your answer ({type(error).__name__}: {error}).")
# --8<-- [end:check]

"""Exercise 3.2: a validation function that builds no graph.

Run it: python snippets/practice/validation_without_a_graph.py
"""
# Each region is a self-contained cell (page, notebook), so imports repeat.
# ruff: noqa: E402, F811

# --8<-- [start:starter]
import torch

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(3, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))
val_inputs, val_targets = torch.randn(16, 3), torch.randn(16, 1)


def evaluate(model, inputs, targets):
    """The mean squared error of model(inputs) against targets, as a Python float."""
    # Compute the loss without recording a graph, and return it as a Python float.
    return ...


# When evaluate() is done: print("validation loss:", evaluate(model, val_inputs, val_targets))
# --8<-- [end:starter]

# --8<-- [start:solution]
import torch

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(3, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))
val_inputs, val_targets = torch.randn(16, 3), torch.randn(16, 1)


@torch.no_grad()
def evaluate(model, inputs, targets):
    """The mean squared error of model(inputs) against targets, as a Python float."""
    loss = torch.nn.functional.mse_loss(model(inputs), targets)
    return loss.item()


print("validation loss:", round(evaluate(model, val_inputs, val_targets), 4))
# --8<-- [end:solution]

# --8<-- [start:check]
# Calls your evaluate() and counts the tensors it saves for a backward pass: none should be.
import torch


def check() -> str:
    evaluate = globals().get("evaluate")
    model, inputs, targets = (globals().get(n) for n in ("model", "val_inputs", "val_targets"))
    if not callable(evaluate) or not isinstance(model, torch.nn.Module):
        return "Not done yet: run the cell above first (it defines model and evaluate)."
    saved = []  # every tensor a recorded operation saves for backward, while evaluate runs

    def pack(tensor):
        saved.append(tensor.shape)
        return tensor.detach()  # detach: no reference cycle through the graph

    torch.set_grad_enabled(True)
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        result = evaluate(model, inputs, targets)
    grad_mode_after = torch.is_grad_enabled()
    torch.set_grad_enabled(True)  # put it back, whatever evaluate() did

    if result is Ellipsis or result is None:
        return "Not done yet: evaluate() returns nothing yet. Compute the loss and return it."
    with torch.no_grad():
        expected = torch.nn.functional.mse_loss(model(inputs), targets).item()
    if not grad_mode_after:
        return (
            "Not quite: expected grad mode to be on again after evaluate() returns, got "
            "torch.is_grad_enabled() = False. Use with torch.no_grad(): or @torch.no_grad(), "
            "which switch it back; a bare torch.set_grad_enabled(False) does not."
        )
    frozen = [name for name, p in model.named_parameters() if not p.requires_grad]
    if frozen:
        return (
            f"Not quite: expected every parameter to still require grad, got "
            f"requires_grad=False for {', '.join(frozen)}. Turn recording off with "
            "torch.no_grad() instead of changing the parameters' flags."
        )
    if saved:
        return (
            f"Not quite: expected no tensor saved for backward, got {len(saved)}: the forward "
            "pass was recorded. Run it inside torch.no_grad() (detach() or .item() on the "
            "result comes too late: the graph is already built)."
        )
    if isinstance(result, torch.Tensor):
        return f"Not quite: expected a Python float, got a tensor ({result!r}). Return loss.item()."
    if not isinstance(result, float):
        return f"Not quite: expected a Python float, got a {type(result).__name__}."
    if abs(result - expected) > 1e-6 * max(1.0, abs(expected)):
        return (
            f"Not quite: expected the mean squared error {expected:.6f}, got {result:.6f}. "
            "Use torch.nn.functional.mse_loss, which averages over every element."
        )
    return (
        f"Correct: evaluate() returned {result:.4f} as a Python float, saved no tensor for "
        "backward, and left grad mode and the parameters as they were."
    )


try:
    print(check())
except Exception as error:  # the check never crashes, whatever the cell above did
    torch.set_grad_enabled(True)
    print(f"Not done yet: the check could not read your answer ({type(error).__name__}: {error}).")
# --8<-- [end:check]

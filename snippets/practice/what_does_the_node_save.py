"""Exercise 1.5: what does the node save?

Run it: python snippets/practice/what_does_the_node_save.py
"""
# Each region is a self-contained cell (page, notebook), so imports repeat.
# ruff: noqa: E402

# --8<-- [start:starter]
import torch

a = torch.tensor(2.0, requires_grad=True)
b = torch.tensor(3.0, requires_grad=True)
c = torch.tensor(5.0)  # does not require grad

p = a * c
q = a * b
y = a**3

# What does each expression give? The saved value as a number, None if nothing was
# saved, or "error" if reading it raises. The last two are read after y.backward().
predictions = {
    "p.grad_fn._saved_self": ...,
    "p.grad_fn._saved_other": ...,
    "q.grad_fn._saved_other": ...,
    "y.grad_fn._saved_self": ...,
    "y.grad_fn._saved_exponent": ...,
    "y.grad_fn._saved_self after backward": ...,
    "y.grad_fn._saved_exponent after backward": ...,
}
# --8<-- [end:starter]

# --8<-- [start:solution]
import torch

a = torch.tensor(2.0, requires_grad=True)
b = torch.tensor(3.0, requires_grad=True)
c = torch.tensor(5.0)

p = a * c
q = a * b
y = a**3

predictions = {
    "p.grad_fn._saved_self": None,  # a is needed only for c's gradient, which is not wanted
    "p.grad_fn._saved_other": 5.0,  # c is needed for a's gradient: d(a * c)/da = c
    "q.grad_fn._saved_other": 3.0,  # both require grad, so both are saved; other is b
    "y.grad_fn._saved_self": 2.0,  # d(a**3)/da = 3a**2 needs a
    "y.grad_fn._saved_exponent": 3,  # ... and the exponent, a plain number
    "y.grad_fn._saved_self after backward": "error",  # backward() freed the saved a
    "y.grad_fn._saved_exponent after backward": 3,  # numbers are not freed
}

print("p saved:", p.grad_fn._saved_self, "and", p.grad_fn._saved_other)
print("q saved other:", q.grad_fn._saved_other)
print("y saved:", y.grad_fn._saved_self, "and", y.grad_fn._saved_exponent)
y.backward()
print("after backward(), y still has its exponent:", y.grad_fn._saved_exponent)
# --8<-- [end:solution]

# --8<-- [start:check]
# Builds the same tensors again with torch, reads every attribute, and compares it
# with your prediction.
import torch


def _read(read) -> object:
    """A saved value as a number, None, or "error" if reading it raises."""
    try:
        value = read()
    except RuntimeError:
        return "error"
    if value is None:
        return None
    return value.item() if isinstance(value, torch.Tensor) else value


def _actual() -> dict:
    a = torch.tensor(2.0, requires_grad=True)
    b = torch.tensor(3.0, requires_grad=True)
    c = torch.tensor(5.0)
    p, q, y = a * c, a * b, a**3
    before = {
        "p.grad_fn._saved_self": _read(lambda: p.grad_fn._saved_self),
        "p.grad_fn._saved_other": _read(lambda: p.grad_fn._saved_other),
        "q.grad_fn._saved_other": _read(lambda: q.grad_fn._saved_other),
        "y.grad_fn._saved_self": _read(lambda: y.grad_fn._saved_self),
        "y.grad_fn._saved_exponent": _read(lambda: y.grad_fn._saved_exponent),
    }
    y.backward()
    after = {
        "y.grad_fn._saved_self after backward": _read(lambda: y.grad_fn._saved_self),
        "y.grad_fn._saved_exponent after backward": _read(lambda: y.grad_fn._saved_exponent),
    }
    return {**before, **after}


WHY = {
    "p.grad_fn._saved_self": (
        "a product saves each input only if the other input requires grad; c does not, "
        "so a is not needed"
    ),
    "p.grad_fn._saved_other": "the gradient of a is the incoming gradient times c, so c is kept",
    "q.grad_fn._saved_other": "a and b both require grad, so both are kept; other is b",
    "y.grad_fn._saved_self": "the derivative 3a**2 needs a, the first input",
    "y.grad_fn._saved_exponent": "the derivative 3a**2 needs the exponent, a plain number",
    "y.grad_fn._saved_self after backward": (
        "backward() frees the saved tensors, and reading one afterwards raises a RuntimeError"
    ),
    "y.grad_fn._saved_exponent after backward": (
        "only saved tensors are freed; the exponent is a plain number and stays"
    ),
}


# Ways of writing "reading it raises", all accepted: "error", "RuntimeError", "Error", ...
# and the exception class itself, RuntimeError (or Exception), unquoted.
ERROR_WORDS = {"error", "runtimeerror", "runtime error"}


def _names_the_error(predicted: object) -> bool:
    if isinstance(predicted, type):
        # RuntimeError, or a class it belongs to: Exception, BaseException
        return issubclass(predicted, BaseException) and issubclass(RuntimeError, predicted)
    return isinstance(predicted, str) and predicted.strip().lower() in ERROR_WORDS


def _same(predicted: object, actual: object) -> bool:
    if isinstance(predicted, torch.Tensor) and predicted.numel() == 1:
        predicted = predicted.item()  # tensor(5.) means the number 5
    if actual is None:
        return predicted is None
    if actual == "error":
        return _names_the_error(predicted)
    if isinstance(predicted, bool) or not isinstance(predicted, int | float):
        return False
    return abs(predicted - actual) < 1e-6


def _shown(value: object) -> str:
    return value.__name__ if isinstance(value, type) else repr(value)  # a class by its name


def check() -> str:
    predictions = globals().get("predictions")
    if not isinstance(predictions, dict) or set(predictions) != set(WHY):
        return "Not done yet: predictions must have the seven entries of the starter code."
    missing = [name for name, value in predictions.items() if value is ...]
    if missing:
        return f"Not done yet: replace ... with your prediction for: {'; '.join(missing)}."
    actual = _actual()
    wrong = [
        f"{name}: expected {actual[name]!r}, got {_shown(predictions[name])} ({WHY[name]})"
        for name in WHY
        if not _same(predictions[name], actual[name])
    ]
    if not wrong:
        return f"Correct: all seven match what torch gives: {actual}."
    return "Not quite: " + "; ".join(wrong) + "."


try:
    print(check())
except Exception as error:  # the check never crashes, whatever the cell above did
    print(f"Not done yet: the check could not read your answer ({type(error).__name__}: {error}).")
# --8<-- [end:check]

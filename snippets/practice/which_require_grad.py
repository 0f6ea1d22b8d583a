"""Exercise 1.1: which results require grad?

Run it: python snippets/practice/which_require_grad.py
"""
# Each region is a self-contained cell (page, notebook), so imports repeat.
# ruff: noqa: E402

# --8<-- [start:starter]
import torch

x = torch.tensor([1.0, 2.0, 3.0])  # data: created without requires_grad
w = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)  # a weight
counts = torch.tensor([1, 2, 3])  # integers

# Read these lines without running them. Which results require grad?
a = x * 2
b = x * w
c = (x * w).sum()
d = w > 0
e = x + counts
f = w.argmax()
g = (x * 2).requires_grad_()
h = a + c

# Your predictions: True if the result requires grad, False if not.
predictions = {
    "a": ...,
    "b": ...,
    "c": ...,
    "d": ...,
    "e": ...,
    "f": ...,
    "g": ...,
    "h": ...,
}
# --8<-- [end:starter]

# --8<-- [start:solution]
import torch

x = torch.tensor([1.0, 2.0, 3.0])
w = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
counts = torch.tensor([1, 2, 3])

a = x * 2
b = x * w
c = (x * w).sum()
d = w > 0
e = x + counts
f = w.argmax()
g = (x * 2).requires_grad_()
h = a + c

predictions = {
    "a": False,  # x and 2: nothing in it requires grad
    "b": True,  # w requires grad, so the product does (the order does not matter)
    "c": True,  # the sum of a result that requires grad
    "d": False,  # a comparison gives bool values, which never require grad
    "e": False,  # a float plus an integer tensor: neither requires grad
    "f": False,  # argmax gives an integer index, which never requires grad
    "g": True,  # requires_grad_() switched tracking on for the product
    "h": True,  # a does not require grad, but c does
}

for name, result in {"a": a, "b": b, "c": c, "d": d, "e": e, "f": f, "g": g, "h": h}.items():
    print(f"{name}: predicted {predictions[name]!s:5}  torch says {result.requires_grad}")
# --8<-- [end:solution]

# --8<-- [start:check]
# Builds each result again with torch (its own copy of the lines you read) and compares
# its requires_grad with your prediction.
import torch


def actual_results() -> dict:
    x = torch.tensor([1.0, 2.0, 3.0])
    w = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    counts = torch.tensor([1, 2, 3])
    a = x * 2
    b = x * w
    c = (x * w).sum()
    d = w > 0
    e = x + counts
    f = w.argmax()
    g = (x * 2).requires_grad_()
    h = a + c
    return {"a": a, "b": b, "c": c, "d": d, "e": e, "f": f, "g": g, "h": h}


WHY = {
    "a": "x * 2 uses no tensor that requires grad",
    "b": "w requires grad, and one tracked input is enough, whichever side it is on",
    "c": "c is computed from x * w, which requires grad",
    "d": "a comparison gives bool values, and a bool result never requires grad",
    "e": "neither x nor counts requires grad; the result is float, but nothing in it is tracked",
    "f": "argmax gives an integer index, and an integer result never requires grad",
    "g": "requires_grad_() switched tracking on for the product",
    "h": "a does not require grad, but c does, and one tracked input is enough",
}


def check() -> str:
    predictions = globals().get("predictions")
    if not isinstance(predictions, dict) or set(predictions) != set(WHY):
        return "Not done yet: predictions must have one entry for each result, a to h."
    missing = [name for name, value in predictions.items() if value is ...]
    if missing:
        return f"Not done yet: replace ... with True or False for {', '.join(sorted(missing))}."
    not_bool = [name for name, value in predictions.items() if not isinstance(value, bool)]
    if not_bool:
        return (
            "Not done yet: each prediction must be True or False (without quotes); "
            f"see {', '.join(sorted(not_bool))}."
        )
    actual = {name: t.requires_grad for name, t in actual_results().items()}
    wrong = [
        f"{name}: expected {actual[name]}, got {predictions[name]} ({WHY[name]})"
        for name in sorted(actual)
        if predictions[name] != actual[name]
    ]
    if not wrong:
        tracked = ", ".join(name for name in sorted(actual) if actual[name])
        return f"Correct: exactly {tracked} require grad, as torch says."
    return "Not quite: " + "; ".join(wrong) + "."


try:
    print(check())
except Exception as error:  # the check never crashes, whatever the cell above did
    print(f"Not done yet: the check could not read your answer ({type(error).__name__}: {error}).")
# --8<-- [end:check]

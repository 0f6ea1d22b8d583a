"""Exercise 1.4: a gradient through the branch that ran.

Run it: python snippets/practice/the_branch_that_ran.py
"""
# Each region is a self-contained cell (page, notebook), so imports repeat.
# ruff: noqa: E402, F811

# --8<-- [start:starter]
import torch


def f(x, a, b):
    if x > 1:
        return a * x**2
    return (b * x) ** 2 + a


# Each run uses fresh parameters a = 2 and b = 3, then calls backward() once:
#     a = torch.tensor(2.0, requires_grad=True)
#     b = torch.tensor(3.0, requires_grad=True)
#     f(torch.tensor(x_value), a, b).backward()
# Work out by hand what a.grad and b.grad hold after a run at x = 3 and after a run
# at x = -2. Write a number, or None if you think the gradient stays None.
predictions = {
    "a.grad at x = 3": ...,
    "b.grad at x = 3": ...,
    "a.grad at x = -2": ...,
    "b.grad at x = -2": ...,
}
# --8<-- [end:starter]

# --8<-- [start:solution]
import torch


def f(x, a, b):
    if x > 1:
        return a * x**2
    return (b * x) ** 2 + a


predictions = {
    "a.grad at x = 3": 9.0,  # the first branch ran: d(a x²)/da = x² = 9
    "b.grad at x = 3": None,  # b is not in that branch, so not in the graph
    "a.grad at x = -2": 1.0,  # the second branch adds a: d/da = 1
    "b.grad at x = -2": 24.0,  # d(bx)²/db = 2(bx) * x = 2 * (-6) * (-2)
}

for x_value in [3.0, -2.0]:
    a = torch.tensor(2.0, requires_grad=True)
    b = torch.tensor(3.0, requires_grad=True)
    f(torch.tensor(x_value), a, b).backward()
    print(f"x = {x_value}: a.grad = {a.grad}, b.grad = {b.grad}")
# --8<-- [end:solution]

# --8<-- [start:check]
# Runs the function with torch (its own copy of the code you read) and compares each
# gradient with your prediction.
import torch


def _f(x, a, b):
    if x > 1:
        return a * x**2
    return (b * x) ** 2 + a


def _run(x_value: float) -> dict:
    a = torch.tensor(2.0, requires_grad=True)
    b = torch.tensor(3.0, requires_grad=True)
    _f(torch.tensor(x_value), a, b).backward()
    grads = {"a": a.grad, "b": b.grad}
    return {name: None if g is None else g.item() for name, g in grads.items()}


WHY = {
    "a.grad at x = 3": "3 > 1, so the branch a * x**2 ran, and its derivative in a is x**2",
    "b.grad at x = 3": "3 > 1, so the branch a * x**2 ran, and it does not use b",
    "a.grad at x = -2": (
        "-2 is not > 1, so the branch (b * x)**2 + a ran; it uses a too, and d/da of + a is 1"
    ),
    "b.grad at x = -2": (
        "-2 is not > 1, so the branch (b * x)**2 + a ran; by the chain rule, d/db of "
        "(b * x)**2 is 2(b * x) * x"
    ),
}


def _verdict(name: str, predicted: object, actual: object) -> str | None:
    if actual is None:
        if predicted is None:
            return None
        return (
            f"{name}: expected None, got {predicted} ({WHY[name]}: b is not in this run's "
            "graph, so backward() never reaches it and its .grad stays None, not 0)"
        )
    if predicted is None:
        return f"{name}: expected {actual:g}, got None ({WHY[name]})"
    if abs(predicted - actual) < 1e-6:
        return None
    return f"{name}: expected {actual:g}, got {predicted:g} ({WHY[name]})"


def check() -> str:
    predictions = globals().get("predictions")
    if not isinstance(predictions, dict) or set(predictions) != set(WHY):
        return "Not done yet: predictions must have the four entries of the starter code."
    missing = [name for name, value in predictions.items() if value is ...]
    if missing:
        return f"Not done yet: replace ... with a number or None for: {'; '.join(missing)}."
    invalid = [
        name
        for name, value in predictions.items()
        if value is not None and (isinstance(value, bool) or not isinstance(value, int | float))
    ]
    if invalid:
        return (
            "Not done yet: each prediction must be a number or None (without quotes); "
            f"see: {'; '.join(invalid)}."
        )
    runs = {3: _run(3.0), -2: _run(-2.0)}
    actual = {
        "a.grad at x = 3": runs[3]["a"],
        "b.grad at x = 3": runs[3]["b"],
        "a.grad at x = -2": runs[-2]["a"],
        "b.grad at x = -2": runs[-2]["b"],
    }
    wrong = [v for name in WHY if (v := _verdict(name, predictions[name], actual[name]))]
    if not wrong:
        return f"Correct: all four match what torch computes: {actual}."
    return "Not quite: " + "; ".join(wrong) + "."


try:
    print(check())
except Exception as error:  # the check never crashes, whatever the cell above did
    print(f"Not done yet: the check could not read your answer ({type(error).__name__}: {error}).")
# --8<-- [end:check]

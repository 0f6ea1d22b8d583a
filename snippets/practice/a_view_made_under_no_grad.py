"""Exercise 3.5: a view made under no_grad().

Run it: python snippets/practice/a_view_made_under_no_grad.py
"""
# Each region is a self-contained cell (page, notebook), so imports repeat.
# ruff: noqa: E402, F811

# --8<-- [start:starter]
import torch


# Read each block and predict what it returns, without running anything.
def block_a():
    w = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    with torch.no_grad():
        head = w[:2]  # a view: the first two values of w, no copy
    return head.requires_grad


def block_b():
    w = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    with torch.no_grad():
        doubled = w * 2  # a new tensor, not a view
    return doubled.requires_grad


def block_c():
    w = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    with torch.no_grad():
        head = w[:2]
    (head * 3).sum().backward()
    return w.grad


def block_d():
    w = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    with torch.no_grad():
        head = w[:2]
    (head * 3).sum().backward()
    return head.grad


def block_e():
    w = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    head = w[:2]  # the same view, made with grad mode on
    (head * 3).sum().backward()
    return w.grad


def block_f():
    w = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    with torch.no_grad():
        head = w[:2]
    head.mul_(2)  # in place, after the no_grad block
    return w


def block_g():
    w = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    with torch.no_grad():
        head = w[:2]
        head.mul_(2)  # in place, inside the no_grad block
    return w


def block_h():
    w = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    head = w.detach()[:2]  # a view of w's values, outside the graph
    return head.requires_grad


# Your predictions: True or False, None, a list of numbers such as [1.0, 2.0], or
# "error" if you think the block raises. Replace each "?" with your prediction.
predictions = {
    "a": "?",
    "b": "?",
    "c": "?",
    "d": "?",
    "e": "?",
    "f": "?",
    "g": "?",
    "h": "?",
}
# --8<-- [end:starter]

# --8<-- [start:solution]
import torch


def block_a():
    w = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    with torch.no_grad():
        head = w[:2]  # a view: the first two values of w, no copy
    return head.requires_grad


def block_b():
    w = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    with torch.no_grad():
        doubled = w * 2  # a new tensor, not a view
    return doubled.requires_grad


def block_c():
    w = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    with torch.no_grad():
        head = w[:2]
    (head * 3).sum().backward()
    return w.grad


def block_d():
    w = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    with torch.no_grad():
        head = w[:2]
    (head * 3).sum().backward()
    return head.grad


def block_e():
    w = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    head = w[:2]  # the same view, made with grad mode on
    (head * 3).sum().backward()
    return w.grad


def block_f():
    w = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    with torch.no_grad():
        head = w[:2]
    head.mul_(2)  # in place, after the no_grad block
    return w


def block_g():
    w = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    with torch.no_grad():
        head = w[:2]
        head.mul_(2)  # in place, inside the no_grad block
    return w


def block_h():
    w = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    head = w.detach()[:2]  # a view of w's values, outside the graph
    return head.requires_grad


predictions = {
    "a": True,  # a view takes requires_grad from its base, even under no_grad()
    "b": False,  # a new result computed under no_grad() is a constant
    "c": None,  # the view is not linked to w: nothing reaches w.grad
    "d": None,  # ... and it has no .grad of its own either: the gradient is lost
    "e": [3.0, 3.0, 0.0, 0.0],  # made with grad mode on, the view passes it to w
    "f": "error",  # in place on a view made under no_grad(), with grad mode on
    "g": [2.0, 4.0, 3.0, 4.0],  # allowed inside no_grad(), and it changes w itself
    "h": False,  # detach() gives a tensor outside the graph, and so do its views
}

# Then run the blocks and compare with what torch really gives.
blocks = (block_a, block_b, block_c, block_d, block_e, block_f, block_g, block_h)
for (name, predicted), block in zip(predictions.items(), blocks, strict=True):
    try:
        result = block()
        if isinstance(result, torch.Tensor):
            result = result.tolist()
    except RuntimeError:
        result = "error"  # the block raised, as the check cell says it
    print(f"{name}: predicted {predicted!s:22} got {result}")

# PyTorch's message for block f, which says how to fix it:
try:
    block_f()
except RuntimeError as error:
    print(error)

# Where the edge into the view leads, in the graph of head * 3:
w = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
with torch.no_grad():
    head = w[:2]
print("view made under no_grad(): head * 3 ->", (head * 3).grad_fn.next_functions[0][0])
head = w[:2]
print("view made with grad on:    head * 3 ->", (head * 3).grad_fn.next_functions[0][0].name())
# --8<-- [end:solution]

# --8<-- [start:check]
# Runs each block with torch and compares what it returns with your prediction.
# The blocks are copied here, so that the check runs exactly the code you read.
import ast

import torch


def block_a():
    w = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    with torch.no_grad():
        head = w[:2]  # a view: the first two values of w, no copy
    return head.requires_grad


def block_b():
    w = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    with torch.no_grad():
        doubled = w * 2  # a new tensor, not a view
    return doubled.requires_grad


def block_c():
    w = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    with torch.no_grad():
        head = w[:2]
    (head * 3).sum().backward()
    return w.grad


def block_d():
    w = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    with torch.no_grad():
        head = w[:2]
    (head * 3).sum().backward()
    return head.grad


def block_e():
    w = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    head = w[:2]  # the same view, made with grad mode on
    (head * 3).sum().backward()
    return w.grad


def block_f():
    w = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    with torch.no_grad():
        head = w[:2]
    head.mul_(2)  # in place, after the no_grad block
    return w


def block_g():
    w = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    with torch.no_grad():
        head = w[:2]
        head.mul_(2)  # in place, inside the no_grad block
    return w


def block_h():
    w = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    head = w.detach()[:2]  # a view of w's values, outside the graph
    return head.requires_grad


BLOCKS = {
    "a": block_a,
    "b": block_b,
    "c": block_c,
    "d": block_d,
    "e": block_e,
    "f": block_f,
    "g": block_g,
    "h": block_h,
}

WHY = {
    "a": "a view takes requires_grad from its base, even when it is made under no_grad()",
    "b": "w * 2 is a new result, and one computed under no_grad() requires no grad",
    "c": "a view made under no_grad() is not linked to w: backward runs, but nothing reaches w",
    "d": "the view has no .grad of its own either: the gradient through it is silently lost",
    "e": "made with grad mode on, the view is recorded (SliceBackward0) and passes 3 to w[:2]",
    "f": "changing in place, with grad mode on, a view made under no_grad() is forbidden",
    "g": "inside no_grad() the change is allowed, and a view shares its base's memory",
    "h": "detach() gives a tensor outside the graph, and a view of it requires no grad",
}


def outcome(block) -> object:
    """What a block really gives: True or False, None, a list of numbers, or "error"."""
    try:
        result = block()
    except RuntimeError:
        return "error"
    return result.tolist() if isinstance(result, torch.Tensor) else result


def normalised(prediction: object) -> object:
    """The same prediction: None and "None", True and "True", a tensor and its list, and a
    list and the same list written in quotes ("[3.0, 3.0]", "tensor([3., 3.])")."""
    if isinstance(prediction, torch.Tensor):
        return prediction.tolist()
    if isinstance(prediction, tuple):
        return list(prediction)
    if isinstance(prediction, str):
        word = prediction.strip().lower().replace(" ", "")
        if word.startswith("tensor(") and word.endswith(")"):
            word = word[len("tensor(") : -1]
        if word.startswith(("[", "(")):
            try:
                return normalised(ast.literal_eval(word))  # a list written as a string
            except (ValueError, SyntaxError):
                return prediction
        words = {"none": None, "true": True, "false": False, "runtimeerror": "error"}
        return words.get(word, word)
    return prediction


def same(prediction: object, actual: object) -> bool:
    prediction = normalised(prediction)
    if isinstance(actual, list):
        return (
            isinstance(prediction, list)
            and len(prediction) == len(actual)
            and all(
                isinstance(p, int | float) and not isinstance(p, bool) and abs(p - a) < 1e-6
                for p, a in zip(prediction, actual, strict=True)
            )
        )
    if isinstance(actual, bool) or actual is None:
        return prediction is actual
    return prediction == actual


def check() -> str:
    predictions = globals().get("predictions")
    if not isinstance(predictions, dict) or set(predictions) != set(BLOCKS):
        return "Not done yet: predictions must have one entry for each block, a to h."
    missing = [name for name, value in predictions.items() if value is ... or value == "?"]
    if missing:
        return f'Not done yet: replace "?" with your prediction for {", ".join(missing)}.'
    actual = {name: outcome(block) for name, block in BLOCKS.items()}
    wrong = [
        f"{name}: expected {actual[name]!r}, got {predictions[name]!r} ({WHY[name]})"
        for name in BLOCKS
        if not same(predictions[name], actual[name])
    ]
    if not wrong:
        return "Correct: all eight predictions match what torch does."
    return "Not quite: " + "; ".join(wrong) + "."


try:
    print(check())
except Exception as error:  # the check never crashes, whatever the cell above did
    print(f"Not done yet: the check could not read your answer ({type(error).__name__}: {error}).")
# --8<-- [end:check]
